#!/usr/bin/python3
"""Runs every entry of the reliability corpus (make_corpus.py) through onnxscope-cli `info` and `run`.

Usage: run_corpus_cli.py ONNXSCOPE_CLI CORPUS_DIR [NAME_SUBSTRING...]

Each command must end on its own (no signal, no sanitizer report, within the timeout) with the exit code and the
message the manifest expects. Prints one line per check and a summary; exits 1 if any check failed.
"""
import json
import os
import subprocess
import sys
import time

TIMEOUT = float(os.environ.get("ONNXSCOPE_CORPUS_TIMEOUT", "120"))


def run(cmd):
    started = time.monotonic()
    try:
        p = subprocess.run(cmd, capture_output=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return None, b"", b"", TIMEOUT
    return p.returncode, p.stdout, p.stderr, time.monotonic() - started


def check(label, cmd, expect):
    code, out, err, seconds = run(cmd)
    problems = []
    if code is None:
        problems.append(f"timed out after {TIMEOUT:.0f} s")
    elif code < 0:
        problems.append(f"killed by signal {-code}")
    else:
        if code != expect["exit"]:
            problems.append(f"exit code {code}, expected {expect['exit']}")
        stream = err if expect["exit"] != 0 else out
        for text in expect["message"]:
            if text.encode("utf-8") not in stream:
                problems.append(f"expected {'stderr' if expect['exit'] else 'stdout'} to contain {text!r}")
        if expect["exit"] != 0 and b"error: " not in err:
            problems.append("no 'error: ' line on stderr")
    for marker in (b"Sanitizer", b"runtime error:", b"terminate called", b"Assertion"):
        if marker in err:
            problems.append(f"stderr reports {marker.decode()}")
    status = "ok  " if not problems else "FAIL"
    print(f"{status} {label} ({seconds:.2f} s)")
    if problems:
        print("     command: " + " ".join(cmd))
        for p in problems:
            print("     " + p)
        print("     stdout: " + out.decode("utf-8", "backslashreplace")[-1500:].replace("\n", "\n             "))
        print("     stderr: " + err.decode("utf-8", "backslashreplace")[-1500:].replace("\n", "\n             "))
    return not problems


def main():
    cli, corpus = sys.argv[1], sys.argv[2]
    filters = sys.argv[3:]
    with open(os.path.join(corpus, "manifest.json")) as f:
        entries = json.load(f)["entries"]
    failed = checked = 0
    for e in entries:
        if filters and not any(s in e["name"] for s in filters):
            continue
        model = os.path.join(corpus, e["file"])
        args = [cli, "run", model, "--random-inputs"]
        for name, file in e.get("inputs", {}).items():
            args += ["--input", f"{name}={os.path.join(corpus, file)}"]
        args += e.get("run_args", [])
        for label, cmd, expect in ((f"{e['name']}: info", [cli, "info", model], e["info"]),
                                   (f"{e['name']}: run", args, e["run"])):
            checked += 1
            if not check(label, cmd, expect):
                failed += 1
    # The limit options themselves: malformed values are usage errors (exit 2), units are powers of 1024.
    relu = os.path.join(corpus, "valid/relu.onnx")
    for label, args, expect in (
            ("--allocation-limit 12x", ["--allocation-limit", "12x"], {"exit": 2, "message": ["--allocation-limit"]}),
            ("--allocation-limit 0", ["--allocation-limit", "0"], {"exit": 2, "message": ["--allocation-limit"]}),
            ("--max-loop-iterations -1", ["--max-loop-iterations", "-1"],
             {"exit": 2, "message": ["--max-loop-iterations"]}),
            ("--allocation-limit 23 refuses float[2, 3]", ["--allocation-limit", "23"],
             {"exit": 1, "message": ["float[2, 3]", "more than the allocation limit of 23 B"]}),
            ("--allocation-limit 1k", ["--allocation-limit", "1k", "--max-loop-iterations", "5"],
             {"exit": 0, "message": ["output \"y\": float[2, 3]"]})):
        if filters and not any(f in "options" for f in filters):
            break
        checked += 1
        if not check(f"options: {label}", [cli, "run", relu] + args, expect):
            failed += 1
    print(f"{checked - failed} of {checked} checks passed over {len(entries)} corpus entries")
    return 1 if failed or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
