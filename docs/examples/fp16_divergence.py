#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Where does an fp16 copy of a model first diverge from the original?

    python3 docs/examples/fp16_divergence.py [MODEL.onnx] [--shape NAME=1x3x48x192] [--rtol 1e-3 --atol 1e-4]
        [--json report.json]

Makes an fp16 copy of MODEL (default: resources/samples/mlp_classifier.onnx): float initializers, Constant values,
graph inputs/outputs/value_info and Cast-to-float become float16. Runs both on the same random input with onnxscope's
engine (symbolic dims are 1 unless --shape gives the input's shape), compares every intermediate value (matched by frame path and name) and prints the first node whose outputs
diverge while all its inputs still match, then the worst values. Needs onnx and numpy besides onnxscope.
"""
import argparse
import os

import numpy as np
import onnx
from onnx import TensorProto, numpy_helper

import onnxscope

FLOAT, FLOAT16 = TensorProto.FLOAT, TensorProto.FLOAT16


def to_fp16(model: onnx.ModelProto) -> onnx.ModelProto:
    """A copy of `model` computing in float16 (a plain conversion: no op is kept in float32)."""
    m = onnx.ModelProto.FromString(model.SerializeToString())

    def convert_graph(g):
        for init in g.initializer:
            if init.data_type == FLOAT:
                init.CopyFrom(numpy_helper.from_array(numpy_helper.to_array(init).astype(np.float16), init.name))
        for v in list(g.input) + list(g.output) + list(g.value_info):
            if v.type.HasField("tensor_type") and v.type.tensor_type.elem_type == FLOAT:
                v.type.tensor_type.elem_type = FLOAT16
        for node in g.node:
            for attr in node.attribute:
                if attr.name == "to" and node.op_type == "Cast" and attr.i == FLOAT:
                    attr.i = FLOAT16
                if attr.type == onnx.AttributeProto.TENSOR and attr.t.data_type == FLOAT:
                    attr.t.CopyFrom(numpy_helper.from_array(numpy_helper.to_array(attr.t).astype(np.float16)))
                if attr.type == onnx.AttributeProto.GRAPH:
                    convert_graph(attr.g)

    convert_graph(m.graph)
    return m


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model", nargs="?", default=os.path.join(here, "..", "..", "resources", "samples", "mlp_classifier.onnx"))
    ap.add_argument("--shape", action="append", default=[], help="NAME=1x3x48x192: an input's shape")
    ap.add_argument("--rtol", type=float, default=1e-3)
    ap.add_argument("--atol", type=float, default=1e-4)
    ap.add_argument("--json", help="write the report in onnxscope-cli compare's --json format")
    args = ap.parse_args()

    original = onnx.load(args.model)
    a = onnxscope.load(original)
    b = onnxscope.load(to_fp16(original))
    rng = np.random.default_rng(0)
    shapes = {k: [int(d) for d in v.split("x")] for k, _, v in (s.partition("=") for s in args.shape)}
    feeds = {}
    for info in a.inputs:
        shape = shapes.get(info.name) or [d if isinstance(d, int) else 1 for d in (info.shape or [])]
        feeds[info.name] = rng.uniform(-1, 1, shape).astype(info.dtype)

    # B takes the same feeds, cast to its float16 inputs.
    report = onnxscope.compare(a, b, feeds, rtol=args.rtol, atol=args.atol, initializers=False)
    first = report.first_divergence
    if first is None:
        print("no divergence: every value of the fp16 copy is within tolerance")
    else:
        print(f"first divergence: node {first['node']!r} ({first['op_type']}) in {first['frame']}, "
              f"outputs {first['outputs']}: max abs error {first['max_abs_error']:.3g}, "
              f"max rel error {first['max_rel_error']:.3g}, cosine {first['cosine']:.6f}")
    worst = sorted((r for r in report.values if r["max_abs_error"] is not None),
                   key=lambda r: r["max_abs_error"], reverse=True)[:5]
    for r in worst:
        print(f"  {r['frame']} / {r['node'] or '-'}: {r['name']!r} max abs {r['max_abs_error']:.3g}, "
              f"{r['mismatches']} of {r['elements']} elements out of tolerance")
    if report.error_b:
        print("the fp16 copy failed:", report.error_b)
    if args.json:
        with open(args.json, "w") as f:
            f.write(report.to_json())


if __name__ == "__main__":
    main()
