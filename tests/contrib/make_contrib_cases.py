"""Writes ONNX backend test-case folders for onnxruntime's com.microsoft contrib operators.

    <test venv python> make_contrib_cases.py <output dir>

Each case is a one-node model built with onnx.helper for one operator and one combination of attributes and
optional inputs, with seeded inputs; its expected outputs are computed by onnxruntime (pinned in
scripts/test-requirements.txt; CPU execution provider, graph optimizations disabled). Cases land in
<output>/<group>/<case>/, one group per operator and precision, so that CTest can set a tolerance per group.
Needs onnx, onnxruntime and numpy; no torch.
"""

import os
import sys

import numpy as np
import onnx
from onnx import helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import case_writer  # noqa: E402  (the seeded generators, onnxruntime's session, the case folders)
from case_writer import randn, rng_for, value_info  # noqa: E402,F401  (used here and by make_fused_cases.py)

MS = "com.microsoft"
CASES = []


class Case:
    """One node. inputs: (name, array, is_initializer) or None for an omitted optional input; outputs: names, ""
    for an omitted optional output."""

    def __init__(self, group, name, op, inputs, outputs, domain=MS, out_types=None, reference=None, more_sets=(),
                 **attrs):
        self.group, self.name, self.op, self.domain = group, name, op, domain
        self.inputs, self.outputs, self.attrs = inputs, outputs, attrs
        self.out_types = out_types or {}
        self.reference = reference
        # Further test_data_sets: {input name: array} replacing inputs of the first. onnxscope's runner runs every
        # set of a case on one program, so a kernel's state kept between runs (prepared constant weights) is used
        # again with other inputs, and other shapes (its runner does not check them against the model's).
        self.more_sets = more_sets


def case(group, name, op, inputs, outputs, domain=MS, out_types=None, reference=None, more_sets=(), **attrs):
    """out_types: element types of outputs (numpy dtypes) by name; the default is float for mean and inv_std_var
    and the first input's type for the others. reference: other inputs of the same node whose outputs onnxruntime
    computes in its place, for a layout that its CPU provider does not run (packed Q/K/V run unpacked). more_sets:
    see Case."""
    CASES.append(Case(group, name, op, inputs, outputs, domain, out_types, reference, more_sets, **attrs))


def output_type(c, name):
    if name in c.out_types:
        return np.dtype(c.out_types[name])
    if name in ("mean", "inv_std_var"):
        return np.dtype(np.float32)
    return c.inputs[0][1].dtype


def inp(name, array):
    return (name, array, False)


def const(name, array):
    return (name, array, True)


def build(c):
    node_inputs, graph_inputs, inits, feeds = case_writer.node_inputs(c.inputs)
    node = helper.make_node(c.op, node_inputs, c.outputs, name=c.name, domain=c.domain, **c.attrs)
    outputs = [helper.make_tensor_value_info(o, helper.np_dtype_to_tensor_dtype(output_type(c, o)), None)
               for o in c.outputs if o]
    graph = helper.make_graph([node], c.name, graph_inputs, outputs, initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21), helper.make_opsetid(MS, 1)])
    model.ir_version = 10
    return model, feeds


def run_onnxruntime(c):
    model, feeds = build(c)
    return case_writer.run_model(model, feeds, [o for o in c.outputs if o])


def write(c, out_dir):
    model, feeds = build(c)
    names = [o for o in c.outputs if o]
    if c.name in EXPECTED:
        results = EXPECTED[c.name](c)
    elif c.reference is None:
        results = run_onnxruntime(c)
    else:
        results = run_onnxruntime(Case(c.group, c.name, c.op, c.reference, c.outputs, c.domain, c.out_types,
                                       **c.attrs))
    case_dir = os.path.join(out_dir, c.group, c.name)
    case_writer.save_case(case_dir, model, feeds, names, results, case_writer.no_non_finite)
    for set_index, replaced in enumerate(c.more_sets, 1):
        inputs = [i if i is None or i[0] not in replaced else (i[0], replaced[i[0]], i[2]) for i in c.inputs]
        other = Case(c.group, c.name, c.op, inputs, c.outputs, c.domain, c.out_types, **c.attrs)
        _, other_feeds = build(other)
        set_dir = os.path.join(case_dir, f"test_data_set_{set_index}")
        os.makedirs(set_dir)
        case_writer.save_inputs(set_dir, model, other_feeds)
        for index, (n, r) in enumerate(zip(names, run_onnxruntime(other))):
            onnx.save_tensor(numpy_helper.from_array(np.asarray(r), n), os.path.join(set_dir, f"output_{index}.pb"))


# ---- layer normalisations ------------------------------------------------------------------------------------


def norm_cases():
    for dt, suffix in ((np.float32, ""), (np.float16, "_fp16")):
        g = "norms" + suffix
        for variant in ("plain", "beta", "bias", "beta_bias", "all_outputs", "skip_broadcast", "skip_2d", "rank2"):
            name = f"skip_layer_norm_{variant}{suffix}"
            r = rng_for(name)
            shape = (4, 8) if variant == "rank2" else (2, 3, 16)
            h = shape[-1]
            x = randn(r, *shape, dtype=dt)
            skip_shape = {"skip_broadcast": (1, 3, h), "skip_2d": (3, h)}.get(variant, shape)
            skip = randn(r, *skip_shape, dtype=dt)
            gamma = randn(r, h, dtype=dt)
            beta = randn(r, h, dtype=dt) if "beta" in variant or variant in ("all_outputs", "skip_2d") else None
            bias = randn(r, h, dtype=dt) if "bias" in variant or variant == "all_outputs" else None
            ins = [inp("input", x), inp("skip", skip), inp("gamma", gamma),
                   inp("beta", beta) if beta is not None else None, inp("bias", bias) if bias is not None else None]
            while ins[-1] is None:
                ins.pop()
            outs = ["output"]
            if variant == "all_outputs":
                outs = ["output", "mean", "inv_std_var", "input_skip_bias_sum"]
            elif variant in ("bias", "skip_broadcast"):
                outs = ["output", "", "", "input_skip_bias_sum"]
            attrs = {"epsilon": 1e-5} if variant in ("beta", "all_outputs") else {}
            case(g, name, "SkipLayerNormalization", ins, outs, **attrs)
        for variant in ("plain", "bias", "all_outputs", "skip_broadcast", "rank2"):
            name = f"skip_simplified_layer_norm_{variant}{suffix}"
            r = rng_for(name)
            shape = (4, 8) if variant == "rank2" else (2, 3, 16)
            h = shape[-1]
            x = randn(r, *shape, dtype=dt)
            skip = randn(r, *((1, 3, h) if variant == "skip_broadcast" else shape), dtype=dt)
            ins = [inp("input", x), inp("skip", skip), inp("gamma", randn(r, h, dtype=dt))]
            if variant in ("bias", "all_outputs"):
                ins.append(inp("bias", randn(r, h, dtype=dt)))
            outs = ["output", "mean", "inv_std_var", "input_skip_bias_sum"] if variant == "all_outputs" else (
                ["output", "", "", "input_skip_bias_sum"] if variant == "skip_broadcast" else ["output"])
            attrs = {"epsilon": 1e-6} if variant == "all_outputs" else {}
            case(g, name, "SkipSimplifiedLayerNormalization", ins, outs, **attrs)
        for variant, shape, attrs, outs in (("plain", (2, 3, 16), {}, ["Y"]),
                                            ("inv_std", (2, 3, 16), {"epsilon": 1e-6}, ["Y", "inv_std_var"]),
                                            ("axis1", (2, 3, 8), {"axis": 1}, ["Y", "inv_std_var"]),
                                            ("rank2", (5, 32), {"axis": -1, "stash_type": 1}, ["Y"])):
            name = f"simplified_layer_norm_{variant}{suffix}"
            r = rng_for(name)
            x = randn(r, *shape, dtype=dt)
            axis = attrs.get("axis", -1)
            scale = randn(r, *shape[axis:], dtype=dt)
            case(g, name, "SimplifiedLayerNormalization", [inp("X", x), inp("scale", scale)], outs, domain="",
                 **attrs)


def gelu_cases():
    for dt, suffix in ((np.float32, ""), (np.float16, "_fp16")):
        g = "gelu" + suffix
        r = rng_for("gelu" + suffix)
        x = randn(r, 2, 3, 16, dtype=dt) * np.asarray(2, dtype=dt)
        b = randn(r, 16, dtype=dt)
        if dt == np.float32:
            case(g, "gelu" + suffix, "Gelu", [inp("X", x)], ["Y"])
            case(g, "bias_gelu" + suffix, "BiasGelu", [inp("A", x), inp("B", b)], ["C"])
            case(g, "quick_gelu" + suffix, "QuickGelu", [inp("X", x)], ["Y"])
            case(g, "quick_gelu_alpha" + suffix, "QuickGelu", [inp("X", x)], ["Y"], alpha=1.2)
        case(g, "fast_gelu" + suffix, "FastGelu", [inp("X", x)], ["Y"])
        case(g, "fast_gelu_bias" + suffix, "FastGelu", [inp("X", x), inp("bias", b)], ["Y"])


# ---- MatMulNBits ---------------------------------------------------------------------------------------------


def matmul_nbits_case(group, name, bits, k, n, block, a_shape, zp=None, bias=False, g_idx=False, dt=np.float32,
                      accuracy_level=None, more_shapes=()):
    """more_shapes: A's leading dimensions in further test_data_sets (other rows of A, other kernel paths)."""
    r = rng_for(name)
    k_blocks = (k + block - 1) // block
    blob = block * bits // 8
    b = r.integers(0, 256, (n, k_blocks, blob), dtype=np.uint8)
    scales = (r.random((n, k_blocks)) * 0.1 + 0.01).astype(dt)
    a = randn(r, *a_shape, k, dtype=dt)
    ins = [inp("A", a), const("B", b), const("scales", scales.reshape(-1) if name.endswith("flat") else scales)]
    if zp == "packed":
        ins.append(const("zero_points", r.integers(0, 256, (n, (k_blocks * bits + 7) // 8), dtype=np.uint8)))
    elif zp == "float":
        ins.append(const("zero_points", r.integers(0, 1 << bits, (n, k_blocks)).astype(dt)))
    else:
        ins.append(None)
    ins.append(const("g_idx", r.permutation(np.arange(k, dtype=np.int32) // block).astype(np.int32)) if g_idx else None)
    ins.append(const("bias", randn(r, n, dtype=dt)) if bias else None)
    while ins[-1] is None:
        ins.pop()
    attrs = {"K": k, "N": n, "bits": bits, "block_size": block}
    if accuracy_level is not None:
        attrs["accuracy_level"] = accuracy_level
    more_sets = [{"A": randn(r, *shape, k, dtype=dt)} for shape in more_shapes]
    case(group, name, "MatMulNBits", ins, ["Y"], more_sets=more_sets, **attrs)


def matmul_nbits_cases():
    for bits in (4, 8):
        g = "matmul_nbits"
        matmul_nbits_case(g, f"mnb{bits}_plain", bits, 64, 24, 32, (2, 3))
        matmul_nbits_case(g, f"mnb{bits}_plain_flat", bits, 64, 24, 16, (5,))
        matmul_nbits_case(g, f"mnb{bits}_zp_packed", bits, 48, 20, 16, (1, 4), zp="packed")
        if bits == 4:
            matmul_nbits_case(g, f"mnb{bits}_zp_float", bits, 64, 16, 16, (3,), zp="float")
        matmul_nbits_case(g, f"mnb{bits}_bias", bits, 128, 8, 64, (2, 2), zp="packed", bias=True)
        matmul_nbits_case(g, f"mnb{bits}_k_tail", bits, 40, 12, 16, (3,), zp="packed")
        # g_idx: onnxruntime's CPU provider takes it with 2 and 4 bits only, and with 4 bits it drops packed zero
        # points (it uses 8), so these cases go without zero points or with float ones.
        if bits == 4:
            matmul_nbits_case(g, f"mnb{bits}_gidx", bits, 64, 8, 16, (2,), g_idx=True)
            matmul_nbits_case(g, f"mnb{bits}_gidx_zp_float", bits, 64, 8, 16, (2,), zp="float", g_idx=True)
        matmul_nbits_case(g, f"mnb{bits}_accuracy1", bits, 64, 8, 32, (2,), accuracy_level=1)
        matmul_nbits_case(g, f"mnb{bits}_decode", bits, 256, 32, 32, (1, 1), zp="packed", bias=True)
        matmul_nbits_case("matmul_nbits_fp16", f"mnb{bits}_fp16", bits, 64, 24, 32, (2, 3), dt=np.float16)
    # accuracy_level 4: onnxruntime quantizes A to int8 per block (where its CPU has the kernel).
    for bits, block, zp, dt in ((4, 32, "packed", np.float32), (4, 16, None, np.float32), (4, 128, "packed", np.float16),
                                (8, 32, "packed", np.float32), (8, 64, None, np.float16), (2, 32, "packed", np.float32),
                                (2, 16, None, np.float32), (4, 32, "float", np.float32)):
        matmul_nbits_case("matmul_nbits_int8", f"mnb{bits}_acc4_b{block}_{zp}_{np.dtype(dt).name}", bits, 256, 16,
                          block, (3,), zp=zp, dt=dt, accuracy_level=4)
    matmul_nbits_case("matmul_nbits_int8", "mnb4_acc4_k_tail", 4, 200, 16, 32, (2, 2), zp="packed", accuracy_level=4)
    # Either side of the kernel's few-rows path (at most 64 rows of A), with more columns than one chunk of 256.
    # Further sets run the same kernel (its prepared scales and zero points) on other rows: 1 and 3 (straight from the
    # codes), 16 (the panel), 80 (the general product).
    matmul_nbits_case("matmul_nbits", "mnb4_rows64_wide", 4, 64, 300, 32, (4, 16), zp="packed", bias=True,
                      more_shapes=[(1, 1), (1, 3), (2, 40)])
    matmul_nbits_case("matmul_nbits", "mnb4_rows80_wide", 4, 64, 300, 32, (2, 40), zp="packed", bias=True,
                      more_shapes=[(16,), (1,)])
    matmul_nbits_case("matmul_nbits_int8", "mnb4_acc4_rows80", 4, 128, 40, 32, (80,), zp="packed", accuracy_level=4,
                      more_shapes=[(2,), (16,)])
    matmul_nbits_case("matmul_nbits", "mnb2_plain", 2, 64, 12, 16, (3,))
    matmul_nbits_case("matmul_nbits", "mnb2_zp_packed", 2, 80, 12, 16, (3,), zp="packed", bias=True)
    for bits in (4, 8):
        if bits == 4:  # onnxruntime's CPU provider refuses 8-bit weights with float zero points
            matmul_nbits_case("matmul_nbits_fp16", f"mnb{bits}_zp_float_fp16", bits, 64, 16, 16, (3,), zp="float",
                              dt=np.float16)


# ---- RotaryEmbedding ------------------------------------------------------------------------------------------


def rotary_caches(max_pos, half, dt, base=10000.0):
    inv = 1.0 / base ** (np.arange(half, dtype=np.float64) / half)
    angles = np.outer(np.arange(max_pos, dtype=np.float64), inv)
    return np.cos(angles).astype(dt), np.sin(angles).astype(dt)


def rotary_cases():
    for dt, suffix in ((np.float32, ""), (np.float16, "_fp16")):
        g = "rotary" + suffix
        for variant, shape, attrs, pos_kind in (
                ("bsh", (2, 5, 32), {"num_heads": 4}, "2d"),
                ("bsh_no_heads", (2, 5, 32), {}, "2d"),
                ("bsh_interleaved", (2, 5, 32), {"num_heads": 4, "interleaved": 1}, "2d"),
                ("bsh_offset", (2, 5, 32), {"num_heads": 4}, "1d"),
                ("bsh_scalar_offset", (1, 3, 32), {}, "scalar"),
                ("bnsh", (2, 4, 5, 8), {}, "2d"),
                ("bnsh_interleaved_offset", (2, 4, 5, 8), {"interleaved": 1}, "1d"),
                ("partial", (2, 5, 64), {"num_heads": 4, "rotary_embedding_dim": 8}, "2d"),
                ("partial_interleaved", (1, 3, 64), {"num_heads": 2, "rotary_embedding_dim": 16, "interleaved": 1},
                 "1d"),
                ("scale_packed_attrs", (2, 5, 32), {"num_heads": 4, "scale": 0.5, "is_packed_batching": 1}, "2d")):
            name = f"rotary_{variant}{suffix}"
            r = rng_for(name)
            x = randn(r, *shape, dtype=dt)
            if len(shape) == 4:
                head = shape[3]
            else:
                head = shape[2] // attrs.get("num_heads", 4)
            rd = attrs.get("rotary_embedding_dim", head)
            cos, sin = rotary_caches(16, rd // 2, dt)
            b, s = shape[0], shape[2] if len(shape) == 4 else shape[1]
            if pos_kind == "2d":
                pos = r.integers(0, 16, (b, s)).astype(np.int64)
            elif pos_kind == "1d":
                pos = np.array([7], dtype=np.int64)
            else:
                pos = np.array(4, dtype=np.int64)
            case(g, name, "RotaryEmbedding", [inp("input", x), inp("position_ids", pos), inp("cos_cache", cos),
                                              inp("sin_cache", sin)], ["output"], **attrs)


# ---- GroupQueryAttention ------------------------------------------------------------------------------------


def gqa_case(name, b=2, s=5, n=4, nk=2, h=8, past=0, seqlens=None, total=None, packed=False, rotary=None,
             position_ids=False, bias=None, head_sink=False, qk_norm=False, dt=np.float32, group="gqa", **attrs):
    """past: rows of the past buffer (0: none); seqlens: total length per batch entry (default past + s);
    rotary: None, "full" or "partial" (cos/sin caches, do_rotary=1)."""
    r = rng_for(name)
    seqlens = seqlens or [past + s] * b
    total = total or max(seqlens)
    if packed:
        ins = [inp("query", randn(r, b, s, (n + 2 * nk) * h, dtype=dt)), None, None]
    else:
        ins = [inp("query", randn(r, b, s, n * h, dtype=dt)), inp("key", randn(r, b, s, nk * h, dtype=dt)),
               inp("value", randn(r, b, s, nk * h, dtype=dt))]
    if past:
        ins += [inp("past_key", randn(r, b, nk, past, h, dtype=dt)), inp("past_value", randn(r, b, nk, past, h, dtype=dt))]
    else:
        ins += [None, None]
    ins += [inp("seqlens_k", np.array(seqlens, dtype=np.int32) - 1), inp("total_sequence_length",
                                                                         np.array(total, dtype=np.int32))]
    if rotary:
        half = h // 2 if rotary == "full" else h // 4
        cos, sin = rotary_caches(32, half, dt)
        ins += [inp("cos_cache", cos), inp("sin_cache", sin)]
        attrs["do_rotary"] = 1
    else:
        ins += [None, None]
    ins.append(inp("position_ids", r.integers(0, 32, (b, s)).astype(np.int64)) if position_ids else None)
    if bias:
        ins.append(inp("attention_bias", randn(r, b if bias == "full" else 1, n if bias == "full" else 1, s, total,
                                               dtype=dt)))
    else:
        ins.append(None)
    ins.append(inp("head_sink", randn(r, n, dtype=dt)) if head_sink else None)
    ins += [None, None]
    if qk_norm:
        ins += [inp("q_norm_weight", randn(r, h, dtype=dt)), inp("k_norm_weight", randn(r, h, dtype=dt))]
    while ins[-1] is None:
        ins.pop()
    case(group, name, "GroupQueryAttention", ins, ["output", "present_key", "present_value"], num_heads=n,
         kv_num_heads=nk, **attrs)


def gqa_cases():
    gqa_case("gqa_prompt")
    gqa_case("gqa_prompt_padded", seqlens=[5, 3])
    gqa_case("gqa_prompt_mqa", n=4, nk=1)
    gqa_case("gqa_prompt_mha", n=2, nk=2, h=16)
    gqa_case("gqa_decode", s=1, past=5, seqlens=[6, 4])
    gqa_case("gqa_decode_shared_buffer", s=1, past=8, seqlens=[6, 3])
    gqa_case("gqa_decode_total_bound", s=1, past=5, seqlens=[6, 6], total=6)
    gqa_case("gqa_chunked_prompt", b=1, s=3, past=4, seqlens=[7])
    gqa_case("gqa_packed_prompt", packed=True)
    gqa_case("gqa_packed_decode", s=1, past=4, packed=True, seqlens=[5, 3])
    # onnxruntime's rotary embedding in GroupQueryAttention wants a head size that is a multiple of 16.
    gqa_case("gqa_rotary_prompt", rotary="full", h=16)
    gqa_case("gqa_rotary_interleaved", rotary="full", rotary_interleaved=1, h=16)
    gqa_case("gqa_rotary_decode", s=1, past=6, rotary="full", seqlens=[7, 5], h=16)
    gqa_case("gqa_rotary_partial", rotary="partial", h=32)
    gqa_case("gqa_rotary_packed_decode", s=1, past=3, packed=True, rotary="full", rotary_interleaved=1, h=16)
    gqa_case("gqa_rotary_position_ids", rotary="full", position_ids=True, h=16)
    gqa_case("gqa_rotary_chunked", b=1, s=4, past=5, seqlens=[9], rotary="full", h=16)
    gqa_case("gqa_rotary_prompt_padded", seqlens=[5, 2], rotary="full", h=16)
    gqa_case("gqa_local_window_prompt", s=7, local_window_size=2)
    gqa_case("gqa_local_window_decode", s=1, past=7, seqlens=[8, 6], local_window_size=3)
    gqa_case("gqa_softcap", softcap=2.0)
    gqa_case("gqa_scale", scale=0.2)
    gqa_case("gqa_softcap_scale_decode", s=1, past=4, softcap=3.0, scale=0.5)
    gqa_case("gqa_bias_broadcast", bias="broadcast")
    gqa_case("gqa_bias_full_decode", s=1, past=4, bias="full")
    gqa_case("gqa_smooth_softmax", smooth_softmax=1)
    gqa_case("gqa_head_sink", head_sink=True)
    gqa_case("gqa_non_causal", causal=0)
    gqa_case("gqa_rotary_position_ids_decode", s=1, past=5, seqlens=[6, 4], rotary="full", position_ids=True, h=16)
    gqa_case("gqa_prompt_fp16", dt=np.float16, group="gqa_fp16")
    gqa_case("gqa_rotary_decode_fp16", s=1, past=6, rotary="full", seqlens=[7, 5], h=16, dt=np.float16,
             group="gqa_fp16")
    gqa_case("gqa_packed_rotary_fp16", packed=True, rotary="full", h=16, dt=np.float16, group="gqa_fp16")


# ---- MultiHeadAttention --------------------------------------------------------------------------------------


def mha_case(name, b=2, s=4, l=None, n=2, h=8, hv=None, form="separate", bias=False, mask=None, past=0,
             attn_bias=None, dt=np.float32, group="mha", outputs=("output",), **attrs):
    """form: separate (3-D Q, K, V), packed_qkv, packed_kv, bnsh_kv (K and V in heads). mask: None, "lengths",
    "start_end", "2d", "3d"."""
    r = rng_for(name)
    l = l or s
    hv = hv or h
    reference = None
    if form == "packed_qkv":
        qkv = randn(r, b, s, n, 3, h, dtype=dt)
        ins = [inp("query", qkv), None, None]
        reference = [inp("query", qkv[:, :, :, 0].reshape(b, s, n * h)),
                     inp("key", qkv[:, :, :, 1].reshape(b, s, n * h)), inp("value", qkv[:, :, :, 2].reshape(b, s, n * h))]
    elif form == "packed_kv":
        query, kv = randn(r, b, s, n * h, dtype=dt), randn(r, b, l, n, 2, h, dtype=dt)
        ins = [inp("query", query), inp("key", kv), None]
        reference = [inp("query", query), inp("key", kv[:, :, :, 0].reshape(b, l, n * h)),
                     inp("value", kv[:, :, :, 1].reshape(b, l, n * h))]
    elif form == "bnsh_kv":
        ins = [inp("query", randn(r, b, s, n * h, dtype=dt)), inp("key", randn(r, b, n, l, h, dtype=dt)),
               inp("value", randn(r, b, n, l, hv, dtype=dt))]
    else:
        ins = [inp("query", randn(r, b, s, n * h, dtype=dt)), inp("key", randn(r, b, l, n * h, dtype=dt)),
               inp("value", randn(r, b, l, n * hv, dtype=dt))]
    ins.append(inp("bias", randn(r, 2 * n * h + n * hv, dtype=dt)) if bias else None)
    t = past + l
    if mask == "lengths":
        ins.append(inp("key_padding_mask", np.array([t, t - 2][:b], dtype=np.int32)))
    elif mask == "start_end":
        ins.append(inp("key_padding_mask", np.array([t, t - 1, 1, 0][:2 * b], dtype=np.int32)))
    elif mask == "2d":
        m = np.ones((b, t), dtype=np.int32)
        m[-1, -2:] = 0
        m[0, 0] = 0
        ins.append(inp("key_padding_mask", m))
    elif mask == "3d":
        ins.append(inp("key_padding_mask", r.integers(0, 2, (b, s, t)).astype(np.int32)))
    else:
        ins.append(None)
    if attn_bias:
        ins.append(inp("attention_bias", randn(r, b if attn_bias == "full" else 1, n if attn_bias == "full" else 1,
                                               s, t, dtype=dt)))
    else:
        ins.append(None)
    if past:
        ins += [inp("past_key", randn(r, b, n, past, h, dtype=dt)), inp("past_value", randn(r, b, n, past, hv, dtype=dt))]
    while ins[-1] is None:
        ins.pop()
    if reference:
        reference += ins[3:]
    case(group, name, "MultiHeadAttention", ins, list(outputs), num_heads=n, reference=reference, **attrs)


def mha_cases():
    mha_case("mha_self")
    mha_case("mha_cross", s=3, l=6, hv=4)
    mha_case("mha_bias", bias=True)
    mha_case("mha_packed_qkv", form="packed_qkv")
    mha_case("mha_packed_qkv_mask", form="packed_qkv", mask="2d")
    mha_case("mha_packed_kv", form="packed_kv", l=5)
    mha_case("mha_packed_kv_bias", form="packed_kv", l=5, bias=True)
    mha_case("mha_bnsh_kv", form="bnsh_kv", l=6)
    mha_case("mha_mask_lengths", mask="lengths")
    mha_case("mha_mask_2d", mask="2d", bias=True)
    mha_case("mha_mask_3d", mask="3d")
    mha_case("mha_attention_bias", attn_bias="broadcast")
    mha_case("mha_attention_bias_full_mask", attn_bias="full", mask="2d")
    mha_case("mha_unidirectional", unidirectional=1)
    mha_case("mha_scale_filter", scale=0.3, mask="2d", mask_filter_value=-50.0)
    mha_case("mha_past", s=1, past=5, bias=True, outputs=("output", "present_key", "present_value"))
    mha_case("mha_past_unidirectional_mask", s=3, past=4, mask="2d", unidirectional=1,
             outputs=("output", "present_key", "present_value"))
    mha_case("mha_present_no_past", outputs=("output", "present_key", "present_value"))
    mha_case("mha_self_fp16", dt=np.float16, group="mha_fp16", bias=True, mask="2d")
    mha_case("mha_past_fp16", s=1, past=5, dt=np.float16, group="mha_fp16",
             outputs=("output", "present_key", "present_value"))


# ---- Attention ----------------------------------------------------------------------------------------------


def attention_case(name, b=2, s=4, din=16, n=2, sizes=(16, 16, 16), bias=True, mask=None, past=0, attn_bias=None,
                   dt=np.float32, group="attention", present=False, **attrs):
    r = rng_for(name)
    width = sum(sizes)
    ins = [inp("input", randn(r, b, s, din, dtype=dt)), inp("weights", (randn(r, din, width) * 0.3).astype(dt)),
           inp("bias", randn(r, width, dtype=dt)) if bias else None]
    t = past + s
    if mask == "lengths":
        ins.append(inp("mask_index", np.array([t, t - 2][:b], dtype=np.int32)))
    elif mask == "start_end":
        ins.append(inp("mask_index", np.array([t, t - 1, 1, 0][:2 * b], dtype=np.int32)))
    elif mask == "2d":
        m = np.ones((b, t), dtype=np.int32)
        m[-1, -2:] = 0
        ins.append(inp("mask_index", m))
    elif mask == "2d_all_masked":
        m = np.ones((b, t), dtype=np.int32)
        m[-1, :] = 0
        ins.append(inp("mask_index", m))
    elif mask == "3d":
        ins.append(inp("mask_index", r.integers(0, 2, (b, s, t)).astype(np.int32)))
    else:
        ins.append(None)
    ins.append(inp("past", randn(r, 2, b, n, past, sizes[0] // n, dtype=dt)) if past else None)
    if attn_bias:
        ins.append(inp("attention_bias", randn(r, b if attn_bias == "full" else 1, n if attn_bias == "full" else 1,
                                               s, t, dtype=dt)))
    while ins[-1] is None:
        ins.pop()
    explicit = attrs.pop("explicit_sizes", False)
    if tuple(sizes) != (width // 3,) * 3 or explicit:
        attrs["qkv_hidden_sizes"] = list(sizes)
    case(group, name, "Attention", ins, ["output", "present"] if present or past else ["output"], num_heads=n,
         **attrs)


def attention_shared_case(name, s, past, rows=8, b=2, din=16, n=2):
    """past_present_share_buffer = 1: past is a buffer of `rows` rows, the first `past` valid
    (past_sequence_length). onnxruntime 1.32's CPU Attention refuses every such node, so the expected outputs are its
    unshared Attention's over the valid rows: the same output, and present = the buffer with rows past .. past + s - 1
    replaced by the new rows of its present."""
    r = rng_for(name)
    h = din // n
    x, w, bias = randn(r, b, s, din), randn(r, din, 3 * din) * 0.3, randn(r, 3 * din)
    mask = np.ones((b, past + s), dtype=np.int32)
    mask[-1, :2] = 0
    buffer = randn(r, 2, b, n, rows, h)
    ins = [inp("input", x), inp("weights", w), inp("bias", bias), inp("mask_index", mask), inp("past", buffer), None,
           inp("past_sequence_length", np.array([past], dtype=np.int32))]
    unshared = [inp("input", x), inp("weights", w), inp("bias", bias), inp("mask_index", mask),
                inp("past", np.ascontiguousarray(buffer[:, :, :, :past]))]

    def expected(c):
        output, present = run_onnxruntime(Case(c.group, c.name, c.op, unshared, c.outputs, c.domain, num_heads=n,
                                               unidirectional=1))
        full = buffer.copy()
        full[:, :, :, past:past + s] = present[:, :, :, past:]
        return [output, full]

    EXPECTED[name] = expected
    case("attention", name, "Attention", ins, ["output", "present"], num_heads=n, unidirectional=1,
         past_present_share_buffer=1)


EXPECTED = {}  # case name: function of the case giving its expected outputs, where onnxruntime cannot run it


def attention_cases():
    attention_case("attention_plain")
    attention_case("attention_no_bias", bias=False)
    attention_case("attention_qkv_sizes", sizes=(16, 16, 8), explicit_sizes=True)
    attention_case("attention_mask_lengths", mask="lengths")
    attention_case("attention_mask_start_end", mask="start_end")
    attention_case("attention_mask_2d", mask="2d")
    attention_case("attention_mask_2d_all_masked", mask="2d_all_masked")
    attention_case("attention_mask_3d", mask="3d")
    attention_case("attention_unidirectional", unidirectional=1)
    attention_case("attention_unidirectional_mask", unidirectional=1, mask="2d")
    attention_case("attention_scale_filter", scale=0.25, mask="2d", mask_filter_value=-30.0)
    attention_case("attention_bias_broadcast", attn_bias="broadcast")
    attention_case("attention_bias_full", attn_bias="full", mask="lengths")
    attention_case("attention_present", present=True, unidirectional=1)
    attention_case("attention_past_decode", s=1, past=5, unidirectional=1, mask="2d")
    attention_case("attention_past_prompt", s=3, past=4, unidirectional=1)
    attention_case("attention_fp16", dt=np.float16, group="attention_fp16", mask="2d")
    attention_case("attention_past_fp16", s=1, past=5, unidirectional=1, dt=np.float16, group="attention_fp16")
    attention_shared_case("attention_shared_buffer_decode", s=1, past=5)
    attention_shared_case("attention_shared_buffer_prompt", s=3, past=2)
    attention_shared_case("attention_shared_buffer_first", s=4, past=0)


# ---- EmbedLayerNormalization ----------------------------------------------------------------------------------


def embed_case(name, b=2, s=5, h=16, segments=True, mask=False, position_ids=None, beta=True, outputs=None,
               dt=np.float32, group="embed", **attrs):
    r = rng_for(name)
    ins = [inp("input_ids", r.integers(0, 30, (b, s)).astype(np.int32)),
           inp("segment_ids", r.integers(0, 2, (b, s)).astype(np.int32)) if segments else None,
           inp("word_embedding", randn(r, 30, h, dtype=dt)), inp("position_embedding", randn(r, 16, h, dtype=dt)),
           inp("segment_embedding", randn(r, 2, h, dtype=dt)) if segments else None,
           inp("gamma", randn(r, h, dtype=dt)), inp("beta", randn(r, h, dtype=dt)) if beta else None]
    if mask:
        m = np.ones((b, s), dtype=np.int32)
        m[-1, -2:] = 0
        ins.append(inp("mask", m))
    else:
        ins.append(None)
    if position_ids == "full":
        ins.append(inp("position_ids", r.integers(0, 16, (b, s)).astype(np.int32)))
    elif position_ids == "shared":
        ins.append(inp("position_ids", r.integers(0, 16, (1, s)).astype(np.int32)))
    while ins[-1] is None:
        ins.pop()
    outputs = outputs or ["output", "mask_index"]
    case(group, name, "EmbedLayerNormalization", ins, outputs, out_types={"mask_index": np.int32, "output": dt,
                                                                           "embedding_sum": dt}, **attrs)


def embed_cases():
    embed_case("embed_plain")
    embed_case("embed_no_segments", segments=False)
    embed_case("embed_mask", mask=True)
    embed_case("embed_mask_sum", mask=True, outputs=["output", "mask_index", "embedding_sum"], epsilon=1e-5)
    embed_case("embed_position_ids", position_ids="full", outputs=["output", "", "embedding_sum"])
    embed_case("embed_position_ids_shared", position_ids="shared", mask=True)
    embed_case("embed_fp16", dt=np.float16, group="embed_fp16", mask=True,
               outputs=["output", "mask_index", "embedding_sum"])


# ---- GatherBlockQuantized -------------------------------------------------------------------------------------


def gbq_case(name, kind, shape, block=16, gather_axis=0, quantize_axis=1, bits=4, zp=True, indices=None,
             dt=np.float32, group="gather_block_quantized", broadcast_scale=False):
    import ml_dtypes
    r = rng_for(name)
    logical = list(shape)
    qa = quantize_axis % len(shape)
    scale_shape = list(logical)
    scale_shape[qa] = (logical[qa] + block - 1) // block if block else 1
    scales = (r.random(scale_shape) * 0.2 + 0.05).astype(dt)
    if kind == "float8":
        if block == 0:
            scale_shape[qa] = 1
        if broadcast_scale:
            scale_shape = [1 if d != qa else n for d, n in enumerate(scale_shape)]
        scales = (r.random(scale_shape) * 0.2 + 0.05).astype(dt)
        data = r.standard_normal(logical).astype(ml_dtypes.float8_e4m3fn)
        zero = None
    elif kind in ("int4", "uint4"):
        lo, hi = (-8, 8) if kind == "int4" else (0, 16)
        np_type = ml_dtypes.int4 if kind == "int4" else ml_dtypes.uint4
        data = r.integers(lo, hi, logical).astype(np_type)
        zero = r.integers(lo, hi, scale_shape).astype(np_type) if zp else None
    else:
        per = 8 // bits
        packed = list(logical)
        packed[-1] //= per
        data = r.integers(0, 256, packed, dtype=np.uint8)
        zshape = list(scale_shape)
        zshape[-1] = (zshape[-1] + per - 1) // per
        zero = r.integers(0, 256, zshape, dtype=np.uint8) if zp else None
    axis_len = logical[gather_axis % len(shape)]
    idx = indices if indices is not None else r.integers(-axis_len, axis_len, (2, 3)).astype(np.int64)
    ins = [const("data", data), inp("indices", idx), const("scales", scales)]
    if zero is not None:
        ins.append(const("zero_points", zero))
    attrs = {"block_size": block, "gather_axis": gather_axis, "quantize_axis": quantize_axis}
    if kind == "uint8":
        attrs["bits"] = bits
    case(group, name, "GatherBlockQuantized", ins, ["output"], out_types={"output": dt},
         **attrs)


def gbq_cases():
    gbq_case("gbq_int4", "int4", (8, 32))
    gbq_case("gbq_int4_no_zp", "int4", (8, 32), zp=False)
    gbq_case("gbq_uint4", "uint4", (6, 48), block=16)
    gbq_case("gbq_uint4_gather1_quant0", "uint4", (32, 5), gather_axis=1, quantize_axis=0)
    gbq_case("gbq_int4_rank3", "int4", (3, 4, 32), gather_axis=1, quantize_axis=2, indices=np.array([3, -1, 0],
                                                                                                    dtype=np.int32))
    gbq_case("gbq_uint8_4bit", "uint8", (10, 64), block=32, bits=4)
    gbq_case("gbq_uint8_4bit_no_zp", "uint8", (10, 64), block=32, bits=4, zp=False)
    gbq_case("gbq_uint8_8bit", "uint8", (10, 32), block=16, bits=8)
    gbq_case("gbq_uint8_2bit", "uint8", (7, 64), block=16, bits=2)
    gbq_case("gbq_uint8_quant_last_neg", "uint8", (10, 64), block=16, bits=4, quantize_axis=-1)
    gbq_case("gbq_out_of_range", "int4", (8, 32), indices=np.array([[0, 9], [-9, 7]], dtype=np.int64))
    gbq_case("gbq_float8", "float8", (8, 32))
    gbq_case("gbq_float8_whole_axis", "float8", (8, 32), block=0)
    gbq_case("gbq_float8_broadcast_scale", "float8", (8, 32), broadcast_scale=True)
    gbq_case("gbq_int4_fp16", "int4", (8, 32), dt=np.float16, group="gather_block_quantized_fp16")
    gbq_case("gbq_uint8_fp16", "uint8", (10, 64), block=32, bits=4, dt=np.float16, group="gather_block_quantized_fp16")


# ---- DynamicQuantizeMatMul, MatMulIntegerToFloat -------------------------------------------------------------


def qint(r, dtype, *shape):
    return r.integers(-128, 128, shape).astype(np.int8) if dtype == np.int8 else r.integers(0, 256, shape).astype(
        np.uint8)


def quant_matmul_cases():
    g = "quantized_matmul"
    for bt in (np.int8, np.uint8):
        t = np.dtype(bt).name
        for variant in ("plain", "zp_scalar", "per_column", "bias", "batched"):
            name = f"dqmm_{t}_{variant}"
            r = rng_for(name)
            a = randn(r, *((2, 3, 16) if variant == "batched" else (4, 16)))
            b = qint(r, bt, 16, 8)
            ins = [inp("A", a), const("B", b)]
            per = variant in ("per_column", "bias")
            ins.append(const("b_scale", (r.random(8 if per else ()) * 0.05 + 0.01).astype(np.float32)))
            if variant != "plain":
                ins.append(const("b_zero_point", qint(r, bt, 8) if per else qint(r, bt)))
            if variant == "bias":
                ins.append(const("bias", randn(r, 8)))
            case(g, name, "DynamicQuantizeMatMul", ins, ["Y"])
    for at, bt in ((np.uint8, np.int8), (np.uint8, np.uint8), (np.int8, np.int8)):
        for variant in ("plain", "zero_points", "per_column_bias", "batched", "fp16"):
            name = f"mmitf_{np.dtype(at).name}_{np.dtype(bt).name}_{variant}"
            r = rng_for(name)
            st = np.float16 if variant == "fp16" else np.float32
            a = qint(r, at, *((2, 3, 16) if variant == "batched" else (4, 16)))
            per = variant in ("per_column_bias", "fp16")
            ins = [inp("A", a), const("B", qint(r, bt, 16, 8)), const("a_scale", np.array(0.02, dtype=st)),
                   const("b_scale", (r.random(8 if per else ()) * 0.05 + 0.01).astype(st))]
            if variant != "plain":
                ins += [const("a_zero_point", qint(r, at)), const("b_zero_point", qint(r, bt, 8) if per else qint(r, bt))]
            if per:
                ins.append(const("bias", randn(r, 8, dtype=st)))
            case(g + ("_fp16" if variant == "fp16" else ""), name, "MatMulIntegerToFloat", ins, ["Y"],
                 out_types={"Y": st})


# ---- Refusals ---------------------------------------------------------------------------------------------------
# Attribute values and input layouts that the kernels do not implement: onnxscope-cli run must exit 1 with an error
# naming the node, the attribute or input, and what is supported (check_refusals.py). Not run by onnxruntime.

REFUSALS = []


def refusal(name, op, inputs, outputs, expected, **attrs):
    """expected: substrings of the error message."""
    REFUSALS.append((Case("refused", name, op, inputs, outputs, MS, None, None, **attrs), expected))


def refusal_cases():
    r = rng_for("refusals")
    a = randn(r, 2, 32)
    nbits = [inp("A", a), const("B", np.zeros((4, 2, 8), np.uint8)), const("scales", np.ones((4, 2), np.float32))]
    refusal("matmul_nbits_bits3", "MatMulNBits", nbits, ["Y"],
            ['"matmul_nbits_bits3"', "'bits'", "2, 4 and 8"], K=32, N=4, bits=3, block_size=16)
    refusal("matmul_nbits_prepacked", "MatMulNBits", nbits, ["Y"],
            ['"matmul_nbits_prepacked"', "'weight_prepacked'", "only 0"], K=32, N=4, bits=4, block_size=16,
            weight_prepacked=1)
    refusal("matmul_nbits_block8", "MatMulNBits", nbits, ["Y"], ['"matmul_nbits_block8"', "'block_size'"], K=32, N=4,
            bits=4, block_size=8)
    q, kv = randn(r, 1, 2, 32), randn(r, 1, 2, 16)
    gqa = [inp("query", q), inp("key", kv), inp("value", kv), None, None,
           inp("seqlens_k", np.array([1], np.int32)), inp("total_sequence_length", np.array(2, np.int32))]
    refusal("gqa_quantized_cache", "GroupQueryAttention", gqa, ["output"],
            ['"gqa_quantized_cache"', "'k_quant_type'", "NONE"], num_heads=2, kv_num_heads=1, k_quant_type="PER_TENSOR")
    refusal("gqa_sliding_window_cache_no_window", "GroupQueryAttention", gqa, ["output"],
            ['"gqa_sliding_window_cache_no_window"', "'sliding_window_cache'", "local_window_size > 0"], num_heads=2,
            kv_num_heads=1, sliding_window_cache=1)
    small = randn(r, 1, 1, 2, 16)
    refusal("gqa_sliding_window_cache_small", "GroupQueryAttention",
            gqa[:3] + [inp("past_key", small), inp("past_value", small)] + gqa[5:], ["output"],
            ['"gqa_sliding_window_cache_small"', "capacity 2", "smaller than local_window_size 3"], num_heads=2,
            kv_num_heads=1, sliding_window_cache=1, local_window_size=3)
    # a right-padded first prompt, which onnxruntime refuses with a window-sized cache too
    refusal("gqa_sliding_window_cache_padded", "GroupQueryAttention",
            [inp("query", randn(r, 2, 3, 32)), inp("key", randn(r, 2, 3, 16)), inp("value", randn(r, 2, 3, 16)),
             inp("past_key", randn(r, 2, 1, 4, 16)), inp("past_value", randn(r, 2, 1, 4, 16)),
             const("seqlens_k", np.array([2, 1], np.int32)), const("total_sequence_length", np.array(3, np.int32))],
            ["output"], ['"gqa_sliding_window_cache_padded"', "seqlens_k[1] = 1", "does not fit sequence length 3"],
            num_heads=2, kv_num_heads=1, sliding_window_cache=1, local_window_size=2)
    refusal("gqa_qk_output", "GroupQueryAttention", gqa, ["output"], ['"gqa_qk_output"', "'qk_output'", "only 0"],
            num_heads=2, kv_num_heads=1, qk_output=1)
    refusal("gqa_qk_norm", "GroupQueryAttention",
            gqa + [None] * 7 + [inp("q_norm_weight", np.ones(16, np.float32)),
                                inp("k_norm_weight", np.ones(16, np.float32))], ["output"],
            ['"gqa_qk_norm"', "q_norm_weight", "not supported"], num_heads=2, kv_num_heads=1)
    att = [inp("input", randn(r, 1, 3, 8)), inp("weights", randn(r, 8, 24)), inp("bias", randn(r, 24))]
    refusal("attention_mask_4d", "Attention", att + [inp("mask_index", np.ones((1, 1, 3, 3), np.int32))], ["output"],
            ['"attention_mask_4d"', "mask_index", "[B] key lengths", "4-D"], num_heads=2)
    refusal("attention_mask_3b2", "Attention", att + [inp("mask_index", np.ones(5, np.int32))], ["output"],
            ['"attention_mask_3b2"', "mask_index", "[3B + 2]"], num_heads=2)
    refusal("attention_rotary", "Attention", att, ["output"], ['"attention_rotary"', "'do_rotary'", "only 0"],
            num_heads=2, do_rotary=1)
    refusal("attention_shared_buffer", "Attention", att, ["output"],
            ['"attention_shared_buffer"', "past_present_share_buffer = 1 needs past", "past_sequence_length"],
            num_heads=2,
            past_present_share_buffer=1)
    mq = randn(r, 1, 3, 8)
    refusal("mha_cache_indirection", "MultiHeadAttention",
            [inp("query", mq), inp("key", mq), inp("value", mq)] + [None] * 6
            + [inp("cache_indirection", np.zeros((1, 1, 3), np.int32))], ["output"],
            ['"mha_cache_indirection"', "cache_indirection", "needs past_sequence_length"], num_heads=2)
    refusal("gbq_bits3", "GatherBlockQuantized",
            [const("data", np.zeros((4, 16), np.uint8)), inp("indices", np.array([0], np.int64)),
             const("scales", np.ones((4, 1), np.float32))], ["output"], ['"gbq_bits3"', "'bits'", "2, 4 and 8"],
            bits=3, block_size=16)


def write_refusals(out_dir):
    case_writer.save_refusals(out_dir, REFUSALS, build, float_outputs=True)


def main():
    norm_cases()
    gelu_cases()
    matmul_nbits_cases()
    rotary_cases()
    gqa_cases()
    mha_cases()
    attention_cases()
    embed_cases()
    gbq_cases()
    quant_matmul_cases()
    refusal_cases()
    case_writer.generate(sys.argv, CASES, write, {"refused": write_refusals})


if __name__ == "__main__":
    main()
