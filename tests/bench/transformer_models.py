# SPDX-License-Identifier: MIT
"""The transformer graphs of tests/contrib/real/models as perf_bench.py `models` entries: the BERT encoder and its
optimized (Attention, SkipLayerNormalization, EmbedLayerNormalization, BiasGelu) and fp16 versions, GPT-2 and its
optimized version, and the onnxruntime-genai Llama decoder in fp32 and int4 (MatMulNBits, GroupQueryAttention,
SkipSimplifiedLayerNormalization). Each decoder runs as a prefill of 16 tokens with an empty KV cache, and as one
decode step after it (past key/values of 16 positions, seeded random: the time does not depend on their values, and
both runtimes get the same ones). Every input is given, so that masks and positions are consistent.

Entries are (name, model path, input shapes, constant inputs) as perf_bench.py's MODELS; the path is absolute.

onnxruntime-node 1.20 refuses these graphs (opset 22, newer com.microsoft schemas), so they are timed with the PyPI
onnxruntime of the Python running perf_bench.py (the test venv pins 1.32): ort_command() gives perf_bench.py this
file as the runner, whose `ort` mode takes ort_bench.js's arguments and prints its JSON. Its peak RSS counts the
Python interpreter, numpy and onnxruntime (`ort - 1 0 0 -` prints that baseline).
"""
import json
import os
import sys
import time
import zlib

import numpy as np
import onnx

MODELS_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "contrib", "real", "models")
PROMPT = 16


def _np_type(vi):
    return onnx.helper.tensor_dtype_to_np_dtype(vi.type.tensor_type.elem_type)


def _kv_shape(model, vi, past):
    """[batch 1, kv heads, past, head size]; the genai builder leaves the head size symbolic: the GroupQueryAttention
    reading the cache has a cos cache of [max positions, head size / 2]."""
    dims = vi.type.tensor_type.shape.dim
    head = dims[3].dim_value
    if not head:
        inits = {i.name: i for i in model.graph.initializer}
        for node in model.graph.node:
            if node.op_type == "GroupQueryAttention" and vi.name in node.input and node.input[7] in inits:
                head = int(inits[node.input[7]].dims[1]) * 2
    if not head:
        raise SystemExit(f"cannot tell the head size of {vi.name}")
    return [1, dims[1].dim_value, past, head]


def _encoder(name, batch=2, length=8):
    path = os.path.join(MODELS_DIR, name + ".onnx")
    model = onnx.load(path, load_external_data=False)
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    feeds = {}
    for vi in model.graph.input:
        dtype = _np_type(vi)
        if vi.name == "input_ids":
            feeds[vi.name] = rng.integers(0, 128, (batch, length)).astype(dtype)
        elif vi.name == "attention_mask":
            mask = np.ones((batch, length), dtype)
            mask[-1, -3:] = 0
            feeds[vi.name] = mask
        elif vi.name == "token_type_ids":
            feeds[vi.name] = (np.arange(length)[None, :] >= length // 2).repeat(batch, 0).astype(dtype)
    return name, path, {}, feeds


def _decoder(name, step):
    """step "prefill": PROMPT tokens, empty cache; "decode": one token after PROMPT cached positions."""
    path = os.path.join(MODELS_DIR, name + ".onnx")
    model = onnx.load(path, load_external_data=False)
    rng = np.random.default_rng(zlib.crc32((name + step).encode()))
    vocab = next(o for o in model.graph.output if o.name == "logits").type.tensor_type.shape.dim[-1].dim_value
    past, tokens = (0, PROMPT) if step == "prefill" else (PROMPT, 1)
    total = past + tokens
    feeds = {}
    for vi in model.graph.input:
        dtype = _np_type(vi)
        if vi.name == "input_ids":
            feeds[vi.name] = rng.integers(0, vocab, (1, tokens)).astype(dtype)
        elif vi.name == "attention_mask":
            feeds[vi.name] = np.ones((1, total), dtype)
        elif vi.name == "position_ids":
            feeds[vi.name] = np.arange(past, total, dtype=dtype)[None, :]
        elif vi.name.startswith("past"):
            feeds[vi.name] = rng.uniform(-1, 1, _kv_shape(model, vi, past)).astype(dtype)
        else:
            raise SystemExit(f"{name}: no recipe for input {vi.name}")
    return f"{name}_{step}", path, {}, feeds


# One MatMulNBits at the size of a 1B-parameter Llama's projections (K = N = 2048, 4-bit blocks of 32, packed zero
# points, accuracy_level 4 as the genai builder writes for CPU), which the small graphs above do not reach: a decode
# step (1 row of A) and a prompt of PROMPT tokens. Generated on first use, seeded, under the cache folder.
GENERATED_DIR = os.path.join(os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "onnxscope",
                             "bench-models")


def _matmul_nbits(name, rows, k=2048, n=2048, block=32, accuracy=4):
    path = os.path.join(GENERATED_DIR, f"matmul_nbits_{k}x{n}_b{block}_acc{accuracy}.onnx")
    if not os.path.exists(path):
        from onnx import TensorProto, helper, numpy_helper
        rng = np.random.default_rng(zlib.crc32(os.path.basename(path).encode()))
        blocks = k // block
        weights = [numpy_helper.from_array(rng.integers(0, 256, (n, blocks, block // 2), dtype=np.uint8), "B"),
                   numpy_helper.from_array(rng.uniform(0.005, 0.02, n * blocks).astype(np.float32), "scales"),
                   numpy_helper.from_array(rng.integers(0, 256, (n, (blocks + 1) // 2), dtype=np.uint8), "zero_points")]
        node = helper.make_node("MatMulNBits", ["A", "B", "scales", "zero_points"], ["Y"], domain="com.microsoft",
                                K=k, N=n, bits=4, block_size=block, accuracy_level=accuracy)
        graph = helper.make_graph([node], "matmul_nbits",
                                  [helper.make_tensor_value_info("A", TensorProto.FLOAT, [1, "rows", k])],
                                  [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [1, "rows", n])], weights)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21),
                                                        helper.make_opsetid("com.microsoft", 1)])
        os.makedirs(GENERATED_DIR, exist_ok=True)
        onnx.save(model, path + ".tmp")
        os.replace(path + ".tmp", path)
    a = np.random.default_rng(rows).standard_normal((1, rows, k)).astype(np.float32)
    return name, path, {}, {"A": a}


TRANSFORMER_MODELS = ([_encoder(n) for n in ("bert", "bert_optimized", "bert_optimized_fp16")]
                      + [_decoder(n, s) for n in ("gpt2", "gpt2_optimized", "llama_fp32", "llama_int4")
                         for s in ("prefill", "decode")])
# Run only when named (--models): the first use writes 2 MiB of weights. Name -> a function that makes the entry.
SIZED_MODELS = {"matmul_nbits_2048_decode": lambda: _matmul_nbits("matmul_nbits_2048_decode", 1),
                "matmul_nbits_2048_prefill": lambda: _matmul_nbits("matmul_nbits_2048_prefill", PROMPT)}


def ort_command(model_path):
    """The onnxruntime runner for model_path: this file's `ort` mode (PyPI onnxruntime) for the transformer graphs,
    None for the others (perf_bench.py's onnxruntime-node runner)."""
    if os.path.dirname(os.path.abspath(model_path)) in (MODELS_DIR, GENERATED_DIR):
        return [sys.executable, os.path.abspath(__file__), "ort"]
    return None


def _peak_rss_kib():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0


def _ort_main(argv):
    """ort_bench.js's protocol: ORT_MODULE_DIR (ignored) MODEL THREADS WARMUP REPEAT OUT_DIR NAME=FILE.npy..."""
    import onnxruntime as ort
    _, model_path, threads, warmup, repeat, out_dir, *feeds = argv
    if model_path == "-":
        print(json.dumps({"runs_ms": [], "cpu_ms": [], "peak_rss_kib": _peak_rss_kib()}))
        return 0
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.intra_op_num_threads = int(threads)
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(model_path, options, providers=["CPUExecutionProvider"])
    inputs = {f.split("=", 1)[0]: np.load(f.split("=", 1)[1]) for f in feeds}
    names = [o.name for o in session.get_outputs()]
    results = None
    for _ in range(int(warmup)):
        results = session.run(names, inputs)
    ms, cpu = [], []
    for _ in range(int(repeat)):
        c0, t0 = time.process_time(), time.perf_counter()
        results = session.run(names, inputs)
        ms.append((time.perf_counter() - t0) * 1e3)
        cpu.append((time.process_time() - c0) * 1e3)
    os.makedirs(out_dir, exist_ok=True)
    for k, value in enumerate(results):
        np.save(os.path.join(out_dir, f"output_{k}.npy"), value)
    with open(os.path.join(out_dir, "outputs.json"), "w") as f:
        json.dump(names, f)
    print(json.dumps({"runs_ms": ms, "cpu_ms": cpu, "peak_rss_kib": _peak_rss_kib()}))
    return 0


if __name__ == "__main__" and len(sys.argv) > 1 and sys.argv[1] == "ort":
    sys.exit(_ort_main(sys.argv[2:]))
