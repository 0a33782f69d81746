"""Writes whole multi-layer models of issue #41's Attention and LLM group, laid out as onnxruntime's generation tools
write them (onnxruntime-genai's model builder, onnxruntime.transformers' convert_generation), with seeded random
weights, each in ONNX's backend test-case layout with onnxruntime's outputs:

- sparse_decoder: a Phi-3-small-like decoder as onnxruntime-genai writes it: SimplifiedLayerNormalization,
  SkipSimplifiedLayerNormalization, packed-QKV MatMulNBits (4 bits), SparseAttention with rotary embedding on a shared
  past buffer, a MatMulNBits MLP and lm_head; prompt and decode cases.
- moe_decoder: a Mixtral-like decoder: GroupQueryAttention with rotary embedding, a router MatMul, MoE (SwiGLU,
  top-2) in layer 0 and QMoE (4-bit blocks with zero points) in layer 1.
- dmmha_decoder: a Whisper-like decoder step as convert_generation writes it for beam search: layer 0 self-attention
  through DecoderMaskedMultiHeadAttention on a shared past buffer with beam cache_indirection, cross-attention through
  DecoderMaskedMultiHeadAttention; layer 1 the same through MultiHeadAttention with past_sequence_length.
- mrope_decoder: a Qwen2-VL-like decoder: MRotaryEmbedding on queries and keys, GroupQueryAttention without rotary.
- hybrid_linear: a Qwen3-Next-like hybrid: CausalConvWithState, LinearAttention (gated delta rule) and GatedRMSNorm
  in layer 0, CausalConvWithState and GatedDeltaNet (softplus gate, sigmoid beta, q/k L2 norm) in layer 1.

    <test venv python> make_llm_models.py <output dir>

Also writes <output dir>/ops.json: each model's operators, for check_whole_models.py. Needs onnx, onnxruntime and
numpy; no torch.
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from graph_builder import MS, GraphBuilder, generate_models, op_set, write_case  # noqa: E402
from make_llm_cases import pack_codes, quantized  # noqa: E402

D, N, NKV, H = 64, 4, 2, 16  # hidden, query heads, KV heads, head size
VOCAB = 96
F32 = np.float32


def nbits(g, name, x, k, n, block=32):
    """MatMulNBits (4 bits, block 32) with seeded codes, scales and packed zero points: x [.., k] -> [.., n].
    accuracy_level stays 0: at 4 (genai's CPU default) onnxruntime rounds the activations to int8 per block, and a
    difference of 1e-6 upstream can flip one rounding (one logits row off by 4e-3); the focused cases of
    make_contrib_cases.py check accuracy_level 4 on exact inputs."""
    kb = k // block
    codes = g.rng.integers(0, 256, (n, kb, block // 2), dtype=np.uint8)
    scales = (g.rng.random((n, kb)) * 0.02 + 0.01).astype(F32)
    zp = g.rng.integers(0, 256, (n, (kb * 4 + 7) // 8), dtype=np.uint8)
    return g.op("MatMulNBits", [x, g.init(f"{name}.qweight", codes), g.init(f"{name}.scales", scales),
                                g.init(f"{name}.qzeros", zp)], domain=MS, name=name, K=k, N=n, bits=4,
                block_size=block)


def rope_caches(g, positions, dim):
    inv = 1.0 / (10000 ** (np.arange(0, dim, 2) / dim))
    angles = np.outer(np.arange(positions), inv)
    return g.init("cos_cache", np.cos(angles).astype(F32)), g.init("sin_cache", np.sin(angles).astype(F32))


def mask_lengths(g, mask, minus_one):
    """genai's attention-mask subgraph: per-row lengths (minus one for GroupQueryAttention's seqlens_k) and the
    total length, int32."""
    lens = g.op("ReduceSum", [mask, g.const_i64("axes1", [1])], keepdims=0, name="attn_mask_reduce_sum")
    if minus_one:
        lens = g.op("Sub", [lens, g.const_i64("one", 1)], name="seqlens_k_sub")
    lens = g.op("Cast", [lens], to=6, name="seqlens_k_cast")
    total = g.op("Gather", [g.op("Shape", [mask], name="attn_mask_shape"), g.const_i64("index1", 1)], axis=0,
                 name="total_seq_len_gather")
    return lens, g.op("Cast", [total], to=6, name="total_seq_len_cast")


def residual_norm(g, layer, x, residual, name):
    """SimplifiedLayerNormalization for the first norm of the model, SkipSimplifiedLayerNormalization after: (normed,
    the new residual)."""
    gamma = g.init(f"{name}.weight", (1 + 0.1 * g.rng.standard_normal(D)).astype(F32))
    if residual is None:
        return g.op("SimplifiedLayerNormalization", [x, gamma], name=name, axis=-1, epsilon=1e-5), x
    out = g.op("SkipSimplifiedLayerNormalization", [x, residual, gamma], [f"{name}/out", "", "", f"{name}/sum"],
               domain=MS, name=name, epsilon=1e-5)
    return out[0], out[3]


def sparse_decoder():
    """Two layers; past buffers of M = 64 rows in blocks of 16, two layouts (local window + first block, dense)."""
    g = GraphBuilder("sparse_decoder")
    m, block, layers, inter = 64, 16, 2, 128
    blocks = m // block
    dense = np.tril(np.ones((blocks, blocks), np.int32))
    local = dense.copy()
    for i in range(blocks):
        local[i, :max(0, i - 1)] = 0
    local[:, 0] = 1
    local = np.tril(local)
    rows, cols = [], []
    for mask in (local, dense):
        r, c = [0], []
        for line in mask:
            c += [j for j, v in enumerate(line) if v]
            r.append(len(c))
        rows.append(r)
        cols.append(c)
    width = max(len(c) for c in cols)
    rows = g.init("block_row_indices", np.array(rows, np.int32))
    cols = g.init("block_col_indices", np.array([c + [-1] * (width - len(c)) for c in cols], np.int32))
    cos, sin = rope_caches(g, m, H)
    ids = g.input("input_ids", np.zeros((1, 1), np.int64), ["batch", "sequence"])
    mask = g.input("attention_mask", np.zeros((1, 1), np.int64), ["batch", "total"])
    key_lens, total = mask_lengths(g, mask, minus_one=False)
    embed = g.weight("model.embed_tokens.weight", VOCAB, D, scale=1.0)
    x = g.op("Gather", [embed, ids], name="model.embed_tokens")
    residual = None
    outputs = [("logits", F32)]
    shared = {}
    for i in range(layers):
        pk = g.input(f"past_key_values.{i}.key", np.zeros((1, NKV, m, H), F32), ["batch", NKV, m, H])
        pv = g.input(f"past_key_values.{i}.value", np.zeros((1, NKV, m, H), F32), ["batch", NKV, m, H])
        norm, residual = residual_norm(g, i, x, residual, f"layers.{i}.input_layernorm")
        qkv = nbits(g, f"layers.{i}.attn.qkv_proj", norm, D, (N + 2 * NKV) * H)
        attn = g.op("SparseAttention", [qkv, "", "", pk, pv, rows, cols, total, key_lens, cos, sin],
                    [f"layers.{i}.attn/out", f"present.{i}.key", f"present.{i}.value"], domain=MS,
                    name=f"layers.{i}.attn.sparse_attention", num_heads=N, kv_num_heads=NKV, sparse_block_size=block,
                    do_rotary=1)[0]
        shared.update({pk: f"present.{i}.key", pv: f"present.{i}.value"})
        attn = nbits(g, f"layers.{i}.attn.o_proj", attn, N * H, D)
        norm, residual = residual_norm(g, i, attn, residual, f"layers.{i}.post_attention_layernorm")
        up = nbits(g, f"layers.{i}.mlp.up_proj", norm, D, 2 * inter)
        gate, lin = g.op("Split", [up, g.const_i64(f"layers.{i}.mlp.split", [inter, inter])], 2, axis=-1,
                         name=f"layers.{i}.mlp.split")
        act = g.op("Mul", [g.op("Sigmoid", [gate], name=f"layers.{i}.mlp.sigmoid"), gate],
                   name=f"layers.{i}.mlp.silu")
        x = nbits(g, f"layers.{i}.mlp.down_proj", g.op("Mul", [act, lin], name=f"layers.{i}.mlp.mul"), inter, D)
        outputs += [(f"present.{i}.key", F32), (f"present.{i}.value", F32)]
    norm, _ = residual_norm(g, layers, x, residual, "model.norm")
    nbits(g, "lm_head", norm, D, VOCAB)
    g.nodes[-1].output[0] = "logits"
    model = g.model(outputs)
    return model, shared, layers, m


def sparse_cases(out_dir, ops):
    model, shared, layers, m = sparse_decoder()
    names = [o.name for o in model.graph.output]
    r = np.random.default_rng(41)
    for case, b, s, past in (("sparse_decoder_prompt", 2, 40, 0), ("sparse_decoder_decode", 2, 1, 45)):
        feeds = {"input_ids": r.integers(0, VOCAB, (b, s)).astype(np.int64),
                 "attention_mask": np.ones((b, past + s), np.int64)}
        for i in range(layers):
            for kv in ("key", "value"):
                buf = np.zeros((b, NKV, m, H), F32)
                buf[:, :, :past] = r.standard_normal((b, NKV, past, H))
                feeds[f"past_key_values.{i}.{kv}"] = buf
        write_case(out_dir, case, model, feeds, names, shared)
        ops[case] = op_set(model)


def gqa_block(g, i, norm, mask_info, cos, sin, past):
    """Separate Q/K/V MatMuls, GroupQueryAttention with rotary embedding, o_proj."""
    seqlens, total = mask_info
    q = g.op("MatMul", [norm, g.weight(f"layers.{i}.attn.q_proj.weight", D, N * H)], name=f"layers.{i}.attn.q_proj")
    k = g.op("MatMul", [norm, g.weight(f"layers.{i}.attn.k_proj.weight", D, NKV * H)], name=f"layers.{i}.attn.k_proj")
    v = g.op("MatMul", [norm, g.weight(f"layers.{i}.attn.v_proj.weight", D, NKV * H)], name=f"layers.{i}.attn.v_proj")
    attn = g.op("GroupQueryAttention", [q, k, v, past[0], past[1], seqlens, total, cos, sin],
                [f"layers.{i}.attn/out", f"present.{i}.key", f"present.{i}.value"], domain=MS,
                name=f"layers.{i}.attn.gqa", num_heads=N, kv_num_heads=NKV, do_rotary=cos is not None and 1 or 0)[0]
    return g.op("MatMul", [attn, g.weight(f"layers.{i}.attn.o_proj.weight", N * H, D)], name=f"layers.{i}.attn.o_proj")


def moe_decoder():
    g = GraphBuilder("moe_decoder")
    experts, inter = 4, 64
    cos, sin = rope_caches(g, 32, H)
    ids = g.input("input_ids", np.zeros((1, 1), np.int64), ["batch", "sequence"])
    mask = g.input("attention_mask", np.zeros((1, 1), np.int64), ["batch", "total"])
    mask_info = mask_lengths(g, mask, minus_one=True)
    x = g.op("Gather", [g.weight("model.embed_tokens.weight", VOCAB, D, scale=1.0), ids], name="model.embed_tokens")
    residual = None
    outputs = [("logits", F32)]
    for i in range(2):
        past = [g.input(f"past_key_values.{i}.{kv}", np.zeros((1, NKV, 0, H), F32), ["batch", NKV, "past", H])
                for kv in ("key", "value")]
        norm, residual = residual_norm(g, i, x, residual, f"layers.{i}.input_layernorm")
        attn = gqa_block(g, i, norm, mask_info, cos, sin, past)
        norm, residual = residual_norm(g, i, attn, residual, f"layers.{i}.post_attention_layernorm")
        flat = g.op("Reshape", [norm, g.const_i64("flat_shape", [-1, D])], name=f"layers.{i}.moe.flatten")
        router = g.op("MatMul", [flat, g.weight(f"layers.{i}.moe.gate.weight", D, experts, scale=1.0)],
                      name=f"layers.{i}.moe.gate")
        if i == 0:
            w1 = (g.rng.standard_normal((experts, 2 * inter, D)) / 8).astype(F32)  # gate/up interleaved rows
            w2 = (g.rng.standard_normal((experts, D, inter)) / 8).astype(F32)
            moe = g.op("MoE", [flat, router, g.init(f"layers.{i}.moe.fc1", w1), "", g.init(f"layers.{i}.moe.fc2", w2)],
                       domain=MS, name=f"layers.{i}.moe", k=2, activation_type="swiglu", swiglu_fusion=1,
                       normalize_routing_weights=1)
        else:
            q1, s1, z1, _ = quantized(g.rng, experts, 2 * inter, D, 4, 16, True)
            q2, s2, z2, _ = quantized(g.rng, experts, D, inter, 4, 16, True)
            s1, s2 = (s1 / 4).astype(F32), (s2 / 4).astype(F32)
            moe = g.op("QMoE", [flat, router, g.init(f"layers.{i}.moe.fc1.qweight", pack_codes(q1, 4)),
                                g.init(f"layers.{i}.moe.fc1.scales", s1), "",
                                g.init(f"layers.{i}.moe.fc2.qweight", pack_codes(q2, 4)),
                                g.init(f"layers.{i}.moe.fc2.scales", s2), "", "", "", "",
                                g.init(f"layers.{i}.moe.fc1.qzeros", pack_codes(z1, 4)),
                                g.init(f"layers.{i}.moe.fc2.qzeros", pack_codes(z2, 4))],
                       domain=MS, name=f"layers.{i}.qmoe", k=2, activation_type="swiglu", swiglu_fusion=1,
                       normalize_routing_weights=1, expert_weight_bits=4, block_size=16)
        x = g.op("Reshape", [moe, g.op("Shape", [norm], name=f"layers.{i}.moe.shape")], name=f"layers.{i}.moe.unflatten")
        outputs += [(f"present.{i}.key", F32), (f"present.{i}.value", F32)]
    norm, _ = residual_norm(g, 2, x, residual, "model.norm")
    g.op("MatMul", [norm, g.weight("lm_head.weight", D, VOCAB)], ["logits"], name="lm_head")
    return g.model(outputs)


def moe_cases(out_dir, ops):
    model = moe_decoder()
    names = [o.name for o in model.graph.output]
    r = np.random.default_rng(42)
    for case, b, s, past in (("moe_decoder_prompt", 2, 6, 0), ("moe_decoder_decode", 2, 1, 7)):
        feeds = {"input_ids": r.integers(0, VOCAB, (b, s)).astype(np.int64),
                 "attention_mask": np.ones((b, past + s), np.int64)}
        for i in range(2):
            for kv in ("key", "value"):
                feeds[f"past_key_values.{i}.{kv}"] = r.standard_normal((b, NKV, past, H)).astype(F32)
        write_case(out_dir, case, model, feeds, names)
        ops[case] = op_set(model)


def layer_norm(g, x, name):
    return g.op("LayerNormalization", [x, g.init(f"{name}.weight", (1 + 0.1 * g.rng.standard_normal(D)).astype(F32)),
                                       g.init(f"{name}.bias", (0.1 * g.rng.standard_normal(D)).astype(F32))],
                name=name, axis=-1, epsilon=1e-5)


def dmmha_decoder(m, cross_len):
    """One decoding step of a Whisper-like decoder with beam search's inputs."""
    g = GraphBuilder("dmmha_decoder")
    ids = g.input("input_ids", np.zeros((1, 1), np.int32), ["batch_beam", 1])
    plen = g.input("past_sequence_length", np.zeros(1, np.int32), [1])
    beam_width = g.input("beam_width", np.zeros(1, np.int32), [1])
    indirection = g.input("cache_indirection", np.zeros((1, 1, m), np.int32), ["batch", "beam", m])
    tok = g.weight("decoder.embed_tokens.weight", VOCAB, D, scale=1.0)
    x = g.op("Gather", [tok, ids], name="decoder.embed_tokens")
    pos = g.op("Gather", [g.weight("decoder.embed_positions.weight", m, D, scale=0.5), plen],
               name="decoder.embed_positions")
    x = g.op("Add", [x, pos], name="decoder.embed_add")
    outputs = [("logits", F32)]
    for i in range(2):
        pk = g.input(f"past_key_self_{i}", np.zeros((1, N, m, H), F32), ["batch_beam", N, m, H])
        pv = g.input(f"past_value_self_{i}", np.zeros((1, N, m, H), F32), ["batch_beam", N, m, H])
        ck = g.input(f"present_key_cross_{i}", np.zeros((1, N, cross_len, H), F32), ["batch_beam", N, "enc", H])
        cv = g.input(f"present_value_cross_{i}", np.zeros((1, N, cross_len, H), F32), ["batch_beam", N, "enc", H])
        p = f"decoder.layers.{i}"
        ln = layer_norm(g, x, f"{p}.self_attn_layer_norm")
        q, k, v = (g.op("MatMul", [ln, g.weight(f"{p}.self_attn.{w}_proj.weight", D, D)], name=f"{p}.self_attn.{w}_proj")
                   for w in "qkv")
        bias = g.init(f"{p}.self_attn.qkv_bias", (0.1 * g.rng.standard_normal(3 * D)).astype(F32))
        presents = [f"present_key_self_{i}", f"present_value_self_{i}"]
        if i == 0:
            attn = g.op("DecoderMaskedMultiHeadAttention", [q, k, v, "", "", pk, pv, plen, beam_width, indirection,
                                                            bias], [f"{p}.self_attn/out"] + presents, domain=MS,
                        name=f"{p}.self_attn.dmmha", num_heads=N, past_present_share_buffer=1)[0]
        else:
            attn = g.op("MultiHeadAttention", [q, k, v, bias, "", "", pk, pv, plen, indirection],
                        [f"{p}.self_attn/out"] + presents, domain=MS, name=f"{p}.self_attn.mha", num_heads=N)[0]
        attn = g.op("MatMul", [attn, g.weight(f"{p}.self_attn.out_proj.weight", D, D)], name=f"{p}.self_attn.out_proj")
        x = g.op("Add", [x, attn], name=f"{p}.self_attn.residual")
        ln = layer_norm(g, x, f"{p}.encoder_attn_layer_norm")
        q = g.op("MatMul", [ln, g.weight(f"{p}.encoder_attn.q_proj.weight", D, D)], name=f"{p}.encoder_attn.q_proj")
        if i == 0:
            qbias = np.zeros(3 * D, F32)
            qbias[:D] = 0.1 * g.rng.standard_normal(D)
            cross = g.op("DecoderMaskedMultiHeadAttention",
                         [q, ck, cv, "", "", "", "", "", "", "", g.init(f"{p}.encoder_attn.q_bias", qbias)],
                         [f"{p}.encoder_attn/out"], domain=MS, name=f"{p}.encoder_attn.dmmha", num_heads=N)
        else:
            cross = g.op("MultiHeadAttention", [q, ck, cv], [f"{p}.encoder_attn/out"], domain=MS,
                         name=f"{p}.encoder_attn.mha", num_heads=N)
        cross = g.op("MatMul", [cross, g.weight(f"{p}.encoder_attn.out_proj.weight", D, D)],
                     name=f"{p}.encoder_attn.out_proj")
        x = g.op("Add", [x, cross], name=f"{p}.encoder_attn.residual")
        ln = layer_norm(g, x, f"{p}.final_layer_norm")
        h = g.op("Gelu", [g.op("MatMul", [ln, g.weight(f"{p}.fc1.weight", D, 2 * D)], name=f"{p}.fc1")],
                 name=f"{p}.gelu")
        x = g.op("Add", [x, g.op("MatMul", [h, g.weight(f"{p}.fc2.weight", 2 * D, D)], name=f"{p}.fc2")],
                 name=f"{p}.mlp.residual")
        outputs += [(presents[0], F32), (presents[1], F32)]
    ln = layer_norm(g, x, "decoder.layer_norm")
    g.op("MatMul", [ln, g.op("Transpose", [tok], name="decoder.embed_tokens.transpose", perm=[1, 0])], ["logits"],
         name="proj_out")
    return g.model(outputs)


def dmmha_cases(out_dir, ops):
    m, cross_len = 16, 6
    model = dmmha_decoder(m, cross_len)
    names = [o.name for o in model.graph.output]
    r = np.random.default_rng(43)
    for case, batch, beams, past in (("dmmha_decoder_beams", 2, 2, 5), ("dmmha_decoder_first_step", 1, 3, 0),
                                     ("dmmha_decoder_late_step", 3, 1, 14)):
        bb = batch * beams
        ci = np.zeros((batch, beams, m), np.int32)
        ci[:, :, :past] = r.integers(0, beams, (batch, beams, past))
        feeds = {"input_ids": r.integers(0, VOCAB, (bb, 1)).astype(np.int32),
                 "past_sequence_length": np.array([past], np.int32), "beam_width": np.array([beams], np.int32),
                 "cache_indirection": ci}
        for i in range(2):
            for kv in ("key", "value"):
                buf = np.zeros((bb, N, m, H), F32)
                buf[:, :, :past] = r.standard_normal((bb, N, past, H))
                feeds[f"past_{kv}_self_{i}"] = buf
                feeds[f"present_{kv}_cross_{i}"] = r.standard_normal((bb, N, cross_len, H)).astype(F32)
        write_case(out_dir, case, model, feeds, names)
        ops[case] = op_set(model)


def mrope_decoder():
    g = GraphBuilder("mrope_decoder")
    section = [2, 3, 3]
    inv = 1.0 / (10000 ** (np.arange(0, H, 2) / H))
    angles = np.outer(np.arange(64), inv)
    cos, sin = g.init("mrope_cos_cache", np.cos(angles).astype(F32)), g.init("mrope_sin_cache", np.sin(angles).astype(F32))
    x = g.input("inputs_embeds", np.zeros((1, 1, D), F32), ["batch", "sequence", D])
    pos = g.input("position_ids", np.zeros((3, 1, 1), np.int64), [3, "batch", "sequence"])
    mask = g.input("attention_mask", np.zeros((1, 1), np.int64), ["batch", "sequence"])
    mask_info = mask_lengths(g, mask, minus_one=True)
    residual = None
    outputs = [("last_hidden_state", F32)]
    for i in range(2):
        norm, residual = residual_norm(g, i, x, residual, f"layers.{i}.input_layernorm")
        p = f"layers.{i}.self_attn"
        q, k, v = (g.op("Add", [g.op("MatMul", [norm, g.weight(f"{p}.{w}_proj.weight", D, n * H)], name=f"{p}.{w}_proj"),
                                g.init(f"{p}.{w}_proj.bias", (0.1 * g.rng.standard_normal(n * H)).astype(F32))],
                          name=f"{p}.{w}_proj.bias_add") for w, n in (("q", N), ("k", NKV), ("v", NKV)))
        q = g.op("MRotaryEmbedding", [q, pos, cos, sin], domain=MS, name=f"{p}.q_mrope", mrope_section=section,
                 num_heads=N)
        k = g.op("MRotaryEmbedding", [k, pos, cos, sin], domain=MS, name=f"{p}.k_mrope", mrope_section=section,
                 num_heads=NKV)
        seqlens, total = mask_info
        attn = g.op("GroupQueryAttention", [q, k, v, "", "", seqlens, total],
                    [f"{p}/out", f"present.{i}.key", f"present.{i}.value"], domain=MS, name=f"{p}.gqa", num_heads=N,
                    kv_num_heads=NKV)[0]
        attn = g.op("MatMul", [attn, g.weight(f"{p}.o_proj.weight", N * H, D)], name=f"{p}.o_proj")
        norm, residual = residual_norm(g, i, attn, residual, f"layers.{i}.post_attention_layernorm")
        gate = g.op("MatMul", [norm, g.weight(f"layers.{i}.mlp.gate_proj.weight", D, 2 * D)], name=f"layers.{i}.mlp.gate_proj")
        up = g.op("MatMul", [norm, g.weight(f"layers.{i}.mlp.up_proj.weight", D, 2 * D)], name=f"layers.{i}.mlp.up_proj")
        act = g.op("Mul", [g.op("Sigmoid", [gate], name=f"layers.{i}.mlp.sigmoid"), gate], name=f"layers.{i}.mlp.silu")
        x = g.op("MatMul", [g.op("Mul", [act, up], name=f"layers.{i}.mlp.mul"),
                            g.weight(f"layers.{i}.mlp.down_proj.weight", 2 * D, D)], name=f"layers.{i}.mlp.down_proj")
        outputs += [(f"present.{i}.key", F32), (f"present.{i}.value", F32)]
    residual_norm(g, 2, x, residual, "model.norm")
    g.nodes[-1].output[0] = "last_hidden_state"
    return g.model(outputs)


def mrope_cases(out_dir, ops):
    model = mrope_decoder()
    names = [o.name for o in model.graph.output]
    r = np.random.default_rng(44)
    b, s = 2, 12
    # Qwen2-VL's positions: text tokens share one position on all three axes, the image patches of a 2 x 3 grid
    # take (t, h, w) positions
    pos = np.zeros((3, b, s), np.int64)
    for j in range(s):
        pos[:, :, j] = j
    grid = [(0, hh, ww) for hh in range(2) for ww in range(3)]
    for j, (t, hh, ww) in enumerate(grid):
        pos[:, :, 3 + j] = np.array([3 + t, 3 + hh, 3 + ww])[:, None]
    pos[:, :, 9:] = (np.arange(3) + 6)[None, None, :]
    feeds = {"inputs_embeds": r.standard_normal((b, s, D)).astype(F32), "position_ids": pos,
             "attention_mask": np.ones((b, s), np.int64)}
    write_case(out_dir, "mrope_decoder_prompt", model, feeds, names)
    ops["mrope_decoder_prompt"] = op_set(model)


def hybrid_linear():
    """Layer 0: in_proj, CausalConvWithState (SiLU), Q/K/V split, K L2-normalized, LinearAttention (gated delta),
    GatedRMSNorm gated by z, out_proj. Layer 1: the same projections into GatedDeltaNet (rank 4, softplus gate from
    a_log and dt_bias, sigmoid beta, q/k L2 norm in the kernel)."""
    g = GraphBuilder("hybrid_linear")
    hq, hkv, dk, dv, kw = 4, 2, 16, 16, 4
    qd, kd, vd = hq * dk, hkv * dk, hkv * dv
    conv_c = qd + kd + vd
    x = g.input("hidden_states", np.zeros((1, 1, D), F32), ["batch", "sequence", D])
    outputs = [("output_hidden_states", F32)]
    for i in range(2):
        p = f"layers.{i}.linear_attn"
        conv_state = g.input(f"past_conv_state.{i}", np.zeros((1, conv_c, kw - 1), F32), ["batch", conv_c, kw - 1])
        ln = g.op("SimplifiedLayerNormalization",
                  [x, g.init(f"layers.{i}.input_layernorm.weight", (1 + 0.1 * g.rng.standard_normal(D)).astype(F32))],
                  name=f"layers.{i}.input_layernorm", axis=-1, epsilon=1e-6)
        proj = g.op("MatMul", [ln, g.weight(f"{p}.in_proj_qkv.weight", D, conv_c)], name=f"{p}.in_proj_qkv")
        conv = g.op("CausalConvWithState",
                    [g.op("Transpose", [proj], name=f"{p}.to_channels", perm=[0, 2, 1]),
                     g.weight(f"{p}.conv1d.weight", conv_c, 1, kw, scale=0.5),
                     g.init(f"{p}.conv1d.bias", (0.1 * g.rng.standard_normal(conv_c)).astype(F32)), conv_state],
                    [f"{p}.conv1d/out", f"present_conv_state.{i}"], domain=MS, name=f"{p}.conv1d", activation="silu")
        mixed = g.op("Transpose", [conv[0]], name=f"{p}.from_channels", perm=[0, 2, 1])
        q, k, v = g.op("Split", [mixed, g.const_i64(f"split_qkv", [qd, kd, vd])], 3, axis=-1, name=f"{p}.split_qkv")
        a = g.op("MatMul", [ln, g.weight(f"{p}.in_proj_a.weight", D, hkv if i == 0 else 2 * hkv)], name=f"{p}.in_proj_a")
        b = g.op("MatMul", [ln, g.weight(f"{p}.in_proj_b.weight", D, hkv if i == 0 else 2 * hkv)], name=f"{p}.in_proj_b")
        z = g.op("MatMul", [ln, g.weight(f"{p}.in_proj_z.weight", D, hq * dv)], name=f"{p}.in_proj_z")
        if i == 0:
            state = g.input("past_recurrent_state.0", np.zeros((1, hkv, dk, dv), F32), ["batch", hkv, dk, dv])
            heads = g.const_i64("kv_heads_shape", [0, 0, hkv, dk])
            kh = g.op("Reshape", [k, heads], name=f"{p}.k_heads")
            kh = g.op("LpNormalization", [kh], name=f"{p}.k_l2norm", axis=-1, p=2)
            k = g.op("Reshape", [kh, g.const_i64("flat3", [0, 0, -1])], name=f"{p}.k_flat")
            q = g.op("Mul", [q, g.init("q_scale", np.array(0.5, F32))], name=f"{p}.q_scale")
            dt_bias = g.init(f"{p}.dt_bias", (0.5 * g.rng.standard_normal(hkv)).astype(F32))
            a_exp = g.init(f"{p}.A", np.exp(0.3 * g.rng.standard_normal(hkv)).astype(F32))
            decay = g.op("Neg", [g.op("Mul", [g.op("Softplus", [g.op("Add", [a, dt_bias], name=f"{p}.dt_add")],
                                                  name=f"{p}.softplus"), a_exp], name=f"{p}.decay_mul")],
                         name=f"{p}.decay")
            beta = g.op("Sigmoid", [b], name=f"{p}.beta")
            core = g.op("LinearAttention", [q, k, v, state, decay, beta],
                        [f"{p}.core/out", f"present_recurrent_state.{i}"], domain=MS, name=f"{p}.linear_attention",
                        q_num_heads=hq, kv_num_heads=hkv, update_rule="gated_delta")[0]
            outputs += [(f"present_conv_state.{i}", F32), (f"present_recurrent_state.{i}", F32)]
        else:
            # GatedDeltaNet: q/k of hq heads (hkv KV heads repeated), v of 2 * hkv heads
            hv = 2 * hkv
            state = g.input("past_recurrent_state.1", np.zeros((1, hv, dk, dk), F32), ["batch", hv, dk, dk])
            shape4 = lambda heads, d: g.const_i64(f"shape4_{heads}_{d}", [0, 0, heads, d])  # noqa: E731
            qh = g.op("Reshape", [q, shape4(hq, dk)], name=f"{p}.q_heads")
            kh = g.op("Reshape", [g.op("Concat", [k, k], name=f"{p}.k_repeat", axis=-1), shape4(hq, dk)],
                      name=f"{p}.k_heads")
            vh = g.op("Reshape", [g.op("Concat", [v, v], name=f"{p}.v_repeat", axis=-1), shape4(hv, dk)],
                      name=f"{p}.v_heads")
            a_log = g.init(f"{p}.A_log", (0.3 * g.rng.standard_normal(hv)).astype(F32))
            dt_bias = g.init(f"{p}.dt_bias", (0.5 * g.rng.standard_normal(hv)).astype(F32))
            core = g.op("GatedDeltaNet", [qh, kh, vh, "", a, b, state, a_log, dt_bias],
                        [f"{p}.gdn/out", f"present_recurrent_state.{i}"], domain=MS, name=f"{p}.gated_delta_net",
                        update_rule="gated_delta", gate_activation="softplus", beta_activation="sigmoid",
                        qk_l2_norm=1)[0]
            core = g.op("Reshape", [core, g.const_i64("flat3", [0, 0, -1])], name=f"{p}.core_flat")
            outputs += [(f"present_conv_state.{i}", F32), (f"present_recurrent_state.{i}", F32)]
        normed = g.op("GatedRMSNorm", [core, g.init(f"{p}.norm.weight", (1 + 0.1 * g.rng.standard_normal(dv)).astype(F32)),
                                       z], domain=MS, name=f"{p}.norm", activation="silu", epsilon=1e-6)
        out = g.op("MatMul", [normed, g.weight(f"{p}.out_proj.weight", hq * dv, D)], name=f"{p}.out_proj")
        x = g.op("Add", [x, out], name=f"layers.{i}.residual")
    g.nodes[-1].output[0] = "output_hidden_states"
    return g.model(outputs)


def hybrid_cases(out_dir, ops):
    model = hybrid_linear()
    names = [o.name for o in model.graph.output]
    r = np.random.default_rng(45)
    for case, b, s in (("hybrid_linear_prompt", 2, 7), ("hybrid_linear_decode", 3, 1)):
        feeds = {"hidden_states": r.standard_normal((b, s, D)).astype(F32)}
        for vi in model.graph.input:
            if vi.name not in feeds:
                dims = [b if d.dim_param == "batch" else d.dim_value for d in vi.type.tensor_type.shape.dim]
                feeds[vi.name] = (0.3 * r.standard_normal(dims)).astype(F32)
        write_case(out_dir, case, model, feeds, names)
        ops[case] = op_set(model)


MODELS = {"sparse": sparse_cases, "moe": moe_cases, "dmmha": dmmha_cases, "mrope": mrope_cases,
          "hybrid": hybrid_cases}


def main():
    generate_models(sys.argv, MODELS)


if __name__ == "__main__":
    main()
