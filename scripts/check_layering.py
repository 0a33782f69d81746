#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks the include rules between onnxscope's layers (docs/ARCHITECTURE.md):

  app -> ui -> engine, never back; the engine never includes Qt;
  a UI feature folder includes ui/common, its own folder and the engine, never a sibling feature;
  ui/mainwindow (the composition root) may include any UI folder; ui/common includes only itself;
  onnxscope-cli (app/cli) links the engine only, so it includes no ui/ header;
  neither ui/ nor app/ includes an onnx or protobuf header, or a kernel's internals (engine/kernels/).

Usage: check_layering.py [REPOSITORY_ROOT]. Prints each violation as file:line: rule, and exits 1 if there is one.
"""

import pathlib
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
SOURCE_SUFFIXES = {".h", ".hpp", ".cpp", ".cc", ".cxx", ".inl"}
# Qt's own headers: <QWidget>, <QtConcurrent>, <QtCore/QString>, <qglobal.h>.
QT_HEADER = re.compile(r"^(Q[A-Za-z0-9_]*|Qt[A-Za-z0-9_]*/.*|q[a-z0-9_]*\.h)$")
ONNX_OR_PROTOBUF = re.compile(r"^(onnx/|google/protobuf/)|\.pb\.h$")
# Folders of ui/ that are not features.
UI_COMMON = "common"
UI_ROOT = "mainwindow"


def includes(path):
    """(line number, delimiter, included path) of every #include of a file."""
    with open(path, encoding="utf-8", errors="replace") as f:
        for number, line in enumerate(f, 1):
            m = INCLUDE.match(line)
            if m:
                yield number, m.group(1), m.group(2)


def ui_folder(include):
    """The ui/ folder an include names ("graphview" for "ui/graphview/graph_view.h"), None for a non-ui include."""
    parts = include.split("/")
    return parts[1] if len(parts) > 2 and parts[0] == "ui" else None


def check_file(relative, absolute):
    """Violations of one source file, as (line number, rule)."""
    layer = relative.parts[0]
    problems = []
    for number, delimiter, name in includes(absolute):
        quoted = delimiter == '"'
        if layer == "engine":
            if QT_HEADER.match(name) and not quoted:
                problems.append((number, f"the engine includes Qt ({name})"))
            elif name.startswith(("ui/", "app/")):
                problems.append((number, f"the engine includes {name.split('/')[0]}/ ({name})"))
            continue
        # ui/ and app/
        if ONNX_OR_PROTOBUF.search(name):
            problems.append((number, f"{layer}/ includes an onnx or protobuf header ({name})"))
        if name.startswith("engine/kernels/"):
            problems.append((number, f"{layer}/ includes a kernel's internals ({name})"))
        if layer == "app" and relative.parts[1] == "cli" and name.startswith("ui/"):
            problems.append((number, f"onnxscope-cli links the engine only, but includes {name}"))
        if layer != "ui":
            continue
        if name.startswith("app/"):
            problems.append((number, f"ui/ includes app/ ({name})"))
            continue
        target = ui_folder(name)
        if target is None or len(relative.parts) < 3:
            continue
        own = relative.parts[1]
        if own == UI_ROOT or target in (own, UI_COMMON):
            continue
        if own == UI_COMMON:
            problems.append((number, f"ui/common includes the feature ui/{target} ({name}); it may include only itself"))
        elif target == UI_ROOT:
            problems.append((number, f"the feature ui/{own} includes the composition root ui/{target} ({name})"))
        else:
            problems.append((number, f"the feature ui/{own} includes the feature ui/{target} ({name}); "
                                     "share through ui/common or a signal wired in ui/mainwindow"))
    return problems


def main(argv):
    root = pathlib.Path(argv[1] if len(argv) > 1 else pathlib.Path(__file__).resolve().parent.parent).resolve()
    count = 0
    checked = 0
    for layer in ("engine", "ui", "app"):
        base = root / layer
        if not base.is_dir():
            print(f"check_layering: {base} is missing", file=sys.stderr)
            return 2
        for path in sorted(base.rglob("*")):
            if path.suffix not in SOURCE_SUFFIXES or not path.is_file():
                continue
            relative = path.relative_to(root)
            checked += 1
            for number, rule in check_file(relative, path):
                print(f"{relative.as_posix()}:{number}: {rule}")
                count += 1
    if count:
        print(f"check_layering: {count} include(s) break the layering rules in {checked} files", file=sys.stderr)
        return 1
    print(f"check_layering: {checked} files follow the layering rules")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
