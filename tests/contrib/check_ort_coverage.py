# SPDX-License-Identifier: MIT
"""Coverage of onnxruntime's CPU kernel registry (issue #41).

Walks every (domain, op, version range) that the pinned onnxruntime registers for CPUExecutionProvider
(onnxruntime.capi.onnxruntime_pybind11_state.get_all_opkernel_def()) and checks it against `onnxscope-cli ops --json`:

- in the domains onnx defines (ai.onnx, ai.onnx.ml, ...), every opset of the range up to the newest that onnx knows
  resolves to an onnx schema version that runs here (a kernel, or the function body onnx gives it), or, where onnx has
  no schema at that opset (LayerNormalization below 17, SimplifiedLayerNormalization), a kernel's opset range holds it;
- in onnxruntime's own domains (com.microsoft, com.microsoft.nchwc), a kernel's opset range holds the whole range.

Every (domain, op) with a range that does not run must stand in ort_cpu_coverage.txt, either as `excluded` (at most 5,
training ops or ops that need another execution provider) or as `not-yet` (the open part of #41). A listed op that now
runs fails the test too, so the lists only shrink.

usage: check_ort_coverage.py ONNXSCOPE_CLI LISTS_FILE
"""
import json
import subprocess
import sys

import onnx
import onnx.defs
from onnxruntime.capi import onnxruntime_pybind11_state as ort_state

MAX_EXCLUDED = 5
SCHEMA_DOMAINS = {"", "ai.onnx.ml", "ai.onnx.preview.training"}


def domain_name(domain):
    return domain or "ai.onnx"


def read_lists(path):
    lists = {"excluded": {}, "not-yet": {}}
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            head, sep, reason = line.partition(":")
            fields = head.split()
            if not sep or len(fields) != 3 or fields[0] not in lists or not reason.strip():
                sys.exit(f"{path}:{number}: expected 'excluded|not-yet DOMAIN OP: reason', got {line!r}")
            kind, domain, op = fields
            key = ("" if domain == "ai.onnx" else domain, op)
            if key in lists["excluded"] or key in lists["not-yet"]:
                sys.exit(f"{path}:{number}: {domain} {op} is listed twice")
            lists[kind][key] = reason.strip()
    return lists


def ort_cpu_ranges():
    ranges = {}
    for k in ort_state.get_all_opkernel_def():
        if k.provider != "CPUExecutionProvider":
            continue
        ranges.setdefault((k.domain, k.op_name), set()).add(tuple(k.version_range))
    return ranges


class Ours:
    def __init__(self, cli):
        listing = json.loads(subprocess.run([cli, "ops", "--json"], check=True, capture_output=True, text=True).stdout)
        self.kernels = {}
        for e in listing["ops"]:
            domain = "" if e["domain"] == "ai.onnx" else e["domain"]
            self.kernels.setdefault((domain, e["op"]), []).append(e)
        self.unsupported = {("" if u["domain"] == "ai.onnx" else u["domain"], u["op"], u["version"])
                            for u in listing["unsupported"]}

    def kernel_versions(self, domain, op):
        return {v for e in self.kernels.get((domain, op), []) for v in e.get("versions", [])}

    def opset_range_holds(self, domain, op, first, last):
        for e in self.kernels.get((domain, op), []):
            if e.get("versions"):
                continue
            until = e["until"] if e["until"] is not None else float("inf")
            if e["since"] <= first and last <= until:
                return True
        return False


def newest_opsets():
    newest = {}
    for s in onnx.defs.get_all_schemas_with_history():
        newest[s.domain] = max(newest.get(s.domain, 1), s.since_version)
    newest[""] = max(newest.get("", 1), onnx.defs.onnx_opset_version())
    return newest


def range_runs(ours, newest, domain, op, first, last):
    """The opsets of [first, last] that do not run, as text ('' when all run)."""
    if domain not in SCHEMA_DOMAINS:
        return "" if ours.opset_range_holds(domain, op, first, last) else f"{first}-{last if last < 2**31 - 1 else ''}"
    kernels = ours.kernel_versions(domain, op)
    failing = []
    for opset in range(first, min(last, newest.get(domain, first)) + 1):
        try:
            schema = onnx.defs.get_schema(op, opset, domain)
        except onnx.defs.SchemaError:
            schema = None
        if schema is None:
            runs = ours.opset_range_holds(domain, op, opset, opset)
        else:
            v = schema.since_version
            body = schema.has_function or schema.has_context_dependent_function
            runs = v in kernels or (body and (domain, op, v) not in ours.unsupported)
        if not runs:
            failing.append(opset)
    return ", ".join(str(o) for o in failing)


def main():
    cli, lists_path = sys.argv[1], sys.argv[2]
    lists = read_lists(lists_path)
    ours = Ours(cli)
    newest = newest_opsets()
    registry = ort_cpu_ranges()
    problems = []
    if len(lists["excluded"]) > MAX_EXCLUDED:
        problems.append(f"{len(lists['excluded'])} exclusions; at most {MAX_EXCLUDED} are allowed")
    for key in list(lists["excluded"]) + list(lists["not-yet"]):
        if key not in registry:
            problems.append(f"listed, but not in onnxruntime's CPU registry: {domain_name(key[0])} {key[1]}")
    ranges_checked = 0
    runs_ops = 0
    for (domain, op), ranges in sorted(registry.items()):
        failing = []
        for first, last in sorted(ranges):
            ranges_checked += 1
            missing = range_runs(ours, newest, domain, op, first, last)
            if missing:
                failing.append(f"{first}-{last if last < 2**31 - 1 else ''} (opsets not run: {missing})")
        key = (domain, op)
        listed = key in lists["excluded"] or key in lists["not-yet"]
        if failing and not listed:
            problems.append(f"does not run and is not listed: {domain_name(domain)} {op} {'; '.join(failing)}")
        if not failing:
            runs_ops += 1
            if listed:
                problems.append(f"runs now, remove it from {lists_path}: {domain_name(domain)} {op}")
    by_domain = {}
    for (domain, op) in registry:
        by_domain.setdefault(domain_name(domain), [0, 0])[0] += 1
    for (domain, op) in lists["not-yet"]:
        by_domain.setdefault(domain_name(domain), [0, 0])[1] += 1
    for d, (total, missing) in sorted(by_domain.items()):
        print(f"{d}: {total} operators in onnxruntime's CPU registry, {missing} not yet implemented here")
    print(f"{ranges_checked} version ranges of {len(registry)} operators; {runs_ops} operators run; "
          f"{len(lists['excluded'])} excluded, {len(lists['not-yet'])} not yet implemented")
    for p in problems:
        print("FAIL:", p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
