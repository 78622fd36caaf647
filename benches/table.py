#!/usr/bin/env python3
"""The relayout table of BENCHMARKS.md from criterion's last run.

    cargo bench -p xla-layout-benches --bench relayout -- tpu
    python3 benches/table.py [target/criterion]

For every benchmark `<case>/relayout` (and `<case>/relayout_dst16`) of
group `tpu`, the median throughput in GiB/s, and its ratio to
`<case>/nt_copy` and `<case>/copy_from_slice` of the same run; then the
`threads` group.
"""
import json
import os
import sys

root = sys.argv[1] if len(sys.argv) > 1 else "target/criterion"


def results(group):
    """{function id: GiB/s} of the group's last run."""
    out = {}
    gdir = os.path.join(root, group)
    if not os.path.isdir(gdir):
        return out
    for dirpath, _, files in os.walk(gdir):
        if "benchmark.json" not in files or not dirpath.endswith("new"):
            continue
        bench = json.load(open(os.path.join(dirpath, "benchmark.json")))
        est = json.load(open(os.path.join(dirpath, "estimates.json")))
        nbytes = bench["throughput"]["Bytes"]
        ns = est["median"]["point_estimate"]
        out[bench["function_id"]] = nbytes / ns * 1e9 / 2**30
    return out


tpu = results("tpu")
print(
    "| case | relayout | dst +16 B | NT copy | `copy_from_slice` "
    "| ÷ NT copy | dst +16 B ÷ NT copy | ÷ `copy_from_slice` |"
)
print("|---|---:|---:|---:|---:|---:|---:|---:|")
cases = sorted({k.rsplit("/", 1)[0] for k in tpu})
for case in cases:
    r, r16, nt, cfs = (
        tpu.get(f"{case}/{w}") for w in ("relayout", "relayout_dst16", "nt_copy", "copy_from_slice")
    )
    if None in (r, r16, nt, cfs):
        continue
    print(
        f"| `{case}` | {r:.2f} GiB/s | {r16:.2f} GiB/s | {nt:.2f} GiB/s | {cfs:.2f} GiB/s "
        f"| {r / nt:.2f}× | {r16 / nt:.2f}× | {r / cfs:.2f}× |"
    )
if any(f"{c}/relayout_sse2" in tpu for c in cases):
    print()
    print("| case | relayout (AVX2) | SSE2 only | general walk | ÷ NT copy: SSE2 | walk |")
    print("|---|---:|---:|---:|---:|---:|")
    for case in cases:
        r, s, w, nt = (
            tpu.get(f"{case}/{x}") for x in ("relayout", "relayout_sse2", "relayout_walk", "nt_copy")
        )
        if None in (r, s, w, nt):
            continue
        print(
            f"| `{case}` | {r:.2f} GiB/s | {s:.2f} GiB/s | {w:.2f} GiB/s "
            f"| {s / nt:.2f}× | {w / nt:.2f}× |"
        )
threads = results("threads")
if threads:
    print()
    print("| case | 1 thread | 2 threads | 2 ÷ 1 |")
    print("|---|---:|---:|---:|")
    for case in sorted({k.rsplit("/", 1)[0] for k in threads}):
        one, two = threads.get(f"{case}/1t"), threads.get(f"{case}/2t")
        if one and two:
            print(f"| `{case}` | {one:.2f} GiB/s | {two:.2f} GiB/s | {two / one:.2f}× |")
