#!/usr/bin/env bash
# Creates the tests' Python venv from scripts/test-requirements.txt (every version pinned) in
# $ONNXSCOPE_CACHE_DIR/venv-test-<digest of that file>, unless it is already there.
#   scripts/install_test_venv.sh    prints the venv's folder on its last line
# CMake finds the same folder from the same digest (tests/conformance/CMakeLists.txt). Needs python3-venv.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cache="${ONNXSCOPE_CACHE_DIR:-$HOME/.cache/onnxscope}"
requirements="$root/scripts/test-requirements.txt"
digest="$(sha256sum "$requirements" | cut -c1-12)"
venv="$cache/venv-test-$digest"
stamp="$venv/.onnxscope-installed"

if [ -f "$stamp" ]; then
    echo "test venv: already installed"
    echo "$venv"
    exit 0
fi
start=$SECONDS
# Venvs of earlier requirement files go: only the pinned one is used.
find "$cache" -maxdepth 1 -name "venv-test-*" ! -name "venv-test-$digest" -exec rm -rf {} +
rm -rf "$venv"
/usr/bin/python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check --only-binary :all: -r "$requirements"
"$venv/bin/python" -c "import onnx, onnxruntime, numpy"
touch "$stamp"
echo "test venv: installed in $((SECONDS - start)) s"
echo "$venv"
