#!/usr/bin/env python3
"""The poems depth sweep's per-run data and its chaos over seeds (scripts/lab-poems-depth.sh).

  runs  RUNS_CSV...   the sweeps' runs.csv (one per block style) -> one CSV on stdout: style, placement, depth,
                      lr, warmup, seed, the final validation loss in nats and bits per character, failed and why
                      (docs/lab/poems_depth_runs.csv is this output; tests/lab/poems_depth_test.sh re-runs rows).
  chaos POEMS_CSV     the cells (style, placement, lr, warmup, depth) whose seeds disagree: some runs failed
                      (NaN/Inf, or collapsed above the unigram baseline) and some did not. Printed with each seed's
                      bits per character (inf: NaN/Inf), and how many cells of how many disagree.
"""
import csv
import math
import sys
from collections import defaultdict

COLUMNS = ["style", "placement", "depth", "lr", "warmup", "seed", "eval_loss", "eval_bpc", "failed", "fail_reason"]


def style_of(row):
    # --preset llama's runs have RMSNorm and SwiGLU; the transformer preset's the defaults.
    return "llama" if row["norm"] == "rms" else "transformer"


def runs(paths):
    out = csv.writer(sys.stdout, lineterminator="\n")
    out.writerow(COLUMNS)
    for path in paths:
        for r in csv.DictReader(open(path)):
            loss = float(r["eval_loss"])
            bpc = loss / math.log(2) if math.isfinite(loss) else float("inf")
            out.writerow([style_of(r), r["placement"], r["depth"], r["lr"], r["warmup"], r["seed"],
                          r["eval_loss"], "%.6f" % bpc, r["failed"], r["fail_reason"]])


def chaos(path):
    cells = defaultdict(list)
    for r in csv.DictReader(open(path)):
        key = (r["style"], r["placement"], float(r["lr"]), int(r["warmup"]), int(r["depth"]))
        cells[key].append(r)
    mixed = [k for k, rs in sorted(cells.items()) if len({r["failed"] for r in rs}) > 1]
    print("Seeds that disagree (some failed, some not) in %d of %d cells (style, placement, lr, warmup, depth):"
          % (len(mixed), len(cells)))
    for k in mixed:
        rs = sorted(cells[k], key=lambda r: int(r["seed"]))
        seeds = ", ".join("seed %s %s%s" % (r["seed"], "inf" if r["fail_reason"] == "nonfinite" else
                                            "%.3f" % float(r["eval_bpc"]),
                                            " (%s)" % r["fail_reason"] if r["failed"] == "1" else "") for r in rs)
        print("  %-11s %-8s lr=%g warmup=%d L=%d: %s bpc" % (k[0], k[1], k[2], k[3], k[4], seeds))


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "runs":
        runs(sys.argv[2:])
    elif len(sys.argv) == 3 and sys.argv[1] == "chaos":
        chaos(sys.argv[2])
    else:
        sys.exit(__doc__)
