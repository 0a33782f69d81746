#!/bin/sh
# The object files of engine/kernels/simd/simd_<level>.cpp must define no symbol outside their own namespaces
# (onnxscope::simd::<level> and the renamed Eigen): an inline function or template compiled there with AVX2 or
# AVX-512 could otherwise be the copy the linker keeps for every caller, and crash older CPUs.
# Usage: check_simd_symbols.sh "OBJECT;OBJECT;..." (the engine's object files; others are ignored).
status=0
found=0
IFS=';'
for object in $1; do
    case "$object" in
    *simd_base.cpp.o | *simd_avx2.cpp.o | *simd_avx512.cpp.o) ;;
    *) continue ;;
    esac
    found=$((found + 1))
    level=$(basename "$object" .cpp.o | sed 's/^simd_//')
    stray=$(nm -C --defined-only "$object" | awk '$2 !~ /^[tbdrn]$/' | grep -v "onnxscope::simd::$level::" \
        | grep -v "OnnxscopeEigenSimd" | grep -v "DW.ref.__gxx_personality_v0")
    if [ -n "$stray" ]; then
        echo "$object defines shared symbols:"
        echo "$stray"
        status=1
    fi
done
if [ "$found" -lt 1 ]; then
    echo "no simd_<level>.cpp.o among the objects given"
    exit 1
fi
echo "checked $found object file(s)"
exit $status
