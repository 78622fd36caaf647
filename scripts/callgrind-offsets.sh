#!/usr/bin/env bash
# Instruction counts of the generated `offset` functions next to their
# hand-written twins (tests/compiler/: the probe crate and its example), under callgrind: each pair
# should cost the same. Counts are per function, over every call the
# example makes; they repeat exactly for the same binary. When LLVM finds
# a generated function identical to its twin it keeps one symbol for both
# (the best outcome): the script then says "merged".
#
#   scripts/callgrind-offsets.sh
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "valgrind is not installed" >&2; exit 2; }
cargo build --release --quiet -p xla-layout-compiler-tests --example zero_cost
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
bin=${CARGO_TARGET_DIR:-target}/release/examples/zero_cost
valgrind --tool=callgrind --callgrind-out-file="$out/cg.out" "$bin" >/dev/null 2>"$out/log"
callgrind_annotate --threshold=100 "$out/cg.out" \
    | awk '/(generated|hand)_/ { n = $1; gsub(",", "", n); f = $0; sub(/.*:/, "", f); sub(/ .*/, "", f); count[f] = n }
           END {
               printf "%-14s %14s %14s\n", "layout", "generated", "hand-written"
               split("row_major column_major tile_8x128 tpu_bf16 combine three_levels", names, " ")
               for (i = 1; i <= 6; i++) {
                   g = count["generated_" names[i]]; h = count["hand_" names[i]]
                   printf "%-14s %14s %14s\n", names[i], (g == "" ? "merged" : g), h
               }
           }'
