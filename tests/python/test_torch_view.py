# SPDX-License-Identifier: MIT
"""Issue #44 from Python on the committed dynamo export of a tiny Gemma-3 decoder (tests/models/torch): a node's
PyTorch origin against onnx's reading of the file, made-up feeds against the embedding table and onnxruntime, and
Model.extract against onnxruntime."""
import ast
import os

import numpy as np
import onnx
import pytest
from onnx import numpy_helper

import onnxscope
from conftest import ort_session

SOURCE = os.environ.get("ONNXSCOPE_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
MODEL = os.path.join(SOURCE, "tests", "models", "torch", "gemma3_tiny_dynamo.onnx")


def meta(node):
    return {p.key: p.value for p in node.metadata_props}


@pytest.fixture(scope="module")
def proto():
    return onnx.load(MODEL)


def test_node_origin_matches_the_file(proto):
    model = onnxscope.load(MODEL)
    node = next(n for n in proto.graph.node if "layers.3.mlp" in meta(n)["pkg.torch.onnx.name_scopes"])
    d = model.node(node.name)
    scopes = ast.literal_eval(meta(node)["pkg.torch.onnx.name_scopes"])
    classes = ast.literal_eval(meta(node)["pkg.torch.onnx.class_hierarchy"])
    assert d["metadata_props"] == meta(node)
    assert d["pytorch"]["module"] == scopes[-2]
    assert [c for _, c in d["pytorch"]["modules"]] == classes[:-1]
    assert d["pytorch"]["fx_node"] == meta(node)["pkg.torch.onnx.fx_node"]
    assert d["pytorch"]["error"] is None
    paths = {m["path"] for m in model.torch_modules}
    assert {"inner.model.layers.0", "inner.model.layers.3.mlp"} <= paths
    inside = set(model.torch_module_nodes("inner.model.layers.3.mlp"))
    assert inside == {n.name for n in proto.graph.node if ".layers.3.mlp" in meta(n)["pkg.torch.onnx.name_scopes"]}
    with pytest.raises(onnxscope.Error, match="no node named"):
        model.node("no such node")


def test_default_feeds_mean_something(proto):
    model = onnxscope.load(MODEL)
    feeds = model.default_feeds(seed=5)
    rules = model.input_rules()
    vocabulary = next(i.dims[0] for i in proto.graph.initializer
                      if any(n.op_type == "Gather" and n.input[:2] == [i.name, "input_ids"] for n in proto.graph.node))
    assert feeds["attention_mask"].dtype == np.int64 and (feeds["attention_mask"] == 1).all()
    ids = feeds["input_ids"]
    assert ids.min() >= 0 and ids.max() < vocabulary and len(np.unique(ids)) > 1
    assert f"[0, {vocabulary})" in rules["input_ids"] and "ones" in rules["attention_mask"]
    ours = model.run(feeds)["logits"]
    expected = ort_session(MODEL).run(None, feeds)[0]
    assert np.abs(expected).max() > 0
    np.testing.assert_allclose(ours, expected, atol=1e-4)


def test_extract_matches_onnxruntime(tmp_path, proto):
    model = onnxscope.load(MODEL)
    softmax = next(n for n in proto.graph.node if n.op_type == "Softmax")
    feeds = model.default_feeds(seed=1)
    result = model.extract(tmp_path / "case", node=softmax.name, feeds=feeds)
    assert result["nodes"] == [softmax.name] and result["outputs"] == list(softmax.output)
    whole = ort_session(MODEL, extra_outputs=[softmax.output[0]])
    expected_whole = dict(zip([o.name for o in whole.get_outputs()], whole.run(None, feeds)))[softmax.output[0]]
    case = tmp_path / "case"
    sess = ort_session(str(case / "model.onnx"))
    ins = {i.name: numpy_helper.to_array(onnx.load_tensor(str(case / "test_data_set_0" / f"input_{k}.pb")))
           for k, i in enumerate(sess.get_inputs())}
    expected = numpy_helper.to_array(onnx.load_tensor(str(case / "test_data_set_0" / "output_0.pb")))
    np.testing.assert_allclose(sess.run(None, ins)[0], expected, atol=1e-5)
    np.testing.assert_allclose(expected_whole, expected, atol=1e-5)
    with pytest.raises(onnxscope.Error, match='needs "input_ids"'):
        model.extract(tmp_path / "bad", inputs=[softmax.output[0]], outputs=["logits"])
