# SPDX-License-Identifier: MIT
"""Outputs and intermediates of real models against onnxruntime: the OCR models, silero VAD (If), and a Loop model."""
import numpy as np
import onnx
import pytest

import onnxscope
from conftest import OCR, VAD, assert_close, loop_model, npm_model, ort_session

OCR_CASES = [
    ("ch_ppocr_mobile_v2.0_cls_infer.onnx", (1, 3, 48, 192)),
    ("ch_PP-OCRv4_rec_infer.onnx", (1, 3, 48, 320)),
    ("ch_PP-OCRv4_det_infer.onnx", (1, 3, 160, 160)),
]


def main_graph_values(proto):
    """Names of the main graph's node outputs."""
    return [o for node in proto.graph.node for o in node.output if o]


@pytest.mark.parametrize("name,shape", OCR_CASES)
def test_ocr_outputs_and_intermediates(name, shape):
    path = npm_model(OCR, name)
    x = np.random.default_rng(1).uniform(-1, 1, shape).astype(np.float32)
    model = onnxscope.load(path)
    assert model.inputs[0].name == "x" and model.inputs[0].dtype == "float32"
    assert model.unsupported_nodes == []
    assert sum(model.op_histogram.values()) == len(onnx.load(path).graph.node)

    proto = onnx.load(path)
    names = main_graph_values(proto)
    sess = ort_session(proto, names)
    expected = dict(zip([o.name for o in sess.get_outputs()], sess.run(None, {"x": x})))

    outputs = model.run({"x": x})
    assert list(outputs) == [o.name for o in proto.graph.output]
    for k, v in outputs.items():
        assert v.flags.writeable
        assert_close(v, expected[k], 1e-3, 1e-4, k)

    values = model.run({"x": x}, intermediate=True)
    checked = 0
    for n in names:
        key = onnxscope.ValueKey("main", n, -1)
        assert key in values, n
        got = values[key]
        if got.dtype.kind == "f":
            # Deep in a CNN, float differences grow with magnitude: tolerance relative to the value's scale.
            scale = float(np.max(np.abs(expected[n]))) if expected[n].size else 1.0
            assert_close(got, expected[n], 1e-3, 1e-4 * max(1.0, scale), n)
        else:
            np.testing.assert_array_equal(got, expected[n], n)
        checked += 1
    assert checked == len(names)
    assert values["x"].shape == shape


@pytest.mark.parametrize("version", ["v5", "v6"])
def test_silero_vad_if_three_chunks(version):
    path = npm_model(VAD, f"silero_vad_{version}.onnx")
    model = onnxscope.load(path)
    assert "If" in model.op_histogram
    sess = ort_session(path)
    rng = np.random.default_rng(2)
    state = np.zeros((2, 1, 128), np.float32)
    ort_state = state
    sr = np.array(16000, np.int64)
    for step in range(3):
        chunk = rng.uniform(-0.5, 0.5, (1, 512)).astype(np.float32)
        got = model.run({"input": chunk, "state": state, "sr": sr})
        exp = dict(zip([o.name for o in sess.get_outputs()], sess.run(None, {"input": chunk, "state": ort_state, "sr": sr})))
        for k in exp:
            assert_close(got[k], exp[k], 1e-3, 1e-5, f"step {step} {k}")
        state, ort_state = got["stateN"], exp["stateN"]

    # Intermediates: every main-graph value against onnxruntime, and the values inside the If branch taken.
    proto = onnx.load(path)
    names = main_graph_values(proto)
    sess = ort_session(proto, names)
    feeds = {"input": chunk, "state": state, "sr": sr}
    exp = dict(zip([o.name for o in sess.get_outputs()], sess.run(None, feeds)))
    values = model.run(feeds, intermediate=True)
    for n in names:
        assert_close(values[onnxscope.ValueKey("main", n, -1)], exp[n], 1e-3, 1e-5, n)
    branch = [k for k in values if k.frame.startswith("main / If")]
    assert branch, "no value recorded inside the If branch"


def test_loop_outputs_and_iterations():
    proto = loop_model()
    model = onnxscope.load(proto)
    x = np.array([[1, -2, 3], [-4, 5, -6]], np.float32)
    n = np.array(5, np.int64)
    exp = ort_session(proto).run(None, {"x": x, "n": n})
    got = model.run({"x": x, "n": n})
    for e, (k, v) in zip(exp, got.items()):
        assert_close(v, e, 1e-6, 1e-6, k)

    values = model.run({"x": x, "n": n}, intermediate=True)
    # Inside the body: y_out of iteration i is y_in * 0.5 + i (numpy), keyed by frame path and iteration.
    y = np.maximum(x, 0)
    for i in range(5):
        found = [(k, v) for k, v in values.find("y_out") if k.iteration == i]
        assert len(found) == 1, found
        key, value = found[0]
        assert f"iteration {i}" in key.frame
        y = y * np.float32(0.5) + np.float32(i)
        assert_close(value, y, 1e-6, 1e-6, str(key))
        assert values.producer(key) == "add_i"
    assert_close(values["total"], exp[2], 1e-6, 1e-6)


def test_threads_give_the_same_outputs():
    path = npm_model(OCR, "ch_ppocr_mobile_v2.0_cls_infer.onnx")
    model = onnxscope.load(path)
    x = np.random.default_rng(3).uniform(-1, 1, (2, 3, 48, 192)).astype(np.float32)
    one = model.run({"x": x})
    two = model.run({"x": x}, threads=2)
    for k in one:
        assert_close(two[k], one[k], 1e-5, 1e-6, k)


def test_load_from_bytes_and_proto_and_info():
    proto = loop_model()
    a = onnxscope.load(proto.SerializeToString())
    b = onnxscope.load(proto)
    assert [i.name for i in a.inputs] == ["x", "n"] == [i.name for i in b.inputs]
    assert a.inputs[0].shape == [2, 3] and a.inputs[0].elem_type == "float"
    assert a.outputs[1].shape == ["N", 2, 3]
    assert a.opsets == {"": 17}
    assert a.op_histogram == {"Relu": 1, "Loop": 1, "ReduceSum": 1, "Cast": 1, "Mul": 1, "Add": 1, "Identity": 2}
    assert all(isinstance(d, onnxscope.Diagnostic) for d in a.diagnostics)
    # onnx has no schema for SimplifiedLayerNormalization in the default domain (onnxruntime registers it there);
    # this build runs it, so the checker's complaint is a warning. An op nobody runs stays an error.
    def severity(op, attrs, inputs):
        node = onnx.helper.make_node(op, list(inputs), ["y"], **attrs)
        graph = onnx.helper.make_graph(
            [node], "g", [onnx.helper.make_tensor_value_info(n, onnx.TensorProto.FLOAT, s) for n, s in inputs.items()],
            [onnx.helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [2, 4])])
        m = onnxscope.load(onnx.helper.make_model(graph, opset_imports=[onnx.helper.make_opsetid("", 17)]))
        return [d.severity for d in m.diagnostics if op in d.message]

    assert severity("SimplifiedLayerNormalization", {"axis": -1, "epsilon": 1e-5}, {"x": [2, 4], "s": [4]}) == [
        "warning"]
    assert severity("FrobnicateXYZ", {}, {"x": [2, 4]}) == ["error"]
    with pytest.raises(FileNotFoundError):
        onnxscope.load("/nonexistent/model.onnx")
    with pytest.raises(onnxscope.Error):
        onnxscope.load(b"not a model")
