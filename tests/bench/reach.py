#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""What the CPU allows (issue 42, run on demand, never in CI): a floor under onnxscope's time at a SIMD level, set by
the multiply-adds each model needs and the most the CPU can do at that level, against onnxruntime's measured time.

  <test venv>/bin/python tests/bench/reach.py [--models a,b] [--threads 1,2] [--repeat 15] [--json FILE]

For each model of the wide bench (tests/bench/wide_models.py's exports; by default those whose time is mostly
convolutions and products):
  - its floating-point work: 2 x the multiply-adds of every Conv, ConvTranspose, MatMul and Gemm, from the shapes ONNX
    shape inference gives (a node whose shapes stay unknown is counted as unknown, never guessed);
  - onnxruntime's median time (the PyPI onnxruntime of this Python, default optimizations, N intra-op threads), and
    the rate that makes, GFLOP/s;
  - the CPU's peak multiply-add rate at AVX2 (256-bit FMA) and AVX-512 (512-bit FMA) on N threads at once, measured
    by a loop of 12 independent FMA chains in registers on each (a C file compiled here with the system's cc, `-O2`,
    target attributes per level; the best of 5 rounds, so the clock is the one sustained under that load);
  - the floor: work / peak at the level on N threads, over onnxruntime's time. Above 1.0, code at that level cannot
    match onnxruntime on that model even at the CPU's peak rate with nothing but the products to do, so the goal of
    1.0x at `ONNXSCOPE_SIMD=avx2` against onnxruntime at its widest level is out of reach there with these algorithms
    (onnxruntime's direct and GEMM convolutions; a Winograd or FFT convolution needs fewer multiplies but rounds
    differently from the reference).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import shape_inference

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import wide_bench  # noqa: E402
from perf_bench import cpu_info, median  # noqa: E402

DEFAULT_MODELS = ["resnet18", "resnet50", "densenet121", "squeezenet1_1", "fcn_resnet50", "retinanet_resnet50_fpn",
                  "fcos_resnet50_fpn", "vit_b_16", "swin_t", "convnext_tiny", "maxvit_t", "ddddocr_det",
                  "mobilenet_v2", "efficientnet_b0", "wav2vec2_small", "whisper_tiny_encoder"]

PEAK_C = r"""
#include <immintrin.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
#define CHAINS 12
__attribute__((target("avx2,fma"))) static double peak256(long n) {
    __m256 a[CHAINS], x = _mm256_set1_ps(1.0000001f), y = _mm256_set1_ps(0.9999999f);
    for (int i = 0; i < CHAINS; i++) a[i] = _mm256_set1_ps((float)i);
    double t = now();
    for (long k = 0; k < n; k++) {
#pragma GCC unroll 12
        for (int i = 0; i < CHAINS; i++) a[i] = _mm256_fmadd_ps(a[i], x, y); /* unrolled: kept in registers */
    }
    t = now() - t;
    float s = 0, b[8];
    for (int i = 0; i < CHAINS; i++) { _mm256_storeu_ps(b, a[i]); s += b[0]; }
    if (s == 12345.f) puts("");
    return n * CHAINS * 8.0 * 2 / t / 1e9;
}
__attribute__((target("avx512f"))) static double peak512(long n) {
    __m512 a[CHAINS], x = _mm512_set1_ps(1.0000001f), y = _mm512_set1_ps(0.9999999f);
    for (int i = 0; i < CHAINS; i++) a[i] = _mm512_set1_ps((float)i);
    double t = now();
    for (long k = 0; k < n; k++) {
#pragma GCC unroll 12
        for (int i = 0; i < CHAINS; i++) a[i] = _mm512_fmadd_ps(a[i], x, y);
    }
    t = now() - t;
    float s = 0;
    for (int i = 0; i < CHAINS; i++) s += _mm512_reduce_add_ps(a[i]);
    if (s == 12345.f) puts("");
    return n * CHAINS * 16.0 * 2 / t / 1e9;
}
struct job { int avx512; double rate; };
static void* work(void* p) {
    struct job* j = p;
    j->rate = j->avx512 ? peak512(100000000) : peak256(100000000);
    return NULL;
}
/* argv[1]: threads; argv[2] present: also AVX-512. Prints the best of 5 rounds of the threads' summed rates. */
int main(int argc, char** argv) {
    int threads = atoi(argv[1]), avx512 = argc > 2;
    double best[2] = { 0, 0 };
    for (int r = 0; r < 5; r++)
        for (int level = 0; level <= avx512; level++) {
            pthread_t t[64];
            struct job j[64];
            for (int i = 0; i < threads; i++) { j[i].avx512 = level; pthread_create(&t[i], NULL, work, &j[i]); }
            double sum = 0;
            for (int i = 0; i < threads; i++) { pthread_join(t[i], NULL); sum += j[i].rate; }
            if (sum > best[level]) best[level] = sum;
        }
    printf("{\"avx2\": %.2f, \"avx512\": %.2f}\n", best[0], best[1]);
    return 0;
}
"""


def peaks(avx512, threads):
    """GFLOP/s of the FMA loop on `threads` threads at once (the best of 5 rounds), per level."""
    with tempfile.TemporaryDirectory() as tmp:
        src, exe = os.path.join(tmp, "peak.c"), os.path.join(tmp, "peak")
        with open(src, "w") as f:
            f.write(PEAK_C)
        subprocess.run(["cc", "-O2", "-pthread", "-o", exe, src], check=True)
        out = subprocess.run([exe, str(threads)] + (["512"] if avx512 else []), capture_output=True, text=True,
                             check=True).stdout
        return json.loads(out)


def dims(value_info):
    return [d.dim_value if d.HasField("dim_value") else None for d in value_info.type.tensor_type.shape.dim]


def work(path):
    """(GFLOP of the products, nodes whose shapes stayed unknown)."""
    model = shape_inference.infer_shapes(onnx.load(path, load_external_data=False), data_prop=True)
    g = model.graph
    shapes = {vi.name: dims(vi) for vi in list(g.value_info) + list(g.input) + list(g.output)}
    shapes.update({t.name: list(t.dims) for t in g.initializer})
    flops, unknown = 0, 0
    for n in g.node:
        if n.op_type not in ("Conv", "ConvTranspose", "MatMul", "Gemm"):
            continue
        a, w, y = shapes.get(n.input[0]), shapes.get(n.input[1]), shapes.get(n.output[0])
        if not a or not w or not y or None in a or None in w or None in y:
            unknown += 1
            continue
        if n.op_type == "Conv":
            flops += 2 * int(np.prod(y)) * int(np.prod(w[1:]))  # each output: C/group x kernel taps
        elif n.op_type == "ConvTranspose":
            flops += 2 * int(np.prod(a)) * int(np.prod(w[1:]))  # each input: C_out/group x kernel taps
        else:
            trans_a = any(at.name == "transA" and at.i for at in n.attribute)
            k = a[0] if n.op_type == "Gemm" and trans_a else a[-1]
            flops += 2 * int(np.prod(y)) * k
    return flops / 1e9, unknown


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--models-dir", default=os.path.join(wide_bench.CACHE, "bench-models", "wide"))
    p.add_argument("--models", default=",".join(DEFAULT_MODELS))
    p.add_argument("--threads", default="1,2")
    p.add_argument("--repeat", type=int, default=15)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json")
    args = p.parse_args()
    threads = [int(t) for t in args.threads.split(",")]
    cpu = cpu_info()
    peak = {t: peaks("avx512f" in cpu["flags"], t) for t in threads}
    wanted = args.models.split(",")
    models = {m.name: m for m in wide_bench.collect(args.models_dir)}
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in wanted:
            m = models.get(name)
            if not m or not m.path or not os.path.exists(m.path):
                print(f"{name}: not made (tests/bench/wide_models.py)", file=sys.stderr)
                continue
            gflop, unknown = work(m.path)
            feeds = m.feeds_fn(np.random.default_rng(args.seed), tmp)
            row = {"model": name, "gflop": gflop, "unknown_nodes": unknown, "ort_ms": {}}
            for t in threads:
                o = wide_bench.run_ort(m, feeds, t, args.repeat, os.path.join(tmp, "ort"))
                if "error" in o:
                    row["error"] = o["error"]
                    break
                row["ort_ms"][t] = median(o["runs_ms"])
            rows.append(row)
            print(f"{name}: {gflop:.2f} GFLOP, onnxruntime {row['ort_ms']}", file=sys.stderr, flush=True)
    print(f"CPU: {cpu}")
    for t in threads:
        print(f"FMA peak on {t} thread(s) at once, measured: AVX2 {peak[t]['avx2']:.1f} GFLOP/s, "
              f"AVX-512 {peak[t]['avx512']:.1f} GFLOP/s")
    print()
    head = "| model | GFLOP (products) |"
    rule = "|---|---|"
    for t in threads:
        head += f" onnxruntime {t}T ms | its GFLOP/s | floor at AVX2 {t}T | floor at AVX-512 {t}T |"
        rule += "---|---|---|---|"
    print(head)
    print(rule)
    for r in rows:
        unknown = f" ({r['unknown_nodes']} unknown)" if r["unknown_nodes"] else ""
        line = f"| {r['model']} | {r['gflop']:.2f}{unknown} |"
        for t in threads:
            ms = r["ort_ms"].get(t)
            if ms is None:
                line += " – | – | – | – |"
                continue
            rate = r["gflop"] / (ms / 1e3)
            f2 = rate / peak[t]["avx2"]
            f5 = rate / peak[t]["avx512"] if peak[t]["avx512"] else float("nan")
            line += f" {ms:.3g} | {rate:.0f} | {'**' if f2 > 1 else ''}{f2:.2f}{'**' if f2 > 1 else ''} | {f5:.2f} |"
        print(line)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"cpu": cpu, "peak": peak, "rows": rows}, f, indent=1, default=str)


if __name__ == "__main__":
    main()
