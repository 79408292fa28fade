#!/usr/bin/python3
"""The lab's runs side by side per precision (scripts/lab-precision.sh; docs/lab.md, "Low precision").

  precision_table.py RESULTS_DIR [RESULTS_DIR ...]

For each sweep folder: per placement and precision, how many runs failed (with NaN/Inf, collapsed), the
steps that loss scaling skipped (a gradient norm of inf in curves.csv), and the final eval loss of each run
against the same run in fp64 (the median and the largest |relative difference| over the runs that trained
in both). The precision and the other settings are runs.csv's columns: a run's fp64 twin is the run whose
every column before the results is the same but for `run` and `precision`.
"""

import csv
import os
import statistics
import sys

PRECISIONS = ["fp64", "fp32", "bf16", "bf16-mixed", "bf16-mixed-noscale", "fp16", "fp16-mixed", "fp16-mixed-noscale"]


RESULTS = ["train_loss", "eval_loss", "failed", "fail_step", "fail_reason"]


def twin_key(row, columns):
    """What a run is apart from its precision: every configuration column but run and precision."""
    return tuple(row[c] for c in columns if c not in ("run", "precision") and c not in RESULTS)


def table(folder):
    with open(os.path.join(folder, "runs.csv")) as f:
        reader = csv.DictReader(f)
        runs = list(reader)
        columns = reader.fieldnames
    skipped = {}
    with open(os.path.join(folder, "curves.csv")) as f:
        for row in csv.DictReader(f):
            if row["grad_norm"] == "inf" and row["precision"].endswith("-mixed"):
                skipped[row["run"]] = skipped.get(row["run"], 0) + 1
    fp64 = {twin_key(r, columns): r for r in runs if r["precision"] == "fp64"}
    groups = {}
    for r in runs:
        groups.setdefault((r["placement"], r["precision"]), []).append(r)
    print(f"{folder}:")
    print(f"{'placement':<10} {'precision':<19} {'runs':>4} {'failed':>6} {'NaN/Inf':>7} {'collapsed':>9} "
          f"{'skipped steps':>13} {'NaN at step':>11}  eval loss: median, this / fp64")
    placements = list(dict.fromkeys(r["placement"] for r in runs))
    for placement in placements:
        for p in PRECISIONS:
            rows = groups.get((placement, p))
            if not rows:
                continue
            failed = [r for r in rows if r["failed"] == "1"]
            nonfinite = sum(r["fail_reason"] == "nonfinite" for r in failed)
            # Final eval losses of the runs that trained here and in fp64: medians, this precision's and fp64's.
            twins = [(r, fp64.get(twin_key(r, columns))) for r in rows]
            pairs = [(float(r["eval_loss"]), float(t["eval_loss"])) for r, t in twins
                     if r["failed"] == "0" and t is not None and t["failed"] == "0"]
            versus = (f"{statistics.median(a for a, _ in pairs):.4f} / {statistics.median(b for _, b in pairs):.4f}"
                      f" ({len(pairs)} runs)" if pairs else "-")
            skips = sum(skipped.get(r["run"], 0) for r in rows)
            nan_steps = sorted(int(r["fail_step"]) for r in failed if r["fail_reason"] == "nonfinite")
            nan_at = f"{nan_steps[0]}-{nan_steps[-1]}" if nan_steps else "-"
            print(f"{placement:<10} {p:<19} {len(rows):>4} {len(failed):>6} {nonfinite:>7} {len(failed) - nonfinite:>9} "
                  f"{skips:>13} {nan_at:>11}  {versus}")


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for folder in sys.argv[1:]:
        table(folder)


if __name__ == "__main__":
    main()
