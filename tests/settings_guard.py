#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""No test reads or writes the user's settings (issue #45): the CTest fixture around the whole run.

  settings_guard.py snapshot STATE TEST_HOMES  before every test: empties TEST_HOMES (each test's own XDG_CONFIG_HOME and
                                               XDG_CACHE_HOME, tests/CMakeLists.txt) and records what $HOME/.config and
                                               $XDG_CONFIG_HOME hold
  settings_guard.py check STATE                after every test: fails, naming each file, if anything there was added,
                                               removed or written since
  settings_guard.py selftest                   the check on a scratch folder: it must see a file added, one written and
                                               one removed

Only the standard library. Each entry is compared by type, size and modification time (not content: the folders may
be large, and a write changes the time)."""
import json
import os
import shutil
import sys
import tempfile


def folders():
    """The user's settings folders as this process sees them (ctest's environment: no test's own)."""
    out = [os.path.join(os.path.expanduser("~"), ".config")]
    xdg = os.environ.get("XDG_CONFIG_HOME")
    if xdg and os.path.realpath(xdg) != os.path.realpath(out[0]):
        out.append(xdg)
    return out


def tree(root):
    """{relative path: [type, size, mtime_ns]} of everything under root, symlinks not followed; None if absent."""
    if not os.path.lexists(root):
        return None
    entries = {}

    def add(path):
        try:
            st = os.lstat(path)
        except OSError:  # gone while walking
            return
        kind = "link" if os.path.islink(path) else "dir" if os.path.isdir(path) else "file"
        # A folder's size and time change with its entries, which are listed themselves.
        entries[os.path.relpath(path, root)] = [kind, 0, 0] if kind == "dir" else [kind, st.st_size, st.st_mtime_ns]

    add(root)
    for parent, dirs, files in os.walk(root, followlinks=False):
        for name in dirs + files:
            add(os.path.join(parent, name))
    return entries


def snapshot(roots):
    return {root: tree(root) for root in roots}


def differences(before, after):
    lines = []
    for root, old in before.items():
        new = after.get(root)
        if old is None and new is None:
            continue
        if old is None:
            lines.append(f"{root}: created by a test")
            continue
        if new is None:
            lines.append(f"{root}: removed by a test")
            continue
        for path in sorted(set(old) | set(new)):
            full = os.path.normpath(os.path.join(root, path))
            if path not in old:
                lines.append(f"added: {full}")
            elif path not in new:
                lines.append(f"removed: {full}")
            elif old[path] != new[path]:
                lines.append(f"written: {full} ({old[path][0]}, {old[path][1]} -> {new[path][1]} bytes)")
    return lines


def selftest():
    with tempfile.TemporaryDirectory() as scratch:
        root = os.path.join(scratch, "config")
        os.makedirs(os.path.join(root, "app"))
        for name in ("kept.conf", "written.conf", "removed.conf"):
            with open(os.path.join(root, "app", name), "w") as f:
                f.write("a=1\n")
        before = snapshot([root, os.path.join(scratch, "absent")])
        if differences(before, snapshot([root, os.path.join(scratch, "absent")])):
            print("FAIL: an untouched folder was reported changed")
            return 1
        with open(os.path.join(root, "app", "written.conf"), "a") as f:
            f.write("b=2\n")
        os.remove(os.path.join(root, "app", "removed.conf"))
        os.makedirs(os.path.join(root, "onnxscope"))
        with open(os.path.join(root, "onnxscope", "onnxscope.conf"), "w") as f:
            f.write("[General]\n")
        os.makedirs(os.path.join(scratch, "absent"))
        found = "\n".join(differences(before, snapshot([root, os.path.join(scratch, "absent")])))
        print(found)
        for expected in ("written: " + os.path.join(root, "app", "written.conf"),
                         "removed: " + os.path.join(root, "app", "removed.conf"),
                         "added: " + os.path.join(root, "onnxscope", "onnxscope.conf"),
                         os.path.join(scratch, "absent") + ": created by a test"):
            if expected not in found:
                print(f"FAIL: not reported: {expected}")
                return 1
        if "kept.conf" in found:
            print("FAIL: an untouched file was reported")
            return 1
    print("the check reports added, written and removed files, and a folder created")
    return 0


def main(argv):
    if len(argv) == 2 and argv[1] == "selftest":
        return selftest()
    if len(argv) == 4 and argv[1] == "snapshot":
        state, homes = argv[2], argv[3]
        shutil.rmtree(homes, ignore_errors=True)
        os.makedirs(homes, exist_ok=True)
        with open(state, "w") as f:
            json.dump(snapshot(folders()), f)
        print("recorded: " + ", ".join(folders()))
        return 0
    if len(argv) == 3 and argv[1] == "check":
        with open(argv[2]) as f:
            before = json.load(f)
        lines = differences(before, snapshot(list(before)))
        if lines:
            print("The tests changed the user's settings folders:\n  " + "\n  ".join(lines))
            print("(A program outside the tests that wrote there during the run is reported too.)")
            return 1
        print("unchanged: " + ", ".join(before))
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
