"""Pass counts per group of issue #41 (onnxruntime's CPU operators), for its closing note.

    <test venv python> group_counts.py <build dir> [--junit FILE]

Runs `ctest -L contrib` in the build directory (about 20 s on 2 cores; or reads FILE, a JUnit report that ctest wrote
with --output-junit and large --test-output-size-passed/-failed), then prints per group: the focused one-node cases
(each `onnxscope-cli test` over a group folder prints "N passed, M failed"), the whole-model cases (one CTest test
each; distinct model files in parentheses), the refusal models (check_refusals.py: "X of Y refusals as expected"), and
the other checks (stepping through the debugger, `info` warnings, the registry and documentation checks). A test that
failed before printing its count shows as such. Needs onnx (to count distinct model files).
"""

import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

import onnx

# (group, kind, test name pattern), first match wins. kind: focused, whole, refusals, check.
RULES = [
    ("Lenient rules", "focused", r"fused_lenient"),
    ("Lenient rules", "check", r"fused_lenient_info|misc_tree_ml5_info"),
    ("Lenient rules", "focused", r"misc_tree_ml5"),
    ("Fused", "focused", r"fused_(fused|nchwc|experimental)"),
    ("Fused", "whole", r"fused_whole_.*"),
    ("Fused", "refusals", r"fused_refusals"),
    ("Quantized", "whole", r"quant_model_.*"),
    ("Quantized", "check", r"quant_models_stepped"),
    ("Quantized", "refusals", r"quant_refusals"),
    ("Quantized", "focused", r"quant_.*"),
    ("Attention/LLM", "whole", r"llm_model_.*"),
    ("Attention/LLM", "check", r"llm_models_stepped"),
    ("Attention/LLM", "refusals", r"llm_refusals"),
    ("Attention/LLM", "focused", r"llm_.*"),
    ("Attention/LLM", "check", r"contrib_real_stepped"),
    ("Generation", "whole", r"contrib_real_gpt2_.*search.*"),
    ("Attention/LLM", "whole", r"contrib_real_.*"),
    ("Generation", "refusals", r"generation_refusals"),
    ("Generation", "focused", r"generation_.*"),
    ("Rest", "focused", r"fused_ms_ops|misc_(?!refusals|sparse_input_info).*"),
    ("Rest", "check", r"misc_sparse_input_info|rest_models_(stepped|break_in_loop)"),
    ("Rest", "whole", r"rest_model_.*"),
    ("Rest", "refusals", r"misc_refusals"),
    ("Transformer ops before #41", "refusals", r"contrib_refusals"),
    ("Transformer ops before #41", "focused", r"contrib_.*"),
    ("Registry and docs", "check", r"ort_registry_coverage|custom_ops_doc"),
]
GROUPS = ["Fused", "Quantized", "Attention/LLM", "Generation", "Rest", "Lenient rules", "Transformer ops before #41",
          "Registry and docs"]


def classify(name):
    if name.endswith("_generate") or name.startswith("settings_"):
        return None
    for group, kind, pattern in RULES:
        if re.fullmatch(pattern, name):
            return group, kind
    return "Unassigned", "check"


def run_ctest(build):
    junit = os.path.join(tempfile.mkdtemp(), "contrib.xml")
    subprocess.run(["ctest", "-L", "contrib", "-j2", "--output-junit", junit, "--test-output-size-passed", "10000000",
                    "--test-output-size-failed", "10000000"], cwd=build, stdout=subprocess.DEVNULL)
    return junit


def commands(build):
    out = subprocess.run(["ctest", "--show-only=json-v1"], cwd=build, capture_output=True, text=True, check=True)
    return {t["name"]: t.get("command", []) for t in json.loads(out.stdout)["tests"]}


def model_digest(cmd):
    """The digest of the model a whole-model test runs (`onnxscope-cli test ... DIR`), without its graph outputs' shapes
    (the generators type them per case), so that cases of one model count it once."""
    path = os.path.join(cmd[-1], "model.onnx") if cmd else ""
    if not os.path.exists(path):
        return None
    model = onnx.load(path)
    for o in model.graph.output:
        o.type.tensor_type.ClearField("shape")
    return hashlib.sha256(model.SerializeToString()).hexdigest()


def main():
    build = os.path.abspath(sys.argv[1])
    junit = sys.argv[sys.argv.index("--junit") + 1] if "--junit" in sys.argv else run_ctest(build)
    cmds = commands(build)
    stats = {g: {"focused": [0, 0], "whole": [0, 0], "refusals": [0, 0], "check": [0, 0], "models": set(),
                 "broken": []} for g in GROUPS + ["Unassigned"]}
    for case in ET.parse(junit).getroot().iter("testcase"):
        name = case.get("name")
        where = classify(name)
        if where is None:
            continue
        group, kind = where
        s = stats[group]
        passed = case.find("failure") is None and case.get("status") not in ("fail", "failed", "notrun")
        out = "".join(e.text or "" for e in case.iter("system-out"))
        if kind == "focused":
            m = re.search(r"(\d+) passed, (\d+) failed", out)
            if not m:
                s["broken"].append(name)
                continue
            s["focused"][0] += int(m.group(1))
            s["focused"][1] += int(m.group(1)) + int(m.group(2))
        elif kind == "refusals":
            m = re.search(r"(\d+) of (\d+) refusals as expected", out)
            if not m:
                s["broken"].append(name)
                continue
            s["refusals"][0] += int(m.group(1))
            s["refusals"][1] += int(m.group(2))
        else:
            s[kind][0] += int(passed)
            s[kind][1] += 1
            if kind == "whole":
                digest = model_digest(cmds.get(name, []))
                if digest:
                    s["models"].add(digest)
        if not passed and kind in ("focused", "refusals"):
            s["broken"].append(name)
    print(f"{'group':<28} {'focused cases':>14} {'whole-model cases (models)':>27} {'refusals':>10} {'other checks':>13}")
    total = [0, 0, 0, 0, 0, 0, 0, 0]
    for g in GROUPS + ["Unassigned"]:
        s = stats[g]
        if g == "Unassigned" and not any(s[k][1] for k in ("focused", "whole", "refusals", "check")):
            continue
        cell = lambda k: f"{s[k][0]}/{s[k][1]}" if s[k][1] else "-"  # noqa: E731
        whole = f"{cell('whole')} ({len(s['models'])})" if s["whole"][1] else "-"
        print(f"{g:<28} {cell('focused'):>14} {whole:>27} {cell('refusals'):>10} {cell('check'):>13}"
              + (f"   FAILED: {', '.join(s['broken'])}" if s["broken"] else ""))
        for i, k in enumerate(("focused", "whole", "refusals", "check")):
            total[2 * i] += s[k][0]
            total[2 * i + 1] += s[k][1]
    print(f"{'total':<28} {f'{total[0]}/{total[1]}':>14} {f'{total[2]}/{total[3]}':>27} "
          f"{f'{total[4]}/{total[5]}':>10} {f'{total[6]}/{total[7]}':>13}")
    failed = total[0] != total[1] or total[2] != total[3] or total[4] != total[5] or total[6] != total[7]
    return 1 if failed or any(stats[g]["broken"] for g in stats) else 0


if __name__ == "__main__":
    sys.exit(main())
