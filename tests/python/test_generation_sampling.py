# SPDX-License-Identifier: MIT
"""Issue #41: Sampling's draws. A seeded run cannot repeat onnxruntime's random stream, so the draws are checked by
their statistics: one decoding step for many copies of one prompt, whose tokens must lie in the top_p nucleus that
numpy computes from onnxruntime's logits of the same decoder, with frequencies near the nucleus' probabilities.
(tests/contrib/make_generation_cases.py compares with onnxruntime where the draw is deterministic.)"""
import os
import sys

import numpy as np
from onnx import helper

import onnxscope
from conftest import ort_session

sys.path.insert(0, os.path.join(os.environ.get("ONNXSCOPE_SOURCE_DIR", ""), "tests", "contrib"))
import make_generation_cases as gen  # noqa: E402

ROWS = 2000
PROMPT = np.array([[5, 17, 33, 2]], np.int32)
TEMPERATURE, TOP_P = 12.0, 0.8  # a nucleus of 13 tokens for this random decoder


def sampling(seed=None, custom=0):
    feeds = {"input_ids": np.repeat(PROMPT, ROWS, axis=0), "max_length": np.array([PROMPT.shape[1] + 1], np.int32)}
    if seed is not None:
        feeds["seed"] = np.array([seed], np.int32)
    model = gen.greedy_model(feeds, {"eos_token_id": gen.VOCAB - 1, "pad_token_id": 0, "top_p": TOP_P,
                                     "temperature": TEMPERATURE, "custom": custom}, op="Sampling")
    return onnxscope.load(model).run(feeds)["sequences"][:, -1]


def nucleus(custom):
    """The token probabilities after temperature and the top_p filter, from onnxruntime's logits (numpy)."""
    decoder = helper.make_model(gen.decoder_graph(1), opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    s = PROMPT.shape[1]
    feeds = {"input_ids": PROMPT, "position_ids": np.arange(s, dtype=np.int32)[None],
             "attention_mask": np.ones((1, s), np.int32)}
    for i in range(gen.LAYERS):
        feeds[f"past_{i}"] = np.zeros((2, 1, gen.HEADS, 0, gen.HEAD_SIZE), np.float32)
    logits = ort_session(decoder).run(None, feeds)[0][0, -1].astype(np.float64) / TEMPERATURE
    p = np.exp(logits - logits.max())
    p /= p.sum()
    keep = np.zeros(len(p), bool)
    if custom:  # descending: the first token, then each while the probability before it is at most top_p
        order = np.argsort(-p, kind="stable")
        before = np.concatenate([[0.0], np.cumsum(p[order])[:-1]])
        keep[order[(before <= TOP_P) | (np.arange(len(p)) == 0)]] = True
    else:  # ascending: drop the tokens whose cumulative probability is at most 1 - top_p
        order = np.argsort(p, kind="stable")
        keep[order[np.cumsum(p[order]) > 1 - TOP_P]] = True
    q = np.where(keep, p, 0.0)
    return q / q.sum()


def check_distribution(tokens, q):
    assert np.all(q[tokens] > 0), f"tokens outside the nucleus: {sorted(set(tokens[q[tokens] == 0].tolist()))}"
    freq = np.bincount(tokens, minlength=len(q)) / len(tokens)
    bound = 5 * np.sqrt(q * (1 - q) / len(tokens)) + 1e-3
    assert np.all(np.abs(freq - q) <= bound), (freq[q > 0], q[q > 0])
    assert (q > 0).sum() >= 3, "the test wants a nucleus of several tokens"


def test_draws_follow_the_top_p_nucleus():
    check_distribution(sampling(seed=3), nucleus(0))


def test_custom_draws_follow_its_nucleus():
    check_distribution(sampling(seed=4, custom=1), nucleus(1))


def test_seed_repeats_and_varies():
    a, b, c = sampling(seed=11), sampling(seed=11), sampling(seed=12)
    assert np.array_equal(a, b)
    assert not np.array_equal(a, c)
    assert np.array_equal(sampling(), sampling(seed=0))  # seed 0 without the input, as onnxruntime
