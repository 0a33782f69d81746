# SPDX-License-Identifier: MIT
"""compare(): an fp16 copy against its fp32 model, reference folders and archives, and the CLI's JSON format."""
import json
import os
import subprocess

import numpy as np
import pytest

import onnxscope
from conftest import assert_close, loop_model, mlp_model, ort_session

CLI = os.environ.get("ONNXSCOPE_CLI")


@pytest.fixture()
def models(tmp_path):
    a, b = tmp_path / "mlp32.onnx", tmp_path / "mlp16.onnx"
    a.write_bytes(mlp_model(np.float32).SerializeToString())
    b.write_bytes(mlp_model(np.float16).SerializeToString())
    x = np.random.default_rng(5).standard_normal((4, 16)).astype(np.float32)
    return str(a), str(b), x


def test_fp16_copy_first_divergence(models):
    a, b, x = models
    report = onnxscope.compare(a, b, {"x": x}, rtol=1e-4, atol=1e-5)
    assert report.diverged and not report.all_match
    first = report.first_divergence
    assert first["node"] == "fc1" and first["op_type"] == "MatMul" and first["outputs"] == ["h1"]
    # The error of h1 from onnxruntime running each model.
    h32 = ort_session(mlp_model(np.float32), ["h1"]).run(["h1"], {"x": x})[0]
    h16 = ort_session(mlp_model(np.float16), ["h1"]).run(["h1"], {"x": x.astype(np.float16)})[0]
    expected = float(np.max(np.abs(h16.astype(np.float64) - h32.astype(np.float64))))
    assert first["max_abs_error"] == pytest.approx(expected, rel=1e-2)
    errors = report.errors()
    assert onnxscope.ValueKey("main", "probs", -1) in errors
    # The input differs (cast to fp16): a differing source, not the divergence.
    assert [report.values[i]["name"] for i in report.data["differing_sources"]] == ["x"] or \
        "x" in [report.values[i]["name"] for i in report.data["differing_sources"]]
    # Loose enough tolerances: nothing diverges.
    assert not onnxscope.compare(a, b, {"x": x}, rtol=0.05, atol=0.05, initializers=False).diverged


@pytest.mark.skipif(not CLI, reason="ONNXSCOPE_CLI is not set")
def test_to_json_is_the_cli_format(models, tmp_path):
    a, b, x = models
    np.save(tmp_path / "x.npy", x)
    out = tmp_path / "cli.json"
    subprocess.run([CLI, "compare", a, b, "-i", f"x={tmp_path / 'x.npy'}", "--json", str(out)],
                   stdout=subprocess.DEVNULL, check=False)
    cli = json.loads(out.read_text())
    ours = json.loads(onnxscope.compare(a, b, {"x": x}).to_json())
    for side in ("side_a", "side_b"):
        cli.pop(side), ours.pop(side)
    assert ours == cli


@pytest.mark.skipif(not CLI, reason="ONNXSCOPE_CLI is not set")
def test_reference_folder_npz_and_dict(tmp_path):
    path = tmp_path / "loop.onnx"
    path.write_bytes(loop_model().SerializeToString())
    x = np.array([[1, -2, 3], [-4, 5, -6]], np.float32)
    n = np.array(3, np.int64)
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "n.npy", n)
    dump = tmp_path / "dump"
    subprocess.run([CLI, "run", str(path), "-i", f"x={tmp_path / 'x.npy'}", "-i", f"n={tmp_path / 'n.npy'}",
                    "--dump-all", "--output-dir", str(dump)], stdout=subprocess.DEVNULL, check=True)
    feeds = {"x": x, "n": n}
    report = onnxscope.compare(str(path), str(dump), feeds)
    assert not report.diverged and report.summary["match"] > 10
    assert any("iteration 2" in r["frame"] for r in report.values)

    # An .npz from onnxruntime's outputs, and a dict with one wrong value.
    exp = ort_session(loop_model()).run(None, feeds)
    np.savez(tmp_path / "ref.npz", y=exp[0], ys=exp[1], total=exp[2])
    report = onnxscope.compare(str(path), str(tmp_path / "ref.npz"), feeds, rtol=1e-6, atol=1e-6)
    assert not report.diverged and report.summary["match"] == 3
    report = onnxscope.compare(str(path), {"y": exp[0], "total": exp[2] + 1}, feeds)
    assert report.diverged and report.first_divergence["node"] == "sum"


def test_fp16_example_script(tmp_path):
    """docs/examples/fp16_divergence.py runs and names the first divergent node of the sample model's fp16 copy."""
    import sys
    root = os.path.join(os.path.dirname(__file__), "..", "..")
    out = tmp_path / "report.json"
    run = subprocess.run([sys.executable, os.path.join(root, "docs", "examples", "fp16_divergence.py"),
                          os.path.join(root, "resources", "samples", "mlp_classifier.onnx"), "--json", str(out)],
                         capture_output=True, text=True, check=True)
    assert "first divergence: node 'dense1/MatMul' (MatMul)" in run.stdout, run.stdout
    assert json.loads(out.read_text())["first_divergence"]["node"] == "dense1/MatMul"


def _renamed(model):
    """The same graph with every intermediate value renamed (graph inputs, outputs and weights keep their names)."""
    import onnx
    m = onnx.ModelProto()
    m.CopyFrom(model)
    g = m.graph
    keep = {v.name for v in g.input} | {v.name for v in g.output} | {t.name for t in g.initializer}
    new = {}
    for node in g.node:
        node.name = "renamed_" + node.name
        for i, o in enumerate(node.output):
            if o and o not in keep:
                new[o] = node.output[i] = "t%d" % len(new)
        for i, x in enumerate(node.input):
            node.input[i] = new.get(x, x)
    del g.value_info[:]
    return m


def test_align_pairs_renamed_values_by_content(tmp_path):
    a, b = tmp_path / "mlp.onnx", tmp_path / "renamed.onnx"
    a.write_bytes(mlp_model(np.float32).SerializeToString())
    b.write_bytes(_renamed(mlp_model(np.float32)).SerializeToString())
    x = np.random.default_rng(7).standard_normal((4, 16)).astype(np.float32)
    intermediates = [r["name"] for r in onnxscope.compare(str(a), str(a), {"x": x}).values
                     if r["origin"] == "node_output" and r["name"] != "probs"]
    assert intermediates, "the MLP has intermediate values"
    # By name, the renamed intermediates have no counterpart.
    by_name = onnxscope.compare(str(a), str(b), {"x": x}, align="names")
    only_a = {r["name"] for r in by_name.values if r["status"] == "only_a"}
    assert set(intermediates) <= only_a
    # By content, each pairs with its renamed twin (same producer, "renamed_" + name) and matches.
    for mode in ("content", "auto"):
        report = onnxscope.compare(str(a), str(b), {"x": x}, align=mode)
        assert report.all_match and not report.diverged, mode
        rows = {r["name"]: r for r in report.values}
        for name in intermediates:
            row = rows[name]
            assert row["status"] == "match" and row["paired_by"] == "content", (mode, row)
            assert row["node_b"] == "renamed_" + row["node"], (mode, row)
    with pytest.raises(ValueError):
        onnxscope.compare(str(a), str(b), {"x": x}, align="shape")


@pytest.mark.skipif(not CLI, reason="ONNXSCOPE_CLI is not set")
def test_aligned_to_json_is_the_cli_format(tmp_path):
    a, b = tmp_path / "mlp.onnx", tmp_path / "renamed.onnx"
    a.write_bytes(mlp_model(np.float32).SerializeToString())
    b.write_bytes(_renamed(mlp_model(np.float32)).SerializeToString())
    x = np.random.default_rng(8).standard_normal((4, 16)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    out = tmp_path / "cli.json"
    subprocess.run([CLI, "compare", str(a), str(b), "-i", f"x={tmp_path / 'x.npy'}", "--align", "content",
                    "--json", str(out)], stdout=subprocess.DEVNULL, check=False)
    cli = json.loads(out.read_text())
    ours = json.loads(onnxscope.compare(str(a), str(b), {"x": x}, align="content").to_json())
    for side in ("side_a", "side_b"):
        cli.pop(side), ours.pop(side)
    assert ours == cli


def _chain(prefix, scale, bias_shift=0.0):
    """x -> Relu -> Add(bias) -> Mul(scale) -> Tanh, every name prefixed."""
    from onnx import TensorProto, helper, numpy_helper
    p = prefix
    bias = (np.arange(8, dtype=np.float32) / 7 - 0.5 + bias_shift).astype(np.float32)
    nodes = [
        helper.make_node("Relu", [p + "x"], [p + "r"], name=p + "relu"),
        helper.make_node("Add", [p + "r", p + "bias"], [p + "s"], name=p + "add"),
        helper.make_node("Mul", [p + "s", p + "scale"], [p + "m"], name=p + "scale_mul"),
        helper.make_node("Tanh", [p + "m"], [p + "y"], name=p + "tanh"),
    ]
    graph = helper.make_graph(
        nodes, "chain", [helper.make_tensor_value_info(p + "x", TensorProto.FLOAT, [3, 8])],
        [helper.make_tensor_value_info(p + "y", TensorProto.FLOAT, [3, 8])],
        [numpy_helper.from_array(bias, p + "bias"), numpy_helper.from_array(np.full(8, scale, np.float32), p + "scale")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model, bias


def _case(folder):
    import onnx
    from onnx import numpy_helper
    model = onnx.load(str(folder / "model.onnx"))
    data = folder / "test_data_set_0"
    ins = {onnx.load_tensor(str(p)).name: numpy_helper.to_array(onnx.load_tensor(str(p)))
           for p in sorted(data.glob("input_*.pb"))}
    outs = [numpy_helper.to_array(onnx.load_tensor(str(p))) for p in sorted(data.glob("output_*.pb"))]
    import onnxruntime as ort
    got = ort.InferenceSession(str(folder / "model.onnx"), providers=["CPUExecutionProvider"]).run(None, ins)
    return model, ins, outs, got


def test_extract_divergence(tmp_path):
    """compare(..., extract_divergence=DIR) on a renamed copy whose Mul scales by 1.001 (and whose bias is off within
    the tolerance): a/ and b/ hold the two Muls fed A's values; onnxruntime and numpy give their outputs."""
    a, bias = _chain("", 1.0)
    b, _ = _chain("b_", 1.001, bias_shift=2e-6)
    x = np.random.default_rng(2).standard_normal((3, 8)).astype(np.float32)
    out = tmp_path / "div"
    report = onnxscope.compare(a, b, {"x": x}, feeds_b={"b_x": x}, extract_divergence=out)
    e = report.divergence_extract
    assert e["found"] and e["node_a"] == "scale_mul" and e["node_b"] == "b_scale_mul"
    assert e["inputs"] == [{"name_b": "b_s", "name_a": "s", "paired_by": "content", "from_a": True, "note": ""}]
    s = np.maximum(x, 0) + bias
    ma, ia, oa, ga = _case(out / "a")
    mb, ib, ob, gb = _case(out / "b")
    assert [n.name for n in ma.graph.node] == ["scale_mul"] and [n.name for n in mb.graph.node] == ["b_scale_mul"]
    assert np.array_equal(ia["s"], ib["b_s"])
    assert_close(ia["s"], s, rtol=1e-6, atol=1e-6)
    assert np.array_equal(ob[0], ia["s"] * np.float32(1.001)) and np.array_equal(oa[0], ia["s"])
    assert np.array_equal(ga[0], oa[0]) and np.array_equal(gb[0], ob[0])
    assert e["max_abs_error"] == pytest.approx(float(np.abs(oa[0] - ob[0]).max()), rel=1e-6)
    assert "max abs error between the cases" in (out / "README.txt").read_text()
    assert "divergence_extract" not in json.loads(report.to_json())

    # No divergence: nothing written; a folder in use and reference values are refused.
    same = onnxscope.compare(a, a, {"x": x}, extract_divergence=tmp_path / "none")
    assert not same.divergence_extract["found"] and "no divergence" in same.divergence_extract["message"]
    assert not (tmp_path / "none").exists()
    with pytest.raises(ValueError, match="not empty"):
        onnxscope.compare(a, b, {"x": x}, feeds_b={"b_x": x}, extract_divergence=out)
    with pytest.raises(ValueError, match="second model"):
        onnxscope.compare(a, {"y": x}, {"x": x}, extract_divergence=tmp_path / "ref")


def test_extract_divergence_fp16_casts_a_inputs(models, tmp_path):
    """fp32 against its fp16 copy: the divergent MatMul reads float16 on B, so b/ takes A's values cast to float16 and
    says so; both cases match onnxruntime, and b/'s inputs are numpy's rounding of a/'s."""
    a, b, x = models
    report = onnxscope.compare(a, b, {"x": x}, extract_divergence=tmp_path / "d")
    e = report.divergence_extract
    assert e["found"] and e["node_a"] == report.first_divergence["node"]
    assert e["inputs"] and all(i["from_a"] and i["note"] == "cast from float to float16" for i in e["inputs"])
    cases = {}
    for side in ("a", "b"):
        _, ins, outs, got = _case(tmp_path / "d" / side)
        cases[side] = ins
        for g, o in zip(got, outs):
            assert_close(g, o, rtol=1e-3, atol=1e-3)
    for i in e["inputs"]:
        assert cases["b"][i["name_b"]].dtype == np.float16
        assert np.array_equal(cases["b"][i["name_b"]], cases["a"][i["name_a"]].astype(np.float16))
    assert "cast from float to float16" in (tmp_path / "d" / "README.txt").read_text()
