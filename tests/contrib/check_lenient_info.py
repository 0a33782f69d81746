"""`onnxscope-cli info --json` on the models of <cases>/lenient (written by make_fused_cases.py): each opens with no
unsupported node and no error among its diagnostics, and the lenient rule it relies on is reported as a warning
that says what onnxruntime does (issue #41). `run` on them against onnxruntime is the fused_lenient test.

    python3 check_lenient_info.py <onnxscope-cli> <cases dir> [<folder>]

<folder> (default "lenient") is the folder of <cases dir> that holds the models; when it holds an
expected_warnings.json ({case: text of its warning}, as make_misc_cases.py writes it), that replaces EXPECTED.
"""

import json
import os
import subprocess
import sys

EXPECTED = {
    "ms_without_import": 'domain "com.microsoft", which the model does not import',
    "ms_gelu_without_import": 'domain "com.microsoft", which the model does not import',
    "layer_norm_opset11": "1 LayerNormalization node at default-domain opset 11",
    "layer_norm_opset13": "1 LayerNormalization node at default-domain opset 13",
    "layer_norm_opset16": "1 LayerNormalization node at default-domain opset 16",
    "layer_norm_opset13_axis1": "1 LayerNormalization node at default-domain opset 13",
    "simplified_layer_norm_opset13": "1 SimplifiedLayerNormalization node at default-domain opset 13",
    "nchwc_without_import": 'domain "com.microsoft.nchwc", which the model does not import',
}


def main():
    cli, folder = sys.argv[1], os.path.join(sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else "lenient")
    expected = EXPECTED
    if os.path.exists(os.path.join(folder, "expected_warnings.json")):
        with open(os.path.join(folder, "expected_warnings.json")) as f:
            expected = json.load(f)
    failures = 0
    for name, text in sorted(expected.items()):
        model = os.path.join(folder, name, "model.onnx")
        p = subprocess.run([cli, "info", "--json", model], capture_output=True, text=True, timeout=120)
        problems = []
        if p.returncode != 0:
            problems.append(f"exit {p.returncode}: {p.stderr.strip()}")
        else:
            info = json.loads(p.stdout)
            if info["unsupported"]:
                problems.append(f"unsupported: {info['unsupported']}")
            diags = info.get("diagnostics", [])
            errors = [d["message"] for d in diags if d["severity"] == "error"]
            if errors:
                problems.append(f"errors: {errors}")
            if not any(d["severity"] == "warning" and text in d["message"] for d in diags):
                problems.append(f"no warning holding {text!r} among {[d['message'] for d in diags]}")
        if problems:
            failures += 1
            print(f"FAIL {name}: " + "; ".join(problems))
        else:
            print(f"ok   {name}")
    print(f"{len(expected) - failures} of {len(expected)} lenient models reported as expected")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
