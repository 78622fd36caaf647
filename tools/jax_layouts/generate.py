#!/usr/bin/env python3
"""JAX's layout text next to XLA's, for the same layouts, from libtpu.

Writes tests/data/jax_layouts.jsonl: one object per case,
{"shape": XLA shape text with layout, "jax": repr of jax's Layout}, for
entry parameters compiled offline for a TPU v5e topology (no TPU needed).

    python3 -m venv .venv-jax
    .venv-jax/bin/pip install jax==0.10.2 jaxlib==0.10.2 libtpu==0.0.52
    .venv-jax/bin/python tools/jax_layouts/generate.py

Versions used: jax 0.10.2, jaxlib 0.10.2, libtpu 0.0.52.
"""
import json
import os
import sys

import jax
import jax.numpy as jnp
from jax.experimental import topologies
from jax.sharding import SingleDeviceSharding

CASES = [
    ((), jnp.float32), ((7,), jnp.float32), ((5000,), jnp.bfloat16), ((3, 5), jnp.float32),
    ((1024, 1), jnp.bfloat16), ((16, 256), jnp.bfloat16), ((1, 5), jnp.bool_),
    ((1, 129), jnp.int4), ((127, 257), jnp.int4), ((64, 1000), jnp.int8),
    ((2, 3, 300), jnp.float32), ((8, 65, 5, 16), jnp.int8), ((0, 3), jnp.float32),
    ((3, 4, 5, 6, 7), jnp.uint16), ((2, 2), jnp.complex64), ((9, 9), jnp.float64),
    ((4, 1000), jnp.float8_e4m3fn), ((256, 3), jnp.uint8),
]


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(__file__), "..", "..", "tests", "data", "jax_layouts.jsonl")
    dev = topologies.get_topology_desc("v5e:2x2", "tpu").devices[0]
    f = jax.jit(lambda x: x)
    with open(out, "w") as fh:
        for shape, dtype in CASES:
            c = f.lower(jax.ShapeDtypeStruct(shape, dtype, sharding=SingleDeviceSharding(dev))).compile()
            layout = c.input_formats[0][0].layout
            text = c.as_text()
            # The entry parameter's shape as XLA prints it.
            head = text[text.index("entry_computation_layout={(") + len("entry_computation_layout={("):]
            depth, end = 0, 0
            for end, ch in enumerate(head):
                if ch in "[{(":
                    depth += 1
                elif ch in "]})":
                    if depth == 0:
                        break
                    depth -= 1
                elif ch == "," and depth == 0:
                    break
            fh.write(json.dumps({"shape": head[:end], "jax": repr(layout)}) + "\n")


if __name__ == "__main__":
    main()
