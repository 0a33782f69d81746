# SPDX-License-Identifier: MIT
"""Model.check_quantization (issue #44, part 4, int8) on a CNN quantized by onnxruntime.quantization (QDQ), with one
weight scale damaged: the damaged layer ranks first, and its own error equals numpy's from onnxruntime's float
intermediates (tests/cli/quantization/quant_error_test.py covers the CLI, QOperator and content pairing)."""
import os
import sys

import numpy as np
import onnx
import pytest

import onnxscope

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "cli", "quantization"))
import quant_error_test as q  # noqa: E402
from onnxruntime.quantization import QuantFormat, QuantType, quantize_static  # noqa: E402


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    work = tmp_path_factory.mktemp("quant")
    rng = np.random.default_rng(44)
    fpath = work / "float.onnx"
    onnx.save(q.build_float(rng), fpath)
    x = rng.standard_normal((1, 3, 8, 8)).astype(np.float32)
    quantize_static(str(fpath), str(work / "qdq.onnx"), q.Calibration(7), quant_format=QuantFormat.QDQ,
                    activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8)
    q.damage(work / "qdq.onnx", work / "damaged.onnx", "W2_scale", 8.0)
    return fpath, work / "damaged.onnx", x


def test_damaged_layer_ranks_first_with_numpys_error(models):
    fpath, damaged, x = models
    report = onnxscope.load(fpath).check_quantization(damaged, {"x": x})
    assert report["format"] == "QDQ"
    first = report["layers"][0]
    assert first["node"] == "conv2" and first["rank"] == 1 and first["float_value"] == "r2"
    floats = q.float_intermediates(fpath, x)
    init = q.inits(damaged)
    r1q = q.dequantize(q.quantize(floats["r1"], init["r1_scale"], init["r1_zero_point"]), init["r1_scale"], init["r1_zero_point"])
    w2 = q.dequantize(init["W2_quantized"], init["W2_scale"], init["W2_zero_point"])
    b2 = q.dequantize(init["B2_quantized"], init["B2_quantized_scale"], init["B2_quantized_zero_point"])
    c2 = np.maximum(q.conv3x3(r1q, w2, b2), 0)
    truth = q.error(q.dequantize(q.quantize(c2, init["r2_scale"], init["r2_zero_point"]), init["r2_scale"], init["r2_zero_point"]), floats["r2"])
    for k, v in truth.items():
        assert first["own"][k] == pytest.approx(v, rel=2e-3)
    fc1 = next(l for l in report["layers"] if l["node"] == "fc1")
    assert fc1["own"]["relative_l2"] < 0.1 < fc1["accumulated"]["relative_l2"]


def test_models_that_do_not_pair_raise(models):
    fpath, _, _ = models
    with pytest.raises(onnxscope.Error, match="no quantized layer"):
        onnxscope.load(fpath).check_quantization(fpath)
