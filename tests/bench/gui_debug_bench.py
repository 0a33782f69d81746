#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""What F5 costs in the GUI (run on demand, not in CI): issue 43's "summaries for the whole Values dock are ready within
one plain run's time after the stop, while the GUI stays responsive".

  gui_debug_bench.py [--gui build/app/gui/onnxscope] [--cli build/app/cli/onnxscope-cli]
                     [--models ocr_det,efficientnet_b0] [--runs 5] [--threads 1] [--xvfb]

Per model, with the same random inputs (seed 1):
  - plain: `onnxscope-cli run --repeat N` (median), and onnxruntime (PyPI, the test venv) at the same thread count;
  - the GUI (`onnxscope --benchmark-debug N+1`, the first run dropped as a warm-up; offscreen, or under xvfb-run with
    --xvfb), Record Profile off (quiet stretches) and on (node by node): F5 to the stop shown (the position, before the
    values are summarised), F5 to the summaries ready (DebugController::stopped and the views updated for it), the
    summarising time in between, and the GUI thread's longest stall (a 1 ms heartbeat timer's longest gap) while
    summarising and while the views take the complete stop (medians over the runs).
Prints the CPU, the SIMD level and the load (uptime) with the table: other developers share the machine.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from perf_bench import MODELS, NPM, REPO, cpu_info, make_inputs, median  # noqa: E402

import numpy as np  # noqa: E402

WIDE = os.path.join(os.environ.get("ONNXSCOPE_CACHE_DIR", os.path.expanduser("~/.cache/onnxscope")), "bench-models",
                    "wide")


def model_entry(name):
    for entry in MODELS:
        if entry[0] == name:
            return os.path.join(NPM, entry[1]), entry[2], entry[3]
    path = os.path.join(WIDE, name + ".onnx")
    if os.path.exists(path):
        return path, {}, {}
    raise SystemExit(f"unknown model {name!r}: not in perf_bench.MODELS nor {WIDE}")


def cli_plain(args, path, feeds):
    with tempfile.NamedTemporaryFile(suffix=".json") as t:
        cmd = [args.cli, "run", path, "--threads", str(args.threads), "--repeat", str(args.repeat), "--timings",
               t.name] + sum((["-i", f"{n}={p}"] for n, p in feeds), [])
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        timings = json.load(open(t.name))
    return timings["median_ms"], timings["simd"]


def ort_plain(args, path, feeds):
    import time
    import onnxruntime as ort
    options = ort.SessionOptions()
    options.intra_op_num_threads = args.threads
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])
    inputs = {n: np.load(p) for n, p in feeds}
    session.run(None, inputs)
    runs = []
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        session.run(None, inputs)
        runs.append((time.perf_counter() - t0) * 1e3)
    return median(runs)


def gui_runs(args, path, feeds, record_profile, config_dir):
    cmd = [args.gui, "--benchmark-debug", str(args.runs + 1), "--benchmark-threads", str(args.threads)]
    if record_profile:
        cmd.append("--benchmark-record-profile")
    cmd += sum((["--debug-input", f"{n}={p}"] for n, p in feeds), []) + [path]
    env = dict(os.environ, XDG_CONFIG_HOME=config_dir, ONNXSCOPE_NO_DIALOGS="1")
    if args.xvfb:
        cmd = ["xvfb-run", "-a", "-s", "-screen 0 1600x1000x24"] + cmd
        env["QT_QPA_PLATFORM"] = "xcb"
    else:
        env["QT_QPA_PLATFORM"] = "offscreen"
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env, timeout=1800).stdout
    runs = [json.loads(line) for line in out.splitlines() if line.startswith("{")][1:]
    if len(runs) != args.runs:
        raise RuntimeError(f"the GUI reported {len(runs)} runs, not {args.runs}: {out}")
    keys = ["f5_to_stop_shown_ms", "f5_to_summaries_ms", "max_stall_summarising_ms", "max_stall_after_ms"]
    result = {k: median([r[k] for r in runs]) for k in keys}
    result["summarising_ms"] = median([r["f5_to_summaries_ms"] - r["f5_to_stop_shown_ms"] for r in runs])
    result["values"] = runs[-1]["values"]
    result["simd"] = runs[-1]["simd"]
    return result


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gui", default=os.path.join(REPO, "build", "app", "gui", "onnxscope"))
    ap.add_argument("--cli", default=os.path.join(REPO, "build", "app", "cli", "onnxscope-cli"))
    ap.add_argument("--models", default="ocr_det,efficientnet_b0")
    ap.add_argument("--runs", type=int, default=5, help="timed F5 presses per configuration (after one warm-up)")
    ap.add_argument("--repeat", type=int, default=10, help="timed plain runs of the CLI and onnxruntime")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--xvfb", action="store_true", help="run the GUI under xvfb-run (xcb) instead of offscreen")
    ap.add_argument("--json", help="also write the raw results here")
    args = ap.parse_args()
    cpu = cpu_info()
    load = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    print(f"CPU: {cpu['model_name']} ({', '.join(cpu['flags'])}); threads {args.threads}; load before: {load}")
    results = {}
    rng = np.random.default_rng(1)
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.models.split(","):
            path, shapes, constants = model_entry(name)
            feeds = make_inputs(path, shapes, constants, rng, tmp, name)
            plain, simd = cli_plain(args, path, feeds)
            ort_ms = ort_plain(args, path, feeds)
            quiet = gui_runs(args, path, feeds, False, os.path.join(tmp, "config"))
            profiled = gui_runs(args, path, feeds, True, os.path.join(tmp, "config"))
            results[name] = {"cli_plain_ms": plain, "ort_ms": ort_ms, "simd": simd, "gui_quiet": quiet,
                             "gui_record_profile": profiled}
            print(f"\n{name} ({quiet['values']} values; onnxscope at {simd}):")
            print(f"  plain run: onnxscope-cli {plain:.1f} ms, onnxruntime {ort_ms:.1f} ms")
            for label, r in (("F5, quiet stretches", quiet), ("F5, Record Profile", profiled)):
                print(f"  {label}: stop shown {r['f5_to_stop_shown_ms']:.1f} ms, summaries ready "
                      f"{r['f5_to_summaries_ms']:.1f} ms (summarising {r['summarising_ms']:.1f} ms = "
                      f"{r['summarising_ms'] / plain:.2f}x a plain run); GUI stall: {r['max_stall_summarising_ms']:.1f}"
                      f" ms while summarising, {r['max_stall_after_ms']:.1f} ms taking the stop")
    load = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    print(f"\nload after: {load}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"cpu": cpu, "threads": args.threads, "results": results}, f, indent=1)


if __name__ == "__main__":
    main()
