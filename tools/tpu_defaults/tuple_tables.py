#!/usr/bin/env python3
"""Measure the size of a TPU tuple's index table (the array of its elements'
addresses) by arity, on TPU v4, v5e, v5p and v6e, without TPU hardware.

Each program returns an n-tuple (n outputs) or carries an n-tuple through a
while loop; the size of every tuple-shaped value (`(...)`) is read from the
compile's buffer assignment, with the tuple's arity from its shape.

  .venv-jax/bin/python tools/tpu_defaults/tuple_tables.py \\
      > layout-core/tests/data/tpu_tuple_tables.jsonl

Measured with jax 0.10.2, jaxlib 0.10.2, libtpu 0.0.52. Output: one JSON
object per (generation, arity): {"generation", "arity", "bytes"}, sorted.
"""
import glob
import json
import os
import re
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from generate import TOPOLOGIES, split_top  # noqa: E402
ARITIES = [0, 2, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 100, 127, 128, 129, 130, 140, 255, 256, 257, 300]
VALUE = re.compile(r"value: <\d+ \S+ @\d+> \(size=(\d+),offset=\d+\): (\(.*\))$")


def arity(shape):
    """Top-level elements of a tuple shape's text."""
    return len(split_top(shape[1:-1]))


def measure(jax, jnp, fn, args, dump_root):
    dump = tempfile.mkdtemp(dir=dump_root)
    try:
        jax.jit(fn).lower(*args).compile(compiler_options={"xla_dump_to": dump})
        (ba,) = glob.glob(os.path.join(dump, "*after_optimizations-buffer-assignment.txt"))
        out = []
        with open(ba) as f:
            for line in f:
                m = VALUE.search(line.strip())
                if m:
                    out.append((arity(m.group(2)), int(m.group(1))))
        return out
    finally:
        shutil.rmtree(dump, ignore_errors=True)


def main():
    import jax
    import jax.numpy as jnp
    from jax.experimental import topologies

    dump_root = tempfile.mkdtemp(prefix="tuple_tables_")
    seen = {}
    try:
        for gen, topo in TOPOLOGIES.items():
            dev = topologies.get_topology_desc(topo, "tpu").devices[0]
            sharding = jax.sharding.SingleDeviceSharding(dev)
            x = jax.ShapeDtypeStruct((8, 128), jnp.float32, sharding=sharding)
            for n in ARITIES:
                outputs = lambda x, n=n: tuple(x * i for i in range(n))  # noqa: E731

                def carried(x, n=n):
                    body = lambda i, c: tuple(v + i for v in c)  # noqa: E731
                    return jax.lax.fori_loop(0, 3, body, tuple(x * i for i in range(n)))

                for fn in (outputs, carried) if n > 0 else (outputs,):
                    for a, size in measure(jax, jnp, fn, (x,), dump_root):
                        prev = seen.setdefault((gen, a), size)
                        if prev != size:
                            sys.exit("%s arity %d: %d and %d bytes" % (gen, a, prev, size))
    finally:
        shutil.rmtree(dump_root, ignore_errors=True)
    order = list(TOPOLOGIES)
    for (gen, a), size in sorted(seen.items(), key=lambda kv: (order.index(kv[0][0]), kv[0][1])):
        print(json.dumps({"generation": gen, "arity": a, "bytes": size}))


if __name__ == "__main__":
    main()
