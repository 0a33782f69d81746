#!/bin/sh
# Opening an LLM-shaped model with GBs of external weights: the time from open to the first drawn graph and the
# peak RSS of the whole GUI process (`onnxscope --benchmark-open` under /usr/bin/time). The model comes from
# graph_make_llm.py (28 layers, 2,158 nodes, 3.0 GiB of float32 weights, written as a sparse file: no disk, no time).
# Not a test: prints one JSON line per run, best of three wanted (the first pays for cold caches).
# Usage: tests/bench/graph_llm_bench.sh [build dir] [graph_make_llm.py options...]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../build}
[ $# -gt 0 ] && shift
app=$build/app/gui/onnxscope
tmp=${TMPDIR:-/tmp}/onnxscope-llm-bench
mkdir -p "$tmp"
/usr/bin/python3 "$here/graph_make_llm.py" "$tmp/llm.onnx" "$@" >&2
export QT_QPA_PLATFORM=${QT_QPA_PLATFORM:-offscreen}
weights=$(stat -c %s "$tmp/llm.onnx.data")
for run in 1 2 3; do
    line=$(/usr/bin/time -f 'peak_rss_kib=%M' -o "$tmp/time.txt" "$app" --benchmark-open "$tmp/llm.onnx" 2>/dev/null)
    rss=$(sed -n 's/^peak_rss_kib=//p' "$tmp/time.txt")
    echo "${line%\}}, \"external_data_bytes\": $weights, \"peak_rss_mib\": $((rss / 1024))}"
done
