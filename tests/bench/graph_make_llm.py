#!/usr/bin/env python3
"""Writes an LLM-shaped ONNX decoder with its weights in external data, for the large-model graph tests and benchmark.

Usage: graph_make_llm.py OUT.onnx [--layers N] [--hidden H] [--intermediate I] [--heads Q] [--kv-heads K]
                         [--vocab V] [--weights sparse|random] [--seed S]

The graph is a Llama decoder written with plain ONNX operators (opset 17), named as the onnxruntime-genai model builder
and torch.onnx name them (`/model/layers.3/attn/q_proj/MatMul`, initializers `model.layers.3.attn.q_proj.MatMul.weight`):
RMS norms, q/k/v projections, rotary embedding, a KV cache (`past_key_values.N.key` in, `present.N.key` out), grouped
query attention by Tile, SiLU MLP, residuals, final norm and lm_head. The defaults (28 layers, hidden 1536,
intermediate 4096, 12 heads, 4 KV heads, vocabulary 32000) give about 2,400 nodes and 3.0 GiB of float32 weights.

The weights go to OUT.onnx.data, each at an offset aligned to 4096 bytes as onnx's own writer does.
- `--weights sparse` (the default) writes only the small tensors (norm weights, rotary caches) and leaves every large
  one as a hole of the file (truncate): the file has its full size, costs no disk and no time, and reads as zeros.
- `--weights random` writes every tensor (normal, std 0.02, seeded), for small models that are to be run.
Needs onnx and numpy (the test venv, or Debian's python3-onnx).
"""
import argparse
import os

import numpy as np
from onnx import TensorProto, helper, numpy_helper, save

ALIGN = 4096
SMALL = 1 << 20  # tensors below this size are written even when the weights are sparse


class Builder:
    def __init__(self, args):
        self.args = args
        self.nodes = []
        self.inits = []
        self.offset = 0
        self.pending = []  # (offset, array) to write
        self.rng = np.random.default_rng(args.seed)
        self.location = os.path.basename(args.out) + ".data"
        self.count = {}

    def node(self, op, inputs, name, outputs=1, domain="", **attrs):
        outs = [f"{name}/output_{i}" for i in range(outputs)]
        self.nodes.append(helper.make_node(op, inputs, outs, name=name, domain=domain or None, **attrs))
        return outs[0] if outputs == 1 else outs

    def const(self, name, array):
        """A small constant as a Constant node, as exporters write shapes and scalars."""
        out = f"/model/constants/{name}"
        if out not in self.count:
            self.count[out] = 1
            self.nodes.append(helper.make_node("Constant", [], [out], name=f"/model/constant_nodes/{name}",
                                               value=numpy_helper.from_array(np.asarray(array))))
        return out

    def weight(self, name, shape, fill=None):
        """An initializer in the external data file. `fill`: a numpy array with the values, else random or a hole."""
        size = int(np.prod(shape)) * 4
        self.offset = (self.offset + ALIGN - 1) // ALIGN * ALIGN
        t = TensorProto()
        t.name = name
        t.data_type = TensorProto.FLOAT
        t.dims.extend(shape)
        t.data_location = TensorProto.EXTERNAL
        for key, value in (("location", self.location), ("offset", str(self.offset)), ("length", str(size))):
            entry = t.external_data.add()
            entry.key, entry.value = key, value
        if fill is not None:
            self.pending.append((self.offset, np.asarray(fill, dtype=np.float32).reshape(shape)))
        elif self.args.weights == "random":
            self.pending.append((self.offset, (self.rng.standard_normal(shape) * 0.02).astype(np.float32)))
        self.inits.append(t)
        self.offset += size
        return name

    def write_data(self, folder):
        path = os.path.join(folder, self.location)
        with open(path, "wb") as f:
            f.truncate(self.offset)  # holes where nothing is written: a sparse file of the full size
            for offset, array in self.pending:
                f.seek(offset)
                f.write(array.tobytes())
        return path


def rms_norm(b, x, scope, weight):
    sq = b.node("Pow", [x, b.const("FLOAT/2", np.float32(2))], f"{scope}/Pow")
    mean = b.node("ReduceMean", [sq], f"{scope}/ReduceMean", axes=[-1], keepdims=1)
    eps = b.node("Add", [mean, b.const("FLOAT/eps", np.float32(1e-5))], f"{scope}/Add")
    root = b.node("Sqrt", [eps], f"{scope}/Sqrt")
    inv = b.node("Reciprocal", [root], f"{scope}/Reciprocal")
    y = b.node("Mul", [x, inv], f"{scope}/Mul")
    return b.node("Mul", [y, weight], f"{scope}/Mul_1")


def rotary(b, x, scope, cos, sin, half):
    x1 = b.node("Slice", [x, b.const("INT64/[0]", np.array([0])), b.const(f"INT64/[{half}]", np.array([half])),
                          b.const("INT64/[3]", np.array([3]))], f"{scope}/Slice")
    x2 = b.node("Slice", [x, b.const(f"INT64/[{half}]", np.array([half])),
                          b.const("INT64/[max]", np.array([np.iinfo(np.int64).max])),
                          b.const("INT64/[3]", np.array([3]))], f"{scope}/Slice_1")
    neg = b.node("Neg", [x2], f"{scope}/Neg")
    rot = b.node("Concat", [neg, x1], f"{scope}/Concat", axis=-1)
    a = b.node("Mul", [x, cos], f"{scope}/Mul")
    c = b.node("Mul", [rot, sin], f"{scope}/Mul_1")
    return b.node("Add", [a, c], f"{scope}/Add")


def heads_shape(b, x, scope, heads, head_dim):
    """[batch, seq, heads, head_dim] from x's shape, as torch.onnx writes dynamic reshapes."""
    shape = b.node("Shape", [x], f"{scope}/Shape")
    batch = b.node("Gather", [shape, b.const("INT64/0", np.array(0))], f"{scope}/Gather", axis=0)
    seq = b.node("Gather", [shape, b.const("INT64/1", np.array(1))], f"{scope}/Gather_1", axis=0)
    batch = b.node("Unsqueeze", [batch, b.const("INT64/[0]", np.array([0]))], f"{scope}/Unsqueeze")
    seq = b.node("Unsqueeze", [seq, b.const("INT64/[0]", np.array([0]))], f"{scope}/Unsqueeze_1")
    return b.node("Concat", [batch, seq, b.const(f"INT64/[{heads}]", np.array([heads])),
                             b.const(f"INT64/[{head_dim}]", np.array([head_dim]))], f"{scope}/Concat", axis=0)


def layer(b, i, x, cos, sin):
    a = b.args
    head_dim = a.hidden // a.heads
    p = f"/model/layers.{i}"
    w = f"model.layers.{i}"
    h = rms_norm(b, x, f"{p}/input_layernorm", b.weight(f"{w}.input_layernorm.weight", [a.hidden],
                                                              np.ones(a.hidden)))
    q = b.node("MatMul", [h, b.weight(f"{w}.attn.q_proj.MatMul.weight", [a.hidden, a.hidden])],
               f"{p}/attn/q_proj/MatMul")
    k = b.node("MatMul", [h, b.weight(f"{w}.attn.k_proj.MatMul.weight", [a.hidden, a.kv_heads * head_dim])],
               f"{p}/attn/k_proj/MatMul")
    v = b.node("MatMul", [h, b.weight(f"{w}.attn.v_proj.MatMul.weight", [a.hidden, a.kv_heads * head_dim])],
               f"{p}/attn/v_proj/MatMul")
    q_shape = heads_shape(b, h, f"{p}/attn/q_shape", a.heads, head_dim)
    kv_shape = heads_shape(b, h, f"{p}/attn/kv_shape", a.kv_heads, head_dim)
    q = b.node("Transpose", [b.node("Reshape", [q, q_shape], f"{p}/attn/Reshape")], f"{p}/attn/Transpose",
               perm=[0, 2, 1, 3])
    k = b.node("Transpose", [b.node("Reshape", [k, kv_shape], f"{p}/attn/Reshape_1")], f"{p}/attn/Transpose_1",
               perm=[0, 2, 1, 3])
    v = b.node("Transpose", [b.node("Reshape", [v, kv_shape], f"{p}/attn/Reshape_2")], f"{p}/attn/Transpose_2",
               perm=[0, 2, 1, 3])
    q = rotary(b, q, f"{p}/attn/q_rotary", cos, sin, head_dim // 2)
    k = rotary(b, k, f"{p}/attn/k_rotary", cos, sin, head_dim // 2)
    k = b.node("Concat", [f"past_key_values.{i}.key", k], f"{p}/attn/k_cache/Concat", axis=2)
    v = b.node("Concat", [f"past_key_values.{i}.value", v], f"{p}/attn/v_cache/Concat", axis=2)
    b.nodes.append(helper.make_node("Identity", [k], [f"present.{i}.key"], name=f"{p}/attn/k_cache/Identity"))
    b.nodes.append(helper.make_node("Identity", [v], [f"present.{i}.value"], name=f"{p}/attn/v_cache/Identity"))
    rep = a.heads // a.kv_heads
    grouped = b.const(f"INT64/[0,{a.heads},-1,{head_dim}]", np.array([0, a.heads, -1, head_dim]))
    tiles = b.const(f"INT64/[1,1,{rep},1,1]", np.array([1, 1, rep, 1, 1]))
    for name, t in (("k", k), ("v", v)):
        t = b.node("Unsqueeze", [t, b.const("INT64/[2]", np.array([2]))], f"{p}/attn/{name}_repeat/Unsqueeze")
        t = b.node("Tile", [t, tiles], f"{p}/attn/{name}_repeat/Tile")
        t = b.node("Reshape", [t, grouped], f"{p}/attn/{name}_repeat/Reshape")
        if name == "k":
            k = t
        else:
            v = t
    kt = b.node("Transpose", [k], f"{p}/attn/Transpose_3", perm=[0, 1, 3, 2])
    s = b.node("MatMul", [q, kt], f"{p}/attn/MatMul")
    s = b.node("Mul", [s, b.const("FLOAT/scale", np.float32(1 / np.sqrt(head_dim)))], f"{p}/attn/Mul")
    s = b.node("Add", [s, "attention_bias"], f"{p}/attn/Add")
    s = b.node("Softmax", [s], f"{p}/attn/Softmax", axis=-1)
    o = b.node("MatMul", [s, v], f"{p}/attn/MatMul_1")
    o = b.node("Transpose", [o], f"{p}/attn/Transpose_4", perm=[0, 2, 1, 3])
    o = b.node("Reshape", [o, b.const(f"INT64/[0,0,{a.hidden}]", np.array([0, 0, a.hidden]))], f"{p}/attn/Reshape_3")
    o = b.node("MatMul", [o, b.weight(f"{w}.attn.o_proj.MatMul.weight", [a.hidden, a.hidden])],
               f"{p}/attn/o_proj/MatMul")
    x = b.node("Add", [x, o], f"{p}/Add")
    h = rms_norm(b, x, f"{p}/post_attention_layernorm",
                 b.weight(f"{w}.post_attention_layernorm.weight", [a.hidden], np.ones(a.hidden)))
    g = b.node("MatMul", [h, b.weight(f"{w}.mlp.gate_proj.MatMul.weight", [a.hidden, a.intermediate])],
               f"{p}/mlp/gate_proj/MatMul")
    sg = b.node("Sigmoid", [g], f"{p}/mlp/act_fn/Sigmoid")
    g = b.node("Mul", [g, sg], f"{p}/mlp/act_fn/Mul")
    u = b.node("MatMul", [h, b.weight(f"{w}.mlp.up_proj.MatMul.weight", [a.hidden, a.intermediate])],
               f"{p}/mlp/up_proj/MatMul")
    m = b.node("Mul", [g, u], f"{p}/mlp/Mul")
    m = b.node("MatMul", [m, b.weight(f"{w}.mlp.down_proj.MatMul.weight", [a.intermediate, a.hidden])],
               f"{p}/mlp/down_proj/MatMul")
    return b.node("Add", [x, m], f"{p}/Add_1")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    ap.add_argument("--layers", type=int, default=28)
    ap.add_argument("--hidden", type=int, default=1536)
    ap.add_argument("--intermediate", type=int, default=4096)
    ap.add_argument("--heads", type=int, default=12)
    ap.add_argument("--kv-heads", type=int, default=4)
    ap.add_argument("--vocab", type=int, default=32000)
    ap.add_argument("--max-positions", type=int, default=2048)
    ap.add_argument("--weights", choices=("sparse", "random"), default="sparse")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    a = args
    head_dim = a.hidden // a.heads
    b = Builder(args)

    x = b.node("Gather", [b.weight("model.embed_tokens.weight", [a.vocab, a.hidden]), "input_ids"],
               "/model/embed_tokens/Gather")
    inv = 1.0 / (10000 ** (np.arange(0, head_dim, 2) / head_dim))
    freqs = np.outer(np.arange(a.max_positions), inv)
    emb = np.concatenate([freqs, freqs], axis=-1)
    rot = []
    for name, values in (("cos", np.cos(emb)), ("sin", np.sin(emb))):
        t = b.node("Gather", [b.weight(f"{name}_cache", [a.max_positions, head_dim], values), "position_ids"],
                   f"/model/rotary_emb/{name}/Gather")
        rot.append(b.node("Unsqueeze", [t, b.const("INT64/[1]", np.array([1]))], f"/model/rotary_emb/{name}/Unsqueeze"))
    for i in range(a.layers):
        x = layer(b, i, x, rot[0], rot[1])
    x = rms_norm(b, x, "/model/norm", b.weight("model.norm.weight", [a.hidden], np.ones(a.hidden)))
    b.nodes.append(helper.make_node("MatMul", [x, b.weight("lm_head.MatMul.weight", [a.hidden, a.vocab])], ["logits"],
                                    name="/lm_head/MatMul"))

    f = TensorProto.FLOAT
    kv = ["batch_size", a.kv_heads, "past_sequence_length", head_dim]
    inputs = [helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch_size", "sequence_length"]),
              helper.make_tensor_value_info("position_ids", TensorProto.INT64, ["batch_size", "sequence_length"]),
              helper.make_tensor_value_info("attention_bias", f,
                                            ["batch_size", 1, "sequence_length", "total_sequence_length"])]
    outputs = [helper.make_tensor_value_info("logits", f, ["batch_size", "sequence_length", a.vocab])]
    present = ["batch_size", a.kv_heads, "total_sequence_length", head_dim]
    for i in range(a.layers):
        for kind in ("key", "value"):
            inputs.append(helper.make_tensor_value_info(f"past_key_values.{i}.{kind}", f, kv))
            outputs.append(helper.make_tensor_value_info(f"present.{i}.{kind}", f, present))
    graph = helper.make_graph(b.nodes, "llm_decoder", inputs, outputs, b.inits)
    model = helper.make_model(graph, producer_name="onnxscope graph_make_llm",
                              opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    folder = os.path.dirname(os.path.abspath(a.out))
    os.makedirs(folder, exist_ok=True)
    save(model, a.out)
    data = b.write_data(folder)
    print(f"{a.out}: {len(b.nodes)} nodes, {a.layers} layers, {b.offset / 2**30:.2f} GiB of weights in {data}")


if __name__ == "__main__":
    main()
