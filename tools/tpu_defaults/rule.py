#!/usr/bin/env python3
"""Reference model of the default (HBM) layout libtpu picks for a dense array on
TPU v4 / v5e / v6e, and the padded byte size of that layout.

This is an independent reconstruction from measurements (see generate.py and
docs/tpu-default-layouts.md); it is not derived from XLA or libtpu source.

Usage:
  python3 rule.py layout DTYPE DIM...         # e.g. rule.py layout bf16 1024 1
  python3 rule.py check TABLE.jsonl [...]     # compare the rule with measured rows

Only the Python standard library is needed.

The rule (all four generations measured identical):

  bits   = storage bits of one element used for tiling; 64-bit and complex
           types tile like 32-bit types (bits = 32 for the tiling decision)
  pack   = 32 // bits for bits < 32, else 1    (elements per 32-bit word)

  rank 0:          {:T(128*pack)}                         (+E(bits) if bits < 8)
  any dim == 0:    {r-1,...,0}  (no tiles)                (+:E(bits) if bits < 8)
  rank 1, n > 0:   {0:T(k)...} with k = clamp(next_pow2(n), 128*pack, max(1024, 128*pack));
                   bits >= 32: T(k); else T(k)(128)(pack,1) (+E(bits) if bits < 8)
  rank >= 2:       pick the minor dim m and second-minor dim s (see choose_minor_pair),
                   the other dims keep their relative order as more-major dims;
                   tile T(tile_rows(d[s]),128) followed by (pack,1) if pack > 1,
                   and E(bits) if bits < 8.
  bytes:           padded elements (minor to 128, second-minor to the tile rows, rank 1
                   to k, rank 0 = one tile, 0 if any dim is 0) * bytes per element.
"""
import json
import sys
from fractions import Fraction

GENERATIONS = ("v4", "v5e", "v6e")

# XLA element type name -> (bits used for tiling, bytes per element as a Fraction)
_TYPES = {
    "pred": (8, 1),
    "s1": (1, Fraction(1, 8)), "u1": (1, Fraction(1, 8)),
    "s2": (2, Fraction(1, 4)), "u2": (2, Fraction(1, 4)),
    "s4": (4, Fraction(1, 2)), "u4": (4, Fraction(1, 2)), "f4e2m1fn": (4, Fraction(1, 2)),
    "s8": (8, 1), "u8": (8, 1),
    "f8e5m2": (8, 1), "f8e4m3fn": (8, 1), "f8e4m3b11fnuz": (8, 1), "f8e5m2fnuz": (8, 1),
    "f8e4m3fnuz": (8, 1), "f8e4m3": (8, 1), "f8e3m4": (8, 1), "f8e8m0fnu": (8, 1),
    "s16": (16, 2), "u16": (16, 2), "f16": (16, 2), "bf16": (16, 2),
    "s32": (32, 4), "u32": (32, 4), "f32": (32, 4),
    "s64": (32, 8), "u64": (32, 8), "f64": (32, 8),
    "c64": (32, 8), "c128": (32, 16),
}

DTYPES = tuple(_TYPES)


def _rup(x, m):
    return -(-x // m) * m


def _next_pow2(n):
    p = 1
    while p < n:
        p *= 2
    return p


def tiling_bits(dtype):
    return _TYPES[dtype][0]


def element_bytes(dtype):
    return _TYPES[dtype][1]


def pack(dtype):
    b = tiling_bits(dtype)
    return 32 // b if b < 32 else 1


def base_rows(bits, s):
    """Row count of the ordinary tile for a second-minor dimension of size s
    (before the 'whole vreg' tile for packed types)."""
    if bits >= 32:
        return 1 if s <= 1 else 2 if s <= 2 else 4 if s <= 4 else 8
    if bits == 16:
        return 2 if s <= 2 else 4 if s <= 4 else 8
    if bits == 8:
        return 4 if s <= 4 else 8
    return {4: 8, 2: 16, 1: 32}[bits]


def tile_rows(bits, s):
    """Row count actually used in the tile for second-minor size s."""
    big = {8: 32, 4: 64, 2: 128, 1: 256}.get(bits)
    if big is not None and s > 4 and s % big == 0:
        return big
    return base_rows(bits, s)


def _score(bits, dm, ds):
    """Preference key of putting size dm minor and size ds second-minor.
    Larger is better.  Primary: fraction of the padded 2-D footprint that is
    real data, where the second-minor padding is measured with rows capped at 8.
    Secondary: the pair needs no padding at all under the real tile (this only
    decides anything for s2/u2/s1/u1, whose base tile has more than 8 rows)."""
    r = base_rows(bits, ds)
    primary = Fraction(dm, _rup(dm, 128)) * Fraction(ds, _rup(ds, min(r, 8)))
    exact = dm % 128 == 0 and ds % r == 0
    return (primary, exact)


def choose_minor_pair(dtype, dims):
    """Return (m, s): index of the minor dim and of the second-minor dim."""
    bits = tiling_bits(dtype)
    n = len(dims)
    best = None
    # Candidates in order of preference on ties: the most-minor index first for
    # the minor dim, then the most-minor remaining index for the second-minor.
    for m in range(n - 1, -1, -1):
        for s in range(n - 1, -1, -1):
            if s == m:
                continue
            key = _score(bits, dims[m], dims[s])
            if best is None or key > best[0]:
                best = (key, m, s)
    return best[1], best[2]


def minor_to_major(dtype, dims):
    n = len(dims)
    if n < 2 or 0 in dims:
        return list(range(n - 1, -1, -1))
    m, s = choose_minor_pair(dtype, dims)
    rest = [i for i in range(n - 1, -1, -1) if i not in (m, s)]
    return [m, s] + rest


def tiles(dtype, dims):
    """List of tiles, each a tuple of ints, outermost first."""
    bits = tiling_bits(dtype)
    p = pack(dtype)
    n = len(dims)
    if n >= 1 and 0 in dims:
        return []
    if n == 0:
        return [(128 * p,)]
    if n == 1:
        k = min(max(_next_pow2(dims[0]), 128 * p), max(1024, 128 * p))
        return [(k,)] if p == 1 else [(k,), (128,), (p, 1)]
    m, s = choose_minor_pair(dtype, dims)
    t = [(tile_rows(bits, dims[s]), 128)]
    if p > 1:
        t.append((p, 1))
    return t


def layout_text(dtype, dims):
    m2m = minor_to_major(dtype, dims)
    t = tiles(dtype, dims)
    bits = tiling_bits(dtype)
    attrs = "".join("(" + ",".join(map(str, x)) + ")" for x in t)
    if attrs:
        attrs = "T" + attrs
    if bits < 8:
        attrs += "E(%d)" % bits
    body = ",".join(map(str, m2m))
    return "{" + body + (":" + attrs if attrs else "") + "}"


def shape_text(dtype, dims):
    return "%s[%s]%s" % (dtype, ",".join(map(str, dims)), layout_text(dtype, dims))


def byte_size(dtype, dims):
    """Padded size in bytes of the default layout."""
    n = len(dims)
    if n >= 1 and 0 in dims:
        return 0
    t = tiles(dtype, dims)
    if n == 0:
        elems = t[0][0]
    elif n == 1:
        elems = _rup(dims[0], t[0][0])
    else:
        m, s = choose_minor_pair(dtype, dims)
        rows = t[0][0]
        elems = _rup(dims[m], 128) * _rup(dims[s], rows)
        for i, d in enumerate(dims):
            if i not in (m, s):
                elems *= d
    size = Fraction(elems) * element_bytes(dtype)
    assert size.denominator == 1, (dtype, dims)
    return int(size)


def branch(dtype, dims):
    """A tag naming which parts of the rule decide this case (used to pick a
    sample that exercises every branch)."""
    bits = tiling_bits(dtype)
    n = len(dims)
    cls = "b%d" % bits if dtype not in ("pred",) else "pred"
    if dtype in ("s64", "u64", "f64", "c64", "c128"):
        cls += "w%d" % int(element_bytes(dtype) * 8)
    if n == 0:
        return (cls, "rank0")
    if 0 in dims:
        return (cls, "zero", n)
    if n == 1:
        return (cls, "rank1", tiles(dtype, dims)[0][0])
    m, s = choose_minor_pair(dtype, dims)
    order = "default" if (m, s) == (n - 1, n - 2) else (
        "swap2" if (m, s) == (n - 2, n - 1) else "other")
    rows = tile_rows(bits, dims[s])
    keys = sorted((_score(bits, dims[a], dims[b]) for a in range(n) for b in range(n) if a != b),
                  reverse=True)
    # the best score is shared by several (m, s) pairs: decided by candidate order
    tie = len(keys) > 1 and keys[1] == keys[0]
    # the best primary score is shared, the secondary key decides
    sec = len(keys) > 1 and keys[1][0] == keys[0][0] and keys[1][1] != keys[0][1]
    return (cls, "rank%d" % min(n, 3), order, rows, "tie" if tie else "", "secondary" if sec else "")


def _check(paths):
    total = agree_layout = agree_bytes = 0
    bad = []
    per = {}
    for path in paths:
        with open(path) as f:
            for line in f:
                line = line.strip()
                if not line:
                    continue
                row = json.loads(line)
                dt, dims = row["dtype"], row["dims"]
                want_shape = row.get("shape") or ("%s[%s]%s" % (dt, ",".join(map(str, dims)), row["api_layout"]))
                got_shape = shape_text(dt, dims)
                ok_l = got_shape == want_shape
                if row.get("api_layout") and row.get("shape"):
                    # the compiled entry layout and the PJRT default layout must agree too
                    ok_l = ok_l and row["shape"].endswith(row["api_layout"])
                ok_b = row.get("bytes") is None or byte_size(dt, dims) == row["bytes"]
                total += 1
                agree_layout += ok_l
                agree_bytes += ok_b
                g = per.setdefault(row.get("generation", "?"), [0, 0])
                g[0] += 1
                g[1] += ok_l and ok_b
                if not (ok_l and ok_b):
                    bad.append((row, got_shape, byte_size(dt, dims)))
    print("rows: %d  layout agree: %d  bytes agree: %d" % (total, agree_layout, agree_bytes))
    for g, (n, ok) in sorted(per.items()):
        print("  %s: %d/%d" % (g, ok, n))
    for row, s, b in bad[:50]:
        print("MISMATCH", json.dumps(row), "rule:", s, b)
    return 0 if not bad else 1


def main(argv):
    if len(argv) >= 2 and argv[1] == "check":
        return _check(argv[2:])
    if len(argv) >= 3 and argv[1] == "layout":
        dt = argv[2]
        dims = [int(x) for x in argv[3:]]
        print(shape_text(dt, dims), byte_size(dt, dims))
        return 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
