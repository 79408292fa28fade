#!/usr/bin/python3
"""Two printed tables are the same but for the last digits of their decimals.

  same_within.py COMMITTED FRESH --atol A

For a table of a long run's numbers (docs/lab/precision.txt): the runs are exact on one machine, but their last
bits are the BLAS kernel's, and 200 steps of training carry them into the printed digits. Every line must be
the same text with the same integers (counts, depths: a verdict, which a kernel must not move), and every
decimal number (one with a '.') within A of the committed one. Prints each difference; exit 1 if any.
"""

import argparse
import re
import sys

DECIMAL = re.compile(r"-?\d+\.\d+(?:e[-+]?\d+)?")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("committed")
    p.add_argument("fresh")
    p.add_argument("--atol", type=float, required=True, help="how far a decimal may move")
    a = p.parse_args()
    with open(a.committed) as f:
        committed = f.read().splitlines()
    with open(a.fresh) as f:
        fresh = f.read().splitlines()
    bad = 0
    if len(committed) != len(fresh):
        print(f"{a.fresh}: {len(fresh)} lines, {a.committed}: {len(committed)}")
        bad += 1
    for n, (c, r) in enumerate(zip(committed, fresh), 1):
        # The text around the decimals (words, integers, spacing) must be the same; the decimals close.
        cd, rd = DECIMAL.findall(c), DECIMAL.findall(r)
        if DECIMAL.sub("#", c) != DECIMAL.sub("#", r) or len(cd) != len(rd):
            print(f"line {n}: the text differs:\n  committed: {c}\n  fresh:     {r}")
            bad += 1
            continue
        for x, y in zip(cd, rd):
            if abs(float(x) - float(y)) > a.atol:
                print(f"line {n}: {y} against the committed {x} (more than {a.atol} apart):\n  {r}")
                bad += 1
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
