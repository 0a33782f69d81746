#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""The debug-run goal, measured (run on demand, not in CI): how a debug run with every value inspectable compares with
a plain run, and what stands between them.

  debug_goal.py --cli build/app/cli/onnxscope-cli [--models ocr_det,ocr_rec] [--repeat 20] [--rounds 3] [--threads 1]

Per model, in rounds that take the configurations in turn (the machine's noise then hits them alike), each in a
process of its own with `run --repeat N --timings`:
  - plain: the ordinary run (fused steps, in-place writes, values freed after their last use);
  - unfused: a plain run with ONNXSCOPE_NO_FUSION=1 (every node on its own, in-place writes and freeing kept): the
    part of a debug run's cost that comes from running nodes one by one;
  - keep: --keep-values, every node output kept by a hook that does nothing else (no fusion, no in-place writes);
  - debug: --debug-run at the default budget (a quarter of the RAM): a quiet stretch to the end (fused, in place, values
    freed, as a plain run), then the value log (every value's record and summary, checkpoints) filled in after the
    stop by a replay node by node, timed apart ("log ms": what a caller waits for the summaries after the stop);
  - debug_nbn: debug with ONNXSCOPE_DEBUG_NODE_BY_NODE=1 (no quiet stretch: every node through the debugger, each value
    summarised as it is made, as before issue 43);
  - debug_break, debug_nbn_break: the same two, timed up to a node breakpoint set before the run on the main graph's
    middle node (--break-at), and the log to there;
  - debug_nan, debug_nan_nbn: debug and debug_nbn with a NaN/Inf breakpoint set (--break-on-nan, no NaN met): the
    quiet stretch tests every node's outputs and runs no fused step (in place, values freed);
  - debug_nosum: debug with ONNXSCOPE_NO_SUMMARIES=1 (no summary of each value: what the summaries cost);
  - debug_keep: --debug-run --keep-data (the data of every value kept too: all of it, for these models);
  - debug_tiny: --debug-run --keep-data --memory-budget 1M (values dropped as they go, each summarised when
    dropped);
  - debug_unfused, debug_unfused_log1: debug with ONNXSCOPE_NO_FUSION=1 (compare with unfused): a stretch with no fused
    step takes checkpoints and its log is filled by segments in parallel; _log1 with ONNXSCOPE_LOG_THREADS=1 (the
    serial replay from the stretch's start).
Prints each configuration's median over the rounds' medians, its ratio to plain (the ratio's range over the rounds
too), the process CPU time's median and ratio (steadier than wall time on a shared machine), and the peak RSS (VmHWM).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from perf_bench import MODELS, NPM, make_inputs  # noqa: E402

import numpy as np  # noqa: E402

CONFIGS = {
    "plain": ([], {}),
    "unfused": ([], {"ONNXSCOPE_NO_FUSION": "1"}),
    "keep": (["--keep-values"], {}),
    "debug": (["--debug-run"], {}),
    "debug_nbn": (["--debug-run"], {"ONNXSCOPE_DEBUG_NODE_BY_NODE": "1"}),
    "debug_break": (["--debug-run", "--break-at", "MIDDLE"], {}),
    "debug_nbn_break": (["--debug-run", "--break-at", "MIDDLE"], {"ONNXSCOPE_DEBUG_NODE_BY_NODE": "1"}),
    "debug_nan": (["--debug-run", "--break-on-nan"], {}),
    "debug_nan_nbn": (["--debug-run", "--break-on-nan"], {"ONNXSCOPE_DEBUG_NODE_BY_NODE": "1"}),
    "debug_nosum": (["--debug-run"], {"ONNXSCOPE_NO_SUMMARIES": "1"}),
    "debug_keep": (["--debug-run", "--keep-data"], {}),
    "debug_tiny": (["--debug-run", "--keep-data", "--memory-budget", "1M"], {}),
    # Fusion off in the run and the log (set against "unfused"): the stretch then takes checkpoints and completeLog()
    # replays its segments in parallel (ONNXSCOPE_LOG_THREADS, else the session's threads, at least 2); and the same
    # with the log serial, as before.
    "debug_unfused": (["--debug-run"], {"ONNXSCOPE_NO_FUSION": "1"}),
    "debug_unfused_log1": (["--debug-run"], {"ONNXSCOPE_NO_FUSION": "1", "ONNXSCOPE_LOG_THREADS": "1"}),
}


def middle_node(model_path):
    """The display name of the main graph's middle node (its name, else OpType_index, as onnxscope shows it)."""
    import onnx
    nodes = onnx.load(model_path, load_external_data=False).graph.node
    i = len(nodes) // 2
    return nodes[i].name or f"{nodes[i].op_type}_{i}"


def run_config(cli, model_path, feeds, threads, repeat, config, tmp):
    args, env = CONFIGS[config]
    args = [middle_node(model_path) if x == "MIDDLE" else x for x in args]
    timings = os.path.join(tmp, "timings.json")
    cmd = [cli, "run", model_path, "-q", "--repeat", str(repeat), "--threads", str(threads), "--timings", timings]
    if feeds is None:
        cmd += ["--random-inputs", "--seed", "1"]
    for name, path in feeds or []:
        cmd += ["--input", f"{name}={path}"]
    cmd += args
    proc = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, **env})
    if proc.returncode != 0:
        raise RuntimeError(f"{config}: {proc.stderr.strip()}")
    t = json.load(open(timings))
    cpu = float(np.median(t["cpu_ms"])) if t.get("cpu_ms") else 0.0
    return t["median_ms"], t["peak_rss_kib"], t.get("simd", ""), t.get("log_median_ms", 0.0), cpu


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--models", default="")
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--configs", default=",".join(CONFIGS))
    ap.add_argument("--wide", default="", help="wide bench models to add (names in ~/.cache/onnxscope/bench-models/wide, "
                    "random inputs, seed 1)")
    a = ap.parse_args()
    configs = a.configs.split(",")
    rng = np.random.default_rng(0)
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        wide_dir = os.path.expanduser("~/.cache/onnxscope/bench-models/wide")
        todo = [(name, os.path.join(NPM, rel), (shapes, constants)) for name, rel, shapes, constants in MODELS
                if not a.models or name in a.models.split(",")]
        todo += [(w, os.path.join(wide_dir, w + ".onnx"), None) for w in a.wide.split(",") if w]
        for name, model_path, spec in todo:
            if not os.path.exists(model_path):
                print(f"skip {name}: {model_path} is missing")
                continue
            feeds = make_inputs(model_path, spec[0], spec[1], rng, tmp, name) if spec else None
            per = {c: [] for c in configs}
            logs = {c: [] for c in configs}
            cpus = {c: [] for c in configs}
            rss = {c: 0 for c in configs}
            simd = ""
            for _ in range(a.rounds):
                for c in configs:
                    ms, kib, simd, log_ms, cpu_ms = run_config(a.cli, model_path, feeds, a.threads, a.repeat, c, tmp)
                    cpus[c].append(cpu_ms)
                    per[c].append(ms)
                    logs[c].append(log_ms)
                    rss[c] = max(rss[c], kib)
            results[name] = per
            plain = per["plain"]
            print(f"{name} ({a.threads} thread(s), SIMD {simd}, {a.rounds} rounds of {a.repeat} runs)")
            for c in configs:
                med = float(np.median(per[c]))
                ratios = [x / p for x, p in zip(per[c], plain)]
                log = float(np.median(logs[c]))
                cpu = float(np.median(cpus[c]))
                print(f"  {c:15s} {med:9.3f} ms  {med / float(np.median(plain)):5.2f}x plain "
                      f"(rounds {min(ratios):.2f}-{max(ratios):.2f})  process CPU {cpu:9.3f} ms "
                      f"{cpu / float(np.median(cpus['plain'])):5.2f}x  peak RSS {rss[c] / 1024:7.1f} MiB"
                      + (f"  log {log:8.3f} ms ({log / float(np.median(plain)):.2f}x plain)" if log else ""))
            sys.stdout.flush()
    print(json.dumps(results))


if __name__ == "__main__":
    main()
