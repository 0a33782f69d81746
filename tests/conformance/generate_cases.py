#!/usr/bin/python3
"""Generates ONNX's own backend test cases (onnx 1.12: 922 node cases) into OUT_DIR.

Usage: generate_cases.py OUT_DIR
Needs Debian's python3-onnx and python3-numpy. numpy 1.24 removed the aliases np.float, np.int, np.bool,
np.object and np.complex that onnx 1.12's case generators still use, so they are restored first.
"""
import os
import sys
import warnings

import numpy as np

warnings.simplefilter("ignore")
for alias, target in (("float", float), ("int", int), ("bool", bool), ("object", object), ("complex", complex)):
    if alias not in np.__dict__:
        setattr(np, alias, target)

from onnx.backend.test.cmd_tools import main  # noqa: E402

out = sys.argv[1]
stamp = os.path.join(out, ".generated")
if not os.path.exists(stamp):
    sys.argv = ["backend-test-tools", "generate-data", "-o", out]
    main()
    open(stamp, "w").close()
count = len(os.listdir(os.path.join(out, "node")))
print(f"{count} node cases in {out}/node")
