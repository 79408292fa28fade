#!/usr/bin/python3
"""The width study's steps (scripts/lab-widths.sh; docs/lab.md, "Across widths"). Standard library only.

  width_study.py extract DIAGNOSE_DIR... > width_study.csv
      one row per run of the `tapegrad-depth --diagnose` folders: its settings (placement, d, depth, seed, lr,
      final_norm_mode, embed_scale; a folder written before those options existed has them at their defaults) and
      the expected gradient ||E_k[dL/dW]|| of the FFN's and the attention's output projections at the first and
      the last block, and the first update's output change;
  width_study.py tables width_study.csv
      the study's tables, as Markdown (docs/lab.md quotes them; lab.width_tables checks that it does, byte for
      byte): medians over the seeds, and fits of the output change against depth N by a + b*N and a + b*ln N
      with R^2 and a bootstrap interval over the seeds (2000 resamples, seeded: the same text every time);
  width_study.py figure width_study.csv OUT.png
      width_study.png: Pre-Norm's last/first ratio and Post-Norm's last-FFN gradient against d, a line per L
      (gnuplot; the script OUT.gp beside it).
"""
import collections
import csv
import math
import os
import random
import statistics
import subprocess
import sys

from paper_diagnostics import fit  # least squares a + b x with R^2, as the papers' tables use

COLUMNS = ["placement", "d", "depth", "seed", "lr", "final_norm_mode", "embed_scale", "ffn_first", "ffn_last",
           "attn_first", "attn_last", "output_change"]
DEFAULTS = {"lr": "0.001", "final_norm_mode": "auto", "embed_scale": "normal"}  # the study's main runs
RESAMPLES = 2000


def read(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def extract(folders):
    out = csv.writer(sys.stdout, lineterminator="\n")
    out.writerow(COLUMNS)
    for folder in folders:
        grads = collections.defaultdict(dict)  # run -> {(sublayer, block): expected}
        for r in read(os.path.join(folder, "expected_grads.csv")):
            kind = "attn" if r["sublayer"].startswith("attn") else "ffn"
            grads[r["run"]][(kind, int(r["block"]))] = r["expected_grad_norm"]
        for r in read(os.path.join(folder, "output_change.csv")):
            g, last = grads[r["run"]], int(r["depth"]) - 1
            out.writerow([r["placement"], r["d"], r["depth"], r["seed"], r["lr"],
                          r.get("final_norm_mode", "auto"), r.get("embed_scale", "normal"),
                          g[("ffn", 0)], g[("ffn", last)], g[("attn", 0)], g[("attn", last)], r["output_change"]])


def quantile(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


class Study:
    def __init__(self, rows):
        self.rows = rows
        self.cell = collections.defaultdict(list)  # (variant, placement, d, L) -> rows (one per seed)
        for r in rows:
            variant = tuple(r[k] for k in DEFAULTS)
            self.cell[(variant, r["placement"], int(r["d"]), int(r["depth"]))].append(r)

    def variants(self):
        return sorted({k[0] for k in self.cell}, key=lambda v: (v != tuple(DEFAULTS.values()), v))

    def widths(self, variant):
        return sorted({k[2] for k in self.cell if k[0] == variant})

    def depths(self, variant):
        return sorted({k[3] for k in self.cell if k[0] == variant})

    def median(self, variant, placement, d, L, value):
        rows = self.cell.get((variant, placement, d, L))
        return statistics.median(value(r) for r in rows) if rows else None


def ratio(r, kind="ffn"):
    return float(r[kind + "_last"]) / float(r[kind + "_first"])


def grid_table(study, variant, placement, title, value, fmt):
    depths = study.depths(variant)
    lines = ["| %s | %s |" % (title, " | ".join("L = %d" % L for L in depths)),
             "|---|" + "---|" * len(depths)]
    for d in study.widths(variant):
        cells = [study.median(variant, placement, d, L, value) for L in depths]
        lines.append("| d = %d | %s |" % (d, " | ".join("-" if c is None else fmt % c for c in cells)))
    return lines


def fits_table(study, variants):
    rng = random.Random(0)
    lines = ["| output change against N | d | lr | R² a + b·N [90 %] | R² a + b·ln N [90 %] | O(N) fits better |",
             "|---|---|---|---|---|---|"]
    for variant in variants:
        for placement in ("post", "pre"):
            for d in study.widths(variant):
                depths = study.depths(variant)
                seeds = [[float(r["output_change"]) for r in study.cell[(variant, placement, d, L)]] for L in depths]
                if any(not s for s in seeds):
                    continue
                ys = [statistics.median(s) for s in seeds]
                r_lin, r_log = fit(depths, ys)[2], fit([math.log(L) for L in depths], ys)[2]
                lin, log, wins = [], [], 0
                for _ in range(RESAMPLES):  # resample the seeds of each depth, with replacement
                    ys = [statistics.median(rng.choices(s, k=len(s))) for s in seeds]
                    a, b = fit(depths, ys)[2], fit([math.log(L) for L in depths], ys)[2]
                    lin.append(a), log.append(b)
                    wins += a > b
                label = placement + ("" if variant == tuple(DEFAULTS.values()) else ", " + describe(variant))
                lines.append("| %s | %d | %s | %.2f [%.2f, %.2f] | %.2f [%.2f, %.2f] | %.0f %% |" % (
                    label, d, variant[0], r_lin, quantile(lin, 0.05), quantile(lin, 0.95), r_log,
                    quantile(log, 0.05), quantile(log, 0.95), 100.0 * wins / RESAMPLES))
    return lines


def in_short(study, main):
    """The study in one line (README.md and docs/lab.md quote it): the deepest L's medians across widths."""
    widths, L = study.widths(main), study.depths(main)[-1]

    def across(placement, value):
        return ", ".join("%.2f" % study.median(main, placement, d, L, value) for d in widths)

    better = {}
    for placement in ("post", "pre"):
        better[placement] = []
        for d in widths:
            ys = [statistics.median(float(r["output_change"]) for r in study.cell[(main, placement, d, n)])
                  for n in study.depths(main)]
            lin, log = fit(study.depths(main), ys)[2], fit([math.log(n) for n in study.depths(main)], ys)[2]
            better[placement].append("N" if lin > log else "ln N")
    return ("In short: at L = %d and d = %s, Pre-Norm's last/first FFN gradient is %s (flat: 1) and "
            "Post-Norm's last FFN gradient %s; the first update's output change against depth is fitted better "
            "by a + b*(%s) for Post-Norm and by a + b*(%s) for Pre-Norm." % (
                L, ", ".join(str(d) for d in widths), across("pre", ratio),
                across("post", lambda r: float(r["ffn_last"])), ", ".join(better["post"]), ", ".join(better["pre"])))


def describe(variant):
    return ", ".join("%s %s" % (k, v) for k, v in zip(DEFAULTS, variant) if DEFAULTS[k] != v)


def tables(path):
    study = Study(read(path))
    main = tuple(DEFAULTS.values())
    seeds = sorted({r["seed"] for r in study.rows})
    print("Width study: medians over seeds %s (Xavier init, lr 1e-3, K = 16 minibatches at init)" % ",".join(seeds))
    print()
    for lines in (
            grid_table(study, main, "pre", "Pre: last/first FFN gradient", ratio, "%.2f"),
            grid_table(study, main, "pre", "Pre: last/first attention gradient", lambda r: ratio(r, "attn"), "%.2f"),
            grid_table(study, main, "post", "Post: last FFN gradient", lambda r: float(r["ffn_last"]), "%.2f"),
            grid_table(study, main, "post", "Post: last/first FFN gradient", ratio, "%.2f")):
        print("\n".join(lines))
        print()
    print("\n".join(fits_table(study, [v for v in study.variants() if v[1:] == main[1:]])))
    print()
    print(in_short(study, main))
    checks = [v for v in study.variants() if v[1:] != main[1:]]
    if checks:
        print()
        print("Checks at d = %s (Pre: last/first FFN gradient; Post: last FFN gradient):"
              % ",".join(str(d) for d in study.widths(checks[0])))
        print()
        depths = study.depths(checks[0])
        print("| variant | %s |" % " | ".join("L = %d" % L for L in depths))
        print("|---|" + "---|" * len(depths))
        for v in [main] + checks:
            for placement, value, name in (("pre", ratio, "Pre last/first"),
                                           ("post", lambda r: float(r["ffn_last"]), "Post last")):
                d = study.widths(checks[0])[0]
                cells = [study.median(v, placement, d, L, value) for L in depths]
                if all(c is None for c in cells):  # a check of one placement only (no final norm: pre)
                    continue
                print("| %s, %s | %s |" % (name, describe(v) or "the lab's model",
                                           " | ".join("-" if c is None else "%.2f" % c for c in cells)))


def figure(path, png):
    study = Study(read(path))
    main = tuple(DEFAULTS.values())
    widths, depths = study.widths(main), study.depths(main)
    gp = os.path.splitext(png)[0] + ".gp"
    script = ["set terminal pngcairo size 1100,450 font ',10'", "set output '%s'" % os.path.basename(png),
              "set multiplot layout 1,2 title 'The width study: medians over seeds (Xavier init, K = 16 minibatches)'",
              "set logscale x 2", "set xtics (%s)" % ", ".join("'%d' %d" % (d, d) for d in widths),
              "set xrange [%g:%g]" % (widths[0] / 1.3, widths[-1] * 1.3), "set key outside right", "set grid"]
    panels = [("Pre-Norm: last/first block, FFN expected gradient (flat = 1)", "pre", ratio),
              ("Post-Norm: last block's FFN expected gradient", "post", lambda r: float(r["ffn_last"]))]
    for title, placement, value in panels:
        script += ["set title \"%s\"" % title, "set xlabel 'width d'", "plot \\"]
        if placement == "pre":
            script[-1] += "\n  1 with lines dashtype 2 lc 'black' title 'flat', \\"
        plots = []
        for i, L in enumerate(depths):
            plots.append("  '-' using 1:2 with linespoints pt %d title 'L = %d'" % (i + 1, L))
        script.append(", \\\n".join(plots))
        for L in depths:
            for d in widths:
                v = study.median(main, placement, d, L, value)
                if v is not None:
                    script.append("%d %.6g" % (d, v))
            script.append("e")
    script.append("unset multiplot")
    with open(gp, "w") as f:
        f.write("\n".join(script) + "\n")
    subprocess.run(["gnuplot", os.path.basename(gp)], cwd=os.path.dirname(os.path.abspath(gp)), check=True)


def main(argv):
    if len(argv) >= 3 and argv[1] == "extract":
        extract(argv[2:])
    elif len(argv) == 3 and argv[1] == "tables":
        tables(argv[2])
    elif len(argv) == 4 and argv[1] == "figure":
        figure(argv[2], argv[3])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
