#!/usr/bin/python3
"""The lab's runs side by side per precision (scripts/lab-precision.sh; docs/lab.md, "Low precision").

  precision_table.py RESULTS_DIR [RESULTS_DIR ...]

For each sweep folder: per placement and precision, how many runs failed (with NaN/Inf, collapsed), the
steps that loss scaling skipped (a gradient norm of inf in curves.csv), and the final eval loss of each run
against the same run in fp64 (the median and the largest |relative difference| over the runs that trained
in both). The precision is the run id's last part ("..._s0_fp16-mixed"; none: fp64).
"""

import csv
import os
import statistics
import sys

PRECISIONS = ["fp64", "fp32", "bf16", "bf16-mixed", "bf16-mixed-noscale", "fp16", "fp16-mixed", "fp16-mixed-noscale"]


def precision_of(run_id):
    last = run_id.rsplit("_", 1)[-1]
    return last if last in PRECISIONS else "fp64"


def fp64_id(run_id):
    p = precision_of(run_id)
    return run_id if p == "fp64" else run_id[: -len(p) - 1]


def table(folder):
    with open(os.path.join(folder, "runs.csv")) as f:
        runs = list(csv.DictReader(f))
    skipped = {}
    with open(os.path.join(folder, "curves.csv")) as f:
        for row in csv.DictReader(f):
            if row["grad_norm"] == "inf" and precision_of(row["run"]).endswith("-mixed"):
                skipped[row["run"]] = skipped.get(row["run"], 0) + 1
    by_id = {r["run"]: r for r in runs}
    groups = {}
    for r in runs:
        groups.setdefault((r["placement"], precision_of(r["run"])), []).append(r)
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
            pairs = [(float(r["eval_loss"]), float(by_id[fp64_id(r["run"])]["eval_loss"])) for r in rows
                     if r["failed"] == "0" and fp64_id(r["run"]) in by_id
                     and by_id[fp64_id(r["run"])]["failed"] == "0"]
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
