"""Writes the small transformer graphs of tests/contrib/real/models, with random weights (nothing is downloaded).

    /work/venv-torch/bin/python make_real_models.py <models dir>

Needs torch, transformers, onnx, onnxruntime (its transformers optimizer) and onnxruntime-genai (its model builder);
the versions used are written into <models dir>/VERSIONS.txt. Each model is saved as one .onnx file with its weights
inside (each under 1 MB):
- llama_fp32, llama_int4: a Llama decoder (hidden 64, 2 layers, 4 query heads, 2 KV heads, vocabulary 256) built
  by `python -m onnxruntime_genai.models.builder -e cpu` at precision fp32 and int4 (MatMulNBits, GroupQueryAttention
  with rotary embedding, SkipSimplifiedLayerNormalization);
- gptoss_fp32, lfm2_fp32, qwen35_fp32, qwen35moe_int4, lfm2moe_int4: see make_gptoss, make_lfm2_qwen35 and
  make_moe_int4 (onnxruntime-genai 0.18 from PyPI; run with it importable);
- bert, bert_optimized, bert_optimized_fp16: see make_bert; bert_optimized_mha: see make_bert_mha;
- gpt2, gpt2_optimized: see make_gpt2.
gpt2_beam_search and gpt2_greedy_search are written by make_gpt2_generation.py (onnxruntime's convert_generation).
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


def save_with_tokenizer(work, name, model, vocab_size):
    """Saves a random-weight transformers model under <work>/<name>_hf with a word-level tokenizer over its
    vocabulary (the builder saves the tokenizer next to the model) and returns that folder."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    hf = os.path.join(work, name + "_hf")
    model.save_pretrained(hf)
    tokenizer = Tokenizer(models.WordLevel({f"t{i}": i for i in range(vocab_size)}, unk_token="t0"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    PreTrainedTokenizerFast(tokenizer_object=tokenizer, unk_token="t0", bos_token="t1",
                            eos_token="t2").save_pretrained(hf)
    return hf


def run_builder(models_dir, work, hf, name, precision):
    """Runs onnxruntime-genai's builder on the saved model at `precision` for the CPU; the result goes to
    <models_dir>/<name>.onnx in one file."""
    out = os.path.join(work, name)
    subprocess.run([sys.executable, "-m", "onnxruntime_genai.models.builder", "-i", hf, "-o", out, "-p", precision,
                    "-e", "cpu", "-c", os.path.join(work, "cache")], check=True, stdout=subprocess.DEVNULL)
    save_single_file(os.path.join(out, "model.onnx"), os.path.join(models_dir, name + ".onnx"))


def build_genai(models_dir, work, name, model, vocab_size, precision="fp32"):
    """save_with_tokenizer, then run_builder at `precision`: <models_dir>/<name>.onnx."""
    run_builder(models_dir, work, save_with_tokenizer(work, name, model, vocab_size), name, precision)


def make_llama(models_dir, work):
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=256, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=128, rms_norm_eps=1e-5,
                         tie_word_embeddings=False)
    hf = save_with_tokenizer(work, "llama", LlamaForCausalLM(config), config.vocab_size)
    for precision in ("fp32", "int4"):
        run_builder(models_dir, work, hf, "llama_" + precision, precision)


def make_gptoss(models_dir, work):
    """gptoss_fp32: a gpt-oss decoder (hidden 64, 2 layers: sliding window 8, then full; 4 query heads, 2 KV heads, 4
    experts, top 2, vocabulary 256) built by the onnxruntime-genai model builder at fp32: GroupQueryAttention with
    attention sinks and, in the sliding layer, a window-sized KV cache (sliding_window_cache), and MoE (SwiGLU with
    activation_alpha 1.702 and swiglu_limit 7). The builder's int4 path needs the original MXFP4 expert tensors."""
    from transformers import GptOssConfig, GptOssForCausalLM

    torch.manual_seed(0)
    config = GptOssConfig(vocab_size=256, hidden_size=64, intermediate_size=64, num_hidden_layers=2,
                          num_attention_heads=4, num_key_value_heads=2, head_dim=16, num_local_experts=4,
                          num_experts_per_tok=2, max_position_embeddings=256, sliding_window=8,
                          layer_types=["sliding_attention", "full_attention"], rope_scaling=None)
    build_genai(models_dir, work, "gptoss_fp32", GptOssForCausalLM(config), config.vocab_size)


def make_lfm2_qwen35(models_dir):
    """lfm2_fp32: an LFM2 decoder (a short-convolution layer, CausalConvWithState, then an attention layer,
    GroupQueryAttention with Q/K norms); qwen35_fp32: a Qwen3.5 text decoder (a Gated DeltaNet layer:
    CausalConvWithState, LinearAttentionGate, LinearAttention with 2 key heads and 4 value heads, GatedRMSNorm; then
    a full-attention layer with interleaved MRotaryEmbedding, partial rotary, and GroupQueryAttention), both written by
    the onnxruntime-genai builder at fp32 from random weights (hidden 64, 2 layers, vocabulary 256)."""
    import transformers as t

    with tempfile.TemporaryDirectory() as work:
        torch.manual_seed(0)
        config = t.Lfm2Config(vocab_size=256, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                              num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=128,
                              layer_types=["conv", "full_attention"], conv_L_cache=3, block_auto_adjust_ff_dim=False)
        build_genai(models_dir, work, "lfm2_fp32", t.Lfm2ForCausalLM(config), 256)
        text = dict(vocab_size=256, hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
                    num_key_value_heads=2, head_dim=32, max_position_embeddings=128,
                    layer_types=["linear_attention", "full_attention"], linear_num_key_heads=2,
                    linear_num_value_heads=4, linear_key_head_dim=16, linear_value_head_dim=16,
                    linear_conv_kernel_dim=4,
                    rope_parameters={"rope_theta": 10000.0, "partial_rotary_factor": 0.25, "rope_type": "default",
                                     "mrope_section": [2, 1, 1], "mrope_interleaved": True})
        config = t.Qwen3_5Config(text_config=text, vision_config=dict(depth=1, hidden_size=32, num_heads=2,
                                                                      out_hidden_size=64, intermediate_size=64))
        build_genai(models_dir, work, "qwen35_fp32", t.Qwen3_5ForConditionalGeneration(config), 256)


def make_moe_int4(models_dir):
    """qwen35moe_int4: a Qwen3.5-MoE text decoder (the layers of qwen35_fp32, with a sparse MoE block of 4 experts,
    top 2, plus a shared expert mixed by GatedAdd), and lfm2moe_int4: an LFM2-MoE decoder (a dense first layer, then
    a MoE one), both written by the onnxruntime-genai builder at int4 for the CPU: QMoE (4-bit experts), MatMulNBits
    (accuracy_level 4), and for LFM2 the embedding as GatherBlockQuantized."""
    import transformers as t

    with tempfile.TemporaryDirectory() as work:
        torch.manual_seed(0)
        text = dict(vocab_size=256, hidden_size=64, moe_intermediate_size=32, shared_expert_intermediate_size=32,
                    num_experts=4, num_experts_per_tok=2, num_hidden_layers=2, num_attention_heads=4,
                    num_key_value_heads=2, head_dim=32, max_position_embeddings=128,
                    layer_types=["linear_attention", "full_attention"], linear_num_key_heads=2,
                    linear_num_value_heads=4, linear_key_head_dim=16, linear_value_head_dim=16,
                    linear_conv_kernel_dim=4,
                    rope_parameters={"rope_theta": 10000.0, "partial_rotary_factor": 0.25, "rope_type": "default",
                                     "mrope_section": [2, 1, 1], "mrope_interleaved": True})
        config = t.Qwen3_5MoeConfig(text_config=text, vision_config=dict(depth=1, hidden_size=32, num_heads=2,
                                                                         out_hidden_size=64, intermediate_size=64))
        build_genai(models_dir, work, "qwen35moe_int4", t.Qwen3_5MoeForConditionalGeneration(config), 256, "int4")
        config = t.Lfm2MoeConfig(vocab_size=256, hidden_size=64, intermediate_size=128, moe_intermediate_size=32,
                                 num_experts=4, num_experts_per_tok=2, num_dense_layers=1, num_hidden_layers=2,
                                 num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=128,
                                 layer_types=["conv", "full_attention"], conv_L_cache=3)
        build_genai(models_dir, work, "lfm2moe_int4", t.Lfm2MoeForCausalLM(config), 256, "int4")


def make_bert(models_dir, work):
    """bert: a BERT encoder (hidden 64, 2 layers, 4 heads) exported by torch.onnx (TorchScript exporter, eager
    attention, so that onnxruntime's fusions recognise it); bert_optimized: after onnxruntime.transformers'
    optimize_model (EmbedLayerNormalization, Attention, SkipLayerNormalization, BiasGelu); bert_optimized_fp16: that
    one converted to float16 with float inputs and outputs kept."""
    from onnxruntime.transformers.optimizer import optimize_model
    from transformers import BertConfig, BertModel

    torch.manual_seed(0)
    config = BertConfig(vocab_size=128, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                        intermediate_size=128, max_position_embeddings=64, type_vocab_size=2, hidden_act="gelu")
    config._attn_implementation = "eager"
    bert = BertModel(config, add_pooling_layer=True).eval()

    class Outputs(torch.nn.Module):
        def __init__(self, model):
            super().__init__()
            self.model = model

        def forward(self, input_ids, attention_mask, token_type_ids):
            out = self.model(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids)
            return out.last_hidden_state, out.pooler_output

    ids = torch.randint(0, 128, (2, 8))
    axes = {0: "batch", 1: "sequence"}
    path = os.path.join(models_dir, "bert.onnx")
    torch.onnx.export(Outputs(bert), (ids, torch.ones_like(ids), torch.zeros_like(ids)), path, dynamo=False,
                      input_names=["input_ids", "attention_mask", "token_type_ids"],
                      output_names=["last_hidden_state", "pooler_output"], opset_version=17,
                      dynamic_axes={"input_ids": axes, "attention_mask": axes, "token_type_ids": axes})
    optimized = optimize_model(path, model_type="bert", num_heads=4, hidden_size=64)
    optimized.save_model_to_file(os.path.join(models_dir, "bert_optimized.onnx"))
    optimized.convert_float_to_float16(keep_io_types=True)
    optimized.save_model_to_file(os.path.join(models_dir, "bert_optimized_fp16.onnx"))


def make_bert_mha(models_dir):
    """bert_optimized_mha: bert.onnx through onnxruntime.transformers' optimize_model with use_multi_head_attention
    (MultiHeadAttention with key_padding_mask instead of Attention; EmbedLayerNormalization off, as the optimizer
    does for models whose inputs it keeps)."""
    from onnxruntime.transformers.fusion_options import FusionOptions
    from onnxruntime.transformers.optimizer import optimize_model

    options = FusionOptions("bert")
    options.use_multi_head_attention = True
    options.enable_embed_layer_norm = False
    optimized = optimize_model(os.path.join(models_dir, "bert.onnx"), model_type="bert", num_heads=4, hidden_size=64,
                               optimization_options=options, opt_level=0, use_gpu=False)
    optimized.save_model_to_file(os.path.join(models_dir, "bert_optimized_mha.onnx"))


def make_gpt2(models_dir, work):
    """gpt2: GPT-2 (hidden 64, 2 layers, 4 heads, vocabulary 128) with past key/values [B, 4, past, 16] in and present
    ones out, exported by torch.onnx (TorchScript exporter, eager attention); gpt2_optimized: after
    onnxruntime.transformers' optimize_model (SkipLayerNormalization, FastGelu; its attention fusion does not
    recognise this export's causal mask, so attention stays in plain ops)."""
    from onnxruntime.transformers.optimizer import optimize_model
    from transformers import GPT2Config, GPT2LMHeadModel
    from transformers.cache_utils import DynamicCache

    torch.manual_seed(0)
    config = GPT2Config(vocab_size=128, n_positions=64, n_embd=64, n_layer=2, n_head=4)
    config._attn_implementation = "eager"
    gpt2 = GPT2LMHeadModel(config).eval()
    layers = config.n_layer

    class WithPast(torch.nn.Module):
        def __init__(self, model):
            super().__init__()
            self.model = model

        def forward(self, input_ids, attention_mask, position_ids, *past):
            cache = DynamicCache(config=config)
            for i in range(layers):
                cache.update(past[2 * i], past[2 * i + 1], i)
            out = self.model(input_ids=input_ids, attention_mask=attention_mask, position_ids=position_ids,
                             past_key_values=cache, use_cache=True)
            outputs = [out.logits]
            for layer in out.past_key_values.layers:
                outputs += [layer.keys, layer.values]
            return tuple(outputs)

    batch, length, past_length = 1, 3, 4
    past = [torch.randn(batch, 4, past_length, 16) for _ in range(2 * layers)]
    kv = [f"{i}.{part}" for i in range(layers) for part in ("key", "value")]
    inputs = ["input_ids", "attention_mask", "position_ids"] + ["past_key_values." + n for n in kv]
    axes = {"input_ids": {0: "batch", 1: "sequence"}, "attention_mask": {0: "batch", 1: "total"},
            "position_ids": {0: "batch", 1: "sequence"}}
    axes.update({"past_key_values." + n: {0: "batch", 2: "past"} for n in kv})
    axes.update({"present." + n: {0: "batch", 2: "total"} for n in kv})
    path = os.path.join(models_dir, "gpt2.onnx")
    torch.onnx.export(WithPast(gpt2), (torch.randint(0, 128, (batch, length)),
                                       torch.ones(batch, past_length + length, dtype=torch.int64),
                                       torch.arange(past_length, past_length + length)[None], *past), path,
                      dynamo=False, input_names=inputs, output_names=["logits"] + ["present." + n for n in kv],
                      dynamic_axes=axes, opset_version=17)
    optimized = optimize_model(path, model_type="gpt2", num_heads=4, hidden_size=64)
    optimized.save_model_to_file(os.path.join(models_dir, "gpt2_optimized.onnx"))


def main():
    models_dir = os.path.abspath(sys.argv[1])
    os.makedirs(models_dir, exist_ok=True)
    with tempfile.TemporaryDirectory() as work:
        make_llama(models_dir, work)
        make_gptoss(models_dir, work)
        make_lfm2_qwen35(models_dir)
        make_moe_int4(models_dir)
        make_bert(models_dir, work)
        make_bert_mha(models_dir)
        make_gpt2(models_dir, work)
    import importlib.metadata as md
    with open(os.path.join(models_dir, "VERSIONS.txt"), "w") as f:
        for package in ("torch", "transformers", "onnx", "onnxruntime", "onnxruntime-genai"):
            f.write(f"{package} {md.version(package)}\n")


if __name__ == "__main__":
    main()
