"""What the one-node case generators of tests/contrib share (make_contrib_cases.py, make_quant_cases.py,
make_fused_cases.py, make_misc_cases.py): seeded generators, onnxruntime's session for the reference outputs, the
backend test-case folder layout, the folder of models that must be refused, and the generator's main loop.
Needs onnx, onnxruntime and numpy; no torch.
"""

import json
import os
import shutil
import zlib

import numpy as np
import onnx
import onnxruntime as ort
from onnx import helper, numpy_helper


def rng_for(name):
    """A generator seeded by the name, so that every case's inputs are the same on every run."""
    return np.random.default_rng(zlib.crc32(name.encode()))


def randn(r, *shape, dtype=np.float32):
    return r.standard_normal(shape).astype(dtype)


def value_info(name, array):
    """A value of the array's element type and shape."""
    return helper.make_tensor_value_info(name, helper.np_dtype_to_tensor_dtype(array.dtype), list(array.shape))


def node_inputs(inputs):
    """inputs: (name, array, is_initializer), or None for an omitted optional input. Returns the node's input names,
    the graph's inputs, the initializers and the feeds."""
    names, graph_inputs, inits, feeds = [], [], [], {}
    for i in inputs:
        if i is None:
            names.append("")
            continue
        name, array, is_init = i
        names.append(name)
        if is_init:
            inits.append(numpy_helper.from_array(array, name))
        else:
            graph_inputs.append(value_info(name, array))
            feeds[name] = array
    return names, graph_inputs, inits, feeds


def run_model(model, feeds, names):
    """onnxruntime's outputs `names` of the model: CPU provider, graph optimizations disabled, one thread."""
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    options.intra_op_num_threads = 1
    session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    return session.run(names, feeds)


def no_non_finite(case_name, name, r):
    if r.dtype.kind == "f" and not np.all(np.isfinite(r)):
        raise SystemExit(f"{case_name}: onnxruntime's output {name} holds non-finite values")


def no_nan(case_name, name, r):
    if r.dtype.kind == "f" and np.isnan(r).any():
        raise SystemExit(f"{case_name}: onnxruntime's output {name} holds NaN")


def save_case(case_dir, model, feeds, names, results, check=None):
    """A backend test-case folder: model.onnx with its outputs typed as the results, test_data_set_0 with the
    inputs (in the order of the graph's inputs) and the results. check(case name, output name, array) may refuse
    an output."""
    results = [np.asarray(r) for r in results]
    del model.graph.output[:]
    for n, r in zip(names, results):
        model.graph.output.append(value_info(n, r))
    shutil.rmtree(case_dir, ignore_errors=True)
    data_dir = os.path.join(case_dir, "test_data_set_0")
    os.makedirs(data_dir)
    onnx.save(model, os.path.join(case_dir, "model.onnx"))
    save_inputs(data_dir, model, feeds)
    for index, (n, r) in enumerate(zip(names, results)):
        if check:
            check(os.path.basename(case_dir), n, r)
        onnx.save_tensor(numpy_helper.from_array(r, n), os.path.join(data_dir, f"output_{index}.pb"))


def save_inputs(data_dir, model, feeds):
    for index, vi in enumerate(model.graph.input):
        onnx.save_tensor(numpy_helper.from_array(feeds[vi.name], vi.name), os.path.join(data_dir, f"input_{index}.pb"))


def save_refusals(out_dir, refusals, build, float_outputs=False):
    """<out_dir>/refused: one model a refusal (build(case) gives it) and expected.json, the substrings each error
    must hold (check_refusals.py). float_outputs: declare every output float."""
    folder = os.path.join(out_dir, "refused")
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    expected = {}
    for c, messages in refusals:
        model, _ = build(c)
        if float_outputs:
            for o in model.graph.output:
                o.type.tensor_type.elem_type = onnx.TensorProto.FLOAT
        onnx.save(model, os.path.join(folder, c.name + ".onnx"))
        expected[c.name] = messages
    with open(os.path.join(folder, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1)


def generate(argv, cases, write, folders):
    """The generators' main: argv is [script, out_dir, group...] (no group: all). folders: {name: fn(out_dir)} for
    the folders written whole ("refused", "whole"), written first when named or when no group is; then every case of
    a named group through write(case, out_dir). Prints the count per group."""
    out_dir = argv[1]
    only = set(argv[2:])
    os.makedirs(out_dir, exist_ok=True)
    for name, fn in folders.items():
        if not only or name in only:
            fn(out_dir)
    counts = {}
    for c in cases:
        if only and c.group not in only:
            continue
        write(c, out_dir)
        counts[c.group] = counts.get(c.group, 0) + 1
    print(", ".join(f"{g}: {n}" for g, n in sorted(counts.items())))
