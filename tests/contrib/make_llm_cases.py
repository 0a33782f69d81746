"""Writes ONNX backend test-case folders for onnxruntime's attention, LLM and linear-attention com.microsoft
operators (issue #41: DecoderMaskedMultiHeadAttention, MultiHeadAttention with a shared past buffer, ...).

    <test venv python> make_llm_cases.py <output dir> [group ...]

Each case is one node with seeded inputs; its expected outputs are computed by onnxruntime (pinned in
scripts/test-requirements.txt; CPU execution provider, graph optimizations disabled), either on the same node or,
where onnxruntime's CPU kernel refuses a form the schema allows, on an equivalent node it runs (`reference`: the
other node and a function mapping its outputs to this node's). Refusals land in <output>/refused for
check_refusals.py. Needs onnx, onnxruntime and numpy; no torch.
"""

import json
import os
import shutil
import sys

import numpy as np
import onnx
from onnx import numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_contrib_cases import (MS, Case, build, const, inp, randn, rng_for, rotary_caches, run_onnxruntime,  # noqa: E402
                                value_info)

CASES = []
REFUSALS = []


def case(group, name, op, inputs, outputs, reference=None, out_types=None, **attrs):
    """reference: None (onnxruntime runs this node), (op, inputs, attrs, to_outputs): onnxruntime runs that node
    with outputs named as this one's and to_outputs(results) gives this node's expected outputs, or a function
    returning them computed with numpy (for a mode that onnxruntime's CPU provider does not implement)."""
    c = Case(group, name, op, inputs, outputs, MS, out_types, None, **attrs)
    c.llm_reference = reference
    CASES.append(c)


def refusal(name, op, inputs, outputs, expected, **attrs):
    """expected: substrings of the error message."""
    REFUSALS.append((Case("refused", name, op, inputs, outputs, MS, None, None, **attrs), expected))


def expected_outputs(c):
    if c.llm_reference is None:
        return [np.asarray(r) for r in run_onnxruntime(c)]
    if callable(c.llm_reference):
        return [np.asarray(r) for r in c.llm_reference()]
    op, inputs, attrs, to_outputs = c.llm_reference
    ref = Case(c.group, c.name, op, inputs, c.outputs, MS, None, None, **attrs)
    return [np.asarray(r) for r in to_outputs(run_onnxruntime(ref))]


def write(c, out_dir):
    model, feeds = build(c)
    names = [o for o in c.outputs if o]
    results = expected_outputs(c)
    del model.graph.output[:]
    for n, r in zip(names, results):
        model.graph.output.append(value_info(n, r))
    case_dir = os.path.join(out_dir, c.group, c.name)
    shutil.rmtree(case_dir, ignore_errors=True)
    data_dir = os.path.join(case_dir, "test_data_set_0")
    os.makedirs(data_dir)
    onnx.save(model, os.path.join(case_dir, "model.onnx"))
    for index, vi in enumerate(model.graph.input):
        onnx.save_tensor(numpy_helper.from_array(feeds[vi.name], vi.name), os.path.join(data_dir, f"input_{index}.pb"))
    for index, (n, r) in enumerate(zip(names, results)):
        if r.dtype.kind == "f" and not np.all(np.isfinite(r)):
            raise SystemExit(f"{c.name}: onnxruntime's output {n} holds non-finite values")
        onnx.save_tensor(numpy_helper.from_array(r, n), os.path.join(data_dir, f"output_{index}.pb"))


# ---- MultiHeadAttention with a shared past buffer, DecoderMaskedMultiHeadAttention --------------------------------


def kv_inputs(r, b, n, h, hv, m):
    return randn(r, b, n, m, h), randn(r, b, n, m, hv)


def beam_indirection(r, batch, beams, m, past):
    ci = np.zeros((batch, beams, m), np.int32)
    ci[:, :, :past] = r.integers(0, beams, (batch, beams, past))
    return ci


def mha_shared_case(name, b=2, s=1, n=2, h=8, hv=None, m=8, past=5, beams=0, bias=False, mask=None, attn_bias=None,
                    qk=False, **attrs):
    """MultiHeadAttention with past_sequence_length: past_key/past_value are buffers of m rows. beams > 0 adds
    cache_indirection (batch b // beams). mask: None or "2d" ([B, T]); attn_bias: None, "broadcast", "full"."""
    r = rng_for(name)
    hv = hv or h
    t = past + s
    ins = [inp("query", randn(r, b, s, n * h)), inp("key", randn(r, b, s, n * h)), inp("value", randn(r, b, s, n * hv))]
    ins.append(inp("bias", randn(r, 2 * n * h + n * hv)) if bias else None)
    if mask == "2d":
        mk = np.ones((b, t), np.int32)
        mk[0, 1] = 0
        mk[-1, -2] = 0
        ins.append(inp("key_padding_mask", mk))
    else:
        ins.append(None)
    if attn_bias:
        full = attn_bias == "full"
        ins.append(inp("attention_bias", randn(r, b if full else 1, n if full else 1, s, t)))
    else:
        ins.append(None)
    pk, pv = kv_inputs(r, b, n, h, hv, m)
    ins += [inp("past_key", pk), inp("past_value", pv), inp("past_sequence_length", np.array([past], np.int32))]
    if beams:
        ins.append(inp("cache_indirection", beam_indirection(r, b // beams, beams, m, past)))
    outputs = ["output", "present_key", "present_value"] + (["qk"] if qk else [])
    case("llm_mha_shared", name, "MultiHeadAttention", ins, outputs, num_heads=n, **attrs)


def mha_shared_cases():
    mha_shared_case("mha_shared_decode")
    mha_shared_case("mha_shared_prefill_chunk", s=3, past=4, bias=True, mask="2d", unidirectional=1)
    mha_shared_case("mha_shared_empty_past", s=2, past=0, attn_bias="full")
    mha_shared_case("mha_shared_scale", past=3, scale=0.4)
    mha_shared_case("mha_shared_beams", b=4, beams=2, bias=True, qk=True)
    mha_shared_case("mha_shared_beams_mask_bias", b=6, beams=3, mask="2d", attn_bias="broadcast",
                    mask_filter_value=-30.0)
    mha_shared_case("mha_shared_beams_full_bias", b=2, beams=1, attn_bias="full")


def dmmha_case(name, b=2, n=2, h=8, m=8, past=5, form="self", shared=True, beams=0, beam_width_input=True,
               bias=False, mask=False, attn_bias=None, qk=False, l=6, **attrs):
    """form: self (key/value [B, 1, D]), packed (query [B, 1, 3D]), cross (key/value [B, N, L, H]). shared: a
    buffer of m rows and past_sequence_length, else a past of `past` rows. beams > 0: batch b // beams with
    cache_indirection."""
    r = rng_for(name)
    d = n * h
    query, key, value = randn(r, b, 1, d), randn(r, b, 1, d), randn(r, b, 1, d)
    cross = form == "cross"
    if cross:
        key, value = randn(r, b, n, l, h), randn(r, b, n, l, h)
    t = l if cross else past + 1
    ins = [inp("query", np.concatenate([query, key, value], axis=2))] + [None, None] if form == "packed" else \
        [inp("query", query), inp("key", key), inp("value", value)]
    mk = None
    if mask:
        mk = np.ones((b, t), np.int32)
        mk[0, 0] = 0
        mk[-1, t - 2] = 0
    ins.append(inp("mask_index", mk) if mask else None)
    ab = None
    if attn_bias:
        full = attn_bias == "full"
        ab = randn(r, b if full else 1, n if full else 1, 1, t)
    ins.append(inp("attention_bias", ab) if attn_bias else None)
    pk = pv = None
    if not cross:
        pk, pv = kv_inputs(r, b, n, h, h, m if shared else past)
        ins += [inp("past_key", pk), inp("past_value", pv)]
        ins.append(inp("past_sequence_length", np.array([past], np.int32)) if shared else None)
    else:
        ins += [None, None, None]
    ci = None
    if beams:
        ins.append(inp("beam_width", np.array([beams], np.int32)) if beam_width_input else None)
        ci = beam_indirection(r, b // beams, beams, m, past)
        ins.append(inp("cache_indirection", ci))
    else:
        ins += [None, None]
    bias_values = None
    if bias:
        bias_values = randn(r, 3 * d)
        if cross:
            bias_values[d:] = 0
        ins.append(inp("bias", bias_values))
    while ins[-1] is None:
        ins.pop()
    outputs = ["output"] + (["present_key", "present_value"] if not cross else ["", ""]) + (["qk"] if qk else [])
    while not outputs[-1]:
        outputs.pop()
    if not cross and not shared:
        # onnxruntime's CPU kernel enforces past_present_share_buffer; the schema's plain past [B, N, P, H] is
        # MultiHeadAttention's past.
        mha = [inp("query", query), inp("key", key), inp("value", value),
               inp("bias", bias_values) if bias else None, inp("key_padding_mask", mk) if mask else None,
               inp("attention_bias", ab) if attn_bias else None, inp("past_key", pk), inp("past_value", pv)]
        mha_attrs = {k: v for k, v in attrs.items() if k in ("scale", "mask_filter_value")}
        case("llm_dmmha", name, "DecoderMaskedMultiHeadAttention", ins, outputs,
             reference=("MultiHeadAttention", mha, dict(num_heads=n, **mha_attrs), lambda res: res),
             num_heads=n, output_qk=int(qk), **attrs)
        return
    if form == "packed":
        # onnxruntime's CPU kernel does not split a packed query; the same values run unpacked.
        unpacked = [inp("query", query), inp("key", key), inp("value", value)] + ins[3:]
        case("llm_dmmha", name, "DecoderMaskedMultiHeadAttention", ins, outputs,
             reference=("DecoderMaskedMultiHeadAttention", unpacked,
                        dict(num_heads=n, past_present_share_buffer=int(shared), output_qk=int(qk), **attrs),
                        lambda res: res),
             num_heads=n, past_present_share_buffer=int(shared), output_qk=int(qk), **attrs)
        return
    case("llm_dmmha", name, "DecoderMaskedMultiHeadAttention", ins, outputs, num_heads=n,
         past_present_share_buffer=int(shared and not cross), output_qk=int(qk), **attrs)


def dmmha_cases():
    dmmha_case("dmmha_shared")
    dmmha_case("dmmha_shared_bias_mask", bias=True, mask=True, attn_bias="full", qk=True)
    dmmha_case("dmmha_shared_past0", past=0)
    dmmha_case("dmmha_scale_filter", mask=True, scale=0.25, mask_filter_value=-20.0)
    dmmha_case("dmmha_beams", b=4, beams=2, bias=True, qk=True)
    dmmha_case("dmmha_beams_mask_bias", b=6, beams=3, mask=True, attn_bias="broadcast")
    dmmha_case("dmmha_beam_width_1", b=2, beams=1, beam_width_input=False, m=7, past=6)
    dmmha_case("dmmha_cross", form="cross", mask=True, qk=True)
    dmmha_case("dmmha_cross_q_bias", form="cross", bias=True, l=4)
    dmmha_case("dmmha_packed", form="packed", bias=True)
    dmmha_case("dmmha_unshared_past", shared=False, past=4, bias=True, mask=True)


def attention_refusals():
    r = rng_for("llm_refusals")
    b, n, h, m = 2, 2, 4, 6
    q1 = randn(r, b, 1, n * h)
    pk, pv = randn(r, b, n, m, h), randn(r, b, n, m, h)
    self_in = [inp("query", q1), inp("key", q1), inp("value", q1), None, None]
    refusal("dmmha_two_queries", "DecoderMaskedMultiHeadAttention",
            [inp("query", randn(r, b, 2, n * h)), inp("key", q1), inp("value", q1)], ["output"],
            ['"dmmha_two_queries"', "query must be [batch, 1, hidden]"], num_heads=n)
    refusal("dmmha_buffer_overflow", "DecoderMaskedMultiHeadAttention",
            self_in + [const("past_key", pk), const("past_value", pv), const("past_sequence_length",
                                                                             np.array([m], np.int32))],
            ["output"], ['"dmmha_buffer_overflow"', "past_sequence_length 6", "does not fit", "6 rows"], num_heads=n,
            past_present_share_buffer=1)
    refusal("dmmha_bad_beam_index", "DecoderMaskedMultiHeadAttention",
            self_in + [const("past_key", pk), const("past_value", pv),
                       const("past_sequence_length", np.array([3], np.int32)),
                       const("beam_width", np.array([2], np.int32)),
                       const("cache_indirection", np.full((1, 2, m), 2, np.int32))],
            ["output"], ['"dmmha_bad_beam_index"', "cache_indirection[0, 0, 0] = 2", "[0, 2)"], num_heads=n,
            past_present_share_buffer=1)
    refusal("dmmha_beams_without_indirection", "DecoderMaskedMultiHeadAttention",
            self_in + [const("past_key", pk), const("past_value", pv),
                       const("past_sequence_length", np.array([3], np.int32)),
                       const("beam_width", np.array([2], np.int32))],
            ["output"], ['"dmmha_beams_without_indirection"', "beam_width 2", "cache_indirection"], num_heads=n,
            past_present_share_buffer=1)
    refusal("dmmha_qk_without_output_qk", "DecoderMaskedMultiHeadAttention", self_in[:3], ["output", "", "", "qk"],
            ['"dmmha_qk_without_output_qk"', "output_qk"], num_heads=n)
    cross_bias = np.ones(3 * n * h, np.float32)
    refusal("dmmha_cross_kv_bias", "DecoderMaskedMultiHeadAttention",
            [inp("query", q1), inp("key", randn(r, b, n, 3, h)), inp("value", randn(r, b, n, 3, h))] + [None] * 7
            + [const("bias", cross_bias)], ["output"], ['"dmmha_cross_kv_bias"', "cross attention", "must be zero"],
            num_heads=n)
    refusal("dmmha_shared_without_length", "DecoderMaskedMultiHeadAttention",
            self_in + [const("past_key", pk), const("past_value", pv)], ["output"],
            ['"dmmha_shared_without_length"', "past_sequence_length"], num_heads=n, past_present_share_buffer=1)
    refusal("mha_length_without_past", "MultiHeadAttention",
            self_in + [None, None, None, const("past_sequence_length", np.array([2], np.int32))], ["output"],
            ['"mha_length_without_past"', "past_sequence_length needs past_key"], num_heads=n)
    refusal("mha_indirection_wrong_length", "MultiHeadAttention",
            self_in + [None, const("past_key", pk), const("past_value", pv),
                       const("past_sequence_length", np.array([2], np.int32)),
                       const("cache_indirection", np.zeros((1, 2, m + 1), np.int32))],
            ["output"], ['"mha_indirection_wrong_length"', "cache_indirection must be int32"], num_heads=n)


# ---- GroupQueryAttention with a window-sized KV cache (sliding_window_cache) ---------------------------------------


def resident_rows(tokens, capacity, window):
    """The rows a window-sized cache holds after `tokens` tokens (the schema's L(T))."""
    if tokens <= capacity:
        return tokens
    g = capacity - window + 1
    return tokens - g * -(-(tokens - capacity) // g)


def gqa_window_case(name, lengths, b=2, s=1, n=4, nk=2, h=16, capacity=6, window=4, rotary=False, sink=False):
    """lengths: each entry's absolute token count after the step (seqlens_k + 1). The past holds each entry's
    L(T - s) resident rows (the rest random); the expected present rows past L(T) are zero, this engine's choice for
    rows the schema leaves unspecified (onnxruntime leaves whatever its buffer held: garbage, sometimes non-finite)."""
    r = rng_for(name)
    ins = [inp("query", randn(r, b, s, n * h)), inp("key", randn(r, b, s, nk * h)), inp("value", randn(r, b, s, nk * h)),
           inp("past_key", randn(r, b, nk, capacity, h)), inp("past_value", randn(r, b, nk, capacity, h)),
           inp("seqlens_k", np.array(lengths, np.int32) - 1), inp("total_sequence_length", np.array(max(lengths), np.int32))]
    attrs = dict(num_heads=n, kv_num_heads=nk, local_window_size=window, sliding_window_cache=1)
    if rotary:
        cos, sin = rotary_caches(32, h // 2, np.float32)
        ins += [inp("cos_cache", cos), inp("sin_cache", sin)]
        attrs["do_rotary"] = 1
    if sink:
        ins += [None, None] if rotary else [None, None, None, None]
        ins.append(inp("head_sink", randn(r, n)))
    outputs = ["output", "present_key", "present_value"]
    c = Case("llm_gqa_window", name, "GroupQueryAttention", ins, outputs, MS, None, None, **attrs)

    def reference():
        out = [np.asarray(x).copy() for x in run_onnxruntime(c)]
        for i, t in enumerate(lengths):
            keep = resident_rows(t, capacity, window)
            out[1][i, :, keep:] = 0
            out[2][i, :, keep:] = 0
        return out
    case("llm_gqa_window", name, "GroupQueryAttention", ins, outputs, reference=reference, **attrs)


def gqa_window_cases():
    gqa_window_case("gqa_window_prompt", [6, 6], s=6)
    gqa_window_case("gqa_window_prompt_longer_than_cache", [7], b=1, s=7)
    gqa_window_case("gqa_window_decode", [9, 5])
    gqa_window_case("gqa_window_decode_evicts", [7, 6])
    gqa_window_case("gqa_window_decode_full_cache_window", [10, 4], capacity=4)
    gqa_window_case("gqa_window_chunk", [11], b=1, s=3)
    gqa_window_case("gqa_window_chunk_longer_than_cache", [20], b=1, s=8)
    gqa_window_case("gqa_window_rotary_sink", [12, 3], capacity=8, rotary=True, sink=True)


# ---- MRotaryEmbedding ---------------------------------------------------------------------------------------------


def mrope_case(name, b=2, s=5, n=2, h=16, rd=0, section=(2, 3, 3), layout=0, four_d=False, dt=np.float32,
               max_pos=24, group="llm_mrope", **attrs):
    r = rng_for(name)
    half = (rd or h) // 2
    x = randn(r, b, n, s, h, dtype=dt) if four_d else randn(r, b, s, n * h, dtype=dt)
    pos = r.integers(0, max_pos, (3, b, s)).astype(np.int64)
    angles = r.uniform(0, 6.3, (max_pos, half))
    ins = [inp("input", x), inp("position_ids", pos), inp("cos_cache", np.cos(angles).astype(dt)),
           inp("sin_cache", np.sin(angles).astype(dt))]
    if rd:
        attrs.update(rotary_embedding_dim=rd)
    if not four_d:
        attrs["num_heads"] = n  # onnxruntime requires it for 3-D input
    case(group, name, "MRotaryEmbedding", ins, ["output"], mrope_section=list(section), mrope_layout=layout, **attrs)


def mrope_cases():
    mrope_case("mrope_sectioned")
    mrope_case("mrope_interleaved_layout", section=(4, 2, 2), layout=1)
    mrope_case("mrope_interleaved_layout_qwen3", h=32, section=(6, 5, 5), layout=1)
    mrope_case("mrope_interleaved_pairs", interleaved=1)
    mrope_case("mrope_interleaved_both", section=(4, 2, 2), layout=1, interleaved=1)
    mrope_case("mrope_4d", four_d=True, section=(4, 4, 0))
    mrope_case("mrope_partial_dim", rd=8, section=(2, 1, 1))
    mrope_case("mrope_partial_dim_scale", rd=8, section=(1, 2, 1), layout=1, scale=0.7)
    mrope_case("mrope_temporal_only", section=(8, 0, 0))
    mrope_case("mrope_scale_packed", scale=0.5, is_packed_batching=1)
    mrope_case("mrope_fp16", dt=np.float16, group="llm_mrope_fp16", section=(4, 2, 2), layout=1)
    mrope_case("mrope_fp16_4d", dt=np.float16, group="llm_mrope_fp16", four_d=True, interleaved=1)


def mrope_refusals():
    r = rng_for("mrope_refusals")
    x = randn(r, 1, 2, 16)  # one head of 16
    angles = r.uniform(0, 6.3, (4, 8))
    caches = [const("cos_cache", np.cos(angles).astype(np.float32)),
              const("sin_cache", np.sin(angles).astype(np.float32))]
    pos = const("position_ids", np.zeros((3, 1, 2), np.int64))
    refusal("mrope_section_sum", "MRotaryEmbedding", [inp("input", x), pos] + caches, ["output"],
            ['"mrope_section_sum"', "mrope_section [2, 2, 2]", "half rotary width 8"], mrope_section=[2, 2, 2])
    refusal("mrope_no_section", "MRotaryEmbedding", [inp("input", x), pos] + caches, ["output"],
            ['"mrope_no_section"', "'mrope_section'", "required"])
    refusal("mrope_layout_2", "MRotaryEmbedding", [inp("input", x), pos] + caches, ["output"],
            ['"mrope_layout_2"', "'mrope_layout'", "0 (sectioned) or 1 (interleaved)"], mrope_section=[4, 2, 2],
            mrope_layout=2)
    far = np.zeros((3, 1, 2), np.int64)
    far[1, 0, 1] = 4
    refusal("mrope_position_outside", "MRotaryEmbedding", [inp("input", x), const("position_ids", far)] + caches,
            ["output"], ['"mrope_position_outside"', "position_ids[1, 0, 1] = 4", "4 rows"], mrope_section=[4, 2, 2])
    refusal("mrope_positions_2d", "MRotaryEmbedding",
            [inp("input", x), const("position_ids", np.zeros((1, 2), np.int64))] + caches, ["output"],
            ['"mrope_positions_2d"', "position_ids must be [3, 1, 2]"], mrope_section=[4, 2, 2])


# ---- GatedRMSNorm, BranchwiseRMSNorm, GatedAdd --------------------------------------------------------------------


def gated_rms_case(name, shape=(2, 3, 16), c=8, dt=np.float32, group="llm_norms", **attrs):
    r = rng_for(name)
    case(group, name, "GatedRMSNorm", [inp("X", randn(r, *shape, dtype=dt)), inp("scale", randn(r, c, dtype=dt)),
                                       inp("gate", randn(r, *shape, dtype=dt))], ["Y"], **attrs)


def branchwise_case(name, shape=(2, 3, 4, 8), branches=0, scale_shape=None, scale_dt=None, dt=np.float32,
                    group="llm_norms", **attrs):
    r = rng_for(name)
    ins = [inp("X", randn(r, *shape, dtype=dt))]
    if scale_shape:
        ins.append(inp("scale", randn(r, *scale_shape, dtype=scale_dt or dt)))
    if branches:
        attrs["num_branches"] = branches
    case(group, name, "BranchwiseRMSNorm", ins, ["Y"], **attrs)


def gated_add_case(name, shape=(2, 5, 8), dt=np.float32, group="llm_norms", k=0):
    r = rng_for(name)
    x, y = randn(r, *shape, dtype=dt), randn(r, *shape, dtype=dt)
    gate = randn(r, *shape[:-1], k or 1, dtype=dt)
    ins = [inp("X", x), inp("Y", y), inp("gate", gate)]
    reference = None
    if k:
        w = randn(r, k, 1, dtype=dt)
        ins.append(inp("gate_weight", w))

        def reference():
            p = gate.astype(np.float64) @ w.astype(np.float64)
            s = 1.0 / (1.0 + np.exp(-p))
            return [(x.astype(np.float64) + y.astype(np.float64) * s).astype(dt)]
    case(group, name, "GatedAdd", ins, ["output"], reference=reference)


def norm_gate_cases():
    gated_rms_case("gated_rms_silu")
    gated_rms_case("gated_rms_swish_whole_row", c=16, activation="swish", epsilon=1e-3)
    gated_rms_case("gated_rms_sigmoid", shape=(4, 32), c=4, activation="sigmoid")
    gated_rms_case("gated_rms_fp16", dt=np.float16, group="llm_norms_fp16", activation="sigmoid")
    branchwise_case("branchwise_grouped")
    branchwise_case("branchwise_grouped_scale_ch", scale_shape=(4, 8), epsilon=1e-2)
    branchwise_case("branchwise_grouped_scale_flat", scale_shape=(32,))
    branchwise_case("branchwise_flat_shared_scale", shape=(2, 5, 24), branches=3, scale_shape=(8,))
    branchwise_case("branchwise_flat_scale_fp16", shape=(3, 24), branches=4, scale_shape=(4, 6),
                    scale_dt=np.float16)
    branchwise_case("branchwise_fp16", dt=np.float16, group="llm_norms_fp16", scale_shape=(8,), scale_dt=np.float32)
    gated_add_case("gated_add")
    gated_add_case("gated_add_2d", shape=(7, 4))
    gated_add_case("gated_add_fp16", dt=np.float16, group="llm_norms_fp16")
    gated_add_case("gated_add_projected", k=6)


def norm_gate_refusals():
    r = rng_for("norm_refusals")
    x = randn(r, 2, 12)
    refusal("gated_rms_bad_activation", "GatedRMSNorm", [inp("X", x), inp("scale", randn(r, 4)), inp("gate", x)],
            ["Y"], ['"gated_rms_bad_activation"', "'activation'", "'silu', 'swish' or 'sigmoid'"], activation="gelu")
    refusal("gated_rms_scale_width", "GatedRMSNorm", [inp("X", x), inp("scale", randn(r, 5)), inp("gate", x)],
            ["Y"], ['"gated_rms_scale_width"', "multiple of C"])
    refusal("branchwise_bad_scale", "BranchwiseRMSNorm", [inp("X", x), inp("scale", randn(r, 5))], ["Y"],
            ['"branchwise_bad_scale"', "scale must be [C*H], [C, H] or [H]"], num_branches=3)
    refusal("branchwise_branches", "BranchwiseRMSNorm", [inp("X", x)], ["Y"],
            ['"branchwise_branches"', "multiple of num_branches 5"], num_branches=5)
    refusal("gated_add_gate_shape", "GatedAdd", [inp("X", x), inp("Y", x), inp("gate", randn(r, 2, 3))],
            ["output"], ['"gated_add_gate_shape"', "gate must be [..., 1]"])


# ---- HyperConnectionPreMix, HyperConnectionPostMix, EngramGate, LinearAttentionGate -------------------------------


def pre_mix_case(name, lead=(2, 3), c=4, h=8, flat=False, mix="ch", dt=np.float32, mix_dt=None, group="llm_mixes",
                 **attrs):
    r = rng_for(name)
    x = randn(r, *lead, c * h, dtype=dt) if flat else randn(r, *lead, c, h, dtype=dt)
    shape = {"c": (c,), "c1": (c, 1), "ch": (c, h), "flat": (c * h,)}[mix]
    if flat:
        attrs["num_branches"] = c
    case(group, name, "HyperConnectionPreMix", [inp("streams", x), inp("pre_mix", randn(r, *lead, *shape,
                                                                                          dtype=mix_dt or dt))],
         ["output"], **attrs)


def post_mix_case(name, lead=(2, 3), c=4, h=8, flat=False, post="ch", stream_mix=True, dt=np.float32, mix_dt=None,
                  group="llm_mixes"):
    r = rng_for(name)
    x = randn(r, *lead, c * h, dtype=dt) if flat else randn(r, *lead, c, h, dtype=dt)
    shape = {"c": (c,), "c1": (c, 1), "ch": (c, h)}[post]
    ins = [inp("streams", x), inp("block_output", randn(r, *lead, h, dtype=dt)),
           inp("post_mix", randn(r, *lead, *shape, dtype=mix_dt or dt))]
    if stream_mix:
        ins.append(inp("stream_mix", randn(r, *lead, c, c, dtype=mix_dt or dt)))
    attrs = {"num_branches": c} if flat else {}
    case(group, name, "HyperConnectionPostMix", ins, ["output"], **attrs)


def engram_case(name, b=2, s=3, m=4, h=16, normed=False, dt=np.float32, group="llm_mixes", **attrs):
    r = rng_for(name)
    ins = [inp("key", randn(r, b, s, m, h, dtype=dt)), inp("query", randn(r, b, s, m, h, dtype=dt)),
           inp("value", randn(r, b, s, h, dtype=dt)), inp("key_norm_scale", randn(r, m, h, dtype=dt)),
           inp("query_norm_scale", randn(r, m, h, dtype=dt))]
    if normed:
        ins.append(inp("conv_norm_scale", randn(r, m, h, dtype=dt)))
    case(group, name, "EngramGate", ins, ["output", "gated_value_normed"] if normed else ["output"], **attrs)


def la_gate_case(name, b=2, t=5, h=6, beta=True, dt=np.float32, group="llm_mixes"):
    r = rng_for(name)
    a = (randn(r, b, t, h) * 8).astype(dt)  # reaches softplus' linear range too
    ins = [inp("a", a), inp("dt_bias", randn(r, h)), inp("decay_scale", -np.exp(randn(r, h)))]
    if beta:
        ins.append(inp("b", randn(r, b, t, h, dtype=dt)))
    case(group, name, "LinearAttentionGate", ins, ["decay", "beta"] if beta else ["decay"])


def mix_cases():
    pre_mix_case("pre_mix_ch")
    pre_mix_case("pre_mix_c", mix="c", reduction_scale=0.25)
    pre_mix_case("pre_mix_c1", mix="c1", lead=(5,))
    pre_mix_case("pre_mix_flat", flat=True, mix="flat")
    pre_mix_case("pre_mix_flat_c", flat=True, mix="c", mix_dt=np.float16)
    pre_mix_case("pre_mix_fp16", dt=np.float16, mix_dt=np.float32, group="llm_mixes_fp16")
    post_mix_case("post_mix_ch")
    post_mix_case("post_mix_c_identity", post="c", stream_mix=False)
    post_mix_case("post_mix_c1_flat", post="c1", flat=True)
    post_mix_case("post_mix_mix_fp16", mix_dt=np.float16, lead=(4,))
    post_mix_case("post_mix_fp16", dt=np.float16, group="llm_mixes_fp16")
    engram_case("engram")
    engram_case("engram_normed", normed=True, epsilon=1e-3)
    engram_case("engram_fp16", dt=np.float16, normed=True, group="llm_mixes_fp16")
    la_gate_case("la_gate")
    la_gate_case("la_gate_decay_only", beta=False)
    la_gate_case("la_gate_fp16", dt=np.float16, group="llm_mixes_fp16")


def mix_refusals():
    r = rng_for("mix_refusals")
    x = randn(r, 2, 3, 8)
    refusal("pre_mix_bad_gate", "HyperConnectionPreMix", [inp("streams", x), inp("pre_mix", randn(r, 2, 5))],
            ["output"], ['"pre_mix_bad_gate"', "pre_mix must be [..., C], [..., C, 1], [..., C, H]"])
    refusal("post_mix_block_shape", "HyperConnectionPostMix",
            [inp("streams", x), inp("block_output", randn(r, 2, 7)), inp("post_mix", randn(r, 2, 3))], ["output"],
            ['"post_mix_block_shape"', "block_output must be [..., H] = [2, 8]"])
    refusal("engram_normed_without_scale", "EngramGate",
            [inp("key", randn(r, 1, 1, 2, 4)), inp("query", randn(r, 1, 1, 2, 4)), inp("value", randn(r, 1, 1, 4)),
             inp("key_norm_scale", randn(r, 2, 4)), inp("query_norm_scale", randn(r, 2, 4))],
            ["output", "gated_value_normed"], ['"engram_normed_without_scale"', "conv_norm_scale"])
    refusal("la_gate_beta_without_b", "LinearAttentionGate",
            [inp("a", randn(r, 1, 2, 3)), inp("dt_bias", randn(r, 3)), inp("decay_scale", randn(r, 3))],
            ["decay", "beta"], ['"la_gate_beta_without_b"', "the beta output needs the b input"])


# ---- CausalConvWithState, VarlenCausalConvWithState ---------------------------------------------------------------


def causal_conv_case(name, b=2, c=6, length=5, k=4, dilation=1, bias=True, past=True, window=0, channels_last=False,
                     trailing=None, **attrs):
    r = rng_for(name)
    state_len = (k - 1) * dilation
    if channels_last:
        chans = trailing or (c,)
        c = int(np.prod(chans))
        x = randn(r, b, length, *chans)
        slot = (b, state_len, *chans)
        attrs["channels_last"] = 1
    else:
        x = randn(r, b, c, length)
        slot = (b, c, state_len)
    ins = [inp("input", x), inp("weight", randn(r, c, 1, k)), inp("bias", randn(r, c)) if bias else None]
    if past:
        ins.append(inp("past_state", randn(r, *(((window,) if window else ()) + slot))))
    if dilation != 1:
        attrs["dilation"] = dilation
    reference = None
    if window:
        # onnxruntime's CPU kernel refuses state_window; slot j is the state after position length - window + j,
        # which onnxruntime computes as the present_state of the input cut after that position (from past slot
        # window - 1), zeros for a position before the input.
        axis = 1 if channels_last else 2
        plain = ins[:3] + ([inp("past_state", ins[3][1][-1])] if past else [])

        def reference():
            def run(inputs):
                return run_onnxruntime(Case("llm_causal_conv", name, "CausalConvWithState", inputs,
                                            ["output", "present_state"], MS, None, None, **attrs))
            output = run(plain)[0]
            slots = []
            for j in range(window):
                last = length - window + j
                if last < 0:
                    slots.append(np.zeros(slot, np.float32))
                    continue
                cut = [inp("input", np.take(x, range(last + 1), axis=axis))] + plain[1:]
                slots.append(run(cut)[1])
            return [output, np.stack(slots)]
        case("llm_causal_conv", name, "CausalConvWithState", ins, ["output", "present_state"], reference=reference,
             state_window=window, **attrs)
        return
    case("llm_causal_conv", name, "CausalConvWithState", ins, ["output", "present_state"], **attrs)


def varlen_conv_case(name, lengths=(3, 1, 5), c=6, k=4, dilation=1, bias=True, capacity=0, capture=None,
                     dt=np.float32, group="llm_causal_conv", **attrs):
    r = rng_for(name)
    b = len(lengths)
    cu = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)
    state_len = (k - 1) * dilation
    ins = [inp("input", randn(r, int(cu[-1]), c, dtype=dt)), inp("weight", randn(r, c, 1, k, dtype=dt)),
           inp("cumulative_sequence_length", cu), inp("bias", randn(r, c, dtype=dt)) if bias else None,
           inp("initial_state", randn(r, b, c, state_len, dtype=dt))]
    outputs = ["output", "final_state"]
    if capacity:
        ins.append(inp("capture_count", np.array(capture, np.int32)))
        attrs["state_update_capacity"] = capacity
        outputs.append("state_update")
    if dilation != 1:
        attrs["dilation"] = dilation
    case(group, name, "VarlenCausalConvWithState", ins, outputs, **attrs)


def causal_conv_cases():
    causal_conv_case("causal_conv")
    causal_conv_case("causal_conv_silu_no_bias", bias=False, activation="silu")
    causal_conv_case("causal_conv_no_past_swish", past=False, activation="swish")
    causal_conv_case("causal_conv_dilation", dilation=2, length=7)
    causal_conv_case("causal_conv_decode", length=1, k=3)
    causal_conv_case("causal_conv_channels_last", channels_last=True, trailing=(2, 3), dilation=2)
    causal_conv_case("causal_conv_window", window=3, length=5)
    causal_conv_case("causal_conv_window_longer", window=4, length=2, k=3)
    causal_conv_case("causal_conv_window_channels_last", window=2, channels_last=True, length=4)
    varlen_conv_case("varlen_conv")
    varlen_conv_case("varlen_conv_silu_dilation", dilation=2, activation="silu", bias=False)
    varlen_conv_case("varlen_conv_capture", capacity=4, capture=[2, 3, 9])
    varlen_conv_case("varlen_conv_capture_negative", capacity=2, capture=[-1, 0, 2], lengths=(2, 2, 2))
    varlen_conv_case("varlen_conv_fp16", dt=np.float16, group="llm_causal_conv_fp16", activation="swish")


def causal_conv_refusals():
    r = rng_for("conv_refusals")
    x, w = randn(r, 1, 2, 4), randn(r, 2, 1, 3)
    refusal("causal_conv_ndim2", "CausalConvWithState", [inp("input", randn(r, 1, 2, 3, 4)),
                                                         inp("weight", randn(r, 2, 1, 3, 3))],
            ["output", "present_state"], ['"causal_conv_ndim2"', "'ndim'", "only 1"], ndim=2)
    refusal("causal_conv_cuda_attribute", "CausalConvWithState", [inp("input", x), inp("weight", w)],
            ["output", "present_state"], ['"causal_conv_cuda_attribute"', "'state_length'", "CUDA"], state_length=4)
    refusal("causal_conv_bad_state", "CausalConvWithState",
            [inp("input", x), inp("weight", w), None, inp("past_state", randn(r, 1, 2, 3))],
            ["output", "present_state"], ['"causal_conv_bad_state"', "past_state must be [1, 2, 2]"])
    xv = randn(r, 5, 2)
    refusal("varlen_conv_bad_offsets", "VarlenCausalConvWithState",
            [inp("input", xv), inp("weight", w), const("cumulative_sequence_length", np.array([0, 3, 3, 5], np.int32)),
             None, inp("initial_state", randn(r, 3, 2, 2))], ["output", "final_state"],
            ['"varlen_conv_bad_offsets"', "sequence 1", "at least one token"])
    refusal("varlen_conv_dynamic", "VarlenCausalConvWithState",
            [inp("input", xv), inp("weight", w), const("cumulative_sequence_length", np.array([0, 5], np.int32)),
             None, inp("initial_state", randn(r, 1, 2, 2)), None, inp("kernel_delta", randn(r, 5, 2, 2)),
             inp("previous_mask", randn(r, 5, 1))], ["output", "final_state"],
            ['"varlen_conv_dynamic"', "kernel_delta", "CUDA"])
    refusal("varlen_conv_capture_without_capacity", "VarlenCausalConvWithState",
            [inp("input", xv), inp("weight", w), const("cumulative_sequence_length", np.array([0, 5], np.int32)),
             None, inp("initial_state", randn(r, 1, 2, 2)), const("capture_count", np.array([1], np.int32))],
            ["output", "final_state"], ['"varlen_conv_capture_without_capacity"', "capture_count needs"])


# ---- LinearAttention ----------------------------------------------------------------------------------------------


def l2norm(x, heads):
    shape = x.shape
    x = x.reshape(*shape[:-1], heads, -1)
    return (x / np.linalg.norm(x, axis=-1, keepdims=True)).reshape(shape).astype(x.dtype)


def linear_attention_case(name, b=2, t=5, hq=4, hkv=2, dk=8, dv=6, rule="gated_delta", decay="head", beta="head",
                          past=True, window=0, hk=None, **attrs):
    """hk: key heads, when fewer than hkv (onnxruntime-genai's Qwen3.5: num_k_heads < num_v_heads)."""
    r = rng_for(name)
    hk = hk or hkv
    k = randn(r, b, t, hk * dk)
    if rule in ("delta", "gated_delta"):
        k = l2norm(k, hk)
    ins = [inp("query", randn(r, b, t, hq * dk)), inp("key", k), inp("value", randn(r, b, t, hkv * dv))]
    slot = (b, hkv, dk, dv)
    ins.append(inp("past_state", randn(r, *(((window,) if window else ()) + slot)) * 0.3) if past else None)
    if rule in ("gated", "gated_delta"):
        width = hkv * dk if decay == "key" else hkv
        ins.append(inp("decay", -np.abs(randn(r, b, t, width)) * 0.5))
    else:
        ins.append(None)
    if rule in ("delta", "gated_delta"):
        ins.append(inp("beta", r.uniform(0.1, 0.9, (b, t, hkv if beta == "head" else 1)).astype(np.float32)))
    while ins[-1] is None:
        ins.pop()
    attrs.update(q_num_heads=hq, kv_num_heads=hkv, update_rule=rule)
    if not window:
        case("llm_linear_attention", name, "LinearAttention", ins, ["output", "present_state"], **attrs)
        return
    # State windows checked against onnxruntime run on the tokens up to each slot's token (from past slot W - 1).
    plain = ins[:3] + [inp("past_state", ins[3][1][-1]) if past else None] + ins[4:]

    def cut(inputs, n):
        return [None if i is None else (i[0], i[1][:, :n] if i[0] != "past_state" else i[1], i[2]) for i in inputs]

    def reference():
        def run(inputs):
            return run_onnxruntime(Case("llm_linear_attention", name, "LinearAttention", inputs,
                                        ["output", "present_state"], MS, None, None, **attrs))
        output = run(plain)[0]
        slots = []
        for j in range(window):
            last = t - window + j
            slots.append(run(cut(plain, last + 1))[1] if last >= 0 else np.zeros(slot, np.float32))
        return [output, np.stack(slots)]
    case("llm_linear_attention", name, "LinearAttention", ins, ["output", "present_state"], reference=reference,
         state_window=window, **attrs)


def linear_attention_cases():
    linear_attention_case("la_gated_delta")
    linear_attention_case("la_gated_delta_key_decay_shared_beta", decay="key", beta="shared")
    linear_attention_case("la_linear", rule="linear", past=False)
    linear_attention_case("la_gated", rule="gated", decay="key", scale=0.3)
    linear_attention_case("la_delta", rule="delta", beta="shared")
    linear_attention_case("la_decode", t=1, hq=2, hkv=2)
    linear_attention_case("la_inverse_gqa", hq=2, hkv=4)
    linear_attention_case("la_shared_keys", hq=2, hk=2, hkv=4)
    linear_attention_case("la_shared_keys_gated_key_decay", hq=4, hk=1, hkv=4, rule="gated", decay="key")
    linear_attention_case("la_mha_chunk", hq=3, hkv=3, t=9, chunk_size=4)
    linear_attention_case("la_window", window=3)
    linear_attention_case("la_window_longer", window=4, t=2, rule="gated", decay="head")


def linear_attention_refusals():
    r = rng_for("la_refusals")
    q = randn(r, 1, 2, 8)
    three = [inp("query", q), inp("key", q), inp("value", q)]
    refusal("la_gated_without_decay", "LinearAttention", three, ["output"],
            ['"la_gated_without_decay"', "'gated'", "decay"], q_num_heads=2, kv_num_heads=2, update_rule="gated")
    refusal("la_bad_rule", "LinearAttention", three, ["output"],
            ['"la_bad_rule"', "'update_rule'", "'linear', 'gated', 'delta' or 'gated_delta'"], q_num_heads=2,
            kv_num_heads=2, update_rule="mamba")
    refusal("la_bad_beta", "LinearAttention", three + [None, None, inp("beta", randn(r, 1, 2, 3))], ["output"],
            ['"la_bad_beta"', "beta must be [B, T, kv_num_heads] or [B, T, 1]"], q_num_heads=2, kv_num_heads=2,
            update_rule="delta")


# ---- MoE ----------------------------------------------------------------------------------------------------------


def moe_case(name, shape=(7, 8), e=4, inter=6, k=1, act="relu", fusion=1, biases=True, **attrs):
    """fusion applies to swiglu: 1 interleaved (onnxruntime's CPU form), 2 [g | l] and 0 FC1 + FC3, both checked
    against onnxruntime running the same weights interleaved."""
    r = rng_for(name)
    hidden = shape[-1]
    tokens = int(np.prod(shape[:-1]))
    x = randn(r, *shape)
    router = randn(r, tokens, e) * 2
    swiglu = act == "swiglu"
    g, l = randn(r, e, inter, hidden) * 0.4, randn(r, e, inter, hidden) * 0.4
    bg, bl = randn(r, e, inter), randn(r, e, inter)
    w2, b2 = randn(r, e, hidden, inter) * 0.4, randn(r, e, hidden)
    inter_w = np.stack([g, l], axis=2).reshape(e, 2 * inter, hidden)
    inter_b = np.stack([bg, bl], axis=2).reshape(e, 2 * inter)
    attrs.update(k=k, activation_type=act)

    def node_inputs(fc1, b1, fc3=None, b3=None):
        ins = [inp("input", x), inp("router_probs", router), inp("fc1_experts_weights", fc1),
               inp("fc1_experts_bias", b1) if biases else None, inp("fc2_experts_weights", w2),
               inp("fc2_experts_bias", b2) if biases else None]
        if fc3 is not None:
            ins += [inp("fc3_experts_weights", fc3), inp("fc3_experts_bias", b3) if biases else None]
        while ins[-1] is None:
            ins.pop()
        return ins
    if not swiglu:
        case("llm_moe", name, "MoE", node_inputs(g, bg), ["output"], **attrs)
        return
    reference_ins = node_inputs(inter_w, inter_b)
    if fusion == 1:
        case("llm_moe", name, "MoE", reference_ins, ["output"], swiglu_fusion=1, **attrs)
        return
    ins = node_inputs(np.concatenate([g, l], axis=1), np.concatenate([bg, bl], axis=1)) if fusion == 2 else \
        node_inputs(g, bg, l, bl)
    case("llm_moe", name, "MoE", ins, ["output"], swiglu_fusion=fusion,
         reference=("MoE", reference_ins, dict(swiglu_fusion=1, **attrs), lambda res: res), **attrs)


def moe_cases():
    moe_case("moe_relu_top1", shape=(2, 3, 8))
    moe_case("moe_gelu_top2_normalized", k=2, act="gelu", normalize_routing_weights=1)
    moe_case("moe_silu_no_bias", k=2, act="silu", biases=False)
    moe_case("moe_identity_top3", k=3, act="identity")
    moe_case("moe_swiglu", k=2, act="swiglu", normalize_routing_weights=1)
    moe_case("moe_swiglu_alpha_beta_limit", k=2, act="swiglu", activation_alpha=1.702, activation_beta=1.0,
             swiglu_limit=0.8)
    moe_case("moe_swiglu_concatenated", k=2, act="swiglu", fusion=2, activation_alpha=1.702)
    moe_case("moe_swiglu_fc3", k=2, act="swiglu", fusion=0, shape=(2, 2, 8), swiglu_limit=1.0)


def moe_refusals():
    r = rng_for("moe_refusals")
    ins = [inp("input", randn(r, 3, 4)), inp("router_probs", randn(r, 3, 2)),
           inp("fc1_experts_weights", randn(r, 2, 5, 4)), None, inp("fc2_experts_weights", randn(r, 2, 4, 5))]
    refusal("moe_sparse_mixer", "MoE", ins, ["output"], ['"moe_sparse_mixer"', "'use_sparse_mixer'"],
            use_sparse_mixer=1, k=2)
    refusal("moe_geglu", "MoE", ins, ["output"], ['"moe_geglu"', "'activation_type'", "CUDA only"],
            activation_type="geglu")
    refusal("moe_fc3_relu", "MoE", ins + [None, inp("fc3_experts_weights", randn(r, 2, 5, 4))], ["output"],
            ['"moe_fc3_relu"', "fc3_experts_weights", "swiglu_fusion 0"])
    refusal("moe_k_above_experts", "MoE", ins, ["output"], ['"moe_k_above_experts"', "k 3 exceeds the 2 experts"],
            k=3)


# ---- QMoE ---------------------------------------------------------------------------------------------------------


def pack_codes(q, bits):
    """Codes q [..., K] (0 to 2^bits - 1) as rows of an LSB-first bitstream, ceil(K * bits / 8) bytes each."""
    k = q.shape[-1]
    out = np.zeros(q.shape[:-1] + ((k * bits + 7) // 8,), np.uint16)
    for j in range(k):
        bit = j * bits
        out[..., bit // 8] |= q[..., j].astype(np.uint16) << (bit % 8)
        if bit % 8 + bits > 8:
            out[..., bit // 8 + 1] |= q[..., j].astype(np.uint16) >> (8 - bit % 8)
    return (out & 255).astype(np.uint8)


def quantized(r, e, n, k, bits, block, zp, int3=False):
    """(codes, scales, zero points or None, dequantized float64 weights [e, n, k])."""
    q = r.integers(0, 1 << bits, (e, n, k))
    s = r.random((e, n, k // block) if block else (e, n)) * 0.6 / (1 << bits) + 0.02
    z = np.full(s.shape, 1 << (bits - 1)) if int3 or not zp else r.integers(0, 1 << bits, s.shape)
    rep = (lambda a: np.repeat(a, block, axis=-1)) if block else (lambda a: a[..., None])
    return q, s, (z if zp else None), (q - rep(z)) * rep(s)


def qmoe_case(name, shape=(7, 32), e=4, inter=32, k=2, act="relu", fusion=1, bits=4, bits1=None, bits2=None,
              block=0, zp=False, biases=True, router_weights=False, dt=np.float32, direct=True, group="llm_qmoe",
              **attrs):
    """direct: onnxruntime runs this node; otherwise (forms its CPU kernel refuses or computes otherwise: mixed
    widths, swiglu_fusion 0 and 2, normalize_routing_weights 0, which its CPU QMoE ignores, block-wise 8-bit with
    int8 activations) it runs its float MoE on the dequantized weights, swiglu interleaved."""
    r = rng_for(name)
    hidden = shape[-1]
    tokens = int(np.prod(shape[:-1]))
    x, router = randn(r, *shape, dtype=dt), (randn(r, tokens, e) * 2).astype(dt)
    b1_, b2_ = bits1 or bits, bits2 or bits
    int3 = bits == 3
    swiglu = act == "swiglu"
    two = swiglu and fusion != 0
    q1, s1, z1, w1 = quantized(r, e, 2 * inter if two else inter, hidden, b1_, block, zp, int3)
    q2, s2, z2, w2 = quantized(r, e, hidden, inter, b2_, block, zp, int3)
    bias1, bias2 = randn(r, e, 2 * inter if two else inter), randn(r, e, hidden)
    fc3 = swiglu and fusion == 0
    if fc3:
        q3, s3, z3, w3 = quantized(r, e, inter, hidden, b1_, block, zp, int3)
        bias3 = randn(r, e, inter)
    rw = r.random((tokens, e)).astype(dt) if router_weights else None
    cast = (lambda a: None if a is None else a.astype(dt))
    ins = [inp("input", x), inp("router_probs", router), const("fc1_experts_weights", pack_codes(q1, b1_)),
           const("fc1_scales", cast(s1)), inp("fc1_experts_bias", cast(bias1)) if biases else None,
           const("fc2_experts_weights", pack_codes(q2, b2_)), const("fc2_scales", cast(s2)),
           inp("fc2_experts_bias", cast(bias2)) if biases else None]
    ins += [const("fc3_experts_weights", pack_codes(q3, b1_)), const("fc3_scales", cast(s3)),
            inp("fc3_experts_bias", cast(bias3)) if biases else None] if fc3 else [None, None, None]
    ins += [const("fc1_zero_points", pack_codes(z1, b1_)) if z1 is not None else None,
            const("fc2_zero_points", pack_codes(z2, b2_)) if z2 is not None else None,
            const("fc3_zero_points", pack_codes(z3, b1_)) if fc3 and z3 is not None else None,
            inp("router_weights", rw) if router_weights else None]
    while ins[-1] is None:
        ins.pop()
    attrs.update(k=k, activation_type=act, expert_weight_bits=bits)
    if bits1:
        attrs["fc1_expert_weight_bits"] = bits1
    if bits2:
        attrs["fc2_expert_weight_bits"] = bits2
    if block:
        attrs["block_size"] = block
    if swiglu:
        attrs["swiglu_fusion"] = fusion
    if direct and dt.__name__ == "bfloat16":
        # onnxruntime's python API takes no bfloat16 arrays: its QMoE runs on the same values widened to float,
        # its result rounded to bfloat16
        wide = [None if i is None else (i[0], i[1].astype(np.float32) if i[1].dtype == dt else i[1], i[2])
                for i in ins]
        ref = Case(group, name, "QMoE", wide, ["output"], MS, None, None, **attrs)
        case(group, name, "QMoE", ins, ["output"], reference=lambda: [run_onnxruntime(ref)[0].astype(dt)], **attrs)
        return
    if direct:
        case(group, name, "QMoE", ins, ["output"], **attrs)
        return
    assert dt == np.float32 and not router_weights
    if swiglu and fusion == 2:
        g, l, bg, bl = w1[:, :inter], w1[:, inter:], bias1[:, :inter], bias1[:, inter:]
    elif fc3:
        g, l, bg, bl = w1, w3, bias1, bias3
    if swiglu and fusion != 1:
        w1 = np.stack([g, l], axis=2).reshape(e, 2 * inter, hidden)
        bias1 = np.stack([bg, bl], axis=2).reshape(e, 2 * inter)
    moe_attrs = {a: v for a, v in attrs.items() if a in ("k", "activation_type", "normalize_routing_weights",
                                                          "activation_alpha", "activation_beta", "swiglu_limit")}
    if swiglu:
        moe_attrs["swiglu_fusion"] = 1
    ref_ins = [inp("input", x), inp("router_probs", router), inp("fc1_experts_weights", w1.astype(np.float32)),
               inp("fc1_experts_bias", bias1) if biases else None, inp("fc2_experts_weights", w2.astype(np.float32)),
               inp("fc2_experts_bias", bias2) if biases else None]
    while ref_ins[-1] is None:
        ref_ins.pop()
    case(group, name, "QMoE", ins, ["output"], reference=("MoE", ref_ins, moe_attrs, lambda res: res), **attrs)


def qmoe_cases():
    qmoe_case("qmoe_4bit_channel_relu_top1", shape=(2, 3, 32), k=1, normalize_routing_weights=1)
    qmoe_case("qmoe_4bit_block_zp_swiglu", act="swiglu", block=16, zp=True, normalize_routing_weights=1)
    qmoe_case("qmoe_4bit_channel_zp_odd", shape=(5, 24), inter=18, zp=True, act="silu", normalize_routing_weights=1)
    qmoe_case("qmoe_8bit_channel_zp_silu", bits=8, zp=True, act="silu", normalize_routing_weights=1)
    # onnxruntime's CPU kernel runs block-wise 8-bit experts with block_size 32, 64 or 128 on int8-quantized
    # activations (measured: 0.2 to 0.6% off the exact dequantized
    # result): checked against its MoE on the dequantized weights
    qmoe_case("qmoe_8bit_block_gelu", bits=8, block=32, shape=(5, 64), act="gelu", k=3, direct=False,
              normalize_routing_weights=1)
    qmoe_case("qmoe_8bit_block16_zp", bits=8, block=16, zp=True, act="gelu", direct=False,
              normalize_routing_weights=1)
    qmoe_case("qmoe_2bit_block_zp_padded", bits=2, block=16, zp=True, act="identity", normalize_routing_weights=1)
    qmoe_case("qmoe_router_weights", router_weights=True, block=16, normalize_routing_weights=1)
    qmoe_case("qmoe_router_weights_unnormalized", router_weights=True, biases=False)
    qmoe_case("qmoe_swiglu_alpha_beta_limit", act="swiglu", bits=8, activation_alpha=1.702, activation_beta=1.0,
              swiglu_limit=0.8, normalize_routing_weights=1)
    qmoe_case("qmoe_unnormalized", k=2, direct=False)
    qmoe_case("qmoe_mixed_bits", bits=4, bits1=8, block=16, zp=True, direct=False, normalize_routing_weights=1)
    qmoe_case("qmoe_swiglu_concatenated", act="swiglu", fusion=2, block=16, direct=False,
              normalize_routing_weights=1)
    qmoe_case("qmoe_swiglu_fc3", act="swiglu", fusion=0, zp=True, direct=False, normalize_routing_weights=1)
    qmoe_case("qmoe_fp16_4bit_block", dt=np.float16, block=16, zp=True, group="llm_qmoe_fp16",
              normalize_routing_weights=1)
    qmoe_case("qmoe_fp16_3bit_swiglu", dt=np.float16, bits=3, block=32, act="swiglu", group="llm_qmoe_fp16",
              weights_prepacked=0, normalize_routing_weights=1)
    import ml_dtypes
    qmoe_case("qmoe_bf16_4bit_block_swiglu", dt=ml_dtypes.bfloat16, block=32, zp=True, act="swiglu",
              group="llm_qmoe_fp16", normalize_routing_weights=1)


def qmoe_refusals():
    r = rng_for("qmoe_refusals")
    q, s, _, _ = quantized(r, 2, 16, 16, 4, 0, False)
    ins = [inp("input", randn(r, 3, 16)), inp("router_probs", randn(r, 3, 2)),
           const("fc1_experts_weights", pack_codes(q, 4)), const("fc1_scales", s.astype(np.float32)), None,
           const("fc2_experts_weights", pack_codes(q, 4)), const("fc2_scales", s.astype(np.float32))]
    refusal("qmoe_fp4", "QMoE", ins, ["output"], ['"qmoe_fp4"', "'quant_type'", "only 'int'"], quant_type="fp4")
    refusal("qmoe_bits5", "QMoE", ins, ["output"], ['"qmoe_bits5"', "'expert_weight_bits'", "2, 3, 4 or 8"],
            expert_weight_bits=5)
    refusal("qmoe_block8", "QMoE", ins, ["output"], ['"qmoe_block8"', "'block_size'", "at least 16"], block_size=8)
    refusal("qmoe_sparse_mixer", "QMoE", ins, ["output"], ['"qmoe_sparse_mixer"', "'use_sparse_mixer'"],
            use_sparse_mixer=1)
    refusal("qmoe_no_scales", "QMoE", ins[:3] + [None, None] + ins[5:], ["output"],
            ['"qmoe_no_scales"', "fc1_scales is required"])
    refusal("qmoe_3bit_relu", "QMoE", ins, ["output"], ['"qmoe_3bit_relu"', "3-bit weights need activation_type"],
            expert_weight_bits=3)
    refusal("qmoe_bad_weight_shape", "QMoE", ins, ["output"],
            ['"qmoe_bad_weight_shape"', "fc1_experts_weights must be uint8 [2, 32, 4]"], expert_weight_bits=2)


# ---- MoEGroupRouter -----------------------------------------------------------------------------------------------


def router_case(name, shape=(5, 16), full=False, project=0, dt=np.float32, group="llm_moe", **attrs):
    r = rng_for(name)
    e = shape[-1] if not project else 8
    logits = (randn(r, shape[0], project, dtype=dt) * 0.1).astype(dt) if project else randn(r, *shape, dtype=dt)
    ins = [inp("logits", logits), inp("expert_bias", randn(r, e) * 0.2)]
    if project:
        ins.append(inp("projection_weight", randn(r, e, project, dtype=dt) * 0.1))
    outputs = ["", "selection_scores", "router_weights"] if full else ["router_probs"]
    case(group, name, "MoEGroupRouter", ins, outputs, **attrs)


def router_cases():
    router_case("router_groups", top_k=4, n_group=4, topk_group=2, group_topk=2)
    router_case("router_groups_3d", shape=(2, 3, 12), top_k=3, n_group=3, topk_group=2, group_topk=3,
                router_sentinel=-1e4)
    router_case("router_single_group", top_k=2)
    router_case("router_group_topk_clamped", top_k=5, n_group=2, topk_group=1, group_topk=50, router_sentinel=-3.0)
    router_case("router_full_scores", full=True, top_k=2)
    router_case("router_full_scores_projected", shape=(3,), full=True, project=256, top_k=2)
    router_case("router_fp16", dt=np.float16, group="llm_moe_fp16", top_k=4, n_group=4, topk_group=2)


def router_refusals():
    r = rng_for("router_refusals")
    ins = [inp("logits", randn(r, 2, 8)), inp("expert_bias", randn(r, 8))]
    refusal("router_full_with_groups", "MoEGroupRouter", ins, ["", "selection_scores", "router_weights"],
            ['"router_full_with_groups"', "n_group = topk_group = 1"], top_k=2, n_group=2)
    refusal("router_uneven_groups", "MoEGroupRouter", ins, ["router_probs"],
            ['"router_uneven_groups"', "8 experts do not split into n_group 3"], top_k=2, n_group=3)
    refusal("router_top_k_too_large", "MoEGroupRouter", ins, ["router_probs"],
            ['"router_top_k_too_large"', "top_k 5 exceeds the 4 experts"], top_k=5, n_group=4, topk_group=2)


# ---- SparseAttention ----------------------------------------------------------------------------------------------


def run_shared_buffers(c, shared):
    """Runs case c in onnxruntime with each (input, output) pair of `shared` bound to one buffer (its CPU kernel
    requires past and present to be the same memory); returns the outputs in c.outputs order."""
    import onnxruntime as ort
    model, feeds = build(c)
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    options.intra_op_num_threads = 1
    session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    binding = session.io_binding()
    buffers, keep = {}, []  # an OrtValue made from numpy borrows the array's memory: keep the arrays alive
    for name, array in feeds.items():
        if name in shared:
            keep.append(array.copy())
            buffers[shared[name]] = ort.OrtValue.ortvalue_from_numpy(keep[-1])
            binding.bind_ortvalue_input(name, buffers[shared[name]])
        else:
            binding.bind_cpu_input(name, array)
    for o in c.outputs:
        if o in buffers:
            binding.bind_ortvalue_output(o, buffers[o])
        elif o:
            binding.bind_output(o)
    session.run_with_iobinding(binding)
    outputs = binding.copy_outputs_to_cpu()
    plain = iter(o for o, name in zip(outputs, [o for o in c.outputs if o]) if name not in buffers)
    return [buffers[o].numpy().copy() if o in buffers else next(plain) for o in c.outputs if o]


def block_csr(masks):
    """CSR block_row_indices and block_col_indices (padded with -1) of block masks [L, n, n]."""
    rows, cols = [], []
    for m in masks:
        r, c = [0], []
        for line in m:
            c += [j for j, v in enumerate(line) if v]
            r.append(len(c))
        rows.append(r)
        cols.append(c)
    width = max(len(c) for c in cols)
    return (np.array(rows, np.int32), np.array([c + [-1] * (width - len(c)) for c in cols], np.int32))


def sparse_case(name, b=2, s=40, past=None, n=4, nkv=2, h=16, block=16, blocks=4, m=64, layouts="two", packed=False,
                rotary=0, dt=np.float32, group="llm_sparse", **attrs):
    """past: None for a prompt of s tokens, else the past lengths per batch entry (decoding s new tokens)."""
    r = rng_for(name)
    lens = np.array([s] * b if past is None else [p + s for p in past], np.int32)
    total = int(lens.max())
    dense = np.tril(np.ones((blocks, blocks), np.int32))
    local = dense.copy()
    for i in range(blocks):
        local[i, :max(0, i - 1)] = 0  # a sliding window of two blocks
    local[:, 0] = np.tril(np.ones(blocks, np.int32))[:, 0]  # plus the first block
    masks = {"dense": [dense], "two": [local, dense], "one_sparse": [local]}[layouts]
    rows, cols = block_csr(masks)
    q = randn(r, b, s, (n + 2 * nkv) * h if packed else n * h, dtype=dt)
    ins = [inp("query", q), None if packed else inp("key", randn(r, b, s, nkv * h, dtype=dt)),
           None if packed else inp("value", randn(r, b, s, nkv * h, dtype=dt)),
           inp("past_key", randn(r, b, nkv, m, h, dtype=dt)), inp("past_value", randn(r, b, nkv, m, h, dtype=dt)),
           inp("block_row_indices", rows), inp("block_col_indices", cols),
           inp("total_sequence_length", np.array(total, np.int32)), inp("key_total_sequence_lengths", lens)]
    if rotary:
        angles = r.uniform(0, 6.3, (m, rotary // 2))
        ins += [inp("cos_cache", np.cos(angles).astype(dt)), inp("sin_cache", np.sin(angles).astype(dt))]
        attrs["do_rotary"] = 1
    attrs.update(num_heads=n, kv_num_heads=nkv, sparse_block_size=block)
    c = Case(group, name, "SparseAttention", ins, ["output", "present_key", "present_value"], MS, None, None,
             **attrs)
    shared = {"past_key": "present_key", "past_value": "present_value"}

    def reference():
        if past is None or len(set(lens)) == 1:
            return run_shared_buffers(c, shared)
        # onnxruntime's CPU kernel reads the probabilities of a batch entry shorter than total_sequence_length at
        # another entry's offset (its two GEMM steps disagree on the row stride): each entry runs on its own.
        parts = []
        for i in range(b):
            whole = ("block_row_indices", "block_col_indices", "cos_cache", "sin_cache", "total_sequence_length")
            one = [None if x is None else (x[0], x[1] if x[0] in whole else x[1][i:i + 1], x[2]) for x in ins]
            one[7] = inp("total_sequence_length", np.array(lens[i], np.int32))
            parts.append(run_shared_buffers(Case(group, name, "SparseAttention", one, c.outputs, MS, None, None,
                                                 **attrs), shared))
        return [np.concatenate([p[j] for p in parts]) for j in range(3)]
    case(group, name, "SparseAttention", ins, ["output", "present_key", "present_value"], reference=reference,
         **attrs)


def sparse_cases():
    sparse_case("sparse_prompt")
    sparse_case("sparse_prompt_dense", layouts="dense", s=33)
    sparse_case("sparse_decode", s=1, past=[50, 50])
    sparse_case("sparse_decode_chunk", s=3, past=[45, 45], layouts="one_sparse", scale=0.2)
    sparse_case("sparse_packed", packed=True, s=1, past=[17, 17])
    sparse_case("sparse_rotary", rotary=16, s=1, past=[33, 33])
    sparse_case("sparse_rotary_interleaved_partial", rotary=16, rotary_interleaved=1, s=20, h=32)
    sparse_case("sparse_decode_ragged", s=1, past=[50, 37])
    sparse_case("sparse_packed_ragged", packed=True, s=2, past=[17, 60], layouts="one_sparse")
    sparse_case("sparse_mha", n=2, nkv=2, s=1, past=[40, 40], layouts="dense")
    sparse_case("sparse_fp16", dt=np.float16, group="llm_sparse_fp16", s=1, past=[50, 50])


def sparse_refusals():
    r = rng_for("sparse_refusals")
    rows, cols = block_csr([np.tril(np.ones((2, 2), np.int32))])
    base = [inp("query", randn(r, 1, 1, 32)), inp("key", randn(r, 1, 1, 16)), inp("value", randn(r, 1, 1, 16)),
            inp("past_key", randn(r, 1, 1, 32, 16)), inp("past_value", randn(r, 1, 1, 32, 16)),
            const("block_row_indices", rows)]
    refusal("sparse_bad_block_column", "SparseAttention",
            base + [const("block_col_indices", np.array([[0, 0, 5]], np.int32)),
                    const("total_sequence_length", np.array(5, np.int32)),
                    const("key_total_sequence_lengths", np.array([5], np.int32))],
            ["output", "present_key", "present_value"], ['"sparse_bad_block_column"', "block_col_indices[0, 2] = 5"],
            num_heads=2, kv_num_heads=1, sparse_block_size=16)
    refusal("sparse_total_beyond_mask", "SparseAttention",
            base + [const("block_col_indices", cols), const("total_sequence_length", np.array(40, np.int32)),
                    const("key_total_sequence_lengths", np.array([40], np.int32))],
            ["output", "present_key", "present_value"],
            ['"sparse_total_beyond_mask"', "total_sequence_length 40", "32 positions"], num_heads=2,
            kv_num_heads=1, sparse_block_size=16)
    refusal("sparse_length_beyond_total", "SparseAttention",
            base + [const("block_col_indices", cols), const("total_sequence_length", np.array(5, np.int32)),
                    const("key_total_sequence_lengths", np.array([9], np.int32))],
            ["output", "present_key", "present_value"],
            ['"sparse_length_beyond_total"', "key_total_sequence_lengths[0] = 9"], num_heads=2, kv_num_heads=1,
            sparse_block_size=16)


# ---- GatedDeltaNet ------------------------------------------------------------------------------------------------


def gdn_case(name, lengths=(3, 1, 4), hq=2, hv=4, dk=8, dv=6, rule="gated_delta", decay="head", init=True,
             form="ragged", gate="none", dt_bias=None, beta_sigmoid=False, dt=np.float32, gate_dt=None,
             group="llm_gated_delta", **attrs):
    """form: ragged (rank 3 with cu_seqlens), uniform (rank 3, batch from initial_state), rank4 ([B, S, H, D]),
    packed (packed QKV, rank 2)."""
    r = rng_for(name)
    b = len(lengths)
    tokens = int(sum(lengths))
    lead = (b, lengths[0]) if form == "rank4" else (tokens,)
    q, k, v = randn(r, *lead, hq, dk, dtype=dt), randn(r, *lead, hq, dk, dtype=dt), randn(r, *lead, hv, dv, dtype=dt)
    if not attrs.get("qk_l2_norm") and rule in ("delta", "gated_delta"):
        k = (k / np.linalg.norm(k.astype(np.float32), axis=-1, keepdims=True)).astype(dt)
    gdt = gate_dt or np.float32
    ins = [inp("query", np.concatenate([q.reshape(tokens, -1), k.reshape(tokens, -1), v.reshape(tokens, -1)], 1))
           if form == "packed" else inp("query", q), None if form == "packed" else inp("key", k),
           None if form == "packed" else inp("value", v),
           inp("cu_seqlens", np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)) if form == "ragged" else None]
    if rule in ("gated", "gated_delta"):
        shape = lead + ((hv, dk) if decay == "key" else (hv,))
        raw = randn(r, *shape) if gate != "none" else -np.abs(randn(r, *shape)) * 0.5
        ins.append(inp("decay", raw.astype(gdt)))
    else:
        ins.append(None)
    if rule in ("delta", "gated_delta"):
        rate = randn(r, *lead, hv) if beta_sigmoid else r.uniform(0.1, 0.9, lead + (hv,))
        ins.append(inp("beta", rate.astype(gdt)))
    else:
        ins.append(None)
    ins.append(inp("initial_state", randn(r, b, hv, dv, dk) * 0.3) if init else None)
    if gate != "none":
        ins.append(inp("a_log", randn(r, hv) * 0.5))
        ins.append(inp("dt_bias", randn(r, *dt_bias)) if dt_bias else None)
        attrs["gate_activation"] = gate
    if beta_sigmoid:
        attrs["beta_activation"] = "sigmoid"
    while ins[-1] is None:
        ins.pop()
    case(group, name, "GatedDeltaNet", ins, ["output", "final_state"], out_types={"final_state": np.float32},
         update_rule=rule, **attrs)


def gdn_cases():
    gdn_case("gdn_ragged")
    gdn_case("gdn_uniform_key_decay", lengths=(3, 3), decay="key")
    gdn_case("gdn_rank4_no_state", lengths=(4, 4), form="rank4", init=False)
    gdn_case("gdn_packed", lengths=(2, 2, 2), form="packed", hq=2, hv=2)
    gdn_case("gdn_softplus_sigmoid_beta_l2", gate="softplus", dt_bias=(4,), beta_sigmoid=True, qk_l2_norm=1)
    gdn_case("gdn_qwen_alias", gate="qwen", dt_bias=(4,), lengths=(2, 5))
    gdn_case("gdn_kda_per_key", gate="kda", decay="key", dt_bias=(4, 8), gate_lower_bound=-3.0)
    gdn_case("gdn_sigmoid_flat_key_bias", gate="sigmoid", decay="key", dt_bias=(32,))
    gdn_case("gdn_linear", rule="linear", scale=0.5)
    gdn_case("gdn_gated", rule="gated")
    gdn_case("gdn_delta", rule="delta", hq=2, hv=2)
    gdn_case("gdn_fp16", dt=np.float16, group="llm_gated_delta_fp16")
    gdn_case("gdn_fp16_gates_fp16", dt=np.float16, gate_dt=np.float16, gate="softplus", dt_bias=(4,),
             group="llm_gated_delta_fp16")


def gdn_refusals():
    r = rng_for("gdn_refusals")
    q = randn(r, 4, 2, 8)
    ins = [inp("query", q), inp("key", q), inp("value", randn(r, 4, 2, 8)),
           const("cu_seqlens", np.array([0, 4], np.int32)),
           inp("decay", randn(r, 4, 2)), inp("beta", randn(r, 4, 2))]
    refusal("gdn_state_update", "GatedDeltaNet", ins, ["output"], ['"gdn_state_update"', "'state_update_capacity'"],
            state_update_capacity=2)
    refusal("gdn_uneven_heads", "GatedDeltaNet", [inp("query", q), inp("key", q), inp("value", randn(r, 4, 3, 8)),
                                                  const("cu_seqlens", np.array([0, 4], np.int32))], ["output"],
            ['"gdn_uneven_heads"', "num_heads_v 3 must be a positive multiple of num_heads_q 2"], update_rule="linear")
    refusal("gdn_bad_offsets", "GatedDeltaNet", ins[:3] + [const("cu_seqlens", np.array([0, 5], np.int32))] + ins[4:],
            ["output"], ['"gdn_bad_offsets"', "cu_seqlens must rise from 0 to the token count 4"])
    refusal("gdn_key_bias_scalar_decay", "GatedDeltaNet",
            ins + [None, inp("a_log", randn(r, 2)), inp("dt_bias", randn(r, 2, 8))], ["output"],
            ['"gdn_key_bias_scalar_decay"', "needs the per-key-dimension decay"], gate_activation="softplus")
    refusal("gdn_gate_without_a_log", "GatedDeltaNet", ins, ["output"],
            ['"gdn_gate_without_a_log"', "a_log"], gate_activation="softplus")


def write_refusals(out_dir):
    folder = os.path.join(out_dir, "refused")
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    expected = {}
    for c, messages in REFUSALS:
        model, _ = build(c)
        for o in model.graph.output:
            o.type.tensor_type.elem_type = onnx.TensorProto.FLOAT
        onnx.save(model, os.path.join(folder, c.name + ".onnx"))
        expected[c.name] = messages
    with open(os.path.join(folder, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1)


def main():
    out_dir = sys.argv[1]
    only = set(sys.argv[2:])
    mha_shared_cases()
    dmmha_cases()
    gqa_window_cases()
    attention_refusals()
    mrope_cases()
    mrope_refusals()
    norm_gate_cases()
    norm_gate_refusals()
    mix_cases()
    mix_refusals()
    causal_conv_cases()
    causal_conv_refusals()
    linear_attention_cases()
    linear_attention_refusals()
    moe_cases()
    moe_refusals()
    qmoe_cases()
    qmoe_refusals()
    router_cases()
    router_refusals()
    sparse_cases()
    sparse_refusals()
    gdn_cases()
    gdn_refusals()
    os.makedirs(out_dir, exist_ok=True)
    if not only or "refused" in only:
        write_refusals(out_dir)
    counts = {}
    for c in CASES:
        if only and c.group not in only:
            continue
        write(c, out_dir)
        counts[c.group] = counts.get(c.group, 0) + 1
    print(", ".join(f"{g}: {n}" for g, n in sorted(counts.items())))


if __name__ == "__main__":
    main()
