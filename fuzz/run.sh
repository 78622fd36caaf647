#!/usr/bin/env bash
# Runs the fuzz targets on the committed corpus (see README.md).
#
#   fuzz/run.sh [-t SECONDS | -r RUNS] [-m] [TARGET...]
#
#   -t SECONDS  fuzz each target this long (default 60)
#   -r RUNS     or this many executions each
#   -m          then minimize the corpus back into corpus/TARGET (cmin)
#   TARGET      shape_text, hlo_module, relayout, layout_macro (default: all)
#
# One target at a time, one process, under `nice -n 19`. New inputs go to
# corpus-work/TARGET (not committed); crashes to artifacts/TARGET. Needs a
# nightly toolchain and cargo-fuzz (`cargo install cargo-fuzz`). Exits
# non-zero at the first target that fails.
set -euo pipefail
cd "$(dirname "$0")"

time_limit=60
runs=""
minimize=false
while getopts "t:r:mh" opt; do
    case "$opt" in
        t) time_limit="$OPTARG" ;;
        r) runs="$OPTARG" ;;
        m) minimize=true ;;
        *) sed -n '2,14p' "$0"; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(shape_text hlo_module relayout layout_macro)

# Per target: the sanitizer (address where the core's unsafe code runs:
# the lexer's SIMD scan, the relayout kernels; none where the code is safe
# Rust, for 5-8× the executions), the longest input, the longest input
# kept in the committed corpus (-m; smaller for the two targets whose
# minimized corpus would be megabytes), and seed directories besides the
# corpus.
settings() {
    case "$1" in
        shape_text) san=(); max_len=512; keep_len=512; seeds=() ;;
        relayout) san=(); max_len=512; keep_len=512; seeds=() ;;
        hlo_module) san=(-s none --target-dir target/nosan); max_len=4096; keep_len=512
            seeds=(../tests/data/dumps ../examples/dumps) ;;
        layout_macro) san=(-s none --target-dir target/nosan); max_len=2048; keep_len=512; seeds=() ;;
        *) echo "unknown target: $1" >&2; exit 2 ;;
    esac
}

for t in "${targets[@]}"; do
    settings "$t"
    mkdir -p "corpus/$t" "corpus-work/$t" "artifacts/$t"
    if [ -n "$runs" ]; then limit=(-runs="$runs"); else limit=(-max_total_time="$time_limit"); fi
    echo "== $t: ${limit[*]}"
    # Flags: a 10 s timeout per input and 2 GB of memory are far beyond
    # what any input of max_len bytes needs (the targets bound their work
    # per byte); the final stats give executions, new units and peak RSS.
    set +e
    nice -n 19 cargo +nightly fuzz run "${san[@]}" "$t" "corpus-work/$t" "corpus/$t" "${seeds[@]}" -- \
        "${limit[@]}" -max_len="$max_len" -timeout=10 -rss_limit_mb=2048 \
        -print_final_stats=1 2>&1 | grep -v -E '^#[0-9]+\s+(NEW|REDUCE|pulse)'
    status=${PIPESTATUS[0]}
    set -e
    [ "$status" -eq 0 ] || { echo "== $t failed (exit $status): see artifacts/$t" >&2; exit "$status"; }
    if $minimize; then
        # Everything found so far, minimized into corpus/TARGET (inputs
        # cut to keep_len bytes; corpus-work keeps them whole).
        cp -n "corpus-work/$t"/* "corpus/$t"/ 2>/dev/null || true
        nice -n 19 cargo +nightly fuzz cmin "${san[@]}" "$t" "corpus/$t" -- -max_len="$keep_len" -rss_limit_mb=2048 2>&1 | tail -2
        echo "== $t: corpus/$t is $(ls "corpus/$t" | wc -l) files, $(du -sb "corpus/$t" | cut -f1) bytes"
    fi
done
