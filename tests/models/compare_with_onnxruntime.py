#!/usr/bin/python3
"""Runs a model with onnxscope-cli and with onnxruntime (npm onnxruntime-node) on the same seeded random inputs
and compares every output. Exit 0 if all match, 1 on a mismatch or error, 77 (CTest skip) if the npm cache with
the models and onnxruntime is missing.

  compare_with_onnxruntime.py --cli PATH --cache DIR --model REL_PATH [--rtol R --atol A] [--seed S]
      [--shape NAME=1x3x640x640 ...] [--dim SYMBOL=N ...] [--fill NAME=VALUE ...] [--steps K --carry OUT=IN ...]

onnxscope runs each step twice: observed (every node runs) and plain (values freed after their last use, fused steps);
both are compared.

--steps/--carry run the model K times, feeding output OUT into input IN for the next step (stateful models such
as silero VAD); every step is compared.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx

NP_TYPES = {
    onnx.TensorProto.FLOAT: np.float32, onnx.TensorProto.DOUBLE: np.float64, onnx.TensorProto.INT64: np.int64,
    onnx.TensorProto.INT32: np.int32, onnx.TensorProto.BOOL: np.bool_, onnx.TensorProto.UINT8: np.uint8,
    onnx.TensorProto.INT8: np.int8, onnx.TensorProto.FLOAT16: np.float16,
}


def parse_pairs(items, convert=str):
    out = {}
    for item in items or []:
        key, _, value = item.partition("=")
        out[key] = convert(value)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--cache", required=True)
    ap.add_argument("--model", required=True, help="path relative to CACHE/npm/node_modules")
    ap.add_argument("--rtol", type=float, default=1e-4)
    ap.add_argument("--atol", type=float, default=1e-5)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--shape", action="append")
    ap.add_argument("--dim", action="append")
    ap.add_argument("--steps", type=int, default=1)
    ap.add_argument("--carry", action="append")
    ap.add_argument("--scale", type=float, default=1.0, help="random inputs are uniform in [-scale, scale)")
    ap.add_argument("--fill", action="append", help="NAME=VALUE: an input filled with one value (e.g. sr=16000)")
    args = ap.parse_args()

    modules = os.path.join(args.cache, "npm", "node_modules")
    model_path = os.path.join(modules, args.model)
    ort_dir = os.path.join(modules, "onnxruntime-node")
    if not os.path.exists(model_path) or not os.path.exists(ort_dir):
        print(f"SKIP: {model_path} or onnxruntime-node is missing; run scripts/setup.sh test to install the npm cache")
        return 77

    shapes = parse_pairs(args.shape, lambda v: [int(d) for d in v.split("x")])
    dims = parse_pairs(args.dim, int)
    carry = parse_pairs(args.carry)
    model = onnx.load(model_path, load_external_data=False)
    initializers = {i.name for i in model.graph.initializer}
    rng = np.random.default_rng(args.seed)
    inputs = {}
    for vi in model.graph.input:
        if vi.name in initializers:
            continue
        tt = vi.type.tensor_type
        shape = shapes.get(vi.name) or [d.dim_value if d.HasField("dim_value") else dims.get(d.dim_param, 1)
                                        for d in tt.shape.dim]
        dtype = NP_TYPES[tt.elem_type]
        if np.issubdtype(dtype, np.floating):
            inputs[vi.name] = rng.uniform(-args.scale, args.scale, shape).astype(dtype)
        elif dtype == np.bool_:
            inputs[vi.name] = rng.integers(0, 2, shape).astype(np.bool_)
        else:
            inputs[vi.name] = rng.integers(0, 10, shape).astype(dtype)
    for name, value in parse_pairs(args.fill, float).items():
        inputs[name] = np.full_like(inputs[name], value)
    # Inputs that are carried state start at zero, as a stream would.
    for name in carry.values():
        inputs[name] = np.zeros_like(inputs[name])

    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        for step in range(args.steps):
            feeds = []
            for i, (name, value) in enumerate(inputs.items()):
                path = os.path.join(tmp, f"in_{step}_{i}.npy")
                np.save(path, value)
                feeds.append((name, path))
            # Two runs: the CLI's first run (observed: every node runs) and, with --repeat 1, a plain run (values
            # freed, fused steps), whose outputs are the ones written.
            ours = {}
            for kind, extra in (("observed", []), ("plain", ["--repeat", "1"])):
                ours_dir = os.path.join(tmp, f"ours_{step}_{kind}")
                cmd = [args.cli, "run", model_path, "-q", "--output-dir", ours_dir] + extra
                for name, path in feeds:
                    cmd += ["--input", f"{name}={path}"]
                r = subprocess.run(cmd, capture_output=True, text=True)
                if r.returncode != 0:
                    print(f"onnxscope-cli failed ({r.returncode}): {r.stderr.strip()}")
                    return 1
                manifest = json.load(open(os.path.join(ours_dir, "manifest.json")))
                ours[kind] = {t["name"]: np.load(os.path.join(ours_dir, t["file"])) for t in manifest["tensors"]
                              if t.get("kind", "output") == "output"}
            ort_out = os.path.join(tmp, f"ort_{step}")
            r = subprocess.run(["node", os.path.join(os.path.dirname(os.path.abspath(__file__)), "ort_run.js"),
                                ort_dir, model_path, ort_out] + [f"{n}={p}" for n, p in feeds],
                               capture_output=True, text=True)
            if r.returncode != 0:
                print(f"onnxruntime failed: {r.stderr.strip()}")
                return 1
            names = json.load(open(os.path.join(ort_out, "outputs.json")))
            theirs = {n: np.load(os.path.join(ort_out, f"output_{k}.npy")) for k, n in enumerate(names)}
            for kind, outputs in ours.items():
                for name, expected in theirs.items():
                    got = outputs.get(name)
                    label = f"step {step}, {kind} run, output {name!r}"
                    if got is None:
                        print(f"MISMATCH {label}: onnxscope wrote no such output")
                        ok = False
                        continue
                    if got.shape != expected.shape or got.dtype != expected.dtype:
                        print(f"MISMATCH {label}: {got.dtype}{list(got.shape)} vs onnxruntime "
                              f"{expected.dtype}{list(expected.shape)}")
                        ok = False
                        continue
                    a, e = got.astype(np.float64), expected.astype(np.float64)
                    close = np.isclose(a, e, rtol=args.rtol, atol=args.atol, equal_nan=True)
                    abs_err = float(np.max(np.abs(a - e))) if a.size else 0.0
                    rel_err = float(np.max(np.abs(a - e) / np.maximum(np.abs(e), 1e-30))) if a.size else 0.0
                    status = "ok" if close.all() else "MISMATCH"
                    print(f"{status} {label}: {got.dtype}{list(got.shape)} max abs err {abs_err:.3g}, "
                          f"max rel err {rel_err:.3g}, {int((~close).sum())} of {close.size} outside "
                          f"rtol {args.rtol} atol {args.atol}")
                    ok = ok and bool(close.all())
            for out_name, in_name in carry.items():
                inputs[in_name] = theirs[out_name]
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
