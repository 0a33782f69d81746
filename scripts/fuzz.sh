#!/usr/bin/env bash
# The sanitizer build (clang, ASan + UBSan, libFuzzer coverage): the test suite and the libFuzzer targets, built
# once in $ONNXSCOPE_SANITIZE_BUILD_DIR (default build-asan, no GUI), and the fuzzers run on a seed corpus
# (docs/reliability.md). `scripts/setup.sh test` runs `build`, `test` and `smoke`.
#   scripts/fuzz.sh build                  configure and build everything but the GUI there
#   scripts/fuzz.sh test                   run the engine, CLI, conformance, reliability and real-model tests there
#   scripts/fuzz.sh seeds                  (re)write the seed corpora from tests/reliability/make_corpus.py
#   scripts/fuzz.sh smoke SECONDS          seeds, then each target for SECONDS (fails on any finding)
#   scripts/fuzz.sh run TARGET SECONDS     run fuzz_model or fuzz_npy for SECONDS on one worker, at nice 19
#   scripts/fuzz.sh all SECONDS            build, seed, then run both targets for SECONDS each, one after the other
# Findings (crash-*, leak-*, timeout-*, oom-*) land in $build/findings/TARGET/; turn each into a corpus case
# (make_corpus.py) and a fix. New inputs that reach new coverage are kept in $build/corpus/TARGET/.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${ONNXSCOPE_SANITIZE_BUILD_DIR:-$root/build-asan}"
cache="${ONNXSCOPE_CACHE_DIR:-$HOME/.cache/onnxscope}"
python=/usr/bin/python3
export ASAN_OPTIONS=halt_on_error=1:detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$root}"
# With debug information ccache hashes the working directory too, so each clean checkout (CI's) missed the cache for
# this whole build: not with the checkout's path mapped out of the line tables (-ffile-prefix-map, whose old path
# ccache leaves out of the hash).
export CCACHE_NOHASHDIR=1

# -O1 with line tables: reports name file and line, at about a third of Release speed. No GUI: Qt is not
# instrumented. ONNXSCOPE_FUZZ adds libFuzzer's coverage instrumentation, which the tests do not notice.
# The same onnx as the Release build (scripts/onnx.env, installed by scripts/install_onnx.sh when missing).
build_all() {
    ONNXSCOPE_CACHE_DIR="$cache" bash "$root/scripts/install_onnx.sh"
    CC=clang CXX=clang++ cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only -ffile-prefix-map=$root/=" \
        -DONNXSCOPE_FUZZ=ON -DONNXSCOPE_BUILD_GUI=OFF -DONNXSCOPE_CACHE_DIR="$cache"
    ninja -C "$build" -j2
}

# engine_simd_symbols is left out: it checks the Release objects' symbols, and sanitizer instrumentation adds
# type information and out-of-line helpers that it would rightly flag there but that ship in no package.
run_tests() {
    (cd "$build" && ctest --output-on-failure --timeout 1800 -j2 -L 'engine|cli|conformance|reliability|models' \
        -E '^engine_simd_symbols$')
}

write_seeds() {
    local corpus="$build/reliability-corpus"
    "$python" "$root/tests/reliability/make_corpus.py" "$corpus" >/dev/null
    mkdir -p "$build/seeds/fuzz_model" "$build/seeds/fuzz_npy"
    # Every corpus model (hostile and valid) plus the bundled samples; every .npy, good and bad (among them issue
    # 46's finding and its twins: zero-length strings in Fortran and C order, past the allocation limit).
    find "$corpus" -name '*.onnx' -type f | while read -r f; do
        cp "$f" "$build/seeds/fuzz_model/$(echo "${f#"$corpus"/}" | tr '/' '_')"
    done
    cp "$root"/resources/samples/*.onnx "$build/seeds/fuzz_model/" 2>/dev/null || true
    find "$corpus" -name '*.npy' -type f | while read -r f; do
        cp "$f" "$build/seeds/fuzz_npy/$(echo "${f#"$corpus"/}" | tr '/' '_')"
    done
    "$python" - "$build/seeds/fuzz_npy" <<'EOF'
import sys
import numpy as np
out = sys.argv[1]
np.save(f"{out}/f2_be.npy", np.arange(6, dtype=">f2").reshape(2, 3))
np.save(f"{out}/c16_fortran.npy", np.asfortranarray(np.arange(6, dtype=np.complex128).reshape(3, 2)))
np.save(f"{out}/u_strings.npy", np.array(["ab", "\u00e9\u4e2d", ""]))
np.save(f"{out}/bool.npy", np.array([[True, False]]))
np.save(f"{out}/scalar_i8.npy", np.int8(-3))
np.save(f"{out}/empty.npy", np.zeros((0, 4), np.float32))
# fuzz_npy's timeout while issue 46 was fixed: 1.5 million empty strings (Fortran order), within the limit;
# writing them back appended every character on its own and took 33 s under ASan.
header = b"{'descr': '|S0', 'fortran_order': True, 'shape': (2, 4      ,6,141 ,220)}".ljust(118)
with open(f"{out}/s0_fortran_1_5m.npy", "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header)
EOF
    echo "seeds: $(ls "$build/seeds/fuzz_model" | wc -l) models, $(ls "$build/seeds/fuzz_npy" | wc -l) npy files"
}

# Runs TARGET for SECONDS on one worker from the seeds and CORPUS (where new coverage is kept); findings land in
# FINDINGS. Memory and time per input are bounded; -max_len is large enough for the seed models. The timeout is
# wall-clock time: at nice 19 beside other work a 0.3 s input took 10 s, so the worker runs at normal priority and
# the bound is 30 s (every input of the corpus takes well under a second alone).
fuzz() {
    local target="$1" seconds="$2" findings="$3" corpus="$4"
    mkdir -p "$findings" "$corpus"
    (cd "$findings" &&
        "$build/fuzz/$target" -max_total_time="$seconds" -rss_limit_mb=4096 -timeout=30 -max_len=65536 \
            -print_final_stats=1 -artifact_prefix="$findings/" "$corpus" "$build/seeds/$target")
}

run_target() {
    fuzz "$1" "$2" "$build/findings/$1" "$build/corpus/$1"
}

# A short run of each target from the seeds alone (no saved corpus): any crash, leak or timeout fails.
smoke() {
    local seconds="$1" target
    write_seeds
    mkdir -p "$build/findings-smoke"
    for target in fuzz_model fuzz_npy; do
        rm -rf "$build/corpus-smoke/$target"
        fuzz "$target" "$seconds" "$build/findings-smoke/$target" "$build/corpus-smoke/$target" \
            2>"$build/findings-smoke/$target.log" || {
            tail -n 60 "$build/findings-smoke/$target.log" >&2
            echo "fuzz smoke: $target found a problem; input in $build/findings-smoke/$target/" >&2
            return 1
        }
        grep -E '^stat::(number_of_executed_units|peak_rss_mb)' "$build/findings-smoke/$target.log" | sed "s/^/$target /"
    done
}

case "${1:-}" in
build) build_all ;;
test) run_tests ;;
seeds) write_seeds ;;
smoke) smoke "${2:?seconds}" ;;
run) run_target "${2:?target}" "${3:?seconds}" ;;
all)
    build_all
    write_seeds
    run_target fuzz_model "${2:?seconds}"
    run_target fuzz_npy "$2"
    ;;
*)
    echo "usage: $0 build | test | seeds | smoke SECONDS | run fuzz_model|fuzz_npy SECONDS | all SECONDS" >&2
    exit 2
    ;;
esac
