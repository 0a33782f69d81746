#!/usr/bin/python3
"""Replaces the onnx 1.12 backend node cases whose expected data contradicts ONNX's own specification and
reference code with corrected twins. Each erratum is listed in errata.txt with its reason.

Usage: make_errata.py CASES_DIR
CASES_DIR is generate_cases.py's output folder. Every case named in errata.txt is moved from CASES_DIR/node to
CASES_DIR/errata/original (kept for inspection), and a corrected copy -- same model, same inputs, expected
outputs recomputed with onnx's own reference code -- is written to CASES_DIR/errata/corrected. Idempotent.
"""
import os
import shutil
import sys

import numpy as np
import onnx
from onnx import numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))


def read_tensor(path):
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return t


def write_tensor(path, tensor):
    with open(path, "wb") as f:
        f.write(tensor.SerializeToString())


def data_sets(case_dir):
    return sorted(os.path.join(case_dir, d) for d in os.listdir(case_dir) if d.startswith("test_data_set_"))


def fix_adam_multiple(case_dir):
    """onnx 1.12's export_adam_multiple computes its outputs with epsilon=1e-2 but does not put epsilon on the
    node, so a runtime must use the schema default (1e-6). Recompute with onnx's own apply_adam and that default."""
    from onnx.backend.test.case.node.adam import apply_adam

    model = onnx.load(os.path.join(case_dir, "model.onnx"))
    node = model.graph.node[0]
    assert node.op_type == "Adam" and not any(a.name == "epsilon" for a in node.attribute)
    schema = onnx.defs.get_schema("Adam", 1, "ai.onnx.preview.training")
    attrs = {name: a.default_value.f for name, a in schema.attributes.items()}
    attrs.update({a.name: onnx.helper.get_attribute_value(a) for a in node.attribute})
    for ds in data_sets(case_dir):
        ins = [numpy_helper.to_array(read_tensor(os.path.join(ds, f"input_{i}.pb"))) for i in range(len(node.input))]
        r, t = ins[0], ins[1]
        n = (len(ins) - 2) // 4
        xs, gs, vs, hs = ins[2:2 + n], ins[2 + n:2 + 2 * n], ins[2 + 2 * n:2 + 3 * n], ins[2 + 3 * n:]
        results = [apply_adam(r, t, x, g, v, h, attrs["norm_coefficient"], attrs["norm_coefficient_post"],
                              attrs["alpha"], attrs["beta"], attrs["epsilon"]) for x, g, v, h in zip(xs, gs, vs, hs)]
        outs = [res[0] for res in results] + [res[1] for res in results] + [res[2] for res in results]
        for i, (name, value) in enumerate(zip(node.output, outs)):
            write_tensor(os.path.join(ds, f"output_{i}.pb"), numpy_helper.from_array(value.astype(np.float32), name))


def fix_cast_float_to_bfloat16(case_dir):
    """onnx 1.12's cast.py makes the expected bfloat16 values by dropping the low 16 bits (truncation), while onnx's
    own helper.float32_to_bfloat16 -- and onnxruntime, PyTorch and ONNX >= 1.14's Cast spec -- round to nearest
    even. Recompute with that helper."""
    model = onnx.load(os.path.join(case_dir, "model.onnx"))
    out_name = model.graph.output[0].name
    for ds in data_sets(case_dir):
        x = numpy_helper.to_array(read_tensor(os.path.join(ds, "input_0.pb")))
        bits = [onnx.helper.float32_to_bfloat16(float(v)) for v in x.flatten()]
        expected = read_tensor(os.path.join(ds, "output_0.pb"))
        fixed = onnx.TensorProto()
        fixed.CopyFrom(expected)
        fixed.ClearField("raw_data")
        fixed.ClearField("int32_data")
        fixed.int32_data.extend(bits)
        fixed.name = out_name
        write_tensor(os.path.join(ds, "output_0.pb"), fixed)


FIXES = {
    "test_adam_multiple": fix_adam_multiple,
    "test_cast_FLOAT_to_BFLOAT16": fix_cast_float_to_bfloat16,
    "test_castlike_FLOAT_to_BFLOAT16": fix_cast_float_to_bfloat16,
    "test_castlike_FLOAT_to_BFLOAT16_expanded": fix_cast_float_to_bfloat16,
}


def listed_errata():
    names = []
    for line in open(os.path.join(HERE, "errata.txt")):
        name = line.split("#")[0].strip()
        if name:
            names.append(name)
    return names


def main():
    cases = sys.argv[1]
    original_dir = os.path.join(cases, "errata", "original")
    corrected_dir = os.path.join(cases, "errata", "corrected")
    os.makedirs(original_dir, exist_ok=True)
    os.makedirs(corrected_dir, exist_ok=True)
    for name in listed_errata():
        if name not in FIXES:
            sys.exit(f"errata.txt lists {name}, but make_errata.py has no fix for it")
        source = os.path.join(cases, "node", name)
        original = os.path.join(original_dir, name)
        if os.path.isdir(source):
            shutil.rmtree(original, ignore_errors=True)
            shutil.move(source, original)
        if not os.path.isdir(original):
            sys.exit(f"case {name} not found in {cases}/node")
        corrected = os.path.join(corrected_dir, name)
        shutil.rmtree(corrected, ignore_errors=True)
        shutil.copytree(original, corrected)
        FIXES[name](corrected)
        print(f"erratum {name}: corrected copy in {corrected}")


if __name__ == "__main__":
    main()
