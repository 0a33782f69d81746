#!/usr/bin/env python3
"""Extracting one node of the 3 GiB external-data LLM graph (issue 44 part 3): time and peak RSS of
`onnxscope-cli extract`, and the folder checked with `onnxscope-cli test`, onnxruntime and numpy.

The model is graph_make_llm.py's (28 layers, 3.0 GiB of float32 weights as a sparse file). The embedding table and the
weight of the extracted node (/model/layers.27/mlp/gate_proj/MatMul) are then filled with seeded random values in
place (220 MiB written), every other large weight stays a hole that reads as zeros. With zero attention and MLP
weights every layer adds 0 to the residual stream, so the node's input is numpy's RMS norm of the embedded tokens,
and its output that times the weight: the truth here does not come from onnxscope. Not a CTest test (it writes and
reads GiBs): prints one JSON line. Run with the test venv's python (onnxruntime, numpy, onnx).

usage: extract_llm_bench.py ONNXSCOPE_CLI [WORKDIR]
"""
import json
import os
import platform
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
from onnx import numpy_helper

NODE = "/model/layers.27/mlp/gate_proj/MatMul"
FILLED = ("model.embed_tokens.weight", "model.layers.27.mlp.gate_proj.MatMul.weight")


def cpu_name():
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor()


def main():
    cli = sys.argv[1]
    work = Path(sys.argv[2] if len(sys.argv) > 2 else "/tmp/onnxscope-extract-llm")
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    here = Path(__file__).resolve().parent
    model = work / "llm.onnx"
    subprocess.run([sys.executable, str(here / "graph_make_llm.py"), str(model)], check=True)
    m = onnx.load(model, load_external_data=False)
    rng = np.random.default_rng(44)
    tensors = {}
    with open(work / "llm.onnx.data", "r+b") as data:
        for t in m.graph.initializer:
            if t.name not in FILLED:
                continue
            ext = {e.key: e.value for e in t.external_data}
            values = (rng.standard_normal(tuple(t.dims)) * 0.02).astype(np.float32)
            data.seek(int(ext["offset"]))
            data.write(values.tobytes())
            tensors[t.name] = values
    seq = 8
    ids = rng.integers(0, 32000, (1, seq), dtype=np.int64)
    feeds = {"input_ids": ids, "position_ids": np.arange(seq, dtype=np.int64)[None],
             "attention_bias": np.triu(np.full((seq, seq), -1e9, np.float32), 1)[None, None]}
    for i in range(28):
        for kind in ("key", "value"):
            feeds[f"past_key_values.{i}.{kind}"] = np.zeros((1, 4, 0, 128), np.float32)
    np.savez(work / "inputs.npz", **feeds)

    out = work / "case"
    start = time.monotonic()
    p = subprocess.run(["/usr/bin/time", "-f", "peak_rss_kib=%M", cli, "extract", str(model), "--node", NODE,
                        "-o", str(out), "--input", str(work / "inputs.npz")], capture_output=True, text=True)
    seconds = time.monotonic() - start
    print(p.stdout, p.stderr, file=sys.stderr)
    if p.returncode != 0:
        sys.exit(f"extract failed: exit {p.returncode}")
    rss = int(next(l for l in p.stderr.splitlines() if l.startswith("peak_rss_kib=")).split("=")[1])

    t = subprocess.run([cli, "test", str(out)], capture_output=True, text=True)
    print(t.stdout, t.stderr, file=sys.stderr)
    failures = []
    if t.returncode != 0:
        failures.append(f"onnxscope-cli test: exit {t.returncode}")

    case = onnx.load(out / "model.onnx")
    pb = sorted((out / "test_data_set_0").glob("input_*.pb"))
    inputs = {}
    for f in pb:
        tp = onnx.TensorProto()
        tp.ParseFromString(f.read_bytes())
        inputs[tp.name] = numpy_helper.to_array(tp)
    tp = onnx.TensorProto()
    tp.ParseFromString((out / "test_data_set_0" / "output_0.pb").read_bytes())
    expected = numpy_helper.to_array(tp)
    sess = ort.InferenceSession(case.SerializeToString(), providers=["CPUExecutionProvider"])
    (got,) = sess.run(None, inputs)
    if not np.allclose(got, expected, rtol=1e-4, atol=1e-5):
        failures.append(f"onnxruntime differs from the extracted output: max abs {np.abs(got - expected).max()}")
    # numpy: the residual stream at layer 27 is the embedding (every layer adds zeros), RMS-normed with weight 1.
    x = tensors["model.embed_tokens.weight"][ids].astype(np.float64)
    h = x / np.sqrt((x * x).mean(-1, keepdims=True) + 1e-5)
    (name,) = inputs
    if not np.allclose(inputs[name], h, rtol=1e-4, atol=1e-5):
        failures.append(f"the extracted input differs from numpy's: max abs {np.abs(inputs[name] - h).max()}")
    y = h @ tensors["model.layers.27.mlp.gate_proj.MatMul.weight"].astype(np.float64)
    if not np.allclose(expected, y, rtol=1e-4, atol=1e-5):
        failures.append(f"the extracted output differs from numpy's: max abs {np.abs(expected - y).max()}")

    size = sum(f.stat().st_size for f in out.rglob("*") if f.is_file())
    print(json.dumps({
        "node": NODE, "model_weights_bytes": (work / "llm.onnx.data").stat().st_size,
        "extract_seconds": round(seconds, 2), "extract_peak_rss_mib": rss // 1024,
        "case_bytes": size, "case_external_data": (out / "model.onnx.data").exists(),
        "onnxscope_test": t.returncode == 0, "onnxruntime_matches": not any("onnxruntime" in f for f in failures),
        "numpy_matches": not any("numpy" in f for f in failures), "cpu": cpu_name(),
        "load": os.getloadavg()[0],
    }))
    if failures:
        sys.exit("\n".join(failures))


if __name__ == "__main__":
    main()
