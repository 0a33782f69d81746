# SPDX-License-Identifier: MIT
"""Shared fixtures of the Python module's tests (tests/python/CMakeLists.txt runs them with the test venv and the
module built in <build>/python). Expected values come from onnxruntime 1.32 (PyPI) and numpy."""
import os

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

CACHE = os.environ.get("ONNXSCOPE_CACHE_DIR", os.path.expanduser("~/.cache/onnxscope"))
MODULES = os.path.join(CACHE, "npm", "node_modules")
OCR = os.path.join(MODULES, "@gutenye", "ocr-models", "assets")
VAD = os.path.join(MODULES, "@ricky0123", "vad-web", "dist")


def npm_model(folder, name):
    path = os.path.join(folder, name)
    if not os.path.exists(path):
        pytest.skip(f"{path} is missing: scripts/setup.sh test installs the npm models")
    return path


def ort_session(model, extra_outputs=()):
    """onnxruntime without graph optimizations (so every node's output is its own), with `extra_outputs` made graph
    outputs so that intermediates can be read."""
    proto = onnx.load(model) if isinstance(model, str) else model
    if extra_outputs:
        proto = onnx.ModelProto.FromString(proto.SerializeToString())
        have = {o.name for o in proto.graph.output}
        proto.graph.output.extend(onnx.ValueInfoProto(name=n) for n in extra_outputs if n not in have)
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    options.log_severity_level = 3
    return ort.InferenceSession(proto.SerializeToString(), options, providers=["CPUExecutionProvider"])


def assert_close(actual, expected, rtol, atol, what=""):
    np.testing.assert_allclose(np.asarray(actual, np.float64), np.asarray(expected, np.float64), rtol=rtol, atol=atol,
                               err_msg=what)


def loop_model(trip_count=None):
    """y = x; for i in range(n): y = y * 0.5 + i (carried), scan output s_i = y."""
    body = helper.make_graph(
        [
            helper.make_node("Cast", ["i"], ["i_f"], to=TensorProto.FLOAT, name="cast_i"),
            helper.make_node("Mul", ["y_in", "half"], ["y_half"], name="mul_half"),
            helper.make_node("Add", ["y_half", "i_f"], ["y_out"], name="add_i"),
            helper.make_node("Identity", ["y_out"], ["s"], name="scan_out"),
            helper.make_node("Identity", ["cond_in"], ["cond_out"], name="keep_going"),
        ],
        "body",
        [
            helper.make_tensor_value_info("i", TensorProto.INT64, []),
            helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
            helper.make_tensor_value_info("y_in", TensorProto.FLOAT, [2, 3]),
        ],
        [
            helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
            helper.make_tensor_value_info("y_out", TensorProto.FLOAT, [2, 3]),
            helper.make_tensor_value_info("s", TensorProto.FLOAT, [2, 3]),
        ],
        [helper.make_tensor("half", TensorProto.FLOAT, [], [0.5])],
    )
    graph = helper.make_graph(
        [
            helper.make_node("Relu", ["x"], ["x_relu"], name="relu"),
            helper.make_node("Loop", ["n", "", "x_relu"], ["y", "ys"], body=body, name="loop"),
            helper.make_node("ReduceSum", ["ys"], ["total"], keepdims=0, name="sum"),
        ],
        "loop_model",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3]),
         helper.make_tensor_value_info("n", TensorProto.INT64, [])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3]),
         helper.make_tensor_value_info("ys", TensorProto.FLOAT, ["N", 2, 3]),
         helper.make_tensor_value_info("total", TensorProto.FLOAT, [])],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def mlp_model(dtype=np.float32, seed=0):
    """A small MLP (MatMul, Add, Relu, Softmax) with weights cast to `dtype`: the fp32 model and its fp16 copy."""
    rng = np.random.default_rng(seed)
    elem = helper.np_dtype_to_tensor_dtype(np.dtype(dtype))
    w1 = (rng.standard_normal((16, 32)) * 2).astype(dtype)
    b1 = rng.standard_normal(32).astype(dtype)
    w2 = (rng.standard_normal((32, 8)) * 2).astype(dtype)
    b2 = rng.standard_normal(8).astype(dtype)
    graph = helper.make_graph(
        [
            helper.make_node("MatMul", ["x", "w1"], ["h1"], name="fc1"),
            helper.make_node("Add", ["h1", "b1"], ["h1b"], name="fc1_bias"),
            helper.make_node("Relu", ["h1b"], ["a1"], name="relu1"),
            helper.make_node("MatMul", ["a1", "w2"], ["h2"], name="fc2"),
            helper.make_node("Add", ["h2", "b2"], ["logits"], name="fc2_bias"),
            helper.make_node("Softmax", ["logits"], ["probs"], axis=-1, name="softmax"),
        ],
        "mlp",
        [helper.make_tensor_value_info("x", elem, ["batch", 16])],
        [helper.make_tensor_value_info("probs", elem, ["batch", 8])],
        [onnx.numpy_helper.from_array(a, n) for a, n in ((w1, "w1"), (b1, "b1"), (w2, "w2"), (b2, "b2"))],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
