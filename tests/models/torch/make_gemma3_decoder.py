#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Makes tests/models/torch/gemma3_tiny_dynamo.onnx: a Gemma-3-shaped decoder (transformers' Gemma3ForCausalLM, random
weights from a shrunken config, 4 layers) exported with torch.onnx.export(..., dynamo=True), so that every node carries
the exporter's pkg.torch.onnx.* metadata (module path, class hierarchy, FX node, stack trace). Also writes
gemma3_tiny_dynamo_reference.npz: the inputs and the logits torch computed for them, the truth the tests compare with.

Needs torch, transformers and onnxscript (the torch venv, ~/.cache/onnxscope/venv-torch); CI only reads the files.
    ~/.cache/onnxscope/venv-torch/bin/python tests/models/torch/make_gemma3_decoder.py
"""
import os
import sys

import numpy as np
import torch
from transformers import Gemma3ForCausalLM, Gemma3TextConfig

HERE = os.path.dirname(os.path.abspath(__file__))


class Logits(torch.nn.Module):
    """The decoder without its cache: logits for (input_ids, attention_mask), as a debugger user would export it."""

    def __init__(self, inner):
        super().__init__()
        self.inner = inner

    def forward(self, input_ids, attention_mask):
        return self.inner(input_ids=input_ids, attention_mask=attention_mask, use_cache=False).logits


def build():
    """The model with its seeded random weights and the inputs: (model, input_ids, attention_mask)."""
    torch.manual_seed(0)
    config = Gemma3TextConfig(
        vocab_size=256,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=4,
        num_attention_heads=2,
        num_key_value_heads=1,
        head_dim=32,
        max_position_embeddings=64,
        sliding_window=16,
        layer_types=["sliding_attention", "sliding_attention", "sliding_attention", "full_attention"],
        attn_implementation="eager",
    )
    model = Logits(Gemma3ForCausalLM(config)).eval()
    input_ids = torch.randint(0, config.vocab_size, (1, 8), generator=torch.Generator().manual_seed(1))
    attention_mask = torch.ones(1, 8, dtype=torch.int64)
    return model, input_ids, attention_mask


def main():
    model, input_ids, attention_mask = build()
    with torch.no_grad():
        logits = model(input_ids, attention_mask)
    path = os.path.join(HERE, "gemma3_tiny_dynamo.onnx")
    program = torch.onnx.export(
        model,
        (input_ids, attention_mask),
        dynamo=True,
        input_names=["input_ids", "attention_mask"],
        output_names=["logits"],
        optimize=True,
    )
    program.save(path, external_data=False)
    np.savez(
        os.path.join(HERE, "gemma3_tiny_dynamo_reference.npz"),
        input_ids=input_ids.numpy(),
        attention_mask=attention_mask.numpy(),
        logits=logits.numpy(),
    )
    print(f"wrote {path}: {os.path.getsize(path)} bytes", file=sys.stderr)


if __name__ == "__main__":
    main()
