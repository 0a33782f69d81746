#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Issue #44 parts 1, 3, 5 through onnxscope-cli on the committed dynamo export of a tiny Gemma-3 decoder
(tests/models/torch): what `info` says about a node against what onnx itself reads from the file, the run against the
logits torch computed (the .npz the export script wrote), the made-up inputs against the embedding table's shape, and
`extract` against onnxruntime (the extracted model's outputs, and the same values taken from onnxruntime's run of the
whole model). Unparsable metadata must give a warning, not a failure.
    torch_view_test.py ONNXSCOPE_CLI MODEL_DIR WORK_DIR
"""
import ast
import glob
import json
import os
import shutil
import subprocess
import sys

import numpy as np
import onnx
import onnxruntime as ort
from onnx import numpy_helper

CLI, MODELS, WORK = sys.argv[1:4]
MODEL = os.path.join(MODELS, "gemma3_tiny_dynamo.onnx")
REFERENCE = np.load(os.path.join(MODELS, "gemma3_tiny_dynamo_reference.npz"))
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def cli(*args):
    return subprocess.run([CLI, *args], capture_output=True, text=True, timeout=300)


def meta(node):
    return {p.key: p.value for p in node.metadata_props}


shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
proto = onnx.load(MODEL)

# Part 1: the metadata as onnx reads it, parsed with Python's own literal parser.
node = next(n for n in proto.graph.node if "layers.2.self_attn" in meta(n).get("pkg.torch.onnx.name_scopes", ""))
scopes = ast.literal_eval(meta(node)["pkg.torch.onnx.name_scopes"])
classes = ast.literal_eval(meta(node)["pkg.torch.onnx.class_hierarchy"])
r = cli("info", MODEL, "--node", node.name, "--json")
check(r.returncode == 0, f"info --node {node.name} exits 0: {r.stderr}")
info = json.loads(r.stdout)
check(info["metadata_props"] == meta(node), "info --node gives the node's metadata_props as onnx reads them")
torch_info = info["pytorch"]
check(torch_info["module"] == scopes[-2], f"module path {torch_info['module']!r} == {scopes[-2]!r}")
check([m["class"] for m in torch_info["modules"]] == classes[:-1], "class hierarchy as in the file")
check(torch_info["fx_target"] == classes[-1] and torch_info["fx_name"] == scopes[-1], "FX node entry")
trace = meta(node)["pkg.torch.onnx.stack_trace"]
last = [line for line in trace.splitlines() if line.strip().startswith("File ")][-1].strip()
file_, line = last.split('"')[1], int(last.split("line ")[1].split(",")[0])
check(torch_info["source"] == f"{file_}:{line}", f"source {torch_info['source']} is the innermost frame {file_}:{line}")

r = cli("info", MODEL, "--json", "--no-diagnostics")
modules = {m["path"]: m for m in json.loads(r.stdout)["pytorch_modules"]}
expected = {}
for n in proto.graph.node:
    s = ast.literal_eval(meta(n)["pkg.torch.onnx.name_scopes"])
    c = ast.literal_eval(meta(n)["pkg.torch.onnx.class_hierarchy"])
    for path, cls in zip(s[:-1], c[:-1]):
        if path:
            expected.setdefault(path, [cls, 0])[1] += 1
check({p: [m["class"], m["nodes"]] for p, m in modules.items()} == expected, f"{len(expected)} modules with their counts")

# The run against torch's own logits.
np.save(os.path.join(WORK, "ids.npy"), REFERENCE["input_ids"])
np.save(os.path.join(WORK, "mask.npy"), REFERENCE["attention_mask"])
r = cli("run", MODEL, "--input", f"input_ids={WORK}/ids.npy", "--input", f"attention_mask={WORK}/mask.npy", "-q",
        "-o", os.path.join(WORK, "out"))
check(r.returncode == 0, f"run exits 0: {r.stderr}")
logits = np.load(glob.glob(os.path.join(WORK, "out", "*logits*.npy"))[0])
err = float(np.abs(logits - REFERENCE["logits"]).max())
check(err < 1e-4, f"logits match torch's: max |diff| {err:.3g}")

# Part 5: made-up inputs that mean something.
table = next(i for i in proto.graph.initializer
             if any(n.op_type == "Gather" and n.input[0] == i.name and n.input[1] == "input_ids" for n in proto.graph.node))
vocabulary = table.dims[0]
r = cli("run", MODEL, "--random-inputs", "--seed", "3", "-o", os.path.join(WORK, "random"))
check(r.returncode == 0, f"run --random-inputs exits 0: {r.stderr}")
check(f"[0, {vocabulary})" in r.stdout and "ones" in r.stdout, "the rule of each made-up input is printed")
# extract makes up the inputs it is not given as run does (same seed, same values): the ids through the embedding case.
r = cli("extract", MODEL, "--node", "node_embedding", "-o", os.path.join(WORK, "ids_case"), "--seed", "3")
check(r.returncode == 0, f"extract with made-up inputs exits 0: {r.stderr}")
ids = numpy_helper.to_array(onnx.load_tensor(os.path.join(WORK, "ids_case", "test_data_set_0", "input_0.pb")))
check(ids is not None and ids.min() >= 0 and ids.max() < vocabulary and len(np.unique(ids)) > 1,
      f"token ids in [0, {vocabulary}) and not all equal")
ref = ort.InferenceSession(MODEL)
feeds = {"input_ids": ids.astype(np.int64).reshape(1, 8), "attention_mask": np.ones((1, 8), np.int64)}
ort_logits = ref.run(None, feeds)[0]
ours = np.load(glob.glob(os.path.join(WORK, "random", "*logits*.npy"))[0])
check(np.abs(ort_logits).max() > 0 and np.abs(ours - ort_logits).max() < 1e-4,
      "made-up inputs give non-zero logits, as onnxruntime computes them with ones as the mask")

# Part 3: extract, against onnxruntime.
inner = {}
probe = onnx.load(MODEL)
for n in probe.graph.node:
    for o in n.output:
        if o:
            probe.graph.output.append(onnx.ValueInfoProto(name=o))
whole = ort.InferenceSession(probe.SerializeToString())
names = [o.name for o in whole.get_outputs()]
feeds = {"input_ids": REFERENCE["input_ids"], "attention_mask": REFERENCE["attention_mask"]}
inner = dict(zip(names, whole.run(None, feeds)))
attn = next(n for n in proto.graph.node if n.op_type == "Softmax")
# The boundary of module layers.1.mlp, worked out here from the file: what its nodes read from outside, what leaves.
mlp = [n for n in proto.graph.node if ast.literal_eval(meta(n)["pkg.torch.onnx.name_scopes"])[-2].endswith("layers.1.mlp")
       or ".layers.1.mlp." in meta(n)["pkg.torch.onnx.name_scopes"]]
made = {o for n in mlp for o in n.output}
weights = {i.name for i in proto.graph.initializer}
mlp_in = sorted({i for n in mlp for i in n.input if i and i not in made and i not in weights})
mlp_out = sorted({o for o in made if any(o in n.input for n in proto.graph.node if n not in mlp)})
cases = {
    "node": ["--node", attn.name],
    "between": ["--inputs", ",".join(i for i in attn.input), "--outputs", attn.output[0]],
    "mlp": ["--inputs", ",".join(mlp_in), "--outputs", ",".join(mlp_out)],
}
for label, args in cases.items():
    folder = os.path.join(WORK, "case_" + label)
    r = cli("extract", MODEL, *args, "-o", folder, "--input", f"input_ids={WORK}/ids.npy",
            "--input", f"attention_mask={WORK}/mask.npy")
    check(r.returncode == 0, f"extract {label} exits 0: {r.stderr.strip()}")
    t = cli("test", folder)
    check(t.returncode == 0 and "1 passed" in t.stdout, f"onnxscope-cli test passes the {label} case: {t.stdout.strip()}")
    sess = ort.InferenceSession(os.path.join(folder, "model.onnx"))
    ins = {i.name: numpy_helper.to_array(onnx.load_tensor(os.path.join(folder, "test_data_set_0", f"input_{k}.pb")))
           for k, i in enumerate(sess.get_inputs())}
    outs = sess.run(None, ins)
    for k, o in enumerate(sess.get_outputs()):
        expected = numpy_helper.to_array(onnx.load_tensor(os.path.join(folder, "test_data_set_0", f"output_{k}.pb")))
        e1 = float(np.abs(outs[k] - expected).max())
        e2 = float(np.abs(inner[o.name] - expected).max())
        check(e1 < 1e-4 and e2 < 1e-4, f"{label}: {o.name} onnxruntime on the case {e1:.2g}, on the whole model {e2:.2g}")
    extracted = onnx.load(os.path.join(folder, "model.onnx"))
    used = {i for n in extracted.graph.node for i in n.input}
    check(all(i.name in used for i in extracted.graph.initializer), f"{label}: only initializers the part reads")

r = cli("extract", MODEL, "--inputs", attn.output[0], "--outputs", "logits", "-o", os.path.join(WORK, "bad"))
check(r.returncode == 1 and '"input_ids"' in r.stderr and "not a subgraph" in r.stderr,
      f"a boundary that is not a subgraph names the missing value: {r.stderr.strip()}")

# Metadata that does not parse: a warning, the model still opens and runs.
broken = onnx.load(MODEL)
for p in broken.graph.node[5].metadata_props:
    if p.key == "pkg.torch.onnx.name_scopes":
        p.value = "['', 'inner', unterminated"
path = os.path.join(WORK, "broken.onnx")
onnx.save(broken, path)
r = cli("info", path, "--json")
diags = json.loads(r.stdout)["diagnostics"] if r.returncode == 0 else []
check(any(d["source"] == "torch metadata" and d["severity"] == "warning" and broken.graph.node[5].name in d["message"]
          for d in diags), "unparsable metadata is a warning naming the node")

print(f"{len(failures)} failure(s)")
sys.exit(1 if failures else 0)
