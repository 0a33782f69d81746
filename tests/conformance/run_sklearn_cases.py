#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Runs every scikit-learn case of tests/data/sklearn through `onnxscope-cli test`, each with the rtol/atol of
its entry in manifest.json. Fails if any case fails, if a case folder has no manifest entry, or if the manifest
names a folder that is missing.

usage: run_sklearn_cases.py <onnxscope-cli> <sklearn dir>
"""
import json
import os
import subprocess
import sys


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    cli, root = sys.argv[1], sys.argv[2]
    with open(os.path.join(root, "manifest.json"), encoding="utf-8") as f:
        manifest = json.load(f)
    folders = sorted(d for d in os.listdir(root) if os.path.isfile(os.path.join(root, d, "model.onnx")))
    problems = []
    passed = 0
    for name in sorted(set(manifest) - set(folders)):
        problems.append(f"{name}: listed in manifest.json but the folder is missing")
    for name in folders:
        entry = manifest.get(name)
        if entry is None:
            problems.append(f"{name}: no entry in manifest.json")
            continue
        cmd = [cli, "test", "-v", "--rtol", repr(entry["rtol"]), "--atol", repr(entry["atol"]), os.path.join(root, name)]
        run = subprocess.run(cmd, capture_output=True, text=True)
        status = "ok" if run.returncode == 0 else "FAILED"
        print(f"{status:6} {name} (rtol {entry['rtol']}, atol {entry['atol']})")
        if run.returncode == 0:
            passed += 1
        else:
            problems.append(f"{name}: exit code {run.returncode}\n{run.stdout}{run.stderr}")
    print(f"{passed} of {len(folders)} cases passed")
    for p in problems:
        print("FAIL " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
