# SPDX-License-Identifier: MIT
"""Issue #41: the BeamSearch model that onnxruntime's own convert_generation wrote (tests/contrib/real/models,
make_gpt2_generation.py), run whole and stepped into. The values inside decoder step 1 are checked against
onnxruntime's run of the decoder subgraph alone: step 0's logits pick the beams' first tokens (the 4 best of each
entry), and step 1's logits and presents equal the decoder's over the whole prefix, without past."""
import os

import numpy as np
import onnx
import pytest

import onnxscope
from conftest import assert_close, ort_session

MODELS = os.path.join(os.environ.get("ONNXSCOPE_SOURCE_DIR", ""), "tests", "contrib", "real", "models")
PAD = 99  # eos and pad of make_gpt2_generation.py
BEAMS = 4
IDS = np.array([[5, 17, 33, 2, 8, 60], [PAD, PAD, 40, 9, 21, 12]], np.int32)
FEEDS = {"input_ids": IDS, "max_length": np.array([12], np.int32), "min_length": np.array([0], np.int32),
         "num_beams": np.array([BEAMS], np.int32), "num_return_sequences": np.array([2], np.int32),
         "length_penalty": np.array([1.0], np.float32), "repetition_penalty": np.array([1.0], np.float32)}
FRAME = 'main / BeamSearch "BeamSearch_gpt2" decoder step {}'


@pytest.fixture(scope="module")
def model():
    return onnx.load(os.path.join(MODELS, "gpt2_beam_search.onnx"))


def decoder_alone(model):
    """The decoder attribute as a model of its own, with the main model's opsets (LayerNormalization at opset 11, as
    convert_generation leaves it, and com.microsoft)."""
    decoder = next(a.g for a in model.graph.node[0].attribute if a.name == "decoder")
    return ort_session(onnx.helper.make_model(decoder, opset_imports=model.opset_import, ir_version=model.ir_version))


def prefix_feeds(ids):
    """onnxruntime's feeds for prompt rows without past: pad tokens masked and at position 0, the others counting
    from 0."""
    mask = (ids != PAD).astype(np.int32)
    positions = np.maximum(np.cumsum(mask, axis=1) - 1, 0).astype(np.int32) * mask
    feeds = {"input_ids": ids, "position_ids": positions, "attention_mask": mask}
    for i in range(2):
        feeds[f"past_{i}"] = np.zeros((2, ids.shape[0], 2, 0, 16), np.float32)
    return feeds


def test_runs_to_the_end_as_onnxruntime(model):
    expected = ort_session(model).run(None, FEEDS)
    outputs = onnxscope.load(os.path.join(MODELS, "gpt2_beam_search.onnx")).run(FEEDS)
    assert np.array_equal(outputs["sequences"], expected[0])
    assert_close(outputs["sequences_scores"], expected[1], 1e-4, 1e-5, "sequences_scores")


def test_step_into_decoder_step_1_matches_the_decoder_alone(model):
    decoder = decoder_alone(model)
    rows = np.repeat(IDS, BEAMS, axis=0)  # each entry's prompt, once per beam
    step0 = decoder.run(None, prefix_feeds(rows))

    dbg = onnxscope.load(os.path.join(MODELS, "gpt2_beam_search.onnx")).debug(FEEDS)
    p = dbg.step_into()
    assert p.frame == FRAME.format(0) and p.depth == 2, p
    dbg.break_on("/lm_head/MatMul", iteration=1)
    p = dbg.cont()
    assert p.reason == "breakpoint" and p.frame == FRAME.format(1) and p.depth == 2, p
    p = dbg.step()  # the vocabulary projection of step 1
    assert p.last_node == "/lm_head/MatMul" and p.frame == FRAME.format(1), p

    # Step 1 feeds each beam's first token: the 4 best of its entry's step-0 logits, best first (all beams of an
    # entry share the prompt, so their log-softmax scores are the same).
    first = dbg.value("input_ids")
    assert first.shape == (IDS.shape[0] * BEAMS, 1)
    for entry in range(IDS.shape[0]):
        best = np.argsort(-step0[0][entry * BEAMS, -1], kind="stable")[:BEAMS]
        assert np.array_equal(first[entry * BEAMS:(entry + 1) * BEAMS, 0], best), (entry, first.ravel(), best)
    # Positions continue after the real tokens; the mask keeps the prompt's padding masked.
    real = (IDS != PAD).sum(axis=1)
    assert np.array_equal(dbg.value("position_ids"), np.repeat(real, BEAMS)[:, None])
    mask = np.concatenate([(rows != PAD), np.ones((rows.shape[0], 1), bool)], axis=1).astype(np.int32)
    assert np.array_equal(dbg.value("attention_mask"), mask)
    # The past is the prompt's presents of step 0, as onnxruntime's decoder computes them.
    assert_close(dbg.value("past_0"), step0[1], 1e-4, 1e-5, "step 1 past_0")

    # onnxruntime's decoder over the whole prefix (prompt and first token) at once: its last position's logits and
    # its presents are what step 1 computed from the carried past.
    whole = decoder.run(None, prefix_feeds(np.concatenate([rows, first], axis=1)))
    assert_close(dbg.value("logits")[:, -1], whole[0][:, -1], 1e-4, 1e-5, "step 1 logits")
    # A pad query sees no key at all (causal and padding masks together), so what a layer computes there depends on
    # how many keys the run holds (7 here, 6 at step 0): layer 1's presents are compared at the real positions.
    keep = mask.astype(bool)
    for layer in range(2):
        ours = dbg.value(f"present_{layer}")
        assert ours.shape == whole[1 + layer].shape
        for r in range(rows.shape[0]):
            assert_close(ours[:, r][:, :, keep[r]], whole[1 + layer][:, r][:, :, keep[r]], 1e-4, 1e-5,
                         f"step 1 present_{layer} row {r}")

    p = dbg.cont()
    assert p.reason == "finished"
    expected = ort_session(model).run(None, FEEDS)
    assert np.array_equal(dbg.outputs["sequences"], expected[0])


def test_shared_buffer_greedy_step_1_feeds_the_buffer():
    """gpt2_greedy_search_shared (convert_generation --past_present_share_buffer): onnxruntime's CPU provider cannot
    run it, so its sequences are onnxruntime's of gpt2_greedy_search (same weights); inside step 1 the pasts are
    buffers of max_length rows, past_sequence_length counts the prompt, and the valid rows of present_0 equal
    onnxruntime's decoder (the unshared one) over the whole prefix."""
    feeds = {"input_ids": IDS, "max_length": np.array([12], np.int32), "min_length": np.array([0], np.int32),
             "repetition_penalty": np.array([1.0], np.float32)}
    unshared = onnx.load(os.path.join(MODELS, "gpt2_greedy_search.onnx"))
    (sequences,) = ort_session(unshared).run(None, feeds)
    dbg = onnxscope.load(os.path.join(MODELS, "gpt2_greedy_search_shared.onnx")).debug(feeds)
    dbg.break_on("/lm_head/MatMul", iteration=1)
    p = dbg.cont()
    assert p.reason == "breakpoint" and 'GreedySearch "GreedySearch_gpt2" decoder step 1' in p.frame, p
    s = IDS.shape[1]
    assert dbg.value("past_0").shape == (2, 2, 2, 12, 16)
    assert np.array_equal(dbg.value("past_sequence_length"), np.array([s], np.int32))
    assert np.array_equal(dbg.value("input_ids"), sequences[:, s:s + 1])
    whole = decoder_alone(unshared).run(None, prefix_feeds(np.ascontiguousarray(sequences[:, :s + 1])))
    present = dbg.value("present_0")
    assert present.shape == (2, 2, 2, 12, 16)
    keep = np.concatenate([IDS != PAD, np.ones((2, 1), bool)], axis=1)
    for r in range(2):
        assert_close(present[:, r, :, :s + 1][:, :, keep[r]], whole[1][:, r][:, :, keep[r]], 1e-4, 1e-5,
                     f"present_0 row {r}")
    p = dbg.cont()
    assert p.reason == "finished"
    assert np.array_equal(dbg.outputs["sequences"], sequences)
