#!/usr/bin/env python3
"""Write XLA's own print of fixture modules whose async ops are written in
the long form (`async-start(…), calls=%async_computation`): XLA's printer
(as `compiled.as_text()` does) writes them in the short form
(`dynamic-update-slice-start(…)`, no wrapped computation). The memory
report must read both alike (hlo/tests/memory.rs).

    .venv-jax/bin/python tools/dumps/short_form.py   # from the repository root

Writes tests/data/dumps/NAME.short.hlo for each NAME below, with the jaxlib
of tools/dumps/generate.py's versions.
"""

import os

import jaxlib._hlo as hlo

HERE = os.path.dirname(os.path.abspath(__file__))
DUMPS = os.path.join(os.path.dirname(os.path.dirname(HERE)), "tests", "data", "dumps")
NAMES = ["tpu_remat_offload_scan", "tpu_v6e_offload_scan_outputs"]

for name in NAMES:
    with open(os.path.join(DUMPS, name + ".hlo")) as f:
        module = hlo.hlo_module_from_text(f.read())
    with open(os.path.join(DUMPS, name + ".short.hlo"), "w") as f:
        f.write(module.to_string())
    print(name)
