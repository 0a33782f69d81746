"""Turns the committed exports (tests/models/exports/models) into ONNX backend test-case folders.

    <test venv python> make_cases.py <models dir> <output dir> [model name ...]

For each `<name>.onnx` with its `<name>.recipe.json` (written by make_exports.py), this writes `<output>/<name>/`:
- model.onnx, the committed graph, and `<name>.weights`, its external data regenerated from the recipe (seeded
  normal noise with the exported tensor's mean and standard deviation);
- test_data_set_0/input_*.pb from seeded inputs, and output_*.pb computed by onnxruntime (CPU execution provider,
  graph optimizations disabled, so onnxruntime computes the graph as written).
Needs onnx, onnxruntime and numpy (scripts/test-requirements.txt); no torch.
"""

import json
import os
import shutil
import sys
import zlib

import numpy as np
import onnx
import onnxruntime as ort
from onnx import numpy_helper


def write_weights(recipe, path):
    size = max((t["offset"] + t["length"] for t in recipe["tensors"]), default=0)
    buffer = bytearray(size)
    for tensor in recipe["tensors"]:
        rng = np.random.default_rng(tensor["seed"])
        shape = tensor["shape"]
        # Moments per output channel (one per index of axis 0) or for the whole tensor (one).
        moments = [shape[0]] + [1] * (len(shape) - 1) if len(tensor["std"]) > 1 else []
        std = np.asarray(tensor["std"], dtype=np.float32).reshape(moments)
        mean = np.asarray(tensor["mean"], dtype=np.float32).reshape(moments)
        values = rng.standard_normal(shape, dtype=np.float32) * std + mean
        data = values.astype("<f4").tobytes()
        assert len(data) == tensor["length"], tensor["name"]
        buffer[tensor["offset"]:tensor["offset"] + len(data)] = data
    with open(path, "wb") as f:
        f.write(buffer)


def make_input(value_info, shape, seed):
    tensor_type = value_info.type.tensor_type
    shape = shape or [d.dim_value for d in tensor_type.shape.dim]
    if any(d <= 0 for d in shape):
        raise SystemExit(f"input {value_info.name} has a symbolic dimension and no shape in the recipe")
    rng = np.random.default_rng(seed)
    name = value_info.name
    dtype = onnx.helper.tensor_dtype_to_np_dtype(tensor_type.elem_type)
    if name == "attention_mask":
        mask = np.ones(shape, dtype=dtype)
        if shape[0] > 1:
            mask[-1, -shape[-1] // 4:] = 0  # the last sequence of the batch is padded
        return mask
    if name == "token_type_ids":
        return rng.integers(0, 2, shape).astype(dtype)
    if name == "input_ids":
        return rng.integers(0, 1000, shape).astype(dtype)
    if np.issubdtype(dtype, np.floating):
        return rng.standard_normal(shape).astype(dtype)
    raise SystemExit(f"no input recipe for {name} ({dtype})")


def make_case(models_dir, name, out_dir):
    case = os.path.join(out_dir, name)
    shutil.rmtree(case, ignore_errors=True)
    data_dir = os.path.join(case, "test_data_set_0")
    os.makedirs(data_dir)
    with open(os.path.join(models_dir, name + ".recipe.json")) as f:
        recipe = json.load(f)
    shutil.copyfile(os.path.join(models_dir, name + ".onnx"), os.path.join(case, "model.onnx"))
    write_weights(recipe, os.path.join(case, recipe["weights"]))

    model = onnx.load(os.path.join(case, "model.onnx"), load_external_data=False)
    initializers = {i.name for i in model.graph.initializer}
    feeds = {}
    for index, value_info in enumerate(v for v in model.graph.input if v.name not in initializers):
        shape = recipe.get("inputs", {}).get(value_info.name)
        feeds[value_info.name] = make_input(value_info, shape, zlib.crc32(f"{name}/{value_info.name}".encode()))
        onnx.save_tensor(numpy_helper.from_array(feeds[value_info.name], value_info.name),
                         os.path.join(data_dir, f"input_{index}.pb"))

    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    options.intra_op_num_threads = 2
    session = ort.InferenceSession(os.path.join(case, "model.onnx"), options, providers=["CPUExecutionProvider"])
    names = [o.name for o in model.graph.output]
    outputs = session.run(names, feeds)
    for index, (output_name, value) in enumerate(zip(names, outputs)):
        if not np.all(np.isfinite(value)):
            raise SystemExit(f"{name}: onnxruntime's output {output_name} holds non-finite values")
        onnx.save_tensor(numpy_helper.from_array(np.asarray(value), output_name),
                         os.path.join(data_dir, f"output_{index}.pb"))
    summary = ", ".join(f"{n} {tuple(v.shape)} std {float(np.std(v)):.3g}" for n, v in zip(names, outputs))
    print(f"{name}: {summary}")


def main():
    models_dir, out_dir = sys.argv[1], sys.argv[2]
    names = sys.argv[3:] or sorted(f[:-5] for f in os.listdir(models_dir) if f.endswith(".onnx"))
    os.makedirs(out_dir, exist_ok=True)
    for name in names:
        make_case(models_dir, name, out_dir)


if __name__ == "__main__":
    main()
