#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Generates focused ai.onnx.ml test cases in ONNX backend test layout (model.onnx + test_data_set_0/*.pb).

Expected outputs come from onnxruntime (onnxruntime-node, run through ort_run.js) where onnxruntime's behaviour is the
reference, and from a numpy formula where onnxscope documents a deliberate difference from onnxruntime (PROBIT
precision, binary score layouts, Normalizer MAX on negative rows, single-target post transforms) or where onnxruntime
cannot run the case (ZipMap sequences, float64 SVMRegressor/Imputer).

usage: generate_ml_cases.py <output dir> <onnxruntime-node dir>
Exit code 77 (CTest skip) when node or onnxruntime-node is missing.
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

ML = "ai.onnx.ml"
NP_TO_ONNX = {np.dtype("float32"): TensorProto.FLOAT, np.dtype("float64"): TensorProto.DOUBLE,
              np.dtype("int64"): TensorProto.INT64, np.dtype("int32"): TensorProto.INT32,
              np.dtype("object"): TensorProto.STRING}
NP_TO_ORT = {np.dtype("float32"): "float32", np.dtype("float64"): "float64", np.dtype("int64"): "int64",
             np.dtype("int32"): "int32", np.dtype("object"): "string"}
ORT_TO_NP = {"float32": np.float32, "float64": np.float64, "int64": np.int64, "int32": np.int32, "string": object}


class Cases:
    def __init__(self, out):
        self.out = out
        self.jobs = []  # (case dir, model path, inputs, output names)

    def add(self, name, nodes, inputs, outputs, ml_opset=1, expected=None, ai_opset=15):
        """inputs: [(name, array)]; outputs: [(name, elem_type, dims)]; expected: [array] or None for ORT."""
        d = os.path.join(self.out, "test_ml_" + name)
        os.makedirs(os.path.join(d, "test_data_set_0"), exist_ok=True)
        graph = helper.make_graph(
            nodes if isinstance(nodes, list) else [nodes], name,
            [helper.make_tensor_value_info(n, NP_TO_ONNX[a.dtype], list(a.shape)) for n, a in inputs],
            [helper.make_tensor_value_info(n, t, dims) for n, t, dims in outputs])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", ai_opset), helper.make_opsetid(ML, ml_opset)])
        model.ir_version = 8
        onnx.save(model, os.path.join(d, "model.onnx"))
        for i, (n, a) in enumerate(inputs):
            write_pb(os.path.join(d, "test_data_set_0", f"input_{i}.pb"), a, n)
        if expected is not None:
            for i, ((n, _, _), a) in enumerate(zip(outputs, expected)):
                write_pb(os.path.join(d, "test_data_set_0", f"output_{i}.pb"), a, n)
        else:
            self.jobs.append((d, os.path.join(d, "model.onnx"), inputs, [o[0] for o in outputs]))

    def run_ort(self, ort_dir):
        if not self.jobs:
            return
        spec = []
        for _, model, inputs, _ in self.jobs:
            spec.append({"model": model, "inputs": {
                n: {"type": NP_TO_ORT[a.dtype], "dims": list(a.shape),
                    "data": [None if (isinstance(v, float) and np.isnan(v)) else v for v in a.ravel().tolist()]}
                for n, a in inputs}})
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump(spec, f)
        try:
            run = subprocess.run(["node", os.path.join(os.path.dirname(__file__), "ort_run.js"), ort_dir, f.name],
                                 capture_output=True, text=True, check=True)
        finally:
            os.unlink(f.name)
        results = json.loads(run.stdout)
        for (d, _, _, names), res in zip(self.jobs, results):
            if not res["ok"]:
                raise RuntimeError(f"onnxruntime failed on {d}: {res['error']}")
            for i, n in enumerate(names):
                o = res["outputs"][n]
                data = [np.nan if v is None else v for v in o["data"]]
                if o["type"] == "int64":
                    data = [int(v) for v in data]
                a = np.array(data, dtype=ORT_TO_NP[o["type"]]).reshape(o["dims"])
                write_pb(os.path.join(d, "test_data_set_0", f"output_{i}.pb"), a, n)


def write_pb(path, a, name):
    if a.dtype == object:
        t = helper.make_tensor(name, TensorProto.STRING, a.shape, [s.encode() for s in a.ravel()])
    else:
        t = numpy_helper.from_array(a, name)
    with open(path, "wb") as f:
        f.write(t.SerializeToString())


def strings(*v):
    return np.array(v, dtype=object)


# ---------------------------------------------------------------- trees

MODES = ["BRANCH_LEQ", "BRANCH_LT", "BRANCH_GTE", "BRANCH_GT", "BRANCH_EQ", "BRANCH_NEQ"]


def random_trees(rng, n_trees, depth, n_features, n_targets, prefix, modes=("BRANCH_LEQ",), missing=0.0,
                 one_target=None, positive=False):
    """Full binary trees with random thresholds drawn from a small grid (so EQ/NEQ can hit)."""
    a = {k: [] for k in ["nodes_treeids", "nodes_nodeids", "nodes_featureids", "nodes_modes", "nodes_values",
                         "nodes_truenodeids", "nodes_falsenodeids", "nodes_missing_value_tracks_true",
                         "nodes_hitrates", prefix + "_treeids", prefix + "_nodeids", prefix + "_ids",
                         prefix + "_weights"]}
    for t in range(n_trees):
        n_nodes = 2 ** (depth + 1) - 1
        for i in range(n_nodes):
            leaf = i >= 2 ** depth - 1
            a["nodes_treeids"].append(t)
            a["nodes_nodeids"].append(i)
            a["nodes_featureids"].append(0 if leaf else int(rng.integers(n_features)))
            a["nodes_modes"].append("LEAF" if leaf else str(rng.choice(modes)))
            a["nodes_values"].append(0.0 if leaf else float(rng.integers(-4, 5)) / 2)
            a["nodes_truenodeids"].append(0 if leaf else 2 * i + 1)
            a["nodes_falsenodeids"].append(0 if leaf else 2 * i + 2)
            a["nodes_missing_value_tracks_true"].append(int(not leaf and rng.random() < missing))
            a["nodes_hitrates"].append(1.0)
            if leaf:
                targets = [one_target] if one_target is not None else range(n_targets)
                for k in targets:
                    a[prefix + "_treeids"].append(t)
                    a[prefix + "_nodeids"].append(i)
                    a[prefix + "_ids"].append(k)
                    w = float(rng.uniform(0, 1) if positive else rng.uniform(-1, 1))
                    a[prefix + "_weights"].append(round(w, 3))
    return a


def tree_inputs(rng, n, f, dtype=np.float32, nan=0.0):
    x = (rng.integers(-5, 6, size=(n, f)) / 2).astype(dtype)
    x += (rng.random((n, f)) < 0.5) * rng.uniform(-0.2, 0.2, size=(n, f)).astype(dtype)
    if nan:
        x[rng.random((n, f)) < nan] = np.nan
    return x.astype(dtype)


def as_tensor_attrs(attrs, names, dtype=np.float64):
    out = dict(attrs)
    for n in names:
        out[n + "_as_tensor"] = numpy_helper.from_array(np.array(out.pop(n), dtype=dtype), n + "_as_tensor")
    return out


def tree_cases(c, rng):
    x = tree_inputs(rng, 40, 4, nan=0.1)
    for agg in ["SUM", "AVERAGE", "MIN", "MAX"]:
        for modes, missing, tag in [(("BRANCH_LEQ",), 0.0, "leq"), (tuple(MODES), 0.5, "allmodes_nan")]:
            attrs = random_trees(rng, 5, 3, 4, 2, "target", modes, missing)
            c.add(f"tree_regressor_{agg.lower()}_{tag}",
                  helper.make_node("TreeEnsembleRegressor", ["X"], ["Y"], domain=ML, n_targets=2,
                                   aggregate_function=agg, base_values=[0.5, -0.25], **attrs),
                  [("X", x)], [("Y", TensorProto.FLOAT, [40, 2])])
    for post in ["NONE", "SOFTMAX", "LOGISTIC", "SOFTMAX_ZERO"]:
        attrs = random_trees(rng, 4, 3, 4, 3, "target", tuple(MODES), 0.3)
        c.add(f"tree_regressor_3targets_{post.lower()}",
              helper.make_node("TreeEnsembleRegressor", ["X"], ["Y"], domain=ML, n_targets=3, post_transform=post,
                               **attrs), [("X", x)], [("Y", TensorProto.FLOAT, [40, 3])])
    attrs = random_trees(rng, 6, 4, 4, 1, "target", ("BRANCH_LEQ", "BRANCH_LT"), 0.3)
    xd = tree_inputs(rng, 30, 4, np.float64, nan=0.1)
    c.add("tree_regressor_double_input",
          helper.make_node("TreeEnsembleRegressor", ["X"], ["Y"], domain=ML, n_targets=1, **attrs),
          [("X", xd)], [("Y", TensorProto.FLOAT, [30, 1])])
    c.add("tree_regressor_v3_as_tensor",
          helper.make_node("TreeEnsembleRegressor", ["X"], ["Y"], domain=ML, n_targets=1, base_values=[0.125],
                           **as_tensor_attrs(attrs, ["nodes_values", "target_weights"])),
          [("X", xd)], [("Y", TensorProto.FLOAT, [30, 1])], ml_opset=3)
    # Classifiers: multiclass with int and string labels, every post transform.
    for post in ["NONE", "SOFTMAX", "LOGISTIC", "SOFTMAX_ZERO"]:
        attrs = random_trees(rng, 4, 3, 4, 3, "class", tuple(MODES), 0.3)
        c.add(f"tree_classifier_int_{post.lower()}",
              helper.make_node("TreeEnsembleClassifier", ["X"], ["label", "Z"], domain=ML, post_transform=post,
                               classlabels_int64s=[7, 3, 11], base_values=[0.1, 0.0, -0.1], **attrs),
              [("X", x)], [("label", TensorProto.INT64, [40]), ("Z", TensorProto.FLOAT, [40, 3])])
    attrs = random_trees(rng, 3, 3, 4, 3, "class", ("BRANCH_LEQ",), 0.0)
    c.add("tree_classifier_strings",
          helper.make_node("TreeEnsembleClassifier", ["X"], ["label", "Z"], domain=ML,
                           classlabels_strings=["cat", "dog", "eel"], **attrs),
          [("X", x)], [("label", TensorProto.STRING, [40]), ("Z", TensorProto.FLOAT, [40, 3])])
    c.add("tree_classifier_v3_as_tensor",
          helper.make_node("TreeEnsembleClassifier", ["X"], ["label", "Z"], domain=ML,
                           classlabels_strings=["cat", "dog", "eel"],
                           **as_tensor_attrs(attrs, ["nodes_values", "class_weights"], np.float32)),
          [("X", x)], [("label", TensorProto.STRING, [40]), ("Z", TensorProto.FLOAT, [40, 3])], ml_opset=3)
    # Binary, one class id (skl2onnx's layout): positive weights with NONE, mixed weights with LOGISTIC.
    for post, positive in [("NONE", True), ("LOGISTIC", False), ("NONE", False)]:
        attrs = random_trees(rng, 3, 3, 4, 2, "class", ("BRANCH_LEQ",), 0.0, one_target=0, positive=positive)
        tag = ("positive" if positive else "mixed") + "_" + post.lower()
        c.add(f"tree_classifier_binary_{tag}",
              helper.make_node("TreeEnsembleClassifier", ["X"], ["label", "Z"], domain=ML, post_transform=post,
                               classlabels_int64s=[0, 1], **attrs),
              [("X", x)], [("label", TensorProto.INT64, [40]), ("Z", TensorProto.FLOAT, [40, 2])])


# ---------------------------------------------------------------- linear and SVM

def linear_cases(c, rng):
    x = rng.normal(size=(12, 4)).astype(np.float32)
    coef = rng.normal(size=(3, 4)).round(3)
    for post in ["NONE", "SOFTMAX", "LOGISTIC", "SOFTMAX_ZERO"]:
        c.add(f"linear_classifier_{post.lower()}",
              helper.make_node("LinearClassifier", ["X"], ["label", "Z"], domain=ML, post_transform=post,
                               coefficients=coef.ravel().tolist(), intercepts=[0.1, -0.2, 0.3],
                               classlabels_ints=[4, 5, 6]),
              [("X", x)], [("label", TensorProto.INT64, [12]), ("Z", TensorProto.FLOAT, [12, 3])])
    c.add("linear_classifier_strings",
          helper.make_node("LinearClassifier", ["X"], ["label", "Z"], domain=ML, coefficients=coef.ravel().tolist(),
                           intercepts=[0.1, -0.2, 0.3], classlabels_strings=["a", "b", "c"]),
          [("X", x.astype(np.float64))], [("label", TensorProto.STRING, [12]), ("Z", TensorProto.FLOAT, [12, 3])])
    # Binary with one row of coefficients: onnxscope writes [-s, s] / [1 - logistic(s), logistic(s)] (formula).
    w = coef[0]
    s = x.astype(np.float64) @ w + 0.25
    for post, z in [("NONE", np.stack([-s, s], 1)),
                    ("LOGISTIC", np.stack([1 - 1 / (1 + np.exp(-s)), 1 / (1 + np.exp(-s))], 1))]:
        c.add(f"linear_classifier_binary_one_row_{post.lower()}",
              helper.make_node("LinearClassifier", ["X"], ["label", "Z"], domain=ML, post_transform=post,
                               coefficients=w.tolist(), intercepts=[0.25], classlabels_ints=[10, 20]),
              [("X", x)], [("label", TensorProto.INT64, [12]), ("Z", TensorProto.FLOAT, [12, 2])],
              expected=[np.where(s > 0, 20, 10).astype(np.int64), z.astype(np.float32)])
    for post in ["NONE", "LOGISTIC", "SOFTMAX"]:
        c.add(f"linear_regressor_{post.lower()}",
              helper.make_node("LinearRegressor", ["X"], ["Y"], domain=ML, post_transform=post, targets=2,
                               coefficients=coef[:2].ravel().tolist(), intercepts=[0.5, -0.5]),
              [("X", x)], [("Y", TensorProto.FLOAT, [12, 2])])


def svm_cases(c, rng):
    x = rng.normal(size=(10, 3)).astype(np.float32)
    sv = rng.normal(size=(7, 3)).round(3)
    params = [0.3, 0.5, 2.0]
    for kernel in ["LINEAR", "POLY", "RBF", "SIGMOID"]:
        coef = rng.normal(size=(2, 7)).round(3)
        rho = [0.1, -0.2, 0.05]
        c.add(f"svm_classifier_{kernel.lower()}",
              helper.make_node("SVMClassifier", ["X"], ["label", "Z"], domain=ML, kernel_type=kernel,
                               kernel_params=params, support_vectors=sv.ravel().tolist(),
                               vectors_per_class=[2, 3, 2], coefficients=coef.ravel().tolist(), rho=rho,
                               classlabels_ints=[0, 1, 2]),
              [("X", x)], [("label", TensorProto.INT64, [10]), ("Z", TensorProto.FLOAT, [10, 3])])
        c.add(f"svm_classifier_{kernel.lower()}_proba",
              helper.make_node("SVMClassifier", ["X"], ["label", "Z"], domain=ML, kernel_type=kernel,
                               kernel_params=params, support_vectors=sv.ravel().tolist(),
                               vectors_per_class=[2, 3, 2], coefficients=coef.ravel().tolist(), rho=rho,
                               prob_a=[-1.5, -2.0, -1.0], prob_b=[0.1, -0.1, 0.2], classlabels_strings=["x", "y", "z"]),
              [("X", x)], [("label", TensorProto.STRING, [10]), ("Z", TensorProto.FLOAT, [10, 3])])
        c.add(f"svm_regressor_{kernel.lower()}",
              helper.make_node("SVMRegressor", ["X"], ["Y"], domain=ML, kernel_type=kernel, kernel_params=params,
                               support_vectors=sv.ravel().tolist(), n_supports=7,
                               coefficients=coef[0].tolist(), rho=[0.3]),
              [("X", x)], [("Y", TensorProto.FLOAT, [10, 1])])
    coef = rng.normal(size=(1, 5)).round(3)
    c.add("svm_classifier_binary_rbf",
          helper.make_node("SVMClassifier", ["X"], ["label", "Z"], domain=ML, kernel_type="RBF", kernel_params=params,
                           support_vectors=sv[:5].ravel().tolist(), vectors_per_class=[3, 2],
                           coefficients=coef.ravel().tolist(), rho=[0.2], classlabels_ints=[-1, 1]),
          [("X", x)], [("label", TensorProto.INT64, [10]), ("Z", TensorProto.FLOAT, [10, 2])])
    lin = rng.normal(size=(3, 3)).round(3)
    c.add("svm_classifier_liblinear",
          helper.make_node("SVMClassifier", ["X"], ["label", "Z"], domain=ML, coefficients=lin.ravel().tolist(),
                           kernel_params=params,
                           rho=[0.1], classlabels_ints=[0, 1, 2]),
          [("X", x)], [("label", TensorProto.INT64, [10]), ("Z", TensorProto.FLOAT, [10, 3])])
    c.add("svm_regressor_liblinear",
          helper.make_node("SVMRegressor", ["X"], ["Y"], domain=ML, coefficients=lin[0].tolist(), rho=[0.1],
                           kernel_params=params),
          [("X", x)], [("Y", TensorProto.FLOAT, [10, 1])])
    c.add("svm_regressor_one_class",
          helper.make_node("SVMRegressor", ["X"], ["Y"], domain=ML, kernel_type="RBF", kernel_params=params,
                           support_vectors=sv.ravel().tolist(), n_supports=7, one_class=1,
                           coefficients=rng.normal(size=7).round(3).tolist(), rho=[0.3]),
          [("X", x)], [("Y", TensorProto.FLOAT, [10, 1])])


# ---------------------------------------------------------------- transformers

def transformer_cases(c, rng):
    x = rng.normal(size=(6, 4)).astype(np.float32)
    c.add("binarizer", helper.make_node("Binarizer", ["X"], ["Y"], domain=ML, threshold=0.2),
          [("X", x)], [("Y", TensorProto.FLOAT, [6, 4])])
    c.add("scaler", helper.make_node("Scaler", ["X"], ["Y"], domain=ML, offset=[0.1, 0.2, -0.3, 0.0],
                                     scale=[2.0, 0.5, 1.5, -1.0]),
          [("X", x.astype(np.float64))], [("Y", TensorProto.FLOAT, [6, 4])])
    c.add("scaler_int_broadcast", helper.make_node("Scaler", ["X"], ["Y"], domain=ML, offset=[1.0], scale=[0.5]),
          [("X", rng.integers(-9, 9, size=(3, 5)).astype(np.int64))], [("Y", TensorProto.FLOAT, [3, 5])])
    for norm in ["L1", "L2"]:
        c.add(f"normalizer_{norm.lower()}", helper.make_node("Normalizer", ["X"], ["Y"], domain=ML, norm=norm),
              [("X", x)], [("Y", TensorProto.FLOAT, [6, 4])])
    c.add("normalizer_max_positive", helper.make_node("Normalizer", ["X"], ["Y"], domain=ML, norm="MAX"),
          [("X", np.abs(x))], [("Y", TensorProto.FLOAT, [6, 4])])
    c.add("normalizer_max_negative_rows", helper.make_node("Normalizer", ["X"], ["Y"], domain=ML, norm="MAX"),
          [("X", x)], [("Y", TensorProto.FLOAT, [6, 4])],
          expected=[(x / np.abs(x).max(axis=1, keepdims=True)).astype(np.float32)])
    xn = x.copy()
    xn[rng.random(x.shape) < 0.3] = np.nan
    c.add("imputer_nan", helper.make_node("Imputer", ["X"], ["Y"], domain=ML, imputed_value_floats=[1.0, 2.0, 3.0, 4.0],
                                          replaced_value_float=float("nan")),
          [("X", xn)], [("Y", TensorProto.FLOAT, [6, 4])])
    xi = rng.integers(0, 4, size=(3, 4)).astype(np.int64)
    c.add("imputer_int64", helper.make_node("Imputer", ["X"], ["Y"], domain=ML, imputed_value_int64s=[9],
                                            replaced_value_int64=2),
          [("X", xi)], [("Y", TensorProto.INT64, [3, 4])])
    xd = xn.astype(np.float64)
    c.add("imputer_double", helper.make_node("Imputer", ["X"], ["Y"], domain=ML, imputed_value_floats=[1.0, 2.0, 3.0, 4.0],
                                             replaced_value_float=float("nan")),
          [("X", xd)], [("Y", TensorProto.DOUBLE, [6, 4])],
          expected=[np.where(np.isnan(xd), np.array([1, 2, 3, 4], dtype=np.float64), xd)])
    c.add("one_hot_encoder_int", helper.make_node("OneHotEncoder", ["X"], ["Y"], domain=ML, cats_int64s=[1, 3, 0]),
          [("X", xi)], [("Y", TensorProto.FLOAT, [3, 4, 3])])
    c.add("one_hot_encoder_strings", helper.make_node("OneHotEncoder", ["X"], ["Y"], domain=ML,
                                                      cats_strings=["a", "b", "c"]),
          [("X", strings("a", "c", "z", "b").reshape(2, 2))], [("Y", TensorProto.FLOAT, [2, 2, 3])])
    c.add("label_encoder_v1_string_to_int", helper.make_node("LabelEncoder", ["X"], ["Y"], domain=ML,
                                                             classes_strings=["a", "b", "c"], default_int64=-7),
          [("X", strings("c", "a", "zz", "b"))], [("Y", TensorProto.INT64, [4])],
          expected=[np.array([2, 0, -7, 1], dtype=np.int64)])
    c.add("label_encoder_v2_string_to_int", helper.make_node("LabelEncoder", ["X"], ["Y"], domain=ML,
                                                             keys_strings=["a", "b", "c"], values_int64s=[5, 6, 7]),
          [("X", strings("c", "a", "zz", "b"))], [("Y", TensorProto.INT64, [4])], ml_opset=2)
    c.add("label_encoder_v2_int_to_string", helper.make_node("LabelEncoder", ["X"], ["Y"], domain=ML,
                                                             keys_int64s=[1, 2], values_strings=["one", "two"],
                                                             default_string="?"),
          [("X", np.array([[2, 1], [5, 2]], dtype=np.int64))], [("Y", TensorProto.STRING, [2, 2])], ml_opset=2)
    c.add("label_encoder_v2_float_to_float", helper.make_node("LabelEncoder", ["X"], ["Y"], domain=ML,
                                                              keys_floats=[0.5, 1.5], values_floats=[10.0, 20.0],
                                                              default_float=-1.0),
          [("X", np.array([1.5, 0.5, 2.0], dtype=np.float32))], [("Y", TensorProto.FLOAT, [3])], ml_opset=2)
    c.add("category_mapper", helper.make_node("CategoryMapper", ["X"], ["Y"], domain=ML, cats_strings=["a", "b"],
                                              cats_int64s=[3, 4], default_int64=0),
          [("X", strings("b", "a", "q"))], [("Y", TensorProto.INT64, [3])])
    c.add("array_feature_extractor", helper.make_node("ArrayFeatureExtractor", ["X", "I"], ["Y"], domain=ML),
          [("X", x), ("I", np.array([3, 0, 3], dtype=np.int64))], [("Y", TensorProto.FLOAT, [6, 3])])
    c.add("array_feature_extractor_strings", helper.make_node("ArrayFeatureExtractor", ["X", "I"], ["Y"], domain=ML),
          [("X", strings("a", "b", "c", "d").reshape(2, 2)), ("I", np.array([1], dtype=np.int64))],
          [("Y", TensorProto.STRING, [2, 1])])
    c.add("feature_vectorizer", helper.make_node("FeatureVectorizer", ["A", "B"], ["Y"], domain=ML,
                                                 inputdimensions=[2, 3]),
          [("A", x[:, :2].copy()), ("B", rng.integers(0, 9, size=(6, 3)).astype(np.float32))],
          [("Y", TensorProto.FLOAT, [6, 5])])


# ---------------------------------------------------------------- CastMap (map input, expected from the spec's formula)

def castmap_case(out, name, keys, values, expected, **attrs):
    """CastMap on map(int64, float | string) `dict(zip(keys, values))`. onnxruntime-node cannot feed a map, so the
    expected output comes from the definition: values in ascending key order (DENSE), or the value of key k in
    column k of max_map columns (SPARSE, missing keys 0)."""
    d = os.path.join(out, "test_ml_castmap_" + name)
    os.makedirs(os.path.join(d, "test_data_set_0"), exist_ok=True)
    value_type = TensorProto.STRING if isinstance(values[0], str) else TensorProto.FLOAT
    map_type = onnx.TypeProto()
    map_type.map_type.key_type = TensorProto.INT64
    map_type.map_type.value_type.tensor_type.elem_type = value_type
    out_type = {np.dtype("float32"): TensorProto.FLOAT, np.dtype("int64"): TensorProto.INT64,
                np.dtype("object"): TensorProto.STRING}[expected.dtype]
    graph = helper.make_graph([helper.make_node("CastMap", ["X"], ["Y"], domain=ML, **attrs)], name,
                              [helper.make_value_info("X", map_type)],
                              [helper.make_tensor_value_info("Y", out_type, list(expected.shape))])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 15), helper.make_opsetid(ML, 1)])
    model.ir_version = 8
    onnx.save(model, os.path.join(d, "model.onnx"))
    # MapProto.values: a sequence as long as the keys, one scalar tensor per value.
    if value_type == TensorProto.STRING:
        items = [helper.make_tensor("", TensorProto.STRING, [], [v.encode()]) for v in values]
    else:
        items = [numpy_helper.from_array(np.array(v, dtype=np.float32)) for v in values]
    seq = helper.make_sequence("values", onnx.SequenceProto.TENSOR, items)
    proto = helper.make_map("X", TensorProto.INT64, keys, seq)
    with open(os.path.join(d, "test_data_set_0", "input_0.pb"), "wb") as f:
        f.write(proto.SerializeToString())
    write_pb(os.path.join(d, "test_data_set_0", "output_0.pb"), expected, "Y")


def castmap_cases(out):
    keys = [5, 1, 3, 0]
    floats = [0.5, -2.25, 7.0, 1e-3]
    texts = ["1.5", "-3", "2e3", "0.125"]

    def dense(vals):
        return [v for _, v in sorted(zip(keys, vals))]

    def sparse(vals, n, pad):
        row = [pad] * n
        for k, v in zip(keys, vals):
            row[k] = v
        return row

    f32 = lambda v: np.array([v], dtype=np.float32)  # noqa: E731
    castmap_case(out, "float_dense", keys, floats, f32(dense(floats)))
    castmap_case(out, "float_sparse", keys, floats, f32(sparse(floats, 8, 0.0)), map_form="SPARSE", max_map=8)
    castmap_case(out, "string_to_float_dense", keys, texts, f32(dense([float(t) for t in texts])))
    castmap_case(out, "string_to_float_sparse", keys, texts, f32(sparse([float(t) for t in texts], 6, 0.0)),
                 map_form="SPARSE", max_map=6)
    # TO_INT64 truncates toward zero, as C's conversion (and onnxruntime's static_cast) does.
    castmap_case(out, "float_to_int64", keys, floats, np.array([dense([int(v) for v in floats])], dtype=np.int64),
                 cast_to="TO_INT64")
    castmap_case(out, "string_to_int64", keys, ["12", "-7", "40000000000", "0"],
                 np.array([dense([12, -7, 40000000000, 0])], dtype=np.int64), cast_to="TO_INT64")
    # TO_STRING: floats printed as C's "%f" (std::to_string), strings kept; SPARSE pads strings with "0.f" as
    # onnxruntime's CastMap does.
    castmap_case(out, "float_to_string", keys, floats, np.array([dense(["%f" % v for v in floats])], dtype=object),
                 cast_to="TO_STRING")
    castmap_case(out, "string_to_string_sparse", keys, texts, np.array([sparse(texts, 7, "0.f")], dtype=object),
                 cast_to="TO_STRING", map_form="SPARSE", max_map=7)


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    out, ort_dir = sys.argv[1], sys.argv[2]
    if shutil.which("node") is None or not os.path.isdir(ort_dir):
        print(f"skipped: node or onnxruntime-node ({ort_dir}) is missing")
        return 77
    if os.path.isdir(out):
        shutil.rmtree(out)
    rng = np.random.default_rng(20240601)
    c = Cases(out)
    tree_cases(c, rng)
    linear_cases(c, rng)
    svm_cases(c, rng)
    transformer_cases(c, rng)
    castmap_cases(out)
    c.run_ort(ort_dir)
    print(f"wrote {len(os.listdir(out))} cases to {out} ({len(c.jobs)} with onnxruntime's outputs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
