"""Checks the quantized whole models of make_quant_models.py beyond their outputs: the quantizer wrote the operators
the cases claim to cover, and each model can be stepped through: `onnxscope-cli run --debug-run --trace` runs it node
by node through the debugger, prints one trace line per node of the model, and `--inspect` reads an intermediate
quantized value (the first QLinearConv's or MatMulInteger's output) with its statistics.

    python3 check_quant_models.py <onnxscope-cli> <models dir>
"""

import json
import os
import subprocess
import sys

import onnx

EXPECTED_OPS = {
    "cnn_qop_u8s8": ["ai.onnx:QLinearConv", "ai.onnx:QuantizeLinear", "ai.onnx:DequantizeLinear", "com.microsoft:QGemm",
                     "com.microsoft:QLinearAdd", "com.microsoft:QLinearMul", "com.microsoft:QLinearAveragePool",
                     "com.microsoft:QLinearConcat", "com.microsoft:QLinearGlobalAveragePool",
                     "com.microsoft:QLinearLeakyRelu", "com.microsoft:QLinearSigmoid", "com.microsoft:QLinearSoftmax"],
    "mlp_dynamic": ["ai.onnx:DynamicQuantizeLinear", "ai.onnx:MatMulInteger"],
    "mlp_dynamic_optimized": ["com.microsoft:DynamicQuantizeMatMul"],
}
EXPECTED_OPS["cnn_qop_s8s8_per_channel"] = EXPECTED_OPS["cnn_qop_u8s8"]


def main():
    cli, folder = sys.argv[1], sys.argv[2]
    with open(os.path.join(folder, "ops.json")) as f:
        ops = json.load(f)
    failures = 0
    for name, expected in sorted(EXPECTED_OPS.items()):
        missing = [o for o in expected if o not in ops.get(name, [])]
        if missing:
            failures += 1
            print(f"FAIL {name}: the quantizer wrote no {missing}; it wrote {ops.get(name)}")
            continue
        case = os.path.join(folder, name)
        model = onnx.load(os.path.join(case, "model.onnx"))
        probe = next(n for n in model.graph.node if n.op_type in ("QLinearConv", "MatMulInteger",
                                                                   "DynamicQuantizeMatMul"))
        inputs = [f"{vi.name}={os.path.join(case, 'test_data_set_0', f'input_{i}.pb')}"
                  for i, vi in enumerate(model.graph.input)]
        cmd = [cli, "run", os.path.join(case, "model.onnx"), "--debug-run", "--trace", "-q"]
        for i in inputs:
            cmd += ["-i", i]
        cmd += ["--inspect", probe.output[0]]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        text = p.stdout + p.stderr
        traced = [n.name for n in model.graph.node if n.name and n.name not in text]
        if p.returncode != 0 or traced or probe.output[0] not in text:
            failures += 1
            print(f"FAIL {name}: exit {p.returncode}, nodes missing from the trace: {traced}\n{text[-2000:]}")
        else:
            lines = [line for line in text.splitlines() if probe.output[0] in line]
            print(f"ok   {name}: {len(model.graph.node)} nodes traced; {lines[-1].strip() if lines else ''}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
