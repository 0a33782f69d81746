#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan + UBSan) and runs them on a seed corpus (docs/reliability.md).
#   scripts/fuzz.sh build                  configure and build fuzz/ in $ONNXSCOPE_FUZZ_BUILD_DIR (default build-fuzz)
#   scripts/fuzz.sh seeds                  (re)write the seed corpora from tests/reliability/make_corpus.py
#   scripts/fuzz.sh run TARGET SECONDS     run fuzz_model or fuzz_npy for SECONDS on one worker, at nice 19
#   scripts/fuzz.sh all SECONDS            build, seed, then run both targets for SECONDS each, one after the other
# Findings (crash-*, leak-*, timeout-*, oom-*) land in $build/findings/TARGET/; turn each into a corpus case
# (make_corpus.py) and a fix. New inputs that reach new coverage are kept in $build/corpus/TARGET/.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${ONNXSCOPE_FUZZ_BUILD_DIR:-$root/build-fuzz}"
python=/usr/bin/python3

build_targets() {
    CC=clang CXX=clang++ cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only" \
        -DONNXSCOPE_FUZZ=ON -DONNXSCOPE_BUILD_GUI=OFF -DONNXSCOPE_BUILD_TESTS=OFF
    nice -n 5 ninja -C "$build" -j2 fuzz_model fuzz_npy
}

write_seeds() {
    local corpus="$build/reliability-corpus"
    "$python" "$root/tests/reliability/make_corpus.py" "$corpus" >/dev/null
    mkdir -p "$build/seeds/fuzz_model" "$build/seeds/fuzz_npy"
    # Every corpus model (hostile and valid) plus the bundled samples; every .npy, good and bad.
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
EOF
    echo "seeds: $(ls "$build/seeds/fuzz_model" | wc -l) models, $(ls "$build/seeds/fuzz_npy" | wc -l) npy files"
}

run_target() {
    local target="$1" seconds="$2"
    mkdir -p "$build/corpus/$target" "$build/findings/$target"
    # One worker, memory and time per input bounded; -max_len large enough for the seed models.
    (cd "$build/findings/$target" &&
        ASAN_OPTIONS=halt_on_error=1:detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
            nice -n 19 "$build/fuzz/$target" -max_total_time="$seconds" -rss_limit_mb=4096 -timeout=10 \
            -max_len=65536 -print_final_stats=1 -artifact_prefix="$build/findings/$target/" \
            "$build/corpus/$target" "$build/seeds/$target")
}

case "${1:-}" in
build) build_targets ;;
seeds) write_seeds ;;
run) run_target "${2:?target}" "${3:?seconds}" ;;
all)
    build_targets
    write_seeds
    run_target fuzz_model "${2:?seconds}"
    run_target fuzz_npy "$2"
    ;;
*)
    echo "usage: $0 build | seeds | run fuzz_model|fuzz_npy SECONDS | all SECONDS" >&2
    exit 2
    ;;
esac
