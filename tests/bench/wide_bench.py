#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""The wide bench of issue 42 (run on demand, never in CI): onnxscope against onnxruntime on every model of the wide
bench, side by side.

  <test venv>/bin/python tests/bench/wide_bench.py [--cli build/app/cli/onnxscope-cli] [--threads 1,2]
        [--repeat 15] [--simd native,avx2] [--models a,b] [--families cnn,vit] [--rounds 1]
        [--profile] [--json FILE] [--markdown FILE]
  <test venv>/bin/python tests/bench/wide_bench.py --debug [--threads 1] [--repeat 15] [--rounds 2] ...

The models: those tests/bench/wide_models.py wrote (its manifest.json in --models-dir: torchvision and transformers
exports, int8 copies, models shipped in PyPI wheels), the npm models of perf_bench.py (OCR, wake word, VAD) and its
transformer graphs (transformer_models.py: BERT, GPT-2, Llama-shaped, prefill and decode). A model whose file is
missing is listed as missing, never dropped silently.

Plain mode: for each model and thread count N, in turn (interleaved, so a slow minute of the shared machine hits both
alike), each in a process of its own:
  - onnxruntime (the PyPI onnxruntime of this Python: default optimizations, intra_op_num_threads=N, sequential),
    through transformer_models.py's `ort` runner: 1 warm-up run, then --repeat timed runs;
  - `onnxscope-cli run MODEL --repeat R --threads N --timings` (1 warm-up, then R timed runs), once per --simd level
    ("native": the CPU's widest; "avx2": ONNXSCOPE_SIMD=avx2 for onnxscope only, onnxruntime keeps its widest).
Every onnxscope output is checked against onnxruntime's with the model's family tolerance (TOLERANCES). A model
onnxscope refuses shows "refused: <its error>", one onnxruntime refuses "onnxruntime refused: <error>". Prints one
Markdown table (median ms, ratio, outputs) with the geometric mean of the ratios over the models that ran and
matched, and names the CPU (/proc/cpuinfo), onnxscope's SIMD level and the load (`uptime`) before and after.

--profile: also a `run --profile --repeat 3` of each model at 1 thread (each node alone, unfused), and a list of
each model's top op types by self time, Conv split by shape class (pointwise, depthwise k x k, grouped, dilated,
dense), for the kernels' work.

--debug: the debugger's goal (issue 43): per model, a plain run and a debug run to the end (`run --debug-run`:
through the Debugger, every value inspectable afterwards) in turn, --rounds times; prints debug / plain, the time
completeLog() took after each stop to fill the value log (every summary) against a plain run (log / plain, the
issue's goal: at most 1), and checks the debug run's outputs against onnxruntime's (one run of it).
"""
import argparse
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402
import onnx  # noqa: E402

from perf_bench import MODELS as PERF_MODELS, NPM, cpu_info, make_inputs, median, run_process  # noqa: E402
from transformer_models import TRANSFORMER_MODELS  # noqa: E402

CACHE = os.environ.get("ONNXSCOPE_CACHE_DIR", os.path.expanduser("~/.cache/onnxscope"))
ORT_RUNNER = [sys.executable, os.path.join(HERE, "transformer_models.py"), "ort", "-"]

# (rtol, atol as a fraction of the reference output's RMS): |ours - ort| <= atol * rms + rtol * |ort|, per output.
# Deep random-weight networks accumulate float reordering differences (blocked sums, fused epilogues, exp/erf
# approximations of a few ulp), hence an atol scaled to the output's size. int8 models may round one value to the
# other side of a quantization step, which the layers after it carry on: they get a coarse atol, which a wrong
# kernel (a swapped zero point, a saturating product) still exceeds by far.
TOLERANCES = {
    "depthwise": (1e-3, 1e-3), "cnn": (1e-3, 1e-3), "segmentation": (1e-3, 1e-3), "detection": (1e-3, 1e-3),
    "vit": (2e-3, 2e-3), "audio": (2e-3, 2e-3), "transformer": (2e-3, 2e-3), "int8": (0.0, 0.1),
    "real (npm)": (1e-3, 1e-3), "real (wheel)": (1e-3, 1e-3),
}
# An absolute floor, for outputs that are nearly all zero (ocr_det's probability map on random images has an RMS of
# 1e-6, where float reordering alone moves values by 1e-7).
ABS_FLOOR = 1e-6


class Model:
    def __init__(self, name, family, path, feeds_fn, note=""):
        self.name, self.family, self.path, self.feeds_fn, self.note = name, family, path, feeds_fn, note
        self.tolerance = family


def draw(spec, rng):
    dtype = np.dtype(spec["dtype"])
    shape = spec["shape"]
    kind = spec["dist"]
    if kind == "int":
        return rng.integers(spec["low"], spec["high"], shape).astype(dtype)
    if kind == "uniform":
        return rng.uniform(-1, 1, shape).astype(dtype)
    if kind == "zeros":
        return np.zeros(shape, dtype)
    if kind == "value":
        return np.full(shape, spec["value"], dtype)
    return rng.standard_normal(shape).astype(dtype)


def collect(models_dir):
    """Every model of the wide bench, in the order of the table."""
    out = []
    manifest_path = os.path.join(models_dir, "manifest.json")
    manifest = json.load(open(manifest_path))["models"] if os.path.exists(manifest_path) else {}
    for name, entry in manifest.items():
        if "error" in entry:
            out.append(Model(name, "?", None, None, "not exported: " + entry["error"]))
            continue

        def feeds(rng, tmp, entry=entry, name=name):
            paths = []
            for k, (input_name, spec) in enumerate(entry["inputs"].items()):
                path = os.path.join(tmp, f"{name}_{k}.npy")
                np.save(path, draw(spec, rng))
                paths.append((input_name, path))
            return paths
        m = Model(name, entry["family"], os.path.join(models_dir, entry["file"]), feeds, entry.get("exporter", ""))
        m.tolerance = entry.get("tolerance", entry["family"])
        out.append(m)
    import wide_models  # the names it makes (it imports torch only when it exports)
    for name in list(wide_models.TORCH_MODELS) + list(wide_models.QUANT_MODELS) + list(wide_models.WHEEL_MODELS):
        if name not in manifest:
            family = wide_models.TORCH_MODELS.get(name, ("int8" if name in wide_models.QUANT_MODELS
                                                         else "real (wheel)",))[0]
            out.append(Model(name, family, None, None, "not made yet: run tests/bench/wide_models.py"))
    transformer_names = {t[0] for t in TRANSFORMER_MODELS}
    for name, rel, shapes, constants in PERF_MODELS:
        path = rel if os.path.isabs(rel) else os.path.join(NPM, rel)
        family = "transformer" if name in transformer_names else "real (npm)"
        out.append(Model(name, family, path,
                         lambda rng, tmp, p=path, s=shapes, c=constants, n=name: make_inputs(p, s, c, rng, tmp, n),
                         "tests/contrib/real/models" if family == "transformer" else "npm package"))
    return out


def check(ours_dir, ort_dir, tolerance):
    """'ok (max err E)' or a description of the first mismatch."""
    rtol, atol = TOLERANCES[tolerance]
    names = json.load(open(os.path.join(ort_dir, "outputs.json")))
    manifest = json.load(open(os.path.join(ours_dir, "manifest.json")))
    ours = {t["name"]: os.path.join(ours_dir, t["file"]) for t in manifest["tensors"]
            if t.get("kind", "output") == "output"}
    worst = 0.0
    for k, name in enumerate(names):
        expected = np.load(os.path.join(ort_dir, f"output_{k}.npy"))
        if name not in ours:
            return f"no output {name!r}"
        got = np.load(ours[name])
        if got.shape != expected.shape:
            return f"{name!r}: shape {list(got.shape)} vs {list(expected.shape)}"
        if not np.issubdtype(expected.dtype, np.number):
            if not np.array_equal(got, expected):
                return f"{name!r}: differs"
            continue
        e, a = expected.astype(np.float64), got.astype(np.float64)
        finite = np.isfinite(e)
        rms = float(np.sqrt(np.mean(e[finite] ** 2))) if finite.any() else 0.0
        err = np.abs(a - e)
        bad = ~((err <= atol * rms + rtol * np.abs(e) + ABS_FLOOR) | (np.isnan(a) & np.isnan(e)) | (a == e))
        if e.size:
            rel = float(np.nanmax(np.where(finite, err, 0))) / rms if rms > 0 else float(np.nanmax(err))
            worst = max(worst, rel)
        if bad.any():
            return (f"MISMATCH {name!r}: {int(bad.sum())} of {bad.size} outside tolerance, max err "
                    f"{float(np.nanmax(err)):.3g} (output RMS {rms:.3g})")
    return f"ok ({worst:.1e})"


def first_line(text):
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    error_lines = [ln for ln in lines if "rror" in ln]
    return (error_lines or lines or ["(no message)"])[0][:240]


def run_ort(model, feeds, threads, repeat, out_dir):
    code, out, err, _ = run_process(ORT_RUNNER + [model.path, str(threads), "1", str(repeat), out_dir]
                                    + [f"{n}={p}" for n, p in feeds])
    if code != 0:
        return {"error": "onnxruntime refused: " + first_line(err)}
    t = json.loads(out.strip().splitlines()[-1])
    return {"median": median(t["runs_ms"]), "runs_ms": t["runs_ms"], "rss_kib": t["peak_rss_kib"]}


def run_ours(cli, model, feeds, threads, repeat, out_dir, simd, tmp, extra=()):
    timings = os.path.join(tmp, "timings.json")
    if os.path.exists(timings):
        os.remove(timings)
    cmd = [cli, "run", model.path, "-q", "--repeat", str(repeat), "--threads", str(threads), "--timings", timings,
           "-o", out_dir, *extra]
    for name, path in feeds:
        cmd += ["--input", f"{name}={path}"]
    env = dict(os.environ)
    env.pop("ONNXSCOPE_SIMD", None)
    if simd != "native":
        env["ONNXSCOPE_SIMD"] = simd
    code, out, err, _ = run_process(cmd, env)
    if code != 0:
        kind = "crashed" if code < 0 else "refused"
        return {"error": f"{kind} (exit {code}): " + first_line(err)}
    t = json.load(open(timings))
    out = {"median": median(t["runs_ms"]), "runs_ms": t["runs_ms"], "rss_kib": t["peak_rss_kib"], "simd": t["simd"]}
    if "log_median_ms" in t:
        out["log_ms"] = t["log_median_ms"]
    return out


# --- profile: top time sinks ------------------------------------------------------------------------------------

def conv_classes(path):
    """{Conv node name: shape class} from the model's attributes and weight shapes."""
    model = onnx.load(path, load_external_data=False)
    shapes = {i.name: list(i.dims) for i in model.graph.initializer}
    for node in model.graph.node:  # weights given by a Constant node (TorchScript exports)
        if node.op_type == "Constant":
            for a in node.attribute:
                if a.name == "value":
                    shapes[node.output[0]] = list(a.t.dims)
    classes = {}
    for k, node in enumerate(model.graph.node):
        if node.op_type not in ("Conv", "QLinearConv", "ConvInteger"):
            continue
        attrs = {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}
        w = shapes.get(node.input[3 if node.op_type == "QLinearConv" else 1])
        group = attrs.get("group", 1)
        kernel = attrs.get("kernel_shape") or (w[2:] if w else [])
        dil = attrs.get("dilations") or [1]
        stride = attrs.get("strides") or [1]
        ks = "x".join(str(v) for v in kernel) or "?"
        if w and group > 1 and group == w[0] and w[1] == 1:
            c = f"depthwise {ks}"
        elif group > 1:
            c = f"grouped {ks}"
        elif kernel and all(v == 1 for v in kernel):
            c = "pointwise 1x1"
        else:
            c = f"dense {ks}"
        if any(v > 1 for v in dil):
            c += " dilated"
        if any(v > 1 for v in stride):
            c += " strided"
        classes[node.name or f"{node.op_type}_{k}"] = c
    return classes


def profile(cli, model, feeds, repeat=3):
    cmd = [cli, "run", model.path, "-q", "--profile", "--repeat", str(repeat), "--threads", "1"]
    for name, path in feeds:
        cmd += ["--input", f"{name}={path}"]
    code, out, err, _ = run_process(cmd)
    if code != 0:
        return None
    ops, nodes, section = {}, {}, None
    for line in out.splitlines():
        if line.startswith("per node"):
            section = "node"
        elif line.startswith("per op type"):
            section = "op"
        elif section == "node":
            m = re.match(r"\s*([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+(\d+)\s+(\S+)\s+main / (.+)$", line)
            if m:
                nodes[m.group(6).strip()] = (m.group(5), float(m.group(2)) / repeat)
        elif section == "op":
            m = re.match(r"\s*([\d.]+)\s+([\d.]+)\s+(\d+)\s+(\S+)$", line)
            if m:
                ops[m.group(4)] = float(m.group(1)) / repeat
    return ops, nodes


def sinks_text(model, prof, top=5):
    ops, nodes = prof
    total = sum(ops.values())
    if total <= 0:
        return "nothing measured"
    classes = conv_classes(model.path)
    parts = []
    for op, t in sorted(ops.items(), key=lambda kv: -kv[1])[:top]:
        text = f"{op} {fmt_ms(t)} ms ({100 * t / total:.0f} %)"
        if op in ("Conv", "QLinearConv", "ConvInteger"):
            by = {}
            for name, (node_op, nms) in nodes.items():
                if node_op == op:
                    key = classes.get(name, "in a subgraph")
                    by[key] = by.get(key, 0.0) + nms
            split = sorted(by.items(), key=lambda kv: -kv[1])[:4]
            text += ": " + ", ".join(f"{k} {fmt_ms(v)}" for k, v in split)
        parts.append(text)
    return f"{fmt_ms(total)} ms profiled; " + "; ".join(parts)


def fmt_ms(v):
    return f"{v:.3g}" if v < 100 else f"{v:.0f}"


# --- the runs ---------------------------------------------------------------------------------------------------

def uptime():
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def bench(args, models):
    rng_seed = args.seed
    results = {"uptime_before": uptime(), "cpu": cpu_info(), "rows": [], "args": vars(args).copy()}
    with tempfile.TemporaryDirectory() as tmp:
        for model in models:
            row = {"model": model.name, "family": model.family, "note": model.note, "cells": {}}
            results["rows"].append(row)
            if model.path is None or not os.path.exists(model.path):
                row["missing"] = model.note if model.path is None else f"missing: {model.path}"
                print(f"{model.name}: {row['missing']}", file=sys.stderr, flush=True)
                continue
            feeds = model.feeds_fn(np.random.default_rng(rng_seed), tmp)
            for threads in args.threads:
                ort_runs, ours_runs = [], {s: [] for s in args.simd}
                ort_dir = os.path.join(tmp, "ort")
                cell = {"load": os.getloadavg()[0]}
                for _ in range(args.rounds):
                    o = run_ort(model, feeds, threads, args.repeat, ort_dir)
                    if "error" in o:
                        cell["error"] = o["error"]
                        break
                    ort_runs += o["runs_ms"]
                    cell["ort_rss_kib"] = o["rss_kib"]
                    for simd in args.simd:
                        ours_dir = os.path.join(tmp, f"ours_{simd}")
                        r = run_ours(args.cli, model, feeds, threads, args.repeat, ours_dir, simd, tmp)
                        if "error" in r:
                            cell.setdefault("ours_error", {})[simd] = r["error"]
                            continue
                        ours_runs[simd] += r["runs_ms"]
                        cell.setdefault("simd_level", {})[simd] = r["simd"]
                        cell.setdefault("ours_rss_kib", {})[simd] = r["rss_kib"]
                        cell.setdefault("check", {})[simd] = check(ours_dir, ort_dir, model.tolerance)
                if ort_runs:
                    cell["ort_ms"] = median(ort_runs)
                cell["ours_ms"] = {s: median(v) for s, v in ours_runs.items() if v}
                row["cells"][threads] = cell
                summary = ", ".join(f"{s}: {cell['ours_ms'][s]:.3f} ms {cell['check'][s]}" if s in cell["ours_ms"]
                                    else f"{s}: {cell.get('ours_error', {}).get(s, cell.get('error'))}"
                                    for s in args.simd)
                ort_text = f"{cell['ort_ms']:.3f} ms" if "ort_ms" in cell else cell.get("error")
                print(f"{model.name} threads={threads}: ort {ort_text}; ours {summary}; load {cell['load']:.2f}",
                      file=sys.stderr, flush=True)
            if args.profile:
                prof = profile(args.cli, model, feeds)
                if prof:
                    row["profile"] = sinks_text(model, prof)
                    row["profile_ops"] = prof[0]
                    print(f"  profile: {row['profile']}", file=sys.stderr, flush=True)
    results["uptime_after"] = uptime()
    return results


def bench_debug(args, models):
    """Plain and debug runs to the end, in turn, at args.threads[0]."""
    threads = args.threads[0]
    results = {"uptime_before": uptime(), "cpu": cpu_info(), "rows": [], "debug": True, "args": vars(args).copy()}
    with tempfile.TemporaryDirectory() as tmp:
        for model in models:
            row = {"model": model.name, "family": model.family}
            results["rows"].append(row)
            if model.path is None or not os.path.exists(model.path):
                row["missing"] = model.note if model.path is None else f"missing: {model.path}"
                continue
            feeds = model.feeds_fn(np.random.default_rng(args.seed), tmp)
            ort_dir = os.path.join(tmp, "ort")
            o = run_ort(model, feeds, threads, args.repeat, ort_dir)
            if "median" in o:
                row["ort_ms"] = o["median"]
            plain, debug, log = [], [], []
            row["load"] = os.getloadavg()[0]
            for _ in range(args.rounds):
                p = run_ours(args.cli, model, feeds, threads, args.repeat, os.path.join(tmp, "plain"), args.simd[0],
                             tmp)
                d = run_ours(args.cli, model, feeds, threads, args.repeat, os.path.join(tmp, "debug"), args.simd[0],
                             tmp, ["--debug-run"])
                if "error" in p or "error" in d:
                    row["error"] = p.get("error") or d.get("error")
                    break
                plain.append(p["median"])
                debug.append(d["median"])
                log.append(d.get("log_ms", float("nan")))
                row["simd"] = p["simd"]
            if "error" not in row:
                row["plain_ms"], row["debug_ms"] = median(plain), median(debug)
                row["ratios"] = [d / p for p, d in zip(plain, debug)]
                row["log_ms"] = median(log)
                row["log_ratios"] = [g / p for p, g in zip(plain, log)]
                row["check"] = check(os.path.join(tmp, "debug"), ort_dir, model.tolerance) if "error" not in o \
                    else o["error"]
            text = (f"plain {row['plain_ms']:.3f} ms, debug {row['debug_ms']:.3f} ms, "
                    f"{row['debug_ms'] / row['plain_ms']:.2f}x, log {row['log_ms']:.3f} ms "
                    f"({row['log_ms'] / row['plain_ms']:.2f}x), {row['check']}") if "plain_ms" in row \
                else row.get("error")
            print(f"{model.name}: {text}", file=sys.stderr, flush=True)
    results["uptime_after"] = uptime()
    return results


# --- the table --------------------------------------------------------------------------------------------------

def geomean(values):
    values = [v for v in values if v > 0]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def ms(v):
    return f"{v:.3g}" if v < 100 else f"{v:.0f}"


def header(results, level_note):
    cpu = results["cpu"]
    lines = [f"CPU: {cpu['model_name']} ({cpu['vendor']}, family {cpu['family']}, model {cpu['model']}), "
             f"{os.cpu_count()} logical CPUs; SIMD flags: {' '.join(cpu['flags'])}",
             f"onnxscope's SIMD level: {level_note}; onnxruntime {ort_version()} at the CPU's widest level.",
             f"Load before: {results['uptime_before']}",
             f"Load after:  {results['uptime_after']}"]
    return "\n".join(lines)


def ort_version():
    try:
        import onnxruntime
        return onnxruntime.__version__
    except ImportError:
        return "?"


def table(results, simd_levels, threads_list):
    rows = results["rows"]
    levels = sorted({lvl for r in rows for c in r.get("cells", {}).values()
                     for lvl in c.get("simd_level", {}).values()})
    out = [header(results, ", ".join(f"{s} = {lvl}" for s, lvl in zip(
        simd_levels, [next((c["simd_level"][s] for r in rows for c in r.get("cells", {}).values()
                            if s in c.get("simd_level", {})), "?") for s in simd_levels])) or ", ".join(levels)), ""]
    configs = [(t, s) for t in threads_list for s in simd_levels]
    cols = []
    for t, s in configs:
        tag = f"{t}T" + ("" if s == "native" else f" {s}")
        cols += [f"ours ms {tag}", f"ort ms {t}T", f"ratio {tag}"]
    out.append("| model | family | " + " | ".join(cols) + " | outputs match |")
    out.append("|---|---|" + "---|" * len(cols) + "---|")
    ratios = {c: [] for c in configs}
    for r in rows:
        if "missing" in r:
            out.append(f"| {r['model']} | {r['family']} | " + " | ".join("–" for _ in cols) + f" | {r['missing']} |")
            continue
        cells, checks = [], []
        for t, s in configs:
            c = r["cells"].get(t, {})
            if "error" in c:
                cells += ["–", "–", "–"]
                checks.append(c["error"])
                continue
            if s not in c.get("ours_ms", {}):
                cells += ["–", ms(c["ort_ms"]), "–"]
                checks.append(c.get("ours_error", {}).get(s, "?"))
                continue
            ratio = c["ours_ms"][s] / c["ort_ms"]
            check_text = c["check"][s]
            if check_text.startswith("ok"):
                ratios[(t, s)].append(ratio)
            else:
                checks.append(check_text)
            cells += [ms(c["ours_ms"][s]), ms(c["ort_ms"]), f"**{ratio:.2f}**"]
        ok = [c["check"][s] for t, s in configs for c in [r["cells"].get(t, {})] if s in c.get("check", {})]
        match = "; ".join(dict.fromkeys(checks)) if checks else \
            ("yes, max err/RMS " + f"{max(float(x[4:-1]) for x in ok):.0e}" if ok else "?")
        out.append(f"| {r['model']} | {r['family']} | " + " | ".join(cells) + f" | {match} |")
    gm = []
    for t, s in configs:
        gm += ["", "", f"**{geomean(ratios[(t, s)]):.2f}** ({len(ratios[(t, s)])})"]
    out.append("| geometric mean (models that ran and matched) | | " + " | ".join(gm) + " | |")
    profiles = [r for r in rows if r.get("profile")]
    if profiles:
        out.append("")
        out.append("Top time sinks, `onnxscope-cli run --profile --repeat 3 --threads 1` (each node alone, unfused; "
                   "self ms per run; Conv split by shape class), with onnxruntime's whole-model ms at 1 thread:")
        out.append("")
        for r in profiles:
            ort1 = r["cells"].get(1, {}).get("ort_ms")
            ort_text = f" (onnxruntime {ms(ort1)} ms)" if ort1 else ""
            out.append(f"- **{r['model']}**{ort_text}: {r['profile']}")
    return "\n".join(out)


def debug_table(results):
    rows = results["rows"]
    level = next((r["simd"] for r in rows if "simd" in r), "?")
    out = [header(results, level), "",
           f"Debug run to the end (`run --debug-run`) against a plain run, {results['args']['threads'][0]} thread(s), "
           f"median of {results['args']['rounds']} rounds of {results['args']['repeat']} runs, taken in turn.", "",
           "| model | family | onnxruntime ms | plain ms | debug ms | debug / plain | rounds | log ms | log / plain "
           "| debug outputs vs onnxruntime |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    ratios, log_ratios = [], []
    for r in rows:
        if "plain_ms" not in r:
            out.append(f"| {r['model']} | {r['family']} | – | – | – | – | – | – | – | "
                       f"{r.get('missing') or r.get('error')} |")
            continue
        ratio = r["debug_ms"] / r["plain_ms"]
        ratios.append(ratio)
        log_ratio = r["log_ms"] / r["plain_ms"]
        log_ratios.append(log_ratio)
        ort = ms(r["ort_ms"]) if "ort_ms" in r else "–"
        out.append(f"| {r['model']} | {r['family']} | {ort} | {ms(r['plain_ms'])} | {ms(r['debug_ms'])} | **{ratio:.2f}** | "
                   f"{min(r['ratios']):.2f}–{max(r['ratios']):.2f} | {ms(r['log_ms'])} | {log_ratio:.2f} | "
                   f"{r['check']} |")
    out.append(f"| geometric mean | | | | | **{geomean(ratios):.2f}** ({len(ratios)}) | | | {geomean(log_ratios):.2f} | |")
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cli", default=os.path.join(REPO, "build", "app", "cli", "onnxscope-cli"))
    ap.add_argument("--models-dir", default=os.path.join(CACHE, "bench-models", "wide"))
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--rounds", type=int, default=1, help="onnxruntime and onnxscope this many times in turn")
    ap.add_argument("--simd", default="native", help="comma-separated: native, avx2 (ONNXSCOPE_SIMD for onnxscope)")
    ap.add_argument("--models", default="", help="comma-separated names (default: all)")
    ap.add_argument("--families", default="", help="comma-separated families (default: all)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--profile", action="store_true", help="also list each model's top time sinks")
    ap.add_argument("--debug", action="store_true", help="measure a debug run to the end against a plain run")
    ap.add_argument("--list", action="store_true", help="list the models and exit")
    ap.add_argument("--merge", nargs="+", metavar="JSON",
                    help="print one table from the --json files of earlier runs (plain mode) and exit")
    ap.add_argument("--json", help="also write the raw results here")
    ap.add_argument("--markdown", help="also write the table here")
    args = ap.parse_args()
    args.threads = [int(t) for t in args.threads.split(",")]
    args.simd = args.simd.split(",")
    if args.merge:
        parts = [json.load(open(p)) for p in args.merge]
        latest = {r["model"]: r for p in parts for r in p["rows"]}  # a model measured again: its last run
        order = list(dict.fromkeys(r["model"] for p in parts for r in p["rows"]))
        families = list(TOLERANCES)
        rows = sorted((latest[m] for m in order),
                      key=lambda r: families.index(r["family"]) if r["family"] in families else len(families))
        merged = dict(parts[0], rows=rows)
        for r in merged["rows"]:  # JSON turned the thread counts into strings
            r["cells"] = {int(k): v for k, v in r.get("cells", {}).items()}
        merged["uptime_before"] = " / ".join(p["uptime_before"] for p in parts)
        merged["uptime_after"] = " / ".join(p["uptime_after"] for p in parts)
        print(table(merged, parts[0]["args"]["simd"], parts[0]["args"]["threads"]))
        return 0
    models = collect(args.models_dir)
    if args.models:
        wanted = args.models.split(",")
        unknown = set(wanted) - {m.name for m in models}
        if unknown:
            sys.exit(f"unknown models: {', '.join(sorted(unknown))}")
        models = [m for m in models if m.name in wanted]
    if args.families:
        models = [m for m in models if m.family in args.families.split(",")]
    if args.list:
        for m in models:
            print(f"{m.name:32s} {m.family:14s} {m.note}")
        print(f"{len(models)} models, {len({m.family for m in models})} families")
        return 0
    if not os.path.exists(args.cli):
        sys.exit(f"{args.cli} not found; build onnxscope-cli or pass --cli")
    t0 = time.time()
    if args.debug:
        results = bench_debug(args, models)
        text = debug_table(results)
    else:
        results = bench(args, models)
        text = table(results, args.simd, args.threads)
    text += f"\n\n{len(models)} models, {time.time() - t0:.0f} s."
    print(text)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text + "\n")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1, default=str)
    return 0


if __name__ == "__main__":
    sys.exit(main())
