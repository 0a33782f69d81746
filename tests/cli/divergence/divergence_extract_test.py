# SPDX-License-Identifier: MIT
"""`onnxscope-cli compare A B --extract-divergence DIR` against independent truth.

Two small graphs built with onnx.helper: x -> Relu -> Add(bias) -> Mul(scale) -> Tanh -> MatMul. Side B is the same
chain with every value and node renamed and the Mul's scale 1.001 instead of 1.0, so the comparison pairs the values
by content and the Mul is the first divergence. The extracted a/ and b/ must each pass `onnxscope-cli test`, their
expected outputs must be what onnxruntime computes from their model.onnx and inputs, both must hold the same input
values (the Add's output as numpy computes it from x), and a/'s and b/'s outputs must be numpy's s * 1.0 and
s * 1.001 (B's bias is off by 2e-6, within the tolerance, so B's own input values would show). A second B reads its scale through a node of its own ([1, 8], a shape A never makes): that input has no
counterpart, keeps B's own value, and README.txt says so. Identical models write nothing and exit 0.

usage: divergence_extract_test.py ONNXSCOPE_CLI WORKDIR
"""
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import onnx.parser
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

FAILURES = []
H = 8


def check(cond, message):
    if not cond:
        FAILURES.append(message)
        print("FAIL:", message)


def chain(prefix, scale, scale_by_node=False, bias_shift=0.0):
    """The chain with names prefixed by `prefix`; scale_by_node: the Mul reads its scale through a node (Abs)."""
    rng = np.random.default_rng(3)
    w = {
        prefix + "bias": (rng.standard_normal(H) + bias_shift).astype(np.float32),
        prefix + "W": rng.standard_normal((H, 4)).astype(np.float32),
    }
    N = helper.make_node
    p = prefix
    nodes = [N("Relu", [p + "x"], [p + "r"], name=p + "relu"), N("Add", [p + "r", p + "bias"], [p + "s"], name=p + "add")]
    if scale_by_node:
        w[p + "scale_raw"] = np.full((1, H), scale, np.float32)
        nodes.append(N("Abs", [p + "scale_raw"], [p + "k"], name=p + "abs_scale"))
        nodes.append(N("Mul", [p + "s", p + "k"], [p + "m"], name=p + "scale_mul"))
    else:
        w[p + "scale"] = np.full(H, scale, np.float32)
        nodes.append(N("Mul", [p + "s", p + "scale"], [p + "m"], name=p + "scale_mul"))
    nodes += [N("Tanh", [p + "m"], [p + "t"], name=p + "tanh"), N("MatMul", [p + "t", p + "W"], [p + "y"], name=p + "head")]
    graph = helper.make_graph(
        nodes,
        "chain",
        [helper.make_tensor_value_info(p + "x", TensorProto.FLOAT, [4, H])],
        [helper.make_tensor_value_info(p + "y", TensorProto.FLOAT, [4, 4])],
        [numpy_helper.from_array(v, k) for k, v in w.items()],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model, w


def read_case(folder):
    model = onnx.load(str(folder / "model.onnx"))
    data = folder / "test_data_set_0"
    ins = [numpy_helper.to_array(onnx.load_tensor(str(data / f"input_{i}.pb"))) for i in range(len(model.graph.input))]
    outs = [numpy_helper.to_array(onnx.load_tensor(str(data / f"output_{i}.pb"))) for i in range(len(model.graph.output))]
    in_names = [onnx.load_tensor(str(data / f"input_{i}.pb")).name for i in range(len(model.graph.input))]
    return model, in_names, ins, outs


def check_case(cli, folder, label):
    """The case passes onnxscope-cli test, and onnxruntime gives its expected outputs from its inputs."""
    r = subprocess.run([cli, "test", str(folder)], capture_output=True, text=True)
    check(r.returncode == 0, f"{label}: onnxscope-cli test exit {r.returncode}: {r.stdout}{r.stderr}")
    model, in_names, ins, outs = read_case(folder)
    sess = ort.InferenceSession(str(folder / "model.onnx"), providers=["CPUExecutionProvider"])
    got = sess.run(None, {i.name: v for i, v in zip(model.graph.input, ins)})
    check(len(got) == len(outs), f"{label}: {len(got)} outputs from onnxruntime, {len(outs)} expected")
    for g, e in zip(got, outs):
        check(np.allclose(g, e, rtol=1e-6, atol=1e-6), f"{label}: onnxruntime's output differs by {np.abs(g - e).max()}")
    return model, in_names, ins, outs


def main():
    cli, work = sys.argv[1], Path(sys.argv[2])
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    a, wa = chain("", 1.0)
    # B's bias is off by 2e-6, within the tolerance: B's own Mul input differs from A's in its last bits, so b/ must
    # hold A's values, not B's.
    b, wb = chain("b_", 1.001, bias_shift=2e-6)
    b2, _ = chain("c_", 1.001, scale_by_node=True)
    for name, m in (("a", a), ("b", b), ("b2", b2)):
        onnx.save(m, str(work / f"{name}.onnx"))
    x = np.random.default_rng(7).standard_normal((4, H)).astype(np.float32)
    np.save(work / "x.npy", x)
    s = np.maximum(x, 0) + wa["bias"]
    s_b = np.maximum(x, 0) + wb["b_bias"]
    check(not np.array_equal(s, s_b), "precondition: B's own Add output differs from A's")

    # 1. Renamed B, paired by content: a/ and b/ are the two Muls fed the same s.
    out = work / "div"
    r = subprocess.run([cli, "compare", str(work / "a.onnx"), str(work / "b.onnx"), "-i", f"x={work / 'x.npy'}",
                        "--extract-divergence", str(out)], capture_output=True, text=True)
    print(r.stdout, r.stderr)
    check(r.returncode == 1, f"compare with a divergence: exit {r.returncode}, expected 1")
    check((out / "a").is_dir() and (out / "b").is_dir(), "a/ and b/ written")
    if (out / "a").is_dir() and (out / "b").is_dir():
        ma, na, ia, oa = check_case(cli, out / "a", "a/")
        mb, nb, ib, ob = check_case(cli, out / "b", "b/")
        check([n.name for n in ma.graph.node] == ["scale_mul"], f"a/ holds A's Mul: {[n.name for n in ma.graph.node]}")
        check([n.name for n in mb.graph.node] == ["b_scale_mul"], f"b/ holds B's Mul: {[n.name for n in mb.graph.node]}")
        check(na == ["s"] and nb == ["b_s"], f"input names {na}, {nb}")
        check(len(ia) == 1 and len(ib) == 1 and np.array_equal(ia[0], ib[0]), "a/ and b/ hold identical input values")
        check(np.allclose(ia[0], s, rtol=1e-6, atol=1e-6), "a/'s input is numpy's Relu(x) + bias")
        check(np.allclose(oa[0], s * np.float32(1.0), rtol=1e-6, atol=1e-6), "a/'s output is s * 1.0")
        check(np.allclose(ob[0], s * np.float32(1.001), rtol=1e-6, atol=1e-6), "b/'s output is s * 1.001")
        check(np.array_equal(ob[0], ia[0] * np.float32(1.001)), "b/'s output is A's input times 1.001, bit for bit")
        readme = (out / "README.txt").read_text()
        print(readme)
        err = float(np.abs(s * np.float32(1.0) - s * np.float32(1.001)).max())
        got = re.search(r"max abs error between the cases: (\S+)", readme)
        check(got is not None and abs(float(got.group(1)) - err) <= 1e-6 + 1e-4 * err,
              f"README's max abs error {got and got.group(1)} against numpy's {err}")
        check('A\'s value "s" (paired by content)' in readme, "README names the input taken from A")
        check(not (out / ".b-own").exists(), "no temporary folder left")

    # 2. B's Mul reads a value of its own ([1, 8]) that nothing of A pairs with: B's own value, said in README.txt.
    out2 = work / "div2"
    r = subprocess.run([cli, "compare", str(work / "a.onnx"), str(work / "b2.onnx"), "-i", f"x={work / 'x.npy'}",
                        "--extract-divergence", str(out2)], capture_output=True, text=True)
    print(r.stdout, r.stderr)
    check(r.returncode == 1, f"compare a b2: exit {r.returncode}")
    if (out2 / "b").is_dir():
        _, nb, ib, ob = check_case(cli, out2 / "b", "b2 b/")
        _, na, ia, _ = read_case(out2 / "a")
        check(sorted(nb) == ["c_k", "c_s"], f"b2 b/ inputs {nb}")
        vals = dict(zip(nb, ib))
        check(np.array_equal(vals.get("c_s"), ia[0]), "b2: the paired input takes A's value")
        check(np.array_equal(vals.get("c_k"), np.full((1, H), 1.001, np.float32)), "b2: c_k is B's own |scale|")
        readme = (out2 / "README.txt").read_text()
        check('input "c_k": B\'s own value' in readme, "README says c_k kept B's own value")
        check('keeps B\'s own value' in r.stdout, "the CLI says so too")
    else:
        check(False, "b2: nothing written")

    # 3. No divergence: a clear message, exit 0, nothing written.
    out3 = work / "none"
    r = subprocess.run([cli, "compare", str(work / "a.onnx"), str(work / "a.onnx"), "-i", f"x={work / 'x.npy'}",
                        "--extract-divergence", str(out3)], capture_output=True, text=True)
    check(r.returncode == 0, f"identical models: exit {r.returncode}")
    check("no divergence" in r.stdout and "nothing written" in r.stdout, f"identical models: message {r.stdout}")
    check(not out3.exists(), "identical models: nothing written")

    # 4. A first divergence inside a Loop body is refused with a message naming the node, and nothing is written.
    loop = """<ir_version: 8, opset_import: ["" : 17]>
agraph (float[2] x) => (float[2] out) {
    trip = Constant <value = int64 {3}> ()
    cond = Constant <value = bool {1}> ()
    out = Loop (trip, cond, x) <body = body (int64 i, bool c, float[2] acc) => (bool c_out, float[2] acc_out) {
        c_out = Identity(c)
        k = Constant <value = float[2] {K}> ()
        acc_out = Add(acc, k)
    }>
}"""

    for name, k in (("loop", "1.0, 2.0"), ("loop_k", "1.0, 2.5")):
        onnx.save(onnx.parser.parse_model(loop.replace("K", k)), str(work / f"{name}.onnx"))
    np.save(work / "lx.npy", np.array([1.5, -2.0], np.float32))
    out4 = work / "loop_div"
    r = subprocess.run([cli, "compare", str(work / "loop.onnx"), str(work / "loop_k.onnx"), "-i", f"x={work / 'lx.npy'}",
                        "--extract-divergence", str(out4)], capture_output=True, text=True)
    check(r.returncode == 1 and "inside a subgraph" in r.stderr, f"Loop body: exit {r.returncode}, {r.stderr}")
    check(not out4.exists(), "Loop body: nothing written")

    # 5. Bad requests (usage errors, exit 2): a folder in use, a reference instead of a model.
    r = subprocess.run([cli, "compare", str(work / "a.onnx"), str(work / "b.onnx"), "-i", f"x={work / 'x.npy'}",
                        "--extract-divergence", str(out)], capture_output=True, text=True)
    check(r.returncode == 2 and "not empty" in r.stderr, f"non-empty folder: exit {r.returncode}, {r.stderr}")
    r = subprocess.run([cli, "compare", str(work / "a.onnx"), "--reference", str(work / "x.npy"),
                        "--extract-divergence", str(work / "ref")], capture_output=True, text=True)
    check(r.returncode == 2 and "second model" in r.stderr, f"--reference: exit {r.returncode}, {r.stderr}")

    print(f"{len(FAILURES)} failure(s)")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
