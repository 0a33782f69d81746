// Times a model with onnxruntime-node (CPU, all graph optimizations) for tests/bench/perf_bench.py.
// Usage: node ort_bench.js ORT_MODULE_DIR MODEL THREADS WARMUP REPEAT OUT_DIR NAME=FILE.npy...
//   MODEL "-" only loads onnxruntime (the process's baseline memory).
// Prints {"runs_ms": [...], "cpu_ms": [...], "peak_rss_kib": N} (wall and process CPU time per run, and the peak
// resident memory of this program, VmHWM, which unlike wait4's ru_maxrss does not count the parent's pages that the
// fork copied) on stdout and writes the
// outputs of the last run as OUT_DIR/output_<k>.npy with OUT_DIR/outputs.json (the output names in order).
'use strict';
const fs = require('fs');
const path = require('path');
const { readNpy, writeNpy } = require('../models/npy.js');

const [ortDir, modelPath, threads, warmup, repeat, outDir, ...feeds] = process.argv.slice(2);
const ort = require(ortDir);

function peakResidentKib() {
  const m = /VmHWM:\s*(\d+)/.exec(fs.readFileSync('/proc/self/status', 'utf8'));
  return m ? +m[1] : 0;
}

(async () => {
  if (modelPath === '-') {
    console.log(JSON.stringify({ runs_ms: [], cpu_ms: [], peak_rss_kib: peakResidentKib() }));
    return;
  }
  const session = await ort.InferenceSession.create(modelPath, {
    executionProviders: ['cpu'], graphOptimizationLevel: 'all', executionMode: 'sequential',
    intraOpNumThreads: +threads, interOpNumThreads: 1,
  });
  const inputs = {};
  for (const f of feeds) {
    const eq = f.indexOf('=');
    inputs[f.slice(0, eq)] = readNpy(ort, f.slice(eq + 1));
  }
  let results;
  for (let i = 0; i < +warmup; ++i)
    results = await session.run(inputs);
  const ms = [], cpu = [];
  for (let i = 0; i < +repeat; ++i) {
    const c0 = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    results = await session.run(inputs);
    ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1e3);
  }
  fs.mkdirSync(outDir, { recursive: true });
  session.outputNames.forEach((name, k) => writeNpy(path.join(outDir, `output_${k}.npy`), results[name]));
  fs.writeFileSync(path.join(outDir, 'outputs.json'), JSON.stringify(session.outputNames));
  console.log(JSON.stringify({ runs_ms: ms, cpu_ms: cpu, peak_rss_kib: peakResidentKib() }));
})().catch(e => { console.error(`onnxruntime: ${e.message}`); process.exit(1); });
