"""Writes ONNX backend test-case folders for onnxruntime's quantized (QOperator) com.microsoft operators.

    <test venv python> make_quant_cases.py <output dir> [group ...]

Each case is a one-node model built with onnx.helper for one operator, one element type and one combination of
attributes, broadcasting and optional inputs, with seeded inputs; the expected outputs are onnxruntime's (pinned in
scripts/test-requirements.txt; CPU execution provider, graph optimizations disabled, one thread). Cases land in
<output>/<group>/<case>/, one group per operator family, so that CTest can set a tolerance per group. Integer outputs
are compared exactly by onnxscope-cli; a case marked `as_float` appends Cast(to=float) to its output, so that its
group's absolute tolerance (one quantization step) applies where onnxruntime computes a float function its own way.
Models that must be refused land in <output>/refused with the substrings their error must hold (check_refusals.py).
Needs onnx, onnxruntime and numpy; no torch.
"""

import os
import sys

import numpy as np
from onnx import TensorProto, helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import case_writer  # noqa: E402  (the seeded generators, onnxruntime's session, the case folders)
from case_writer import rng_for  # noqa: E402

MS = "com.microsoft"
CASES = []
REFUSALS = []


class Case:
    """One node. inputs: (name, array, is_initializer) or None for an omitted optional input."""

    def __init__(self, case_group, name, op, inputs, output_type, domain=MS, as_float=False, extra_outputs=(),
                 **attrs):
        self.group, self.name, self.op, self.domain = case_group, name, op, domain
        self.inputs, self.output_type, self.as_float, self.attrs = inputs, output_type, as_float, attrs
        self.extra_outputs = list(extra_outputs)  # further outputs of the node (name, element type)


def case(case_group, name, op, inputs, output_type, domain=MS, as_float=False, extra_outputs=(), **attrs):
    CASES.append(Case(case_group, name, op, inputs, output_type, domain, as_float, extra_outputs, **attrs))


def refusal(name, op, inputs, output_type, expected, domain=MS, **attrs):
    REFUSALS.append((Case("refused", name, op, inputs, output_type, domain, **attrs), expected))


def inp(name, array):
    return (name, np.asarray(array), False)


def const(name, array):
    return (name, np.asarray(array), True)


def tensor_type(dtype):
    return helper.np_dtype_to_tensor_dtype(np.dtype(dtype))


def build(c):
    node_inputs, graph_inputs, inits, feeds = case_writer.node_inputs(c.inputs)
    out = "y_q" if c.as_float else "y"
    nodes = [helper.make_node(c.op, node_inputs, [out] + [n for n, _ in c.extra_outputs], name=c.name,
                              domain=c.domain, **c.attrs)]
    out_type = c.output_type
    if c.as_float:
        nodes.append(helper.make_node("Cast", [out], ["y"], name=c.name + "_to_float", to=TensorProto.FLOAT))
        out_type = np.float32
    outputs = [helper.make_tensor_value_info("y", tensor_type(out_type), None)]
    outputs += [helper.make_tensor_value_info(n, tensor_type(t), None) for n, t in c.extra_outputs]
    graph = helper.make_graph(nodes, c.name, graph_inputs, outputs, initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21), helper.make_opsetid(MS, 1)])
    model.ir_version = 10
    return model, feeds


def write(c, out_dir):
    model, feeds = build(c)
    names = [o.name for o in model.graph.output]
    results = case_writer.run_model(model, feeds, names)
    case_writer.save_case(os.path.join(out_dir, c.group, c.name), model, feeds, names, results)


def qrand(r, dtype, *shape):
    info = np.iinfo(dtype)
    return r.integers(info.min, info.max + 1, size=shape, dtype=np.int64).astype(dtype)


def scalar(value, dtype):
    return np.array(value, dtype=dtype)


def zero_point(r, dtype):
    return scalar(r.integers(100, 156) if dtype == np.uint8 else r.integers(-28, 28), dtype)


def scale(r, low=0.005, high=0.05):
    return scalar(r.uniform(low, high), np.float32)


TYPES = ((np.uint8, "u8"), (np.int8, "s8"))


# ---- QLinearAdd, QLinearMul ------------------------------------------------------------------------------------


def binary_cases():
    shapes = {"same": ((2, 3, 17), (2, 3, 17)), "b_scalar": ((4, 33), ()), "a_scalar": ((), (4, 33)),
              "b_row": ((3, 5, 16), (16,)), "a_column": ((6, 1), (6, 40)), "both": ((3, 1, 9), (1, 4, 9)),
              "b_one": ((2, 19), (1,))}
    for op in ("QLinearAdd", "QLinearMul"):
        for dt, tn in TYPES:
            for form, (sa, sb) in shapes.items():
                for zp in (True, False) if form in ("same", "b_scalar") else (True,):
                    name = f"{op.lower()}_{tn}_{form}" + ("" if zp else "_no_c_zero_point")
                    r = rng_for(name)
                    low, high = (0.01, 0.1) if op == "QLinearAdd" else (0.05, 0.2)
                    # onnxruntime's type inference refuses an omitted zero point before the last input.
                    ins = [inp("A", qrand(r, dt, *sa)), const("A_scale", scale(r, low, high)),
                           const("A_zero_point", zero_point(r, dt)),
                           inp("B", qrand(r, dt, *sb)), const("B_scale", scale(r, low, high)),
                           const("B_zero_point", zero_point(r, dt)),
                           const("C_scale", scale(r, 0.02, 0.2) if op == "QLinearAdd" else scale(r, 0.3, 1.5)),
                           const("C_zero_point", zero_point(r, dt)) if zp else None]
                    while ins[-1] is None:
                        ins.pop()
                    case("qlinear_binary", name, op, ins, dt)


# ---- lookup-table operators: QLinearSigmoid, QLinearLeakyRelu, QLinearConcat, QLinearWhere ----------------------


def lookup_cases():
    for dt, tn in TYPES:
        for op, attrs in (("QLinearSigmoid", {}), ("QLinearLeakyRelu", {}), ("QLinearLeakyRelu", {"alpha": 0.25})):
            for zp in (True, False):
                name = f"{op.lower()}_{tn}" + ("_alpha" if attrs else "") + ("" if zp else "_no_zero_points")
                r = rng_for(name)
                out_scale = scale(r, 1 / 300, 1 / 200) if op == "QLinearSigmoid" else scale(r, 0.02, 0.05)
                # Omitted zero points stay as empty names: onnxruntime's kernel reads all five input slots.
                ins = [inp("X", qrand(r, dt, 3, 4, 50)), const("X_scale", scale(r, 0.02, 0.06)),
                       const("X_zero_point", zero_point(r, dt)) if zp else None, const("Y_scale", out_scale),
                       const("Y_zero_point", zero_point(r, dt)) if zp else None]
                # onnxruntime's sigmoid is an approximation of its own: compared within one step (see the CMake group).
                group = "qlinear_sigmoid" if op == "QLinearSigmoid" else "qlinear_lookup"
                case(group, name, op, ins, dt, as_float=op == "QLinearSigmoid", **attrs)
        for form, shapes, axis in (("axis1", ((2, 3, 4), (2, 5, 4), (2, 1, 4)), 1), ("last", ((3, 7), (3, 2)), -1),
                                   ("first", ((1, 6), (4, 6)), 0), ("copy", ((2, 8), (2, 8)), 1)):
            name = f"qlinear_concat_{tn}_{form}"
            r = rng_for(name)
            ys, yz = scale(r), zero_point(r, dt)
            ins = [const("Y_scale", ys), const("Y_zero_point", yz)]
            for i, shape in enumerate(shapes):
                same = form == "copy" and i == 0
                ins += [inp(f"X{i}", qrand(r, dt, *shape)), const(f"X{i}_scale", ys if same else scale(r)),
                        const(f"X{i}_zero_point", yz if same else zero_point(r, dt))]
            case("qlinear_lookup", name, "QLinearConcat", ins, dt, axis=axis)
        for form, (sc, sx, sy) in (("same", ((3, 20), (3, 20), (3, 20))), ("broadcast", ((4, 1), (1, 9), (4, 9))),
                                   ("scalar_cond", ((), (2, 11), (11,))), ("copy", ((5, 6), (5, 6), (5, 6)))):
            name = f"qlinear_where_{tn}_{form}"
            r = rng_for(name)
            zs, zz = scale(r), zero_point(r, dt)
            same = form == "copy"
            ins = [inp("condition", r.integers(0, 2, size=sc).astype(bool)), inp("X", qrand(r, dt, *sx)),
                   const("x_scale", zs if same else scale(r)), const("x_zero_point", zz if same else zero_point(r, dt)),
                   inp("Y", qrand(r, dt, *sy)), const("y_scale", scale(r)), const("y_zero_point", zero_point(r, dt)),
                   const("z_scale", zs), const("z_zero_point", zz)]
            case("qlinear_lookup", name, "QLinearWhere", ins, dt)


# ---- QLinearSoftmax ----------------------------------------------------------------------------------------------


def softmax_cases():
    for dt, tn in TYPES:
        for form, shape, attrs in (("opset13_last", (4, 5, 10), {"opset": 13}),
                                   ("opset13_axis1", (3, 6, 4), {"opset": 13, "axis": 1}),
                                   ("opset12_default", (2, 3, 5), {"opset": 12}),
                                   ("opset11_axis2", (2, 3, 4, 3), {"opset": 11, "axis": 2}),
                                   ("opset13_long", (2, 300), {"opset": 13, "axis": -1})):
            name = f"qlinear_softmax_{tn}_{form}"
            r = rng_for(name)
            yz = scalar(0, dt) if dt == np.uint8 else scalar(-128, dt)
            # Scales that keep onnxruntime's int8 wrap (a probability of 1 with zero point -128) out of the cases.
            x = qrand(r, dt, *shape)
            ins = [inp("X", x), const("X_scale", scale(r, 0.01, 0.03)), const("x_zero_point", zero_point(r, dt)),
                   const("y_scale", scalar(1 / 256, np.float32)), const("y_zero_point", yz)]
            case("qlinear_softmax", name, "QLinearSoftmax", ins, dt, **attrs)


# ---- QLinearAveragePool, QLinearGlobalAveragePool --------------------------------------------------------------


def pool_cases():
    for dt, tn in TYPES:
        for form, shape, attrs in (("nchw", (2, 3, 5, 7), {}), ("nhwc", (2, 5, 7, 3), {"channels_last": 1}),
                                   ("1d", (2, 4, 9), {}), ("3d", (1, 2, 3, 4, 5), {})):
            name = f"qlinear_global_average_pool_{tn}_{form}"
            r = rng_for(name)
            ins = [inp("X", qrand(r, dt, *shape)), const("x_scale", scale(r)), const("x_zero_point", zero_point(r, dt)),
                   const("y_scale", scale(r)), const("y_zero_point", zero_point(r, dt))]
            case("qlinear_pool", name, "QLinearGlobalAveragePool", ins, dt, **attrs)
        for form, shape, attrs in (
                ("k3", (2, 3, 8, 9), {"kernel_shape": [3, 3]}),
                ("k2s2", (1, 4, 8, 8), {"kernel_shape": [2, 2], "strides": [2, 2]}),
                ("pads", (1, 2, 7, 6), {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]}),
                ("pads_count", (1, 2, 7, 6), {"kernel_shape": [3, 3], "pads": [1, 0, 2, 1], "count_include_pad": 1}),
                ("ceil", (1, 2, 7, 7), {"kernel_shape": [3, 3], "strides": [2, 2], "ceil_mode": 1}),
                ("same_upper", (1, 3, 6, 5), {"kernel_shape": [3, 2], "auto_pad": "SAME_UPPER"}),
                ("same_lower", (1, 3, 6, 5), {"kernel_shape": [2, 3], "auto_pad": "SAME_LOWER", "strides": [2, 1]}),
                ("valid", (1, 2, 6, 5), {"kernel_shape": [2, 2], "auto_pad": "VALID"}),
                ("global", (2, 3, 4, 5), {"kernel_shape": [4, 5]}),
                ("1d", (2, 3, 11), {"kernel_shape": [4], "strides": [2], "pads": [1, 2]}),
                ("3d", (1, 2, 5, 4, 6), {"kernel_shape": [2, 3, 2], "strides": [1, 1, 2], "pads": [0, 1, 0, 1, 0, 1]}),
                ("nhwc", (2, 7, 6, 3), {"kernel_shape": [3, 2], "strides": [2, 1], "pads": [1, 0, 1, 1],
                                        "channels_last": 1})):
            for zp in (True, False) if form == "k3" else (True,):
                name = f"qlinear_average_pool_{tn}_{form}" + ("" if zp else "_no_y_zero_point")
                r = rng_for(name)
                ins = [inp("X", qrand(r, dt, *shape)), const("x_scale", scale(r)),
                       const("x_zero_point", zero_point(r, dt)), const("y_scale", scale(r)),
                       const("y_zero_point", zero_point(r, dt)) if zp else None]
                while ins[-1] is None:
                    ins.pop()
                case("qlinear_pool", name, "QLinearAveragePool", ins, dt, **attrs)


# ---- QLinearConv (com.microsoft), QGemm ------------------------------------------------------------------------


def conv_cases():
    for xt, wt, tn in ((np.uint8, np.int8, "u8s8"), (np.uint8, np.uint8, "u8u8"), (np.int8, np.int8, "s8s8")):
        for form, xs, ws, attrs, per_channel, bias in (
                ("plain", (1, 3, 7, 8), (4, 3, 3, 3), {}, False, True),
                ("per_channel", (2, 4, 6, 6), (6, 4, 3, 3), {"pads": [1, 1, 1, 1]}, True, True),
                ("group", (1, 4, 7, 7), (6, 2, 3, 3), {"group": 2, "strides": [2, 2], "pads": [1, 0, 1, 0]}, True,
                 False),
                ("depthwise", (1, 5, 6, 6), (5, 1, 3, 3), {"group": 5, "dilations": [2, 1], "pads": [2, 1, 2, 1]},
                 True, True),
                ("nhwc", (2, 6, 5, 3), (4, 3, 2, 3), {"channels_last": 1, "pads": [0, 1, 1, 1]}, True, True),
                ("nhwc_1x1", (1, 4, 4, 8), (5, 8, 1, 1), {"channels_last": 1}, False, False),
                ("1d", (2, 3, 12), (4, 3, 3), {"strides": [2], "auto_pad": "SAME_UPPER"}, False, True)):
            name = f"qlinear_conv_{tn}_{form}"
            r = rng_for(name)
            m = ws[0]
            w_scale = r.uniform(0.002, 0.01, size=m).astype(np.float32) if per_channel else scale(r, 0.002, 0.01)
            w_zero = np.zeros(m, dtype=wt) if per_channel else zero_point(r, wt)
            if per_channel and wt == np.uint8:
                w_zero = np.full(m, 128, dtype=wt)
            ins = [inp("x", qrand(r, xt, *xs)), const("x_scale", scale(r, 0.01, 0.03)),
                   const("x_zero_point", zero_point(r, xt)), const("w", qrand(r, wt, *ws)), const("w_scale", w_scale),
                   const("w_zero_point", w_zero), const("y_scale", scale(r, 0.05, 0.2)),
                   const("y_zero_point", zero_point(r, xt))]
            if bias:
                ins.append(const("B", r.integers(-3000, 3000, size=m).astype(np.int32)))
            case("qlinear_conv", name, "QLinearConv", ins, xt, **attrs)


def qgemm_cases():
    for at, bt, tn in ((np.uint8, np.int8, "u8s8"), (np.uint8, np.uint8, "u8u8"), (np.int8, np.int8, "s8s8")):
        for form, (m, k, n), attrs, c_shape, out, per_col in (
                ("plain", (5, 16, 7), {}, None, "q", False),
                ("trans", (4, 9, 6), {"transA": 1, "transB": 1}, (6,), "q", True),
                ("alpha_c", (3, 20, 8), {"alpha": 0.5}, (3, 8), "q", False),
                ("c_column", (6, 12, 5), {"transB": 1}, (6, 1), "q", True),
                ("float", (4, 10, 6), {}, (6,), "f", True),
                ("float_scaled", (4, 10, 6), {"transA": 1}, None, "fs", False),
                # Past the integer product's panel of 16 columns and groups of 4, per-column parameters.
                ("odd_wide", (19, 37, 23), {"transB": 1}, (23,), "q", True)):
            name = f"qgemm_{tn}_{form}"
            r = rng_for(name)
            a = qrand(r, at, *((k, m) if attrs.get("transA") else (m, k)))
            b = qrand(r, bt, *((n, k) if attrs.get("transB") else (k, n)))
            b_scale = r.uniform(0.002, 0.01, size=n).astype(np.float32) if per_col else scale(r, 0.002, 0.01)
            b_zero = (np.full(n, 128 if bt == np.uint8 else 0, dtype=bt) if per_col else zero_point(r, bt))
            ins = [inp("A", a), const("a_scale", scale(r, 0.01, 0.03)), const("a_zero_point", zero_point(r, at)),
                   const("B", b), const("b_scale", b_scale), const("b_zero_point", b_zero),
                   const("C", r.integers(-2000, 2000, size=c_shape).astype(np.int32)) if c_shape else None]
            if out == "q":
                ins += [const("y_scale", scale(r, 0.05, 0.2)), const("y_zero_point", zero_point(r, at))]
            elif out == "fs":
                ins += [const("y_scale", scale(r, 0.05, 0.2))]
            while ins[-1] is None:
                ins.pop()
            case("qgemm", name, "QGemm", ins, at if out == "q" else np.float32, **attrs)


# ---- com.microsoft QuantizeLinear / DequantizeLinear, MatMulInteger16 -----------------------------------------


def quantize_cases():
    import ml_dtypes
    types = ((np.uint8, "u8"), (np.int8, "s8"), (np.uint16, "u16"), (np.int16, "s16"),
             (ml_dtypes.int4, "s4"), (ml_dtypes.uint4, "u4"))
    for dt, tn in types:
        info = ml_dtypes.iinfo(dt)
        span = info.max - info.min
        for form in ("tensor", "axis", "no_zero_point"):
            name = f"ms_quantize_linear_{tn}_{form}"
            r = rng_for(name)
            x = (r.standard_normal((3, 4, 5)) * 2).astype(np.float32)
            if form == "axis":
                s = r.uniform(2.0, 5.0, size=4).astype(np.float32) / span
                z = r.integers(info.min + span // 4, info.max - span // 4 + 1, size=4).astype(dt)
                attrs = {"axis": 1}
            else:
                s, z, attrs = scalar(r.uniform(3.0, 6.0) / span, np.float32), scalar(info.min + span // 2, dt), {}
            ins = [inp("x", x), const("y_scale", s)] + ([] if form == "no_zero_point" and dt == np.uint8 else
                                                        [const("y_zero_point", z)])
            # onnxruntime's Python API cannot return or take 4-bit arrays: they are cast to float after the node and
            # held as initializers before it.
            narrow = dt in (ml_dtypes.int4, ml_dtypes.uint4)
            case("ms_quantize", name, "QuantizeLinear", ins, dt, as_float=narrow, **attrs)
            name = f"ms_dequantize_linear_{tn}_{form}"
            r = rng_for(name)
            q = r.integers(info.min, info.max + 1, size=(3, 4, 5)).astype(dt)
            ins = [(const if narrow else inp)("x", q), const("x_scale", s)] + (
                [] if form == "no_zero_point" else [const("x_zero_point", z)])
            case("ms_quantize", name, "DequantizeLinear", ins, np.float32, **attrs)
    r = rng_for("ms_dequantize_linear_s32")
    case("ms_quantize", "ms_dequantize_linear_s32", "DequantizeLinear",
         [inp("x", r.integers(-100000, 100000, size=(4, 6)).astype(np.int32)), const("x_scale", scalar(0.001, np.float32))],
         np.float32)


def matmul_integer16_cases():
    for form, sa, sb in (("2d", (5, 7), (7, 3)), ("batched", (2, 3, 4, 6), (6, 5)), ("vector", (8,), (2, 8, 3))):
        name = f"matmul_integer16_{form}"
        r = rng_for(name)
        case("matmul_integer16", name, "MatMulInteger16",
             [inp("A", qrand(r, np.int16, *sa)), inp("B", qrand(r, np.int16, *sb))], np.int32)


# ---- QAttention ----------------------------------------------------------------------------------------------------


def qattention_cases():
    for it, wt, tn in ((np.uint8, np.int8, "u8s8"), (np.uint8, np.uint8, "u8u8")):
        for form, b, s, din, n, h, mask, past, attrs, per_col in (
                ("plain", 2, 4, 16, 2, 8, None, 0, {}, False),
                ("per_column_mask", 2, 5, 12, 3, 4, "lengths", 0, {}, True),
                ("causal_past", 1, 3, 16, 2, 8, None, 2, {"unidirectional": 1}, True),
                ("mask_2d_scale", 2, 4, 8, 2, 4, "2d", 0, {"scale": 0.3, "mask_filter_value": -5000.0}, False)):
            name = f"qattention_{tn}_{form}"
            r = rng_for(name)
            width = 3 * n * h
            w_scale = r.uniform(0.005, 0.02, size=width).astype(np.float32) if per_col else scale(r, 0.005, 0.02)
            w_zero = (np.full(width, 128 if wt == np.uint8 else 0, dtype=wt) if per_col else zero_point(r, wt))
            total = past + s
            mask_input = None
            if mask == "lengths":
                mask_input = inp("mask_index", r.integers(1, total + 1, size=b).astype(np.int32))
            elif mask == "2d":
                m = r.integers(0, 2, size=(b, total)).astype(np.int32)
                m[:, 0] = 1
                mask_input = inp("mask_index", m)
            ins = [inp("input", qrand(r, it, b, s, din)), const("weight", qrand(r, wt, din, width)),
                   const("bias", (r.standard_normal(width) * 0.2).astype(np.float32)),
                   const("input_scale", scale(r, 0.01, 0.03)), const("weight_scale", w_scale), mask_input,
                   const("input_zero_point", zero_point(r, it)), const("weight_zero_point", w_zero),
                   inp("past", (r.standard_normal((2, b, n, past, h))).astype(np.float32)) if past else None]
            while ins[-1] is None:
                ins.pop()
            case("qattention", name, "QAttention", ins, np.float32,
                 extra_outputs=[("present", np.float32)] if past else [], num_heads=n, **attrs)


def qembed_cases():
    for dt, tn in TYPES:
        for form, b, s, h, segments, mask in (("plain", 2, 5, 16, True, True), ("no_segments", 3, 4, 8, False, False)):
            name = f"qembed_layer_norm_{tn}_{form}"
            r = rng_for(name)

            def table(rows, cols=None):
                return qrand(r, dt, rows, cols) if cols else qrand(r, dt, rows)

            ins = [inp("input_ids", r.integers(0, 20, size=(b, s)).astype(np.int32)),
                   inp("segment_ids", r.integers(0, 2, size=(b, s)).astype(np.int32)) if segments else None,
                   const("word_embedding", table(20, h)), const("position_embedding", table(s + 2, h)),
                   const("segment_embedding", table(2, h)) if segments else None,
                   const("gamma", table(h)), const("beta", table(h)),
                   inp("mask", (r.integers(0, 4, size=(b, s)) > 0).astype(np.int32)) if mask else None,
                   const("word_scale", scale(r)), const("position_scale", scale(r)),
                   const("segment_scale", scale(r)) if segments else None,
                   const("gamma_scale", scale(r, 0.005, 0.01)), const("beta_scale", scale(r, 0.001, 0.005)),
                   const("word_zero_point", zero_point(r, dt)), const("position_zero_point", zero_point(r, dt)),
                   const("segment_zero_point", zero_point(r, dt)) if segments else None,
                   const("gamma_zero_point", zero_point(r, dt)), const("beta_zero_point", zero_point(r, dt))]
            case("qembed", name, "QEmbedLayerNormalization", ins, np.float32,
                 extra_outputs=[("mask_index", np.int32)], epsilon=1e-5)


def dynamic_quantize_lstm_cases():
    for form, wt, direction, per_col, extras in (("forward_u8", np.uint8, "forward", False, {"bias", "initial"}),
                                                 ("bidirectional_s8_per_column", np.int8, "bidirectional", True,
                                                  {"bias"}),
                                                 ("reverse_peephole_clip", np.int8, "reverse", False,
                                                  {"bias", "peephole", "clip"}),
                                                 ("forward_lengths_u8_per_column", np.uint8, "forward", True,
                                                  {"lengths", "initial"}),
                                                 # Sizes past the integer product's groups of 4 and panels of 16
                                                 # columns, odd everywhere, a uint8 zero point other than 128.
                                                 ("odd_bidirectional_u8_zero_point", np.uint8, "bidirectional", False,
                                                  {"bias", "lengths", "initial", "odd", "zero_point"})):
        name = f"dynamic_quantize_lstm_{form}"
        r = rng_for(name)
        seq, batch, inp_size, hidden = (7, 3, 45, 37) if "odd" in extras else (5, 3, 6, 4)
        nd = 2 if direction == "bidirectional" else 1
        g = 4 * hidden

        def params(k):
            sc = (r.uniform(0.003, 0.01, size=(nd, g)) if per_col else r.uniform(0.003, 0.01, size=nd))
            # onnxruntime wants int8 zero points of 0 and one uint8 zero point per direction.
            zp = (np.zeros(sc.shape, wt) if wt == np.int8 else
                  np.full(sc.shape, 97 if "zero_point" in extras else 128, wt))
            return qrand(r, wt, nd, k, g), sc.astype(np.float32), zp

        w, ws, wz = params(inp_size)
        rr, rs, rz = params(hidden)
        ins = [inp("X", r.standard_normal((seq, batch, inp_size)).astype(np.float32)), const("W", w), const("R", rr),
               const("B", (r.standard_normal((nd, 8 * hidden)) * 0.1).astype(np.float32)) if "bias" in extras else None,
               inp("sequence_lens", np.array([5, 3, 1] if seq == 5 else [seq, 4, 0], np.int32))
               if "lengths" in extras else None,
               inp("initial_h", (r.standard_normal((nd, batch, hidden)) * 0.5).astype(np.float32))
               if "initial" in extras else None,
               inp("initial_c", (r.standard_normal((nd, batch, hidden)) * 0.5).astype(np.float32))
               if "initial" in extras else None,
               const("P", (r.standard_normal((nd, 3 * hidden)) * 0.1).astype(np.float32))
               if "peephole" in extras else None,
               const("W_scale", ws), const("W_zero_point", wz), const("R_scale", rs), const("R_zero_point", rz)]
        attrs = {"hidden_size": hidden, "direction": direction}
        if "clip" in extras:
            attrs["clip"] = 0.8
        case("dynamic_quantize_lstm", name, "DynamicQuantizeLSTM", ins, np.float32,
             extra_outputs=[("Y_h", np.float32), ("Y_c", np.float32)], **attrs)


def matmul_bnb4_cases():
    for form, k, n, block, qtype, a_shape in (("nf4_b16", 64, 24, 16, 1, (2, 3, 64)), ("fp4_b32", 96, 10, 32, 0, (5, 96)),
                                              ("nf4_b64_odd", 33, 7, 64, 1, (4, 33)),
                                              ("fp4_b16_vector", 48, 5, 16, 0, (48,))):
        name = f"matmul_bnb4_{form}"
        r = rng_for(name)
        count = n * k
        ins = [inp("A", r.standard_normal(a_shape).astype(np.float32)),
               const("B", r.integers(0, 256, size=(count + 1) // 2).astype(np.uint8)),
               const("absmax", r.uniform(0.05, 0.5, size=(count + block - 1) // block).astype(np.float32))]
        case("matmul_bnb4", name, "MatMulBnb4", ins, np.float32, K=k, N=n, block_size=block, quant_type=qtype)


def fpq4_blob(r, k, n, zero_point):
    """B packed as MLAS's Q4 blocks: per column, per 32 rows, a float scale, a uint8 zero point (type 1), then 16
    bytes of two 4-bit codes each."""
    blob = bytearray()
    for _ in range(n):
        for _ in range((k + 31) // 32):
            blob += np.float32(r.uniform(0.01, 0.1)).tobytes()
            if zero_point:
                blob.append(int(r.integers(0, 16)))
            blob += r.integers(0, 256, size=16).astype(np.uint8).tobytes()
    return np.frombuffer(bytes(blob), dtype=np.uint8).copy()


def matmul_fpq4_cases():
    for form, k, n, a_shape, qtype in (("zp_2d", 64, 12, (5, 64), 1), ("sym_batched", 40, 9, (2, 3, 40), 0),
                                       ("zp_vector_tail", 70, 6, (70,), 1)):
        name = f"matmul_fpq4_{form}"
        r = rng_for(name)
        ins = [inp("A", r.standard_normal(a_shape).astype(np.float32)), const("B", fpq4_blob(r, k, n, qtype != 0)),
               const("B_shape", np.array([k, n], np.int64))]
        case("matmul_fpq4", name, "MatMulFpQ4", ins, np.float32, blk_quant_type=qtype)


# ---- refusals ------------------------------------------------------------------------------------------------


def refusal_cases():
    r = rng_for("refusals")
    u = qrand(r, np.uint8, 2, 4)
    f = scalar(0.1, np.float32)
    z = scalar(128, np.uint8)
    refusal("refuse_qlinear_add_per_axis_scale", "QLinearAdd",
            [inp("A", u), const("A_scale", np.array([0.1, 0.2], np.float32)), const("A_zero_point", z), inp("B", u),
             const("B_scale", f), const("B_zero_point", z), const("C_scale", f), const("C_zero_point", z)], np.uint8,
            ["refuse_qlinear_add_per_axis_scale", "QLinearAdd", "A scale", "per tensor"])
    refusal("refuse_qlinear_add_mixed_types", "QLinearAdd",
            [inp("A", u), const("A_scale", f), const("A_zero_point", z), inp("B", u.astype(np.int8)),
             const("B_scale", f), const("B_zero_point", scalar(0, np.int8)), const("C_scale", f),
             const("C_zero_point", z)], np.uint8, ["refuse_qlinear_add_mixed_types", "B is int8", "A is uint8"])
    refusal("refuse_qlinear_softmax_no_opset", "QLinearSoftmax",
            [inp("X", u), const("X_scale", f), const("x_zero_point", z), const("y_scale", f), const("y_zero_point", z)],
            np.uint8, ["refuse_qlinear_softmax_no_opset", "attribute 'opset'", "required"])
    refusal("refuse_qlinear_average_pool_dilations", "QLinearAveragePool",
            [inp("X", qrand(r, np.uint8, 1, 1, 5, 5)), const("x_scale", f), const("x_zero_point", z),
             const("y_scale", f), const("y_zero_point", z)], np.uint8,
            ["refuse_qlinear_average_pool_dilations", "attribute 'dilations'", "only 1 is supported"],
            kernel_shape=[2, 2], dilations=[2, 2])
    refusal("refuse_qlinear_concat_no_axis", "QLinearConcat",
            [const("Y_scale", f), const("Y_zero_point", z), inp("X0", u), const("X0_scale", f),
             const("X0_zero_point", z)], np.uint8, ["refuse_qlinear_concat_no_axis", "attribute 'axis'"])
    refusal("refuse_qgemm_rank3", "QGemm",
            [inp("A", qrand(r, np.uint8, 2, 3, 4)), const("a_scale", f), const("a_zero_point", z),
             const("B", qrand(r, np.int8, 4, 5)), const("b_scale", f), const("b_zero_point", scalar(0, np.int8))],
            np.float32, ["refuse_qgemm_rank3", "QGemm", "must be 2-D"])
    refusal("refuse_qgemm_b_scale_size", "QGemm",
            [inp("A", qrand(r, np.uint8, 2, 4)), const("a_scale", f), const("a_zero_point", z),
             const("B", qrand(r, np.int8, 4, 5)), const("b_scale", np.full(3, 0.1, np.float32)),
             const("b_zero_point", np.zeros(3, np.int8))],
            np.float32, ["refuse_qgemm_b_scale_size", "b_scale", "[5] (per column)"])
    refusal("refuse_qlinear_where_zero_scale", "QLinearWhere",
            [inp("condition", np.array([True, False])), inp("X", u[0, :2]), const("x_scale", scalar(0, np.float32)),
             const("x_zero_point", z), inp("Y", u[1, :2]), const("y_scale", f), const("y_zero_point", z),
             const("z_scale", f), const("z_zero_point", z)], np.uint8,
            ["refuse_qlinear_where_zero_scale", "X scale", "non-zero"])


def write_refusals(out_dir):
    case_writer.save_refusals(out_dir, REFUSALS, build)


def main():
    binary_cases()
    lookup_cases()
    softmax_cases()
    pool_cases()
    conv_cases()
    qgemm_cases()
    quantize_cases()
    matmul_integer16_cases()
    qattention_cases()
    qembed_cases()
    dynamic_quantize_lstm_cases()
    matmul_bnb4_cases()
    matmul_fpq4_cases()
    refusal_cases()
    case_writer.generate(sys.argv, CASES, write, {"refused": write_refusals})

if __name__ == "__main__":
    main()
