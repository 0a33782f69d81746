"""Writes whole quantized models, as onnxruntime's quantizer writes them, in ONNX backend test-case layout.

    <test venv python> make_quant_models.py <output dir>

A small float CNN (Conv, Relu, residual Add, MaxPool, LeakyRelu, AveragePool, Sigmoid gate, Concat,
GlobalAveragePool, Gemm, Softmax) and a small MLP (MatMul, Add, Relu) are built with onnx.helper and seeded weights,
then quantized by onnxruntime.quantization:
  - cnn_qop_u8s8, cnn_qop_s8s8_per_channel: quantize_static(..., quant_format=QOperator) with a seeded calibration
    set (QLinearConv, QLinearAdd, QLinearMul, QLinearLeakyRelu, QLinearSigmoid, QLinearAveragePool, QLinearConcat,
    QLinearGlobalAveragePool, QGemm, QLinearSoftmax, QuantizeLinear, DequantizeLinear);
  - cnn_qdq_u8s8, cnn_qdq_s8s8_per_channel: the same in the QDQ format (QuantizeLinear, DequantizeLinear around
    float operators), whose DequantizeLinear -> Conv -> QuantizeLinear groups plain runs fuse into integer kernels;
  - mlp_dynamic: quantize_dynamic (DynamicQuantizeLinear, MatMulInteger), and mlp_dynamic_optimized: the same saved
    by onnxruntime at its extended optimization level (DynamicQuantizeMatMul, MatMulIntegerToFloat).
Each case's expected outputs are onnxruntime's (graph optimizations disabled, one thread) on a seeded input. A file
ops.json lists each model's operators, so that the CTest can check the quantizer wrote what the cases claim to cover.
Needs onnx, onnxruntime and numpy; no torch.
"""

import json
import logging
import os
import shutil
import sys
import tempfile

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper
from onnxruntime.quantization import (CalibrationDataReader, QuantFormat, QuantType, quantize_dynamic,
                                      quantize_static)


def cnn(r):
    inits = []

    def w(name, *shape, s=0.3):
        inits.append(numpy_helper.from_array((r.standard_normal(shape) * s).astype(np.float32), name))
        return name

    nodes = [
        helper.make_node("Conv", ["x", w("w1", 8, 3, 3, 3), w("b1", 8, s=0.1)], ["c1"], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c1"], ["r1"]),
        helper.make_node("Conv", ["r1", w("w2", 8, 8, 3, 3, s=0.15), w("b2", 8, s=0.1)], ["c2"], pads=[1, 1, 1, 1]),
        helper.make_node("Add", ["c2", "r1"], ["a1"]),
        helper.make_node("MaxPool", ["a1"], ["p1"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Conv", ["p1", w("w3", 12, 8, 1, 1), w("b3", 12, s=0.1)], ["c3"]),
        helper.make_node("LeakyRelu", ["c3"], ["l1"], alpha=0.1),
        helper.make_node("AveragePool", ["l1"], ["p2"], kernel_shape=[3, 3], strides=[1, 1], pads=[1, 1, 1, 1]),
        helper.make_node("Conv", ["p2", w("w4", 12, 1, 3, 3), w("b4", 12, s=0.1)], ["c4"], pads=[1, 1, 1, 1],
                         group=12),
        helper.make_node("Sigmoid", ["c4"], ["g1"]),
        helper.make_node("Mul", ["p2", "g1"], ["m1"]),
        helper.make_node("Concat", ["m1", "p1"], ["cat"], axis=1),
        helper.make_node("GlobalAveragePool", ["cat"], ["gap"]),
        helper.make_node("Flatten", ["gap"], ["flat"]),
        helper.make_node("Gemm", ["flat", w("wf", 10, 20, s=0.4), w("bf", 10, s=0.1)], ["logits"], transB=1),
        helper.make_node("Softmax", ["logits"], ["y"], axis=-1),
    ]
    graph = helper.make_graph(nodes, "small_cnn", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 16, 16])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 10])], initializer=inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def mlp(r):
    inits = []

    def w(name, *shape, s=0.3):
        inits.append(numpy_helper.from_array((r.standard_normal(shape) * s).astype(np.float32), name))
        return name

    nodes = [
        helper.make_node("MatMul", ["x", w("w1", 32, 48)], ["h1"]),
        helper.make_node("Add", ["h1", w("b1", 48, s=0.1)], ["h2"]),
        helper.make_node("Relu", ["h2"], ["h3"]),
        helper.make_node("MatMul", ["h3", w("w2", 48, 24, s=0.2)], ["h4"]),
        helper.make_node("Add", ["h4", w("b2", 24, s=0.1)], ["y"]),
    ]
    graph = helper.make_graph(nodes, "small_mlp", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 5, 32])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 5, 24])], initializer=inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


class Reader(CalibrationDataReader):
    def __init__(self, samples):
        self.samples = iter([{"x": s} for s in samples])

    def get_next(self):
        return next(self.samples, None)


def run_onnxruntime(path, feeds):
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    options.intra_op_num_threads = 1
    session = ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])
    return [o.name for o in session.get_outputs()], session.run(None, feeds)


def write_case(out_dir, name, model_path, feeds, ops):
    case_dir = os.path.join(out_dir, name)
    shutil.rmtree(case_dir, ignore_errors=True)
    data_dir = os.path.join(case_dir, "test_data_set_0")
    os.makedirs(data_dir)
    shutil.copy(model_path, os.path.join(case_dir, "model.onnx"))
    model = onnx.load(model_path)
    for index, vi in enumerate(model.graph.input):
        onnx.save_tensor(numpy_helper.from_array(feeds[vi.name], vi.name), os.path.join(data_dir, f"input_{index}.pb"))
    names, results = run_onnxruntime(model_path, feeds)
    for index, (n, res) in enumerate(zip(names, results)):
        onnx.save_tensor(numpy_helper.from_array(np.asarray(res), n), os.path.join(data_dir, f"output_{index}.pb"))
    ops[name] = sorted({(n.domain or "ai.onnx") + ":" + n.op_type for n in model.graph.node})


def main():
    logging.getLogger().setLevel(logging.ERROR)  # the quantizer's advice on pre-processing and formats
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    ops = {}
    r = np.random.default_rng(41)
    with tempfile.TemporaryDirectory() as tmp:
        float_cnn = os.path.join(tmp, "cnn.onnx")
        onnx.save(cnn(r), float_cnn)
        calibration = [r.uniform(-1, 1, size=(1, 3, 16, 16)).astype(np.float32) for _ in range(8)]
        x = r.uniform(-1, 1, size=(1, 3, 16, 16)).astype(np.float32)
        for name, activation, per_channel in (("cnn_qop_u8s8", QuantType.QUInt8, False),
                                              ("cnn_qop_s8s8_per_channel", QuantType.QInt8, True)):
            path = os.path.join(tmp, name + ".onnx")
            quantize_static(float_cnn, path, Reader(calibration), quant_format=QuantFormat.QOperator,
                            activation_type=activation, weight_type=QuantType.QInt8, per_channel=per_channel)
            write_case(out_dir, name, path, {"x": x}, ops)
        # The same CNN in the QDQ format, which plain runs fuse into integer convolutions (engine/exec/fusion.h).
        for name, activation, per_channel in (("cnn_qdq_u8s8", QuantType.QUInt8, False),
                                              ("cnn_qdq_s8s8_per_channel", QuantType.QInt8, True)):
            path = os.path.join(tmp, name + ".onnx")
            quantize_static(float_cnn, path, Reader(calibration), quant_format=QuantFormat.QDQ,
                            activation_type=activation, weight_type=QuantType.QInt8, per_channel=per_channel)
            write_case(out_dir, name, path, {"x": x}, ops)
        float_mlp = os.path.join(tmp, "mlp.onnx")
        onnx.save(mlp(r), float_mlp)
        dynamic = os.path.join(tmp, "mlp_dynamic.onnx")
        quantize_dynamic(float_mlp, dynamic, weight_type=QuantType.QInt8)
        xm = r.standard_normal((2, 5, 32)).astype(np.float32)
        write_case(out_dir, "mlp_dynamic", dynamic, {"x": xm}, ops)
        optimized = os.path.join(tmp, "mlp_dynamic_optimized.onnx")
        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
        options.optimized_model_filepath = optimized
        ort.InferenceSession(dynamic, options, providers=["CPUExecutionProvider"])
        write_case(out_dir, "mlp_dynamic_optimized", optimized, {"x": xm}, ops)
    with open(os.path.join(out_dir, "ops.json"), "w") as f:
        json.dump(ops, f, indent=1)
    for name, o in ops.items():
        print(name + ": " + " ".join(o))


if __name__ == "__main__":
    main()
