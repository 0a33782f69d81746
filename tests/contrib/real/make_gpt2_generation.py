# SPDX-License-Identifier: MIT
"""Writes the generation models of tests/contrib/real/models with onnxruntime's own generation-graph builder,
`onnxruntime.transformers.convert_generation`, from a tiny GPT-2 with seeded random weights (nothing is downloaded).

    ~/.cache/onnxscope/venv-torch/bin/python make_gpt2_generation.py <models dir>

- gpt2_beam_search.onnx: BeamSearch (model_type 0) with the decoder and the init_decoder that convert_generation
  writes (the GPT-2 exported by its gpt2 converter and fused by its optimizer), sequences_scores output;
- gpt2_greedy_search.onnx: the same with `--num_beams 1`, which makes convert_generation write GreedySearch.

The GPT-2: GPT2Config(vocab_size=100, n_embd=32, n_layer=2, n_head=2, n_positions=64, initializer_range=0.2: wider
than GPT-2's 0.02, so that the next-token logits are spread apart and the search does not hinge on rounding),
torch.manual_seed(0),
eos = pad = 99. onnxruntime 1.32's GPT-2 converter passes the past as a tuple of [2, batch, heads, past, head_size]
tensors, which transformers 5 no longer takes; the script gives its wrapper class the same contract through a
DynamicCache (same inputs, outputs and maths), and changes nothing else in the converter.
"""

import os
import shutil
import sys
import tempfile

import onnx
import torch

VOCAB, EMBD, LAYERS, HEADS, POSITIONS, EOS = 100, 32, 2, 2, 64, 99


def patch_gpt2_wrapper():
    """onnxruntime's MyGPT2LMHeadModel.forward, with the past handed to transformers as a DynamicCache."""
    from transformers import GPT2LMHeadModel
    from transformers.cache_utils import DynamicCache

    import onnxruntime.transformers.convert_generation  # noqa: F401  (puts the helper modules on sys.path)
    import gpt2_helper  # the module object onnxruntime's converter uses

    def forward(self, input_ids, position_ids, attention_mask, *past):
        self.config._attn_implementation = "eager"  # opset 11 has no scaled_dot_product_attention
        cache = DynamicCache(config=self.config)
        for i, layer in enumerate(past):
            cache.update(layer[0], layer[1], i)
        out = GPT2LMHeadModel.forward(self, input_ids, position_ids=position_ids, attention_mask=attention_mask,
                                      past_key_values=cache, use_cache=True, return_dict=True)
        present = tuple(torch.stack((layer.keys, layer.values)) for layer in out.past_key_values.layers)
        return out.logits, present

    gpt2_helper.MyGPT2LMHeadModel.forward = forward


def convert(hf, out, extra):
    from onnxruntime.transformers import convert_generation

    args = ["-m", hf, "--output", out, "--disable_parity", "--disable_perf_test", "--eos_token_id", str(EOS),
            "--pad_token_id", str(EOS)] + extra
    convert_generation.main(args)
    return onnx.load(out)


def main():
    models_dir = os.path.abspath(sys.argv[1])
    os.makedirs(models_dir, exist_ok=True)
    from transformers import GPT2Config, GPT2LMHeadModel

    patch_gpt2_wrapper()
    torch.manual_seed(0)
    config = GPT2Config(vocab_size=VOCAB, n_positions=POSITIONS, n_embd=EMBD, n_layer=LAYERS, n_head=HEADS,
                        bos_token_id=EOS, eos_token_id=EOS, initializer_range=0.2)
    config._attn_implementation = "eager"
    with tempfile.TemporaryDirectory() as work:
        hf = os.path.join(work, "tiny-gpt2")
        GPT2LMHeadModel(config).eval().save_pretrained(hf)
        for name, extra in (("gpt2_beam_search", ["--num_beams", "4", "--num_return_sequences", "2",
                                                  "--output_sequences_scores"]),
                            ("gpt2_greedy_search", ["--num_beams", "1", "--num_return_sequences", "1"])):
            step = os.path.join(work, name)
            os.makedirs(step)
            convert(hf, os.path.join(step, name + ".onnx"), extra)
            shutil.copy(os.path.join(step, name + ".onnx"), os.path.join(models_dir, name + ".onnx"))
    import importlib.metadata as md
    with open(os.path.join(models_dir, "VERSIONS_generation.txt"), "w") as f:
        for package in ("torch", "transformers", "onnx", "onnxruntime"):
            f.write(f"{package} {md.version(package)}\n")


if __name__ == "__main__":
    main()
