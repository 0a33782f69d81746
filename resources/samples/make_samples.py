#!/usr/bin/python3
"""Writes the sample models bundled with onnxscope. Run with Debian's python3 (python3-onnx, python3-numpy)."""
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(7)


def init(name, shape, scale=0.5):
    return numpy_helper.from_array((rng.standard_normal(shape) * scale).astype(np.float32), name)


# A small classifier: 2 dense layers with a DEBUG trace point, the kind of graph a converter writes.
nodes = [
    helper.make_node("MatMul", ["input", "dense1/W"], ["dense1/matmul"], name="dense1/MatMul"),
    helper.make_node("Add", ["dense1/matmul", "dense1/b"], ["dense1/add"], name="dense1/Add"),
    helper.make_node("Relu", ["dense1/add"], ["dense1/relu"], name="dense1/Relu"),
    helper.make_node("DEBUG", ["dense1/relu"], ["hidden"], name="trace_hidden", domain="mlprodict"),
    helper.make_node("MatMul", ["hidden", "dense2/W"], ["dense2/matmul"], name="dense2/MatMul"),
    helper.make_node("Add", ["dense2/matmul", "dense2/b"], ["logits"], name="dense2/Add"),
    helper.make_node("Softmax", ["logits"], ["probabilities"], name="softmax", axis=-1),
]
graph = helper.make_graph(
    nodes,
    "mlp_classifier",
    [helper.make_tensor_value_info("input", TensorProto.FLOAT, ["batch", 8])],
    [helper.make_tensor_value_info("probabilities", TensorProto.FLOAT, ["batch", 3])],
    [init("dense1/W", (8, 16)), init("dense1/b", (16,), 0.1), init("dense2/W", (16, 3)), init("dense2/b", (3,), 0.1)],
)
model = helper.make_model(
    graph,
    producer_name="onnxscope-samples",
    opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid("mlprodict", 1)],
)
model.ir_version = 8
onnx.save(model, "mlp_classifier.onnx")
