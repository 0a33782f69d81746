"""docs/custom-ops.md names every operator that onnxruntime's CPU provider registers outside onnx's schemas (issue
#41): each com.microsoft and com.microsoft.nchwc op of the pinned onnxruntime's kernel registry
(get_all_opkernel_def(), CPUExecutionProvider; the registry that ort_cpu_coverage.txt is checked against), and each
default-domain op that onnx has no schema for (the experimental ones), has a table row whose first cell names it (for
com.microsoft.nchwc, a row whose first cell also says `com.microsoft.nchwc`) with a non-empty "implemented" cell.

    <test venv python> check_ops_doc.py <docs/custom-ops.md>
"""

import re
import sys

import onnx.defs
from onnxruntime.capi import onnxruntime_pybind11_state as ort_state


def rows(text):
    """(first cell, second cell) of every table row."""
    out = []
    for line in text.splitlines():
        if not line.startswith("|") or line.startswith("|---"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 2:
            out.append((cells[0], cells[1]))
    return out


def documented(op, domain, table):
    word = re.compile(r"(?<![A-Za-z0-9_])" + re.escape(op) + r"(?![A-Za-z0-9_])")
    for first, second in table:
        if not word.search(first.replace("`", "")) or not second:
            continue
        if domain == "com.microsoft.nchwc" and "nchwc" not in first:
            continue
        return True
    return False


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        table = rows(f.read())
    wanted = set()
    for k in ort_state.get_all_opkernel_def():
        if k.provider != "CPUExecutionProvider":
            continue
        if k.domain in ("com.microsoft", "com.microsoft.nchwc"):
            wanted.add((k.domain, k.op_name))
        elif k.domain == "" and not onnx.defs.has(k.op_name):
            wanted.add(("ai.onnx", k.op_name))
    missing = sorted(w for w in wanted if not documented(w[1], w[0], table))
    for domain, op in missing:
        print(f"FAIL {domain} {op}: no row of docs/custom-ops.md names it")
    by_domain = {}
    for d, _ in wanted:
        by_domain[d] = by_domain.get(d, 0) + 1
    print(f"{len(wanted) - len(missing)} of {len(wanted)} documented ("
          + ", ".join(f"{d}: {n}" for d, n in sorted(by_domain.items())) + ")")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
