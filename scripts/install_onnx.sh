#!/usr/bin/env bash
# Installs the onnx library that the engine links (version and digest in scripts/onnx.env) into
# $ONNXSCOPE_CACHE_DIR/onnx-<version>, unless a finished install of the same build is already there.
#   scripts/install_onnx.sh    prints the install prefix on its last line
# The C++ library is built from the release's source distribution, fetched by pip from PyPI with its sha256
# checked, against Debian's protobuf (so no abseil), as static position-independent libraries: the programs carry
# onnx inside them and depend on protobuf's shared library only. CMake comes from PyPI's cmake wheel in a venv
# (onnx needs a newer one than Debian 12's). ccache keeps a rebuild of the same sources cheap.
# Needs python3-venv, ninja-build, ccache, g++, libprotobuf-dev and protobuf-compiler (scripts/setup.sh installs
# them first).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cache="${ONNXSCOPE_CACHE_DIR:-$HOME/.cache/onnxscope}"
# shellcheck source=onnx.env
. "$root/scripts/onnx.env"

prefix="$cache/onnx-$ONNX_VERSION"
venv="$cache/venv-cmake-$ONNX_CMAKE_VERSION"
work="$cache/onnx-$ONNX_VERSION-build"
options=(-G Ninja -DCMAKE_BUILD_TYPE=Release -DONNX_ML=ON -DONNX_BUILD_TESTS=OFF -DONNX_BUILD_PYTHON=OFF
    -DONNX_USE_PROTOBUF_SHARED_LIBS=ON -DCMAKE_POSITION_INDEPENDENT_CODE=ON -DCMAKE_CXX_COMPILER=g++)
# What the install was made from: a change of any of it rebuilds.
stamp_text="onnx $ONNX_VERSION sha256:$ONNX_SDIST_SHA256 cmake $ONNX_CMAKE_VERSION ${options[*]}"
stamp="$prefix/.onnxscope-installed"

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$stamp_text" ]; then
    echo "onnx $ONNX_VERSION: already installed"
    echo "$prefix"
    exit 0
fi

start=$SECONDS
echo "onnx $ONNX_VERSION: building into $prefix"
if [ ! -x "$venv/bin/cmake" ] || [ "$("$venv/bin/cmake" --version | head -n 1)" != "cmake version $ONNX_CMAKE_VERSION" ]; then
    rm -rf "$venv"
    /usr/bin/python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check "cmake==$ONNX_CMAKE_VERSION"
fi

rm -rf "$work"
mkdir -p "$work"
echo "onnx==$ONNX_VERSION --hash=sha256:$ONNX_SDIST_SHA256" >"$work/requirements.txt"
# The source distribution only (--no-binary onnx); pip refuses a file whose digest differs (--require-hashes).
"$venv/bin/pip" download --quiet --disable-pip-version-check --no-deps --no-binary onnx --require-hashes \
    -r "$work/requirements.txt" -d "$work"
sdist="$work/onnx-$ONNX_VERSION.tar.gz"
echo "$ONNX_SDIST_SHA256  $sdist" | sha256sum --check --quiet
tar -xzf "$sdist" -C "$work"

# Paths relative to the build folder, so that ccache hits whatever the cache folder is called.
export CCACHE_BASEDIR="$work"
"$venv/bin/cmake" -S "$work/onnx-$ONNX_VERSION" -B "$work/build" "${options[@]}" \
    -DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_INSTALL_PREFIX="$prefix" >"$work/configure.log" 2>&1 ||
    { cat "$work/configure.log" >&2; exit 1; }
"$venv/bin/cmake" --build "$work/build" -j "$(nproc)"
rm -rf "$prefix"
"$venv/bin/cmake" --install "$work/build" >/dev/null
echo "$stamp_text" >"$stamp"
rm -rf "$work"
echo "onnx $ONNX_VERSION: installed in $((SECONDS - start)) s"
echo "$prefix"
