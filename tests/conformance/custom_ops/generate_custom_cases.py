#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Generates test cases for onnxscope's custom operators (domain mlprodict, and the com.microsoft aliases) in ONNX
backend test layout, with expected outputs computed by numpy and scipy:
FFT / RFFT / FFT2D (lengths shorter and longer than the axis, complex inputs), ComplexAbs, CDist (every metric),
Solve, FusedMatMul, BroadcastGradientArgs, com.microsoft Tokenizer, and the *Double ML variants.

usage: generate_custom_cases.py <output dir>
"""
import os
import re
import shutil
import sys

import numpy as np
import onnx
import scipy.linalg
import scipy.spatial.distance
from onnx import TensorProto, helper, numpy_helper

ONNX_TYPES = {np.dtype("float32"): TensorProto.FLOAT, np.dtype("float64"): TensorProto.DOUBLE,
              np.dtype("int64"): TensorProto.INT64, np.dtype("complex64"): TensorProto.COMPLEX64,
              np.dtype("complex128"): TensorProto.COMPLEX128, np.dtype("object"): TensorProto.STRING}


def to_proto(a, name):
    if a.dtype == object:
        return helper.make_tensor(name, TensorProto.STRING, a.shape, [s.encode() for s in a.ravel()])
    if np.iscomplexobj(a):  # numpy_helper in onnx 1.12 cannot write complex tensors
        t = TensorProto()
        t.name = name
        t.data_type = ONNX_TYPES[a.dtype]
        t.dims.extend(a.shape)
        t.raw_data = np.ascontiguousarray(a).tobytes()
        return t
    return numpy_helper.from_array(a, name)


def case(out, name, node, inputs, outputs, domain="mlprodict"):
    """inputs: [(name, array)], outputs: [(name, array)] (expected values)."""
    d = os.path.join(out, "test_custom_" + name)
    os.makedirs(os.path.join(d, "test_data_set_0"))
    graph = helper.make_graph(
        [node], name,
        [helper.make_tensor_value_info(n, ONNX_TYPES[a.dtype], list(a.shape)) for n, a in inputs],
        [helper.make_tensor_value_info(n, ONNX_TYPES[a.dtype], list(a.shape)) for n, a in outputs])
    imports = [helper.make_opsetid("", 15), helper.make_opsetid(domain, 1)]
    if domain != "ai.onnx.ml":
        imports.append(helper.make_opsetid("ai.onnx.ml", 3))
    model = helper.make_model(graph, opset_imports=imports)
    model.ir_version = 8
    onnx.save(model, os.path.join(d, "model.onnx"))
    for kind, items in (("input", inputs), ("output", outputs)):
        for i, (n, a) in enumerate(items):
            with open(os.path.join(d, "test_data_set_0", f"{kind}_{i}.pb"), "wb") as f:
                f.write(to_proto(a, n).SerializeToString())


def fft_cases(out, rng):
    x = rng.normal(size=(3, 8)).astype(np.float32)
    xd = rng.normal(size=(2, 5, 6))
    xc = (rng.normal(size=(4, 6)) + 1j * rng.normal(size=(4, 6))).astype(np.complex64)
    xc128 = rng.normal(size=(3, 7)) + 1j * rng.normal(size=(3, 7))
    L = lambda *v: np.array(v, dtype=np.int64)
    node = lambda op, n_in, **kw: helper.make_node(op, ["X", "L"][:n_in], ["Y"], domain="mlprodict", **kw)
    case(out, "fft_float", node("FFT", 1), [("X", x)], [("Y", np.fft.fft(x).astype(np.complex64))])
    case(out, "fft_shorter", node("FFT", 2), [("X", x), ("L", L(5))], [("Y", np.fft.fft(x, 5).astype(np.complex64))])
    case(out, "fft_longer", node("FFT", 2), [("X", x), ("L", L(13))], [("Y", np.fft.fft(x, 13).astype(np.complex64))])
    case(out, "fft_double_axis1", node("FFT", 2, axis=1), [("X", xd), ("L", L(9))], [("Y", np.fft.fft(xd, 9, axis=1))])
    case(out, "fft_complex64_axis0", node("FFT", 1, axis=0), [("X", xc)],
         [("Y", np.fft.fft(xc, axis=0).astype(np.complex64))])
    case(out, "fft_complex128_prime", node("FFT", 2), [("X", xc128), ("L", L(11))], [("Y", np.fft.fft(xc128, 11))])
    case(out, "rfft_float", node("RFFT", 1), [("X", x)], [("Y", np.fft.rfft(x).astype(np.complex64))])
    case(out, "rfft_shorter_odd", node("RFFT", 2), [("X", x), ("L", L(5))],
         [("Y", np.fft.rfft(x, 5).astype(np.complex64))])
    case(out, "rfft_longer_double", node("RFFT", 2, axis=-2), [("X", xd), ("L", L(8))],
         [("Y", np.fft.rfft(xd, 8, axis=-2))])
    case(out, "fft2d_float", node("FFT2D", 1), [("X", x)], [("Y", np.fft.fft2(x).astype(np.complex64))])
    case(out, "fft2d_lengths", node("FFT2D", 2), [("X", x), ("L", L(2, 11))],
         [("Y", np.fft.fft2(x, s=(2, 11)).astype(np.complex64))])
    case(out, "fft2d_axes_double", node("FFT2D", 2, axes=[0, 2]), [("X", xd), ("L", L(3, 4))],
         [("Y", np.fft.fft2(xd, s=(3, 4), axes=(0, 2)))])
    case(out, "fft2d_complex", node("FFT2D", 1), [("X", xc)], [("Y", np.fft.fft2(xc).astype(np.complex64))])
    case(out, "complex_abs_64", helper.make_node("ComplexAbs", ["X"], ["Y"], domain="mlprodict"), [("X", xc)],
         [("Y", np.abs(xc).astype(np.float32))])
    case(out, "complex_abs_128", helper.make_node("ComplexAbs", ["X"], ["Y"], domain="mlprodict"), [("X", xc128)],
         [("Y", np.abs(xc128))])


def cdist_cases(out, rng):
    a = rng.normal(size=(5, 3)).astype(np.float32)
    b = rng.normal(size=(4, 3)).astype(np.float32)
    b[1] = 0  # a zero vector: cosine gives NaN there, as scipy
    for metric, kw in [("sqeuclidean", {}), ("euclidean", {}), ("minkowski", {"p": 3.0}), ("minkowski", {"p": 1.5}),
                       ("cityblock", {}), ("chebyshev", {}), ("cosine", {})]:
        for dtype, domain in [(np.float32, "mlprodict"), (np.float64, "com.microsoft")]:
            with np.errstate(invalid="ignore", divide="ignore"):
                expected = scipy.spatial.distance.cdist(a.astype(np.float64), b.astype(np.float64), metric, **kw)
            tag = f"{metric}{kw.get('p', '')}".replace(".", "_")
            case(out, f"cdist_{tag}_{np.dtype(dtype).name}_{domain.replace('.', '_')}",
                 helper.make_node("CDist", ["A", "B"], ["D"], domain=domain, metric=metric, **kw),
                 [("A", a.astype(dtype)), ("B", b.astype(dtype))], [("D", expected.astype(dtype))], domain=domain)


def solve_cases(out, rng):
    a = rng.normal(size=(4, 4)) + 4 * np.eye(4)
    b = rng.normal(size=(4, 2))
    node = lambda **kw: helper.make_node("Solve", ["A", "B"], ["X"], domain="mlprodict", **kw)
    case(out, "solve_matrix", node(), [("A", a), ("B", b)], [("X", scipy.linalg.solve(a, b))])
    case(out, "solve_vector_float", node(), [("A", a.astype(np.float32)), ("B", b[:, 0].astype(np.float32))],
         [("X", scipy.linalg.solve(a, b[:, 0]).astype(np.float32))])
    case(out, "solve_transposed", node(transposed=1), [("A", a), ("B", b)],
         [("X", scipy.linalg.solve(a, b, transposed=True))])
    sym = a @ a.T
    case(out, "solve_lower_symmetric", node(lower=1), [("A", sym), ("B", b)],
         [("X", scipy.linalg.solve(sym, b, lower=True))])


def fused_matmul_cases(out, rng):
    def fm(a, b, alpha=1.0, ta=0, tb=0, tba=0, tbb=0):
        def prep(x, tbatch, t):
            if tbatch and x.ndim >= 3:
                x = np.transpose(x, list(range(1, x.ndim - 1)) + [0, x.ndim - 1])
            if t and x.ndim >= 2:
                x = np.swapaxes(x, -1, -2)
            return x
        return (alpha * np.matmul(prep(a, tba, ta), prep(b, tbb, tb))).astype(a.dtype)

    r = lambda *s: rng.normal(size=s).astype(np.float32)
    for name, a, b, kw, domain in [
            ("plain", r(3, 4), r(4, 5), {}, "mlprodict"),
            ("alpha_transA", r(4, 3), r(4, 5), {"alpha": 0.5, "transA": 1}, "com.microsoft"),
            ("transB_batched", r(2, 3, 4), r(2, 5, 4), {"transB": 1}, "mlprodict"),
            ("broadcast_batch", r(2, 1, 3, 4), r(3, 4, 2), {"alpha": 2.0}, "mlprodict"),
            ("transBatchA", r(3, 2, 4), r(2, 4, 5), {"transBatchA": 1}, "com.microsoft"),
            ("transBatchB_transB", r(2, 3, 4), r(5, 2, 4), {"transBatchB": 1, "transB": 1}, "mlprodict"),
            ("transBatchA_transA_double", r(4, 2, 3).astype(np.float64), r(2, 4, 5).astype(np.float64),
             {"transBatchA": 1, "transA": 1}, "mlprodict"),
            ("vector_matrix", r(4), r(4, 3), {}, "mlprodict")]:
        args = {"alpha": kw.get("alpha", 1.0), "ta": kw.get("transA", 0), "tb": kw.get("transB", 0),
                "tba": kw.get("transBatchA", 0), "tbb": kw.get("transBatchB", 0)}
        case(out, f"fused_matmul_{name}", helper.make_node("FusedMatMul", ["A", "B"], ["Y"], domain=domain, **kw),
             [("A", a), ("B", b)], [("Y", fm(a, b, **args))], domain=domain)


def broadcast_gradient_args_expected(sa, sb):
    """The axes each operand was broadcast along, derived from numpy's broadcast rules."""
    n = max(len(sa), len(sb))
    out = np.broadcast_shapes(tuple(sa), tuple(sb))
    pa, pb = [None] * (n - len(sa)) + list(sa), [None] * (n - len(sb)) + list(sb)
    axes_a, axes_b = [], []
    for axis in reversed(range(n)):
        if pa[axis] is None:
            axes_a.append(axis)
        elif pb[axis] is None:
            axes_b.append(axis)
        elif pa[axis] != pb[axis]:
            (axes_a if pa[axis] == 1 else axes_b).append(axis)
        assert out[axis] == max(x for x in (pa[axis], pb[axis]) if x is not None)
    return np.array(axes_a, dtype=np.int64), np.array(axes_b, dtype=np.int64)


def bga_cases(out):
    for i, (sa, sb) in enumerate([([2, 3, 4], [2, 3, 4]), ([2, 1, 4], [2, 3, 1]), ([4], [2, 3, 4]),
                                  ([5, 1, 3, 1], [3, 7]), ([1, 1], [6, 1, 1])]):
        ea, eb = broadcast_gradient_args_expected(sa, sb)
        for domain in ("mlprodict", "com.microsoft"):
            case(out, f"broadcast_gradient_args_{i}_{domain.replace('.', '_')}",
                 helper.make_node("BroadcastGradientArgs", ["a", "b"], ["ra", "rb"], domain=domain),
                 [("a", np.array(sa, dtype=np.int64)), ("b", np.array(sb, dtype=np.int64))],
                 [("ra", ea), ("rb", eb)], domain=domain)


def tokenizer_cases(out):
    docs = np.array(["the quick brown_fox", "jumps over 42 lazy dogs!", "", "a"], dtype=object).reshape(4, 1)

    def tokenize(pattern, min_chars, pad, mark=False):
        rows = [[t for t in re.findall(pattern, s) if len(t) >= min_chars] for s in docs.ravel()]
        width = max(len(r) for r in rows)
        if width == 0:
            return np.zeros(docs.shape + (0,), dtype=object)
        width += 2 if mark else 0
        res = []
        for r in rows:
            body = r + [pad] * (width - len(r) - (2 if mark else 0))
            res.append((["\x02"] + body + ["\x03"]) if mark else body)
        return np.array(res, dtype=object).reshape(docs.shape + (width,))

    case(out, "tokenizer_tokenexp", helper.make_node("Tokenizer", ["X"], ["Y"], domain="com.microsoft", mark=0,
                                                     mincharnum=1, pad_value="#", tokenexp="[a-zA-Z0-9_]+"),
         [("X", docs)], [("Y", tokenize(r"[a-zA-Z0-9_]+", 1, "#"))], domain="com.microsoft")
    case(out, "tokenizer_mincharnum_mark", helper.make_node("Tokenizer", ["X"], ["Y"], domain="com.microsoft", mark=1,
                                                            mincharnum=3, pad_value="<pad>", tokenexp="[a-z]+"),
         [("X", docs)], [("Y", tokenize(r"[a-z]+", 3, "<pad>", mark=True))], domain="com.microsoft")
    case(out, "tokenizer_separators", helper.make_node("Tokenizer", ["X"], ["Y"], domain="com.microsoft", mark=0,
                                                       mincharnum=1, pad_value="#", separators=[" ", "_"]),
         [("X", docs)], [("Y", tokenize(r"[^ _]+", 1, "#"))], domain="com.microsoft")


def double_ml_cases(out, rng):
    # One tree: x0 <= 0.5 ? (x1 <= -1 ? leaf 3 : leaf 4) : leaf 2.
    tree = dict(nodes_treeids=[0] * 5, nodes_nodeids=[0, 1, 2, 3, 4], nodes_featureids=[0, 1, 0, 0, 0],
                nodes_modes=["BRANCH_LEQ", "BRANCH_LEQ", "LEAF", "LEAF", "LEAF"],
                nodes_values=[0.5, -1.0, 0, 0, 0], nodes_truenodeids=[1, 3, 0, 0, 0],
                nodes_falsenodeids=[2, 4, 0, 0, 0])
    x = rng.normal(size=(8, 2))
    leaf = np.where(x[:, 0] <= 0.5, np.where(x[:, 1] <= -1.0, 3, 4), 2)
    values = {2: 0.25, 3: -1.5, 4: 2.125}
    reg = np.array([[values[l] + 0.5] for l in leaf])
    case(out, "tree_ensemble_regressor_double",
         helper.make_node("TreeEnsembleRegressorDouble", ["X"], ["Y"], domain="mlprodict", n_targets=1,
                          target_treeids=[0, 0, 0], target_nodeids=[2, 3, 4], target_ids=[0, 0, 0],
                          target_weights=[0.25, -1.5, 2.125], base_values=[0.5], **tree),
         [("X", x)], [("Y", reg)])
    weights = {2: [0.7, 0.3], 3: [0.1, 0.9], 4: [0.5, 0.5]}
    z = np.array([weights[l] for l in leaf])
    case(out, "tree_ensemble_classifier_double",
         helper.make_node("TreeEnsembleClassifierDouble", ["X"], ["label", "Z"], domain="mlprodict",
                          class_treeids=[0] * 6, class_nodeids=[2, 2, 3, 3, 4, 4], class_ids=[0, 1] * 3,
                          class_weights=[0.7, 0.3, 0.1, 0.9, 0.5, 0.5], classlabels_int64s=[5, 6], **tree),
         [("X", x)], [("label", np.where(z[:, 1] > z[:, 0], 6, 5).astype(np.int64)), ("Z", z)])
    sv = rng.normal(size=(4, 2))
    coef = rng.normal(size=4)
    gamma = 0.7
    k = np.exp(-gamma * ((x[:, None, :] - sv[None, :, :]) ** 2).sum(-1))
    case(out, "svm_regressor_double_rbf",
         helper.make_node("SVMRegressorDouble", ["X"], ["Y"], domain="mlprodict", kernel_type="RBF",
                          kernel_params=[gamma, 0.0, 3.0], support_vectors=sv.ravel().tolist(), n_supports=4,
                          coefficients=coef.tolist(), rho=[0.25]),
         [("X", x)], [("Y", (k @ coef + 0.25).reshape(-1, 1))])
    lin = rng.normal(size=(3, 2))
    scores = x @ lin.T + 0.125
    case(out, "svm_classifier_double_liblinear",
         helper.make_node("SVMClassifierDouble", ["X"], ["label", "Z"], domain="mlprodict",
                          coefficients=lin.ravel().tolist(), rho=[0.125], classlabels_ints=[1, 2, 3],
                          kernel_params=[0.1, 0.0, 3.0]),
         [("X", x)], [("label", (scores.argmax(1) + 1).astype(np.int64)), ("Z", scores)])


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    out = sys.argv[1]
    if os.path.isdir(out):
        shutil.rmtree(out)
    os.makedirs(out)
    rng = np.random.default_rng(7)
    fft_cases(out, rng)
    cdist_cases(out, rng)
    solve_cases(out, rng)
    fused_matmul_cases(out, rng)
    bga_cases(out)
    tokenizer_cases(out)
    double_ml_cases(out, rng)
    print(f"wrote {len(os.listdir(out))} cases to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
