#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Estimate (run on demand, not in CI) of the fastest debug run this machine allows for a model.

  debug_floor.py --cli build/app/cli/onnxscope-cli MODEL NAME=FILE.npy [--repeat 30] [--write-gib-s RATE]

A debug run executes every node on its own (nothing fused away) and keeps every output, so each output is written
to memory that is not in cache. Per node, it cannot be faster than the larger of:
  - t_i, the node's time in a plain run with a profile attached (unfused, writing into reused, cache-warm buffers);
  - bytes_i / W, its outputs written at this machine's rate W for writing mapped memory that is not in cache
    (numpy's fill of a buffer as large as all the outputs, timed here unless --write-gib-s is given).
The estimate is the sum over the main graph's nodes (Constant nodes are values known at plan time; Reshape, Squeeze,
Unsqueeze, Flatten and Identity share their input's storage). It assumes a node's writes do not overlap the next
node's work, so it is a model, not a proof. It prints it beside the plain and debug medians (`run --repeat`).
"""
import argparse
import re
import subprocess
import time

import numpy as np

ELEMENT_BYTES = {'float': 4, 'float16': 2, 'double': 8, 'int64': 8, 'int32': 4, 'int16': 2, 'int8': 1, 'uint8': 1,
                 'bool': 1}
SHARES_STORAGE = {'Reshape', 'Squeeze', 'Unsqueeze', 'Flatten', 'Identity'}


def write_rate_gib_s(mib):
    buffer = np.empty(max(mib, 1) * 2**20 // 4, np.float32)
    buffer.fill(1.0)  # fault every page in first, as the storage cache's blocks are
    times = []
    for _ in range(15):
        start = time.perf_counter()
        buffer.fill(2.0)
        times.append(time.perf_counter() - start)
    return mib / 1024 / sorted(times)[len(times) // 2]


def run(cli, *args):
    return subprocess.run([cli, 'run', *args], capture_output=True, text=True, check=True).stdout


def median_ms(text):
    match = re.search(r'median ([\d.]+) (ms|us|µs)', text)
    return float(match.group(1)) / (1000 if match.group(2) != 'ms' else 1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--cli', required=True)
    parser.add_argument('--repeat', type=int, default=30)
    parser.add_argument('--write-gib-s', type=float)
    parser.add_argument('model')
    parser.add_argument('inputs', nargs='+', help='NAME=FILE.npy')
    a = parser.parse_args()
    given = [arg for name_file in a.inputs for arg in ('-i', name_file)]

    node_ms = {}
    for line in run(a.cli, a.model, *given, '--profile', '--repeat', str(a.repeat), '-q').splitlines():
        m = re.match(r'\s+[\d.]+\s+([\d.]+)\s+[\d.]+\s+(\d+)\s+\S+\s+main / (.+)$', line)
        if m:
            node_ms[m.group(3).strip()] = float(m.group(1)) / int(m.group(2))
    outputs = []  # (node, bytes)
    for line in run(a.cli, a.model, *given, '--trace', '-q').splitlines():
        parts = [p.strip() for p in line.split('|')]
        if len(parts) < 5 or parts[0] != '[trace] main' or parts[1] == 'Constant':
            continue
        size = 0
        if parts[1] not in SHARES_STORAGE:
            for element, dims in re.findall(r'(\w+)\[([\d, ]*)\]', parts[3]):
                count = 1
                for d in dims.split(','):
                    count *= int(d) if d.strip() else 1
                size += count * ELEMENT_BYTES.get(element, 4)
        outputs.append((parts[2], size))
    written = sum(size for _, size in outputs)
    rate = a.write_gib_s or write_rate_gib_s(written // 2**20)
    unfused = sum(node_ms.get(node, 0.0) for node, _ in outputs)
    floor = sum(max(node_ms.get(node, 0.0), size / (rate * 2**30) * 1e3) for node, size in outputs)
    plain = median_ms(run(a.cli, a.model, *given, '--repeat', str(a.repeat), '-q'))
    debug = median_ms(run(a.cli, a.model, *given, '--repeat', str(a.repeat), '--debug-run', '-q'))
    print(f'nodes {len(outputs)}, outputs {written / 2**20:.1f} MiB, write rate {rate:.1f} GiB/s')
    print(f'plain {plain:.3f} ms | unfused node times {unfused:.3f} ms ({unfused / plain:.2f}x plain) | '
          f'floor {floor:.3f} ms ({floor / plain:.2f}x plain) | debug {debug:.3f} ms ({debug / plain:.2f}x plain, '
          f'{debug / floor:.2f}x floor)')


if __name__ == '__main__':
    main()
