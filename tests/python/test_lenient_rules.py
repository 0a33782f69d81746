# SPDX-License-Identifier: MIT
"""The lenient rules of onnxruntime's CPU provider (issue #41) through the Python module: a com.microsoft node without
its domain import and LayerNormalization below opset 17 load, run as onnxruntime runs them, and are warnings in
Model.diagnostics, never errors."""
import numpy as np
import onnx
from onnx import TensorProto, helper

import onnxscope
from conftest import assert_close, ort_session


def lenient_model():
    nodes = [
        helper.make_node("LayerNormalization", ["x", "scale", "bias"], ["ln"], axis=-1, epsilon=1e-5),
        helper.make_node("Gelu", ["ln"], ["y"], domain="com.microsoft"),
    ]
    rng = np.random.default_rng(41)
    inits = [onnx.numpy_helper.from_array(rng.standard_normal(8).astype(np.float32), n) for n in ("scale", "bias")]
    graph = helper.make_graph(nodes, "lenient", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 8])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3, 8])], initializer=inits)
    # Only the default domain is imported, at opset 13.
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def test_lenient_model_runs_as_onnxruntime_with_warnings():
    proto = lenient_model()
    model = onnxscope.load(proto)
    assert model.unsupported_nodes == []
    warnings = [d.message for d in model.diagnostics if d.severity == "warning"]
    errors = [d.message for d in model.diagnostics if d.severity == "error"]
    assert errors == []
    assert any("LayerNormalization node at default-domain opset 13" in w for w in warnings), warnings
    assert any('domain "com.microsoft", which the model does not import' in w for w in warnings), warnings
    x = np.random.default_rng(7).standard_normal((2, 3, 8)).astype(np.float32)
    expected = ort_session(proto).run(None, {"x": x})[0]
    assert_close(model.run({"x": x})["y"], expected, 1e-5, 1e-5, "y")
