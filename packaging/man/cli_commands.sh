#!/bin/sh
# SPDX-License-Identifier: MIT
# Writes a help2man include file whose COMMANDS section is each subcommand's own --help text, so that the
# onnxscope-cli man page says exactly what `onnxscope-cli <command> --help` says.
#   cli_commands.sh <onnxscope-cli> <static include file> <output>
set -eu
cli="$1"
static="$2"
out="$3"
{
    echo "[COMMANDS]"
    for command in info run test ops; do
        echo ".SS $command"
        echo ".nf"
        # roff: escape backslashes, and keep lines that start with . or ' from being read as requests.
        "$cli" "$command" --help | sed -e 's/\\/\\e/g' -e "s/^\([.']\)/\\\\\&\1/"
        echo ".fi"
    done
    echo
    cat "$static"
} > "$out.tmp"
mv "$out.tmp" "$out"
