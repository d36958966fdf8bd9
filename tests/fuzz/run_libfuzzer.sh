#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# ctest's libFuzzer run of one target (a -DKILN_FUZZ=ON clang build): a fresh scratch corpus first, then the
# target over it and the given corpus folders and options.
#   run_libfuzzer.sh TARGET SCRATCH [CORPUS... OPTIONS...]
set -eu
target=$1
scratch=$2
shift 2
rm -rf "$scratch"
mkdir -p "$scratch"
exec "$target" "$scratch" "$@"
