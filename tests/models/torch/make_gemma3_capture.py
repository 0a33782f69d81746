#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes tests/models/torch/gemma3_tiny_capture.npz: what onnxscope.torch.capture records for the tiny Gemma-3 decoder
of make_gemma3_decoder.py (the same seeded weights and inputs as gemma3_tiny_dynamo.onnx), every submodule's outputs
keyed by module path. cli_torch_module_compare compares it with the committed export, module by module.

    PYTHONPATH=build/python ~/.cache/onnxscope/venv-torch/bin/python tests/models/torch/make_gemma3_capture.py
"""
import os
import sys

import onnxscope.torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from make_gemma3_decoder import build  # noqa: E402

model, input_ids, attention_mask = build()
arrays = onnxscope.torch.capture(model, input_ids, attention_mask, path=os.path.join(HERE, "gemma3_tiny_capture.npz"))
print(f"{len(arrays)} module outputs", file=sys.stderr)
