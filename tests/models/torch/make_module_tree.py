#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Makes the files of the compare-by-module test (issue #44 part 2, tests/cli/torch/module_compare_test.py):

- module_tree_dynamo.onnx: a small module tree exported with torch.onnx.export(..., dynamo=True): a stem conv, two
  residual blocks (LayerNorm, Linear, GELU), a module returning two tensors, one Linear called twice (a shared module)
  and a head. A few KB of weights.
- module_tree_input.npz: its input x.
- module_tree_capture.npz: what onnxscope.torch.capture recorded in torch for that input (the truth).
- module_tree_perturbed.npz: the same with one module's output (PERTURBED, below) changed by 5e-2 in one element.

Needs torch and onnxscript (the torch venv) and the built Python module on PYTHONPATH (for onnxscope.torch):
    PYTHONPATH=build/python ~/.cache/onnxscope/venv-torch/bin/python tests/models/torch/make_module_tree.py
CI only reads the files.
"""
import os

import numpy as np
import torch
import torch.nn as nn

import onnxscope.torch

HERE = os.path.dirname(os.path.abspath(__file__))
PERTURBED = "blocks.1.fc"


class TwoWay(nn.Module):
    """Returns two tensors: the capture keys are split#0 and split#1."""

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(8, 16)

    def forward(self, x):
        a, b = self.lin(x).chunk(2, -1)
        return torch.tanh(a), torch.sigmoid(b)


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = nn.LayerNorm(8)
        self.fc = nn.Linear(8, 8)
        self.act = nn.GELU()

    def forward(self, x):
        return x + self.act(self.fc(self.norm(x)))


class Stem(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(4, 8, 3, padding=1)

    def forward(self, x):  # x: [batch, seq, 4]
        return torch.relu(self.conv(x.transpose(1, 2))).transpose(1, 2)


class ModuleTree(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = Stem()
        self.blocks = nn.ModuleList([Block(), Block()])
        self.split = TwoWay()
        self.shared = nn.Linear(8, 8)  # called twice: keys shared and shared@1
        self.head = nn.Linear(8, 3)

    def forward(self, x):
        h = self.stem(x)
        for block in self.blocks:
            h = block(h)
        a, b = self.split(h)
        h = self.shared(a) * self.shared(b)
        return self.head(h)


def main():
    torch.manual_seed(44)
    model = ModuleTree().eval()
    x = torch.randn(2, 6, 4)
    onnx_path = os.path.join(HERE, "module_tree_dynamo.onnx")
    program = torch.onnx.export(model, (x,), dynamo=True, input_names=["x"], output_names=["y"])
    program.save(onnx_path)
    np.savez(os.path.join(HERE, "module_tree_input.npz"), x=x.numpy())

    arrays = onnxscope.torch.capture(model, x, path=os.path.join(HERE, "module_tree_capture.npz"))
    assert "shared@1" in arrays and "split#1" in arrays, sorted(arrays)
    perturbed = {k: v.copy() for k, v in arrays.items()}
    perturbed[PERTURBED].flat[5] += 5e-2
    np.savez(os.path.join(HERE, "module_tree_perturbed.npz"), **perturbed)
    print(f"wrote {onnx_path} ({os.path.getsize(onnx_path)} bytes) and {len(arrays)} captured outputs: {list(arrays)}")


if __name__ == "__main__":
    main()
