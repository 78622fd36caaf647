#!/usr/bin/env python3
"""Compare measured TPU default layouts with the library itself.

rule.py is an independent reconstruction used to sample the table; the
library's rule (layout-core's `tpu` module) is the one users get. This
script checks the library directly on every measured row: it feeds each
row's shape, written without a layout, to `xla-layout tpu --generation G`
(its line mode, one JSON object per line) and compares the layout text
and the padded bytes with what libtpu gave.

Usage (standard-library Python only):

  cargo build --release -p xla-layout-cli
  python3 tools/tpu_defaults/check_library.py target/release/xla-layout \\
      /tmp/tpu_defaults/full.jsonl [more tables...]

Rows whose bytes are null (s1/u1, measured through get_default_layout
only) are compared by layout. Exit status: 0 when every row agrees, 1
otherwise (the first mismatches are printed), 2 on usage errors.
"""
import json
import subprocess
import sys


def rows(paths):
    for path in paths:
        with open(path) as f:
            for line in f:
                line = line.strip()
                if line:
                    yield json.loads(line)


def run_library(cli, generation, shapes):
    """One `xla-layout tpu` process for all shapes of one generation."""
    out = subprocess.run(
        [cli, "tpu", "--generation", generation],
        input="".join(s + "\n" for s in shapes),
        capture_output=True,
        text=True,
        check=False,
    )
    if out.returncode != 0:
        sys.exit("%s tpu failed (%d): %s" % (cli, out.returncode, out.stderr))
    answers = [json.loads(l) for l in out.stdout.splitlines()]
    if len(answers) != len(shapes):
        sys.exit("%d answers for %d shapes" % (len(answers), len(shapes)))
    return answers


def main(argv):
    if len(argv) < 3:
        print(__doc__)
        return 2
    cli, paths = argv[1], argv[2:]
    by_generation = {}
    for row in rows(paths):
        by_generation.setdefault(row["generation"], []).append(row)
    total = bad = 0
    for generation, measured in sorted(by_generation.items()):
        shapes = ["%s[%s]" % (r["dtype"], ",".join(map(str, r["dims"]))) for r in measured]
        answers = run_library(cli, generation, shapes)
        agree = 0
        for row, asked, got in zip(measured, shapes, answers):
            want = row.get("shape") or asked + row["api_layout"]
            ok = got.get("shape") == want and (
                row.get("bytes") is None or got.get("bytes") == row["bytes"]
            )
            agree += ok
            if not ok:
                bad += 1
                if bad <= 50:
                    print("MISMATCH", json.dumps(row), "library:", json.dumps(got))
        total += len(measured)
        print("  %s: %d/%d" % (generation, agree, len(measured)))
    print("rows: %d  agree with the library: %d" % (total, total - bad))
    return 0 if bad == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
