"""Writes ONNX backend test-case folders for onnxruntime's generation operators (issue #41): GreedySearch and
BeamSearch nodes around a tiny GPT-2 style decoder built here with onnx.helper (random weights; inputs input_ids, position_ids,
attention_mask, past_0..past_{L-1}; outputs logits, present_0..), with the expected sequences computed by
onnxruntime (pinned in scripts/test-requirements.txt, CPU provider). Also models whose generation node onnxscope
refuses, with the substrings its error must hold (run by check_refusals.py).

    <test venv python> make_generation_cases.py <output dir> [group ...]

Needs onnx, onnxruntime and numpy; no torch.
"""

import json
import os
import shutil
import sys

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import whisper_generation as W  # noqa: E402

MS = "com.microsoft"
VOCAB, HEADS, HEAD_SIZE, LAYERS = 48, 2, 8, 2
EMBED = HEADS * HEAD_SIZE


def decoder_graph(seed, name="decoder", logits_bias=None):
    """A GPT-2 style decoder: token + position embeddings, LAYERS pre-residual attention blocks with past state
    ([2, batch, heads, past, head_size]) and a tanh MLP, then the vocabulary projection (plus `logits_bias`, a
    constant [batch, 1, vocab], if given)."""
    rng = np.random.default_rng(seed)
    inits = []

    def w(n, *shape, scale=0.5):
        inits.append(numpy_helper.from_array((rng.standard_normal(shape) * scale).astype(np.float32), n))
        return n

    def c(n, value, dtype=np.int64):
        inits.append(numpy_helper.from_array(np.asarray(value, dtype=dtype), n))
        return n

    nodes = []

    def node(op, ins, outs, **attrs):
        nodes.append(helper.make_node(op, ins, outs, name=outs[0], **attrs))  # named for breakpoints
        return outs[0]

    c("zero", 0), c("one_i", 1), c("one_f", 1.0, np.float32), c("neg", -10000.0, np.float32)
    c("bsed", [0, 0, HEADS, HEAD_SIZE]), c("bse", [0, 0, EMBED]), c("scale", 1.0 / np.sqrt(HEAD_SIZE), np.float32)
    te = node("Gather", [w("wte", VOCAB, EMBED, scale=1.0), "input_ids"], ["te"])
    pe = node("Gather", [w("wpe", 64, EMBED, scale=0.3), "position_ids"], ["pe"])
    x = node("Add", [te, pe], ["x0"])
    # The mask bias [B, 1, S, T]: padding from attention_mask, causality over the past and the new tokens.
    maskf = node("Cast", ["attention_mask"], ["maskf"], to=TensorProto.FLOAT)
    pad_bias = node("Mul", [node("Sub", ["one_f", maskf], ["inv_mask"]), "neg"], ["pad_bias"])
    pad_bias = node("Unsqueeze", [pad_bias, c("axes12", [1, 2])], ["pad_bias4"])
    s_len = node("Gather", [node("Shape", ["input_ids"], ["ids_shape"]), "one_i"], ["s_len"])
    t_len = node("Gather", [node("Shape", ["attention_mask"], ["mask_shape"]), "one_i"], ["t_len"])
    st = node("Concat", [node("Unsqueeze", [s_len, "zero"], ["s1"]), node("Unsqueeze", [t_len, "zero"], ["t1"])],
              ["st"], axis=0)
    ones = node("ConstantOfShape", [st], ["ones"], value=helper.make_tensor("v", TensorProto.FLOAT, [1], [1.0]))
    tri = node("Trilu", [ones, node("Sub", [t_len, s_len], ["diag"])], ["tri"], upper=0)
    causal = node("Mul", [node("Sub", ["one_f", tri], ["not_tri"]), "neg"], ["causal"])
    bias = node("Add", [pad_bias, causal], ["bias"])
    for layer in range(LAYERS):
        p = f"l{layer}_"

        def heads(t, n):
            r = node("Reshape", [t, "bsed"], [p + n + "_r"])
            return node("Transpose", [r], [p + n + "_t"], perm=[0, 2, 1, 3])

        q = heads(node("MatMul", [x, w(p + "wq", EMBED, EMBED)], [p + "q"]), "q")
        k = heads(node("MatMul", [x, w(p + "wk", EMBED, EMBED)], [p + "k"]), "k")
        v = heads(node("MatMul", [x, w(p + "wv", EMBED, EMBED)], [p + "v"]), "v")
        past = f"past_{layer}"
        pk = node("Gather", [past, "zero"], [p + "pk"], axis=0)
        pv = node("Gather", [past, "one_i"], [p + "pv"], axis=0)
        kk = node("Concat", [pk, k], [p + "kk"], axis=2)
        vv = node("Concat", [pv, v], [p + "vv"], axis=2)
        node("Concat", [node("Unsqueeze", [kk, "zero"], [p + "k5"]), node("Unsqueeze", [vv, "zero"], [p + "v5"])],
             [f"present_{layer}"], axis=0)
        scores = node("Mul", [node("MatMul", [q, node("Transpose", [kk], [p + "kt"], perm=[0, 1, 3, 2])],
                                   [p + "qk"]), "scale"], [p + "scores"])
        probs = node("Softmax", [node("Add", [scores, bias], [p + "masked"])], [p + "probs"], axis=-1)
        ctx = node("Transpose", [node("MatMul", [probs, vv], [p + "ctx4"])], [p + "ctx_t"], perm=[0, 2, 1, 3])
        ctx = node("Reshape", [ctx, "bse"], [p + "ctx"])
        x = node("Add", [x, node("MatMul", [ctx, w(p + "wo", EMBED, EMBED)], [p + "attn"])], [p + "x1"])
        hidden = node("Tanh", [node("MatMul", [x, w(p + "w1", EMBED, 2 * EMBED)], [p + "h"])], [p + "ht"])
        x = node("Add", [x, node("MatMul", [hidden, w(p + "w2", 2 * EMBED, EMBED)], [p + "mlp"])], [p + "x2"])
    if logits_bias is None:
        node("MatMul", [x, w("lm_head", EMBED, VOCAB)], ["logits"])
    else:
        raw = node("MatMul", [x, w("lm_head", EMBED, VOCAB)], ["logits_raw"])
        node("Add", [raw, c("logits_bias", logits_bias, np.float32)], ["logits"])

    past_shape = [2, "batch", HEADS, "past_seq", HEAD_SIZE]
    present_shape = [2, "batch", HEADS, "total_seq", HEAD_SIZE]
    inputs = [helper.make_tensor_value_info("input_ids", TensorProto.INT32, ["batch", "seq"]),
              helper.make_tensor_value_info("position_ids", TensorProto.INT32, ["batch", "seq"]),
              helper.make_tensor_value_info("attention_mask", TensorProto.INT32, ["batch", "total_seq"])]
    inputs += [helper.make_tensor_value_info(f"past_{i}", TensorProto.FLOAT, past_shape) for i in range(LAYERS)]
    outputs = [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", "seq", VOCAB])]
    outputs += [helper.make_tensor_value_info(f"present_{i}", TensorProto.FLOAT, present_shape) for i in range(LAYERS)]
    return helper.make_graph(nodes, name, inputs, outputs, inits)


INPUT_NAMES = ["input_ids", "max_length", "min_length", "repetition_penalty", "vocab_mask", "prefix_vocab_mask",
               "attention_mask"]


SAMPLING_INPUTS = INPUT_NAMES + ["presence_mask", "seed"]


def greedy_model(feeds, attrs, decoder_seed=1, init_decoder_seed=None, op="GreedySearch", logits_bias=None):
    """A GreedySearch (or Sampling) node over the decoder; `feeds` holds the inputs given (by SAMPLING_INPUTS
    name)."""
    present = [n for n in SAMPLING_INPUTS if n in feeds]
    last = max(SAMPLING_INPUTS.index(n) for n in present)
    node_inputs = [n if n in feeds else "" for n in SAMPLING_INPUTS[:last + 1]]
    graph_attrs = {"decoder": decoder_graph(decoder_seed, logits_bias=logits_bias)}
    if init_decoder_seed is not None:
        graph_attrs["init_decoder"] = decoder_graph(init_decoder_seed, "init_decoder")
    node = helper.make_node(op, node_inputs, ["sequences"], name="greedy" if op == "GreedySearch" else "sampling",
                            domain=MS,
                            **graph_attrs, **attrs)
    inputs = [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(feeds[n].dtype), feeds[n].shape)
              for n in present]
    out = helper.make_tensor_value_info("sequences", TensorProto.INT32, None)
    graph = helper.make_graph([node], "greedy_search", inputs, [out])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid(MS, 1)])
    model.ir_version = 8
    return model


BEAM_INPUTS = ["input_ids", "max_length", "min_length", "num_beams", "num_return_sequences", "length_penalty",
               "repetition_penalty", "vocab_mask", "prefix_vocab_mask", "attention_mask"]


def beam_model(feeds, attrs, outputs=("sequences", "sequences_scores", "scores"), init_decoder_seed=None):
    """A BeamSearch node over the decoder; `feeds` holds the inputs given (by BEAM_INPUTS name)."""
    present = [n for n in BEAM_INPUTS if n in feeds]
    last = max(BEAM_INPUTS.index(n) for n in present)
    node_inputs = [n if n in feeds else "" for n in BEAM_INPUTS[:last + 1]]
    graph_attrs = {"decoder": decoder_graph(1)}
    if init_decoder_seed is not None:
        graph_attrs["init_decoder"] = decoder_graph(init_decoder_seed, "init_decoder")
    node = helper.make_node("BeamSearch", node_inputs, list(outputs), name="beam", domain=MS, **graph_attrs, **attrs)
    inputs = [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(feeds[n].dtype), feeds[n].shape)
              for n in present]
    types = {"sequences": TensorProto.INT32, "sequences_scores": TensorProto.FLOAT, "scores": TensorProto.FLOAT}
    outs = [helper.make_tensor_value_info(o, types[o], None) for o in outputs if o]
    graph = helper.make_graph([node], "beam_search", inputs, outs)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid(MS, 1)])
    model.ir_version = 8
    return model


def run_ort(model, feeds):
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    return session.run(None, feeds)


def i32(*values):
    return np.array(values, dtype=np.int32)


def write_outputs(out_dir, group, name, model, feeds, results):
    case_dir = os.path.join(out_dir, group, name)
    shutil.rmtree(case_dir, ignore_errors=True)
    data_dir = os.path.join(case_dir, "test_data_set_0")
    os.makedirs(data_dir)
    for o, r in zip(model.graph.output, results):
        o.CopyFrom(helper.make_tensor_value_info(o.name, o.type.tensor_type.elem_type, r.shape))
    onnx.save(model, os.path.join(case_dir, "model.onnx"))
    for index, vi in enumerate(model.graph.input):
        onnx.save_tensor(numpy_helper.from_array(feeds[vi.name], vi.name), os.path.join(data_dir, f"input_{index}.pb"))
    for index, (o, r) in enumerate(zip(model.graph.output, results)):
        onnx.save_tensor(numpy_helper.from_array(r, o.name), os.path.join(data_dir, f"output_{index}.pb"))


def write_case(out_dir, group, name, model, feeds, pad=None):
    (sequences,) = run_ort(model, feeds)
    if pad is not None:
        # When every row has finished, onnxruntime stops and leaves the columns after the last one it wrote (all
        # pad_token_id) unwritten: whatever its buffer held. onnxscope fills them with pad_token_id; the expected
        # output says so. Only for cases whose pad_token_id the decoder never generates by itself.
        prompt = feeds["input_ids"].shape[1]
        done = [c for c in range(prompt, sequences.shape[1]) if (sequences[:, c] == pad).all()]
        if done:
            sequences[:, done[0] + 1:] = pad
    case_dir = os.path.join(out_dir, group, name)
    shutil.rmtree(case_dir, ignore_errors=True)
    data_dir = os.path.join(case_dir, "test_data_set_0")
    os.makedirs(data_dir)
    model.graph.output[0].CopyFrom(helper.make_tensor_value_info("sequences", TensorProto.INT32, sequences.shape))
    onnx.save(model, os.path.join(case_dir, "model.onnx"))
    for index, vi in enumerate(model.graph.input):
        onnx.save_tensor(numpy_helper.from_array(feeds[vi.name], vi.name), os.path.join(data_dir, f"input_{index}.pb"))
    onnx.save_tensor(numpy_helper.from_array(sequences, "sequences"), os.path.join(data_dir, "output_0.pb"))
    return sequences


def greedy_cases(out_dir):
    rng = np.random.default_rng(41)
    prompt = rng.integers(1, VOCAB, size=(1, 5)).astype(np.int32)
    batch = rng.integers(1, VOCAB, size=(3, 4)).astype(np.int32)
    padded = batch.copy()
    padded[0, :2] = 0  # left padding with pad_token_id 0
    base = {"eos_token_id": VOCAB - 1, "pad_token_id": 0}

    def case(name, feeds, attrs=None, **kw):
        model = greedy_model(feeds, {**base, **(attrs or {})}, **kw)
        return write_case(out_dir, "greedy", name, model, feeds)

    case("basic", {"input_ids": prompt, "max_length": i32(14)})
    plain = case("batch", {"input_ids": batch, "max_length": i32(12)})
    case("padded_prompt", {"input_ids": padded, "max_length": i32(12)})
    case("attention_mask", {"input_ids": batch, "max_length": i32(12),
                            "attention_mask": np.array([[0, 1, 1, 1], [1, 1, 1, 1], [0, 0, 1, 1]], np.int32)})
    case("repetition_penalty", {"input_ids": batch, "max_length": i32(14), "repetition_penalty": np.array([1.7], np.float32)})
    case("no_repeat_ngram", {"input_ids": batch, "max_length": i32(16)}, {"no_repeat_ngram_size": 2})
    case("no_repeat_unigram", {"input_ids": prompt, "max_length": i32(16)}, {"no_repeat_ngram_size": 1})
    mask = np.ones(VOCAB, np.int32)
    mask[np.unique(plain[:, 4:7])] = 0
    case("vocab_mask", {"input_ids": batch, "max_length": i32(12), "vocab_mask": mask})
    prefix = np.ones((3, VOCAB), np.int32)
    prefix[np.arange(3), plain[:, 4]] = 0
    case("prefix_vocab_mask", {"input_ids": batch, "max_length": i32(12), "prefix_vocab_mask": prefix})
    case("init_decoder", {"input_ids": batch, "max_length": i32(10)}, init_decoder_seed=7)
    # eos: the token row 1 generates third, so that row stops early and the others go on; then min_length holding
    # it back; then an eos every row generates first (all rows finish, the search stops before max_length).
    eos = int(plain[1, 6])
    case("eos_one_row", {"input_ids": batch, "max_length": i32(12)}, {"eos_token_id": eos})
    case("min_length", {"input_ids": batch, "max_length": i32(12), "min_length": i32(9)}, {"eos_token_id": eos})
    # pad_token_id: a token the decoder does not generate for this prompt, so the stop column is plain to see.
    unused = int(np.setdiff1d(np.arange(1, VOCAB), plain[0])[0])
    model = greedy_model({"input_ids": batch[:1], "max_length": i32(12)},
                         {"eos_token_id": int(plain[0, 6]), "pad_token_id": unused})
    stopped = write_case(out_dir, "greedy", "eos_all_rows", model, {"input_ids": batch[:1], "max_length": i32(12)},
                         pad=unused)
    assert (stopped[0, 6:] == unused).all(), stopped


def sampling_cases(out_dir):
    """Sampling with top_p so small that only the most probable token survives the filter: a draw that any random
    stream makes the same, so onnxruntime's sequences are the reference (seeded draws of a wider nucleus cannot match
    onnxruntime's random stream; tests/python/test_generation_sampling.py checks their statistics instead)."""
    rng = np.random.default_rng(43)
    batch = rng.integers(1, VOCAB, size=(3, 4)).astype(np.int32)
    base = {"eos_token_id": VOCAB - 1, "pad_token_id": 0, "top_p": 0.01}

    def case(name, feeds, attrs=None):
        model = greedy_model(feeds, {**base, **(attrs or {})}, op="Sampling")
        write_case(out_dir, "sampling", name, model, feeds)

    seed = {"seed": i32(7)}
    case("top_p_small", {"input_ids": batch, "max_length": i32(12), **seed})
    case("top_p_small_unseeded", {"input_ids": batch, "max_length": i32(12)})
    case("custom", {"input_ids": batch, "max_length": i32(12), **seed}, {"custom": 1})
    case("temperature", {"input_ids": batch, "max_length": i32(12), **seed}, {"temperature": 0.7})
    case("min_tokens_to_keep_1", {"input_ids": batch, "max_length": i32(12), **seed}, {"min_tokens_to_keep": 1})
    # presence_penalty: each score minus presence_penalty * presence_mask. onnxruntime 1.32 subtracts them all from
    # the batch's first score only (its pointer does not advance), so the reference is onnxruntime's GreedySearch
    # over the same decoder with the penalty added to its logits as a constant.
    presence = np.zeros((3, VOCAB), np.int32)
    presence[:, ::3] = 1
    presence[1, 1::3] = 1
    feeds = {"input_ids": batch, "max_length": i32(12), "presence_mask": presence, **seed}
    model = greedy_model(feeds, {**base, "presence_penalty": 2.0}, op="Sampling")
    reference = greedy_model({"input_ids": batch, "max_length": i32(12)}, {"eos_token_id": VOCAB - 1, "pad_token_id": 0},
                             logits_bias=(-2.0 * presence[:, None, :]).astype(np.float32))
    (expected,) = run_ort(reference, {"input_ids": batch, "max_length": i32(12)})
    (plain,) = run_ort(greedy_model({"input_ids": batch, "max_length": i32(12)},
                                    {"eos_token_id": VOCAB - 1, "pad_token_id": 0}), {"input_ids": batch, "max_length": i32(12)})
    assert not np.array_equal(expected, plain), "the presence penalty should change the sequences"
    write_outputs(out_dir, "sampling", "presence_penalty", model, feeds, [expected])
    case("repetition_no_repeat", {"input_ids": batch, "max_length": i32(14), "min_length": i32(8),
                                  "repetition_penalty": np.array([1.4], np.float32), **seed},
         {"no_repeat_ngram_size": 2})


def beam_cases(out_dir):
    rng = np.random.default_rng(42)
    prompt = rng.integers(1, VOCAB, size=(1, 4)).astype(np.int32)
    batch = rng.integers(1, VOCAB, size=(2, 3)).astype(np.int32)
    base = {"eos_token_id": VOCAB - 1, "pad_token_id": 0}

    def case(name, feeds, attrs=None, outputs=("sequences", "sequences_scores", "scores"), **kw):
        model = beam_model(feeds, {**base, **(attrs or {})}, outputs, **kw)
        results = run_ort(model, feeds)
        write_outputs(out_dir, "beam", name, model, feeds, results)
        return results

    def beams(n, r=1, length=10, ids=batch, **more):
        # length_penalty always: onnxruntime's type inference takes the scores' type from it; min_length always:
        # onnxruntime 1.32 checks input 2 as the required max_length (its indices of the two are swapped).
        return {"input_ids": ids, "max_length": i32(length), "min_length": i32(0), "num_beams": i32(n),
                "num_return_sequences": i32(r), "length_penalty": np.array([1.0], np.float32), **more}

    case("one_beam", beams(1, ids=prompt))
    case("four_beams", beams(4, ids=prompt))
    case("batch_three_beams_two_returns", beams(3, 2))
    case("length_penalty", beams(3, 3, length_penalty=np.array([0.6], np.float32)))
    case("repetition_penalty", beams(3, 2, repetition_penalty=np.array([1.5], np.float32)))
    case("no_repeat_ngram", beams(3, 2, length=12), {"no_repeat_ngram_size": 2})
    case("sequences_only", beams(2, 2), outputs=("sequences",))
    case("init_decoder", beams(3, 2, length=8), init_decoder_seed=7)
    mask = np.ones(VOCAB, np.int32)
    mask[::5] = 0
    case("vocab_mask", beams(3, 1, vocab_mask=mask))
    prefix = np.ones((2, VOCAB), np.int32)
    prefix[:, 1::2] = 0
    case("prefix_vocab_mask", beams(2, 2, prefix_vocab_mask=prefix))
    padded = batch.copy()
    padded[1, 0] = 0
    case("padded_prompt", beams(2, 2, ids=padded))
    case("attention_mask", beams(2, 1, attention_mask=np.array([[1, 1, 1], [0, 1, 1]], np.int32)))
    # eos: a token the beams reach, so hypotheses close before max_length: the tokens that a 4-beam search ranks
    # high in its scores (from a run without eos). Without and with early_stopping, and held back by min_length.
    # The scores output is left out: onnxruntime leaves its steps after an early stop unwritten.
    seqs = case("probe", beams(4, 4, length=12, ids=prompt))[0]
    for eos in (int(seqs[0, 0, 5]), int(seqs[0, 1, 6])):
        for early in (0, 1):
            case(f"eos_{eos}_early_{early}", beams(4, 3, length=12, ids=prompt), {"eos_token_id": eos,
                 "early_stopping": early}, outputs=("sequences", "sequences_scores"))
        case(f"eos_{eos}_min_length", beams(4, 2, length=12, ids=prompt, min_length=i32(9)),
             {"eos_token_id": eos}, outputs=("sequences", "sequences_scores"))
    seqs = case("probe_batch", beams(3, 3, length=10))[0]
    case("eos_batch", beams(3, 2, length=10), {"eos_token_id": int(seqs[1, 0, 4])},
         outputs=("sequences", "sequences_scores"))


def whisper_cases(out_dir):
    """WhisperBeamSearch around the tiny encoder-decoder of whisper_generation.py, against onnxruntime."""
    rng = np.random.default_rng(44)
    feats = rng.standard_normal((2, W.MELS, W.FRAMES)).astype(np.float32)
    start = np.array([[1, 2], [1, 3]], np.int32)
    base = {"eos_token_id": W.VOCAB - 1, "pad_token_id": 0, "decoder_start_token_id": 1}

    def case(name, feeds, attrs=None, outputs=("sequences", "sequences_scores", "scores"), **kw):
        model = W.whisper_model(feeds, {**base, **(attrs or {})}, outputs, **kw)
        results = run_ort(model, feeds)
        write_outputs(out_dir, "whisper", name, model, feeds, results)
        return results

    def beams(n, r=1, length=10, x=feats, ids=start, **more):
        feeds = {"input_ids": x, "max_length": i32(length), "min_length": i32(0), "num_beams": i32(n),
                 "num_return_sequences": i32(r), "length_penalty": np.array([1.0], np.float32), **more}
        if ids is not None:
            feeds["decoder_input_ids"] = ids
        return feeds

    case("batch_three_beams_two_returns", beams(3, 2))
    case("start_token", beams(4, 3, x=feats[:1], ids=None))
    case("one_beam", beams(1, 1))
    case("full_sequence_decoder", beams(3, 2), one_token=False)
    case("decoder_without_hidden_states", beams(2, 2), hidden_input=False)
    case("length_penalty", beams(3, 3, length_penalty=np.array([0.6], np.float32)))
    case("repetition_penalty", beams(3, 2, repetition_penalty=np.array([1.5], np.float32)))
    case("no_repeat_ngram", beams(3, 2, length=12), {"no_repeat_ngram_size": 2})
    case("sequences_only", beams(2, 2), outputs=("sequences",))
    for t in (0.5, 1.7):
        case(f"temperature_{t}", beams(3, 2, temperature=np.array([t], np.float32)))
    case("temperature_min_length", beams(3, 2, min_length=i32(6), temperature=np.array([0.5], np.float32)),
         outputs=("sequences", "sequences_scores"))
    mask = np.ones(W.VOCAB, np.int32)
    mask[::5] = 0
    case("vocab_mask", beams(3, 1, vocab_mask=mask))
    prefix = np.ones((2, W.VOCAB), np.int32)
    prefix[:, 1::2] = 0
    case("prefix_vocab_mask", beams(2, 2, prefix_vocab_mask=prefix))
    # eos: tokens a 4-beam search reaches (from a run without eos), so hypotheses close before max_length; without
    # and with early_stopping, and held back by min_length. No scores output: onnxruntime leaves its steps after an
    # early stop unwritten.
    seqs = case("probe", beams(4, 4, length=12))[0]
    for eos in sorted({int(seqs[0, 0, 4]), int(seqs[1, 1, 5])}):
        for early in (0, 1):
            case(f"eos_{eos}_early_{early}", beams(4, 3, length=12), {"eos_token_id": eos, "early_stopping": early},
                 outputs=("sequences", "sequences_scores"))
        case(f"eos_{eos}_min_length", beams(4, 2, length=12, min_length=i32(8)), {"eos_token_id": eos},
             outputs=("sequences", "sequences_scores"))


REFUSALS = {}


def refusal(out_dir, name, model, messages):
    folder = os.path.join(out_dir, "refused")
    os.makedirs(folder, exist_ok=True)
    onnx.save(model, os.path.join(folder, name + ".onnx"))
    REFUSALS[name] = messages


def refusal_cases(out_dir):
    feeds = {"input_ids": i32(1, 2).reshape(1, 2), "max_length": i32(6)}
    base = {"eos_token_id": 1, "pad_token_id": 0}
    refusal(out_dir, "greedy_model_type", greedy_model(feeds, {**base, "model_type": 1}),
            ['"greedy"', "'model_type'", "model_type 0"])
    m = greedy_model(feeds, base)
    m.graph.node[0].attribute.append(helper.make_attribute("encoder", decoder_graph(3, "encoder")))
    refusal(out_dir, "greedy_encoder", m, ['"greedy"', "'encoder'", "model_type 0"])
    m = greedy_model(feeds, base)
    dec = [a for a in m.graph.node[0].attribute if a.name == "decoder"][0].g
    dec.input[1].name = "positions"
    for n in dec.node:
        for i, name in enumerate(n.input):
            if name == "position_ids":
                n.input[i] = "positions"
    refusal(out_dir, "greedy_decoder_inputs", m, ['"greedy"', "'decoder'", "position_ids"])
    bfeeds = {"input_ids": i32(1, 2).reshape(1, 2), "max_length": i32(6), "min_length": i32(0), "num_beams": i32(2),
              "num_return_sequences": i32(1), "length_penalty": np.array([1.0], np.float32)}
    refusal(out_dir, "beam_model_type", beam_model(bfeeds, {**base, "model_type": 2}),
            ['"beam"', "'model_type'", "model_type 0"])
    m = beam_model(bfeeds, base)
    m.graph.node[0].input.extend(["", "", "", "", "decoder_input_ids"])
    m.graph.input.append(helper.make_tensor_value_info("decoder_input_ids", TensorProto.INT32, [1, 1]))
    refusal(out_dir, "beam_decoder_input_ids", m, ['"beam"', "'decoder_input_ids'", "model_type 0"])
    # A decoder for DecoderMaskedSelfAttention's shared buffer with cache indirection (beam_width,
    # cache_indirection inputs) is not implemented: refused at load, naming the input.
    m = beam_model(bfeeds, base)
    dec = [a for a in m.graph.node[0].attribute if a.name == "decoder"][0].g
    dec.input.extend([helper.make_tensor_value_info("past_sequence_length", TensorProto.INT32, [1]),
                      helper.make_tensor_value_info("beam_width", TensorProto.INT32, [1]),
                      helper.make_tensor_value_info("cache_indirection", TensorProto.INT32, None)])
    refusal(out_dir, "beam_decoder_cache_indirection", m, ['"beam"', "'decoder'", "beam_width", "not supported"])
    m = greedy_model({**feeds, "seed": i32(1)}, base, op="Sampling")
    m.graph.node[0].output.append("filtered_logits")
    m.graph.output.append(helper.make_tensor_value_info("filtered_logits", TensorProto.FLOAT, None))
    refusal(out_dir, "sampling_filtered_logits", m, ['"sampling"', "'filtered_logits'"])
    # WhisperBeamSearch: what is not implemented here is refused, naming the node and the attribute/input/output.
    # The feeds are initializers, so the run-time checks see these values.
    wfeeds = {"input_ids": np.zeros((1, W.MELS, W.FRAMES), np.float32), "max_length": i32(6), "min_length": i32(0),
              "num_beams": i32(2), "num_return_sequences": i32(1), "length_penalty": np.array([1.0], np.float32)}
    wbase = {"eos_token_id": 1, "pad_token_id": 0, "decoder_start_token_id": 2}

    def whisper_refusal(name, messages, feeds=None, attrs=None, outputs=("sequences",)):
        feeds = {**wfeeds, **(feeds or {})}
        m = W.whisper_model(feeds, {**wbase, **(attrs or {})}, outputs)
        m.graph.initializer.extend(numpy_helper.from_array(v, k) for k, v in feeds.items())
        del m.graph.input[:]
        refusal(out_dir, name, m, ['"whisper"'] + messages)

    whisper_refusal("whisper_model_type", ["'model_type'", "model_type 2"], attrs={"model_type": 1})
    whisper_refusal("whisper_cross_qk_attr", ["'decoder_output_cross_qk'", "not supported"],
                    attrs={"decoder_output_cross_qk": 1})
    whisper_refusal("whisper_cross_qk_output", ["'cross_qk'", "not supported"],
                    outputs=("sequences", "", "", "cross_qk"))
    whisper_refusal("whisper_non_speech_probs", ["'non_speech_probs'", "not supported"],
                    attrs={"no_speech_token_id": 3}, outputs=("sequences", "", "", "", "non_speech_probs"))
    whisper_refusal("whisper_logits_processor", ["'logits_processor'", "only 0"],
                    feeds={"logits_processor": i32(1)})
    whisper_refusal("whisper_cross_qk_layer_head", ["'cross_qk_layer_head'", "not supported"],
                    feeds={"cross_qk_layer_head": np.zeros((1, 2), np.int32)})
    whisper_refusal("whisper_extra_decoding_ids", ["'extra_decoding_ids'", "not supported"],
                    feeds={"extra_decoding_ids": np.zeros((1, 1), np.int32)})
    m = W.whisper_model(wfeeds, wbase)
    dec = [a for a in m.graph.node[0].attribute if a.name == "decoder"][0].g
    dec.input.append(helper.make_tensor_value_info("past_sequence_length", TensorProto.INT32, [1]))
    refusal(out_dir, "whisper_shared_buffer", m, ['"whisper"', "'decoder'", "past_sequence_length", "not supported"])
    with open(os.path.join(out_dir, "refused", "expected.json"), "w") as f:
        json.dump(REFUSALS, f, indent=1)


def main():
    out_dir = sys.argv[1]
    only = set(sys.argv[2:])
    os.makedirs(out_dir, exist_ok=True)
    if not only or "greedy" in only:
        greedy_cases(out_dir)
    if not only or "beam" in only:
        beam_cases(out_dir)
    if not only or "sampling" in only:
        sampling_cases(out_dir)
    if not only or "whisper" in only:
        whisper_cases(out_dir)
    if not only or "refused" in only:
        shutil.rmtree(os.path.join(out_dir, "refused"), ignore_errors=True)
        refusal_cases(out_dir)
    print("written", out_dir)


if __name__ == "__main__":
    main()
