#!/usr/bin/env python3
"""Measure the default layout and padded byte size libtpu gives an entry
parameter of each (element type, dims), on TPU v4, v5e, v5p and v6e, without TPU
hardware (compile-only topologies).

Measured with: jax 0.10.2, jaxlib 0.10.2, libtpu 0.0.52 (Python 3.11).

Regenerate (about 4 minutes on 2 cores; each generation is ~46,500 cases in ~120 compiles):

  python -m venv .venv-jax && .venv-jax/bin/pip install jax==0.10.2 jaxlib==0.10.2 libtpu==0.0.52
  .venv-jax/bin/python tools/tpu_defaults/generate.py \
      --out /tmp/tpu_defaults/full.jsonl \
      --sample-out layout-core/tests/data/tpu_defaults.jsonl
  python3 tools/tpu_defaults/rule.py check /tmp/tpu_defaults/full.jsonl
  python3 tools/tpu_defaults/check_library.py target/release/xla-layout \
      /tmp/tpu_defaults/full.jsonl   # the library's rule, on every row

  # rebuild only the sample from an existing full table:
  python3 tools/tpu_defaults/generate.py resample /tmp/tpu_defaults/full.jsonl \
      layout-core/tests/data/tpu_defaults.jsonl

The sample also writes layout-core/tests/data/tpu_defaults_s1u1.jsonl (s1/u1
rows: layout from get_default_layout, no bytes field).

How each row is measured:
  * layout: every case is passed as an entry parameter (ShapeDtypeStruct with a
    SingleDeviceSharding on device 0 of the topology) of one jit'ed function
    `lambda *args: None` (keep_unused=True) together with up to --batch other
    cases; the layout is read from `entry_computation_layout` of the compiled
    HLO text.  It is also asked of the PJRT client's get_default_layout and the
    two must agree (field api_layout).
  * bytes: the size of the buffer-assignment allocation of that parameter,
    from the compile's XLA dump (compiler option xla_dump_to).
  * --single N re-compiles N cases one per jit and checks that layout and bytes
    are the same as in the batched compile.

Element types s1/u1 cannot be compiled through jax (jax lowers int1 to pred,
and uint1 fails to serialize), so their rows come from get_default_layout only
and have "bytes": null.

Output: one JSON object per line:
  {"generation","dtype","dims","shape","bytes","api_layout"}
plus a failures file (<out>.failures.json) naming element types that could not be used.
"""
import argparse
import glob
import json
import os
import random
import re
import shutil
import sys
import tempfile
import time
import zlib

os.environ.setdefault("ALLOW_MULTIPLE_LIBTPU_LOAD", "1")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import rule  # noqa: E402

TOPOLOGIES = {"v4": "v4:2x2x1", "v5e": "v5e:2x2", "v5p": "v5p:2x2x1", "v6e": "v6e:2x2"}

# numpy/ml_dtypes name -> XLA element type name.  Order is the table order.
DTYPES = [
    ("bool", "pred"),
    ("int1", "s1"), ("uint1", "u1"),
    ("int2", "s2"), ("uint2", "u2"),
    ("int4", "s4"), ("uint4", "u4"),
    ("int8", "s8"), ("uint8", "u8"),
    ("int16", "s16"), ("uint16", "u16"),
    ("int32", "s32"), ("uint32", "u32"),
    ("int64", "s64"), ("uint64", "u64"),
    ("bfloat16", "bf16"), ("float16", "f16"), ("float32", "f32"), ("float64", "f64"),
    ("complex64", "c64"), ("complex128", "c128"),
    ("float8_e4m3fn", "f8e4m3fn"), ("float8_e5m2", "f8e5m2"),
    ("float8_e4m3b11fnuz", "f8e4m3b11fnuz"), ("float8_e4m3fnuz", "f8e4m3fnuz"),
    ("float8_e5m2fnuz", "f8e5m2fnuz"), ("float8_e4m3", "f8e4m3"), ("float8_e3m4", "f8e3m4"),
    ("float8_e8m0fnu", "f8e8m0fnu"), ("float4_e2m1fn", "f4e2m1fn"),
    # tried, expected to fail:
    ("float6_e2m3fn", "f6e2m3fn"), ("float6_e3m2fn", "f6e3m2fn"),
    ("complex32", "c32?"), ("bcomplex32", "bc32?"),
]
# jax cannot compile these through jit (see module doc); layout only.
LAYOUT_ONLY = {"s1", "u1"}

SIZES = [0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129,
         255, 256, 257, 512, 1000, 1024]
RANK1_EXTRA = [6, 100, 200, 300, 511, 513, 1023, 1025, 2047, 2048, 2049, 4096, 4097, 10000]
SMALL = [1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 24, 31, 32, 33, 48, 64, 65, 96, 127, 128, 129,
         192, 256, 257]
MAX_ELEMS = 1 << 24   # cap on padded elements of one random high-rank case


def np_dtype(name):
    import numpy as np
    import ml_dtypes
    return np.dtype(getattr(ml_dtypes, name)) if hasattr(ml_dtypes, name) else np.dtype(name)


def _padded_elems(dims):
    e = 1
    for i, d in enumerate(dims):
        e *= (-(-d // 128) * 128) if i >= len(dims) - 2 else d
    return e


def cases_for(xla_name):
    """Deterministic case list for one element type (same for every generation)."""
    out = [()]
    out += [(n,) for n in SIZES + RANK1_EXTRA]
    out += [(a, b) for a in SIZES for b in SIZES]
    for a in (1, 3, 8, 129, 4097):
        for b in (2049, 4097, 10000):
            out += [(a, b), (b, a)]
    out = list(dict.fromkeys(out))
    rng = random.Random(zlib.crc32(xla_name.encode()))
    seen = set(out)
    for rank, count in ((3, 400), (4, 150), (5, 100), (6, 100)):
        made = 0
        while made < count:
            dims = tuple(rng.choice(SMALL if rank > 3 else SIZES[1:]) for _ in range(rank))
            if rng.random() < 0.05:
                dims = dims[:-1] + (0,)
            if dims in seen or _padded_elems(dims) > MAX_ELEMS * (4 if rank == 3 else 1):
                continue
            seen.add(dims)
            out.append(dims)
            made += 1
    return out


def est_bytes(xla_name, dims):
    try:
        return rule.byte_size(xla_name, list(dims))
    except Exception:
        return 16 * _padded_elems(dims)


def split_top(s):
    s = re.sub(r"/\*index=\d+\*/", "", s)
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch in "[{(":
            depth += 1
        elif ch in "]})":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def entry_param_shapes(hlo_text):
    m = re.search(r"entry_computation_layout=\{\((.*?)\)->", hlo_text)
    return split_top(m.group(1))


ALLOC_RE = re.compile(r"^allocation \d+: size (\d+),.*? parameter (\d+), shape \|", re.M)


def compile_batch(jax, dev, items, dump_root):
    """items: list of (np_dtype, dims).  Returns list of (shape_text, bytes)."""
    sh = jax.sharding.SingleDeviceSharding(dev)
    args = [jax.ShapeDtypeStruct(dims, dt, sharding=sh) for dt, dims in items]
    dump = tempfile.mkdtemp(dir=dump_root)
    try:
        comp = jax.jit(lambda *a: None, keep_unused=True).lower(*args).compile(
            compiler_options={"xla_dump_to": dump})
        shapes = entry_param_shapes(comp.as_text())
        files = glob.glob(os.path.join(dump, "*after_optimizations-buffer-assignment.txt"))
        assert len(files) == 1, files
        sizes = {}
        for size, param in ALLOC_RE.findall(open(files[0]).read()):
            sizes[int(param)] = int(size)
    finally:
        shutil.rmtree(dump, ignore_errors=True)
    assert len(shapes) == len(items), (len(shapes), len(items))
    return [(shapes[i], sizes.get(i)) for i in range(len(items))]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="/tmp/tpu_defaults/full.jsonl")
    ap.add_argument("--sample-out", default=None,
                    help="write the sampled table here (default: sample.jsonl beside --out)")
    ap.add_argument("--gens", default="v4,v5e,v5p,v6e")
    ap.add_argument("--batch", type=int, default=400, help="max parameters per compile")
    ap.add_argument("--batch-bytes", type=int, default=3 << 30, help="max summed bytes per compile")
    ap.add_argument("--single", type=int, default=60, help="cases per generation re-checked alone")
    ap.add_argument("--sample-rest", type=int, default=400, help="extra random rows in the sample")
    args = ap.parse_args()

    import jax
    import jaxlib
    jax.config.update("jax_enable_x64", True)
    from jax.experimental import topologies
    try:
        from importlib.metadata import version
        libtpu_v = version("libtpu")
    except Exception:
        libtpu_v = "?"
    print("jax %s jaxlib %s libtpu %s" % (jax.__version__, jaxlib.__version__, libtpu_v), file=sys.stderr)

    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    dump_root = tempfile.mkdtemp(prefix="tpu_defaults_dump_")
    failures = {}
    rows = []
    stats = {}
    for gen in args.gens.split(","):
        t0 = time.time()
        topo = topologies.get_topology_desc(TOPOLOGIES[gen], "tpu")
        dev = topo.devices[0]
        client = dev.client
        st = stats.setdefault(gen, {"cases": 0, "api_vs_compiled_mismatch": 0, "single_checked": 0,
                                    "single_mismatch": 0, "device_kind": dev.device_kind})
        gen_rows = []
        pending = []  # (row, np dtype)
        for np_name, xla in DTYPES:
            try:
                dt = np_dtype(np_name)
                client.get_default_layout(dt, (3, 5), dev)
            except Exception as e:
                failures.setdefault(np_name, {})[gen] = "get_default_layout: %s" % str(e).splitlines()[0][:200]
                continue
            try:
                (shape, _), = compile_batch(jax, dev, [(dt, (3, 5))], dump_root)
                got = shape.split("[")[0]
                if got != xla:
                    raise RuntimeError("jit lowers it to %s, not %s" % (got, xla))
            except Exception as e:
                failures.setdefault(np_name, {})[gen] = "compile: %s" % str(e).splitlines()[0][:200]
                if xla not in LAYOUT_ONLY:
                    continue
            for dims in cases_for(xla):
                api = str(client.get_default_layout(dt, dims, dev))
                row = {"generation": gen, "dtype": xla, "dims": list(dims), "shape": None,
                       "bytes": None, "api_layout": api}
                gen_rows.append(row)
                if xla not in LAYOUT_ONLY:
                    pending.append((row, dt))
                else:
                    row["shape"] = "%s[%s]%s" % (xla, ",".join(map(str, dims)), api)
        # batched compiles
        i = 0
        while i < len(pending):
            j, tot = i, 0
            while j < len(pending) and j - i < args.batch:
                b = est_bytes(pending[j][0]["dtype"], pending[j][0]["dims"])
                if j > i and tot + b > args.batch_bytes:
                    break
                tot += b
                j += 1
            chunk = pending[i:j]
            res = compile_batch(jax, dev, [(dt, tuple(r["dims"])) for r, dt in chunk], dump_root)
            for (r, _), (shape, size) in zip(chunk, res):
                r["shape"], r["bytes"] = shape, size
            i = j
        for r in gen_rows:
            st["cases"] += 1
            if not r["shape"].endswith(r["api_layout"]):
                st["api_vs_compiled_mismatch"] += 1
        # single-parameter cross-check
        rng = random.Random(gen)
        for r, dt in rng.sample(pending, min(args.single, len(pending))):
            (shape, size), = compile_batch(jax, dev, [(dt, tuple(r["dims"]))], dump_root)
            st["single_checked"] += 1
            if shape != r["shape"] or size != r["bytes"]:
                st["single_mismatch"] += 1
                print("single-compile mismatch", gen, r, shape, size, file=sys.stderr)
        rows += gen_rows
        print("%s: %d rows in %.0fs" % (gen, len(gen_rows), time.time() - t0), file=sys.stderr)
    shutil.rmtree(dump_root, ignore_errors=True)

    with open(args.out, "w") as f:
        for r in rows:
            f.write(json.dumps(r, separators=(",", ":")) + "\n")
    meta = {"jax": jax.__version__, "jaxlib": jaxlib.__version__, "libtpu": libtpu_v,
            "failures": failures, "stats": stats}
    with open(args.out + ".failures.json", "w") as f:
        json.dump(meta, f, indent=1, sort_keys=True)
    print(json.dumps(meta, indent=1, sort_keys=True), file=sys.stderr)

    write_sample(rows, args.sample_out or os.path.join(os.path.dirname(os.path.abspath(args.out)), "sample.jsonl"),
                 args.sample_rest)


def write_sample(rows, path, n_rest):
    """Sampled table: for every (element type, rule branch) one measured row,
    taking the generations in turn, plus a seeded random sample of the rest.
    s1/u1 rows (layout only, no measured bytes) go to a sibling file
    <path minus .jsonl>_s1u1.jsonl without a bytes field."""
    gens = list(TOPOLOGIES)
    groups = {}
    for r in rows:
        if r["bytes"] is None and r["dtype"] not in LAYOUT_ONLY:
            continue
        key = (r["dtype"], rule.branch(r["dtype"], r["dims"]))
        groups.setdefault(key, {}).setdefault(r["generation"], []).append(r)
    keep, turn = [], {}
    for (dt, _), by_gen in groups.items():
        t = turn.get(dt, 0)
        turn[dt] = t + 1
        for k in range(len(gens)):
            g = gens[(t + k) % len(gens)]
            if g in by_gen:
                keep.append(by_gen[g][0])
                break
    chosen = set(id(r) for r in keep)
    rest = [r for r in rows if id(r) not in chosen and r["bytes"] is not None]
    rng = random.Random(1234)
    keep += rng.sample(rest, min(n_rest, len(rest)))
    order = {g: i for i, g in enumerate(gens)}
    dorder = {x: i for i, (_, x) in enumerate(DTYPES)}
    keep.sort(key=lambda r: (order[r["generation"]], dorder[r["dtype"]], len(r["dims"]), r["dims"]))
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    side = re.sub(r"\.jsonl$", "", path) + "_s1u1.jsonl"
    n_main = n_side = 0
    with open(path, "w") as f, open(side, "w") as g:
        for r in keep:
            out = {"generation": r["generation"], "dtype": r["dtype"], "dims": r["dims"],
                   "shape": r["shape"]}
            if r["dtype"] in LAYOUT_ONLY:
                g.write(json.dumps(out, separators=(",", ":")) + "\n")
                n_side += 1
            else:
                out["bytes"] = r["bytes"]
                f.write(json.dumps(out, separators=(",", ":")) + "\n")
                n_main += 1
    print("sample: %d rows, %d bytes -> %s; %d layout-only rows -> %s" % (
        n_main, os.path.getsize(path), path, n_side, side), file=sys.stderr)


def resample(full, path, n_rest):
    rows = [json.loads(l) for l in open(full) if l.strip()]
    write_sample(rows, path, n_rest)


if __name__ == "__main__":
    if len(sys.argv) >= 2 and sys.argv[1] == "resample":
        # resample FULL.jsonl SAMPLE.jsonl [N_REST]: rebuild the sample without re-measuring
        resample(sys.argv[2], sys.argv[3], int(sys.argv[4]) if len(sys.argv) > 4 else 400)
    else:
        main()
