# SPDX-License-Identifier: MIT
"""Model.check_precision (issue #44, part 4) against numpy's reading of onnxruntime's intermediates, and the model it
writes against onnxruntime (tests/cli/precision/precision_test.py covers the CLI and the float16 converters)."""
import json
import os
import subprocess

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import onnxscope
from conftest import ort_session

FP16_MAX = 65504.0
FP16_SUBNORMAL = 2.0**-24


@pytest.fixture(scope="module")
def model_path(tmp_path_factory):
    """An overflow (MatMul of inputs in [1, 3] with weights near 3000, brought back by LayerNormalization) and an
    underflow (Exp(x - 30), brought back by Log)."""
    rng = np.random.default_rng(7)
    w = {
        "W": (3000 + 100 * rng.standard_normal((16, 8))).astype(np.float32),
        "gamma": np.ones(8, np.float32),
        "beta": np.zeros(8, np.float32),
        "thirty": np.array(30, np.float32),
    }
    N = helper.make_node
    nodes = [
        N("MatMul", ["x", "W"], ["h"], name="mm"),
        N("LayerNormalization", ["h", "gamma", "beta"], ["y1"], name="ln"),
        N("Sub", ["x", "thirty"], ["d"], name="sub"),
        N("Exp", ["d"], ["e"], name="exp"),
        N("Log", ["e"], ["y2"], name="log"),
    ]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 16])],
        [helper.make_tensor_value_info("y1", TensorProto.FLOAT, [2, 8]),
         helper.make_tensor_value_info("y2", TensorProto.FLOAT, [2, 16])],
        [numpy_helper.from_array(v, k) for k, v in w.items()],
    )
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    path = tmp_path_factory.mktemp("precision") / "m.onnx"
    onnx.save(m, path)
    return path


def feeds():
    return {"x": np.random.default_rng(3).uniform(1, 3, (2, 16)).astype(np.float32)}


def truth(path, x):
    """Flagged value names and the nodes to keep, from onnxruntime's intermediates and numpy."""
    m = onnx.load(path)
    names = [o for n in m.graph.node for o in n.output]
    values = dict(zip(names, ort_session(m, names).run(names, x)))
    flagged = {}
    for name, v in values.items():
        a = np.abs(v.astype(np.float64))
        nz = a != 0
        over = int(np.count_nonzero(a > FP16_MAX))
        share = np.count_nonzero(nz & (a < FP16_SUBNORMAL)) / max(np.count_nonzero(nz), 1)
        if over or share > 0.5:
            flagged[name] = (over, share)
    keep = {n.name for n in m.graph.node if set(n.output) & set(flagged) or set(n.input) & set(flagged)}
    return flagged, keep


def test_check_precision_matches_numpy(model_path):
    x = feeds()
    report = onnxscope.load(str(model_path)).check_precision("fp16", x)
    flagged, keep = truth(model_path, x)
    assert set(flagged) == {"h", "e"}
    assert {v["name"]: (v["overflow"], v["underflow_share"]) for v in report["flagged"]} == flagged
    assert set(report["node_block_list"]) == keep
    assert {k["node"]: k["reason"] for k in report["keep_in_fp32"]} == {
        "mm": "overflow", "ln": "overflow", "exp": "underflow", "log": "underflow"}
    assert report["target"] == "float16" and report["max_finite"] == FP16_MAX


def test_check_precision_agrees_with_the_cli(model_path, tmp_path):
    x = feeds()
    np.save(tmp_path / "x.npy", x["x"])
    subprocess.run([os.environ["ONNXSCOPE_CLI"], "check-precision", str(model_path), "--to", "fp16", "--input",
                    f"x={tmp_path / 'x.npy'}", "--json", str(tmp_path / "r.json")], check=True, capture_output=True)
    cli = json.loads((tmp_path / "r.json").read_text())
    assert onnxscope.load(str(model_path)).check_precision("fp16", x) == cli


def test_write_runs_in_onnxruntime(model_path, tmp_path):
    x = feeds()
    out = tmp_path / "mixed.onnx"
    report = onnxscope.load(str(model_path)).check_precision("fp16", x, write=out)
    mixed = report["mixed"]
    assert set(mixed["lowered"]) == {"sub"}
    assert {k["node"] for k in mixed["kept_fp32"]} == {"mm", "ln", "exp", "log"}
    ref = dict(zip(["y1", "y2"], ort_session(onnx.load(model_path)).run(None, x)))
    got = dict(zip(["y1", "y2"], ort_session(onnx.load(out)).run(None, x)))
    for name in ("y1", "y2"):
        assert np.all(np.isfinite(got[name]))
        np.testing.assert_allclose(got[name], ref[name], rtol=2e-2, atol=2e-2)
    errors = {o["name"]: o["max_abs_error"] for o in mixed["outputs"]}
    # y2 = Log(Exp(d)) = d, with d computed in float16 by the lowered Sub (x cast to float16 first): numpy's float16.
    d16 = (x["x"].astype(np.float16) - np.float16(30)).astype(np.float64)
    assert errors["y2"] == pytest.approx(float(np.max(np.abs(d16 - ref["y2"]))), rel=0.05, abs=1e-6)


def test_bad_arguments(model_path):
    m = onnxscope.load(str(model_path))
    with pytest.raises(ValueError, match="fp8"):
        m.check_precision("fp8", feeds())
    with pytest.raises(ValueError, match="underflow_share"):
        m.check_precision("fp16", feeds(), underflow_share=1.5)
    with pytest.raises(onnxscope.InputError):
        m.check_precision("fp16", {"x": np.zeros((2, 3), np.float32)})
