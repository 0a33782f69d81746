#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""compare --by module (issue #44 part 2) on the committed dynamo export of a small module tree
(tests/models/torch/make_module_tree.py) and the outputs onnxscope.torch.capture recorded for it in torch.

- The torch capture: exit 0, every module call matches, none unpaired, no divergence.
- The pairing is checked against onnxruntime, not against our own run: for every module output, the graph value the
  report paired it with, computed by onnxruntime, must equal torch's captured output.
- The copy with blocks.1.fc's output perturbed: exit 1, and the first divergent module, the only divergent one, is
  blocks.1.fc.
- Bad input: keys naming no module (exit 1, the nearest module paths listed), a key with a wrong shape (named in the
  report as a shape mismatch, no crash), a model without module metadata (exit 1), --by module without --reference
  (usage error, exit 2).

Usage: module_compare_test.py ONNXSCOPE_CLI MODELS_DIR WORK_DIR
"""
import json
import os
import subprocess
import sys

import numpy as np
import onnx
import onnxruntime as ort

cli, models, work = sys.argv[1], sys.argv[2], sys.argv[3]
os.makedirs(work, exist_ok=True)
MODEL = os.path.join(models, "module_tree_dynamo.onnx")
INPUT = os.path.join(models, "module_tree_input.npz")
CAPTURE = os.path.join(models, "module_tree_capture.npz")
PERTURBED = os.path.join(models, "module_tree_perturbed.npz")
failures = []


def expect(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


def compare(reference, *extra, model=MODEL):
    out = os.path.join(work, "report.json")
    if os.path.exists(out):
        os.remove(out)
    p = subprocess.run([cli, "compare", model, "--reference", reference, "--by", "module", "-i", INPUT, "--json", out,
                        *extra], capture_output=True, text=True, timeout=120)
    report = json.load(open(out)) if os.path.exists(out) else None
    return p, report


captured = dict(np.load(CAPTURE))

# 1. torch's own capture: no divergence.
p, report = compare(CAPTURE)
print(p.stdout)
expect(p.returncode == 0, f"capture: exit 0 (got {p.returncode}: {p.stderr.strip()})")
expect(report is not None and report["first_divergence"] is None, "capture: no first divergence")
keys = [o["key"] for m in report["modules"] for o in m["outputs"]]
expect(sorted(keys) == sorted(captured), f"capture: every key reported once ({len(keys)} of {len(captured)})")
expect(all(m["status"] == "match" for m in report["modules"]), "capture: every module call matches")
expect("no divergence" in p.stdout, "capture: the text says no divergence")
shared = [m for m in report["modules"] if m["module"] == "shared"]
expect([m["call"] for m in shared] == [0, 1] and shared[0]["outputs"][0]["value"] != shared[1]["outputs"][0]["value"],
       "the shared module's two calls pair with two different values")
split = next(m for m in report["modules"] if m["module"] == "split")
expect([o["key"] for o in split["outputs"]] == ["split#0", "split#1"], "split's two outputs are both reported")
order = [m["module"] for m in report["modules"]]
expect(order.index("blocks.0.fc") < order.index("blocks.0") < order.index("blocks.1.fc") < order.index("head"),
       f"modules in execution order, a child before its parent ({order})")

# 2. The pairing against onnxruntime: the values named in the report, computed by onnxruntime, equal torch's outputs.
proto = onnx.load(MODEL)
paired = {o["key"]: o["value"] for m in report["modules"] for o in m["outputs"]}
existing = {o.name for o in proto.graph.output}
for name in sorted(set(paired.values()) - existing):
    proto.graph.output.append(onnx.helper.make_empty_tensor_value_info(name))
sess = ort.InferenceSession(proto.SerializeToString(), providers=["CPUExecutionProvider"])
names = [o.name for o in sess.get_outputs()]
ort_values = dict(zip(names, sess.run(None, dict(np.load(INPUT)))))
for key, value in sorted(paired.items()):
    ok = value in ort_values and ort_values[value].shape == captured[key].shape and np.allclose(
        ort_values[value], captured[key], rtol=1e-4, atol=1e-5)
    expect(ok, f"onnxruntime's \"{value}\" equals torch's output of {key}")

# 3. One module's output perturbed: that module, and only it, diverges.
p, report = compare(PERTURBED)
print(p.stdout)
expect(p.returncode == 1, f"perturbed: exit 1 (got {p.returncode})")
first = report["first_divergence"]
expect(first is not None and first["module"] == "blocks.1.fc", f"perturbed: first divergent module is blocks.1.fc "
       f"({first and first['module']})")
diverged = [m["module"] for m in report["modules"] if m["status"] != "match"]
expect(diverged == ["blocks.1.fc"], f"perturbed: only blocks.1.fc diverges ({diverged})")
expect('first divergent module: "blocks.1.fc"' in p.stdout, "perturbed: the text names blocks.1.fc")
expect(first is not None and abs(first["max_abs_error"] - 5e-2) < 1e-3, "perturbed: max abs error is the 5e-2 added")

# 4. Keys naming no module: an error listing the nearest module paths.
nomatch = os.path.join(work, "nomatch.npz")
np.savez(nomatch, **{"block.1.fcc": captured["blocks.1.fc"], "encoder.layer.0": captured["blocks.0"]})
p, report = compare(nomatch)
expect(p.returncode == 1, f"no match: exit 1 (got {p.returncode})")
expect("names a module" in p.stderr and '"block.1.fcc": nearest module paths "blocks.1.fc"' in p.stderr,
       f"no match: the error lists the nearest module paths ({p.stderr.strip()})")
expect(report is None, "no match: no report written")

# 5. A key with a wrong shape and a key naming no module among good ones: named in the report, no crash.
bad = dict(captured)
bad["blocks.0.act"] = captured["blocks.0.act"][:, :3]
bad["blocks.9"] = captured["head"]
badpath = os.path.join(work, "wrong_shape.npz")
np.savez(badpath, **bad)
p, report = compare(badpath)
print(p.stdout)
expect(p.returncode == 1, f"wrong shape: exit 1 (got {p.returncode})")
first = report["first_divergence"]
expect(first is not None and first["module"] == "blocks.0.act" and first["status"] == "shape_mismatch",
       "wrong shape: blocks.0.act reported as a shape mismatch")
expect([u["key"] for u in report["unmatched_keys"]] == ["blocks.9"] and report["unmatched_keys"][0]["nearest"][0]
       in ("blocks.0", "blocks.1"), f"wrong shape: blocks.9 listed as naming no module ({report['unmatched_keys']})")

# 6. A model without module metadata, and a usage error.
plain = os.path.join(work, "plain.onnx")
stripped = onnx.load(MODEL)
for n in stripped.graph.node:
    del n.metadata_props[:]
onnx.save(stripped, plain)
p, _ = compare(CAPTURE, model=plain)
expect(p.returncode == 1 and "no PyTorch module metadata" in p.stderr, f"plain model: exit 1 ({p.stderr.strip()})")
p = subprocess.run([cli, "compare", MODEL, "--by", "module", "-i", INPUT], capture_output=True, text=True)
expect(p.returncode == 2 and "--reference" in p.stderr, "--by module without --reference: usage error")

# 7. A real decoder: the tiny Gemma-3 export (make_gemma3_decoder.py) against its capture (make_gemma3_capture.py).
# Attention modules return (output, weights) and the graph drops the unused weights; the rotary embedding is folded
# into constants by the exporter, so its keys name no node's module.
GEMMA = os.path.join(models, "gemma3_tiny_dynamo.onnx")
gemma_inputs = os.path.join(work, "gemma_inputs.npz")
ref = np.load(os.path.join(models, "gemma3_tiny_dynamo_reference.npz"))
np.savez(gemma_inputs, input_ids=ref["input_ids"], attention_mask=ref["attention_mask"])
out = os.path.join(work, "gemma.json")
p = subprocess.run([cli, "compare", GEMMA, "--reference", os.path.join(models, "gemma3_tiny_capture.npz"), "--by",
                    "module", "-i", gemma_inputs, "--json", out], capture_output=True, text=True, timeout=120)
report = json.load(open(out))
s = report["summary"]
expect(p.returncode == 0 and report["first_divergence"] is None, f"gemma: no divergence (exit {p.returncode})")
expect(s["match"] == s["module_calls"] == 73, f"gemma: the 73 module calls match ({s})")
expect(sorted(u["key"] for u in report["unmatched_keys"]) == sorted(
    k for k in np.load(os.path.join(models, "gemma3_tiny_capture.npz")).keys() if "rotary_emb" in k),
    "gemma: only the rotary embedding's keys name no module")
unpaired = [o["key"] for m in report["modules"] for o in m["outputs"] if o["status"] != "match"]
expect(len(unpaired) == 4 and all(k.endswith("self_attn#1") for k in unpaired),
       f"gemma: only the attention weights are not paired ({unpaired})")
gemma_captured = dict(np.load(os.path.join(models, "gemma3_tiny_capture.npz")))
paired = {o["key"]: o["value"] for m in report["modules"] for o in m["outputs"] if o["value"]}
proto = onnx.load(GEMMA)
existing = {o.name for o in proto.graph.output}
for name in sorted(set(paired.values()) - existing):
    proto.graph.output.append(onnx.helper.make_empty_tensor_value_info(name))
so = ort.SessionOptions()
so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
sess = ort.InferenceSession(proto.SerializeToString(), so, providers=["CPUExecutionProvider"])
ort_values = dict(zip([o.name for o in sess.get_outputs()], sess.run(None, dict(np.load(gemma_inputs)))))
wrong = [k for k, v in paired.items() if not (ort_values[v].shape == gemma_captured[k].shape
                                              and np.allclose(ort_values[v], gemma_captured[k], rtol=1e-4, atol=1e-5))]
expect(not wrong, f"gemma: each of the {len(paired)} paired values, computed by onnxruntime, equals torch's ({wrong})")

if failures:
    print(f"{len(failures)} failure(s)")
    sys.exit(1)
print("all passed")
