#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""onnxscope.torch.capture against torch itself (needs the torch venv; CTest registers it only where that venv exists,
CI checks the committed capture through cli_torch_module_compare and python_torch_compare instead):

- capturing the module tree of make_module_tree.py again gives the committed module_tree_capture.npz: the same keys in
  the same (hook) order and the same values, and each value is what the submodule returns when called directly;
- a shared module keeps each call (shared, shared@1), a module returning two tensors gets split#0 and split#1;
- the hooks are removed afterwards, also when the forward pass raises.

Usage: PYTHONPATH=<build>/python capture_test.py MODELS_DIR WORK_DIR
"""
import os
import sys

import numpy as np
import torch

import onnxscope.torch

models, work = sys.argv[1], sys.argv[2]
os.makedirs(work, exist_ok=True)
sys.path.insert(0, models)
import make_module_tree as tree  # noqa: E402

failures = []


def expect(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


torch.manual_seed(44)
model = tree.ModuleTree().eval()
x = torch.randn(2, 6, 4)
out = os.path.join(work, "capture.npz")
arrays = onnxscope.torch.capture(model, x, path=out)
committed = np.load(os.path.join(models, "module_tree_capture.npz"))
written = np.load(out)
expect(list(written.keys()) == list(committed.keys()), f"keys and order as committed ({list(written.keys())})")
# Within float rounding: torch's CPU kernels pick their code path by the CPU (its GEMM differed in the last bit on a
# Xeon with AMX from the machine that wrote the committed file); the bits are checked against torch itself below.
expect(all(written[k].shape == committed[k].shape and written[k].dtype == committed[k].dtype
           and np.allclose(written[k], committed[k], rtol=1e-5, atol=1e-6) for k in committed.keys()),
       "values as committed, within float rounding")
expect(list(arrays) == list(written.keys()), "the returned dict is what was written")
with torch.no_grad():
    h = model.blocks[0](model.stem(x))
    expect(np.allclose(arrays["blocks.1"], model.blocks[1](h).numpy(), rtol=0, atol=0), "blocks.1 is the block's output")
    a, b = model.split(model.blocks[1](h))
    expect(np.array_equal(arrays["split#0"], a.numpy()) and np.array_equal(arrays["split#1"], b.numpy()),
           "split#0 / split#1 are the two tensors split returns")
    expect(np.array_equal(arrays["shared"], model.shared(a).numpy())
           and np.array_equal(arrays["shared@1"], model.shared(b).numpy()), "shared and shared@1 are its two calls")
expect(all(not m._forward_hooks for m in model.modules()), "no hook left after capture")


class Boom(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = torch.nn.Linear(2, 2)

    def forward(self, x):
        self.inner(x)
        raise RuntimeError("boom")


boom = Boom()
try:
    onnxscope.torch.capture(boom, torch.zeros(1, 2), path=os.path.join(work, "boom.npz"))
    expect(False, "an exception in forward propagates")
except RuntimeError as e:
    expect(str(e) == "boom", "an exception in forward propagates")
expect(all(not m._forward_hooks for m in boom.modules()), "no hook left after an exception")
expect(not os.path.exists(os.path.join(work, "boom.npz")), "nothing written after an exception")

if failures:
    print(f"{len(failures)} failure(s)")
    sys.exit(1)
print("all passed")
