#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Step Back, measured (run on demand, not in CI), with the onnxscope Python module (PYTHONPATH=build/python):

  step_back_bench.py MODEL [--shape x=1,3,640,640] [--budgets default,64M,1M] [--repeat 10]

For each budget: a debug run to the end, then Step Back from the end and from the middle of the run (each a restore
of the nearest checkpoint and a replay), timed, next to the median of plain runs of the same inputs.
"""
import argparse
import statistics
import time

import numpy as np
import onnxscope


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('model')
    ap.add_argument('--shape', action='append', default=[], help='NAME=D0,D1,...')
    ap.add_argument('--budgets', default='default,64M,1M')
    ap.add_argument('--repeat', type=int, default=10)
    a = ap.parse_args()
    m = onnxscope.load(a.model)
    shapes = {s.split('=')[0]: [int(d) for d in s.split('=')[1].split(',')] for s in a.shape}
    rng = np.random.default_rng(0)
    feeds = {}
    for i in m.inputs:
        shape = shapes.get(i.name) or [d if isinstance(d, int) else 1 for d in i.shape]
        feeds[i.name] = rng.uniform(-1, 1, shape).astype(i.dtype)
    m.run(feeds)
    plain = []
    for _ in range(a.repeat):
        t = time.perf_counter()
        m.run(feeds)
        plain.append((time.perf_counter() - t) * 1e3)
    p = statistics.median(plain)
    print(f'plain run: median {p:.1f} ms over {a.repeat}')
    for budget in a.budgets.split(','):
        d = m.debug(feeds, memory_budget=None if budget == 'default' else budget)
        t = time.perf_counter()
        d.cont()
        run_ms = (time.perf_counter() - t) * 1e3
        end = d.position.step
        back_end, back_mid = [], []
        for _ in range(a.repeat):
            d.go_to(end)
            t = time.perf_counter()
            d.step_back()
            back_end.append((time.perf_counter() - t) * 1e3)
            d.go_to(end // 2)
            t = time.perf_counter()
            d.step_back()
            back_mid.append((time.perf_counter() - t) * 1e3)
        r = d.memory_report
        print(f'budget {budget}: debug run {run_ms:.1f} ms; Step Back from the end {statistics.median(back_end):.1f} ms '
              f'({statistics.median(back_end) / p:.2f}x plain), from the middle {statistics.median(back_mid):.1f} ms '
              f'({statistics.median(back_mid) / p:.2f}x plain); max {max(back_end + back_mid) / p:.2f}x; '
              f'{r["checkpoints"]} checkpoints every {r["checkpoint_interval"]} nodes, {r["dropped_values"]} dropped')


if __name__ == '__main__':
    main()
