"""Writes whole models in which the "rest of the list" com.microsoft operators of issue #41 work together as real
pipelines use them, with seeded weights, in ONNX's backend test-case layout with onnxruntime's outputs:

- text_featurizer: a sentence through Tokenizer, MurmurHash3 (hashing trick), Unique (bag of hashed buckets with
  counts), an embedding bag; the words' character ids through WordConvEmbedding; ExpandDims and a Gemm classifier.
- ngram_greedy_loop: a greedy decoding Loop over a bigram model whose body bans repeated bigrams with
  NGramRepeatBlock and follows the prompt-copy state of speculative decoding with BifurcationDetector.
- whisper_alignment: Whisper's word-timestamp alignment: softmaxed cross-attention weights normalized per frame, a
  median filter of width 7 built from Pad + UnfoldTensor + TopK, averaged over heads, DynamicTimeWarping's path.
- mahalanobis: covariance of samples, com.microsoft Inverse (single and batched through ExpandDims), Mahalanobis
  distances, and a causal score matrix masked with com.microsoft Trilu.
- attn_seq2seq: a Bahdanau sequence-to-sequence step: an LSTM encoder whose outputs are the memory of an AttnLSTM
  decoder (attention layer AW, memory_seq_lens), then a vocabulary projection.

    <test venv python> make_rest_models.py <output dir>

Also writes <output dir>/ops.json (each model's operators) for check_whole_models.py. Needs onnx, onnxruntime and
numpy; no torch.
"""

import os
import sys

import numpy as np
from onnx import TensorProto, helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import case_writer  # noqa: E402
from graph_builder import MS, GraphBuilder, generate_models, op_set, write_case  # noqa: E402

F32 = np.float32


def text_featurizer(out_dir, ops):
    g = GraphBuilder("text_featurizer")
    buckets, dim, filters, chars, classes = 40, 8, 6, 30, 3
    text = g.input("text", np.array([""], dtype=object), [1])
    char_ids = g.input("char_ids", np.zeros((1, 8), np.int32), ["words", 8])
    tokens = g.op("Tokenizer", [text], domain=MS, name="tokenize", mark=0, mincharnum=1, pad_value="#",
                  separators=[" "])
    flat = g.op("Reshape", [tokens, g.const_i64("flat", [-1])], name="tokens_flat")
    hashed = g.op("MurmurHash3", [flat], ["hashes"], domain=MS, name="hash", seed=17, positive=1)
    bucket = g.op("Mod", [g.op("Cast", [hashed], name="hash_int64", to=TensorProto.INT64),
                          g.const_i64("buckets", buckets)], ["buckets_of_tokens"], name="bucket")
    uy, uidx, counts = g.op("Unique", [g.op("Cast", [bucket], name="bucket_float", to=TensorProto.FLOAT)],
                            ["unique_buckets", "token_to_unique", "bucket_counts"], domain=MS, name="unique_buckets")
    rows = g.op("Gather", [g.weight("bucket_embedding", buckets, dim, scale=1.0),
                           g.op("Cast", [uy], name="unique_int64", to=TensorProto.INT64)], name="embedding_rows", axis=0)
    weights = g.op("Unsqueeze", [g.op("Cast", [counts], name="counts_float", to=TensorProto.FLOAT),
                                 g.const_i64("axis1", [1])], name="counts_column")
    bag = g.op("ReduceSum", [g.op("Mul", [rows, weights], name="weighted_rows"), g.const_i64("axis0", [0])],
               ["bag"], name="embedding_bag", keepdims=0)
    words = g.op("WordConvEmbedding", [char_ids, g.weight("char_conv.W", filters, 1, 3, 5, scale=0.5),
                                       g.weight("char_conv.B", filters, scale=0.3),
                                       g.weight("char_embedding", chars, 5, scale=1.0)],
                 ["word_vectors"], domain=MS, name="char_cnn", embedding_size=filters, conv_window_size=3,
                 char_embedding_size=5)
    pooled = g.op("ReduceMax", [words, g.const_i64("axis0", [0])], name="word_max_pool", keepdims=0)
    feature = g.op("Concat", [bag, pooled], ["features"], name="features", axis=0)
    row = g.op("ExpandDims", [feature, g.init("expand_axis", np.array(0, np.int32))], domain=MS, name="batch_axis")
    logits = g.op("Gemm", [row, g.weight("classifier.W", dim + filters, classes), g.weight("classifier.b", classes)],
                  name="classifier")
    g.op("Softmax", [logits], ["probabilities"], name="softmax", axis=-1)
    model = g.model([("probabilities", F32), ("unique_buckets", F32), ("token_to_unique", np.int64),
                     ("bucket_counts", np.int64), ("hashes", np.uint32), ("bag", F32), ("word_vectors", F32)])
    names = [o.name for o in model.graph.output]
    r = np.random.default_rng(51)
    for case, sentence, lengths in (
            ("text_featurizer_sentence", "the cat sat on the mat and the dog sat on the log", (3, 3, 3, 2, 3)),
            ("text_featurizer_repeats", "onnx onnx runtime onnx debugger steps steps", (4, 4, 7, 4, 8, 5, 5))):
        ids = np.zeros((len(lengths), 8), np.int32)
        for w, n in enumerate(lengths):
            ids[w, :n] = r.integers(1, chars, n)
        feeds = {"text": np.array([sentence], dtype=object), "char_ids": ids}
        write_case(out_dir, case, model, feeds, names)
        ops[case] = op_set(model)


def ngram_greedy_loop(out_dir, ops):
    vocab = 12
    r = np.random.default_rng(52)
    bigram = r.standard_normal((vocab, vocab)).astype(F32)
    for a in range(vocab):
        bigram[a, (a + 1) % 3] += 6.0  # a strong cycle 0 -> 1 -> 2 -> 0 that the ban must break
    body = GraphBuilder("greedy_step", seed_name="ngram_body")
    it = helper.make_tensor_value_info("iteration", TensorProto.INT64, [])
    cond = helper.make_tensor_value_info("cond_in", TensorProto.BOOL, [])
    ids_in = helper.make_tensor_value_info("ids_in", TensorProto.INT64, [1, "t"])
    match_in = helper.make_tensor_value_info("match_in", TensorProto.INT64, [])
    last = body.op("Gather", ["ids_in", body.init("last_index", np.array([-1], np.int64))], name="last_token", axis=1)
    scores = body.op("Gather", [body.init("bigram_logits", bigram),
                                body.op("Reshape", [last, body.const_i64("flat", [-1])], name="last_flat")],
                     name="bigram_scores", axis=0)
    blocked = body.op("NGramRepeatBlock", ["ids_in", scores], domain=MS, name="ban_repeated_bigrams", ngram_size=2)
    nxt = body.op("ArgMax", [blocked], ["next_token"], name="pick", axis=-1, keepdims=1)
    body.op("Concat", ["ids_in", nxt], ["ids_out"], name="append", axis=1)
    cur = body.op("Reshape", ["ids_out", body.const_i64("flat", [-1])], name="ids_flat")
    body.op("BifurcationDetector", ["src_tokens", cur, "match_in"], ["bif_tokens", "match_out"], domain=MS,
            name="suffix_match", min_ngram_size=1, max_ngram_size=3)
    body.op("Identity", ["cond_in"], ["cond_out"], name="keep_going")
    body.op("ReduceMax", [blocked, body.const_i64("last_axis", [-1])], ["best_score"], name="best_score", keepdims=0)
    body_graph = helper.make_graph(
        body.nodes, "greedy_step", [it, cond, ids_in, match_in],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("ids_out", TensorProto.INT64, [1, None]),
         helper.make_tensor_value_info("match_out", TensorProto.INT64, []),
         helper.make_tensor_value_info("next_token", TensorProto.INT64, [1, 1]),
         helper.make_tensor_value_info("best_score", TensorProto.FLOAT, [1])], body.inits)
    g = GraphBuilder("ngram_greedy_loop")
    g.input("prompt", np.zeros((1, 1), np.int64), [1, "prompt"])
    g.input("src_tokens", np.zeros(1, np.int64), ["source"])
    g.input("steps", np.array(1, np.int64), [])
    g.op("Loop", ["steps", "", "prompt", g.init("match_start", np.array(0, np.int64))],
         ["sequence", "suffix_match_idx", "step_tokens", "step_scores"], name="greedy_loop", body=body_graph)
    model = g.model([("sequence", np.int64), ("suffix_match_idx", np.int64), ("step_tokens", np.int64),
                     ("step_scores", F32)])
    names = [o.name for o in model.graph.output]
    for case, prompt, src, steps in (("ngram_greedy_loop_cycle", [0, 1], [5, 0, 1, 2, 7, 3], 9),
                                     ("ngram_greedy_loop_copy", [4], [4, 5, 9, 1, 2, 0, 1, 8], 12)):
        feeds = {"prompt": np.array([prompt], np.int64), "src_tokens": np.array(src, np.int64),
                 "steps": np.array(steps, np.int64)}
        write_case(out_dir, case, model, feeds, names)
        ops[case] = op_set(model)


def whisper_alignment(out_dir, ops):
    g = GraphBuilder("whisper_alignment")
    width = 7
    qk = g.input("cross_qk", np.zeros((1, 4, 6, 20), F32), [1, "heads", "tokens", "frames"])
    weights = g.op("Softmax", [qk], name="attention_weights", axis=-1)
    mean = g.op("ReduceMean", [weights, g.const_i64("token_axis", [-2])], name="frame_mean", keepdims=1)
    centred = g.op("Sub", [weights, mean], name="centre")
    var = g.op("ReduceMean", [g.op("Mul", [centred, centred], name="square"), g.const_i64("token_axis", [-2])],
               name="frame_variance", keepdims=1)
    std = g.op("Sqrt", [g.op("Add", [var, g.init("eps", np.array(1e-6, F32))], name="variance_eps")], name="frame_std")
    normed = g.op("Div", [centred, std], name="standardize")
    half = width // 2
    padded = g.op("Pad", [normed, g.const_i64("pads", [half, half]), "", g.const_i64("frame_axis", [-1])],
                  name="reflect_pad", mode="reflect")
    windows = g.op("UnfoldTensor", [padded], ["windows"], domain=MS, name="median_windows", dim=-1, size=width,
                   step=1)
    top = g.op("TopK", [windows, g.const_i64("median_k", [half + 1])], 2, name="upper_half", axis=-1)[0]
    median = g.op("ReduceMin", [top, g.const_i64("window_axis", [-1])], ["median_filtered"], name="median",
                  keepdims=0)
    matrix = g.op("ReduceMean", [median, g.const_i64("head_axis", [1])], ["alignment_matrix"], name="head_mean",
                  keepdims=0)
    g.op("DynamicTimeWarping", [g.op("Neg", [matrix], name="cost")], ["path"], domain=MS, name="dtw")
    model = g.model([("path", np.int32), ("alignment_matrix", F32), ("median_filtered", F32), ("windows", F32)])
    names = [o.name for o in model.graph.output]
    r = np.random.default_rng(53)
    for case, heads, tokens, frames in (("whisper_alignment_6x20", 4, 6, 20), ("whisper_alignment_9x33", 2, 9, 33)):
        # a diagonal trend (token i attends near frame i * frames / tokens) under noise, as real alignments look
        trend = np.array([[-((f - (i + 0.5) * frames / tokens) ** 2) / 8.0 for f in range(frames)]
                          for i in range(tokens)])
        feeds = {"cross_qk": (trend[None, None] + r.standard_normal((1, heads, tokens, frames))).astype(F32)}
        write_case(out_dir, case, model, feeds, names)
        ops[case] = op_set(model)


def mahalanobis(out_dir, ops):
    g = GraphBuilder("mahalanobis")
    d = 4
    x = g.input("samples", np.zeros((1, d), F32), ["n", d])
    q = g.input("queries", np.zeros((1, d), F32), ["m", d])
    mu = g.op("ReduceMean", [x, g.const_i64("sample_axis", [0])], name="mean", keepdims=1)
    xc = g.op("Sub", [x, mu], name="centre_samples")
    n = g.op("Cast", [g.op("Gather", [g.op("Shape", [x], name="samples_shape"), g.const_i64("zero", 0)],
                           name="sample_count", axis=0)], name="sample_count_float", to=TensorProto.FLOAT)
    scatter = g.op("MatMul", [g.op("Transpose", [xc], name="samples_t", perm=[1, 0]), xc], name="scatter")
    cov = g.op("Add", [g.op("Div", [scatter, g.op("Sub", [n, g.init("one", np.array(1.0, F32))], name="dof")],
                            name="covariance_raw"), g.init("ridge", (1e-3 * np.eye(d)).astype(F32))],
               ["covariance"], name="covariance")
    precision = g.op("Inverse", [cov], ["precision"], domain=MS, name="precision")
    qc = g.op("Sub", [q, mu], name="centre_queries")
    a = g.op("MatMul", [qc, precision], name="whitened")
    g.op("ReduceSum", [g.op("Mul", [a, qc], name="quadratic"), g.const_i64("feature_axis", [1])], ["distances"],
         name="mahalanobis", keepdims=0)
    scores = g.op("MatMul", [a, g.op("Transpose", [qc], name="queries_t", perm=[1, 0])], name="scores")
    causal = g.op("Trilu", [scores], domain=MS, name="causal_scores", upper=0)
    ones = g.op("Add", [g.op("Mul", [scores, g.init("zero_f", np.array(0.0, F32))], name="zeros_like"),
                        g.init("one_f", np.array(1.0, F32))], name="ones_like")
    future = g.op("Trilu", [ones, g.init("above", np.array(1, np.int64))], domain=MS, name="future_mask", upper=1)
    masked = g.op("Add", [causal, g.op("Mul", [future, g.init("neg_big", np.array(-1e4, F32))], name="mask_bias")],
                  name="masked_scores")
    g.op("Softmax", [masked], ["causal_attention"], name="attention", axis=-1)
    axis0 = g.init("axis0_i32", np.array(0, np.int32))
    stacked = g.op("Concat", [g.op("ExpandDims", [cov, axis0], domain=MS, name="cov_batch"),
                              g.op("ExpandDims", [g.op("Add", [cov, g.init("eye", np.eye(d, dtype=F32))],
                                                       name="cov_plus_eye"), axis0], domain=MS,
                                   name="cov_eye_batch")], name="stack", axis=0)
    g.op("Inverse", [stacked], ["batched_precision"], domain=MS, name="batched_inverse")
    model = g.model([("distances", F32), ("causal_attention", F32), ("precision", F32), ("batched_precision", F32),
                     ("covariance", F32)])
    names = [o.name for o in model.graph.output]
    r = np.random.default_rng(54)
    mix = r.standard_normal((d, d)).astype(F32)
    for case, n_samples, m in (("mahalanobis_20x4", 20, 5), ("mahalanobis_50x4", 50, 7)):
        feeds = {"samples": (r.standard_normal((n_samples, d)) @ mix + 0.5).astype(F32),
                 "queries": r.standard_normal((m, d)).astype(F32)}
        write_case(out_dir, case, model, feeds, names)
        ops[case] = op_set(model)


def attn_seq2seq(out_dir, ops):
    g = GraphBuilder("attn_seq2seq")
    e, h, am, aws, vocab = 5, 6, 7, 4, 11
    src = g.input("source", np.zeros((1, 1, e), F32), ["source_steps", 1, e])
    tgt = g.input("target", np.zeros((1, 1, e), F32), ["target_steps", 1, e])
    lens = g.input("source_length", np.zeros(1, np.int32), [1])
    enc = g.op("LSTM", [src, g.weight("encoder.W", 1, 4 * h, e, scale=0.4), g.weight("encoder.R", 1, 4 * h, h, scale=0.4),
                        g.weight("encoder.B", 1, 8 * h, scale=0.2)], ["encoder_states"], name="encoder", hidden_size=h)
    memory = g.op("Transpose", [g.op("Squeeze", [enc, g.const_i64("direction_axis", [1])], name="encoder_squeeze")],
                  ["memory"], name="memory", perm=[1, 0, 2])
    dec = g.op("AttnLSTM", [tgt, g.weight("decoder.W", 1, 4 * h, e + aws, scale=0.4),
                            g.weight("decoder.R", 1, 4 * h, h, scale=0.4), g.weight("decoder.B", 1, 8 * h, scale=0.2),
                            "", "", "", g.weight("decoder.P", 1, 3 * h, scale=0.3),
                            g.weight("attention.QW", 1, h, am, scale=0.4), g.weight("attention.MW", 1, h, am, scale=0.4),
                            g.weight("attention.V", 1, am, scale=0.4), memory, lens,
                            g.weight("attention.AW", 1, h + h, aws, scale=0.4)],
               ["decoder_states", "decoder_h", "decoder_c"], domain=MS, name="attention_decoder", hidden_size=h)[0]
    flat = g.op("Reshape", [dec, g.const_i64("rows", [-1, h])], name="decoder_rows")
    logits = g.op("MatMul", [flat, g.weight("output_projection", h, vocab)], name="output_projection")
    g.op("LogSoftmax", [logits], ["log_probs"], name="log_softmax", axis=-1)
    model = g.model([("log_probs", F32), ("decoder_h", F32), ("decoder_c", F32), ("memory", F32)])
    names = [o.name for o in model.graph.output]
    r = np.random.default_rng(55)
    for case, ts, tt, length in (("attn_seq2seq_full_memory", 6, 4, 6), ("attn_seq2seq_short_memory", 8, 5, 5)):
        feeds = {"source": r.standard_normal((ts, 1, e)).astype(F32),
                 "target": r.standard_normal((tt, 1, e)).astype(F32), "source_length": np.array([length], np.int32)}
        write_case(out_dir, case, model, feeds, names)
        ops[case] = op_set(model)


MODELS = {"text": text_featurizer, "ngram": ngram_greedy_loop, "whisper": whisper_alignment,
          "mahalanobis": mahalanobis, "seq2seq": attn_seq2seq}


def main():
    generate_models(sys.argv, MODELS)


if __name__ == "__main__":
    main()
