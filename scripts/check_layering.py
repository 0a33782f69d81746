#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks the include rules between onnxscope's layers (docs/ARCHITECTURE.md):

  app -> ui -> engine, never back; the engine never includes Qt;
  a UI feature folder includes ui/common, its own folder and the engine, never a sibling feature;
  ui/mainwindow (the composition root) may include any UI folder; ui/common includes only itself;
  onnxscope-cli (app/cli) links the engine only, so it includes no ui/ header;
  neither ui/ nor app/ includes an onnx or protobuf header, or a kernel's internals (engine/kernels/);
  the engine's own floors, lowest first: core, io, model, kernels, exec, compare, analysis; a folder includes its own floor and
  those below it, never one above (a folder that is not in the list is reported, so that a new one gets its floor);
  python/ (the Python module) links the engine only: no ui/, app/, Qt, onnx or protobuf header, nor engine/kernels/.

Quoted includes relative to the including file ("../graphview/graph_view.h") are resolved to the repository path they
name and checked as such.

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
# The engine's floors, lowest first.
ENGINE_FLOORS = ["core", "io", "model", "kernels", "exec", "compare", "analysis"]
LAYERS = ("engine", "ui", "app", "python")
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


def resolve(root, relative, delimiter, name):
    """The repository path an include names: a quoted include that is not rooted at a layer but names a file next to
    the including one ("../graphview/x.h", "x.h") is resolved against the including file's folder."""
    if delimiter != '"' or name.split("/")[0] in LAYERS:
        return name
    candidate = (root / relative.parent / name).resolve()
    try:
        inside = candidate.relative_to(root)
    except ValueError:
        return name
    if candidate.exists() or name.startswith(".."):
        return inside.as_posix()
    return name


def engine_floor(folder):
    return ENGINE_FLOORS.index(folder) if folder in ENGINE_FLOORS else None


def check_engine(relative, name, delimiter):
    """Violations of one include of an engine file."""
    if QT_HEADER.match(name) and delimiter != '"':
        return [f"the engine includes Qt ({name})"]
    if name.startswith(("ui/", "app/", "python/")):
        return [f"the engine includes {name.split('/')[0]}/ ({name})"]
    if not name.startswith("engine/") or len(relative.parts) < 3:
        return []
    own, target = relative.parts[1], name.split("/")[1]
    if engine_floor(own) is None:
        return [f"engine/{own} is not one of the engine's floors ({', '.join(ENGINE_FLOORS)}): give it one"]
    if engine_floor(target) is None:
        return [f"engine/{own} includes engine/{target}, which is not one of the engine's floors ({name})"]
    if engine_floor(target) > engine_floor(own):
        return [f"engine/{own} includes engine/{target}, a floor above it ({name}); "
                f"the floors are, lowest first: {', '.join(ENGINE_FLOORS)}"]
    return []


def check_file(root, relative, absolute):
    """Violations of one source file, as (line number, rule)."""
    layer = relative.parts[0]
    problems = []
    for number, delimiter, written in includes(absolute):
        name = resolve(root, relative, delimiter, written)
        shown = name if name == written else f"{written}, that is {name}"
        if layer == "engine":
            problems.extend((number, rule) for rule in check_engine(relative, name, delimiter))
            continue
        if layer == "python":
            if QT_HEADER.match(name) and delimiter != '"':
                problems.append((number, f"python/ links the engine only, but includes Qt ({shown})"))
            elif name.startswith(("ui/", "app/")):
                problems.append((number, f"python/ links the engine only, but includes {shown}"))
            elif ONNX_OR_PROTOBUF.search(name):
                problems.append((number, f"python/ includes an onnx or protobuf header ({shown})"))
            elif name.startswith("engine/kernels/"):
                problems.append((number, f"python/ includes a kernel's internals ({shown})"))
            continue
        # ui/ and app/
        if ONNX_OR_PROTOBUF.search(name):
            problems.append((number, f"{layer}/ includes an onnx or protobuf header ({shown})"))
        if name.startswith("engine/kernels/"):
            problems.append((number, f"{layer}/ includes a kernel's internals ({shown})"))
        if layer == "app" and len(relative.parts) > 2 and relative.parts[1] == "cli" and name.startswith("ui/"):
            problems.append((number, f"onnxscope-cli links the engine only, but includes {shown}"))
        if layer != "ui":
            continue
        if name.startswith("app/"):
            problems.append((number, f"ui/ includes app/ ({shown})"))
            continue
        target = ui_folder(name)
        if target is None or len(relative.parts) < 3:
            continue
        own = relative.parts[1]
        if own == UI_ROOT or target in (own, UI_COMMON):
            continue
        if own == UI_COMMON:
            problems.append((number, f"ui/common includes the feature ui/{target} ({shown}); it may include only itself"))
        elif target == UI_ROOT:
            problems.append((number, f"the feature ui/{own} includes the composition root ui/{target} ({shown})"))
        else:
            problems.append((number, f"the feature ui/{own} includes the feature ui/{target} ({shown}); "
                                     "share through ui/common or a signal wired in ui/mainwindow"))
    return problems


def main(argv):
    root = pathlib.Path(argv[1] if len(argv) > 1 else pathlib.Path(__file__).resolve().parent.parent).resolve()
    count = 0
    checked = 0
    for layer in LAYERS:
        base = root / layer
        if layer == "python" and not base.is_dir():
            continue
        if not base.is_dir():
            print(f"check_layering: {base} is missing", file=sys.stderr)
            return 2
        for path in sorted(base.rglob("*")):
            if path.suffix not in SOURCE_SUFFIXES or not path.is_file():
                continue
            relative = path.relative_to(root)
            checked += 1
            for number, rule in check_file(root, relative, path):
                print(f"{relative.as_posix()}:{number}: {rule}")
                count += 1
    if count:
        print(f"check_layering: {count} include(s) break the layering rules in {checked} files", file=sys.stderr)
        return 1
    print(f"check_layering: {checked} files follow the layering rules")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
