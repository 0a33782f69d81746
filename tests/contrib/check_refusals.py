"""Runs onnxscope-cli on the models of <cases>/refused (written by make_contrib_cases.py): each must exit 1 with an
error message holding every expected substring (the node, the attribute or input, the supported values).

    python3 check_refusals.py <onnxscope-cli> <cases dir>
"""

import json
import os
import subprocess
import sys


def main():
    cli, folder = sys.argv[1], os.path.join(sys.argv[2], "refused")
    with open(os.path.join(folder, "expected.json")) as f:
        expected = json.load(f)
    failures = 0
    for name, messages in sorted(expected.items()):
        p = subprocess.run([cli, "run", "--random-inputs", "-q", os.path.join(folder, name + ".onnx")],
                           capture_output=True, text=True, timeout=120)
        text = p.stdout + p.stderr
        missing = [m for m in messages if m not in text]
        if p.returncode != 1 or missing:
            failures += 1
            print(f"FAIL {name}: exit {p.returncode}, missing {missing}\n{text.strip()}")
        else:
            print(f"ok   {name}: {text.strip().splitlines()[-1] if text.strip() else ''}")
    print(f"{len(expected) - failures} of {len(expected)} refusals as expected")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
