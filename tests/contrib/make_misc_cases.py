"""Writes ONNX backend test-case folders for the rest of onnxruntime's com.microsoft CPU operators (issue #41, "the
rest of the list"): ScaledSiLU, BifurcationDetector, CropAndResize, WordConvEmbedding, MaxpoolWithMask,
ConvTransposeWithDynamicPads, NGramHashMapping, VarlenNGramHashMapping, GatherPacked, and the ai.onnx.ml
TreeEnsembleClassifier and TreeEnsembleRegressor at ai.onnx.ml 5 (a lenient rule).

    <test venv python> make_misc_cases.py <output dir> [group ...]

Each case is a one-node model for one operator and one combination of attributes and optional inputs, with seeded
inputs; the expected outputs are onnxruntime's (pinned in scripts/test-requirements.txt; CPU provider, graph
optimizations disabled, one thread). Cases land in <output>/<group>/<case>/, one group per operator and precision.
Models that must be refused land in <output>/refused with the substrings their error must hold (check_refusals.py).
Needs onnx, onnxruntime and numpy; no torch.
"""

import json
import os
import sys

import numpy as np
import onnx
from onnx import helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import case_writer  # noqa: E402  (the seeded generators, onnxruntime's session, the case folders)
import make_contrib_cases as base  # noqa: E402  (the one-node Case and its model)
from case_writer import randn, rng_for  # noqa: E402

MS = "com.microsoft"
CASES = []
REFUSALS = []
inp, const = base.inp, base.const


def one_node(case_group, name, op, inputs, outputs, domain, out_types, attrs, kind=base.Case):
    c = kind(case_group, name, op, inputs, outputs, domain, out_types)
    c.attrs = attrs  # set here: an attribute may be called "group"
    return c


def case(case_group, name, op, inputs, outputs, out_types=None, **attrs):
    CASES.append(one_node(case_group, name, op, inputs, outputs, MS, out_types, attrs))


def refusal(name, op, inputs, outputs, expected, out_types=None, **attrs):
    REFUSALS.append((one_node("refused", name, op, inputs, outputs, MS, out_types or {"Y": np.float32}, attrs),
                     expected))


def write(c, out_dir):
    if isinstance(c, SparseCase):
        write_sparse(c, out_dir)
        return
    if isinstance(c, TreeCase):
        write_tree(c, out_dir)
        return
    model, feeds = base.build(c)
    names = [o for o in c.outputs if o]
    results = case_writer.run_model(model, feeds, names)
    case_writer.save_case(os.path.join(out_dir, c.group, c.name), model, feeds, names, results, case_writer.no_nan)


def write_refusals(out_dir):
    case_writer.save_refusals(out_dir, REFUSALS, base.build)
    folder = os.path.join(out_dir, "refused")
    with open(os.path.join(folder, "expected.json")) as f:
        expected = json.load(f)
    for name, model, messages in SPARSE_REFUSALS:
        onnx.save(model, os.path.join(folder, name + ".onnx"))
        expected[name] = messages
    with open(os.path.join(folder, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1)


# ---- ScaledSiLU ------------------------------------------------------------------------------------------------------

def scaled_silu_cases():
    r = rng_for("scaled_silu")
    x = randn(r, 2, 3, 7) * 3
    case("scaled_silu", "scaled_silu_default", "ScaledSiLU", [inp("X", x)], ["Y"])
    case("scaled_silu", "scaled_silu_alpha", "ScaledSiLU", [inp("X", x)], ["Y"], alpha=1.702)
    case("scaled_silu", "scaled_silu_scale_input", "ScaledSiLU", [inp("X", x), inp("scale", np.array(0.6, np.float32))],
         ["Y"], alpha=3.0)
    case("scaled_silu", "scaled_silu_scale_fp16", "ScaledSiLU",
         [inp("X", x), const("scale", np.array(-1.25, np.float16))], ["Y"])
    h = x.astype(np.float16)
    case("scaled_silu_fp16", "scaled_silu_fp16_alpha", "ScaledSiLU", [inp("X", h)], ["Y"], alpha=1.702)
    case("scaled_silu_fp16", "scaled_silu_fp16_scale", "ScaledSiLU",
         [inp("X", h), inp("scale", np.array(0.37, np.float32))], ["Y"])


# ---- AttnLSTM --------------------------------------------------------------------------------------------------------

def attn_lstm_case(name, direction="forward", aw=True, seq_lens=True, mem_lens=True, states=True, peephole=True,
                   bias=True, dt=np.float32, outputs=("Y", "Y_h", "Y_c"), s=4, b=2, i=3, h=5, tm=6, dm=4, am=7, aws=3,
                   group="attn_lstm", **attrs):
    r = rng_for(name)
    d = 2 if direction == "bidirectional" else 1
    f = lambda *shape: (randn(r, *shape) * 0.5).astype(dt)  # noqa: E731
    a = aws if aw else dm
    ins = [inp("X", f(s, b, i)), inp("W", f(d, 4 * h, i + a)), inp("R", f(d, 4 * h, h)),
           inp("B", f(d, 8 * h)) if bias else None,
           inp("sequence_lens", np.array([s] + [max(1, s - 1 - k) for k in range(b - 1)], np.int32))
           if seq_lens else None,
           inp("initial_h", f(d, b, h)) if states else None, inp("initial_c", f(d, b, h)) if states else None,
           inp("P", f(d, 3 * h)) if peephole else None, inp("QW", f(d, h, am)), inp("MW", f(d, dm, am)),
           inp("V", f(d, am)), inp("M", f(b, tm, dm)),
           inp("memory_seq_lens", np.array([tm] + [max(1, tm - 2 - k) for k in range(b - 1)], np.int32))
           if mem_lens else None, inp("AW", f(d, dm + h, aws)) if aw else None]
    while ins[-1] is None:
        ins.pop()
    case(group, name, "AttnLSTM", ins, list(outputs), hidden_size=h, direction=direction, **attrs)


def attn_lstm_cases():
    attn_lstm_case("attn_lstm_forward_aw")
    attn_lstm_case("attn_lstm_no_aw", aw=False)
    attn_lstm_case("attn_lstm_bidirectional", direction="bidirectional")
    attn_lstm_case("attn_lstm_reverse_minimal", direction="reverse", aw=False, seq_lens=False, mem_lens=False,
                   states=False, peephole=False, bias=False)
    attn_lstm_case("attn_lstm_input_forget_clip", input_forget=1, clip=0.7)
    attn_lstm_case("attn_lstm_activations", direction="bidirectional",
                   activations=["HardSigmoid", "Tanh", "Softsign", "Sigmoid", "LeakyRelu", "Tanh"],
                   activation_alpha=[0.3, 0.2], activation_beta=[0.4])
    attn_lstm_case("attn_lstm_y_h_only", outputs=("", "Y_h"))


# ---- BifurcationDetector ---------------------------------------------------------------------------------------------

def bifurcation_cases():
    i64 = lambda *v: np.array(v, np.int64)  # noqa: E731
    src = i64(5, 8, 2, 9, 4, 8, 2, 7, 3, 1)

    def bif(name, cur, prev, pred=None, **attrs):
        inputs = [inp("src_tokens", src), inp("cur_tokens", cur), inp("prev_suffix_match_idx", i64(prev))]
        if pred is not None:
            inputs.append(inp("pred_tokens", pred))
        case("bifurcation", name, "BifurcationDetector", inputs, ["tokens", "suffix_match_idx"], **attrs)

    bif("bif_no_pred", i64(1, 9, 4), 0)
    bif("bif_no_pred_repeated", i64(1, 8, 2), 0)  # "8 2" stands twice in src: no match
    # prev 6: pred_tokens has 10 + 1 - 6 = 5 tokens; src[6:] = 2 7 3 1
    bif("bif_pred_partial", i64(0, 4, 8), 6, i64(2, 7, 6, 6, 6))
    bif("bif_pred_all", i64(0, 4, 8), 6, i64(2, 7, 3, 1, 11))
    bif("bif_pred_first_differs", i64(0, 4), 6, i64(9, 7, 3, 1, 11))
    bif("bif_pred_prev_zero", i64(3), 0, i64(5, 8, 2, 0, 0, 0, 0, 0, 0, 0, 0))
    bif("bif_pred_prev_end", i64(3, 1), 10, i64(6))
    bif("bif_ngram_2_4", i64(4, 8, 2), 0, min_ngram_size=2, max_ngram_size=4)
    bif("bif_ngram_1_1", i64(6, 9), 0, min_ngram_size=1, max_ngram_size=1)
    bif("bif_suffix_at_end", i64(3, 1), 0)


# ---- CropAndResize ---------------------------------------------------------------------------------------------------

def crop_and_resize_cases():
    r = rng_for("crop_and_resize")
    x = randn(r, 2, 3, 7, 9)
    rois = np.array([[0.1, 0.2, 0.8, 0.9], [0.0, 0.0, 1.0, 1.0], [0.7, 0.6, 0.2, 0.1], [-0.3, 0.4, 1.2, 1.5],
                     [0.33, 0.25, 0.33, 0.75]], np.float32)
    batch = np.array([0, 1, 1, 0, 1], np.int32)

    def crop(name, size, **attrs):
        case("crop_and_resize", name, "CropAndResize",
             [inp("X", x), inp("rois", rois), inp("batch_indices", batch),
              const("crop_size", np.array(size, np.int32))],
             ["Y"], **attrs)

    crop("crop_bilinear", [4, 5])
    crop("crop_nearest", [4, 5], mode="nearest")
    crop("crop_extrapolation", [6, 3], extrapolation_value=-2.5)
    crop("crop_single_row", [1, 4])
    crop("crop_single_pixel", [1, 1], mode="nearest")
    crop("crop_upsample", [11, 13], mode="bilinear")


# ---- WordConvEmbedding -----------------------------------------------------------------------------------------------

def word_conv_cases():
    r = rng_for("word_conv_embedding")
    # Words of 1 to 8 characters (ids > 0), padded with 0; one with a 0 inside (its length counts the ids > 0 and its
    # first characters are read). Every word has a first id > 0: onnxruntime leaves the output row of an empty word
    # unwritten.
    seq = np.zeros((6, 8), np.int32)
    for s, n in enumerate([3, 1, 8, 5, 2, 6]):
        seq[s, :n] = r.integers(1, 30, n)
    seq[5, 2] = 0
    table = randn(r, 30, 5)

    def wce(name, filters, window, **attrs):
        w = randn(r, filters, 1, window, 5) * 0.5
        case("word_conv", name, "WordConvEmbedding",
             [inp("Sequence", seq), const("W", w), const("B", randn(r, filters)), const("C", table)], ["Y"],
             out_types={"Y": np.float32}, **attrs)

    wce("wce_window3", 4, 3)
    wce("wce_window1", 3, 1)
    wce("wce_window5_attrs", 6, 5, embedding_size=6, conv_window_size=5, char_embedding_size=5)
    wce("wce_window8", 2, 8)


# ---- MaxpoolWithMask -------------------------------------------------------------------------------------------------

def maxpool_with_mask_cases():
    r = rng_for("maxpool_with_mask")

    def mask(*spatial, zeros=0.2):
        return (r.random((1, 1) + spatial) >= zeros).astype(np.int32)

    def mpm(name, x, m, **attrs):
        case("maxpool_with_mask", name, "MaxpoolWithMask", [inp("X", x), inp("M", m)], ["Y"], **attrs)

    mpm("mpm_1d", randn(r, 2, 3, 11), mask(11), kernel_shape=[3], strides=[2])
    mpm("mpm_1d_pads", randn(r, 1, 2, 9), mask(9), kernel_shape=[4], pads=[1, 2])
    mpm("mpm_2d", randn(r, 2, 3, 6, 7), mask(6, 7), kernel_shape=[2, 3])
    mpm("mpm_2d_strides_pads", randn(r, 1, 4, 8, 8), mask(8, 8), kernel_shape=[3, 3], strides=[2, 2],
        pads=[1, 1, 1, 1])
    mpm("mpm_2d_same_upper", randn(r, 1, 2, 5, 6), mask(5, 6), kernel_shape=[2, 2], strides=[2, 2],
        auto_pad="SAME_UPPER")
    mpm("mpm_2d_all_ones", randn(r, 1, 2, 5, 5), mask(5, 5, zeros=0.0), kernel_shape=[3, 3], storage_order=1)
    mpm("mpm_3d", randn(r, 1, 2, 4, 5, 6), mask(4, 5, 6), kernel_shape=[2, 2, 3], strides=[1, 2, 2])


# ---- ConvTransposeWithDynamicPads ---------------------------------------------------------------------------------

def conv_transpose_dynamic_pads_cases():
    r = rng_for("conv_transpose_dynamic_pads")

    def ctd(name, x, w, pads, bias=False, **attrs):
        inputs = [inp("X", x), const("W", w), inp("Pads", np.array(pads, np.int64)) if pads is not None else None]
        if bias:
            inputs.append(const("B", randn(r, w.shape[1] * attrs.get("group", 1))))
        case("conv_transpose_dynamic_pads", name, "ConvTransposeWithDynamicPads", inputs, ["Y"], **attrs)

    ctd("ctd_2d", randn(r, 2, 3, 5, 6), randn(r, 3, 4, 3, 3), [1, 0, 1, 2])
    ctd("ctd_2d_bias_strides", randn(r, 1, 4, 4, 5), randn(r, 4, 2, 3, 2), [0, 1, 2, 0], bias=True, strides=[2, 3])
    ctd("ctd_2d_group_dilations", randn(r, 1, 6, 5, 5), randn(r, 6, 2, 2, 3), [1, 1, 0, 1], bias=True, group=3,
        dilations=[2, 1], output_padding=[1, 0], strides=[2, 2])
    ctd("ctd_1d", randn(r, 2, 3, 9), randn(r, 3, 2, 4), [2, 1], strides=[3])
    ctd("ctd_3d", randn(r, 1, 2, 3, 4, 3), randn(r, 2, 2, 2, 3, 2), [1, 0, 1, 0, 1, 0], bias=True, strides=[1, 2, 1])
    ctd("ctd_kernel_shape_attr", randn(r, 1, 2, 4, 4), randn(r, 2, 3, 3, 3), [1, 1, 1, 1], kernel_shape=[3, 3])


# ---- NGramHashMapping -----------------------------------------------------------------------------------------------

def ngram_hash_cases():
    r = rng_for("ngram_hash_mapping")
    names = ["input_ids", "multipliers", "vocab_sizes", "past_ids", "head_offsets", "eos_token_id", "segment_ids"]

    def ngh(name, values, max_n=4, heads=2, pad=5, outputs=("hash_ids", "present_ids"), **attrs):
        inputs = [None if values.get(n) is None else inp(n, values[n]) for n in names]
        while inputs[-1] is None:
            inputs.pop()
        case("ngram_hash", name, "NGramHashMapping", inputs, list(outputs), max_ngram_size=max_n,
             n_head_per_ngram=heads, pad_id=pad, **attrs)

    for dt, tag in ((np.int64, "i64"), (np.int32, "i32")):
        ids = r.integers(0, 1000, (2, 7)).astype(dt)
        mult = np.array([2**30 + 1, -(2**29) - 3, 999999937, -7], dt)
        vocab = np.array([97, 101, 103, 107, 109, 113], dt)
        base_values = {"input_ids": ids, "multipliers": mult, "vocab_sizes": vocab}
        past = r.integers(0, 1000, (2, 3)).astype(dt)
        eos_ids = ids.copy()
        eos_ids[0, 2] = eos_ids[1, 5] = 9
        past_eos = past.copy()
        past_eos[1, 1] = 9
        seg = np.array([[0, 0, 0, 1, 1, 1, 1], [0, 1, 1, 1, 2, 2, 2]], np.int32)
        eos = np.array(9, dt)
        ngh(f"ngh_{tag}_plain", base_values)
        ngh(f"ngh_{tag}_past", dict(base_values, past_ids=past))
        ngh(f"ngh_{tag}_offsets", dict(base_values, head_offsets=np.arange(6).astype(dt) * 1000))
        ngh(f"ngh_{tag}_eos_fill", dict(base_values, input_ids=eos_ids, eos_token_id=eos))
        ngh(f"ngh_{tag}_eos_reset", dict(base_values, input_ids=eos_ids, eos_token_id=eos), reset_on_eos=1)
        ngh(f"ngh_{tag}_eos_reset_past", dict(base_values, input_ids=eos_ids, eos_token_id=eos, past_ids=past_eos),
            reset_on_eos=1)
        ngh(f"ngh_{tag}_segments", dict(base_values, segment_ids=seg, past_ids=past))
        ngh(f"ngh_{tag}_segments_eos", dict(base_values, input_ids=eos_ids, segment_ids=seg, eos_token_id=eos),
            reset_on_eos=1)
    ids = r.integers(0, 50000, (1, 9)).astype(np.int64)
    ngh("ngh_n2_one_head_no_present",
        {"input_ids": ids, "multipliers": np.array([3, 5, 7], np.int64), "vocab_sizes": np.array([1009], np.int64)},
        max_n=2, heads=1, outputs=("hash_ids",))
    ngh("ngh_n5_three_heads",
        {"input_ids": ids, "multipliers": r.integers(1, 2**40, 6) | 1, "vocab_sizes": r.integers(50, 5000, 12)},
        max_n=5, heads=3, pad=0)


def varlen_ngram_hash_cases():
    r = rng_for("varlen_ngram_hash_mapping")
    names = ["input_ids", "multipliers", "vocab_sizes", "cumulative_sequence_length", "past_ids", "head_offsets",
             "eos_token_id", "segment_ids", "past_segment_ids", "capture_count"]

    def vngh(name, values, max_n=4, heads=2, pad=5, capacity=0, **attrs):
        inputs = [None if values.get(n) is None else inp(n, values[n]) for n in names]
        while inputs[-1] is None:
            inputs.pop()
        outputs = ["hash_ids", "present_ids", "present_segment_ids" if "segment_ids" in values else "",
                   "state_update" if capacity else ""]
        while not outputs[-1]:
            outputs.pop()
        dt = values["input_ids"].dtype
        types = {"hash_ids": dt, "present_ids": dt, "present_segment_ids": np.int32, "state_update": dt}
        case("varlen_ngram_hash", name, "VarlenNGramHashMapping", inputs, outputs, out_types=types,
             max_ngram_size=max_n, n_head_per_ngram=heads, pad_id=pad, state_update_capacity=capacity, **attrs)

    for dt, tag in ((np.int64, "i64"), (np.int32, "i32")):
        ids = r.integers(0, 1000, 12).astype(dt)
        ids[2] = ids[8] = 9
        values = {"input_ids": ids, "multipliers": np.array([2**30 + 1, -(2**29) - 3, 999999937, -7], dt),
                  "vocab_sizes": np.array([97, 101, 103, 107, 109, 113], dt),
                  "cumulative_sequence_length": np.array([0, 5, 6, 12], np.int32)}
        past = r.integers(0, 1000, (3, 3)).astype(dt)
        past[1, 1] = 9
        seg = np.array([0, 0, 1, 1, 1, 4, 2, 2, 2, 3, 3, 3], np.int32)
        past_seg = np.array([[0, 0, 0], [3, 4, 4], [1, 2, 2]], np.int32)
        eos = np.array(9, dt)
        vngh(f"vngh_{tag}_plain", values)
        vngh(f"vngh_{tag}_past_offsets", dict(values, past_ids=past, head_offsets=np.arange(6).astype(dt) * 7))
        vngh(f"vngh_{tag}_eos_reset", dict(values, past_ids=past, eos_token_id=eos), reset_on_eos=1)
        vngh(f"vngh_{tag}_eos_fill", dict(values, eos_token_id=eos))
        vngh(f"vngh_{tag}_segments", dict(values, past_ids=past, segment_ids=seg))
        vngh(f"vngh_{tag}_past_segments", dict(values, past_ids=past, segment_ids=seg, past_segment_ids=past_seg))
        vngh(f"vngh_{tag}_capture", dict(values, past_ids=past, capture_count=np.array([2, 3, 9], np.int32)),
             capacity=4)
    ids = r.integers(0, 3000, 10).astype(np.int64)
    vngh("vngh_one_request_n2_capture8",
         {"input_ids": ids, "multipliers": np.array([3, 5], np.int64), "vocab_sizes": np.array([1009], np.int64),
          "cumulative_sequence_length": np.array([0, 10], np.int32), "capture_count": np.array([10], np.int32),
          "segment_ids": np.array([0, 0, 0, 1, 1, 1, 1, 2, 2, 2], np.int32)},
         max_n=2, heads=1, capacity=8)
    vngh("vngh_single_tokens_n5",
         {"input_ids": ids[:4], "multipliers": r.integers(1, 2**40, 5) | 1, "vocab_sizes": r.integers(50, 5000, 12),
          "cumulative_sequence_length": np.array([0, 1, 2, 3, 4], np.int32),
          "past_ids": r.integers(0, 3000, (4, 4)).astype(np.int64)}, max_n=5, heads=3, pad=0)


# ---- GatherPacked ---------------------------------------------------------------------------------------------------

PACKED = {0: (1, 4), 1: (1, 2), 30: (1, 2), 2: (32, 18), 6: (32, 22), 8: (32, 34), 20: (32, 18)}


def packed_table(r, packed_type, vocab, k):
    """A [vocab, row_bytes] uint8 table of packed_type with finite values: block formats get float16 scales."""
    block, size = PACKED[packed_type]
    if packed_type == 0:
        return randn(r, vocab, k).view(np.uint8).reshape(vocab, -1)
    if packed_type == 1:
        return randn(r, vocab, k).astype(np.float16).view(np.uint8).reshape(vocab, -1)
    if packed_type == 30:
        bits = (randn(r, vocab, k).view(np.uint32) >> 16).astype(np.uint16)
        return bits.view(np.uint8).reshape(vocab, -1)
    blocks = vocab * k // block
    out = r.integers(0, 256, (blocks, size), dtype=np.int64).astype(np.uint8)
    out[:, :2] = (r.uniform(0.01, 0.2, blocks).astype(np.float16)).view(np.uint8).reshape(blocks, 2)
    return out.reshape(vocab, -1)


def gather_packed_cases():
    r = rng_for("gather_packed")
    for packed_type, tag in ((0, "f32"), (1, "f16"), (30, "bf16"), (2, "q4_0"), (6, "q5_0"), (8, "q8_0"),
                             (20, "iq4_nl")):
        table = packed_table(r, packed_type, 7, 64)
        idx = np.array([[0, 6, 3], [-1, 7, 2]], np.int64)  # -1 and 7 (the vocabulary's size) select row 0
        case("gather_packed", f"gather_packed_{tag}", "GatherPacked", [const("data", table), inp("indices", idx)],
             ["output"], out_types={"output": np.float32}, packed_type=packed_type, K=64, output_dtype=1)
    table = packed_table(r, 8, 5, 96)
    case("gather_packed", "gather_packed_q8_0_int32_scalar_index", "GatherPacked",
         [const("data", table), inp("indices", np.array(3, np.int32))], ["output"], out_types={"output": np.float32},
         packed_type=8, K=96, output_dtype=1)
    case("gather_packed_fp16", "gather_packed_q4_0_to_fp16", "GatherPacked",
         [const("data", packed_table(r, 2, 6, 64)), inp("indices", np.array([5, 1, 1], np.int64))], ["output"],
         out_types={"output": np.float16}, packed_type=2, K=64, output_dtype=10)


# ---- TreeEnsembleClassifier and TreeEnsembleRegressor at ai.onnx.ml 5 -----------------------------------------------
# onnx deprecates them there (in favour of TreeEnsemble); onnxruntime registers their kernels there but its loader
# refuses the node. This build runs them with version 3's meaning and a warning: the expected outputs are onnxruntime's
# for the same node at ai.onnx.ml 4, which resolves to version 3. check_lenient_info.py checks the warning.

TREE_WARNING = "is deprecated in domain_version of 5"


def random_trees(r, n_trees, depth, n_features, n_targets, leaf_scale=1.0):
    """Full binary trees: nodes_* attributes and, per leaf, one weight per target (target_* / class_*)."""
    nodes = {k: [] for k in ("treeids", "nodeids", "featureids", "modes", "values", "truenodeids", "falsenodeids")}
    leaves = {k: [] for k in ("treeids", "nodeids", "ids", "weights")}
    for t in range(n_trees):
        count = 2 ** (depth + 1) - 1
        for n in range(count):
            leaf = n >= 2 ** depth - 1
            nodes["treeids"].append(t)
            nodes["nodeids"].append(n)
            nodes["featureids"].append(0 if leaf else int(r.integers(n_features)))
            nodes["modes"].append("LEAF" if leaf else str(r.choice(["BRANCH_LEQ", "BRANCH_LT", "BRANCH_GTE",
                                                                     "BRANCH_GT"])))
            nodes["values"].append(0.0 if leaf else float(np.float32(r.standard_normal())))
            nodes["truenodeids"].append(0 if leaf else 2 * n + 1)
            nodes["falsenodeids"].append(0 if leaf else 2 * n + 2)
            if leaf:
                for target in range(n_targets):
                    leaves["treeids"].append(t)
                    leaves["nodeids"].append(n)
                    leaves["ids"].append(target)
                    leaves["weights"].append(float(np.float32(r.standard_normal() * leaf_scale)))
    return nodes, leaves


def tree_case(name, op, x, outputs, out_types, **attrs):
    CASES.append(one_node("tree_ml5", name, op, [inp("X", x)], outputs, "ai.onnx.ml", out_types, attrs, TreeCase))


class TreeCase(base.Case):
    ml_opset = 5


def build_tree(c, ml_opset):
    model, feeds = base.build(c)
    del model.opset_import[:]
    model.opset_import.extend([helper.make_opsetid("", 21), helper.make_opsetid("ai.onnx.ml", ml_opset)])
    return model, feeds


def tree_cases():
    r = rng_for("tree_ml5")
    x = randn(r, 9, 4)
    nodes, leaves = random_trees(r, 3, 2, 4, 2)
    reg = {f"nodes_{k}": v for k, v in nodes.items()}
    reg.update({f"target_{k}": v for k, v in leaves.items()})
    f32 = {"Y": np.float32}
    tree_case("tree_regressor_ml5", "TreeEnsembleRegressor", x, ["Y"], f32, n_targets=2, **reg)
    tree_case("tree_regressor_ml5_average", "TreeEnsembleRegressor", x, ["Y"], f32, n_targets=2,
              aggregate_function="AVERAGE", base_values=[0.5, -1.0], **reg)
    tree_case("tree_regressor_ml5_max", "TreeEnsembleRegressor", x, ["Y"], f32, n_targets=2, aggregate_function="MAX",
              **reg)
    nodes, leaves = random_trees(r, 4, 2, 4, 3)
    cls = {f"nodes_{k}": v for k, v in nodes.items()}
    cls.update({f"class_{k}": v for k, v in leaves.items()})
    out = {"Y": np.int64, "Z": np.float32}
    tree_case("tree_classifier_ml5", "TreeEnsembleClassifier", x, ["Y", "Z"], out, classlabels_int64s=[3, 5, 7],
              **cls)
    tree_case("tree_classifier_ml5_softmax", "TreeEnsembleClassifier", x, ["Y", "Z"], out,
              classlabels_int64s=[3, 5, 7], post_transform="SOFTMAX", base_values=[0.1, 0.2, -0.3], **cls)


def write_tree(c, out_dir):
    """The ai.onnx.ml 5 model with onnxruntime's outputs for the same node at ai.onnx.ml 4."""
    reference, feeds = build_tree(c, 4)
    names = [o for o in c.outputs if o]
    results = case_writer.run_model(reference, feeds, names)
    model, _ = build_tree(c, 5)
    case_writer.save_case(os.path.join(out_dir, c.group, c.name), model, feeds, names, results, case_writer.no_nan)


def write_tree_warnings(out_dir):
    """expected_warnings.json of the tree_ml5 folder, read by check_lenient_info.py."""
    folder = os.path.join(out_dir, "tree_ml5")
    os.makedirs(folder, exist_ok=True)
    names = [c.name for c in CASES if c.group == "tree_ml5"]
    with open(os.path.join(folder, "expected_warnings.json"), "w") as f:
        json.dump({n: TREE_WARNING for n in names}, f, indent=1)


# ---- Refusals --------------------------------------------------------------------------------------------------------

def refusal_cases():
    r = rng_for("misc_refusals")
    f = lambda *shape: randn(r, *shape) * 0.5  # noqa: E731
    lstm = [inp("X", f(2, 1, 3)), inp("W", f(1, 8, 7)), inp("R", f(1, 8, 2)), None, None, None, None, None,
            inp("QW", f(1, 2, 5)), inp("MW", f(1, 4, 5)), inp("V", f(1, 5)), inp("M", f(1, 3, 4))]
    refusal("attn_lstm_no_memory", "AttnLSTM", lstm[:11], ["Y"], ['"attn_lstm_no_memory"', "M is required"],
            hidden_size=2)
    refusal("attn_lstm_memory_len_zero", "AttnLSTM", lstm + [const("memory_seq_lens", np.array([0], np.int32))], ["Y"],
            ['"attn_lstm_memory_len_zero"', "memory_seq_lens[0] = 0 is outside [1, max_memory_step 3]"],
            hidden_size=2)
    refusal("attn_lstm_w_width", "AttnLSTM", [inp("X", f(2, 1, 3)), inp("W", f(1, 8, 5))] + lstm[2:], ["Y"],
            ['"attn_lstm_w_width"', "W must be [1, 8, 7]"], hidden_size=2)
    half = [None if x is None else (x[0], x[1].astype(np.float16), x[2]) for x in lstm]
    refusal("attn_lstm_fp16", "AttnLSTM", half, ["Y"],
            ['"attn_lstm_fp16"', "X must be float or double"], out_types={"Y": np.float16}, hidden_size=2)
    i64 = lambda *v: np.array(v, np.int64)  # noqa: E731
    refusal("bif_prev_outside", "BifurcationDetector",
            [const("src_tokens", i64(1, 2, 3)), const("cur_tokens", i64(1)), const("prev_suffix_match_idx", i64(-1)),
             const("pred_tokens", i64(1, 2, 3, 4, 5))], ["tokens", "suffix_match_idx"],
            ['"bif_prev_outside"', "prev_suffix_match_idx -1", "outside [0, 3]"])
    refusal("bif_pred_length", "BifurcationDetector",
            [const("src_tokens", i64(1, 2, 3)), const("cur_tokens", i64(1)), const("prev_suffix_match_idx", i64(1)),
             const("pred_tokens", i64(1, 2))], ["tokens", "suffix_match_idx"],
            ['"bif_pred_length"', "pred_tokens must be int64 [3]"])
    refusal("bif_ngram_sizes", "BifurcationDetector",
            [inp("src_tokens", i64(1, 2, 3)), inp("cur_tokens", i64(1)), inp("prev_suffix_match_idx", i64(0))],
            ["tokens", "suffix_match_idx"], ['"bif_ngram_sizes"', "'max_ngram_size'", "at least min_ngram_size"],
            min_ngram_size=3, max_ngram_size=2)
    x = randn(r, 1, 2, 4, 4)
    box = [inp("X", x), const("rois", np.array([[0, 0, 1, 1]], np.float32))]
    refusal("crop_mode", "CropAndResize", box + [const("batch_indices", np.array([0], np.int32)),
                                                 const("crop_size", np.array([2, 2], np.int32))], ["Y"],
            ['"crop_mode"', "'mode'", '"bilinear" or "nearest"'], mode="bicubic")
    refusal("crop_batch_index", "CropAndResize", box + [const("batch_indices", np.array([1], np.int32)),
                                                        const("crop_size", np.array([2, 2], np.int32))], ["Y"],
            ['"crop_batch_index"', "batch_indices[0] = 1", "batch of 1"])
    refusal("crop_size_zero", "CropAndResize", box + [const("batch_indices", np.array([0], np.int32)),
                                                      const("crop_size", np.array([0, 2], np.int32))], ["Y"],
            ['"crop_size_zero"', "crop_size must be positive"])
    seq = np.array([[3, 4, 0, 0]], np.int32)
    wce = [const("W", randn(r, 2, 1, 2, 3)), const("B", randn(r, 2)), const("C", randn(r, 5, 3))]
    refusal("wce_char_id", "WordConvEmbedding", [const("Sequence", np.array([[3, 7, 0, 0]], np.int32))] + wce, ["Y"],
            ['"wce_char_id"', "character id 7", "5 rows"])
    refusal("wce_attribute", "WordConvEmbedding", [const("Sequence", seq)] + wce, ["Y"],
            ['"wce_attribute"', "'conv_window_size' is 3", "window is 2"], conv_window_size=3)
    refusal("wce_window_wider", "WordConvEmbedding",
            [const("Sequence", np.array([[3, 4]], np.int32)), const("W", randn(r, 2, 1, 3, 3)), const("B", randn(r, 2)),
             const("C", randn(r, 5, 3))], ["Y"], ['"wce_window_wider"', "window 3", "[1, 2]"])
    refusal("mpm_mask_per_channel", "MaxpoolWithMask",
            [inp("X", randn(r, 1, 2, 4, 4)), const("M", np.ones((1, 2, 4, 4), np.int32))], ["Y"],
            ['"mpm_mask_per_channel"', "M must be int32 [1, 1, 4, 4]"], kernel_shape=[2, 2])
    refusal("mpm_dilations", "MaxpoolWithMask",
            [inp("X", randn(r, 1, 2, 4, 4)), const("M", np.ones((1, 1, 4, 4), np.int32))], ["Y"],
            ['"mpm_dilations"', "'dilations'", "not an attribute"], kernel_shape=[2, 2], dilations=[2, 2])
    ctd = [inp("X", randn(r, 1, 2, 4, 4)), const("W", randn(r, 2, 3, 3, 3))]
    refusal("ctd_negative_pads", "ConvTransposeWithDynamicPads", ctd + [const("Pads", np.array([1, -1, 0, 0]))], ["Y"],
            ['"ctd_negative_pads"', "Pads must be non-negative", "[1, -1, 0, 0]"])
    refusal("ctd_no_pads", "ConvTransposeWithDynamicPads", ctd + [None, const("B", randn(r, 3))], ["Y"],
            ['"ctd_no_pads"', "input Pads is required"])
    refusal("ctd_pads_length", "ConvTransposeWithDynamicPads", ctd + [const("Pads", np.array([1, 1]))], ["Y"],
            ['"ctd_pads_length"', "Pads must be int64 [4]", "int64[2]"])
    ids = np.array([[1, 2, 3]], np.int64)
    refusal("ngh_vocab_zero", "NGramHashMapping",
            [inp("input_ids", ids), const("multipliers", np.array([3, 5], np.int64)),
             const("vocab_sizes", np.array([0], np.int64))], ["hash_ids"],
            ['"ngh_vocab_zero"', "vocab_sizes[0] is 0", "must be positive"], out_types={"hash_ids": np.int64},
            max_ngram_size=2, n_head_per_ngram=1, pad_id=0)
    refusal("ngh_short_multipliers", "NGramHashMapping",
            [inp("input_ids", ids), const("multipliers", np.array([3, 5], np.int64)),
             const("vocab_sizes", np.array([7, 11], np.int64))], ["hash_ids"],
            ['"ngh_short_multipliers"', "multipliers must be int64 of at least 3 elements"],
            out_types={"hash_ids": np.int64}, max_ngram_size=3, n_head_per_ngram=1, pad_id=0)
    refusal("ngh_max_n", "NGramHashMapping",
            [inp("input_ids", ids), const("multipliers", np.array([3, 5], np.int64)),
             const("vocab_sizes", np.array([7], np.int64))], ["hash_ids"],
            ['"ngh_max_n"', "'max_ngram_size'", "at least 2"], out_types={"hash_ids": np.int64}, max_ngram_size=1,
            n_head_per_ngram=1, pad_id=0)
    vn = [inp("input_ids", np.array([1, 2, 3], np.int64)), const("multipliers", np.array([3, 5], np.int64)),
          const("vocab_sizes", np.array([7], np.int64))]
    i64 = {"hash_ids": np.int64}
    refusal("vngh_empty_request", "VarlenNGramHashMapping", vn + [const("cumulative_sequence_length",
                                                                        np.array([0, 0, 3], np.int32))],
            ["hash_ids"], ['"vngh_empty_request"', "increase strictly", "[0, 0, 3]"], out_types=i64,
            max_ngram_size=2, n_head_per_ngram=1, pad_id=0)
    refusal("vngh_short_cumulative", "VarlenNGramHashMapping", vn + [const("cumulative_sequence_length",
                                                                           np.array([0, 2], np.int32))],
            ["hash_ids"], ['"vngh_short_cumulative"', "end at input_ids' 3 tokens"], out_types=i64,
            max_ngram_size=2, n_head_per_ngram=1, pad_id=0)
    refusal("vngh_capture_missing", "VarlenNGramHashMapping", vn + [const("cumulative_sequence_length",
                                                                          np.array([0, 3], np.int32))],
            ["hash_ids"], ['"vngh_capture_missing"', "capture_count is required", "(it is 2)"], out_types=i64,
            max_ngram_size=2, n_head_per_ngram=1, pad_id=0, state_update_capacity=2)
    refusal("vngh_capacity", "VarlenNGramHashMapping", vn + [const("cumulative_sequence_length",
                                                                   np.array([0, 3], np.int32))],
            ["hash_ids"], ['"vngh_capacity"', "'state_update_capacity'", "[0, 8]"], out_types=i64,
            max_ngram_size=2, n_head_per_ngram=1, pad_id=0, state_update_capacity=9)
    gp = [const("data", np.zeros((4, 34), np.uint8)), inp("indices", np.array([1], np.int64))]
    refusal("gather_packed_type", "GatherPacked", gp, ["output"], ['"gather_packed_type"', "'packed_type'", "got 12"],
            out_types={"output": np.float32}, packed_type=12, K=32, output_dtype=1)
    refusal("gather_packed_k", "GatherPacked", gp, ["output"], ['"gather_packed_k"', "'K'", "multiple of 32, got 48"],
            out_types={"output": np.float32}, packed_type=8, K=48, output_dtype=1)
    refusal("gather_packed_row_bytes", "GatherPacked", gp, ["output"],
            ['"gather_packed_row_bytes"', "data must be uint8 [vocab, 68]"], out_types={"output": np.float32},
            packed_type=8, K=64, output_dtype=1)
    refusal("silu_scale_shape", "ScaledSiLU", [inp("X", randn(r, 3)), const("scale", np.ones(1, np.float32))], ["Y"],
            ['"silu_scale_shape"', "scale must be a scalar", "float[1]"])
    refusal("silu_double", "ScaledSiLU", [inp("X", np.ones(3))], ["Y"],
            ['"silu_double"', "X must be float, float16 or bfloat16"])


# ---- Sparse values and SparseToDenseMatMul ---------------------------------------------------------------------------
# onnxscope densifies every sparse value: a sparse_initializer and a Constant's sparse_value when the model loads, a
# sparse_tensor graph input when it is fed (dense). onnxruntime gets the same values sparse: SparseToDenseMatMul's A as
# an OrtValue made by SparseTensor.sparse_coo_from_numpy (2-D coordinates, which its kernel requires), and the sparse
# initializers and Constants sorted (the file onnxscope reads may list them in another order).

class SparseCase:
    """make() -> (model onnxscope runs, model onnxruntime runs, dense feeds, onnxruntime's feeds as OrtValues)."""

    def __init__(self, group, name, make, outputs):
        self.group, self.name, self.make, self.outputs = group, name, make, outputs


def sparse_case(group, name, make, outputs=("Y",)):
    CASES.append(SparseCase(group, name, make, list(outputs)))


def sparse_dense(r, shape, density, dtype):
    """A seeded dense array with about `density` of its elements non-zero (integers in [-9, 9] for integer types)."""
    if np.dtype(dtype).kind == "i":
        values = r.integers(1, 10, size=shape) * r.choice([-1, 1], size=shape)
    else:
        values = r.standard_normal(shape) + np.sign(r.standard_normal(shape)) * 0.1
    return np.where(r.random(shape) < density, values, 0).astype(dtype)


def sparse_proto(name, dense, coords=True, order=None):
    """A COO SparseTensorProto of the non-zeros of `dense`: indices [NNZ, rank] or linear [NNZ]; `order` permutes the
    entries (None: row-major, as onnxruntime expects)."""
    coo = np.argwhere(dense != 0).astype(np.int64)
    linear = np.flatnonzero(dense).astype(np.int64)
    values = dense.ravel()[linear]
    if order is not None:
        coo, linear, values = coo[order], linear[order], values[order]
    indices = coo if coords else linear
    return helper.make_sparse_tensor(numpy_helper.from_array(np.ascontiguousarray(values), name),
                                     numpy_helper.from_array(np.ascontiguousarray(indices), name + "_indices"),
                                     list(dense.shape))


def ort_sparse(dense):
    import onnxruntime as ort
    coo = np.ascontiguousarray(np.argwhere(dense != 0).astype(np.int64))
    values = np.ascontiguousarray(dense[dense != 0])
    sparse = ort.SparseTensor.sparse_coo_from_numpy(np.array(dense.shape, np.int64), values, coo,
                                                    ort.OrtDevice.make("cpu", 0))
    return ort.OrtValue.ort_value_from_sparse_tensor(sparse)


def sparse_model(nodes, inputs, inits=(), sparse_inits=(), name="sparse", out_type=1):
    graph = helper.make_graph(nodes, name, list(inputs), [helper.make_tensor_value_info("Y", out_type, None)],
                              initializer=list(inits), sparse_initializer=list(sparse_inits))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21), helper.make_opsetid(MS, 1)])
    model.ir_version = 10
    return model


def write_sparse(c, out_dir):
    import onnxruntime as ort
    model, reference, feeds, ort_feeds = c.make()
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    options.intra_op_num_threads = 1
    session = ort.InferenceSession(reference.SerializeToString(), options, providers=["CPUExecutionProvider"])
    results = [v.numpy() for v in session.run_with_ort_values(c.outputs, ort_feeds)]
    case_writer.save_case(os.path.join(out_dir, c.group, c.name), model, feeds, c.outputs, results,
                          case_writer.no_nan)


def s2d_matmul(name, dtype, m, k, n, density, declare_shapes=True, **attrs):
    """SparseToDenseMatMul with A a sparse_tensor graph input. onnxruntime's shape inference of the node rejects
    declared shapes with transA or transB (measured with 1.32), so those cases declare none."""
    def make():
        r = rng_for(name)
        a_shape = (k, m) if attrs.get("transA") else (m, k)
        b_shape = (n, k) if attrs.get("transB") else (k, n)
        a = sparse_dense(r, a_shape, density, dtype)
        b = sparse_dense(r, b_shape, 1.0, dtype)
        et = helper.np_dtype_to_tensor_dtype(np.dtype(dtype))
        node = helper.make_node("SparseToDenseMatMul", ["A", "B"], ["Y"], name=name, domain=MS, **attrs)
        inputs = [helper.make_sparse_tensor_value_info("A", et, list(a_shape) if declare_shapes else None),
                  helper.make_tensor_value_info("B", et, list(b_shape) if declare_shapes else None)]
        model = sparse_model([node], inputs, name=name, out_type=et)
        import onnxruntime as ort
        return model, model, {"A": a, "B": b}, {"A": ort_sparse(a), "B": ort.OrtValue.ortvalue_from_numpy(b)}
    sparse_case("sparse_matmul", name, make)


def sparse_value_case(name, dtype, shape, coords, shuffle, constant=False):
    """Y = X + W where W is a sparse_initializer (or a Constant's sparse_value): onnxscope reads the file with the
    entries in `shuffle`d order, onnxruntime the same entries sorted."""
    def make():
        r = rng_for(name)
        w = sparse_dense(r, shape, 0.3, dtype)
        x = sparse_dense(r, shape, 1.0, dtype)
        nnz = int(np.count_nonzero(w))
        order = r.permutation(nnz) if shuffle else None
        et = helper.np_dtype_to_tensor_dtype(np.dtype(dtype))
        inputs = [helper.make_tensor_value_info("X", et, list(shape))]
        add = helper.make_node("Add", ["X", "W"], ["Y"], name=name)

        def build(sp):
            if constant:
                const_node = helper.make_node("Constant", [], ["W"], name=name + "_constant", sparse_value=sp)
                return sparse_model([const_node, add], inputs, name=name, out_type=et)
            return sparse_model([add], inputs, sparse_inits=[sp], name=name, out_type=et)
        model = build(sparse_proto("W", w, coords, order))
        reference = build(sparse_proto("W", w, coords))
        import onnxruntime as ort
        return model, reference, {"X": x}, {"X": ort.OrtValue.ortvalue_from_numpy(x)}
    sparse_case("sparse_values", name, make)


def sparse_subgraph_case(name):
    """A sparse_initializer inside an If branch (read there through the outer X)."""
    def make():
        r = rng_for(name)
        w = sparse_dense(r, (3, 5), 0.3, np.float32)
        x = sparse_dense(r, (3, 5), 1.0, np.float32)
        order = r.permutation(int(np.count_nonzero(w)))

        def build(sp):
            then_graph = helper.make_graph([helper.make_node("Add", ["X", "W"], ["T"])], "then", [],
                                           [helper.make_tensor_value_info("T", 1, None)], sparse_initializer=[sp])
            else_graph = helper.make_graph([helper.make_node("Neg", ["X"], ["E"])], "else", [],
                                           [helper.make_tensor_value_info("E", 1, None)])
            node = helper.make_node("If", ["cond"], ["Y"], name=name, then_branch=then_graph, else_branch=else_graph)
            return sparse_model([node], [helper.make_tensor_value_info("X", 1, [3, 5]),
                                         helper.make_tensor_value_info("cond", 9, [])], name=name)
        import onnxruntime as ort
        cond = np.array(True)
        return (build(sparse_proto("W", w, True, order)), build(sparse_proto("W", w, True)), {"X": x, "cond": cond},
                {"X": ort.OrtValue.ortvalue_from_numpy(x), "cond": ort.OrtValue.ortvalue_from_numpy(cond)})
    sparse_case("sparse_values", name, make)


def sparse_cases():
    s2d_matmul("s2d_float", np.float32, 5, 7, 6, 0.3)
    s2d_matmul("s2d_float_alpha_transA", np.float32, 6, 9, 4, 0.25, declare_shapes=False, alpha=0.75, transA=1)
    s2d_matmul("s2d_float_alpha_transB", np.float32, 4, 8, 5, 0.4, declare_shapes=False, alpha=-1.5, transB=1)
    s2d_matmul("s2d_float_both", np.float32, 33, 70, 17, 0.1, declare_shapes=False, alpha=2.0, transA=1, transB=1)
    s2d_matmul("s2d_float_zero_nnz", np.float32, 3, 4, 2, 0.0)
    # Below 1/16 non-zero, float A takes the loop over non-zeros instead of the SIMD gemm.
    s2d_matmul("s2d_float_sparse_transA", np.float32, 20, 64, 9, 0.03, declare_shapes=False, alpha=-0.5, transA=1)
    s2d_matmul("s2d_float_sparse_transB", np.float32, 24, 50, 11, 0.04, declare_shapes=False, alpha=1.25, transB=1)
    s2d_matmul("s2d_double_both", np.float64, 7, 5, 3, 0.3, declare_shapes=False, alpha=0.3, transA=1, transB=1)
    s2d_matmul("s2d_int32", np.int32, 6, 5, 7, 0.3)
    # onnxruntime applies alpha to float only, not to double or the integer types (measured); these cases pin that.
    s2d_matmul("s2d_int32_alpha", np.int32, 4, 6, 3, 0.5, alpha=2.5)
    s2d_matmul("s2d_int64_transB", np.int64, 5, 6, 4, 0.3, declare_shapes=False, alpha=3.0, transB=1)
    sparse_value_case("sparse_init_linear", np.float32, (4, 6), coords=False, shuffle=False)
    sparse_value_case("sparse_init_coords_unsorted", np.int64, (3, 4, 5), coords=True, shuffle=True)
    sparse_value_case("sparse_init_linear_unsorted", np.float64, (10,), coords=False, shuffle=True)
    sparse_value_case("sparse_constant_linear", np.float32, (5, 3), coords=False, shuffle=False, constant=True)
    sparse_value_case("sparse_constant_coords_unsorted", np.int32, (2, 3, 4), coords=True, shuffle=True,
                      constant=True)
    sparse_subgraph_case("sparse_init_in_if_branch")


def sparse_refusal(name, values, indices, dims, expected, constant=False, indices_dtype=np.int64):
    sp = helper.make_sparse_tensor(numpy_helper.from_array(np.asarray(values, np.float32), "W"),
                                   numpy_helper.from_array(np.asarray(indices, indices_dtype), "W_indices"), dims)
    inputs = [helper.make_tensor_value_info("X", 1, None)]
    add = helper.make_node("Add", ["X", "W"], ["Y"], name=name)
    if constant:
        model = sparse_model([helper.make_node("Constant", [], ["W"], name=name + "_constant", sparse_value=sp), add],
                             inputs, name=name)
    else:
        model = sparse_model([add], inputs, sparse_inits=[sp], name=name)
    SPARSE_REFUSALS.append((name, model, expected))


SPARSE_REFUSALS = []


def sparse_refusal_cases():
    init = 'sparse initializer "W"'
    sparse_refusal("sparse_linear_out_of_range", [1, 2], [3, 12], [3, 4],
                   [init, "linear index 12 of value 1 is outside [0, 12)"])
    sparse_refusal("sparse_coord_out_of_range", [1, 2], [[0, 1], [2, 4]], [3, 4],
                   [init, "index 4 of value 1 in dimension 1 is outside [0, 4)"])
    sparse_refusal("sparse_negative_index", [1], [[-1, 0]], [3, 4], [init, "index -1 of value 0 in dimension 0"])
    sparse_refusal("sparse_indices_shape", [1, 2], [[0, 1, 2], [1, 2, 3]], [3, 4],
                   [init, "indices must be int64[2] (linear) or int64[2, 2] (coordinates)", "int64[2, 3]"])
    sparse_refusal("sparse_duplicate", [1, 2], [5, 5], [3, 4], [init, "linear index 5 twice"])
    sparse_refusal("sparse_too_many_values", [1] * 5, [0, 1, 2, 3, 4], [2, 2],
                   [init, "5 values, more than its 4 elements"])
    sparse_refusal("sparse_indices_int32", [1], [2], [3, 4], [init, "indices must be int64", "int32[1]"],
                   indices_dtype=np.int32)
    sparse_refusal("sparse_huge", [1], [0], [1 << 20, 1 << 20, 1 << 20], [init, "more than the allocation limit"])
    sparse_refusal("sparse_constant_out_of_range", [1], [[0, 9]], [3, 4],
                   ['"sparse_constant_out_of_range_constant" (Constant)', "'sparse_value'",
                    "index 9 of value 0 in dimension 1 is outside [0, 4)"], constant=True)
    # SparseToDenseMatMul's own checks, at run time on the (dense) A.
    node = helper.make_node("SparseToDenseMatMul", ["A", "B"], ["Y"], name="s2d_mismatch", domain=MS, transB=1)
    SPARSE_REFUSALS.append(("s2d_mismatch", sparse_model(
        [node], [helper.make_sparse_tensor_value_info("A", 1, [3, 4]), helper.make_tensor_value_info("B", 1, [4, 5])],
        name="s2d_mismatch"), ['"s2d_mismatch" (SparseToDenseMatMul)', "op(A) is [3, 4] but op(B) is [5, 4]"]))
    node = helper.make_node("SparseToDenseMatMul", ["A", "B"], ["Y"], name="s2d_types", domain=MS)
    SPARSE_REFUSALS.append(("s2d_types", sparse_model(
        [node], [helper.make_sparse_tensor_value_info("A", 6, [3, 4]), helper.make_tensor_value_info("B", 1, [4, 5])],
        name="s2d_types", out_type=6),
        ['"s2d_types" (SparseToDenseMatMul)', "B must have A's element type int32, got float[4, 5]"]))
    node = helper.make_node("SparseToDenseMatMul", ["A", "B"], ["Y"], name="s2d_float16", domain=MS)
    SPARSE_REFUSALS.append(("s2d_float16", sparse_model(
        [node], [helper.make_sparse_tensor_value_info("A", 10, [3, 4]),
                 helper.make_tensor_value_info("B", 10, [4, 5])], name="s2d_float16", out_type=10),
        ['"s2d_float16" (SparseToDenseMatMul)', "A must be float, double, int32 or int64, got float16[3, 4]"]))



def main():
    scaled_silu_cases()
    attn_lstm_cases()
    bifurcation_cases()
    crop_and_resize_cases()
    word_conv_cases()
    maxpool_with_mask_cases()
    conv_transpose_dynamic_pads_cases()
    ngram_hash_cases()
    varlen_ngram_hash_cases()
    gather_packed_cases()
    tree_cases()
    sparse_cases()
    refusal_cases()
    sparse_refusal_cases()
    case_writer.generate(sys.argv, CASES, write, {"refused": write_refusals, "tree_ml5": write_tree_warnings})


if __name__ == "__main__":
    main()
