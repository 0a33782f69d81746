"""Writes the small transformer graphs of tests/contrib/real/models, with random weights (nothing is downloaded).

    /work/venv-torch/bin/python make_real_models.py <models dir>

Needs torch, transformers, onnx, onnxruntime (its transformers optimizer) and onnxruntime-genai (its model builder);
the versions used are written into <models dir>/VERSIONS.txt. Each model is saved as one .onnx file with its weights
inside (each under 1 MB):
- llama_fp32, llama_int4: a Llama decoder (hidden 64, 2 layers, 4 query heads, 2 KV heads, vocabulary 256) built
  by `python -m onnxruntime_genai.models.builder -e cpu` at precision fp32 and int4 (MatMulNBits, GroupQueryAttention
  with rotary embedding, SkipSimplifiedLayerNormalization);
- bert*, gpt2*: see make_bert and make_gpt2.
"""

import os
import shutil
import subprocess
import sys
import tempfile

import onnx
import torch


def save_single_file(src, dst):
    model = onnx.load(src)  # with its external data
    onnx.save(model, dst)


def make_llama(models_dir, work):
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=256, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=128, rms_norm_eps=1e-5,
                         tie_word_embeddings=False)
    hf = os.path.join(work, "llama_hf")
    LlamaForCausalLM(config).save_pretrained(hf)
    # The builder saves the tokenizer next to the model: a word-level one over the vocabulary will do.
    tokenizer = Tokenizer(models.WordLevel({f"t{i}": i for i in range(config.vocab_size)}, unk_token="t0"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    PreTrainedTokenizerFast(tokenizer_object=tokenizer, unk_token="t0", bos_token="t1",
                            eos_token="t2").save_pretrained(hf)
    for precision in ("fp32", "int4"):
        out = os.path.join(work, "llama_" + precision)
        subprocess.run([sys.executable, "-m", "onnxruntime_genai.models.builder", "-i", hf, "-o", out, "-p", precision,
                        "-e", "cpu", "-c", os.path.join(work, "cache")], check=True, stdout=subprocess.DEVNULL)
        save_single_file(os.path.join(out, "model.onnx"), os.path.join(models_dir, f"llama_{precision}.onnx"))


def main():
    models_dir = os.path.abspath(sys.argv[1])
    os.makedirs(models_dir, exist_ok=True)
    with tempfile.TemporaryDirectory() as work:
        make_llama(models_dir, work)
    import importlib.metadata as md
    with open(os.path.join(models_dir, "VERSIONS.txt"), "w") as f:
        for package in ("torch", "transformers", "onnx", "onnxruntime", "onnxruntime-genai"):
            f.write(f"{package} {md.version(package)}\n")


if __name__ == "__main__":
    main()
