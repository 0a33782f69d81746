#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Rebuilding dropped values, measured (run on demand, not in CI): for every value of a model's main graph, the time
to rebuild it at a budget that drops it, next to the time its producer and the nodes before it back to the
checkpoint take in a plain run without fusion (the time to re-run from its checkpoint).

  remat_bench.py --cli build/app/cli/onnxscope-cli [--budget 1M] [--repeat 10] MODEL NAME=FILE.npy ...

`run --debug-run --memory-budget B --inspect V...` rebuilds each value on its own and reports, in --timings, its time
and the session steps its replay ran (from the checkpoint). The per-node times come from `run --profile` of
ONNXSCOPE_NO_FUSION=1 plain runs. Prints the median rebuild time, the median time to re-run from the checkpoint, and
the median of their ratio.
"""
import argparse
import json
import os
import re
import subprocess
import tempfile

import numpy as np


def run(cli, *args, env=None):
    return subprocess.run([cli, 'run', *args], capture_output=True, text=True, check=True,
                          env={**os.environ, **(env or {})}).stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--cli', required=True)
    ap.add_argument('--budget', default='1M')
    ap.add_argument('--repeat', type=int, default=10)
    ap.add_argument('model')
    ap.add_argument('inputs', nargs='+', help='NAME=FILE.npy')
    a = ap.parse_args()
    given = [arg for name_file in a.inputs for arg in ('-i', name_file)]

    node_ms = {}
    for line in run(a.cli, a.model, *given, '--profile', '--repeat', str(a.repeat), '-q',
                    env={'ONNXSCOPE_NO_FUSION': '1'}).splitlines():
        m = re.match(r'\s+[\d.]+\s+([\d.]+)\s+[\d.]+\s+(\d+)\s+\S+\s+main / (.+)$', line)
        if m:
            node_ms[m.group(3).strip()] = float(m.group(1)) / int(m.group(2))
    # Main-graph nodes in execution order with their outputs' names.
    order, producer = [], {}
    for line in run(a.cli, a.model, *given, '--trace', '-q').splitlines():
        parts = [p.strip() for p in line.split('|')]
        if len(parts) < 5 or parts[0] != '[trace] main':
            continue
        order.append(parts[2])
    plain_ms = sum(node_ms.get(n, 0.0) for n in order)
    with tempfile.TemporaryDirectory() as tmp:
        dump = os.path.join(tmp, 'dump')
        run(a.cli, a.model, *given, '--dump-all', dump, '-q')
        manifest = json.load(open(os.path.join(dump, 'manifest.json')))['tensors']
        names = [t['name'] for t in manifest if t['frame'] == 'main' and t['kind'] == 'intermediate']
        for t in manifest:
            if t['frame'] == 'main':
                producer[t['name']] = t['node']
        timings = os.path.join(tmp, 't.json')
        args = [a.model, *given, '-q', '--debug-run', '--memory-budget', a.budget, '--timings', timings]
        for n in names:
            args += ['--inspect', n]
        run(a.cli, *args)
        t = json.load(open(timings))
    index = {n: i for i, n in enumerate(order)}
    rebuild, rerun, ratio = [], [], []
    for r in t['recomputations']:
        node = producer.get(r['name'])
        if node not in index:
            continue
        end = index[node]
        # The replay's steps are main-graph nodes here (the bench models have no subgraphs in their main path).
        start = max(0, end - r['replayed_steps'] + 1)
        cost = sum(node_ms.get(n, 0.0) for n in order[start:end + 1])
        rebuild.append(r['ms'])
        rerun.append(cost)
        if cost > 0:
            ratio.append(r['ms'] / cost)
    print(f"{len(rebuild)} of {len(names)} values rebuilt at {a.budget} (checkpoint interval "
          f"{t['checkpoint_interval']} nodes, {t['checkpoints']} checkpoints, {t['dropped_values']} dropped)")
    print(f"median rebuild {np.median(rebuild):.3f} ms (max {max(rebuild):.3f}); median re-run from the checkpoint "
          f"{np.median(rerun):.3f} ms; median rebuild / re-run {np.median(ratio):.2f} "
          f"(p90 {np.percentile(ratio, 90):.2f}); unfused plain run {plain_ms:.1f} ms; peak RSS "
          f"{t['peak_rss_kib'] / 1024:.1f} MiB")


if __name__ == '__main__':
    main()
