#!/usr/bin/python3
"""Summarises a sweep's initialisation diagnostics (init_grads.csv, output_change.csv) per placement and
depth: medians over the seeds. Used by scripts/lab-init-profile.sh; standard library only.

  init_profile.py RESULTS_DIR
"""
import collections
import csv
import os
import statistics
import sys


def main(folder):
    grads = collections.defaultdict(dict)  # (placement, depth, seed, sublayer) -> {block: norm}
    with open(os.path.join(folder, "init_grads.csv")) as f:
        for r in csv.DictReader(f):
            grads[(r["placement"], int(r["depth"]), r["seed"], r["sublayer"])][int(r["block"])] = float(r["weight_grad_norm"])
    change = collections.defaultdict(list)
    with open(os.path.join(folder, "output_change.csv")) as f:
        for r in csv.DictReader(f):
            change[(r["placement"], int(r["depth"]))].append(float(r["output_change"]))
    placements = sorted({k[0] for k in grads}, key=["post", "pre", "deepnorm", "rezero", "sandwich", "none"].index)
    depths = sorted({k[1] for k in grads})
    sublayers = sorted({k[3] for k in grads})
    seeds = sorted({k[2] for k in grads})
    print("medians over seeds %s; depths %s" % (",".join(seeds), ", ".join("L=%d" % L for L in depths)))
    for sub in sublayers:
        for p in placements:
            ratio, last = [], []
            for L in depths:
                per_seed = [grads[(p, L, s, sub)] for s in seeds]
                ratio.append(statistics.median(g[L - 1] / g[0] for g in per_seed))
                last.append(statistics.median(g[L - 1] for g in per_seed))
            print("%-8s %-32s last/first %s   last block %s" % (p, sub, " ".join("%.2f" % x for x in ratio),
                                                              " ".join("%.3f" % x for x in last)))
    for p in placements:
        print("%-8s output change after step 1 %s" % (p, " ".join("%.2f" % statistics.median(change[(p, L)])
                                                                 for L in depths)))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
