# SPDX-License-Identifier: MIT
"""Writes the generation models of tests/contrib/real/models with onnxruntime's own generation-graph builder,
`onnxruntime.transformers.convert_generation`, from a tiny GPT-2 with seeded random weights (nothing is downloaded).

    ~/.cache/onnxscope/venv-torch/bin/python make_gpt2_generation.py <models dir>

- gpt2_beam_search.onnx: BeamSearch (model_type 0) around the decoder that convert_generation writes (the GPT-2
  exported by onnxruntime's gpt2 converter and fused by its optimizer: EmbedLayerNormalization, Attention with past
  and unidirectional mask, SkipLayerNormalization, FastGelu), sequences_scores output;
- gpt2_greedy_search.onnx: the same with `--num_beams 1`, which makes convert_generation write GreedySearch;
- gpt2_greedy_search_shared.onnx: GreedySearch with `--past_present_share_buffer`: the decoder's Attention nodes
  take past_sequence_length and write into past buffers of max_length rows. onnxruntime 1.32's CPU provider cannot
  run it (its Attention refuses past_sequence_length); the tests compare it with onnxruntime's gpt2_greedy_search,
  which has the same weights.
convert_generation also tries to write an init_decoder; its pattern does not match what its own optimizer writes for
this fp32 model ("Tried and failed to generate the init decoder"), so the models have the decoder only.

The GPT-2: GPT2Config(vocab_size=100, n_embd=32, n_layer=2, n_head=2, n_positions=64, initializer_range=0.2: wider
than GPT-2's 0.02, so that the next-token logits are spread apart and the search does not hinge on rounding), biases
and norm parameters drawn too (GPT-2 starts them at 0 and 1), torch.manual_seed(0), eos = pad = 99.
onnxruntime 1.32's GPT-2 converter passes the past as a tuple of [2, batch, heads, past, head_size] tensors, which
transformers 5 no longer takes, and transformers 5's attention export is not what onnxruntime's attention fusion
knows: the script replaces only the forward of the converter's wrapper class (gpt2_forward: same inputs, outputs,
weights and maths, written in the layout transformers 4 exported) and changes nothing else in the converter.
"""

import os
import shutil
import sys
import tempfile

import onnx
import torch

VOCAB, EMBD, LAYERS, HEADS, POSITIONS, EOS = 100, 32, 2, 2, 64, 99


def gpt2_forward(self, input_ids, position_ids, attention_mask, *past):
    """GPT-2 with onnxruntime's decoder contract (past_i and present_i [2, batch, heads, length, head_size]) written
    out with the module's own weights in the layout onnxruntime's GPT-2 attention fusion recognises (the one
    transformers 4 exported): Conv1D projections, a boolean lower-triangular mask sliced to the query and key
    lengths, the padding mask added as (1 - mask) * min. The maths is GPT-2's."""
    t = self.transformer
    batch = input_ids.size(0)
    hidden = t.wte(input_ids) + t.wpe(position_ids)
    mask = attention_mask.view(batch, -1)[:, None, None, :].to(hidden.dtype)
    mask = (1.0 - mask) * torch.finfo(hidden.dtype).min
    presents = []
    for block, layer_past in zip(t.h, past):
        attended, present = attention(block.attn, block.ln_1(hidden), layer_past, mask)
        hidden = attended + hidden
        hidden = block.mlp(block.ln_2(hidden)) + hidden
        presents.append(present)
    return self.lm_head(t.ln_f(hidden)), tuple(presents)


CAUSAL = torch.tril(torch.ones(POSITIONS, POSITIONS, dtype=torch.bool)).view(1, 1, POSITIONS, POSITIONS)


def attention(attn, x, layer_past, mask):
    heads, size = attn.num_heads, attn.head_dim

    def split_heads(tensor):  # [batch, length, heads * size] -> [batch, heads, length, size]
        return tensor.view(tensor.size()[:-1] + (heads, size)).permute(0, 2, 1, 3)

    query, key, value = attn.c_attn(x).split(attn.split_size, dim=2)
    query, key, value = split_heads(query), split_heads(key), split_heads(value)
    key = torch.cat((layer_past[0], key), dim=-2)
    value = torch.cat((layer_past[1], value), dim=-2)
    present = torch.stack((key, value))
    weights = torch.matmul(query, key.transpose(-1, -2)) / (value.size(-1) ** 0.5)
    query_length, key_length = query.size(-2), key.size(-2)
    causal = CAUSAL[:, :, key_length - query_length:key_length, :key_length]
    weights = torch.where(causal, weights, torch.full([], torch.finfo(weights.dtype).min, dtype=weights.dtype))
    weights = torch.softmax(weights + mask, dim=-1)
    out = torch.matmul(weights, value).permute(0, 2, 1, 3).contiguous()
    return attn.c_proj(out.view(out.size()[:-2] + (heads * size,))), present


def patch_gpt2_wrapper():
    """onnxruntime's GPT-2 wrapper (MyGPT2LMHeadModel) runs gpt2_forward: same inputs, outputs and weights."""
    import onnxruntime.transformers.convert_generation  # noqa: F401  (puts the helper modules on sys.path)
    import gpt2_helper  # the module object onnxruntime's converter uses

    gpt2_helper.MyGPT2LMHeadModel.forward = gpt2_forward


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
        gpt2 = GPT2LMHeadModel(config).eval()
        with torch.no_grad():  # GPT-2's initialisation leaves biases 0 and norm scales 1: draw them too
            for name, p in gpt2.named_parameters():
                if p.dim() == 1:
                    p.normal_(1.0 if name.endswith("ln_1.weight") or name.endswith("ln_2.weight")
                              or name.endswith("ln_f.weight") else 0.0, 0.1)
        gpt2.save_pretrained(hf)
        for name, extra in (("gpt2_beam_search", ["--num_beams", "4", "--num_return_sequences", "2",
                                                  "--output_sequences_scores"]),
                            ("gpt2_greedy_search", ["--num_beams", "1", "--num_return_sequences", "1"]),
                            ("gpt2_greedy_search_shared", ["--num_beams", "1", "--num_return_sequences", "1",
                                                           "--past_present_share_buffer"])):
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
