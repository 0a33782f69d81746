// SPDX-License-Identifier: MIT
// Runs models through onnxruntime-node and prints their outputs as JSON, for generate_ml_cases.py.
// usage: node ort_run.js <onnxruntime-node dir> <jobs.json>
// jobs.json: [{"model": path, "inputs": {name: {"type": "float32"|"float64"|"int64"|"int32"|"string", "dims": [...],
//              "data": [...]}}}, ...]; NaN is written as null.
const fs = require('fs');
const ort = require(process.argv[2]);

const arrays = {
    float32: (d) => Float32Array.from(d.map((v) => (v === null ? NaN : v))),
    float64: (d) => Float64Array.from(d.map((v) => (v === null ? NaN : v))),
    int32: (d) => Int32Array.from(d),
    int64: (d) => BigInt64Array.from(d.map((v) => BigInt(v))),
    string: (d) => d,
};

async function main() {
    const jobs = JSON.parse(fs.readFileSync(process.argv[3], 'utf8'));
    const results = [];
    for (const job of jobs) {
        try {
            const session = await ort.InferenceSession.create(job.model, { intraOpNumThreads: 1 });
            const feeds = {};
            for (const [name, t] of Object.entries(job.inputs))
                feeds[name] = new ort.Tensor(t.type, arrays[t.type](t.data), t.dims);
            const out = await session.run(feeds);
            const res = {};
            for (const name of session.outputNames) {
                const t = out[name];
                res[name] = {
                    type: t.type,
                    dims: Array.from(t.dims),
                    data: Array.from(t.data, (v) => (typeof v === 'bigint' ? v.toString()
                        : (typeof v === 'number' && isNaN(v) ? null : v))),
                };
            }
            results.push({ ok: true, outputs: res });
        } catch (e) {
            results.push({ ok: false, error: String(e) });
        }
    }
    process.stdout.write(JSON.stringify(results));
}

main().catch((e) => {
    console.error(e);
    process.exit(1);
});
