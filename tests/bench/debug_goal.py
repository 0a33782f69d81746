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
  - debug: --debug-run at the default budget (a quarter of the RAM): a summary of every value as it is made, and
    checkpoints; the data is released as in a plain run and rebuilt on demand;
  - debug_nosum: debug with ONNXSCOPE_NO_SUMMARIES=1 (no summary of each value: what the summaries cost);
  - debug_keep: --debug-run --keep-data (the data of every value kept too: all of it, for these models);
  - debug_tiny: --debug-run --keep-data --memory-budget 1M (values dropped as they go, each summarised when
    dropped).
Prints each configuration's median over the rounds' medians, its ratio to plain (the ratio's range over the rounds
too), and the peak RSS (VmHWM).
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
    "debug_nosum": (["--debug-run"], {"ONNXSCOPE_NO_SUMMARIES": "1"}),
    "debug_keep": (["--debug-run", "--keep-data"], {}),
    "debug_tiny": (["--debug-run", "--keep-data", "--memory-budget", "1M"], {}),
}


def run_config(cli, model_path, feeds, threads, repeat, config, tmp):
    args, env = CONFIGS[config]
    timings = os.path.join(tmp, "timings.json")
    cmd = [cli, "run", model_path, "-q", "--repeat", str(repeat), "--threads", str(threads), "--timings", timings]
    for name, path in feeds:
        cmd += ["--input", f"{name}={path}"]
    cmd += args
    proc = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, **env})
    if proc.returncode != 0:
        raise RuntimeError(f"{config}: {proc.stderr.strip()}")
    t = json.load(open(timings))
    return t["median_ms"], t["peak_rss_kib"], t.get("simd", "")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--models", default="")
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--configs", default=",".join(CONFIGS))
    a = ap.parse_args()
    configs = a.configs.split(",")
    rng = np.random.default_rng(0)
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, rel, shapes, constants in MODELS:
            if a.models and name not in a.models.split(","):
                continue
            model_path = os.path.join(NPM, rel)
            if not os.path.exists(model_path):
                print(f"skip {name}: {model_path} is missing")
                continue
            feeds = make_inputs(model_path, shapes, constants, rng, tmp, name)
            per = {c: [] for c in configs}
            rss = {c: 0 for c in configs}
            simd = ""
            for _ in range(a.rounds):
                for c in configs:
                    ms, kib, simd = run_config(a.cli, model_path, feeds, a.threads, a.repeat, c, tmp)
                    per[c].append(ms)
                    rss[c] = max(rss[c], kib)
            results[name] = per
            plain = per["plain"]
            print(f"{name} ({a.threads} thread(s), SIMD {simd}, {a.rounds} rounds of {a.repeat} runs)")
            for c in configs:
                med = float(np.median(per[c]))
                ratios = [x / p for x, p in zip(per[c], plain)]
                print(f"  {c:11s} {med:9.3f} ms  {med / float(np.median(plain)):5.2f}x plain "
                      f"(rounds {min(ratios):.2f}-{max(ratios):.2f})  peak RSS {rss[c] / 1024:7.1f} MiB")
            sys.stdout.flush()
    print(json.dumps(results))


if __name__ == "__main__":
    main()
