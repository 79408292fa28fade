#!/usr/bin/python3
"""Summarises `tapegrad-depth --diagnose` output (expected_grads.csv, hidden_norms.csv, update_sizes.csv,
output_change.csv) as the papers state their findings: medians over the seeds. Used by scripts/lab-papers.sh;
standard library only.

  paper_diagnostics.py DIAGNOSE_DIR

Prints four tables:
  expected gradient   ||E_k[dL/dW]|| over K minibatches at the first, middle and last block, and last/first,
                      beside the same ratio of the first batch's norm (the sweep's per-batch figure);
  Lemma 2             E||x_l||^2 / d per layer against the bounds, and the fraction of layers inside them
                      (post: within 10% of 3/2, the lemma's equality up to sampling; pre: between 1 + l/2 and
                      1 + 3l/2);
  output change       the first step's against depth N, least-squares fits a + b*N and a + b*ln N with R^2;
  ||dF||              the output change of update t: t = 1, the mean of t = 1..10 and of t = 51..100.
Runs that differ in a setting other than the seed (two learning rates, warmups or widths) are never pooled:
the tables are printed once per combination of the settings that vary, each headed by it. A fit against
depth needs two depths; with one, the output-change table says so instead of fitting.
"""
import collections
import csv
import math
import os
import statistics
import sys

ORDER = ["post", "pre", "deepnorm", "rezero", "sandwich", "none"]


def rows(folder, name):
    with open(os.path.join(folder, name)) as f:
        return list(csv.DictReader(f))


def short(sublayer):
    return "attn" if sublayer.startswith("attn") else "ffn"


def fit(xs, ys):
    """Least squares y = a + b x: (a, b, R^2)."""
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx
    a = my - b * mx
    ss_res = sum((y - a - b * x) ** 2 for x, y in zip(xs, ys))
    ss_tot = sum((y - my) ** 2 for y in ys)
    return a, b, 1 - ss_res / ss_tot if ss_tot > 0 else float("nan")


# The columns a table is laid out by; the settings are the other columns that every file has (d, lr, warmup, ...),
# the measurements those of one file only.
KEYS = {"run", "placement", "depth", "seed"}
FILES = ["expected_grads.csv", "hidden_norms.csv", "update_sizes.csv", "output_change.csv"]


def groups(folder):
    """The settings that vary between the runs ("lr", "warmup", ...), and each run's values of them: {run: (values)}.
    Refuses runs that the columns cannot tell apart (a setting with no column), rather than pooling them."""
    columns = None
    for name in FILES:
        with open(os.path.join(folder, name)) as f:
            header = set(next(csv.reader(f), []))
        columns = header if columns is None else columns & header
    settings, values = {}, collections.defaultdict(set)
    for name in FILES:
        for r in rows(folder, name):
            settings[r["run"]] = {k: v for k, v in r.items() if k in columns - KEYS}
            for k, v in settings[r["run"]].items():
                values[k].add(v)
    varying = [k for k in sorted(values) if len(values[k]) > 1]
    of_run, seen = {}, {}
    for name in FILES:
        for r in rows(folder, name):
            of_run[r["run"]] = tuple(settings[r["run"]][k] for k in varying)
            key = (of_run[r["run"]], r["placement"], r["depth"], r["seed"])
            if seen.setdefault(key, r["run"]) != r["run"]:
                sys.exit("paper_diagnostics.py: runs %s and %s differ in a setting that the CSVs have no column for; "
                         "run --diagnose on each into its own folder" % (seen[key], r["run"]))
    return varying, of_run


def number_first(text):
    """A sort key: numbers by value (1e-3 before 3e-3 before 0.01), before words."""
    try:
        return (0, float(text), "")
    except ValueError:
        return (1, 0.0, text)


def main(folder):
    varying, of_run = groups(folder)
    for group in sorted(set(of_run.values()), key=lambda g: [number_first(v) for v in g]):
        if varying:
            print("== %s" % ", ".join("%s %s" % (k, v) for k, v in zip(varying, group)))
        tables(folder, {run for run, g in of_run.items() if g == group})
        if varying:
            print()


def tables(folder, runs):
    """The four tables of the runs `runs` (those of one combination of the varying settings)."""
    def rows_of(name):
        return [r for r in rows(folder, name) if r["run"] in runs]

    grads = collections.defaultdict(dict)  # (placement, L, seed, sublayer) -> {block: (expected, first batch)}
    for r in rows_of("expected_grads.csv"):
        grads[(r["placement"], int(r["depth"]), r["seed"], short(r["sublayer"]))][int(r["block"])] = (
            float(r["expected_grad_norm"]), float(r["first_batch_grad_norm"]))
    placements = sorted({k[0] for k in grads}, key=ORDER.index)
    depths = sorted({k[1] for k in grads})
    seeds = sorted({k[2] for k in grads})
    subs = sorted({k[3] for k in grads})
    med = statistics.median
    print("Expected gradient ||E_k[dL/dW]|| at init (K minibatches), medians over seeds %s" % ",".join(seeds))
    print("%-5s %-4s %3s  %8s %8s %8s  %10s  %20s" % ("", "", "L", "first", "middle", "last", "last/first",
                                                      "per-batch last/first"))
    for sub in subs:
        for p in placements:
            for L in depths:
                per_seed = [grads[(p, L, s, sub)] for s in seeds]
                first = med(g[0][0] for g in per_seed)
                middle = med(g[L // 2][0] for g in per_seed)
                last = med(g[L - 1][0] for g in per_seed)
                ratio = med(g[L - 1][0] / g[0][0] for g in per_seed)
                batch_ratio = med(g[L - 1][1] / g[0][1] for g in per_seed)
                print("%-5s %-4s %3d  %8.3f %8.3f %8.3f  %10.2f  %20.2f" % (p, sub, L, first, middle, last, ratio,
                                                                           batch_ratio))

    hidden = collections.defaultdict(dict)  # (placement, L, seed) -> {layer: (compared / d, lower / d, upper / d)}
    for r in rows_of("hidden_norms.csv"):
        d = float(r["d"])
        hidden[(r["placement"], int(r["depth"]), r["seed"])][int(r["layer"])] = (
            float(r["compared"]) / d, float(r["lemma2_lower"]) / d, float(r["lemma2_upper"]) / d)
    print()
    print("Lemma 2: E||x_l||^2 / d (post: the block's last residual sum, bound 3/2; pre: the block's output, "
          "bounds 1 + l/2 .. 1 + 3l/2), medians over seeds")
    for p in placements:
        if p not in ("post", "pre"):
            continue
        for L in depths:
            per_seed = [hidden[(p, L, s)] for s in seeds]
            values = [med(h[l][0] for h in per_seed) for l in range(1, L + 1)]
            inside = 0
            for l, v in zip(range(1, L + 1), values):
                lower, upper = per_seed[0][l][1], per_seed[0][l][2]
                inside += (abs(v - lower) <= 0.1 * lower) if p == "post" else (lower <= v <= upper)
            picks = sorted({1, max(1, L // 2), L})
            print("%-5s L=%-3d %s  inside %d/%d = %.2f" % (
                p, L, "  ".join("l=%d %.2f [%.1f, %.1f]" % (l, values[l - 1], per_seed[0][l][1], per_seed[0][l][2])
                                for l in picks), inside, L, inside / L))

    change = collections.defaultdict(list)
    for r in rows_of("output_change.csv"):
        change[(r["placement"], int(r["depth"]))].append(float(r["output_change"]))
    print()
    print("Output change of the first update against depth N (medians over seeds): fits a + b*N and a + b*ln N")
    for p in placements:
        ys = [med(change[(p, L)]) for L in depths]
        if len(depths) < 2:
            print("%-5s %s  (a fit against depth needs two depths or more; these runs have L = %d only)" % (
                p, " ".join("%.2f" % y for y in ys), depths[0]))
            continue
        a1, b1, r1 = fit(depths, ys)
        a2, b2, r2 = fit([math.log(L) for L in depths], ys)
        print("%-5s %s  O(N): %.3f + %.4f*N R^2 %.3f  O(log N): %.3f + %.3f*ln N R^2 %.3f" % (
            p, " ".join("%.2f" % y for y in ys), a1, b1, r1, a2, b2, r2))

    updates = collections.defaultdict(dict)  # (placement, L, seed) -> {step: change}
    for r in rows_of("update_sizes.csv"):
        updates[(r["placement"], int(r["depth"]), r["seed"])][int(r["step"])] = float(r["output_change"])
    print()
    print("||dF|| of update t (medians over seeds): t = 1, mean of t = 1..10, mean of t = 51..100")
    for p in placements:
        for L in depths:
            per_seed = [updates[(p, L, s)] for s in seeds]
            steps = max(per_seed[0])
            first = med(u[1] for u in per_seed)
            early = med(statistics.mean(u[t] for t in range(1, min(10, steps) + 1)) for u in per_seed)
            late = (med(statistics.mean(u[t] for t in range(51, steps + 1)) for u in per_seed)
                    if steps >= 51 else float("nan"))
            print("%-5s L=%-3d t=1 %.3f  t=1..10 %.3f  t=51..100 %.3f" % (p, L, first, early, late))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
