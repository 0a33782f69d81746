"""Steps through the whole models that make_llm_models.py and make_rest_models.py write: for each case folder listed in
<dir>/ops.json, `onnxscope-cli run --debug-run --trace` runs the model node by node through the debugger on the case's
inputs and must trace every node of the main graph (by name; one line per node) and every node of its subgraphs (a Loop body's, in a
frame under the Loop's node), and `--inspect` must read the output of the main graph's first node of each operator
named on the command line (the group's operators), with its statistics.

    python3 check_whole_models.py <onnxscope-cli> <models dir> <op type> [op type ...]

Each named operator must also appear in at least one model of the folder (a generator that stopped writing it fails
here).
"""

import json
import os
import subprocess
import sys

import onnx


def main():
    cli, folder, wanted = sys.argv[1], sys.argv[2], sys.argv[3:]
    with open(os.path.join(folder, "ops.json")) as f:
        ops = json.load(f)
    failures = 0
    seen = set()
    for name in sorted(ops):
        case = os.path.join(folder, name)
        model = onnx.load(os.path.join(case, "model.onnx"))
        probes = []
        for n in model.graph.node:
            if n.op_type in wanted and n.op_type not in [p.op_type for p in probes]:
                probes.append(n)
        seen.update(p.op_type for p in probes)
        inner = [(parent.name, n) for parent in model.graph.node for a in parent.attribute
                 if a.type == onnx.AttributeProto.GRAPH for n in a.g.node]
        cmd = [cli, "run", os.path.join(case, "model.onnx"), "--debug-run", "--trace", "-q"]
        for i, vi in enumerate(model.graph.input):
            cmd += ["-i", f"{vi.name}={os.path.join(case, 'test_data_set_0', f'input_{i}.pb')}"]
        for p in probes:
            cmd += ["--inspect", p.output[0]]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        text = proc.stdout + proc.stderr
        lines = [line.split(" | ") for line in text.splitlines() if line.startswith("[trace] ")]
        main = [f for f in lines if f[0] == "[trace] main"]
        traced = set(f[2] for f in main)
        missing = [n.name for n in model.graph.node if n.name and n.name not in traced]
        if len(main) != len(model.graph.node):  # unnamed nodes (optimizer-written models) count by their lines
            missing.append(f"{len(model.graph.node)} nodes, {len(main)} trace lines")
        for parent, n in inner:
            if not any(f[2] == n.name and f'"{parent}"' in f[0] for f in lines):
                missing.append(f"{parent} / {n.name}")
            elif n.op_type in wanted:
                seen.add(n.op_type)
        uninspected = [p.output[0] for p in probes if f'value "{p.output[0]}":' not in text]
        if proc.returncode != 0 or missing or uninspected:
            failures += 1
            print(f"FAIL {name}: exit {proc.returncode}, nodes missing from the trace: {missing}, values not "
                  f"inspected: {uninspected}\n{text[-2000:]}")
        else:
            print(f"ok   {name}: {len(model.graph.node)} nodes and {len(inner)} subgraph nodes traced; inspected "
                  f"{', '.join(p.op_type + ' ' + p.output[0] for p in probes)}")
    absent = sorted(set(wanted) - seen)
    if absent:
        failures += 1
        print(f"FAIL no model holds {absent}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
