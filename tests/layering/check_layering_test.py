#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Runs scripts/check_layering.py on a scratch tree with one bad include per rule (and good ones beside them), and
fails unless it reports exactly the bad ones, each on its line. Python's standard library only.

Usage: check_layering_test.py REPOSITORY_ROOT
"""

import pathlib
import subprocess
import sys
import tempfile

# path -> lines of the file; a line ending in "// BAD" must be reported, every other line must not.
TREE = {
    "engine/core/tensor.h": ['#include "engine/core/value.h"', '#include <vector>'],
    "engine/core/value.h": ['#include "engine/io/npy.h" // BAD', '#include "engine/exec/session.h" // BAD'],
    "engine/io/npy.h": ['#include "engine/core/tensor.h"'],
    "engine/io/value_writer.h": ['#include "engine/exec/tensor_stats.h" // BAD', '#include "../core/value.h"'],
    "engine/io/value_writer.cpp": ['#include "engine/model/model.h" // BAD', '#include "../model/model.h" // BAD'],
    "engine/model/model.h": ['#include "engine/io/npy.h"', '#include "engine/core/tensor.h"'],
    "engine/kernels/add.cpp": ['#include "engine/model/model.h"', '#include "engine/exec/session.h" // BAD'],
    "engine/exec/session.h": ['#include "engine/kernels/add.h"', '#include "engine/model/model.h"'],
    "engine/exec/tensor_stats.h": ['#include "engine/core/value.h"'],
    "engine/exec/backend_case.h": ['#include "engine/compare/check.h" // BAD', '#include "../compare/check.h" // BAD'],
    "engine/exec/qt_user.cpp": ['#include <QString> // BAD', '#include "ui/common/x.h" // BAD'],
    "engine/compare/check.h": ['#include "engine/exec/session.h"', '#include "engine/core/value.h"'],
    "engine/newfloor/thing.h": ['#include "engine/core/value.h" // BAD'],
    "ui/common/x.h": ['#include "engine/core/value.h"', '#include "ui/debugger/values.h" // BAD'],
    "ui/debugger/values.h": [
        '#include "ui/common/x.h"',
        '#include "values_model.h"',
        '#include "../graphview/graph_view.h" // BAD',
        '#include "ui/graphview/graph_view.h" // BAD',
        '#include "../mainwindow/main_window.h" // BAD',
        '#include <onnx/onnx_pb.h> // BAD',
        '#include "engine/kernels/add.h" // BAD',
        '#include "app/cli/commands.h" // BAD',
    ],
    "ui/debugger/values_model.h": ['#include "../common/x.h"'],
    "ui/graphview/graph_view.h": ['#include "ui/common/x.h"'],
    "ui/mainwindow/main_window.h": ['#include "../graphview/graph_view.h"', '#include "ui/debugger/values.h"'],
    "app/cli/commands.h": ['#include "engine/exec/session.h"', '#include "ui/common/x.h" // BAD',
                           '#include <google/protobuf/message.h> // BAD'],
    "app/gui/main.cpp": ['#include "ui/mainwindow/main_window.h"', '#include "engine/model/model.pb.h" // BAD'],
    "python/src/module.cpp": [
        '#include "engine/exec/session.h"',
        '#include <nanobind/nanobind.h>',
        '#include "ui/common/x.h" // BAD',
        '#include "../../app/cli/commands.h" // BAD',
        '#include <QObject> // BAD',
        '#include <onnx/onnx_pb.h> // BAD',
        '#include "engine/kernels/add.h" // BAD',
    ],
}


def main(argv):
    repository = pathlib.Path(argv[1]).resolve()
    with tempfile.TemporaryDirectory() as scratch:
        root = pathlib.Path(scratch)
        expected = set()
        for path, lines in TREE.items():
            file = root / path
            file.parent.mkdir(parents=True, exist_ok=True)
            file.write_text("\n".join(lines) + "\n", encoding="utf-8")
            expected.update(f"{path}:{n}" for n, line in enumerate(lines, 1) if line.endswith("// BAD"))
        run = subprocess.run([sys.executable, str(repository / "scripts" / "check_layering.py"), str(root)],
                             capture_output=True, text=True)
        reported = set()
        for line in run.stdout.splitlines():
            file, number, _ = line.split(":", 2)
            reported.add(f"{file}:{number}")
    missed = sorted(expected - reported)
    extra = sorted(reported - expected)
    ok = run.returncode == 1 and not missed and not extra
    for where in missed:
        print(f"not reported: {where}")
    for where in extra:
        print(f"reported but good: {where}")
    print(run.stdout, end="")
    print(f"check_layering_test: {len(expected)} bad includes, {len(reported)} reported, exit code {run.returncode}: "
          f"{'pass' if ok else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
