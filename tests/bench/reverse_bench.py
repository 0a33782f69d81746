#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Reverse Continue and Run Back to Node, measured (run on demand, not in CI), with the onnxscope Python module
(PYTHONPATH=build/python):

  reverse_bench.py MODEL [--shape x=1,3,640,640] [--at 0.9] [--repeat 3]

A debug run to the end with a breakpoint on the node at the fraction --at of the main graph, then Reverse Continue
back to it; and a run to the end, then Run Back to that node. Each timed (median of --repeat), next to the median of
plain runs of the same inputs in the same process.
"""
import argparse
import statistics
import time

import numpy as np
import onnx
import onnxscope


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('model')
    ap.add_argument('--shape', action='append', default=[], help='NAME=D0,D1,...')
    ap.add_argument('--at', type=float, default=0.9)
    ap.add_argument('--repeat', type=int, default=3)
    a = ap.parse_args()
    shapes = {s.split('=')[0]: [int(d) for d in s.split('=')[1].split(',')] for s in a.shape}
    proto = onnx.load(a.model, load_external_data=False)
    inits = {i.name for i in proto.graph.initializer}
    rng = np.random.default_rng(0)
    feeds = {}
    for vi in proto.graph.input:
        if vi.name in inits:
            continue
        shape = shapes.get(vi.name) or [d.dim_value or 1 for d in vi.type.tensor_type.shape.dim]
        feeds[vi.name] = rng.uniform(-1, 1, shape).astype(np.float32)
    model = onnxscope.load(a.model)
    plain = []
    for _ in range(max(a.repeat, 5)):
        t = time.perf_counter()
        model.run(feeds)
        plain.append(time.perf_counter() - t)
    names = [n.name for n in proto.graph.node]
    target = names[min(len(names) - 1, int(len(names) * a.at))]
    times = {}
    for label in ('reverse_cont', 'run_back_to'):
        ts = []
        for _ in range(a.repeat):
            dbg = model.debug(feeds)
            if label == 'reverse_cont':
                dbg.break_on(node=target)
                dbg.cont()
                dbg.cont()
                t = time.perf_counter()
                p = dbg.reverse_cont()
            else:
                dbg.cont()
                t = time.perf_counter()
                p = dbg.run_back_to(target)
            ts.append(time.perf_counter() - t)
            assert p.node == target, (p, target)
        times[label] = statistics.median(ts)
    pm = statistics.median(plain)
    print(f"plain {pm * 1e3:.1f} ms; back to node {names.index(target) + 1} of {len(names)}: "
          + ", ".join(f"{k} {v * 1e3:.1f} ms ({v / pm:.2f}x plain)" for k, v in times.items()))


if __name__ == '__main__':
    main()
