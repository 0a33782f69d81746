# SPDX-License-Identifier: MIT
"""`onnxscope-cli compare --align content|auto` against independent truth.

Builds small graphs with onnx.helper (standard operators only): a pre-norm MLP block written out op by op at opset
17 (LayerNorm and Gelu decomposed) and the same block rewritten as another exporter or optimizer would (every value
and node renamed, fused LayerNormalization and Gelu at opset 20, Identity and Reshape no-ops inserted), its fp16
version (Casts at the edges), a copy with one weight perturbed, and a Loop whose body is renamed and fused (Gemm for
MatMul + Add). Expected pairs and first divergences come from a brute-force search written here: every intermediate
of both graphs exposed as an output and computed by onnxruntime (numpy for the Loop body, checked against
onnxruntime's outputs), each value of A paired with the B value of closest content by exhaustive search, and the
first node of A (file order = execution order for these chains) whose counterpart differs beyond tolerance.

usage: align_test.py ONNXSCOPE_CLI WORKDIR
"""
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

RTOL, ATOL = 1e-4, 1e-5
FAILURES = []


def check(cond, message):
    if not cond:
        FAILURES.append(message)
        print("FAIL:", message)


def init(name, array):
    return numpy_helper.from_array(np.asarray(array), name)


def block_a(rng):
    """The unfused block: y = x + W2 @ gelu(W1 @ layernorm(x) + b1) + b2, opset 17."""
    H, F = 16, 32
    w = {
        "gamma": (1 + 0.5 * rng.standard_normal(H)).astype(np.float32),
        "beta": (0.5 * rng.standard_normal(H)).astype(np.float32),
        "W1": (rng.standard_normal((H, F)) / 4).astype(np.float32),
        "b1": (0.1 * rng.standard_normal(F)).astype(np.float32),
        "W2": (rng.standard_normal((F, H)) / 6).astype(np.float32),
        "b2": (0.1 * rng.standard_normal(H)).astype(np.float32),
    }
    consts = {
        "eps": np.array(1e-5, np.float32),
        "sqrt2": np.array(np.sqrt(2), np.float32),
        "one": np.array(1, np.float32),
        "half": np.array(0.5, np.float32),
    }
    N = helper.make_node
    nodes = [
        N("ReduceMean", ["x"], ["ln_mean"], name="ln_mean", axes=[-1]),
        N("Sub", ["x", "ln_mean"], ["ln_centered"], name="ln_sub"),
        N("Mul", ["ln_centered", "ln_centered"], ["ln_sq"], name="ln_sq"),
        N("ReduceMean", ["ln_sq"], ["ln_var"], name="ln_var", axes=[-1]),
        N("Add", ["ln_var", "eps"], ["ln_var_eps"], name="ln_add_eps"),
        N("Sqrt", ["ln_var_eps"], ["ln_std"], name="ln_sqrt"),
        N("Div", ["ln_centered", "ln_std"], ["ln_norm"], name="ln_div"),
        N("Mul", ["ln_norm", "gamma"], ["ln_scaled"], name="ln_scale"),
        N("Add", ["ln_scaled", "beta"], ["ln_out"], name="ln_shift"),
        N("MatMul", ["ln_out", "W1"], ["fc1"], name="fc1_matmul"),
        N("Add", ["fc1", "b1"], ["fc1_bias"], name="fc1_add"),
        N("Div", ["fc1_bias", "sqrt2"], ["gelu_scaled"], name="gelu_div"),
        N("Erf", ["gelu_scaled"], ["gelu_erf"], name="gelu_erf"),
        N("Add", ["gelu_erf", "one"], ["gelu_erf1"], name="gelu_add1"),
        N("Mul", ["fc1_bias", "gelu_erf1"], ["gelu_prod"], name="gelu_mul"),
        N("Mul", ["gelu_prod", "half"], ["gelu_out"], name="gelu_half"),
        N("MatMul", ["gelu_out", "W2"], ["fc2"], name="fc2_matmul"),
        N("Add", ["fc2", "b2"], ["fc2_bias"], name="fc2_add"),
        N("Add", ["fc2_bias", "x"], ["y"], name="residual"),
    ]
    graph = helper.make_graph(
        nodes,
        "block",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8, H])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 8, H])],
        [init(k, v) for k, v in {**w, **consts}.items()],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), w


# A's values inside the fused LayerNorm and Gelu: nothing in the fused graph stands for them.
FUSED_AWAY = {"ln_mean", "ln_centered", "ln_sq", "ln_var", "ln_var_eps", "ln_std", "ln_norm", "ln_scaled",
              "gelu_scaled", "gelu_erf", "gelu_erf1", "gelu_prod"}


def block_b(w):
    """The same block as an optimizer writes it: fused ops, opset 20, new names, no-op Identity and Reshapes."""
    N = helper.make_node
    nodes = [
        N("LayerNormalization", ["t0", "p0", "p1"], ["t1"], name="n0", axis=-1, epsilon=1e-5),
        N("MatMul", ["t1", "p2"], ["t2"], name="n1"),
        N("Add", ["t2", "p3"], ["t3"], name="n2"),
        N("Reshape", ["t3", "s0"], ["t3r"], name="n3"),
        N("Reshape", ["t3r", "s1"], ["t3rr"], name="n4"),
        N("Gelu", ["t3rr"], ["t4"], name="n5"),
        N("MatMul", ["t4", "p4"], ["t5"], name="n6"),
        N("Add", ["t5", "p5"], ["t6"], name="n7"),
        N("Identity", ["t6"], ["t6i"], name="n8"),
        N("Add", ["t6i", "t0"], ["t7"], name="n9"),
    ]
    inits = [init("p0", w["gamma"]), init("p1", w["beta"]), init("p2", w["W1"]), init("p3", w["b1"]),
             init("p4", w["W2"]), init("p5", w["b2"]), init("s0", np.array([8, 32], np.int64)),
             init("s1", np.array([1, 8, 32], np.int64))]
    graph = helper.make_graph(
        nodes,
        "fused",
        [helper.make_tensor_value_info("t0", TensorProto.FLOAT, [1, 8, 16])],
        [helper.make_tensor_value_info("t7", TensorProto.FLOAT, [1, 8, 16])],
        inits,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)])


def to_fp16(model):
    """fp16 version: initializers in float16, Cast after the input and before the output (as onnxconverter-common's
    keep_io_types does)."""
    m = onnx.ModelProto()
    m.CopyFrom(model)
    g = m.graph
    for t in g.initializer:
        if t.data_type == TensorProto.FLOAT:
            t.CopyFrom(numpy_helper.from_array(numpy_helper.to_array(t).astype(np.float16), t.name))
    inp, out = g.input[0].name, g.output[0].name
    for n in g.node:
        n.input[:] = [inp + "_fp16" if i == inp else i for i in n.input]
        n.output[:] = [out + "_fp16" if o == out else o for o in n.output]
    nodes = [helper.make_node("Cast", [inp], [inp + "_fp16"], name="cast_in", to=TensorProto.FLOAT16)]
    nodes += list(g.node)
    nodes.append(helper.make_node("Cast", [out + "_fp16"], [out], name="cast_out", to=TensorProto.FLOAT))
    del g.node[:]
    g.node.extend(nodes)
    return m


def expose_all(model):
    """A copy whose every node output is a graph output too (types left to onnxruntime)."""
    m = onnx.ModelProto()
    m.CopyFrom(model)
    have = {o.name for o in m.graph.output}
    for n in m.graph.node:
        for o in n.output:
            if o and o not in have:
                m.graph.output.append(onnx.ValueInfoProto(name=o))
                have.add(o)
    return m


def ort_values(model, feeds):
    m = expose_all(model)
    s = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
    names = [o.name for o in s.get_outputs()]
    return dict(zip(names, s.run(None, feeds)))


def rel_error(a, b):
    a = a.astype(np.float64).ravel()
    b = b.astype(np.float64).ravel()
    return np.linalg.norm(a - b) / max(np.linalg.norm(a), np.linalg.norm(b), 1e-30)


def brute_force(nodes_a, values_a, values_b, exclude_b=()):
    """Pairs each node output of A with the B value of closest content (same element count, exhaustive), a pair
    only when within 5% relative L2 error; returns the pairs and the first node of A whose paired output fails
    |a - b| <= atol + rtol |b|."""
    pairs, first = {}, None
    for node in nodes_a:
        for o in node.output:
            a = values_a[o]
            errors = {name: rel_error(a, b) for name, b in values_b.items() if name not in exclude_b and b.size == a.size}
            best_err = min(errors.values(), default=1.0)
            # Values equal in content (a no-op's input and output) are all the closest.
            best = sorted(n for n, e in errors.items() if e <= 0.05 and e <= best_err + 1e-9)
            pairs[o] = set(best) or None
            if not best or first is not None:
                continue
            b = values_b[best[0]].astype(np.float64).reshape(a.shape)
            if np.any(np.abs(a.astype(np.float64) - b) > ATOL + RTOL * np.abs(b)):
                first = (node.name, set(best))
    return pairs, first


def run_cli(cli, a, b, out, *extra):
    cmd = [cli, "compare", str(a), str(b), "--input", f"x={out.parent / 'x.npy'}", "--json", str(out), *extra]
    p = subprocess.run(cmd, capture_output=True, text=True)
    print("$", " ".join(cmd), "->", p.returncode)
    if p.returncode not in (0, 1):
        print(p.stdout, p.stderr)
        raise SystemExit(f"compare failed with exit status {p.returncode}")
    return json.loads(out.read_text()), p


def node_outputs(report):
    """A's node-output values of the report: name -> value entry."""
    return {v["name"]: v for v in report["values"] if v["origin"] == "node_output" and v["status"] != "only_b"}


def producer_of(model, value):
    for n in model.graph.node:
        if value in n.output:
            return n.name
    return None


def case_fused(cli, work, model_a, model_b, x):
    print("== renamed + fused + no-ops: everything pairs and matches")
    va = ort_values(model_a, {"x": x})
    vb = ort_values(model_b, {"t0": x})
    pairs, first = brute_force(model_a.graph.node, va, vb)
    check(first is None, f"brute force: the fused graph should match, first divergence {first}")
    expected_unpaired = {o for o, b in pairs.items() if b is None}
    check(expected_unpaired == FUSED_AWAY, f"brute force unpaired {sorted(expected_unpaired)}")
    for mode in ("content", "auto"):
        # auto: B's input "t0" takes A's "x" by position (no input name is shared)
        extra = ["--input-b", f"t0={work / 'x.npy'}"] if mode == "content" else []
        report, p = run_cli(cli, work / "a.onnx", work / "b_fused.onnx", work / f"fused_{mode}.json", "--align", mode,
                            *extra)
        check(p.returncode == 0, f"{mode}: exit status {p.returncode}, expected 0 (no divergence)")
        check(report["first_divergence"] is None, f"{mode}: first divergence {report['first_divergence']}")
        check(report["summary"]["align"] == mode, f"{mode}: summary.align {report['summary']['align']}")
        rows = node_outputs(report)
        unpaired = {report["values"][i]["name"] for i in report["unpaired_a"]}
        check(unpaired == FUSED_AWAY, f"{mode}: unpaired values of A {sorted(unpaired)}, expected {sorted(FUSED_AWAY)}")
        for name, row in rows.items():
            if pairs[name] is None:
                continue
            check(row["status"] == "match", f"{mode}: {name} is {row['status']}")
            check(row["name_b"] in pairs[name], f"{mode}: {name} paired with {row['name_b']}, brute force says {pairs[name]}")
            check(row["node_b"] == producer_of(model_b, row["name_b"]),
                  f"{mode}: {name}'s counterpart {row['name_b']} made by {row['node_b']}")
        check(rows["ln_out"]["op_type_b"] == "LayerNormalization", f"{mode}: ln_out pairs with {rows['ln_out']}")
        check(rows["gelu_out"]["op_type_b"] == "Gelu", f"{mode}: gelu_out pairs with {rows['gelu_out']}")
        check(rows["y"]["paired_by"] == "output", f"{mode}: y paired by {rows['y']['paired_by']}")
    # By name nothing pairs but the output... nothing at all: every name differs.
    report, _ = run_cli(cli, work / "a.onnx", work / "b_fused.onnx", work / "fused_names.json", "--align", "names",
                        "--input-b", f"t0={work / 'x.npy'}")
    check(report["summary"]["match"] == 0, f"names: {report['summary']['match']} matches in a renamed graph")


def case_diverging(cli, work, label, model_a, model_b, path_b, x, known=None):
    print(f"== {label}: first divergence against brute force")
    va = ort_values(model_a, {"x": x})
    vb = ort_values(model_b, {"x": x})
    # The fp16 side's input Cast copies x: brute force must not pair an intermediate with x itself.
    pairs, first = brute_force(model_a.graph.node, va, vb)
    check(first is not None, f"{label}: brute force finds no divergence")
    if known:
        check(first is not None and first[0] == known, f"{label}: brute force names {first}, expected {known}")
    # Renamed first so that names cannot help.
    renamed = rename_all(model_b, "r_")
    onnx.save(renamed, path_b)
    for mode in ("content", "auto"):
        extra = ["--input-b", f"r_x={work / 'x.npy'}"] if mode == "content" else []
        report, p = run_cli(cli, work / "a.onnx", path_b, work / f"{label}_{mode}.json", "--align", mode, *extra)
        check(p.returncode == 1, f"{label} {mode}: exit status {p.returncode}, expected 1")
        f = report["first_divergence"]
        check(f is not None, f"{label} {mode}: no first divergence reported")
        if f is None or first is None:
            continue
        check(f["node"] == first[0], f"{label} {mode}: first divergence {f['node']}, brute force {first[0]}")
        check(f["counterpart"] in {"r_" + n for n in first[1]},
              f"{label} {mode}: counterpart {f['counterpart']}, brute force {first[1]}")
        check(f["node_b"] == "r_" + producer_of(model_b, f["counterpart"][2:]),
              f"{label} {mode}: B node {f['node_b']}, brute force r_{producer_of(model_b, f['counterpart'][2:])}")
        # Every value the brute force pairs is paired with one of the B values it finds closest.
        rows = node_outputs(report)
        for name, b in pairs.items():
            got = rows[name]["name_b"] if rows[name]["status"] != "only_a" else None
            want = None if b is None else {"r_" + n for n in b}
            check(got == want if want is None else got in want,
                  f"{label} {mode}: {name} paired with {got}, brute force {want}")


def rename_all(model, prefix):
    """Every value, node and initializer renamed (graph input and output too)."""
    m = onnx.ModelProto()
    m.CopyFrom(model)
    g = m.graph
    names = {v.name for v in list(g.input) + list(g.output)} | {t.name for t in g.initializer}
    for n in g.node:
        names.update(i for i in n.input if i)
        names.update(o for o in n.output if o)

    def r(x):
        return prefix + x if x in names else x

    for v in list(g.input) + list(g.output):
        v.name = r(v.name)
    for t in g.initializer:
        t.name = r(t.name)
    for n in g.node:
        n.name = prefix + n.name
        n.input[:] = [r(i) for i in n.input]
        n.output[:] = [r(o) for o in n.output]
    return m


def loop_models(rng, perturb):
    """A Loop of 3 iterations: h <- tanh(h @ W + bias), scan output h. B: renamed, Gemm for MatMul + Add, an Identity
    no-op; `perturb` adds 0.02 to one bias element in B (a known node: the body's Add of A)."""
    W = (rng.standard_normal((16, 16)) / 4).astype(np.float32)
    bias = (0.1 * rng.standard_normal(16)).astype(np.float32)
    bias_b = bias.copy()
    if perturb:
        bias_b[3] += 0.02
    N = helper.make_node
    F = TensorProto.FLOAT

    def body_a():
        return helper.make_graph(
            [N("MatMul", ["h_in", "W"], ["mm"], name="body_matmul"),
             N("Add", ["mm", "bias"], ["pre"], name="body_add"),
             N("Tanh", ["pre"], ["h_out"], name="body_tanh"),
             N("Identity", ["cond_in"], ["cond_out"], name="body_cond"),
             N("Identity", ["h_out"], ["scan"], name="body_scan")],
            "body",
            [helper.make_tensor_value_info("i", TensorProto.INT64, []),
             helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
             helper.make_tensor_value_info("h_in", F, [1, 16])],
            [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
             helper.make_tensor_value_info("h_out", F, [1, 16]),
             helper.make_tensor_value_info("scan", F, [1, 16])])

    def body_b():
        return helper.make_graph(
            [N("Gemm", ["q_h", "q_W", "q_bias"], ["q_g"], name="q_gemm"),
             N("Tanh", ["q_g"], ["q_t"], name="q_tanh"),
             N("Identity", ["q_t"], ["q_hout"], name="q_noop"),
             N("Identity", ["q_c"], ["q_cout"], name="q_cond"),
             N("Identity", ["q_hout"], ["q_scan"], name="q_scan_id")],
            "body_b",
            [helper.make_tensor_value_info("q_i", TensorProto.INT64, []),
             helper.make_tensor_value_info("q_c", TensorProto.BOOL, []),
             helper.make_tensor_value_info("q_h", F, [1, 16])],
            [helper.make_tensor_value_info("q_cout", TensorProto.BOOL, []),
             helper.make_tensor_value_info("q_hout", F, [1, 16]),
             helper.make_tensor_value_info("q_scan", F, [1, 16])])

    def model(body, names, weights):
        trip, cond, x, out, scan, loop = names
        g = helper.make_graph(
            [N("Loop", [trip, cond, x], [out, scan], name=loop, body=body)],
            "loop",
            [helper.make_tensor_value_info(x, F, [1, 16])],
            [helper.make_tensor_value_info(out, F, [1, 16]), helper.make_tensor_value_info(scan, F, [3, 1, 16])],
            [init(trip, np.array(3, np.int64)), init(cond, np.array(True))] + weights)
        return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])

    a = model(body_a(), ("trip", "cond", "x", "h_final", "h_all", "loop"), [init("W", W), init("bias", bias)])
    b = model(body_b(), ("q_trip", "q_cond", "q_x", "q_final", "q_all", "q_loop"),
              [init("q_W", W), init("q_bias", bias_b)])
    return a, b, (W, bias), (W, bias_b)


def case_loop(cli, work, rng, x):
    for perturb in (False, True):
        label = "loop_perturbed" if perturb else "loop_renamed"
        print(f"== {label}")
        a, b, (W, bias), (Wb, bias_b) = loop_models(rng, perturb)
        onnx.save(a, work / f"{label}_a.onnx")
        onnx.save(b, work / f"{label}_b.onnx")
        # numpy mirror of both bodies, checked against onnxruntime's final outputs
        va, vb = [], []
        h = x[0, 0].reshape(1, 16).astype(np.float32)
        hb = h.copy()
        for it in range(3):
            mm = h @ W
            pre = mm + bias
            h = np.tanh(pre)
            va.append({"mm": mm, "pre": pre, "h_out": h, "scan": h})
            g = hb @ Wb + bias_b
            hb = np.tanh(g)
            vb.append({"q_g": g, "q_t": hb, "q_hout": hb, "q_scan": hb})
        ra = ort.InferenceSession(a.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, {"x": x[0, 0].reshape(1, 16)})
        rb = ort.InferenceSession(b.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, {"q_x": x[0, 0].reshape(1, 16)})
        check(np.allclose(ra[0], h, atol=1e-5) and np.allclose(rb[0], hb, atol=1e-5), f"{label}: numpy mirror")
        # brute force per iteration: A's body values in order, closest B value of the same iteration
        body_order = ["mm", "pre", "h_out", "scan"]
        producers = {"mm": "body_matmul", "pre": "body_add", "h_out": "body_tanh", "scan": "body_scan"}
        producers_b = {"q_g": "q_gemm", "q_t": "q_tanh", "q_hout": "q_noop", "q_scan": "q_scan_id"}
        first, expected_pairs = None, {}
        for it in range(3):
            for name in body_order:
                errors = {bn: rel_error(va[it][name], bv) for bn, bv in vb[it].items()}
                best_err = min(errors.values())
                best = {bn for bn, e in errors.items() if e <= 0.05 and e <= best_err + 1e-9}
                expected_pairs[(it, name)] = best or None
                if best and first is None:
                    bv = vb[it][sorted(best)[0]]
                    if np.any(np.abs(va[it][name] - bv) > ATOL + RTOL * np.abs(bv)):
                        first = (it, producers[name], best)
        np.save(work / "xl.npy", x[0, 0].reshape(1, 16))
        cmd = [cli, "compare", str(work / f"{label}_a.onnx"), str(work / f"{label}_b.onnx"), "--input",
               f"x={work / 'xl.npy'}", "--input-b", f"q_x={work / 'xl.npy'}", "--align", "content", "--json",
               str(work / f"{label}.json")]
        p = subprocess.run(cmd, capture_output=True, text=True)
        print("$", " ".join(cmd), "->", p.returncode)
        report = json.loads((work / f"{label}.json").read_text())
        rows = [v for v in report["values"] if v["origin"] == "node_output" and v["status"] != "only_b"]
        for it in range(3):
            for name in body_order:
                got = [r for r in rows if r["name"] == name and r["iteration"] == it]
                check(len(got) == 1, f"{label}: {name} iteration {it}: {len(got)} rows")
                if not got:
                    continue
                r = got[0]
                want = expected_pairs[(it, name)]
                got_b = r["name_b"] if r["status"] != "only_a" else None
                check(got_b == want if want is None else got_b in want,
                      f"{label}: {name} iteration {it} paired with {r['name_b']} ({r['status']}), brute force {want}")
                if want and got_b:
                    check(f'q_loop" iteration {it}' in r["frame_b"], f"{label}: {name} it {it} frame_b {r['frame_b']}")
                    check(r["node_b"] == producers_b[got_b], f"{label}: {name} it {it} node_b {r['node_b']}")
        f = report["first_divergence"]
        if perturb:
            check(first == (0, "body_add", {"q_g"}), f"{label}: brute force first divergence {first}")
            check(p.returncode == 1, f"{label}: exit status {p.returncode}")
            check(f is not None and f["node"] == "body_add" and f["iteration"] == 0 and f["node_b"] == "q_gemm"
                  and f["counterpart"] == "q_g", f"{label}: first divergence {f}")
        else:
            check(first is None, f"{label}: brute force finds {first}")
            check(p.returncode == 0 and f is None, f"{label}: exit {p.returncode}, first divergence {f}")
            unpaired = sorted((report["values"][i]["name"], report["values"][i]["iteration"]) for i in report["unpaired_a"])
            check(unpaired == [("mm", 0), ("mm", 1), ("mm", 2)], f"{label}: unpaired {unpaired}")


def case_bert(cli, work, models):
    """One BERT exported twice (make_bert_exports.py): TorchScript at opset 16 (LayerNorm and Gelu written out) and
    dynamo at opset 20 (LayerNormalization, Gelu, other names). Everything pairs and matches; onnxruntime confirms every
    pair. Then one weight of the dynamo export is perturbed: the first divergence is the node that uses it."""
    print("== BERT exported twice")
    a = onnx.load(models / "bert_ts16.onnx")
    b = onnx.load(models / "bert_dyn20.onnx")
    rng = np.random.default_rng(3)
    feeds = {"input_ids": rng.integers(0, 100, (1, 12)).astype(np.int64),
             "attention_mask": np.ones((1, 12), np.int64)}
    feeds["attention_mask"][0, 10:] = 0
    for k, v in feeds.items():
        np.save(work / f"bert_{k}.npy", v)
    inputs = [f"--input={k}={work / f'bert_{k}.npy'}" for k in feeds]
    va = ort_values(a, feeds)
    vb = ort_values(b, feeds)
    report, p = run_cli_inputs(cli, models / "bert_ts16.onnx", models / "bert_dyn20.onnx", work / "bert.json", inputs)
    check(p.returncode == 0 and report["first_divergence"] is None,
          f"bert: exit {p.returncode}, first divergence {report['first_divergence']}")
    rows = node_outputs(report)
    paired_b = {}
    for name, row in rows.items():
        if row["status"] == "only_a" or name not in va or row["name_b"] not in vb:
            continue
        paired_b[row["name_b"]] = name
        x = va[name].astype(np.float64)
        y = vb[row["name_b"]].astype(np.float64).reshape(x.shape)
        check(np.all(np.abs(x - y) <= ATOL + RTOL * np.abs(y) + 1e-6 * np.abs(y).max()),
              f"bert: onnxruntime disagrees on the pair {name} ~ {row['name_b']}")
    # Every LayerNormalization, Gelu, MatMul and Softmax of the fused export has a counterpart.
    for n in b.graph.node:
        if n.op_type in ("LayerNormalization", "Gelu", "MatMul", "Softmax"):
            check(n.output[0] in paired_b, f"bert: B's {n.op_type} {n.name} ({n.output[0]}) has no counterpart")
    check(paired_b.get("layer_norm_4") == "hidden" or any(r["name"] == "hidden" and r["status"] == "match"
                                                         for r in report["values"]), "bert: the output does not pair")

    print("== BERT, one weight of the other export perturbed")
    target = next(n for n in b.graph.node if n.op_type == "MatMul" and any("layer.1.intermediate" in i for i in n.input)
                  ) if any("layer.1.intermediate" in i for n in b.graph.node for i in n.input) else None
    weight = None
    if target is None:
        # dynamo exports name weights after parameters; find the intermediate dense weight by shape [32, 64]
        mm = [n for n in b.graph.node if n.op_type == "MatMul"]
        inits = {t.name: t for t in b.graph.initializer}
        cands = [n for n in mm if any(i in inits and list(inits[i].dims) == [32, 64] for i in n.input)]
        target = cands[-1]  # layer 1's
    inits = {t.name: t for t in b.graph.initializer}
    weight = next(i for i in target.input if i in inits)
    bp = onnx.ModelProto()
    bp.CopyFrom(b)
    for t in bp.graph.initializer:
        if t.name == weight:
            arr = numpy_helper.to_array(t).copy()
            arr[3, 5] += 0.05
            t.CopyFrom(numpy_helper.from_array(arr, t.name))
    onnx.save(bp, work / "bert_dyn20_perturbed.onnx")
    vbp = ort_values(bp, feeds)
    # Brute force: A's float values that some value of the unperturbed export equals (within tolerance, exhaustive
    # search) have a counterpart; the first node of A one of whose such values no longer equals its counterpart in the
    # perturbed export is the first divergence.
    first = None
    for n in a.graph.node:
        for o in n.output:
            x = va.get(o)
            if first or x is None or x.dtype != np.float32 or n.op_type == "Constant":
                continue
            x64 = x.astype(np.float64)
            same = sorted(k for k, y in vb.items() if y.dtype == np.float32 and y.size == x.size and np.all(
                np.abs(x64 - y.astype(np.float64).reshape(x.shape)) <= ATOL + RTOL * np.abs(y.reshape(x.shape))))
            if same and not any(np.all(np.abs(x64 - vbp[k].astype(np.float64).reshape(x.shape))
                                       <= ATOL + RTOL * np.abs(vbp[k].reshape(x.shape))) for k in same):
                first = (n.name, set(same))
    check(first is not None, "bert perturbed: brute force finds no divergence")
    report, p = run_cli_inputs(cli, models / "bert_ts16.onnx", work / "bert_dyn20_perturbed.onnx",
                               work / "bert_perturbed.json", inputs)
    f = report["first_divergence"]
    check(p.returncode == 1 and f is not None, f"bert perturbed: exit {p.returncode}, first divergence {f}")
    if f and first:
        check(f["node"] == first[0], f"bert perturbed: first divergence {f['node']}, brute force {first[0]}")
        check(f["counterpart"] in first[1], f"bert perturbed: counterpart {f['counterpart']}, brute force {first[1]}")
        check(f["node_b"] == target.name and f["op_type_b"] == "MatMul",
              f"bert perturbed: B node {f['node_b']}, the perturbed weight's MatMul is {target.name}")


def run_cli_inputs(cli, a, b, out, inputs):
    cmd = [cli, "compare", str(a), str(b), *inputs, "--json", str(out)]
    p = subprocess.run(cmd, capture_output=True, text=True)
    print("$", " ".join(cmd), "->", p.returncode)
    if p.returncode not in (0, 1):
        print(p.stdout, p.stderr)
        raise SystemExit(f"compare failed with exit status {p.returncode}")
    return json.loads(out.read_text()), p


def main():
    cli, work = sys.argv[1], Path(sys.argv[2])
    work.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(7)
    model_a, w = block_a(rng)
    model_b = block_b(w)
    onnx.save(model_a, work / "a.onnx")
    onnx.save(model_b, work / "b_fused.onnx")
    x = rng.standard_normal((1, 8, 16)).astype(np.float32)
    np.save(work / "x.npy", x)
    case_fused(cli, work, model_a, model_b, x)

    fp16 = to_fp16(model_a)
    case_diverging(cli, work, "fp16", model_a, fp16, work / "b_fp16.onnx", x, known="ln_mean")

    perturbed = onnx.ModelProto()
    perturbed.CopyFrom(model_a)
    for t in perturbed.graph.initializer:
        if t.name == "W2":
            arr = numpy_helper.to_array(t).copy()
            arr[5, 7] += 0.05
            t.CopyFrom(numpy_helper.from_array(arr, "W2"))
    case_diverging(cli, work, "perturbed", model_a, perturbed, work / "b_perturbed.onnx", x, known="fc2_matmul")

    case_loop(cli, work, rng, x)
    case_bert(cli, work, Path(__file__).parent / "models")
    if FAILURES:
        print(f"{len(FAILURES)} failure(s)")
        sys.exit(1)
    print("all alignment checks pass")


if __name__ == "__main__":
    main()
