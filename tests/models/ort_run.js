// Runs a model with onnxruntime-node (CPU) on .npy inputs and writes its outputs as .npy files.
// Usage: node ort_run.js ORT_MODULE_DIR MODEL OUT_DIR NAME=FILE.npy...
// Writes OUT_DIR/output_<k>.npy and OUT_DIR/outputs.json (the output names in order).
'use strict';
const fs = require('fs');
const path = require('path');

const [ortDir, modelPath, outDir, ...feeds] = process.argv.slice(2);
const ort = require(ortDir);

const { readNpy, writeNpy } = require('./npy.js');

(async () => {
  const options = { executionProviders: ['cpu'], graphOptimizationLevel: 'all', intraOpNumThreads: 1 };
  const session = await ort.InferenceSession.create(modelPath, options);
  const inputs = {};
  for (const f of feeds) {
    const eq = f.indexOf('=');
    inputs[f.slice(0, eq)] = readNpy(ort, f.slice(eq + 1));
  }
  const results = await session.run(inputs);
  fs.mkdirSync(outDir, { recursive: true });
  session.outputNames.forEach((name, k) => writeNpy(path.join(outDir, `output_${k}.npy`), results[name]));
  fs.writeFileSync(path.join(outDir, 'outputs.json'), JSON.stringify(session.outputNames));
})().catch(e => { console.error(`onnxruntime: ${e.message}`); process.exit(1); });
