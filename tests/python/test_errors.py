# SPDX-License-Identifier: MIT
"""Bad input: feeds of the wrong name, dtype or rank, non-contiguous arrays, unsupported models, failing nodes."""
import numpy as np
import pytest
from onnx import TensorProto, helper

import onnxscope
from conftest import assert_close, mlp_model, ort_session


@pytest.fixture(scope="module")
def mlp():
    return onnxscope.load(mlp_model())


def test_wrong_name_dtype_rank_are_value_errors_listing_inputs(mlp):
    x = np.zeros((2, 16), np.float32)
    cases = [
        {"y": x},  # unknown name
        {"x": x.astype(np.float64)},  # wrong element type
        {"x": np.zeros(16, np.float32)},  # wrong rank
        {"x": np.zeros((2, 15), np.float32)},  # wrong fixed dim
        {},  # missing input
    ]
    for feeds in cases:
        for call in (lambda: mlp.run(feeds), lambda: mlp.debug(feeds),
                     lambda: mlp.run(feeds, intermediate=True), lambda: onnxscope.compare(mlp, mlp, feeds)):
            with pytest.raises(ValueError) as e:
                call()
            assert isinstance(e.value, onnxscope.InputError) and isinstance(e.value, onnxscope.Error)
            # The expected inputs with their types, whatever the engine's wording.
            assert "x" in str(e.value) and "float[batch, 16]" in str(e.value), str(e.value)


def test_non_contiguous_arrays_are_copied_not_misread(mlp):
    rng = np.random.default_rng(0)
    big = rng.standard_normal((16, 8)).astype(np.float32)
    x = big.T  # (8, 16), Fortran order
    assert not x.flags.c_contiguous
    got = mlp.run({"x": x})["probs"]
    expected = ort_session(mlp_model()).run(None, {"x": np.ascontiguousarray(x)})[0]
    assert_close(got, expected, 1e-5, 1e-6)
    strided = rng.standard_normal((6, 32)).astype(np.float32)[::2, ::2]
    assert_close(mlp.run({"x": strided})["probs"],
                 ort_session(mlp_model()).run(None, {"x": np.ascontiguousarray(strided)})[0], 1e-5, 1e-6)
    big_endian = np.ascontiguousarray(x).astype(">f4")
    assert_close(mlp.run({"x": big_endian})["probs"], expected, 1e-5, 1e-6)


def test_unsupported_model_raises_before_running_and_lists_nodes():
    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["r"], name="first"),
         helper.make_node("NoSuchOp", ["r"], ["a"], name="mystery_1", domain="example.custom"),
         helper.make_node("AlsoMissing", ["a"], ["y"], name="mystery_2", domain="example.custom")],
        "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
    proto = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("example.custom", 1)],
                              ir_version=8)
    model = onnxscope.load(proto)
    assert len(model.unsupported_nodes) == 2
    ran = []
    for call in (lambda: model.run({"x": np.zeros(2, np.float32)}),
                 lambda: model.debug({"x": np.zeros(2, np.float32)})):
        with pytest.raises(onnxscope.UnsupportedModelError) as e:
            call()
        assert "mystery_1" in str(e.value) and "mystery_2" in str(e.value)
    assert not ran


def test_failing_node_raises_engine_error_with_its_message():
    graph = helper.make_graph(
        [helper.make_node("Reshape", ["x", "shape"], ["y"], name="bad_reshape")],
        "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [6]),
              helper.make_tensor_value_info("shape", TensorProto.INT64, [2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    model = onnxscope.load(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8))
    feeds = {"x": np.zeros(6, np.float32), "shape": np.array([4, 4], np.int64)}
    with pytest.raises(onnxscope.Error, match="bad_reshape"):
        model.run(feeds)
    dbg = model.debug(feeds)
    with pytest.raises(onnxscope.Error, match="bad_reshape"):
        dbg.cont()
    assert dbg.position.reason == "failed"


def test_strings_sequences_and_optionals():
    graph = helper.make_graph(
        [helper.make_node("SequenceConstruct", ["a", "b"], ["seq"], name="construct"),
         helper.make_node("Identity", ["s"], ["s_out"], name="strings"),
         helper.make_node("OptionalHasElement", ["opt"], ["has"], name="has")],
        "g",
        [helper.make_tensor_value_info("a", TensorProto.FLOAT, [2]),
         helper.make_tensor_value_info("b", TensorProto.FLOAT, [3]),
         helper.make_tensor_value_info("s", TensorProto.STRING, [2]),
         helper.make_value_info("opt", helper.make_optional_type_proto(
             helper.make_tensor_type_proto(TensorProto.FLOAT, [1])))],
        [helper.make_tensor_sequence_value_info("seq", TensorProto.FLOAT, None),
         helper.make_tensor_value_info("s_out", TensorProto.STRING, [2]),
         helper.make_tensor_value_info("has", TensorProto.BOOL, [])])
    model = onnxscope.load(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)], ir_version=8))
    a, b = np.arange(2, dtype=np.float32), np.arange(3, dtype=np.float32)
    out = model.run({"a": a, "b": b, "s": np.array(["héllo", "x"]), "opt": None})
    assert isinstance(out["seq"], list) and len(out["seq"]) == 2
    np.testing.assert_array_equal(out["seq"][1], b)
    assert out["s_out"].tolist() == ["héllo", "x"]
    assert bool(out["has"]) is False
    out = model.run({"a": a, "b": b, "s": np.array(["a", "b"]), "opt": np.ones(1, np.float32)})
    assert bool(out["has"]) is True


def test_zero_width_strings_past_the_limit_are_refused_before_listing_them():
    """Issue 46: numpy holds 30 billion '|S0' strings in no memory at all; listing them would never end."""
    import io
    header = b"{'descr': '|S0', 'fortran_order': True, 'shape': (1, 49,729 ,6,141220), }".ljust(118)
    huge = np.load(io.BytesIO(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header))
    assert huge.dtype == np.dtype("S0") and huge.size == 30267117720
    graph = helper.make_graph([helper.make_node("Identity", ["s"], ["y"], name="ident")], "g",
                              [helper.make_tensor_value_info("s", TensorProto.STRING, None)],
                              [helper.make_tensor_value_info("y", TensorProto.STRING, None)])
    model = onnxscope.load(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8))
    with pytest.raises(onnxscope.InputError, match=r"string\[1, 49, 729, 6, 141220\] would need 902\.0 GiB"):
        model.run({"s": huge})
    small = np.zeros((2, 3), "S0")
    assert model.run({"s": small})["y"].tolist() == [["", "", ""], ["", "", ""]]


def test_bad_arguments():
    model = onnxscope.load(mlp_model())
    with pytest.raises(TypeError):
        model.run([np.zeros((1, 16), np.float32)])
    with pytest.raises(ValueError):
        model.run({"x": np.zeros((1, 16), np.float32)}, threads=0)
    dbg = model.debug({"x": np.zeros((1, 16), np.float32)})
    with pytest.raises(ValueError):
        dbg.break_on()
    with pytest.raises(TypeError):
        onnxscope.load(42)


def test_maps_become_dicts():
    """ZipMap's seq(map(int64, float)): a list of dicts, one per row, keyed by the class labels."""
    out_type = helper.make_sequence_type_proto(helper.make_map_type_proto(TensorProto.INT64,
                                                                          helper.make_tensor_type_proto(TensorProto.FLOAT, [])))
    graph = helper.make_graph(
        [helper.make_node("ZipMap", ["p"], ["m"], domain="ai.onnx.ml", classlabels_int64s=[10, 20, 30], name="zip")],
        "g", [helper.make_tensor_value_info("p", TensorProto.FLOAT, [2, 3])],
        [helper.make_value_info("m", out_type)])
    model = onnxscope.load(helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("ai.onnx.ml", 3)], ir_version=8))
    p = np.array([[0.1, 0.2, 0.7], [0.5, 0.25, 0.25]], np.float32)
    m = model.run({"p": p})["m"]
    assert isinstance(m, list) and len(m) == 2
    assert m[1] == {10: pytest.approx(0.5), 20: pytest.approx(0.25), 30: pytest.approx(0.25)}
    assert list(m[0]) == [10, 20, 30]
