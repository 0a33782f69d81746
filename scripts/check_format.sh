#!/usr/bin/env bash
# Fails (exit 1) when a C++ file that git tracks differs from what clang-format makes of it with the repository's
# .clang-format, and lists those files. `scripts/check_format.sh --fix` formats them in place instead.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
format="${CLANG_FORMAT:-clang-format-14}"
command -v "$format" >/dev/null || { echo "check_format: $format not found (Debian package clang-format-14)" >&2; exit 2; }
mapfile -t files < <(git ls-files '*.cpp' '*.h')
if [ "${1:-}" = --fix ]; then
    "$format" -i "${files[@]}"
    exit 0
fi
bad=()
for f in "${files[@]}"; do
    "$format" --dry-run -Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done
if [ "${#bad[@]}" -gt 0 ]; then
    echo "check_format: ${#bad[@]} of ${#files[@]} files are not formatted with $format (scripts/check_format.sh --fix):" >&2
    printf '  %s\n' "${bad[@]}" >&2
    exit 1
fi
echo "check_format: ${#files[@]} files formatted"
