#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Benchmark (not a test): a 300-tree, depth-8 TreeEnsembleRegressor on 100,000 rows, single thread, onnxscope-cli
against onnxruntime-node. Prints both median latencies and the ratio onnxscope / onnxruntime (goal <= 1.0).

usage: tree_bench.py <onnxscope-cli> [<onnxruntime-node dir>] [--rows N] [--trees N] [--depth N] [--repeat N]
"""
import argparse
import json
import os
import re
import resource
import subprocess
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper

ORT_SCRIPT = r"""
const ort = require(process.argv[2]);
const fs = require('fs');
async function main() {
    const rows = +process.argv[4], features = +process.argv[5], repeat = +process.argv[6];
    const buf = fs.readFileSync(process.argv[7]);
    const x = new Float32Array(buf.buffer, buf.byteOffset, rows * features);
    const s = await ort.InferenceSession.create(process.argv[3],
        { intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential' });
    const feeds = { X: new ort.Tensor('float32', x, [rows, features]) };
    await s.run(feeds);
    const ms = [];
    for (let i = 0; i < repeat; ++i) {
        const t0 = process.hrtime.bigint();
        await s.run(feeds);
        ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    ms.sort((a, b) => a - b);
    console.log(JSON.stringify({ median: ms[Math.floor(ms.length / 2)], min: ms[0] }));
}
main();
"""


def make_model(path, trees, depth, features, rng):
    a = {k: [] for k in ["nodes_treeids", "nodes_nodeids", "nodes_featureids", "nodes_modes", "nodes_values",
                         "nodes_truenodeids", "nodes_falsenodeids", "target_treeids", "target_nodeids",
                         "target_ids", "target_weights"]}
    n_nodes = 2 ** (depth + 1) - 1
    for t in range(trees):
        for i in range(n_nodes):
            leaf = i >= 2 ** depth - 1
            a["nodes_treeids"].append(t)
            a["nodes_nodeids"].append(i)
            a["nodes_featureids"].append(0 if leaf else int(rng.integers(features)))
            a["nodes_modes"].append("LEAF" if leaf else "BRANCH_LEQ")
            a["nodes_values"].append(0.0 if leaf else float(rng.normal()))
            a["nodes_truenodeids"].append(0 if leaf else 2 * i + 1)
            a["nodes_falsenodeids"].append(0 if leaf else 2 * i + 2)
            if leaf:
                a["target_treeids"].append(t)
                a["target_nodeids"].append(i)
                a["target_ids"].append(0)
                a["target_weights"].append(float(rng.normal()) / trees)
    node = helper.make_node("TreeEnsembleRegressor", ["X"], ["Y"], domain="ai.onnx.ml", n_targets=1,
                            aggregate_function="SUM", **a)
    graph = helper.make_graph([node], "trees", [helper.make_tensor_value_info("X", TensorProto.FLOAT, ["N", features])],
                              [helper.make_tensor_value_info("Y", TensorProto.FLOAT, ["N", 1])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 15), helper.make_opsetid("ai.onnx.ml", 1)])
    model.ir_version = 8
    onnx.save(model, path)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("cli")
    p.add_argument("ort", nargs="?", default=os.path.expanduser("~/.cache/onnxscope/npm/node_modules/onnxruntime-node"))
    p.add_argument("--rows", type=int, default=100_000)
    p.add_argument("--trees", type=int, default=300)
    p.add_argument("--depth", type=int, default=8)
    p.add_argument("--features", type=int, default=20)
    p.add_argument("--repeat", type=int, default=5)
    args = p.parse_args()
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as tmp:
        model = os.path.join(tmp, "trees.onnx")
        make_model(model, args.trees, args.depth, args.features, rng)
        x = rng.normal(size=(args.rows, args.features)).astype(np.float32)
        np.save(os.path.join(tmp, "X.npy"), x)
        x.tofile(os.path.join(tmp, "X.bin"))
        ours_cmd = lambda r: [args.cli, "run", model, "-i", "X=" + os.path.join(tmp, "X.npy"), "-q",  # noqa: E731
                              "--repeat", str(r)]
        script = os.path.join(tmp, "ort_bench.js")
        with open(script, "w") as f:
            f.write(ORT_SCRIPT)
        ort_cmd = lambda r: ["node", script, args.ort, model, str(args.rows), str(args.features), str(r),  # noqa: E731
                             os.path.join(tmp, "X.bin")]
        ours = float(re.search(r"median ([0-9.]+) ms", run(ours_cmd(args.repeat))[0]).group(1))
        ort = json.loads(run(ort_cmd(args.repeat))[0])["median"]
        # CPU time per run: (CPU of a process doing warm-up + R runs - CPU of one doing the warm-up only) / R.
        # Unlike wall time, it hardly moves when other processes load the machine.
        ours_cpu = (run(ours_cmd(args.repeat))[1] - run(ours_cmd(0))[1]) / args.repeat * 1e3
        ort_cpu = (run(ort_cmd(args.repeat))[1] - run(ort_cmd(0))[1]) / args.repeat * 1e3
    print(f"{args.trees} trees, depth {args.depth}, {args.rows} rows x {args.features} features, single thread, "
          f"load average {os.getloadavg()[0]:.1f}")
    print(f"onnxscope:   median {ours:.1f} ms wall, {ours_cpu:.1f} ms CPU per run")
    print(f"onnxruntime: median {ort:.1f} ms wall, {ort_cpu:.1f} ms CPU per run")
    print(f"ratio onnxscope / onnxruntime: {ours / ort:.2f} (wall), {ours_cpu / ort_cpu:.2f} (CPU time)")


def run(cmd):
    """Runs cmd; returns its stdout and the CPU time (user + system, seconds) it used."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return out, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)

if __name__ == "__main__":
    main()
