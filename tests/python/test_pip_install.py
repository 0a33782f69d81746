# SPDX-License-Identifier: MIT
"""`pip install .` from the checkout into a fresh venv builds the wheel (scikit-build-core, nanobind, the engine
only) and the README's example runs with it. Slow (it configures and builds the module; ccache makes the engine
cheap): CTest label python_install."""
import os
import subprocess
import sys
import time

import pytest

ROOT = os.environ.get("ONNXSCOPE_SOURCE_DIR", os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))


def test_pip_install_into_a_fresh_venv(tmp_path):
    venv = tmp_path / "venv"
    subprocess.run(["/usr/bin/python3", "-m", "venv", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    env.setdefault("CCACHE_BASEDIR", ROOT)
    start = time.monotonic()
    result = subprocess.run([python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", ROOT],
                            env=env, capture_output=True, text=True)
    print(f"pip install . took {time.monotonic() - start:.0f} s")
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    example = tmp_path / "example.py"
    example.write_text(
        "import numpy as np, onnxscope\n"
        f"model = onnxscope.load({os.path.join(ROOT, 'resources', 'samples', 'mlp_classifier.onnx')!r})\n"
        "feeds = {i.name: np.ones([d if isinstance(d, int) else 1 for d in i.shape], i.dtype) for i in model.inputs}\n"
        "print(sorted(model.run(feeds)))\n"
        "dbg = model.debug(feeds); dbg.step(); print(dbg.position.node)\n"
        "import onnxscope._onnxscope as core; print(core.__file__)\n")
    run = subprocess.run([python, str(example)], env=env, capture_output=True, text=True, cwd=str(tmp_path))
    assert run.returncode == 0, run.stderr
    assert str(venv) in run.stdout  # the installed module, not the build tree's
    # No Qt in the wheel's extension.
    so = run.stdout.strip().splitlines()[-1]
    ldd = subprocess.run(["ldd", so], capture_output=True, text=True).stdout
    assert "Qt" not in ldd, ldd
