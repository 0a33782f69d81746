#!/bin/sh
# SPDX-License-Identifier: MIT
# Validation of packaging/ and of what it installs, one CTest test per mode. A check whose tool is missing
# exits 77, which CTest reports as skipped (Debian: desktop-file-utils, appstream, libxml2-utils,
# shared-mime-info, lintian, dpkg-dev, man-db).
#   check_packaging.sh desktop|metainfo|mime|release <source dir> <project version>
#   check_packaging.sh install|deb <source dir> <project version> <build dir> <scratch dir>
set -eu
mode="$1"
src="$2"
version="$3"
build="${4:-}"
scratch="${5:-}"
app_id=io.github.onnxscope.Onnxscope
pkg="$src/packaging"

need() {
    for tool in "$@"; do
        if ! command -v "$tool" >/dev/null 2>&1; then
            echo "SKIP: $tool is not installed"
            exit 77
        fi
    done
}
fail() {
    echo "FAIL: $*" >&2
    exit 1
}
fresh_scratch() {
    [ -n "$scratch" ] || fail "no scratch directory given"
    rm -rf "$scratch"
    mkdir -p "$scratch"
}

case "$mode" in
desktop)
    need desktop-file-validate
    # Hints are advice; errors and warnings fail.
    out="$(desktop-file-validate "$pkg/$app_id.desktop")" || { echo "$out"; fail "desktop-file-validate"; }
    echo "$out"
    echo "$out" | grep -qE "error|warning" && fail "desktop-file-validate reported problems"
    grep -qx "MimeType=application/x-onnx;" "$pkg/$app_id.desktop" || fail "the .desktop file does not claim application/x-onnx"
    ;;
metainfo)
    need appstreamcli
    appstreamcli validate --no-net --strict "$pkg/$app_id.metainfo.xml"
    ;;
mime)
    need xmllint update-mime-database
    xmllint --noout "$pkg/mime/onnxscope-mime.xml"
    # update-mime-database is the reference reader of this format: it must compile the file without a word.
    fresh_scratch
    mkdir -p "$scratch/mime/packages"
    cp "$pkg/mime/onnxscope-mime.xml" "$scratch/mime/packages/"
    out="$(XDG_DATA_HOME="$scratch" update-mime-database "$scratch/mime" 2>&1)"
    [ -z "$out" ] || fail "update-mime-database: $out"
    grep -q "application/x-onnx:\*\.onnx" "$scratch/mime/globs" || fail "no *.onnx glob compiled"
    ;;
release)
    # The newest release in the metainfo (the release notes, and the Debian changelog) is project(VERSION).
    newest="$(sed -n 's/.*<release version="\([^"]*\)".*/\1/p' "$pkg/$app_id.metainfo.xml" | head -n 1)"
    [ "$newest" = "$version" ] || fail "newest <release> in the metainfo is '$newest', project(VERSION) is $version"
    ;;
install)
    need appstreamcli desktop-file-validate
    fresh_scratch
    root="$scratch/root"
    DESTDIR="$root" cmake --install "$build" --prefix /usr >/dev/null
    usr="$root/usr"
    for f in bin/onnxscope bin/onnxscope-cli share/onnxscope/samples/mlp_classifier.onnx \
        share/applications/$app_id.desktop share/metainfo/$app_id.metainfo.xml share/mime/packages/onnxscope-mime.xml \
        share/icons/hicolor/scalable/apps/$app_id.svg share/man/man1/onnxscope.1.gz share/man/man1/onnxscope-cli.1.gz \
        share/doc/onnxscope/copyright share/doc/onnxscope/changelog.gz; do
        [ -f "$usr/$f" ] || fail "not installed: /usr/$f"
    done
    for size in 16 22 24 32 48 64 128 256; do
        png="$usr/share/icons/hicolor/${size}x${size}/apps/$app_id.png"
        [ -f "$png" ] || fail "not installed: $png"
        if command -v identify >/dev/null 2>&1; then
            [ "$(identify -format '%wx%h' "$png")" = "${size}x${size}" ] || fail "$png is not ${size}x${size}"
        fi
    done
    # The .desktop file, metainfo and icon must agree with each other where they are installed.
    appstreamcli validate-tree --no-net "$root"
    desktop-file-validate "$usr/share/applications/$app_id.desktop"
    # Both programs say the version from project(VERSION), with their libraries': onnx is the pinned release.
    onnx_version="$(sed -n 's/^ONNX_VERSION=//p' "$src/scripts/onnx.env")"
    [ -n "$onnx_version" ] || fail "no ONNX_VERSION in $src/scripts/onnx.env"
    cli_version="$("$usr/bin/onnxscope-cli" --version)"
    echo "$cli_version"
    echo "$cli_version" | grep -qF "onnxscope-cli $version (onnx $onnx_version, protobuf " || fail "onnxscope-cli --version: $cli_version"
    echo "$cli_version" | grep -q "^onnxscope-cli $version (onnx [0-9.]*, protobuf [0-9.]*)$" || fail "onnxscope-cli --version: $cli_version"
    gui_version="$(QT_QPA_PLATFORM=offscreen "$usr/bin/onnxscope" --version)"
    echo "$gui_version"
    echo "$gui_version" | grep -qF "onnxscope $version (onnx $onnx_version, Qt " || fail "onnxscope --version: $gui_version"
    echo "$gui_version" | grep -q "^onnxscope $version (onnx [0-9.]*, Qt [0-9.]*, Graphviz [0-9.]*)$" || fail "onnxscope --version: $gui_version"
    # Without a model the installed GUI opens the installed sample (not the source tree's) and draws its graph.
    opened="$(QT_QPA_PLATFORM=offscreen timeout 120 "$usr/bin/onnxscope" --benchmark-open)" || fail "the installed GUI did not open its sample"
    echo "$opened"
    echo "$opened" | grep -q "\"model\": \"[^\"]*/usr/share/onnxscope/samples/mlp_classifier.onnx\"" || fail "the GUI opened something else"
    # Man pages render without groff warnings (lintian runs the same check).
    if command -v man >/dev/null 2>&1; then
        for page in onnxscope onnxscope-cli; do
            warnings="$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 -l "$usr/share/man/man1/$page.1.gz" 2>&1 >/dev/null)"
            [ -z "$warnings" ] || fail "man $page: $warnings"
        done
        LC_ALL=C.UTF-8 man -l "$usr/share/man/man1/onnxscope-cli.1.gz" | grep -q "random-inputs" || fail "the onnxscope-cli man page lacks the run command's options"
    fi
    ;;
deb)
    need cpack dpkg-deb dpkg-shlibdeps objdump
    fresh_scratch
    cpack -G DEB --config "$build/CPackConfig.cmake" -B "$scratch" >"$scratch/cpack.log" 2>&1 || { cat "$scratch/cpack.log"; fail "cpack"; }
    arch="$(dpkg --print-architecture)"
    deb="$scratch/onnxscope_${version}_${arch}.deb"
    [ -f "$deb" ] || { ls "$scratch"; fail "no $(basename "$deb")"; }
    dpkg-deb --info "$deb"
    depends="$(dpkg-deb --field "$deb" Depends)"
    # Derived from the linked libraries by dpkg-shlibdeps, so each of them must be named.
    for lib in libc6 libstdc++6 libqt6widgets6 libqt6gui6 libqt6core6 libqt6svg6 libgvc6 libcgraph6 libprotobuf libre2 libjpeg62-turbo libpng16 libwebp7 libtiff6 libopenjp2-7; do
        echo "$depends" | grep -q "$lib" || fail "Depends lacks $lib: $depends"
    done
    # onnx is linked statically (Debian's libonnx1 is an older release): no package of it, and no library.
    if echo "$depends" | grep -q "libonnx"; then
        fail "Depends names Debian's onnx, which the programs must not load: $depends"
    fi
    dpkg-deb --contents "$deb" | grep -q "./usr/bin/onnxscope-cli$" || fail "the package has no /usr/bin/onnxscope-cli"
    dpkg-deb -x "$deb" "$scratch/unpacked"
    for program in onnxscope onnxscope-cli; do
        needed="$(objdump -p "$scratch/unpacked/usr/bin/$program" | sed -n 's/^ *NEEDED *//p')"
        if echo "$needed" | grep -q "onnx"; then
            fail "/usr/bin/$program loads a shared onnx library: $needed"
        fi
    done
    # The packaged (stripped) program runs with the system's libraries.
    "$scratch/unpacked/usr/bin/onnxscope-cli" --version || fail "the packaged onnxscope-cli does not run"
    if command -v lintian >/dev/null 2>&1; then
        # No errors; warnings are printed for the record.
        # No errors (lintian exits 1 for those, 2 when it could not check); warnings are printed for the record.
        status=0
        lintian --tag-display-limit 0 "$deb" >"$scratch/lintian.log" 2>&1 || status=$?
        cat "$scratch/lintian.log"
        [ "$status" -eq 0 ] || fail "lintian exited with $status"
        ! grep -q "^E: " "$scratch/lintian.log" || fail "lintian reported errors"
    else
        echo "lintian is not installed: not run"
    fi
    ;;
*)
    echo "usage: $0 desktop|metainfo|mime|release|install|deb ..." >&2
    exit 2
    ;;
esac
echo "ok: $mode"
