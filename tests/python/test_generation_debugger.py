# SPDX-License-Identifier: MIT
"""Issue #41: the debugger steps into a GreedySearch node's decoder subgraph as into a Loop body: one frame per
decoding step (breadcrumb and depth), breakpoints inside a chosen step, and the values there equal onnxruntime's run
of the same decoder, on its own, over the prefix onnxruntime's GreedySearch generated."""
import os
import sys

import numpy as np
from onnx import helper

import onnxscope
from conftest import assert_close, ort_session

sys.path.insert(0, os.path.join(os.environ.get("ONNXSCOPE_SOURCE_DIR", ""), "tests", "contrib"))
import make_generation_cases as gen  # noqa: E402

IDS = np.array([[5, 17, 33, 2], [40, 9, 21, 12]], np.int32)
MAX_LENGTH = 9


def greedy():
    feeds = {"input_ids": IDS, "max_length": np.array([MAX_LENGTH], np.int32)}
    return gen.greedy_model(feeds, {"eos_token_id": gen.VOCAB - 1, "pad_token_id": 0}), feeds


def decoder_model():
    return helper.make_model(gen.decoder_graph(1), opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def test_step_into_each_decoding_step():
    model, feeds = greedy()
    dbg = onnxscope.load(model).debug(feeds)
    p = dbg.position
    assert p.frame == "main" and p.node == "greedy" and p.op_type == "GreedySearch"
    p = dbg.step_into()
    assert p.frame == 'main / GreedySearch "greedy" decoder step 0' and p.node == "te", p
    assert p.depth == 2, p.depth  # main and the step frame
    # Each step is a frame of its own: running on to the same node meets steps 1, 2, ... in order.
    bp = dbg.break_on("te")
    for step in range(1, MAX_LENGTH - IDS.shape[1]):
        p = dbg.cont()
        assert p.frame == f'main / GreedySearch "greedy" decoder step {step}' and p.node == "te", p
    dbg.remove_breakpoint(bp)
    p = dbg.step_out()
    assert p.frame == "main" and p.last_node == "greedy" and p.depth == 1, p


def test_breakpoint_inside_step_2_matches_a_separate_decoder_run():
    model, feeds = greedy()
    (sequences,) = gen.run_ort(model, feeds)  # onnxruntime's GreedySearch: the prefix the steps saw
    dbg = onnxscope.load(model).debug(feeds)
    dbg.break_on("logits", iteration=2)
    p = dbg.cont()
    assert p.reason == "breakpoint" and p.node == "logits", p
    assert 'GreedySearch "greedy" decoder step 2' in p.frame and p.depth == 2, p.frame
    p = dbg.step()  # run the vocabulary projection
    assert p.last_node == "logits" and 'decoder step 2' in p.frame, p
    s = IDS.shape[1]
    # Step 2 feeds the token generated at step 1, at position s + 1, with a mask over all s + 2 tokens.
    assert np.array_equal(dbg.value("input_ids"), sequences[:, s + 1:s + 2])
    assert np.array_equal(dbg.value("position_ids"), np.full((2, 1), s + 1, np.int32))
    assert np.array_equal(dbg.value("attention_mask"), np.ones((2, s + 2), np.int32))
    # onnxruntime runs the decoder on the whole prefix at once, without past: its last position's logits and its
    # presents are what step 2 computed from the past the earlier steps carried.
    prefix = np.ascontiguousarray(sequences[:, :s + 2])
    ort_feeds = {"input_ids": prefix, "position_ids": np.tile(np.arange(s + 2, dtype=np.int32), (2, 1)),
                 "attention_mask": np.ones((2, s + 2), np.int32)}
    for i in range(gen.LAYERS):
        ort_feeds[f"past_{i}"] = np.zeros((2, 2, gen.HEADS, 0, gen.HEAD_SIZE), np.float32)
    logits, present_0, present_1 = ort_session(decoder_model()).run(None, ort_feeds)
    assert_close(dbg.value("logits")[:, -1], logits[:, -1], 1e-4, 1e-5, "step 2 logits")
    assert_close(dbg.value("present_0"), present_0, 1e-4, 1e-5, "step 2 present_0")
    p = dbg.cont()
    assert p.reason == "finished"
    assert np.array_equal(dbg.outputs["sequences"], sequences)


def test_beam_search_steps_are_frames_over_batch_times_beams_rows():
    feeds = {"input_ids": IDS, "max_length": np.array([7], np.int32), "min_length": np.array([0], np.int32),
             "num_beams": np.array([3], np.int32), "num_return_sequences": np.array([2], np.int32),
             "length_penalty": np.array([1.0], np.float32)}
    model = gen.beam_model(feeds, {"eos_token_id": gen.VOCAB - 1, "pad_token_id": 0})
    expected = gen.run_ort(model, feeds)
    dbg = onnxscope.load(model).debug(feeds)
    dbg.break_on("te", iteration=1)
    p = dbg.cont()
    assert p.frame == 'main / BeamSearch "beam" decoder step 1' and p.depth == 2, p
    # Step 1 feeds one token per beam row (2 entries x 3 beams), the past of the prompt gathered by beam.
    assert dbg.value("input_ids").shape == (6, 1)
    assert dbg.value("past_0").shape == (2, 6, gen.HEADS, IDS.shape[1], gen.HEAD_SIZE)
    p = dbg.cont()
    assert p.reason == "finished"
    assert np.array_equal(dbg.outputs["sequences"], expected[0])
    assert_close(dbg.outputs["sequences_scores"], expected[1], 1e-4, 1e-5)


def test_whisper_encoder_then_decoder_steps_are_frames():
    """WhisperBeamSearch: the encoder is one frame, then each decoding step; inside decoder step 1 the encoder's
    hidden states (one row per beam) equal onnxruntime's run of the encoder subgraph alone."""
    W = gen.W
    rng = np.random.default_rng(9)
    features = rng.standard_normal((2, W.MELS, W.FRAMES)).astype(np.float32)
    start = np.array([[1, 2], [1, 3]], np.int32)
    feeds = {"input_ids": features, "max_length": np.array([7], np.int32), "min_length": np.array([0], np.int32),
             "num_beams": np.array([3], np.int32), "num_return_sequences": np.array([2], np.int32),
             "length_penalty": np.array([1.0], np.float32), "decoder_input_ids": start}
    model = W.whisper_model(feeds, {"eos_token_id": W.VOCAB - 1, "pad_token_id": 0, "decoder_start_token_id": 1})
    expected = gen.run_ort(model, feeds)
    encoder = helper.make_model(W.encoder_graph(W.weights(5)), opset_imports=[helper.make_opsetid("", 17)],
                                ir_version=8)
    logits, hidden = ort_session(encoder).run(["logits", "encoder_hidden_states"],
                                              {"encoder_input_ids": features, "decoder_input_ids": start})
    dbg = onnxscope.load(model).debug(feeds)
    p = dbg.step_into()
    assert p.frame == 'main / WhisperBeamSearch "whisper" encoder' and p.depth == 2, p
    bp = dbg.break_on("logits", iteration=0)
    p = dbg.cont()
    assert p.reason == "breakpoint" and "encoder" in p.frame, p
    p = dbg.step()
    assert p.last_node == "logits" and "encoder" in p.frame, p
    assert_close(dbg.value("logits"), logits, 1e-4, 1e-5, "encoder logits")
    dbg.remove_breakpoint(bp)
    bp = dbg.break_on("te", iteration=1)
    p = dbg.cont()
    assert p.frame == 'main / WhisperBeamSearch "whisper" decoder step 1' and p.depth == 2, p
    assert dbg.value("input_ids").shape == (6, 1)
    assert_close(dbg.value("encoder_hidden_states"), np.repeat(hidden, 3, axis=0), 1e-4, 1e-5, "hidden states")
    # The self-attention past after the encoder's step holds the two decoder_input_ids positions.
    assert dbg.value("past_key_self_0").shape == (6, W.HEADS, 2, W.HEAD_SIZE)
    dbg.remove_breakpoint(bp)
    p = dbg.cont()
    assert p.reason == "finished", p
    assert np.array_equal(dbg.outputs["sequences"], expected[0])
    assert_close(dbg.outputs["sequences_scores"], expected[1], 1e-4, 1e-5)
