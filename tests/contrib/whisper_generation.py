"""A tiny Whisper-style encoder-decoder for onnxruntime's WhisperBeamSearch (issue #41), built with onnx.helper from
seeded random weights: the `encoder` subgraph (encoder_input_ids float[batch, MELS, FRAMES], decoder_input_ids
int32[batch, S] -> logits, encoder_hidden_states, present_{key,value}_self_i, present_{key,value}_cross_i) and the
`decoder` subgraph (input_ids, encoder_hidden_states, past_{key,value}_self_i, past_{key,value}_cross_i -> logits,
present_{key,value}_self_i), both over the same weights. Used by make_generation_cases.py."""

import numpy as np
from onnx import TensorProto, helper, numpy_helper

MS = "com.microsoft"
VOCAB, HEADS, HEAD_SIZE, LAYERS, MELS, FRAMES = 40, 2, 4, 2, 6, 10
EMBED = HEADS * HEAD_SIZE


def weights(seed):
    rng = np.random.default_rng(seed)
    w = {"w_in": rng.standard_normal((MELS, EMBED)) * 0.5, "wte": rng.standard_normal((VOCAB, EMBED)),
         "wpe": rng.standard_normal((64, EMBED)) * 0.3, "lm_head": rng.standard_normal((EMBED, VOCAB)) * 0.5}
    for layer in range(LAYERS):
        for n in ("wq", "wk", "wv", "wo", "cq", "ck", "cv", "co"):
            w[f"l{layer}_{n}"] = rng.standard_normal((EMBED, EMBED)) * 0.5
    return {k: v.astype(np.float32) for k, v in w.items()}


class Builder:
    def __init__(self, w):
        self.nodes, self.inits = [], [numpy_helper.from_array(v, k) for k, v in w.items()]
        for name, value, dtype in (("zero", 0, np.int64), ("one_i", 1, np.int64), ("two_i", 2, np.int64),
                                   ("one_f", 1.0, np.float32), ("neg", -10000.0, np.float32),
                                   ("bsed", [0, 0, HEADS, HEAD_SIZE], np.int64), ("bse", [0, 0, EMBED], np.int64),
                                   ("scale", 1.0 / np.sqrt(HEAD_SIZE), np.float32)):
            self.inits.append(numpy_helper.from_array(np.asarray(value, dtype=dtype), name))

    def node(self, op, ins, out, **attrs):
        self.nodes.append(helper.make_node(op, ins, [out], name=out, **attrs))
        return out

    def heads(self, t, p):
        r = self.node("Reshape", [t, "bsed"], p + "_r")
        return self.node("Transpose", [r], p + "_t", perm=[0, 2, 1, 3])

    def attend(self, q, k, v, p, bias=None):
        s = self.node("Mul", [self.node("MatMul", [q, self.node("Transpose", [k], p + "_kt", perm=[0, 1, 3, 2])],
                                        p + "_qk"), "scale"], p + "_s")
        if bias is not None:
            s = self.node("Add", [s, bias], p + "_masked")
        probs = self.node("Softmax", [s], p + "_probs", axis=-1)
        ctx = self.node("Transpose", [self.node("MatMul", [probs, v], p + "_ctx4")], p + "_ctx_t", perm=[0, 2, 1, 3])
        return self.node("Reshape", [ctx, "bse"], p + "_ctx")

    def decoder_body(self, ids, past_len, hidden, cross, pasts):
        """Token + position embeddings from past_len, LAYERS blocks of causal self attention (over `pasts` when given)
        and cross attention over `cross` (per layer (k, v), [B, H, F, D]); returns logits and the self presents."""
        b = self
        s_len = b.node("Gather", [b.node("Shape", [ids], "ids_shape"), "one_i"], "s_len")
        pos = b.node("Range", [past_len, b.node("Add", [past_len, s_len], "end"), "one_i"], "pos")
        x = b.node("Add", [b.node("Gather", ["wte", ids], "te"), b.node("Gather", ["wpe", pos], "pe")], "x0")
        t_len = b.node("Add", [past_len, s_len], "t_len")
        st = b.node("Concat", [b.node("Unsqueeze", [s_len, "zero"], "s1"), b.node("Unsqueeze", [t_len, "zero"], "t1")],
                    "st", axis=0)
        ones = b.node("ConstantOfShape", [st], "ones", value=helper.make_tensor("v", TensorProto.FLOAT, [1], [1.0]))
        tri = b.node("Trilu", [ones, past_len], "tri", upper=0)
        causal = b.node("Mul", [b.node("Sub", ["one_f", tri], "not_tri"), "neg"], "causal")
        presents = []
        for layer in range(LAYERS):
            p = f"l{layer}"
            q = b.heads(b.node("MatMul", [x, p + "_wq"], p + "_q"), p + "_q")
            k = b.heads(b.node("MatMul", [x, p + "_wk"], p + "_k"), p + "_k")
            v = b.heads(b.node("MatMul", [x, p + "_wv"], p + "_v"), p + "_v")
            if pasts is not None:
                k = b.node("Concat", [pasts[layer][0], k], p + "_kk", axis=2)
                v = b.node("Concat", [pasts[layer][1], v], p + "_vv", axis=2)
            presents += [(k, f"present_key_self_{layer}"), (v, f"present_value_self_{layer}")]
            ctx = b.attend(q, k, v, p + "_self", causal)
            x = b.node("Add", [x, b.node("MatMul", [ctx, p + "_wo"], p + "_attn")], p + "_x1")
            cq = b.heads(b.node("MatMul", [x, p + "_cq"], p + "_cqm"), p + "_cq")
            ctx = b.attend(cq, cross[layer][0], cross[layer][1], p + "_cross")
            x = b.node("Tanh", [b.node("Add", [x, b.node("MatMul", [ctx, p + "_co"], p + "_cattn")], p + "_x2a")],
                       p + "_x2")
        b.node("MatMul", [x, "lm_head"], "logits")
        for src, name in presents:
            b.node("Identity", [src], name)


def kv_info(name, length):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, ["batch", HEADS, length, HEAD_SIZE])


def self_names(prefix):
    return [f"{prefix}_{kv}_self_{i}" for i in range(LAYERS) for kv in ("key", "value")]


def cross_names(prefix):
    return [f"{prefix}_{kv}_cross_{i}" for i in range(LAYERS) for kv in ("key", "value")]


def encoder_graph(w):
    b = Builder(w)
    feats = b.node("Transpose", ["encoder_input_ids"], "feats", perm=[0, 2, 1])
    hidden = b.node("Tanh", [b.node("MatMul", [feats, "w_in"], "h_in")], "encoder_hidden_states")
    cross = []
    for layer in range(LAYERS):
        p = f"l{layer}"
        k = b.heads(b.node("MatMul", [hidden, p + "_ck"], p + "_ckm"), p + "_ck")
        v = b.heads(b.node("MatMul", [hidden, p + "_cv"], p + "_cvm"), p + "_cv")
        cross.append((b.node("Identity", [k], f"present_key_cross_{layer}"),
                      b.node("Identity", [v], f"present_value_cross_{layer}")))
    b.decoder_body("decoder_input_ids", "zero", hidden, cross, None)
    inputs = [helper.make_tensor_value_info("encoder_input_ids", TensorProto.FLOAT, ["batch", MELS, FRAMES]),
              helper.make_tensor_value_info("decoder_input_ids", TensorProto.INT32, ["batch", "seq"])]
    outputs = [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", "seq", VOCAB]),
               helper.make_tensor_value_info("encoder_hidden_states", TensorProto.FLOAT, ["batch", FRAMES, EMBED])]
    outputs += [kv_info(n, "seq") for n in self_names("present")] + [kv_info(n, FRAMES) for n in cross_names("present")]
    return helper.make_graph(b.nodes, "encoder", inputs, outputs, b.inits)


def decoder_graph(w, one_token=True, hidden_input=True):
    """one_token: input_ids [batch, 1], the new token over the self pasts; otherwise input_ids [batch, seq] is the
    whole sequence, recomputed from scratch (the self pasts taken and ignored, as a decoder without a cache would)."""
    b = Builder(w)
    selfs, crosses = self_names("past"), cross_names("past")
    cross = [(crosses[2 * i], crosses[2 * i + 1]) for i in range(LAYERS)]
    if one_token:
        past_len = b.node("Gather", [b.node("Shape", [selfs[0]], "past_shape"), "two_i"], "past_len")
        b.decoder_body("input_ids", past_len, None, cross, [(selfs[2 * i], selfs[2 * i + 1]) for i in range(LAYERS)])
    else:
        b.decoder_body("input_ids", "zero", None, cross, None)
    inputs = [helper.make_tensor_value_info("input_ids", TensorProto.INT32, ["batch", 1 if one_token else "seq"])]
    if hidden_input:
        inputs.append(helper.make_tensor_value_info("encoder_hidden_states", TensorProto.FLOAT,
                                                    ["batch", FRAMES, EMBED]))
    inputs += [kv_info(n, "past") for n in selfs] + [kv_info(n, FRAMES) for n in crosses]
    outputs = [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", "seq", VOCAB])]
    outputs += [kv_info(n, "total") for n in self_names("present")]
    return helper.make_graph(b.nodes, "decoder", inputs, outputs, b.inits)


WHISPER_INPUTS = ["input_ids", "max_length", "min_length", "num_beams", "num_return_sequences", "length_penalty",
                  "repetition_penalty", "vocab_mask", "prefix_vocab_mask", "attention_mask", "decoder_input_ids",
                  "logits_processor", "cross_qk_layer_head", "extra_decoding_ids", "temperature"]


def whisper_model(feeds, attrs, outputs=("sequences", "sequences_scores", "scores"), seed=5, one_token=True,
                  hidden_input=True):
    w = weights(seed)
    present = [n for n in WHISPER_INPUTS if n in feeds]
    last = max(WHISPER_INPUTS.index(n) for n in present)
    node_inputs = [n if n in feeds else "" for n in WHISPER_INPUTS[:last + 1]]
    node = helper.make_node("WhisperBeamSearch", node_inputs, list(outputs), name="whisper", domain=MS,
                            encoder=encoder_graph(w), decoder=decoder_graph(w, one_token, hidden_input),
                            **{"model_type": 2, **attrs})
    inputs = [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(feeds[n].dtype), feeds[n].shape)
              for n in present]
    types = {"sequences": TensorProto.INT32, "sequences_scores": TensorProto.FLOAT, "scores": TensorProto.FLOAT,
             "cross_qk": TensorProto.FLOAT, "non_speech_probs": TensorProto.FLOAT}
    outs = [helper.make_tensor_value_info(o, types[o], None) for o in outputs if o]
    graph = helper.make_graph([node], "whisper_beam_search", inputs, outs)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid(MS, 1)])
    model.ir_version = 8
    return model
