#!/usr/bin/python3
"""Writes the reliability corpus: malformed and hostile ONNX models and input files, plus manifest.json.

Usage: make_corpus.py OUT_DIR

Every entry of manifest.json says what onnxscope must do with one file:
  name      unique id; the model is OUT_DIR/<file>
  bullet    the kind of bad input it covers
  file      the model, relative to OUT_DIR
  inputs    {input name: file relative to OUT_DIR} fed to `run` (and to the engine API test)
  run_args  extra arguments for `onnxscope-cli run` (e.g. --max-loop-iterations)
  limits    {"max_loop_iterations": N, "allocation_limit": BYTES} the engine API test applies the same way
  info      {"exit": code, "message": [texts]}: `onnxscope-cli info FILE`; each text is a substring of stderr (exit 1)
            or stdout (exit 0)
  run       {"exit": code, "message": [texts]}: `onnxscope-cli run FILE --random-inputs [inputs] [run_args]`
  api       {"stage": "load" | "plan" | "input" | "run" | "ok", "message": [texts]}: the engine API test expects
            Model::load, Program, reading the input files or Session::run to fail with an Error containing the texts
            ("ok": everything succeeds; with "string_output_hex", an element of the first output holds those bytes)

Messages are the part of the error that names the file, node, tensor or attribute at fault. The script needs Debian's
python3-onnx and python3-numpy; it writes raw protobuf bytes itself where onnx's helpers refuse to build the defect.
"""
import json
import os
import shutil
import struct
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.setrecursionlimit(100000)
OUT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "corpus")
OPSET = [helper.make_opsetid("", 17)]
ENTRIES = []


def path(rel):
    full = os.path.join(OUT, rel)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    return full


def write_bytes(rel, data):
    with open(path(rel), "wb") as f:
        f.write(data)
    return rel


def model_bytes(graph, opsets=None, functions=None, ir_version=8):
    m = helper.make_model(graph, opset_imports=OPSET if opsets is None else opsets, functions=functions or [],
                          producer_name="onnxscope-corpus")
    m.ir_version = ir_version
    return m.SerializeToString()


def add(name, bullet, file, info, run, api, inputs=None, run_args=None, limits=None):
    assert not any(e["name"] == name for e in ENTRIES), name
    e = {"name": name, "bullet": bullet, "file": file, "info": info, "run": run, "api": api}
    if inputs:
        e["inputs"] = inputs
    if run_args:
        e["run_args"] = run_args
    if limits:
        e["limits"] = limits
    ENTRIES.append(e)


def parts(message):
    """A message is one substring or a tuple of substrings that must all appear."""
    if not message:
        return []
    return list(message) if isinstance(message, tuple) else [message]


def fails(message, code=1):
    return {"exit": code, "message": parts(message)}


def ok(message=""):
    return {"exit": 0, "message": parts(message)}


def api(stage, message=""):
    return {"stage": stage, "message": parts(message)}


def api_string_output(data):
    """Everything succeeds and one element of the first output holds exactly these bytes (hex in the manifest)."""
    return {"stage": "ok", "message": [], "string_output_hex": data.hex()}


def model(name, bullet, graph, info, run, api_expect, opsets=None, functions=None, **kw):
    rel = write_bytes(f"models/{name}.onnx", model_bytes(graph, opsets, functions))
    add(name, bullet, rel, info, run, api_expect, **kw)


def const(name, array):
    return helper.make_node("Constant", [], [name], name=f"const_{name}",
                            value=numpy_helper.from_array(np.asarray(array), name=f"{name}_value"))


def out(name, elem=TensorProto.FLOAT, shape=None):
    return helper.make_tensor_value_info(name, elem, shape)


# ---- varint / raw protobuf writing, for defects onnx's helpers cannot express ----

def varint(n):
    n &= (1 << 64) - 1
    b = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            b.append(byte | 0x80)
        else:
            b.append(byte)
            return bytes(b)


def field(number, wire, payload):
    key = varint((number << 3) | wire)
    if wire == 0:
        return key + varint(payload)
    if wire == 2:
        return key + varint(len(payload)) + payload
    raise ValueError(wire)


# ---- a small valid model, the base of the byte-level defects ----

def relu_graph():
    w = numpy_helper.from_array(np.arange(6, dtype=np.float32).reshape(2, 3), name="w")
    return helper.make_graph([helper.make_node("Relu", ["w"], ["y"], name="relu")], "relu_graph", [], [out("y")],
                             initializer=[w])


VALID = model_bytes(relu_graph())
write_bytes("valid/relu.onnx", VALID)

# A model with one float input of symbolic length, for the hostile-input entries.
write_bytes("valid/identity.onnx", model_bytes(helper.make_graph(
    [helper.make_node("Identity", ["x"], ["y"], name="ident")], "identity",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N"])], [out("y")])))
np.save(path("valid/x.npy"), np.arange(5, dtype=np.float32))

# ======================= truncated or random bytes =======================
B = "truncated or random bytes"
write_bytes("models/empty.onnx", b"")
add("empty", B, "models/empty.onnx", fails("empty.onnx\" is empty"), fails("empty.onnx\" is empty"),
    api("load", "empty.onnx\" is empty"))
for cut in (len(VALID) // 2, len(VALID) - 3):
    name = f"truncated_{cut}"
    write_bytes(f"models/{name}.onnx", VALID[:cut])
    msg = f"{name}.onnx\" is not a valid ONNX model"
    add(name, B, f"models/{name}.onnx", fails(msg), fails(msg), api("load", msg))
rng = np.random.default_rng(11)
# Field number 0 is invalid in protobuf, so these bytes never parse whatever follows.
write_bytes("models/random_bytes.onnx", b"\x00" + rng.integers(0, 256, 4096, dtype=np.uint8).tobytes())
msg = "random_bytes.onnx\" is not a valid ONNX model"
add("random_bytes", B, "models/random_bytes.onnx", fails(msg), fails(msg), api("load", msg))
write_bytes("models/text_file.onnx", b"\x89PNG\r\n\x1a\n this is an image, not a model\n")
msg = "text_file.onnx\" is not a valid ONNX model"
add("text_file", B, "models/text_file.onnx", fails(msg), fails(msg), api("load", msg))
# Bytes that parse as a ModelProto with no graph.
write_bytes("models/no_graph.onnx", field(1, 0, 8) + field(2, 2, b"some producer"))
msg = "no_graph.onnx\" has no graph"
add("no_graph", B, "models/no_graph.onnx", fails(msg), fails(msg), api("load", msg))

# ======================= wrong field types =======================
B = "wrong field types"
# ModelProto.graph (field 7) written as a varint: protobuf keeps it as an unknown field, so there is no graph.
write_bytes("models/graph_as_varint.onnx", field(1, 0, 8) + field(7, 0, 12345) + field(8, 2, field(2, 0, 17)))
msg = "graph_as_varint.onnx\" has no graph"
add("graph_as_varint", B, "models/graph_as_varint.onnx", fails(msg), fails(msg), api("load", msg))
# A length-delimited field whose length runs past the end of the file.
write_bytes("models/length_past_end.onnx", field(1, 0, 8) + varint((7 << 3) | 2) + varint(1 << 30) + b"\x0a\x00")
msg = "length_past_end.onnx\" is not a valid ONNX model"
add("length_past_end", B, "models/length_past_end.onnx", fails(msg), fails(msg), api("load", msg))
# A float initializer whose values sit in int64_data.
w = helper.make_tensor("w", TensorProto.FLOAT, [2], [1, 2])
w.ClearField("float_data")
w.int64_data.extend([1, 2])
model("values_in_wrong_field", B, helper.make_graph([helper.make_node("Relu", ["w"], ["y"], name="relu")], "g", [],
                                                    [out("y")], initializer=[w]),
      ok(), fails("tensor \"w\": 0 values stored but its shape [2] needs 2"),
      api("plan", "tensor \"w\": 0 values stored"))
# An initializer of element type 99.
w = helper.make_tensor("w", TensorProto.FLOAT, [2], [1.0, 2.0])
w.data_type = 99
model("unknown_element_type", B, helper.make_graph([helper.make_node("Relu", ["w"], ["y"], name="relu")], "g", [],
                                                   [out("y")], initializer=[w]),
      ok(), fails("tensor \"w\" has unknown element type 99"), api("plan", "tensor \"w\" has unknown element type 99"))
# Cast to a type that does not exist.
model("cast_to_unknown_type", B, helper.make_graph(
    [const("a", np.ones(3, np.float32)), helper.make_node("Cast", ["a"], ["y"], name="cast", to=99)], "g", [],
    [out("y")]), ok(), fails(("node \"cast\" (Cast)", "attribute 'to'")),
    api("plan", ("node \"cast\" (Cast)", "attribute 'to'")))
# An input .npy that holds int64 where the model declares float.
np.save(path("inputs/int64_for_float.npy"), np.arange(3, dtype=np.int64))
add("input_wrong_dtype", B, "valid/identity.onnx", ok(), fails("input \"x\""), api("run", "input \"x\""),
    inputs={"x": "inputs/int64_for_float.npy"})

# ======================= negative or enormous dims =======================
B = "negative or enormous dims"
w = helper.make_tensor("w", TensorProto.FLOAT, [2], [1.0, 2.0])
w.dims[0] = -3
msg = "initializer \"w\" has a negative dimension"
model("negative_dim_initializer", B, helper.make_graph([helper.make_node("Relu", ["w"], ["y"], name="relu")], "g", [],
                                                       [out("y")], initializer=[w]),
      fails(msg), fails(msg), api("load", msg))
w = helper.make_tensor("w", TensorProto.FLOAT, [1], [1.0])
w.ClearField("dims")
w.dims.extend([1 << 40, 1 << 40])
msg = "tensor \"w\": element count of shape [1099511627776, 1099511627776]"
model("overflowing_dims_initializer", B, helper.make_graph(
    [helper.make_node("Relu", ["w"], ["y"], name="relu")], "g", [], [out("y")], initializer=[w]),
    ok(), fails(msg), api("plan", msg))
model("negative_dim_input", B, helper.make_graph(
    [helper.make_node("Relu", ["x"], ["y"], name="relu")], "g",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, -5])], [out("y")]),
    # Exporters write -1 for a dynamic dim: a negative declared dim is unknown, and random inputs make it 1.
    ok("x: float[2, ?]"), ok("random input \"x\": float[2, 1]"), api("run", "\"x\""))
model("reshape_negative_dims", B, helper.make_graph(
    [const("a", np.ones(6, np.float32)), const("s", np.array([-2, -3], np.int64)),
     helper.make_node("Reshape", ["a", "s"], ["y"], name="reshape")], "g", [], [out("y")]),
    ok(), fails("node \"reshape\" (Reshape)"), api("run", "node \"reshape\" (Reshape)"))
model("reshape_overflow", B, helper.make_graph(
    [const("a", np.ones(6, np.float32)), const("s", np.array([1 << 62, 1 << 62, 0], np.int64)),
     helper.make_node("Reshape", ["a", "s"], ["y"], name="reshape")], "g", [], [out("y")]),
    ok(), fails("node \"reshape\" (Reshape)"), api("run", "node \"reshape\" (Reshape)"))
model("expand_overflow", B, helper.make_graph(
    [const("a", np.ones(1, np.float32)), const("s", np.array([1 << 32, 1 << 32], np.int64)),
     helper.make_node("Expand", ["a", "s"], ["y"], name="expand")], "g", [], [out("y")]),
    ok(), fails("node \"expand\" (Expand)"), api("run", "node \"expand\" (Expand)"))

# ======================= raw_data shorter than the dims say =======================
B = "raw_data shorter than the dims say"
w = helper.make_tensor("w", TensorProto.FLOAT, [4], np.zeros(4, np.float32).tobytes(), raw=True)
w.raw_data = np.zeros(2, np.float32).tobytes()
msg = "tensor \"w\": raw_data has 8 bytes but float[4] needs 16"
model("raw_data_short", B, helper.make_graph([helper.make_node("Relu", ["w"], ["y"], name="relu")], "g", [],
                                             [out("y")], initializer=[w]),
      ok(), fails(msg), api("plan", msg))
w = helper.make_tensor("w", TensorProto.FLOAT, [2], [1.0, 2.0])
w.dims[0] = 4
msg = "tensor \"w\": 2 values stored but its shape [4] needs 4"
model("float_data_short", B, helper.make_graph([helper.make_node("Relu", ["w"], ["y"], name="relu")], "g", [],
                                               [out("y")], initializer=[w]),
      ok(), fails(msg), api("plan", msg))
c = helper.make_node("Constant", [], ["a"], name="const_a",
                     value=helper.make_tensor("a_value", TensorProto.FLOAT, [3, 3], b"\0" * 36, raw=True))
c.attribute[0].t.raw_data = b"\0" * 12
msg = "node \"const_a\" (Constant)"
model("constant_raw_data_short", B, helper.make_graph([c, helper.make_node("Relu", ["a"], ["y"], name="relu")], "g",
                                                      [], [out("y")]),
      ok(), fails(msg), api("plan", msg))

# ======================= cycles, undefined inputs, duplicate producers, missing opset import =======================
B = "cycles, undefined inputs, duplicate producers, a missing opset import"
msg = "has a cycle through the nodes \"n1\", \"n2\""
model("cycle", B, helper.make_graph(
    [helper.make_node("Relu", ["b"], ["a"], name="n1"), helper.make_node("Relu", ["a"], ["b"], name="n2"),
     helper.make_node("Identity", ["a"], ["y"], name="n3")], "g", [], [out("y")]),
    fails(msg), fails(msg), api("load", msg))
msg = "node \"n\" (Relu) reads \"nowhere\", which no node, graph input or initializer defines"
model("undefined_input", B, helper.make_graph([helper.make_node("Relu", ["nowhere"], ["y"], name="n")], "g", [],
                                              [out("y")]),
      fails(msg), fails(msg), api("load", msg))
msg = "node \"second\" (Relu) produces \"y\", which node \"first\" (Relu) already produces"
model("duplicate_producer", B, helper.make_graph(
    [const("a", np.ones(2, np.float32)), helper.make_node("Relu", ["a"], ["y"], name="first"),
     helper.make_node("Relu", ["a"], ["y"], name="second")], "g", [], [out("y")]),
    fails(msg), fails(msg), api("load", msg))
msg = "node \"n\" (Relu) uses domain \"ai.onnx\", which the model does not import"
model("missing_opset_import", B, helper.make_graph(
    [helper.make_node("Relu", ["x"], ["y"], name="n")], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
    [out("y")]), fails(msg), fails(msg), api("load", msg), opsets=[helper.make_opsetid("com.other", 1)])
msg = "output \"ghost\" is not produced by any node"
model("undefined_graph_output", B, helper.make_graph(
    [const("a", np.ones(2, np.float32))], "g", [], [out("ghost")]), fails(msg), fails(msg), api("load", msg))
# A cycle inside an If branch.
then_g = helper.make_graph([helper.make_node("Relu", ["q"], ["p"], name="t1"),
                            helper.make_node("Relu", ["p"], ["q"], name="t2")], "then_g", [], [out("p")])
else_g = helper.make_graph([helper.make_node("Identity", ["a"], ["e"], name="e1")], "else_g", [], [out("e")])
msg = "node \"if\" (If), attribute 'then_branch': graph \"then_g\" has a cycle through the nodes \"t1\", \"t2\""
model("cycle_in_subgraph", B, helper.make_graph(
    [const("a", np.ones(2, np.float32)), const("c", np.array(True)),
     helper.make_node("If", ["c"], ["y"], name="if", then_branch=then_g, else_branch=else_g)], "g", [], [out("y")]),
    fails(msg), fails(msg), api("load", msg))

# ======================= unknown ops or domains, attributes of the wrong type =======================
B = "unknown ops or domains, attributes of the wrong type"
msg = "node \"mystery\" (NoSuchOp, domain \"ai.onnx\", opset 17) is not supported"
model("unknown_op", B, helper.make_graph(
    [const("a", np.ones(2, np.float32)), helper.make_node("NoSuchOp", ["a"], ["y"], name="mystery")], "g", [],
    [out("y")]), ok("node \"mystery\" (NoSuchOp"), fails(msg), api("plan", msg))
msg = "node \"alien\" (Relu, domain \"com.example.unknown\", opset 1) is not supported"
model("unknown_domain", B, helper.make_graph(
    [const("a", np.ones(2, np.float32)), helper.make_node("Relu", ["a"], ["y"], name="alien", domain="com.example.unknown")],
    "g", [], [out("y")]), ok("node \"alien\" (Relu"), fails(msg), api("plan", msg),
    opsets=OPSET + [helper.make_opsetid("com.example.unknown", 1)])
# Opsets newer than any we know still run wherever a kernel covers them (ARCHITECTURE.md).
model("future_opset", B, helper.make_graph(
    [const("a", np.ones(2, np.float32)), helper.make_node("Relu", ["a"], ["y"], name="future")], "g", [], [out("y")]),
    ok(("imports opset 999 of \"ai.onnx\"; the newest that onnx", "knows is")), ok("output \"y\": float[2] = [1, 1]"),
    api("ok"), opsets=[helper.make_opsetid("", 999)])
msg = ("node \"tr\" (Transpose)", "attribute 'perm'")
model("attribute_wrong_type", B, helper.make_graph(
    [const("a", np.ones((2, 3), np.float32)), helper.make_node("Transpose", ["a"], ["y"], name="tr", perm=[1.0, 0.0])],
    "g", [], [out("y")]), ok(), fails(msg), api("plan", msg))
msg = ("node \"cat\" (Concat)", "attribute 'axis'")
model("attribute_string_for_int", B, helper.make_graph(
    [const("a", np.ones(2, np.float32)), helper.make_node("Concat", ["a", "a"], ["y"], name="cat", axis="zero")],
    "g", [], [out("y")]), ok(), fails(msg), api("plan", msg))
# An AttributeProto whose type says INTS but that only holds a float.
n = helper.make_node("Transpose", ["a"], ["y"], name="tr")
a = n.attribute.add()
a.name = "perm"
a.type = onnx.AttributeProto.INTS
a.f = 1.5
msg = ("node \"tr\" (Transpose)", "attribute 'perm': its type says ints but it holds float")
model("attribute_type_mismatch", B, helper.make_graph([const("a", np.ones((2, 3), np.float32)), n], "g", [], [out("y")]),
      ok(), fails(msg), api("plan", msg))
msg = ("node \"tr\" (Transpose)", "attribute 'perm'")
model("attribute_out_of_range", B, helper.make_graph(
    [const("a", np.ones((2, 3), np.float32)), helper.make_node("Transpose", ["a"], ["y"], name="tr", perm=[0, 7])],
    "g", [], [out("y")]), ok(), fails(msg), api("plan", msg))
# A zero stride: onnx's shape inference (run by `info` and the GUI) refuses it in a diagnostic, without stopping
# anything; running the model refuses the node.
positive_strides = "[ShapeInferenceError] Attribute strides must only contain positive values"
msg = ("node \"conv\" (Conv)", "attribute 'strides'")
model("conv_zero_stride", B, helper.make_graph(
    [const("a", np.ones((1, 1, 4, 4), np.float32)), const("k", np.ones((1, 1, 2, 2), np.float32)),
     helper.make_node("Conv", ["a", "k"], ["y"], name="conv", strides=[0, 0])], "g", [], [out("y")]),
    ok(("(op_type:Conv, node name: conv)", positive_strides)), fails(msg), api("plan", msg))
msg = ("node \"conv\" (Conv)", "attribute 'group'")
model("conv_zero_group", B, helper.make_graph(
    [const("a", np.ones((1, 1, 4, 4), np.float32)), const("k", np.ones((1, 1, 2, 2), np.float32)),
     helper.make_node("Conv", ["a", "k"], ["y"], name="conv", group=0)], "g", [], [out("y")]),
    ok(), fails(msg), api("plan", msg))
msg = ("node \"pool\" (MaxPool)", "attribute 'kernel_shape'")
model("pool_zero_kernel", B, helper.make_graph(
    [const("a", np.ones((1, 1, 4, 4), np.float32)),
     helper.make_node("MaxPool", ["a"], ["y"], name="pool", kernel_shape=[0, 0])], "g", [], [out("y")]),
    ok(), fails(msg), api("plan", msg))
# The same for pools, ConvInteger, and a Conv inside an If branch and inside a model-local function.
for op, extra in (("AveragePool", {"kernel_shape": [2, 2]}), ("LpPool", {"kernel_shape": [2, 2]}),
                  ("MaxPool", {"kernel_shape": [2, 2], "auto_pad": "SAME_UPPER"})):
    msg = (f"node \"pool\" ({op})", "attribute 'strides'")
    model(f"{op.lower()}_zero_stride", B, helper.make_graph(
        [const("a", np.ones((1, 1, 4, 4), np.float32)),
         helper.make_node(op, ["a"], ["y"], name="pool", strides=[0, 0], **extra)], "g", [], [out("y")]),
        ok((f"(op_type:{op}, node name: pool)", positive_strides)), fails(msg), api("plan", msg))
model("conv_integer_zero_stride", B, helper.make_graph(
    [const("a", np.ones((1, 1, 4, 4), np.uint8)), const("k", np.ones((1, 1, 2, 2), np.uint8)),
     helper.make_node("ConvInteger", ["a", "k"], ["y"], name="conv", strides=[0, 0])], "g", [],
    [out("y", TensorProto.INT32)]),
    ok(("(op_type:ConvInteger, node name: conv)", positive_strides)),
    fails(("node \"conv\" (ConvInteger)", "attribute 'strides'")),
    api("plan", ("node \"conv\" (ConvInteger)", "attribute 'strides'")))
branch = helper.make_graph([helper.make_node("Conv", ["a", "k"], ["t"], name="inner_conv", strides=[0, 0])], "then", [],
                           [out("t")])
model("conv_zero_stride_in_branch", B, helper.make_graph(
    [const("a", np.ones((1, 1, 4, 4), np.float32)), const("k", np.ones((1, 1, 2, 2), np.float32)),
     const("c", np.array(True)), helper.make_node("If", ["c"], ["y"], name="if", then_branch=branch, else_branch=branch)],
    "g", [], [out("y")]),
    ok(("(op_type:Conv, node name: inner_conv)", positive_strides)),
    fails(("node \"inner_conv\" (Conv)", "attribute 'strides'")),
    api("plan", ("node \"inner_conv\" (Conv)", "attribute 'strides'")))
fn = helper.make_function("local", "StridedConv", ["x", "w"], ["y"],
                          [helper.make_node("Conv", ["x", "w"], ["y"], name="fn_conv", strides=[0, 0])],
                          [helper.make_opsetid("", 17)])
model("conv_zero_stride_in_function", B, helper.make_graph(
    [const("a", np.ones((1, 1, 4, 4), np.float32)), const("k", np.ones((1, 1, 2, 2), np.float32)),
     helper.make_node("StridedConv", ["a", "k"], ["y"], name="call", domain="local")], "g", [], [out("y")]),
    ok(("(op_type:Conv, node name: fn_conv)", positive_strides)),
    fails(("node \"fn_conv\" (Conv)", "attribute 'strides'")),
    api("plan", ("node \"fn_conv\" (Conv)", "attribute 'strides'")), opsets=OPSET + [helper.make_opsetid("local", 1)],
    functions=[fn])

# ======================= If without branches, nesting 200 levels deep =======================
B = "If without branches, nesting 200 levels deep"
msg = ("node \"branchless\" (If)", "attribute 'then_branch'")
model("if_without_branches", B, helper.make_graph(
    [const("c", np.array(True)), helper.make_node("If", ["c"], ["y"], name="branchless")], "g", [], [out("y")]),
    ok(), fails(msg), api("plan", msg))
msg = ("node \"half\" (If)", "attribute 'else_branch'")
model("if_without_else", B, helper.make_graph(
    [const("c", np.array(True)), helper.make_node("If", ["c"], ["y"], name="half", then_branch=helper.make_graph(
        [helper.make_node("Constant", [], ["t"], name="t", value_float=1.0)], "then", [], [out("t")]))],
    "g", [], [out("y")]), ok(), fails(msg), api("plan", msg))
msg = ("node \"loop\" (Loop)", "attribute 'body'")
model("loop_without_body", B, helper.make_graph(
    [const("m", np.array(2, np.int64)), const("c", np.array(True)),
     helper.make_node("Loop", ["m", "c"], [], name="loop")], "g", [], [out("m", TensorProto.INT64)]),
    ok(), fails(msg), api("plan", msg))


def nested_if(depth):
    """A main graph whose If nests `depth` levels of If in its then-branches; the innermost returns 7.0.

    Built in place (onnx's helpers copy every subgraph into its parent, quadratic in the depth)."""
    main = helper.make_graph([const("seven", np.full(1, 7.0, np.float32)), const("zero", np.zeros(1, np.float32)),
                              const("c", np.array(True))], "level0", [], [out("o0")])
    g = main
    for k in range(depth):
        n = g.node.add()
        n.op_type, n.name = "If", f"if{k}"
        n.input.append("c")
        n.output.append(f"o{k}")
        els = n.attribute.add()
        els.name, els.type = "else_branch", onnx.AttributeProto.GRAPH
        els.g.CopyFrom(helper.make_graph([helper.make_node("Identity", ["zero"], [f"e{k}"], name=f"else{k}")],
                                         f"else{k}", [], [out(f"e{k}")]))
        then = n.attribute.add()
        then.name, then.type = "then_branch", onnx.AttributeProto.GRAPH
        g = then.g
        g.name = f"level{k + 1}"
        g.output.add().CopyFrom(out(f"o{k + 1}"))
    g.node.add().CopyFrom(helper.make_node("Identity", ["seven"], [f"o{depth}"], name=f"leaf{depth}"))
    return main


# 200 levels load, plan and run (the executor's frame stack is explicit, nothing recurses per level at run time).
model("nested_if_200", B, nested_if(200), ok("nodes: 404"), ok("output \"o0\": float[1] = [7]"), api("ok"))
msg = "is nested more than 256 levels deep"
model("nested_if_300", B, nested_if(300), fails(msg), fails(msg), api("load", msg))
# Deeper than protobuf's recursion limit: a parse error, not a stack overflow.
model("nested_if_2000", B, nested_if(2000), fails("nested_if_2000.onnx\" is not a valid ONNX model"),
      fails("nested_if_2000.onnx\" is not a valid ONNX model"), api("load", "nested_if_2000.onnx\" is not a valid"))

# Model-local functions: one that calls itself, and a chain of 40 that each call the next twice (2^40 call sites).
fn = helper.make_function("local", "Self", ["x"], ["y"], [helper.make_node("Self", ["x"], ["y"], domain="local")],
                          [helper.make_opsetid("", 17), helper.make_opsetid("local", 1)])
msg = "nested more than 256 levels deep"
model("recursive_function", B, helper.make_graph(
    [const("a", np.ones(2, np.float32)), helper.make_node("Self", ["a"], ["y"], name="call", domain="local")], "g", [],
    [out("y")]), fails(msg), fails(msg), api("load", msg),
    opsets=OPSET + [helper.make_opsetid("local", 1)], functions=[fn])
fns = []
for i in range(40):
    if i == 39:
        body = [helper.make_node("Identity", ["x"], ["y"])]
    else:
        body = [helper.make_node(f"F{i + 1}", ["x"], ["t"], domain="local"),
                helper.make_node(f"F{i + 1}", ["t"], ["y"], domain="local")]
    fns.append(helper.make_function("local", f"F{i}", ["x"], ["y"], body,
                                    [helper.make_opsetid("", 17), helper.make_opsetid("local", 1)]))
msg = "function_bomb.onnx\": node \"call\" (F0): its model-local functions expand to more than"
model("function_bomb", B, helper.make_graph(
    [const("a", np.ones(2, np.float32)), helper.make_node("F0", ["a"], ["y"], name="call", domain="local")], "g", [],
    [out("y")]), fails(msg), fails(msg), api("load", msg),
    opsets=OPSET + [helper.make_opsetid("local", 1)], functions=fns)

# A function whose body has an unknown op, called at 64 sites through two levels (found by fuzz_model): the message
# names the node once with how often it repeats, instead of 20 copies of it.
inner = helper.make_function("local", "Inner", ["x"], ["y"], [helper.make_node("NoSuchOp", ["x"], ["y"], name="odd")],
                             [helper.make_opsetid("", 17)])
outer = helper.make_function("local", "Outer", ["x"], ["y"],
                             [helper.make_node("Inner", ["x" if i == 0 else f"t{i}"], [f"t{i + 1}" if i < 7 else "y"],
                                               domain="local") for i in range(8)],
                             [helper.make_opsetid("", 17), helper.make_opsetid("local", 1)])
msg = ("repeated_unsupported_function.onnx\" cannot run: node \"odd\" (NoSuchOp, domain \"ai.onnx\", opset 17) "
       "is not supported; no version of NoSuchOp has a kernel (64 times)")
model("repeated_unsupported_function", B, helper.make_graph(
    [const("a", np.ones(2, np.float32))]
    + [helper.make_node("Outer", ["a" if i == 0 else f"u{i}"], [f"u{i + 1}" if i < 7 else "y"], name=f"call{i}",
                        domain="local") for i in range(8)], "g", [], [out("y")]),
    ok("node \"odd\" (NoSuchOp, domain \"ai.onnx\", opset 17); no version of NoSuchOp has a kernel (64 times)"),
    fails(msg), api("plan", msg),
    opsets=OPSET + [helper.make_opsetid("local", 1)], functions=[inner, outer])

# ======================= out-of-range Gather indices, split sizes that don't add up, mismatched Concat ranks ==========
B = "out-of-range Gather indices, split sizes that don't add up, mismatched Concat ranks"
for name, idx in (("gather_index_too_large", 5), ("gather_index_too_negative", -4),
                  ("gather_index_int64_min", -(1 << 63))):
    model(name, B, helper.make_graph(
        [const("a", np.arange(3, dtype=np.float32)), const("i", np.array([0, idx], np.int64)),
         helper.make_node("Gather", ["a", "i"], ["y"], name="gather")], "g", [], [out("y")]),
        ok(), fails("node \"gather\" (Gather)"), api("run", "node \"gather\" (Gather)"))
model("gather_elements_out_of_range", B, helper.make_graph(
    [const("a", np.arange(4, dtype=np.float32).reshape(2, 2)), const("i", np.array([[0, 2], [1, 0]], np.int64)),
     helper.make_node("GatherElements", ["a", "i"], ["y"], name="ge")], "g", [], [out("y")]),
    ok(), fails("node \"ge\" (GatherElements)"), api("run", "node \"ge\" (GatherElements)"))
model("gathernd_out_of_range", B, helper.make_graph(
    [const("a", np.arange(4, dtype=np.float32).reshape(2, 2)), const("i", np.array([[0, 9]], np.int64)),
     helper.make_node("GatherND", ["a", "i"], ["y"], name="gnd")], "g", [], [out("y")]),
    ok(), fails("node \"gnd\" (GatherND)"), api("run", "node \"gnd\" (GatherND)"))
model("scatter_out_of_range", B, helper.make_graph(
    [const("a", np.zeros(3, np.float32)), const("i", np.array([7], np.int64)), const("u", np.ones(1, np.float32)),
     helper.make_node("ScatterElements", ["a", "i", "u"], ["y"], name="scatter")], "g", [], [out("y")]),
    ok(), fails("node \"scatter\" (ScatterElements)"), api("run", "node \"scatter\" (ScatterElements)"))
model("split_sizes_mismatch", B, helper.make_graph(
    [const("a", np.arange(5, dtype=np.float32)), const("s", np.array([2, 2], np.int64)),
     helper.make_node("Split", ["a", "s"], ["y", "z"], name="split")], "g", [], [out("y"), out("z")]),
    ok(), fails("node \"split\" (Split)"), api("run", "node \"split\" (Split)"))
model("split_negative_size", B, helper.make_graph(
    [const("a", np.arange(5, dtype=np.float32)), const("s", np.array([7, -2], np.int64)),
     helper.make_node("Split", ["a", "s"], ["y", "z"], name="split")], "g", [], [out("y"), out("z")]),
    ok(), fails("node \"split\" (Split)"), api("run", "node \"split\" (Split)"))
model("concat_rank_mismatch", B, helper.make_graph(
    [const("a", np.ones((2, 2), np.float32)), const("b", np.ones(2, np.float32)),
     helper.make_node("Concat", ["a", "b"], ["y"], name="cat", axis=0)], "g", [], [out("y")]),
    ok(), fails("node \"cat\" (Concat)"), api("run", "node \"cat\" (Concat)"))
model("concat_axis_out_of_range", B, helper.make_graph(
    [const("a", np.ones((2, 2), np.float32)), helper.make_node("Concat", ["a", "a"], ["y"], name="cat", axis=5)],
    "g", [], [out("y")]), ok(), fails("node \"cat\" (Concat)"), api("run", "node \"cat\" (Concat)"))
model("slice_extreme_steps", B, helper.make_graph(
    [const("a", np.arange(5, dtype=np.float32)), const("st", np.array([-(1 << 63)], np.int64)),
     const("en", np.array([(1 << 63) - 1], np.int64)), const("ax", np.array([0], np.int64)),
     const("sp", np.array([-(1 << 63)], np.int64)),
     helper.make_node("Slice", ["a", "st", "en", "ax", "sp"], ["y"], name="slice")], "g", [], [out("y")]),
    ok(), ok("output \"y\": float[0]"), api("ok"))

# ======================= a .npy with a bad header, or truncated =======================
B = "a .npy with a bad header, or truncated"
good = open(path("valid/x.npy"), "rb").read()
header_len = struct.unpack("<H", good[8:10])[0]
npys = {
    "npy_bad_magic": (b"\x93NUMPX" + good[6:], "not a .npy file"),
    "npy_truncated_header": (good[:30], "truncated .npy file"),
    "npy_truncated_data": (good[:-6], "truncated .npy data"),
    "npy_only_magic": (good[:8], "not a .npy file"),
    "npy_bad_version": (good[:6] + b"\x09\x00" + good[8:], ".npy format version 9.0 is not supported"),
    "npy_header_not_dict": (good[:10] + b"[1, 2, 3]".ljust(header_len - 1) + b"\n" + good[10 + header_len:],
                            "malformed .npy header"),
    "npy_header_missing_shape": (good[:10] + b"{'descr': '<f4', 'fortran_order': False}".ljust(header_len - 1)
                                 + b"\n" + good[10 + header_len:], "it needs the keys 'descr', 'fortran_order' and 'shape'"),
    "npy_object_dtype": (good[:10] + b"{'descr': '|O', 'fortran_order': False, 'shape': (5,), }".ljust(header_len - 1)
                         + b"\n" + good[10 + header_len:], "holds Python objects"),
    "npy_huge_shape": (good[:10] + b"{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296, 1024), }"
                       .ljust(header_len + 64 - 1) + b"\n" + good[10 + header_len:], "shape [4294967296, 4294967296, 1024]"),
    "npy_header_len_past_end": (good[:8] + struct.pack("<H", 60000) + good[10:], "the header claims 60000 bytes"),
    "npy_trailing_bytes": (good + b"\0" * 7, "unexpected trailing bytes"),
}
for name, (data, msg) in npys.items():
    if name == "npy_huge_shape":
        hl = len(data) - 10 - (len(good) - 10 - header_len)
        data = data[:8] + struct.pack("<H", hl) + data[10:]
    rel = write_bytes(f"inputs/{name}.npy", data)
    add(name, B, "valid/identity.onnx", ok(), fails((f"{name}.npy\": ", msg)), api("input", (f"{name}.npy\": ", msg)),
        inputs={"x": rel})
write_bytes("inputs/corrupt.npz", b"PK\x03\x04" + b"\xff" * 40)
add("npz_corrupt", B, "valid/identity.onnx", ok(), fails("corrupt.npz"), api("input", "corrupt.npz"),
    inputs={"x": "inputs/corrupt.npz"})
write_bytes("inputs/truncated.pb", numpy_helper.from_array(np.arange(5, dtype=np.float32), "x").SerializeToString()[:-5])
add("pb_truncated", B, "valid/identity.onnx", ok(), fails("truncated.pb\""), api("input", "truncated.pb\""),
    inputs={"x": "inputs/truncated.pb"})

# ======================= element counts over the allocation limit, whatever the item size or order =======================
B = "an input file's element count is checked against the allocation limit before any per-element work (issue 46)"
write_bytes("valid/identity_string.onnx", model_bytes(helper.make_graph(
    [helper.make_node("Identity", ["x"], ["y"], name="ident")], "identity_string",
    [helper.make_tensor_value_info("x", TensorProto.STRING, None)], [out("y", TensorProto.STRING)])))


def npy_128(dict_text):
    """A .npy 1.0 header padded with spaces to 128 bytes in all, and no data, as fuzz_npy found it."""
    h = dict_text.ljust(118)
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(h)) + h


# fuzz_npy's finding as it was, byte for byte: its dims have leading zeros, which numpy refuses (a Python literal).
rel = write_bytes("inputs/npy_issue46_finding.npy",
                  npy_128(b"{'descr': '|S0', 'fortran_order': True, 'shape': (01, 49,729 ,6,0141220), }"))
msg = ("npy_issue46_finding.npy\": malformed .npy header", "leading zero")
add("npy_issue46_finding", B, "valid/identity_string.onnx", ok(), fails(msg), api("input", msg), inputs={"x": rel})
# The same without the leading zeros, which numpy loads at once: 30 billion zero-length byte strings in Fortran order
# (the reader looped over every element before checking the limit), its C-order twin, and zero-length unicode.
huge = "string[1, 49, 729, 6, 141220] would need 902.0 GiB, more than the allocation limit of"
for name, descr, order in (("npy_s0_fortran_30g", "|S0", "True"), ("npy_s0_c_order_30g", "|S0", "False"),
                           ("npy_u0_fortran_30g", "<U0", "True")):
    data = npy_128(f"{{'descr': '{descr}', 'fortran_order': {order}, 'shape': (1, 49,729 ,6,141220), }}".encode())
    assert len(data) == 128
    rel = write_bytes(f"inputs/{name}.npy", data)
    add(name, B, "valid/identity_string.onnx", ok(), fails((f"{name}.npy\": tensor ", huge)),
        api("input", (f"{name}.npy\": tensor ", huge)), inputs={"x": rel})
# An .npz of three arrays of a million empty strings each: 32 MB of strings each, within 64M alone, not together.
import io
import zipfile
buf = io.BytesIO()
with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
    for k in "abc":
        z.writestr(f"{k}.npy", npy_128(b"{'descr': '|S0', 'fortran_order': False, 'shape': (1000000,), }"))
write_bytes("inputs/s0_three_arrays.npz", buf.getvalue())
msg = ("s0_three_arrays.npz\": its first 3 arrays would need", "more than the allocation limit of 64.0 MiB")
add("npz_s0_arrays_over_limit_together", B, "valid/identity_string.onnx", ok(), fails(msg), api("input", msg),
    inputs={"x": "inputs/s0_three_arrays.npz"}, run_args=["--allocation-limit", "64M"],
    limits={"allocation_limit": 64 << 20})

# ======================= resource limits =======================
B = "a tensor over the allocation limit is refused before allocation, with the requested shape"
model("expand_1e15", B, helper.make_graph(
    [const("a", np.ones(1, np.float32)), const("s", np.array([10 ** 15], np.int64)),
     helper.make_node("Expand", ["a", "s"], ["y"], name="expand")], "g", [], [out("y")]),
    ok(), fails("float[1000000000000000]"), api("run", "float[1000000000000000]"))
model("constant_of_shape_1e15", B, helper.make_graph(
    [const("s", np.array([10 ** 5, 10 ** 10], np.int64)),
     helper.make_node("ConstantOfShape", ["s"], ["y"], name="cos")], "g", [], [out("y")]),
    ok(), fails("[100000, 10000000000]"), api("run", "[100000, 10000000000]"))
w = helper.make_tensor("huge", TensorProto.FLOAT, [1], [1.0])
w.ClearField("dims")
w.ClearField("float_data")
w.dims.extend([1 << 20, 1 << 20, 1 << 10])
msg = ("tensor \"huge\"", "[1048576, 1048576, 1024]")
model("initializer_huge_no_data", B, helper.make_graph(
    [helper.make_node("Relu", ["huge"], ["y"], name="relu")], "g", [], [out("y")], initializer=[w]),
    ok("initializers: 1"), fails(msg), api("plan", msg))
# Within the machine's memory but over an explicit limit of 1 MiB; the data is missing too.
w = helper.make_tensor("big", TensorProto.FLOAT, [1], [1.0])
w.ClearField("dims")
w.ClearField("float_data")
w.dims.extend([1024, 1024])
msg = "tensor \"big\""
model("initializer_over_limit_no_data", B, helper.make_graph(
    [helper.make_node("Relu", ["big"], ["y"], name="relu")], "g", [], [out("y")], initializer=[w]),
    ok(), fails(msg), api("plan", msg), run_args=["--allocation-limit", "1M"], limits={"allocation_limit": 1 << 20})
model("range_huge", B, helper.make_graph(
    [const("a", np.array(0, np.int64)), const("b", np.array(1 << 62, np.int64)), const("d", np.array(1, np.int64)),
     helper.make_node("Range", ["a", "b", "d"], ["y"], name="range")], "g", [], [out("y", TensorProto.INT64)]),
    ok(), fails("node \"range\" (Range)"), api("run", "node \"range\" (Range)"))
model("tile_huge", B, helper.make_graph(
    [const("a", np.ones((2, 2), np.float32)), const("r", np.array([1 << 30, 1 << 30], np.int64)),
     helper.make_node("Tile", ["a", "r"], ["y"], name="tile")], "g", [], [out("y")]),
    ok(), fails("node \"tile\" (Tile)"), api("run", "node \"tile\" (Tile)"))
model("pad_huge", B, helper.make_graph(
    [const("a", np.ones((2, 2), np.float32)), const("p", np.array([0, 0, 1 << 40, 1 << 40], np.int64)),
     helper.make_node("Pad", ["a", "p"], ["y"], name="pad")], "g", [], [out("y")]),
    ok(), fails("node \"pad\" (Pad)"), api("run", "node \"pad\" (Pad)"))
model("onehot_huge_depth", B, helper.make_graph(
    [const("i", np.array([1, 2], np.int64)), const("d", np.array(1 << 50, np.int64)),
     const("v", np.array([0, 1], np.float32)),
     helper.make_node("OneHot", ["i", "d", "v"], ["y"], name="onehot")], "g", [], [out("y")]),
    ok(), fails("node \"onehot\" (OneHot)"), api("run", "node \"onehot\" (OneHot)"))
model("resize_huge_scale", B, helper.make_graph(
    [const("a", np.ones((1, 1, 2, 2), np.float32)), const("s", np.array([1, 1, 1e8, 1e8], np.float32)),
     helper.make_node("Resize", ["a", "", "s"], ["y"], name="resize")], "g", [], [out("y")]),
    ok(), fails("node \"resize\" (Resize)"), api("run", "node \"resize\" (Resize)"))
model("matmul_huge_output", B, helper.make_graph(
    [const("a", np.ones(1, np.float32)), const("s1", np.array([1 << 20, 1], np.int64)),
     const("s2", np.array([1, 1 << 20], np.int64)),
     helper.make_node("Expand", ["a", "s1"], ["l"], name="left"), helper.make_node("Expand", ["a", "s2"], ["r"], name="right"),
     helper.make_node("MatMul", ["l", "r"], ["y"], name="matmul")], "g", [], [out("y")]),
    ok(), fails("node \"matmul\" (MatMul)"), api("run", "node \"matmul\" (MatMul)"),
    run_args=["--allocation-limit", "64M"], limits={"allocation_limit": 64 << 20})

B = "a Loop with an enormous trip count is bounded by --max-loop-iterations"
body = helper.make_graph(
    [helper.make_node("Identity", ["cond_in"], ["cond_out"], name="keep_going"),
     helper.make_node("Add", ["acc", "one"], ["acc_out"], name="inc")], "body",
    [helper.make_tensor_value_info("i", TensorProto.INT64, []), helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
     helper.make_tensor_value_info("acc", TensorProto.FLOAT, [1])],
    [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []), out("acc_out", shape=[1])])
msg = "Loop \"forever\" exceeded the iteration limit of 1000"
model("loop_huge_trip_count", B, helper.make_graph(
    [const("m", np.array((1 << 63) - 1, np.int64)), const("c", np.array(True)), const("one", np.ones(1, np.float32)),
     const("zero", np.zeros(1, np.float32)),
     helper.make_node("Loop", ["m", "c", "zero"], ["y"], name="forever", body=body)], "g", [], [out("y")]),
    ok(), fails(msg), api("run", msg), run_args=["--max-loop-iterations", "1000"], limits={"max_loop_iterations": 1000})
model("loop_no_trip_count", B, helper.make_graph(
    [const("c", np.array(True)), const("one", np.ones(1, np.float32)), const("zero", np.zeros(1, np.float32)),
     helper.make_node("Loop", ["", "c", "zero"], ["y"], name="forever", body=body)], "g", [], [out("y")]),
    ok(), fails(msg), api("run", msg), run_args=["--max-loop-iterations", "1000"], limits={"max_loop_iterations": 1000})

# ======================= external data never reads outside the model's folder =======================
B = "external data: absolute paths, .. escapes, symlinks out, offset or length past the end"
secret = path("outside/secret.bin")
with open(secret, "wb") as f:
    f.write(np.arange(6, dtype=np.float32).tobytes())


def external_model(name, location, offset=None, length=None, dims=(6,), extra_file=None):
    w = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=list(dims))
    w.data_location = TensorProto.EXTERNAL
    for key, value in (("location", location), ("offset", offset), ("length", length)):
        if value is not None:
            entry = w.external_data.add()
            entry.key = key
            entry.value = str(value)
    folder = f"external/{name}"
    if extra_file:
        extra_file(folder)
    return model_bytes(helper.make_graph([helper.make_node("Relu", ["w"], ["y"], name="relu")], "g", [], [out("y")],
                                         initializer=[w])), folder


def external(name, location, msg, **kw):
    data, folder = external_model(name, location, **kw)
    rel = write_bytes(f"{folder}/model.onnx", data)
    add(f"external_{name}", B, rel, ok(), fails(msg), api("plan", msg))


def weights(folder, size=24):
    with open(path(f"{folder}/weights.bin"), "wb") as f:
        f.write(np.arange(size // 4, dtype=np.float32).tobytes())


external("absolute", secret, f"tensor \"w\": external data file \"{secret}\" is an absolute path")
external("dotdot", "../../outside/secret.bin", "tensor \"w\": external data file \"../../outside/secret.bin\" leaves")
external("dotdot_inside", "sub/../../../outside/secret.bin", "leaves the model's folder")


def symlink_out(folder):
    os.makedirs(path(folder), exist_ok=True)
    link = path(f"{folder}/weights.bin")
    if os.path.lexists(link):
        os.remove(link)
    os.symlink(os.path.relpath(secret, path(folder)), link)


external("symlink_out", "weights.bin", "tensor \"w\": external data file \"weights.bin\" resolves to",
         extra_file=symlink_out)


def symlinked_dir(folder):
    os.makedirs(path(folder), exist_ok=True)
    link = path(f"{folder}/sub")
    if os.path.lexists(link):
        os.remove(link)
    os.symlink(os.path.relpath(path("outside"), path(folder)), link)


external("symlinked_folder", "sub/secret.bin", "outside the model's folder", extra_file=symlinked_dir)
external("missing_file", "nothing_here.bin", "tensor \"w\": external data file \"nothing_here.bin\" does not exist")
external("offset_past_end", "weights.bin", "tensor \"w\": external data offset 4096 lies past the end of \"weights.bin\"",
         offset=4096, extra_file=weights)
external("length_past_end", "weights.bin", "tensor \"w\": external data",
         offset=8, length=24, extra_file=weights)
external("offset_overflow", "weights.bin", "tensor \"w\": external data",
         offset=(1 << 64) - 8, length=24, extra_file=weights)
external("length_mismatch", "weights.bin", "tensor \"w\": external data length 12 bytes, but float[6] needs 24",
         offset=0, length=12, extra_file=weights)
external("offset_not_a_number", "weights.bin", "tensor \"w\": external data offset \"12abc\"",
         offset="12abc", extra_file=weights)
external("location_is_folder", ".", "tensor \"w\": external data file \".\"", extra_file=weights)
# dims whose byte size wraps around 2^64 to the 8 bytes given: an overflow check, not an 8-byte tensor of 2^62 floats.
external("size_wraps", "weights.bin", "tensor \"w\": byte size of float[4611686018427387906]", dims=((1 << 62) + 2,),
         offset=0, length=8, extra_file=weights)
# Huge dims pointing at a small file: refused from the sizes, nothing is allocated.
external("huge_dims_small_file", "weights.bin", "tensor \"w\"", dims=(1 << 30, 1 << 30), extra_file=weights)

# ======================= string tensors with invalid UTF-8 =======================
B = "string tensors with invalid UTF-8 are kept as bytes and shown escaped"
s = helper.make_tensor("s", TensorProto.STRING, [3], [b"ok", b"bad\xff\xfebytes", b"\xc3("])
model("string_invalid_utf8", B, helper.make_graph(
    [helper.make_node("Identity", ["s"], ["y"], name="ident")], "g", [], [out("y", TensorProto.STRING)],
    initializer=[s]), ok(), ok("\"bad\\xff\\xfebytes\""), api_string_output(b"bad\xff\xfebytes"))
np.save(path("inputs/bytes_invalid_utf8.npy"), np.array([b"fine", b"\xff\x00tail"], dtype="S6"))
model("string_input_invalid_utf8", B, helper.make_graph(
    [helper.make_node("Identity", ["x"], ["y"], name="ident")], "g",
    [helper.make_tensor_value_info("x", TensorProto.STRING, [2])], [out("y", TensorProto.STRING)]),
    ok(), ok("\"\\xff\\x00tail\""), api_string_output(b"\xff\x00tail"), inputs={"x": "inputs/bytes_invalid_utf8.npy"})
# Names that are not UTF-8 either (protobuf's Python API refuses them, so the bytes are patched in): loading, running
# and messages must cope.
data = model_bytes(helper.make_graph(
    [const("a", np.ones(2, np.float32)), helper.make_node("Relu", ["a"], ["y@@"], name="n@@")], "g", [],
    [out("y@@")]))
write_bytes("models/names_invalid_utf8.onnx", data.replace(b"@@", b"\xff\xfe"))
add("names_invalid_utf8", B, "models/names_invalid_utf8.onnx", ok("outputs (1)"), ok("output \"y"), api("ok"))

with open(path("manifest.json"), "w") as f:
    json.dump({"entries": ENTRIES}, f, indent=1)
print(f"{len(ENTRIES)} corpus entries in {OUT}")
