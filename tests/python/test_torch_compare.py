# SPDX-License-Identifier: MIT
"""Issue #44 part 2 from Python: onnxscope.compare(..., by="module") on the committed dynamo export of a small module
tree and the outputs onnxscope.torch.capture recorded for it in torch (tests/models/torch/make_module_tree.py). The
pairing is checked against onnxruntime's values; the test venv has no torch, so this also shows that onnxscope and
onnxscope.torch import without it."""
import os
import sys

import numpy as np
import pytest

import onnxscope
import onnxscope.torch
from conftest import ort_session

SOURCE = os.environ.get("ONNXSCOPE_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
HERE = os.path.join(SOURCE, "tests", "models", "torch")
MODEL = os.path.join(HERE, "module_tree_dynamo.onnx")
FEEDS = dict(np.load(os.path.join(HERE, "module_tree_input.npz")))
CAPTURE = os.path.join(HERE, "module_tree_capture.npz")
PERTURBED = os.path.join(HERE, "module_tree_perturbed.npz")


def test_imports_without_torch():
    assert "torch" not in sys.modules
    assert onnxscope.torch.output_key("blocks.0") == "blocks.0"
    assert onnxscope.torch.output_key("shared", 1) == "shared@1"
    assert onnxscope.torch.output_key("split", 0, 1) == "split#1"
    assert onnxscope.torch.output_key("shared", 2, 0) == "shared@2#0"


def test_capture_matches_and_pairs_with_onnxruntime():
    report = onnxscope.compare(MODEL, CAPTURE, FEEDS, by="module")
    assert isinstance(report, onnxscope.ModuleCompareReport)
    assert not report.diverged and report.first_divergence is None
    captured = dict(np.load(CAPTURE))
    paired = {o["key"]: o["value"] for m in report.modules for o in m["outputs"]}
    assert sorted(paired) == sorted(captured)
    assert all(m["status"] == "match" for m in report.modules)
    # The values the report paired, computed by onnxruntime, are torch's module outputs.
    sess = ort_session(MODEL, extra_outputs=sorted(set(paired.values()) - {"y"}))
    ort_values = dict(zip([o.name for o in sess.get_outputs()], sess.run(None, FEEDS)))
    for key, value in paired.items():
        np.testing.assert_allclose(ort_values[value], captured[key], rtol=1e-4, atol=1e-5, err_msg=key)


def test_perturbed_module_is_named():
    report = onnxscope.compare(MODEL, PERTURBED, FEEDS, by="module")
    assert report.diverged
    assert report.first_divergence["module"] == "blocks.1.fc"
    assert [m["module"] for m in report.modules if m["status"] != "match"] == ["blocks.1.fc"]
    # The same from the dict capture() returns, as from its file.
    arrays = dict(np.load(PERTURBED))
    assert onnxscope.compare(MODEL, arrays, FEEDS, by="module").first_divergence["module"] == "blocks.1.fc"


def test_keys_naming_no_module_raise_with_nearest_paths():
    arrays = dict(np.load(CAPTURE))
    bad = {"block.1.fcc": arrays["blocks.1.fc"], "encoder.layer.0": arrays["blocks.0"]}
    with pytest.raises(onnxscope.Error, match=r'"block.1.fcc": nearest module paths "blocks.1.fc"'):
        onnxscope.compare(MODEL, bad, FEEDS, by="module")


def test_wrong_shape_is_reported():
    arrays = dict(np.load(CAPTURE))
    arrays["blocks.0.act"] = arrays["blocks.0.act"][:, :3]
    report = onnxscope.compare(MODEL, arrays, FEEDS, by="module")
    assert report.first_divergence["module"] == "blocks.0.act"
    assert report.first_divergence["status"] == "shape_mismatch"


def test_bad_arguments():
    with pytest.raises(ValueError):
        onnxscope.compare(MODEL, CAPTURE, FEEDS, by="modules")
    with pytest.raises(FileNotFoundError):
        onnxscope.compare(MODEL, os.path.join(HERE, "missing.npz"), FEEDS, by="module")
    with pytest.raises((ImportError, TypeError)):  # no torch in the test venv: ImportError
        onnxscope.torch.capture(object(), path=os.path.join(HERE, "never_written.npz"))
