#!/usr/bin/env python3
"""Write XLA's own print of fixture modules whose async ops are written in
the long form (`async-start(…), calls=%async_computation`): XLA's printer
(as `compiled.as_text()` does) writes them in the short form
(`dynamic-update-slice-start(…)`, no wrapped computation). The memory
report must read both alike (hlo/tests/memory.rs).

    .venv-jax/bin/python tools/dumps/short_form.py   # from the repository root

Writes tests/data/dumps/NAME.short.hlo for each NAME below, and
tests/data/async_forms/NAME.short.hlo for each NAME.long.hlo there (written
by hand), with the jaxlib of tools/dumps/generate.py's versions.
"""

import os

import jaxlib._hlo as hlo

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(os.path.dirname(os.path.dirname(HERE)), "tests", "data")
DUMPS = os.path.join(DATA, "dumps")
NAMES = ["tpu_remat_offload_scan", "tpu_v6e_offload_scan_outputs"]
# Hand-written long forms of each kind the short form must read alike:
# an async fusion and dynamic-update-slice, a scatter of two inputs, and a
# dynamic-update-slice on a thread whose values XLA does not analyse.
FORMS = os.path.join(DATA, "async_forms")


def print_as_xla(source, target):
    with open(source) as f:
        module = hlo.hlo_module_from_text(f.read())
    with open(target, "w") as f:
        f.write(module.to_string())
    print(os.path.basename(target))


for name in NAMES:
    print_as_xla(os.path.join(DUMPS, name + ".hlo"), os.path.join(DUMPS, name + ".short.hlo"))
for file in sorted(os.listdir(FORMS)):
    if file.endswith(".long.hlo"):
        stem = file[: -len(".long.hlo")]
        print_as_xla(os.path.join(FORMS, file), os.path.join(FORMS, stem + ".short.hlo"))
