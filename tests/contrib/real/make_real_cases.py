"""Turns the committed transformer graphs (tests/contrib/real/models, written by make_real_models.py) into ONNX
backend test-case folders whose expected outputs onnxruntime computes.

    <test venv python> make_real_cases.py <models dir> <output dir>

Decoders (llama_*, gptoss_*, lfm2_*, qwen35_* from the onnxruntime-genai model builder, gpt2*) run as a prefill of 16 tokens with an empty KV
cache (<name>_prefill), then one decode step fed onnxruntime's present key/values as past (<name>_decode). Encoders
(bert*) run once on two sequences, the second padded. The generation models (*_search, from onnxruntime's
convert_generation) run whole on two prompts of batch 2 with left padding (<name>_a, <name>_b).
onnxruntime runs on the CPU execution provider with graph optimizations disabled, so that it computes the graph as
written. Needs onnx, onnxruntime and numpy (scripts/test-requirements.txt); no torch.
"""

import json
import os
import shutil
import sys
import zlib

import numpy as np
import onnx
import onnxruntime as ort
from onnx import numpy_helper


def session(path):
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    options.intra_op_num_threads = 2
    return ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])


def write_case(out_dir, case_name, model_path, model, feeds, names, outputs):
    case = os.path.join(out_dir, case_name)
    shutil.rmtree(case, ignore_errors=True)
    data = os.path.join(case, "test_data_set_0")
    os.makedirs(data)
    shutil.copyfile(model_path, os.path.join(case, "model.onnx"))
    for index, vi in enumerate(model.graph.input):
        onnx.save_tensor(numpy_helper.from_array(feeds[vi.name], vi.name), os.path.join(data, f"input_{index}.pb"))
    for index, (name, value) in enumerate(zip(names, outputs)):
        value = np.asarray(value)
        if value.dtype.kind == "f" and not np.all(np.isfinite(value)):
            raise SystemExit(f"{case_name}: onnxruntime's output {name} holds non-finite values")
        onnx.save_tensor(numpy_helper.from_array(value, name), os.path.join(data, f"output_{index}.pb"))
    print(f"{case_name}: " + ", ".join(f"{n} {tuple(np.shape(v))}" for n, v in zip(names, outputs)))


def float_type(vi):
    return onnx.helper.tensor_dtype_to_np_dtype(vi.type.tensor_type.elem_type)


def decoder_cases(models_dir, name, out_dir, prompt=16):
    """A prefill of `prompt` tokens, then one decode step with the present key/values as past."""
    path = os.path.join(models_dir, name + ".onnx")
    model = onnx.load(path)
    sess = session(path)
    names = [o.name for o in model.graph.output]
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    vocab = next(o for o in model.graph.output if o.name == "logits").type.tensor_type.shape.dim[-1].dim_value
    past_inputs = [vi for vi in model.graph.input if vi.name.startswith("past")]
    int_type = {vi.name: float_type(vi) for vi in model.graph.input}

    def feeds_for(ids, total, pasts):
        feeds = {}
        for vi in model.graph.input:
            if vi.name == "input_ids":
                feeds[vi.name] = ids.astype(int_type[vi.name])
            elif vi.name == "attention_mask":
                feeds[vi.name] = np.ones((1, total), dtype=int_type[vi.name])
            elif vi.name == "position_ids":
                positions = np.arange(total - ids.shape[1], total, dtype=int_type[vi.name])[None, :]
                if len(vi.type.tensor_type.shape.dim) == 3:  # [3, batch, sequence] (Qwen3.5): text tokens, t = h = w
                    positions = np.stack([positions] * 3)
                feeds[vi.name] = positions
            elif vi.name in pasts:
                feeds[vi.name] = pasts[vi.name]
            else:
                raise SystemExit(f"{name}: no recipe for input {vi.name}")
        return feeds

    # An empty cache [batch, kv heads, 0, head size]; the builder leaves the head size symbolic (kv_cache_dim). A
    # window-sized cache (GroupQueryAttention's sliding_window_cache, gpt-oss's sliding layers) is allocated at the
    # window's size, as onnxruntime-genai allocates it, and zeros.
    probe = {}
    for vi in past_inputs:
        dims = vi.type.tensor_type.shape.dim
        if all(d.dim_value for d in dims[1:]):  # a recurrent or convolution state (LFM2, Qwen3.5): zeros
            probe[vi.name] = np.zeros([1] + [d.dim_value for d in dims[1:]], dtype=float_type(vi))
            continue
        head = dims[3].dim_value
        if not head:
            head = kv_head_size(model, vi.name)
        probe[vi.name] = np.zeros((1, dims[1].dim_value, window_capacity(model, vi.name), head), dtype=float_type(vi))
    ids = rng.integers(0, vocab, (1, prompt))
    feeds = feeds_for(ids, prompt, probe)
    outputs = sess.run(names, feeds)
    write_case(out_dir, name + "_prefill", path, model, feeds, names, outputs)
    presents = dict(zip(names, outputs))
    pasts = {vi.name: presents[present_name(vi.name)] for vi in past_inputs}
    next_id = np.array([[int(np.argmax(presents["logits"][0, -1]))]])
    feeds = feeds_for(next_id, prompt + 1, pasts)
    outputs = sess.run(names, feeds)
    write_case(out_dir, name + "_decode", path, model, feeds, names, outputs)


def present_name(past_name):
    """past_key_values.0.key -> present.0.key, past.0.conv -> present.0.conv"""
    if past_name.startswith("past_key_values"):
        return "present" + past_name[len("past_key_values"):]
    return "present" + past_name[len("past"):]


def window_capacity(model, past_name):
    """local_window_size of the GroupQueryAttention with sliding_window_cache 1 reading this cache, else 0."""
    for node in model.graph.node:
        if node.op_type == "GroupQueryAttention" and past_name in node.input:
            attrs = {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}
            if attrs.get("sliding_window_cache", 0):
                return int(attrs["local_window_size"])
    return 0


def kv_head_size(model, past_name):
    """The head size of a KV cache input whose last dimension is symbolic: from the GroupQueryAttention reading it."""
    for node in model.graph.node:
        if node.op_type == "GroupQueryAttention" and past_name in node.input:
            attrs = {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}
            inits = {i.name: i for i in model.graph.initializer}
            cos = inits.get(node.input[7])
            if cos is not None and attrs.get("do_rotary", 0):
                return int(cos.dims[1]) * 2
            if attrs.get("scale"):  # the builder writes scale = 1 / sqrt(head size)
                return int(round(attrs["scale"] ** -2))
    raise SystemExit(f"cannot tell the head size of {past_name}")


def encoder_case(models_dir, name, out_dir, batch=2, length=8):
    """Two sequences of `length` tokens, the last three of the second one padding."""
    path = os.path.join(models_dir, name + ".onnx")
    model = onnx.load(path)
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    feeds = {}
    for vi in model.graph.input:
        dtype = float_type(vi)
        if vi.name == "input_ids":
            feeds[vi.name] = rng.integers(0, 128, (batch, length)).astype(dtype)
        elif vi.name == "attention_mask":
            mask = np.ones((batch, length), dtype=dtype)
            mask[-1, -3:] = 0
            feeds[vi.name] = mask
        elif vi.name == "token_type_ids":
            feeds[vi.name] = (np.arange(length)[None, :] >= length // 2).repeat(batch, 0).astype(dtype)
        else:
            raise SystemExit(f"{name}: no recipe for input {vi.name}")
    names = [o.name for o in model.graph.output]
    write_case(out_dir, name, path, model, feeds, names, session(path).run(names, feeds))


# The generation models written by onnxruntime's convert_generation (make_gpt2_generation.py): eos = pad = 99.
PAD = 99
# Prompts of batch 2, the shorter row left-padded with pad tokens (onnxruntime then masks them and starts that row's
# positions at its first real token).
GENERATION_PROMPTS = {
    "a": np.array([[5, 17, 33, 2, 8, 60], [PAD, PAD, 40, 9, 21, 12]], np.int32),
    "b": np.array([[PAD, PAD, PAD, 71, 3, 3], [88, 1, 54, 23, 7, 45]], np.int32),
}
GENERATION_PARAMETERS = {
    # case: max_length, min_length, repetition_penalty, num_beams, num_return_sequences, length_penalty
    "a": dict(max_length=16, min_length=0, repetition_penalty=1.0, num_beams=4, num_return_sequences=2,
              length_penalty=1.0),
    "b": dict(max_length=14, min_length=10, repetition_penalty=1.4, num_beams=3, num_return_sequences=3,
              length_penalty=0.6),
}


def generation_cases(models_dir, name, out_dir):
    """The whole BeamSearch/GreedySearch node as convert_generation wrote it, on each prompt of
    GENERATION_PROMPTS: sequences compare exactly, sequences_scores within the case's tolerance. A *_shared model
    (past/present buffer sharing, which onnxruntime's CPU provider cannot run) is expected to give what onnxruntime
    gives for the same weights without sharing (the model named without _shared)."""
    path = os.path.join(models_dir, name + ".onnx")
    model = onnx.load(path)
    names = [o.name for o in model.graph.output]
    reference = path[:-len("_shared.onnx")] + ".onnx" if name.endswith("_shared") else path
    sess = session(reference)
    for case, ids in GENERATION_PROMPTS.items():
        parameters = GENERATION_PARAMETERS[case]
        feeds = {"input_ids": ids}
        for vi in model.graph.input[1:]:
            if vi.name not in parameters:
                raise SystemExit(f"{name}: no recipe for input {vi.name}")
            feeds[vi.name] = np.array([parameters[vi.name]], dtype=float_type(vi))
        write_case(out_dir, f"{name}_{case}", path, model, feeds, names, sess.run(names, feeds))


def beam_search_shared_cases(models_dir, out_dir):
    """gpt2_beam_search_shared_<case>: gpt2_beam_search with its decoder replaced by gpt2_greedy_search_shared's
    (the same weights, past/present buffer sharing; convert_generation writes BeamSearch with a shared buffer only
    for GPU DecoderMaskedSelfAttention). The buffers follow the beams as the pasts do; expected: onnxruntime's
    outputs of gpt2_beam_search."""
    beam_path = os.path.join(models_dir, "gpt2_beam_search.onnx")
    beam = onnx.load(beam_path)
    shared = onnx.load(os.path.join(models_dir, "gpt2_greedy_search_shared.onnx"))
    decoder = next(a for a in shared.graph.node[0].attribute if a.name == "decoder")
    attributes = [a for a in beam.graph.node[0].attribute if a.name != "decoder"] + [decoder]
    del beam.graph.node[0].attribute[:]
    beam.graph.node[0].attribute.extend(attributes)
    del beam.graph.initializer[:]
    beam.graph.initializer.extend(shared.graph.initializer)  # the decoder's weights moved to the main graph, if any
    path = os.path.join(out_dir, "gpt2_beam_search_shared.onnx")
    onnx.save(beam, path)
    names = [o.name for o in beam.graph.output]
    sess = session(beam_path)
    for case, ids in GENERATION_PROMPTS.items():
        parameters = GENERATION_PARAMETERS[case]
        feeds = {"input_ids": ids}
        for vi in beam.graph.input[1:]:
            feeds[vi.name] = np.array([parameters[vi.name]], dtype=float_type(vi))
        write_case(out_dir, f"gpt2_beam_search_shared_{case}", path, beam, feeds, names, sess.run(names, feeds))


def main():
    models_dir, out_dir = sys.argv[1], sys.argv[2]
    os.makedirs(out_dir, exist_ok=True)
    for f in sorted(os.listdir(models_dir)):
        if not f.endswith(".onnx"):
            continue
        name = f[:-5]
        if name.endswith("_search") or name.endswith("_search_shared"):
            generation_cases(models_dir, name, out_dir)
        elif name.startswith(("llama", "gpt2", "gptoss", "lfm2", "qwen35")):
            decoder_cases(models_dir, name, out_dir)
        elif name.startswith("bert"):
            encoder_case(models_dir, name, out_dir)
    beam_search_shared_cases(models_dir, out_dir)
    write_ops(out_dir)


def write_ops(out_dir):
    """<out_dir>/ops.json: each case's domain:op list (subgraphs included), for check_whole_models.py."""
    ops = {}

    def walk(graph, found):
        for n in graph.node:
            found.add(f"{n.domain or 'ai.onnx'}:{n.op_type}")
            for a in n.attribute:
                if a.type == onnx.AttributeProto.GRAPH:
                    walk(a.g, found)
    for case in sorted(os.listdir(out_dir)):
        path = os.path.join(out_dir, case, "model.onnx")
        if os.path.exists(path):
            found = set()
            walk(onnx.load(path).graph, found)
            ops[case] = sorted(found)
    with open(os.path.join(out_dir, "ops.json"), "w") as f:
        json.dump(ops, f, indent=1)


if __name__ == "__main__":
    main()
