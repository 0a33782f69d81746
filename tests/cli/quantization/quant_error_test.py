# SPDX-License-Identifier: MIT
"""`onnxscope-cli check-quantization` against independent truth.

Builds a small float CNN (Conv-Relu, Conv-Relu, Reshape, MatMul+Add-Relu, MatMul) with onnx.helper and quantizes it
with onnxruntime.quantization.quantize_static, calibrated on 8 random batches, in QDQ and QOperator formats (uint8
activations, int8 weights). A copy of each has conv2's weight scale multiplied by 8. Then:
  - the intact copies: every layer's own error is small;
  - the damaged copies: conv2 is ranked first by its own error, far above the others, whose own errors stay as in the
    intact copy, while the accumulated error (the quantized model's own run) of the layers after conv2 is large too;
  - the truth for two layers' own error is computed here: conv2 of the damaged QDQ copy with numpy alone (the float
    run's r1 from onnxruntime, quantized with r1's scale, conv with the dequantized int8 weights, Relu, requantized
    with r2's scale) and fc1 of the QOperator copy by running its QLinearMatMul node alone in onnxruntime on the
    float run's f quantized with numpy; relative L2, max abs error and cosine against the float run's value must agree;
  - a per-channel QDQ copy (int8 activations) and a QOperator copy of a Gemm MLP (QGemm, QLinearSigmoid), each with
    one weight scale multiplied by 8: the damaged layer first;
  - bad input: a model without quantized layers, and a quantized model against an unrelated float model, exit 1 with
    a clear message.

usage: quant_error_test.py ONNXSCOPE_CLI WORKDIR
"""
import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper
from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static

FAILURES = []


def check(cond, message):
    if not cond:
        FAILURES.append(message)
        print("FAIL:", message)


def build_float(rng):
    N = helper.make_node
    w = {
        "W1": (rng.standard_normal((8, 3, 3, 3)) * 0.3).astype(np.float32),
        "B1": (rng.standard_normal(8) * 0.1).astype(np.float32),
        "W2": (rng.standard_normal((8, 8, 3, 3)) * 0.2).astype(np.float32),
        "B2": (rng.standard_normal(8) * 0.1).astype(np.float32),
        "shape": np.array([1, -1], np.int64),
        "W3": (rng.standard_normal((8 * 8 * 8, 16)) * 0.05).astype(np.float32),
        "B3": (rng.standard_normal(16) * 0.1).astype(np.float32),
        "W4": (rng.standard_normal((16, 10)) * 0.2).astype(np.float32),
    }
    nodes = [
        N("Conv", ["x", "W1", "B1"], ["c1"], name="conv1", pads=[1, 1, 1, 1]),
        N("Relu", ["c1"], ["r1"], name="relu1"),
        N("Conv", ["r1", "W2", "B2"], ["c2"], name="conv2", pads=[1, 1, 1, 1]),
        N("Relu", ["c2"], ["r2"], name="relu2"),
        N("Reshape", ["r2", "shape"], ["f"], name="flatten"),
        N("MatMul", ["f", "W3"], ["m3"], name="fc1"),
        N("Add", ["m3", "B3"], ["a3"], name="fc1_bias"),
        N("Relu", ["a3"], ["r3"], name="relu3"),
        N("MatMul", ["r3", "W4"], ["y"], name="fc2"),
    ]
    g = helper.make_graph(
        nodes,
        "cnn",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 10])],
        [numpy_helper.from_array(v, k) for k, v in w.items()],
    )
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    return m


class Calibration(CalibrationDataReader):
    def __init__(self, seed):
        rng = np.random.default_rng(seed)
        self.batches = iter([{"x": rng.standard_normal((1, 3, 8, 8)).astype(np.float32)} for _ in range(8)])

    def get_next(self):
        return next(self.batches, None)


def damage(src, dst, scale_name, factor):
    m = onnx.load(src)
    for init in m.graph.initializer:
        if init.name == scale_name:
            init.CopyFrom(numpy_helper.from_array(numpy_helper.to_array(init) * np.float32(factor), init.name))
            break
    else:
        raise SystemExit(f"{src} has no initializer {scale_name}")
    onnx.save(m, dst)


def float_intermediates(path, x):
    """Every value of the float model from onnxruntime, each exposed as a graph output."""
    m = onnx.load(path)
    names = [o for n in m.graph.node for o in n.output]
    del m.graph.output[:]
    m.graph.output.extend(helper.make_empty_tensor_value_info(n) for n in names)
    sess = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
    return dict(zip(names, sess.run(names, {"x": x})))


def inits(path):
    return {i.name: numpy_helper.to_array(i) for i in onnx.load(path).graph.initializer}


def quantize(x, scale, zp):
    info = np.iinfo(zp.dtype)
    return np.clip(np.rint(x / scale) + zp.astype(np.int32), info.min, info.max).astype(zp.dtype)


def dequantize(q, scale, zp):
    return (q.astype(np.float32) - zp.astype(np.float32)) * scale


def conv3x3(x, w, b):
    """Conv, stride 1, pads 1, NCHW, the obviously correct loop over the kernel taps."""
    n, c, h, wd = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    out = np.zeros((n, w.shape[0], h, wd), np.float64)
    for i in range(3):
        for j in range(3):
            out += np.einsum("nchw,oc->nohw", xp[:, :, i : i + h, j : j + wd], w[:, :, i, j])
    return (out + b.reshape(1, -1, 1, 1)).astype(np.float32)


def error(q, f):
    q = q.astype(np.float64)
    f = f.astype(np.float64)
    d = q - f
    return {
        "max_abs_error": float(np.abs(d).max()),
        "relative_l2": float(np.linalg.norm(d) / np.linalg.norm(f)),
        "cosine": float((q * f).sum() / (np.linalg.norm(q) * np.linalg.norm(f))),
    }


def run_cli(cli, work, fmodel, qmodel, name, expect_ok=True):
    out = work / f"{name}.json"
    p = subprocess.run(
        [cli, "check-quantization", str(fmodel), str(qmodel), "--input", f"x={work / 'x.npy'}", "--json", str(out), "--top", "0"],
        capture_output=True,
        text=True,
    )
    print(f"--- {name}: exit {p.returncode}\n{p.stdout}{p.stderr}")
    if not expect_ok:
        return p
    check(p.returncode == 0, f"{name}: exit {p.returncode}")
    return json.loads(out.read_text()) if p.returncode == 0 else {"layers": []}


def layer(report, node):
    for l in report["layers"]:
        if l["node"] == node:
            return l
    check(False, f"no layer {node} in the report")
    return None


def close(ours, truth, what, rtol=2e-3):
    for k, v in truth.items():
        check(
            ours is not None and abs(ours[k] - v) <= rtol * abs(v) + 1e-6,
            f"{what}: {k} ours {None if ours is None else ours[k]} vs truth {v}",
        )


def main():
    cli, work = sys.argv[1], Path(sys.argv[2])
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    rng = np.random.default_rng(44)
    fpath = work / "float.onnx"
    onnx.save(build_float(rng), fpath)
    x = rng.standard_normal((1, 3, 8, 8)).astype(np.float32)
    np.save(work / "x.npy", x)
    for fmt, qf in (("qdq", QuantFormat.QDQ), ("qop", QuantFormat.QOperator)):
        quantize_static(
            str(fpath), str(work / f"{fmt}.onnx"), Calibration(7), quant_format=qf,
            activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8,
        )
        damage(work / f"{fmt}.onnx", work / f"{fmt}_damaged.onnx", "W2_scale", 8.0)
    floats = float_intermediates(fpath, x)

    conv2 = {"qdq": "conv2", "qop": "conv2_quant"}
    after = {"qdq": ["flatten", "fc1", "fc1_bias", "fc2"], "qop": ["fc1_quant", "fc1_bias_quant", "fc2_quant"]}
    reports = {}
    for fmt in ("qdq", "qop"):
        intact = run_cli(cli, work, fpath, work / f"{fmt}.onnx", fmt)
        damaged = run_cli(cli, work, fpath, work / f"{fmt}_damaged.onnx", f"{fmt}_damaged")
        reports[fmt] = damaged
        check(len(intact["layers"]) >= 5, f"{fmt}: {len(intact['layers'])} layers paired, expected 5 or more")
        for l in intact["layers"]:
            check(l["own"] is not None and l["own"]["relative_l2"] < 0.1, f"{fmt} intact: {l['node']} own error {l['own']}")
        if not damaged["layers"]:
            continue
        first = damaged["layers"][0]
        check(first["node"] == conv2[fmt] and first["rank"] == 1, f"{fmt} damaged: ranked first {first['node']}")
        others = [l["own"]["relative_l2"] for l in damaged["layers"][1:] if l["own"]]
        check(first["own"]["relative_l2"] > 5 * max(others), f"{fmt} damaged: conv2 {first['own']} vs others {others}")
        for node in after[fmt]:
            l, i = layer(damaged, node), layer(intact, node)
            if l and i:
                check(l["own"]["relative_l2"] < 0.1 and abs(l["own"]["relative_l2"] - i["own"]["relative_l2"]) < 1e-6,
                      f"{fmt} damaged: {node}'s own error {l['own']} should be the intact one's {i['own']}")
                check(l["accumulated"]["relative_l2"] > 0.3, f"{fmt} damaged: {node}'s accumulated error {l['accumulated']}")
        high = [l["node"] for l in damaged["layers"] if l["node"] in after[fmt] and l["accumulated_rank"] <= 3]
        check(len(high) >= 2, f"{fmt} damaged: layers after conv2 in the accumulated top 3: {high}")
        check(first["float_value"] == "r2", f"{fmt}: conv2 paired with {first['float_value']}, expected r2 (Relu folded)")

    # A float model whose intermediate names were changed (as a re-export would): the layers pair by content, with the
    # same own errors as when they pair by onnxruntime's names.
    m = onnx.load(fpath)
    renamed = {o: "t_" + o for n in m.graph.node for o in n.output if o != "y"}
    for n in m.graph.node:
        n.input[:] = [renamed.get(i, i) for i in n.input]
        n.output[:] = [renamed.get(o, o) for o in n.output]
    onnx.save(m, work / "float_renamed.onnx")
    for fmt in ("qdq", "qop"):
        by_name = {l["node"]: l for l in run_cli(cli, work, fpath, work / f"{fmt}.onnx", fmt)["layers"]}
        by_content = run_cli(cli, work, work / "float_renamed.onnx", work / f"{fmt}.onnx", f"{fmt}_renamed")
        check(len(by_content["layers"]) == len(by_name), f"{fmt} renamed: {len(by_content['layers'])} layers paired")
        for l in by_content["layers"]:
            n = by_name.get(l["node"])
            check(n is not None and l["float_value"] == renamed.get(n["float_value"], n["float_value"]),
                  f"{fmt} renamed: {l['node']} paired with {l['float_value']}")
            check(n is not None and l["own"] is not None and abs(l["own"]["relative_l2"] - n["own"]["relative_l2"]) < 1e-6,
                  f"{fmt} renamed: {l['node']} own error {l['own']}")

    # Truth 1: conv2 of the damaged QDQ copy, with numpy alone.
    q = inits(work / "qdq_damaged.onnx")
    r1q = dequantize(quantize(floats["r1"], q["r1_scale"], q["r1_zero_point"]), q["r1_scale"], q["r1_zero_point"])
    w2 = dequantize(q["W2_quantized"], q["W2_scale"], q["W2_zero_point"])
    b2 = dequantize(q["B2_quantized"], q["B2_quantized_scale"], q["B2_quantized_zero_point"])
    c2 = np.maximum(conv3x3(r1q, w2, b2), 0)
    r2q = dequantize(quantize(c2, q["r2_scale"], q["r2_zero_point"]), q["r2_scale"], q["r2_zero_point"])
    truth = error(r2q, floats["r2"])
    print("truth conv2 (QDQ, damaged):", truth)
    close(layer(reports["qdq"], "conv2")["own"], truth, "qdq conv2 own error vs numpy")

    # Truth 2: fc1 of the damaged QOperator copy: its QLinearMatMul alone in onnxruntime on the float f, quantized here.
    qm = onnx.load(work / "qop_damaged.onnx")
    node = next(n for n in qm.graph.node if n.name == "fc1_quant")
    q = inits(work / "qop_damaged.onnx")
    a_s, a_zp = q[node.input[1]], q[node.input[2]]
    one = helper.make_graph(
        [node],
        "fc1",
        [helper.make_tensor_value_info(node.input[0], TensorProto.UINT8, [1, 512])],
        [helper.make_tensor_value_info(node.output[0], TensorProto.UINT8, [1, 16])],
        [i for i in qm.graph.initializer if i.name in node.input[1:]],
    )
    om = helper.make_model(one, opset_imports=[helper.make_opsetid("", 17)])
    om.ir_version = 8
    sess = ort.InferenceSession(om.SerializeToString(), providers=["CPUExecutionProvider"])
    (yq,) = sess.run(None, {node.input[0]: quantize(floats["f"], a_s, a_zp)})
    truth = error(dequantize(yq, q[node.input[6]], q[node.input[7]]), floats["m3"])
    print("truth fc1 (QOperator):", truth)
    close(layer(reports["qop"], "fc1_quant")["own"], truth, "qop fc1 own error vs onnxruntime")

    # Per-channel int8 activations and weights (QDQ), and QGemm/QLinearSigmoid (QOperator) on a Gemm MLP: the damaged
    # layer first.
    quantize_static(str(fpath), str(work / "pc.onnx"), Calibration(7), quant_format=QuantFormat.QDQ, per_channel=True,
                    activation_type=QuantType.QInt8, weight_type=QuantType.QInt8)
    damage(work / "pc.onnx", work / "pc_damaged.onnx", "W2_scale", 8.0)
    report = run_cli(cli, work, fpath, work / "pc_damaged.onnx", "per_channel_damaged")
    check(report["layers"] and report["layers"][0]["node"] == "conv2", "per-channel: conv2 not ranked first")
    mlp = helper.make_graph(
        [helper.make_node("Gemm", ["x", "G1", "C1"], ["g1"], name="gemm1"),
         helper.make_node("Sigmoid", ["g1"], ["s1"], name="sig"),
         helper.make_node("Gemm", ["s1", "G2", "C2"], ["y"], name="gemm2")],
        "mlp",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 8])],
        [numpy_helper.from_array(v, k) for k, v in (
            ("G1", (rng.standard_normal((192, 32)) * 0.1).astype(np.float32)),
            ("C1", (rng.standard_normal(32) * 0.1).astype(np.float32)),
            ("G2", (rng.standard_normal((32, 8)) * 0.3).astype(np.float32)),
            ("C2", (rng.standard_normal(8) * 0.1).astype(np.float32)))],
    )
    mlp.node.insert(0, helper.make_node("Flatten", ["x"], ["xf"], name="flat"))
    mlp.node[1].input[0] = "xf"
    m = helper.make_model(mlp, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.save(m, work / "mlp.onnx")
    quantize_static(str(work / "mlp.onnx"), str(work / "mlp_qop.onnx"), Calibration(7), quant_format=QuantFormat.QOperator,
                    activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8)
    damage(work / "mlp_qop.onnx", work / "mlp_qop_damaged.onnx", "G2_scale", 8.0)
    report = run_cli(cli, work, work / "mlp.onnx", work / "mlp_qop_damaged.onnx", "qgemm_damaged")
    ops = {l["node"]: l["op_type"] for l in report["layers"]}
    check(ops.get("gemm2_quant") == "QGemm" and ops.get("sig_quant") == "QLinearSigmoid", f"QGemm model layers: {ops}")
    check(report["layers"] and report["layers"][0]["node"] == "gemm2_quant", "QGemm: gemm2 not ranked first")

    # Bad input.
    p = run_cli(cli, work, fpath, fpath, "no_quantized_layer", expect_ok=False)
    check(p.returncode == 1 and "no quantized layer" in p.stderr, "float vs float: expected exit 1 naming no quantized layer")
    other = helper.make_graph(
        [helper.make_node("Sin", ["x"], ["s"], name="sine"), helper.make_node("ReduceMean", ["s"], ["t"], name="mean", keepdims=0)],
        "other",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])],
        [helper.make_tensor_value_info("t", TensorProto.FLOAT, [])],
    )
    om = helper.make_model(other, opset_imports=[helper.make_opsetid("", 17)])
    om.ir_version = 8
    onnx.save(om, work / "other.onnx")
    p = run_cli(cli, work, work / "other.onnx", work / "qdq.onnx", "unrelated", expect_ok=False)
    check(p.returncode == 1 and "pairs with a value of the float model" in p.stderr, "unrelated float model: expected exit 1, no layer pairs")

    if FAILURES:
        print(f"{len(FAILURES)} failure(s)")
        sys.exit(1)
    print("all checks passed")


if __name__ == "__main__":
    main()
