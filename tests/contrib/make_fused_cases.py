"""Writes ONNX backend test-case folders for the operators of onnxruntime's graph optimizer and CPU provider that
issue #41 part A adds: FusedConv, FusedGemm, NhwcMaxPool, the com.microsoft.nchwc layout operators, the experimental
default-domain operators, and the lenient rules (a com.microsoft node without its domain import, LayerNormalization
below opset 17). Plus whole models: a small CNN saved by onnxruntime itself through
SessionOptions.optimized_model_filepath at ORT_ENABLE_EXTENDED (FusedConv, FusedGemm) and at ORT_ENABLE_ALL (the
NCHWc layout operators, on x86 CPUs).

    <test venv python> make_fused_cases.py <output dir> [group ...]

Expected outputs are onnxruntime's (pinned in scripts/test-requirements.txt; CPU provider). One-node cases run with
graph optimizations disabled. The NCHWc cases hold tensors in onnxruntime's blocked layout, whose block size is the
CPU's (16 with AVX-512F, else 8); they are written at test time on the machine that runs them, as onnxruntime's own
saved models are. Needs onnx, onnxruntime and numpy; no torch.
"""

import os
import shutil
import sys

import numpy as np
import onnx
import onnxruntime as ort
from onnx import helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import case_writer  # noqa: E402  (onnxruntime's session, the case folders)
import make_contrib_cases as base  # noqa: E402  (the Case type and the seeded generators)

MS = "com.microsoft"
NCHWC = "com.microsoft.nchwc"
CASES = []
REFUSALS = []
inp, const, randn, rng_for = base.inp, base.const, base.randn, base.rng_for


class FusedCase(base.Case):
    """A one-node case whose model imports `opsets` (domain -> version); by default the default domain at 21 and the
    node's domain at 1."""

    def __init__(self, case_group, name, op, inputs, outputs, domain=MS, opsets=None, attrs=None, out_types=None):
        super().__init__(case_group, name, op, inputs, outputs, domain, out_types)
        self.attrs = attrs or {}  # set here: an attribute may be called "group"
        self.opsets = opsets


def case(case_group, name, op, inputs, outputs, domain=MS, opsets=None, out_types=None, **attrs):
    CASES.append(FusedCase(case_group, name, op, inputs, outputs, domain, opsets, attrs, out_types))


_base_build = base.build


def build(c):
    """base.build with the case's opset imports."""
    model, feeds = _base_build(c)
    opsets = getattr(c, "opsets", None)
    if opsets is None:
        opsets = {"": 21, c.domain: 1} if c.domain else {"": 21}
    del model.opset_import[:]
    for domain, version in opsets.items():
        model.opset_import.append(helper.make_opsetid(domain, version))
    return model, feeds


base.build = build  # base.run_onnxruntime builds through it


def write(c, out_dir):
    """One case folder: the model (outputs typed as onnxruntime's), the inputs, onnxruntime's outputs. Unlike
    base.write, outputs may hold infinities (NGramRepeatBlock bans tokens with -inf), never NaN."""
    model, feeds = build(c)
    names = [o for o in c.outputs if o]
    results = base.run_onnxruntime(c)
    case_writer.save_case(os.path.join(out_dir, c.group, c.name), model, feeds, names, results, case_writer.no_nan)


def has_avx512f():
    try:
        with open("/proc/cpuinfo") as f:
            return " avx512f" in f.read()
    except OSError:
        return False


BLOCK = 16 if has_avx512f() else 8


# ---- FusedConv, FusedGemm ------------------------------------------------------------------------------------------

def fused_conv_cases():
    r = rng_for("fused_conv")
    x, w, b = randn(r, 2, 6, 9, 8), randn(r, 8, 6, 3, 3), randn(r, 8)
    conv = [inp("X", x), const("W", w), const("B", b)]
    case("fused", "fused_conv_relu", "FusedConv", conv, ["Y"], activation="Relu", pads=[1, 1, 1, 1])
    case("fused", "fused_conv_plain", "FusedConv", conv, ["Y"], strides=[2, 1])
    case("fused", "fused_conv_leaky", "FusedConv", conv, ["Y"], activation="LeakyRelu", activation_params=[0.2],
         dilations=[2, 2], pads=[2, 0, 1, 1])
    case("fused", "fused_conv_clip", "FusedConv", conv, ["Y"], activation="Clip", activation_params=[-0.5, 0.7],
         auto_pad="SAME_UPPER")
    case("fused", "fused_conv_sigmoid", "FusedConv", conv, ["Y"], activation="Sigmoid")
    case("fused", "fused_conv_tanh", "FusedConv", conv, ["Y"], activation="Tanh")
    case("fused", "fused_conv_hardsigmoid", "FusedConv", conv, ["Y"], activation="HardSigmoid",
         activation_params=[0.3, 0.4])
    z = randn(r, 2, 8, 7, 6)
    case("fused", "fused_conv_sum_relu", "FusedConv", conv + [inp("Z", z)], ["Y"], activation="Relu")
    case("fused", "fused_conv_sum_nobias", "FusedConv", [inp("X", x), const("W", w), None, inp("Z", z)], ["Y"])
    gw = randn(r, 6, 2, 3, 3)
    case("fused", "fused_conv_grouped", "FusedConv", [inp("X", x), const("W", gw)], ["Y"], group=3,
         activation="Relu")
    case("fused", "fused_conv_1d", "FusedConv", [inp("X", randn(r, 1, 4, 11)), const("W", randn(r, 5, 4, 3))], ["Y"],
         activation="Relu", pads=[1, 1])
    case("fused", "fused_conv_3d", "FusedConv",
         [inp("X", randn(r, 1, 2, 5, 4, 4)), const("W", randn(r, 3, 2, 2, 2, 2)), const("B", randn(r, 3))], ["Y"],
         activation="LeakyRelu", activation_params=[0.1])


def fused_gemm_cases():
    r = rng_for("fused_gemm")
    a, bm, c = randn(r, 5, 7), randn(r, 7, 4), randn(r, 4)
    g = [inp("A", a), const("B", bm), const("C", c)]
    case("fused", "fused_gemm_relu", "FusedGemm", g, ["Y"], activation="Relu")
    case("fused", "fused_gemm_alpha_beta", "FusedGemm", g, ["Y"], alpha=0.5, beta=2.0, activation="Tanh")
    case("fused", "fused_gemm_trans_leaky", "FusedGemm", [inp("A", randn(r, 7, 5)), const("B", randn(r, 4, 7)),
                                                          const("C", randn(r, 5, 4))], ["Y"],
         transA=1, transB=1, activation="LeakyRelu", activation_alpha=0.3)
    for act, params in [("Sigmoid", {}), ("Tanh", {}), ("HardSigmoid", {"activation_alpha": 0.2,
                                                                          "activation_beta": 0.5}),
                        ("Elu", {"activation_alpha": 0.7}), ("Selu", {"activation_alpha": 1.6,
                                                                      "activation_gamma": 1.05}),
                        ("Celu", {"activation_alpha": 1.3}), ("Softplus", {}), ("Softsign", {}),
                        ("ThresholdedRelu", {"activation_alpha": 0.4}),
                        ("ParametricSoftplus", {"activation_alpha": 0.6, "activation_beta": 1.7}),
                        ("ScaledTanh", {"activation_alpha": 1.5, "activation_beta": 0.8})]:
        case("fused", "fused_gemm_" + act.lower(), "FusedGemm", g, ["Y"], activation=act, **params)
    case("fused", "fused_gemm_no_c", "FusedGemm", [inp("A", a), const("B", bm)], ["Y"], activation="Relu")


def nhwc_max_pool_cases():
    r = rng_for("nhwc_max_pool")
    for dt in (np.uint8, np.int8):
        info = np.iinfo(dt)
        x = r.integers(info.min, info.max + 1, size=(2, 7, 9, 5), dtype=dt)
        tag = "u8" if dt == np.uint8 else "s8"
        case("fused", f"nhwc_max_pool_{tag}", "NhwcMaxPool", [inp("x", x)], ["y"], kernel_shape=[3, 3],
             strides=[2, 2])
        case("fused", f"nhwc_max_pool_{tag}_pads", "NhwcMaxPool", [inp("x", x)], ["y"], kernel_shape=[2, 3],
             pads=[1, 1, 0, 1], dilations=[2, 1], ceil_mode=1)
        case("fused", f"nhwc_max_pool_{tag}_same", "NhwcMaxPool", [inp("x", x)], ["y"], kernel_shape=[3, 2],
             auto_pad="SAME_UPPER", strides=[2, 2])
    case("fused", "nhwc_max_pool_1d", "NhwcMaxPool", [inp("x", r.integers(0, 255, size=(2, 10, 3), dtype=np.uint8))],
         ["y"], kernel_shape=[3])


# ---- com.microsoft variants of default-domain operators ----------------------------------------------------------

def ms_tensor_cases():
    r = rng_for("ms_tensor")
    x = randn(r, 2, 3, 4)
    for axis in (0, 2, 3, -1, -4):
        case("ms_ops", f"expand_dims_{axis}".replace("-", "m"), "ExpandDims",
             [inp("X", x), const("axis", np.array(axis, np.int32))], ["Y"])
    m = randn(r, 2, 4, 5)
    case("ms_ops", "trilu_upper", "Trilu", [inp("X", m)], ["Y"])
    case("ms_ops", "trilu_lower_k", "Trilu", [inp("X", m), const("k", np.array(-1, np.int64))], ["Y"], upper=0)
    case("ms_ops", "gather_nd", "GatherND", [inp("data", randn(r, 3, 4, 5)),
                                             const("indices", np.array([[0, 1], [2, 3], [1, 0]], np.int64))], ["Y"])
    case("ms_ops", "gather_nd_int32", "GatherND", [inp("data", randn(r, 3, 4)),
                                                   const("indices", np.array([[[2]], [[0]]], np.int32))], ["Y"])
    case("ms_ops", "range_float", "Range", [const("start", np.array(1.5, np.float32)),
                                            const("limit", np.array(7.0, np.float32)),
                                            const("delta", np.array(0.75, np.float32))], ["Y"])
    case("ms_ops", "range_no_delta", "Range", [const("start", np.array(-3, np.int64)),
                                               const("limit", np.array(4, np.int64))], ["Y"])
    case("ms_ops", "range_int32_down", "Range", [const("start", np.array(10, np.int32)),
                                                 const("limit", np.array(1, np.int32)),
                                                 const("delta", np.array(-3, np.int32))], ["Y"])
    p = randn(r, 3, 5)
    case("ms_ops", "pad_constant", "Pad", [inp("data", p), const("pads", np.array([1, 2, 0, 1], np.int64)),
                                           const("value", np.array([1.5], np.float32))], ["Y"])
    case("ms_ops", "pad_reflect_2d_pads", "Pad", [inp("data", p), const("pads", np.array([[1, 2, 1, 0]], np.int64))],
         ["Y"], mode="reflect")
    case("ms_ops", "pad_edge_negative", "Pad", [inp("data", p), const("pads", np.array([0, 2, -1, 1], np.int64))],
         ["Y"], mode="edge")
    img, grid = randn(r, 1, 2, 4, 5), (r.random((1, 3, 4, 2)) * 2.4 - 1.2).astype(np.float32)
    case("ms_ops", "grid_sample_bilinear", "GridSample", [inp("X", img), inp("Grid", grid)], ["Y"])
    case("ms_ops", "grid_sample_nearest_border", "GridSample", [inp("X", img), inp("Grid", grid)], ["Y"],
         mode="nearest", padding_mode="border", align_corners=1)
    case("ms_ops", "transpose_matmul", "TransposeMatMul", [inp("A", randn(r, 2, 4, 3)), inp("B", randn(r, 5, 4))],
         ["Y"], transA=1, transB=1, alpha=0.5)
    case("ms_ops", "sample_op", "SampleOp", [inp("X", x)], ["Y"])
    mats = randn(r, 3, 4, 4) + 4 * np.eye(4, dtype=np.float32)
    case("ms_ops", "inverse", "Inverse", [inp("X", mats)], ["Y"])
    case("ms_ops", "inverse_double", "Inverse", [inp("X", mats[0].astype(np.float64))], ["Y"])
    case("ms_ops", "unique", "Unique", [inp("x", np.array([2.0, 1.0, 1.0, 3.0, 4.0, 3.0], np.float32))],
         ["y", "idx", "counts"], out_types={"idx": np.int64, "counts": np.int64})
    u = randn(r, 2, 7, 3)
    case("ms_ops", "unfold_last", "UnfoldTensor", [inp("X", u)], ["Y"], size=2)
    case("ms_ops", "unfold_dim1_step", "UnfoldTensor", [inp("X", u)], ["Y"], dim=1, size=3, step=2)
    case("ms_ops", "unfold_int64", "UnfoldTensor", [inp("X", np.arange(24, dtype=np.int64).reshape(4, 6))], ["Y"],
         dim=0, size=2, step=1)
    words = np.array(["", "a", "abc", "abcd", "hello world", "onnxscope"], dtype=object)
    case("ms_ops", "murmur_string", "MurmurHash3", [inp("X", words)], ["Y"], out_types={"Y": np.uint32}, seed=42)
    case("ms_ops", "murmur_int32_signed", "MurmurHash3", [inp("X", np.array([0, 1, -7, 123456], np.int32))], ["Y"],
         out_types={"Y": np.int32}, positive=0)
    case("ms_ops", "murmur_int64", "MurmurHash3", [inp("X", np.array([[0, 1], [-7, 2**40]], np.int64))], ["Y"],
         out_types={"Y": np.uint32}, seed=7)
    case("ms_ops", "murmur_float", "MurmurHash3", [inp("X", randn(r, 5))], ["Y"], out_types={"Y": np.uint32})
    ids = np.array([[1, 2, 3, 1, 2], [4, 4, 4, 4, 0], [0, 1, 2, 3, 4]], np.int64)
    for n in (1, 2, 3):
        case("ms_ops", f"ngram_repeat_block_{n}", "NGramRepeatBlock", [inp("input_ids", ids),
                                                                      inp("scores", randn(r, 3, 6))], ["Y"],
             out_types={"Y": np.float32}, ngram_size=n)
    case("ms_ops", "dynamic_time_warping", "DynamicTimeWarping", [inp("X", r.random((5, 7)).astype(np.float32))],
         ["Y"], out_types={"Y": np.int32})
    case("ms_ops", "dynamic_time_warping_3d", "DynamicTimeWarping",
         [inp("X", r.integers(0, 3, size=(1, 6, 4)).astype(np.float32))], ["Y"], out_types={"Y": np.int32})


# ---- com.microsoft.nchwc ---------------------------------------------------------------------------------------------

def nchwc_cases():
    r = rng_for("nchwc")
    b = BLOCK
    x = randn(r, 2, 20, 5, 6)
    case("nchwc", "reorder_input", "ReorderInput", [inp("X", x)], ["Y"], domain=NCHWC)
    case("nchwc", "reorder_input_nhwc", "ReorderInput", [inp("X", randn(r, 1, 5, 6, 12))], ["Y"], domain=NCHWC,
         channels_last=1)
    blocked = randn(r, 2, 2 * b, 5, 6)
    case("nchwc", "reorder_output", "ReorderOutput", [inp("X", blocked)], ["Y"], domain=NCHWC, channels=2 * b - 3)
    case("nchwc", "reorder_output_nhwc", "ReorderOutput", [inp("X", blocked)], ["Y"], domain=NCHWC, channels=b + 4,
         channels_last=1)
    # Conv: blocked input and OIHWBiBo filter; plain NCHW input (fewer channels than a block) and OIHWBo filter;
    # depthwise (OIHWBo, group = channels); grouped with whole blocks per group; Sum and activations.
    xb = randn(r, 1, 2 * b, 7, 8)
    wb, bias = randn(r, 2 * b, 2 * b, 3, 3), randn(r, 2 * b)
    case("nchwc", "conv_blocked", "Conv", [inp("X", xb), const("W", wb), const("B", bias)], ["Y"], domain=NCHWC,
         pads=[1, 1, 1, 1])
    case("nchwc", "conv_blocked_stride_relu", "Conv", [inp("X", xb), const("W", wb), const("B", bias)], ["Y"],
         domain=NCHWC, strides=[2, 2], activation="Relu")
    case("nchwc", "conv_blocked_clip", "Conv", [inp("X", xb), const("W", randn(r, b, 2 * b, 1, 1))], ["Y"],
         domain=NCHWC, activation="Clip", activation_params=[-0.3, 0.6])
    case("nchwc", "conv_blocked_sum", "Conv",
         [inp("X", xb), const("W", wb), const("B", bias), inp("Sum", randn(r, 1, 2 * b, 7, 8))], ["Y"],
         domain=NCHWC, pads=[1, 1, 1, 1])
    case("nchwc", "conv_plain_input", "Conv",
         [inp("X", randn(r, 2, 3, 9, 9)), const("W", randn(r, b, 3, 3, 3)), const("B", randn(r, b))], ["Y"],
         domain=NCHWC, strides=[2, 2], pads=[1, 1, 1, 1], activation="LeakyRelu", activation_params=[0.1])
    case("nchwc", "conv_depthwise", "Conv",
         [inp("X", xb), const("W", randn(r, 2 * b, 1, 3, 3)), const("B", randn(r, 2 * b))], ["Y"], domain=NCHWC,
         group=2 * b, pads=[1, 1, 1, 1], activation="HardSigmoid", activation_params=[0.2, 0.5])
    case("nchwc", "conv_grouped", "Conv", [inp("X", xb), const("W", randn(r, 2 * b, b, 3, 3))], ["Y"], domain=NCHWC,
         group=2, dilations=[2, 1], activation="Sigmoid")
    # Pools and Upsample on a blocked input.
    case("nchwc", "max_pool", "MaxPool", [inp("X", xb)], ["Y"], domain=NCHWC, kernel_shape=[3, 3], strides=[2, 2],
         pads=[1, 1, 1, 1])
    case("nchwc", "max_pool_dilated_ceil", "MaxPool", [inp("X", xb)], ["Y"], domain=NCHWC, kernel_shape=[2, 2],
         dilations=[2, 2], ceil_mode=1, strides=[2, 2])
    case("nchwc", "average_pool", "AveragePool", [inp("X", xb)], ["Y"], domain=NCHWC, kernel_shape=[3, 3],
         pads=[1, 1, 1, 1])
    case("nchwc", "average_pool_include_pad", "AveragePool", [inp("X", xb)], ["Y"], domain=NCHWC,
         kernel_shape=[3, 2], pads=[1, 0, 1, 1], count_include_pad=1, strides=[2, 1])
    case("nchwc", "global_max_pool", "GlobalMaxPool", [inp("X", xb)], ["Y"], domain=NCHWC)
    case("nchwc", "global_average_pool", "GlobalAveragePool", [inp("X", xb)], ["Y"], domain=NCHWC)
    case("nchwc", "upsample_nearest", "Upsample", [inp("X", randn(r, 1, b, 3, 4))], ["Y"], domain=NCHWC,
         scales=[1, 1, 2, 3])
    for mode in ("asymmetric", "align_corners", "half_pixel"):
        case("nchwc", "upsample_linear_" + mode, "Upsample", [inp("X", randn(r, 2, b, 3, 4))], ["Y"], domain=NCHWC,
             scales=[1, 1, 2, 2], mode="linear", coordinate_transformation_mode=mode)


# ---- Experimental default-domain operators -----------------------------------------------------------------------

def experimental_cases():
    r = rng_for("experimental")
    x = randn(r, 2, 3, 4, 5)
    d = {"domain": "", "opsets": {"": 9}}
    case("experimental", "affine", "Affine", [inp("X", x)], ["Y"], alpha=1.5, beta=-0.25, **d)
    case("experimental", "affine_default", "Affine", [inp("X", x)], ["Y"], **d)
    case("experimental", "scale", "Scale", [inp("X", x)], ["Y"], scale=-2.5, **d)
    case("experimental", "scaled_tanh", "ScaledTanh", [inp("X", x)], ["Y"], alpha=1.7, beta=0.6, **d)
    case("experimental", "parametric_softplus", "ParametricSoftplus", [inp("X", 3 * x)], ["Y"], alpha=0.8,
         beta=1.9, **d)
    case("experimental", "image_scaler", "ImageScaler", [inp("X", x)], ["Y"], scale=0.5, bias=[0.1, -0.2, 0.3], **d)
    case("experimental", "crop_border", "Crop", [inp("X", x)], ["Y"], border=[1, 0, 2, 1], **d)
    case("experimental", "crop_scale", "Crop", [inp("X", x)], ["Y"], border=[1, 1, 0, 0], scale=[2, 3], **d)
    data = randn(r, 4, 6, 5)
    case("experimental", "dynamic_slice", "DynamicSlice",
         [inp("data", data), const("starts", np.array([1, -4], np.int64)), const("ends", np.array([3, 100], np.int64)),
          const("axes", np.array([0, 2], np.int64))], ["Y"], **d)
    case("experimental", "dynamic_slice_no_axes", "DynamicSlice",
         [inp("data", data), const("starts", np.array([0, 2, 1], np.int32)),
          const("ends", np.array([2, 5, 4], np.int32))], ["Y"], **d)
    case("experimental", "thresholded_relu_1", "ThresholdedRelu", [inp("X", x)], ["Y"], alpha=0.3, **d)
    case("experimental", "thresholded_relu_1_default", "ThresholdedRelu", [inp("X", 2 * x)], ["Y"], **d)
    d8 = {"domain": "", "opsets": {"": 8}}  # MeanVarianceNormalization-9 is onnx's
    case("experimental", "mvn_1", "MeanVarianceNormalization", [inp("X", x)], ["Y"], **d8)
    case("experimental", "mvn_1_across", "MeanVarianceNormalization", [inp("X", x)], ["Y"], across_channels=1, **d8)
    case("experimental", "mvn_1_mean_only", "MeanVarianceNormalization", [inp("X", x)], ["Y"],
         normalize_variance=0, **d8)


# ---- Lenient rules ---------------------------------------------------------------------------------------------------

def lenient_cases():
    r = rng_for("lenient")
    x = randn(r, 2, 3, 8)
    scale, bias = randn(r, 8), randn(r, 8)
    # A com.microsoft node in a model that imports only the default domain.
    case("lenient", "ms_without_import", "FusedGemm", [inp("A", randn(r, 3, 4)), const("B", randn(r, 4, 5))], ["Y"],
         opsets={"": 13}, activation="Relu")
    case("lenient", "ms_gelu_without_import", "Gelu", [inp("X", x)], ["Y"], opsets={"": 17})
    # LayerNormalization below opset 17, as onnxruntime's transformer optimizer writes it.
    for opset in (11, 13, 16):
        case("lenient", f"layer_norm_opset{opset}", "LayerNormalization",
             [inp("X", x), const("scale", scale), const("B", bias)], ["Y"], domain="", opsets={"": opset},
             axis=-1, epsilon=1e-5)
    case("lenient", "layer_norm_opset13_axis1", "LayerNormalization",
         [inp("X", x), const("scale", randn(r, 3, 8))], ["Y"], domain="", opsets={"": 13}, axis=1)
    case("lenient", "simplified_layer_norm_opset13", "SimplifiedLayerNormalization",
         [inp("X", x), const("scale", scale)], ["Y"], domain="", opsets={"": 13}, axis=-1, epsilon=1e-6)
    # An nchwc node without the com.microsoft.nchwc import.
    case("lenient", "nchwc_without_import", "ReorderInput", [inp("X", randn(r, 1, 8, 3, 3))], ["Y"], domain=NCHWC,
         opsets={"": 13})


# ---- Refusals --------------------------------------------------------------------------------------------------------

def refusal(name, op, inputs, outputs, expected, domain=MS, **attrs):
    REFUSALS.append((FusedCase("refused", name, op, inputs, outputs, domain, None, attrs), expected))


def refusal_cases():
    r = rng_for("fused_refusals")
    conv = [inp("X", randn(r, 1, 2, 5, 5)), const("W", randn(r, 3, 2, 3, 3))]
    refusal("fused_conv_gelu", "FusedConv", conv, ["Y"], ['"fused_conv_gelu"', "'activation'", "Relu, Tanh"],
            activation="Gelu")
    refusal("fused_conv_params", "FusedConv", conv, ["Y"], ['"fused_conv_params"', "'activation_params'", "2 values"],
            activation="Clip", activation_params=[0.0])
    g = [inp("A", randn(r, 2, 3)), const("B", randn(r, 3, 2))]
    refusal("fused_gemm_missing_alpha", "FusedGemm", g, ["Y"],
            ['"fused_gemm_missing_alpha"', "'activation_alpha'", "required"], activation="LeakyRelu")
    refusal("fused_gemm_unknown", "FusedGemm", g, ["Y"], ['"fused_gemm_unknown"', "'activation'", "not supported"],
            activation="Swish")
    refusal("nchwc_upsample_scales", "Upsample", [inp("X", randn(r, 1, BLOCK, 2, 2))], ["Y"],
            ['"nchwc_upsample_scales"', "'scales'", "first two 1"], domain=NCHWC, scales=[1, 2, 2, 2])
    refusal("nchwc_upsample_mode", "Upsample", [inp("X", randn(r, 1, BLOCK, 2, 2))], ["Y"],
            ['"nchwc_upsample_mode"', "'mode'", "nearest"], domain=NCHWC, scales=[1, 1, 2, 2], mode="cubic")
    refusal("nchwc_pool_unblocked", "MaxPool", [inp("X", randn(r, 1, BLOCK + 4, 4, 4))], ["Y"],
            ['"nchwc_pool_unblocked"', "block size"], domain=NCHWC, kernel_shape=[2, 2])
    refusal("reorder_output_channels", "ReorderOutput", [inp("X", randn(r, 1, BLOCK, 2, 2))], ["Y"],
            ['"reorder_output_channels"', "'channels'", "positive"], domain=NCHWC)
    refusal("crop_border", "Crop", [inp("X", randn(r, 1, 1, 4, 4))], ["Y"], ['"crop_border"', "'border'", "4 values"],
            domain="", border=[1, 1])
    refusal("nhwc_max_pool_float", "NhwcMaxPool", [inp("x", randn(r, 1, 4, 4, 2))], ["y"],
            ['"nhwc_max_pool_float"', "int8 or uint8"], kernel_shape=[2, 2])


def write_refusals(out_dir):
    case_writer.save_refusals(out_dir, REFUSALS, build, float_outputs=True)


# ---- Whole models saved by onnxruntime's optimizer -------------------------------------------------------------------

def small_cnn():
    """A small CNN in the default domain (opset 17): Conv + BatchNormalization + Relu, a residual Add, a depthwise
    Conv with Clip (ReLU6), MaxPool, a 1x1 Conv, a grouped Conv + Sigmoid, Concat on channels, Resize (nearest, x2), AveragePool,
    GlobalAveragePool, Flatten, Gemm + Relu, Gemm. Channel counts are multiples of 16, so that onnxruntime's NCHWc
    transformer converts it on every x86 CPU."""
    r = rng_for("small_cnn")
    inits, nodes = [], []

    def w(name, *shape, scale=0.2):
        inits.append(numpy_helper.from_array((r.standard_normal(shape) * scale).astype(np.float32), name))
        return name

    def node(op, ins, out, **attrs):
        nodes.append(helper.make_node(op, ins, [out], name=out + "_node", **attrs))
        return out

    t = node("Conv", ["input", w("c1_w", 16, 3, 3, 3), w("c1_b", 16)], "c1", pads=[1, 1, 1, 1])
    bn = [w("bn_s", 16, scale=0.1), w("bn_b", 16), w("bn_m", 16)]
    inits.append(numpy_helper.from_array((r.random(16) + 0.5).astype(np.float32), "bn_v"))
    t = node("BatchNormalization", [t] + bn + ["bn_v"], "bn1")
    t = node("Relu", [t], "relu1")
    u = node("Conv", [t, w("c2_w", 16, 16, 3, 3), w("c2_b", 16)], "c2", pads=[1, 1, 1, 1])
    u = node("Relu", [u], "relu2")
    u = node("Conv", [u, w("c3_w", 16, 16, 1, 1), w("c3_b", 16)], "c3")
    t = node("Add", [t, u], "res")
    t = node("Relu", [t], "relu3")
    inits.append(numpy_helper.from_array(np.array(0.0, np.float32), "zero"))
    inits.append(numpy_helper.from_array(np.array(6.0, np.float32), "six"))
    d = node("Conv", [t, w("dw_w", 16, 1, 3, 3), w("dw_b", 16)], "dw", group=16, pads=[1, 1, 1, 1])
    d = node("Clip", [d, "zero", "six"], "relu6")
    m = node("MaxPool", [d], "pool1", kernel_shape=[2, 2], strides=[2, 2])
    p = node("Conv", [m, w("p_w", 32, 16, 1, 1)], "proj")
    g = node("Conv", [p, w("g_w", 32, 16, 3, 3), w("g_b", 32)], "grouped", group=2, pads=[1, 1, 1, 1])
    g = node("Sigmoid", [g], "sig")
    c = node("Concat", [g, p], "cat", axis=1)
    inits.append(numpy_helper.from_array(np.array([1, 1, 2, 2], np.float32), "scales"))
    up = node("Resize", [c, "", "scales"], "up", mode="nearest", coordinate_transformation_mode="asymmetric",
              nearest_mode="floor")
    a = node("AveragePool", [up], "avg", kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    a = node("Conv", [a, w("c4_w", 32, 64, 3, 3), w("c4_b", 32)], "c4", pads=[1, 1, 1, 1])
    a = node("Relu", [a], "relu4")
    gp = node("GlobalAveragePool", [a], "gap")
    f = node("Flatten", [gp], "flat")
    f = node("Gemm", [f, w("fc1_w", 24, 32), w("fc1_b", 24)], "fc1", transB=1)
    f = node("Relu", [f], "relu5")
    node("Gemm", [f, w("fc2_w", 10, 24), w("fc2_b", 10)], "logits", transB=1)
    graph = helper.make_graph(
        nodes, "small_cnn", [helper.make_tensor_value_info("input", onnx.TensorProto.FLOAT, [2, 3, 16, 16])],
        [helper.make_tensor_value_info("logits", onnx.TensorProto.FLOAT, [2, 10])], initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model


def write_optimized(out_dir, name, model, level, required_domains):
    case_dir = os.path.join(out_dir, "whole", name)
    shutil.rmtree(case_dir, ignore_errors=True)
    os.makedirs(os.path.join(case_dir, "test_data_set_0"))
    path = os.path.join(case_dir, "model.onnx")
    options = ort.SessionOptions()
    options.graph_optimization_level = level
    options.optimized_model_filepath = path
    options.intra_op_num_threads = 1
    ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    saved = onnx.load(path)
    used = {n.domain for n in saved.graph.node}
    missing = [d for d in required_domains if d not in used]
    if missing:
        raise SystemExit(f"{name}: onnxruntime's optimizer wrote no node of {missing}")
    ops = sorted({(n.domain or "ai.onnx") + "." + n.op_type for n in saved.graph.node if n.domain})
    x = rng_for(name + "_input").standard_normal((2, 3, 16, 16)).astype(np.float32)
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])
    outputs = session.run(None, {"input": x})
    onnx.save_tensor(numpy_helper.from_array(x, "input"), os.path.join(case_dir, "test_data_set_0", "input_0.pb"))
    for i, (o, v) in enumerate(zip(session.get_outputs(), outputs)):
        onnx.save_tensor(numpy_helper.from_array(v, o.name),
                         os.path.join(case_dir, "test_data_set_0", f"output_{i}.pb"))
    print(f"{name}: {', '.join(ops)}")


def whole_models(out_dir):
    model = small_cnn()
    write_optimized(out_dir, "cnn_extended", model, ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED, [MS])
    import platform
    nchwc = [NCHWC] if platform.machine() in ("x86_64", "AMD64") else []
    write_optimized(out_dir, "cnn_all", model, ort.GraphOptimizationLevel.ORT_ENABLE_ALL, nchwc)


def main():
    fused_conv_cases()
    fused_gemm_cases()
    nhwc_max_pool_cases()
    ms_tensor_cases()
    nchwc_cases()
    experimental_cases()
    lenient_cases()
    refusal_cases()
    case_writer.generate(sys.argv, CASES, write, {"refused": write_refusals, "whole": whole_models})

if __name__ == "__main__":
    main()
