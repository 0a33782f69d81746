#!/usr/bin/python3
"""Writes transformer-like ONNX graphs with exporter-style name scopes for the graph-open benchmark.

Usage: graph_make_large.py NODES OUT.onnx   (run with Debian's python3: python3-onnx, python3-numpy)

Each layer has about 50 nodes named like /model/layers.3/self_attn/q_proj/MatMul, as torch.onnx writes them, with
tiny shared weights so that the file stays small: the benchmark measures the graph, not the weights.
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

H = 8


def layer(i, x, nodes):
    p = f"/model/layers.{i}"
    n = 0

    def node(op, inputs, scope, name=None, **attrs):
        nonlocal n
        n += 1
        out = f"{p}/{scope}/{name or op}_{n}_out"
        nodes.append(helper.make_node(op, inputs, [out], name=f"{p}/{scope}/{name or op}", **attrs))
        return out

    ln = node("ReduceMean", [x], "input_layernorm", axes=[-1])
    d = node("Sub", [x, ln], "input_layernorm")
    sq = node("Mul", [d, d], "input_layernorm")
    var = node("ReduceMean", [sq], "input_layernorm", axes=[-1])
    eps = node("Add", [var, "eps"], "input_layernorm")
    sd = node("Sqrt", [eps], "input_layernorm")
    xn = node("Div", [d, sd], "input_layernorm")
    xn = node("Mul", [xn, "gamma"], "input_layernorm")
    heads = []
    for proj in ("q_proj", "k_proj", "v_proj"):
        m = node("MatMul", [xn, "W"], f"self_attn/{proj}")
        a = node("Add", [m, "b"], f"self_attn/{proj}")
        r = node("Reshape", [a, "heads_shape"], "self_attn", name=f"Reshape_{proj}")
        t = node("Transpose", [r], "self_attn", name=f"Transpose_{proj}", perm=[0, 2, 1, 3])
        heads.append(t)
    q, k, v = heads
    kt = node("Transpose", [k], "self_attn", name="Transpose_kt", perm=[0, 1, 3, 2])
    s = node("MatMul", [q, kt], "self_attn", name="MatMul_scores")
    s = node("Div", [s, "scale"], "self_attn")
    s = node("Add", [s, "mask"], "self_attn", name="Add_mask")
    s = node("Softmax", [s], "self_attn", axis=-1)
    o = node("MatMul", [s, v], "self_attn", name="MatMul_context")
    o = node("Transpose", [o], "self_attn", name="Transpose_out", perm=[0, 2, 1, 3])
    o = node("Reshape", [o, "hidden_shape"], "self_attn", name="Reshape_out")
    o = node("MatMul", [o, "W"], "self_attn/o_proj")
    o = node("Add", [o, "b"], "self_attn/o_proj")
    h = node("Add", [x, o], "", name="residual_attn")
    ln = node("ReduceMean", [h], "post_attention_layernorm", axes=[-1])
    d = node("Sub", [h, ln], "post_attention_layernorm")
    sq = node("Mul", [d, d], "post_attention_layernorm")
    var = node("ReduceMean", [sq], "post_attention_layernorm", axes=[-1])
    eps = node("Add", [var, "eps"], "post_attention_layernorm")
    sd = node("Sqrt", [eps], "post_attention_layernorm")
    hn = node("Div", [d, sd], "post_attention_layernorm")
    hn = node("Mul", [hn, "gamma"], "post_attention_layernorm")
    g = node("MatMul", [hn, "W"], "mlp/gate_proj")
    g = node("Sigmoid", [g], "mlp/act_fn")
    g2 = node("MatMul", [hn, "W"], "mlp/gate_proj", name="MatMul_2")
    g = node("Mul", [g2, g], "mlp/act_fn")
    u = node("MatMul", [hn, "W"], "mlp/up_proj")
    m = node("Mul", [g, u], "mlp")
    m = node("MatMul", [m, "W"], "mlp/down_proj")
    m = node("Add", [m, "b"], "mlp/down_proj")
    return node("Add", [h, m], "", name="residual_mlp"), n


def main():
    target, out = int(sys.argv[1]), sys.argv[2]
    nodes = []
    x = "hidden_states"
    i = 0
    while len(nodes) < target:
        x, _ = layer(i, x, nodes)
        i += 1
    nodes.append(helper.make_node("Identity", [x], ["last_hidden_state"], name="/model/norm/Identity"))
    inits = [
        numpy_helper.from_array(np.eye(H, dtype=np.float32), "W"),
        numpy_helper.from_array(np.zeros(H, dtype=np.float32), "b"),
        numpy_helper.from_array(np.ones(H, dtype=np.float32), "gamma"),
        numpy_helper.from_array(np.array(1e-5, dtype=np.float32), "eps"),
        numpy_helper.from_array(np.array(2.0, dtype=np.float32), "scale"),
        numpy_helper.from_array(np.zeros((1, 1, 4, 4), dtype=np.float32), "mask"),
        numpy_helper.from_array(np.array([1, 4, 2, 4], dtype=np.int64), "heads_shape"),
        numpy_helper.from_array(np.array([1, 4, H], dtype=np.int64), "hidden_shape"),
    ]
    graph = helper.make_graph(
        nodes, f"transformer_{i}_layers",
        [helper.make_tensor_value_info("hidden_states", TensorProto.FLOAT, [1, 4, H])],
        [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, [1, 4, H])], inits)
    model = helper.make_model(graph, producer_name="onnxscope graph bench", opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, out)
    print(f"{out}: {len(nodes)} nodes, {i} layers")


if __name__ == "__main__":
    main()
