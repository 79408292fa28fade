#!/usr/bin/env python3
"""The poems depth sweep's per-run data and its chaos over seeds (scripts/lab-poems-depth.sh).

  runs  RUNS_CSV...   the sweeps' runs.csv (one per block style) -> one CSV on stdout: style, placement, depth,
                      lr, warmup, seed, the final validation loss in nats and bits per character, failed and why
                      (docs/lab/poems_depth_runs.csv is this output; tests/lab/poems_depth_test.sh re-runs rows).
  table POEMS_CSV     each cell's final validation bits per character, seeds 0 / 1 / 2 (* = collapsed, inf = NaN/Inf),
                      a row per style, placement, lr and warmup, a column per depth.
  chaos POEMS_CSV SUMMARY_TXT
                      the cells (style, placement, lr, warmup, depth) whose seeds disagree: some runs failed
                      (NaN/Inf, or collapsed above the unigram baseline) and some did not; then the close calls:
                      the cells whose median lies within CLOSE bits per character of the trained line (half-way from
                      the unigram baseline to the bigram's) or the collapsed line (the unigram's), whose verdict a BLAS kernel's last bits could
                      move (issue 41). The two lines are read from the legend of a sweep's SUMMARY_TXT. Printed with
                      each seed's bits per character (inf: NaN/Inf).
"""
import csv
import math
import re
import statistics
import sys
from collections import defaultdict

CLOSE = 0.05  # bits per character: about twice the seeds' spread (sd) in the cells that trained
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


def read_cells(path):
    cells = defaultdict(list)
    for r in csv.DictReader(open(path)):
        cells[(r["style"], r["placement"], float(r["lr"]), int(r["warmup"]), int(r["depth"]))].append(r)
    return cells


def table(path):
    cells = read_cells(path)
    depths = sorted({k[4] for k in cells})
    rows = sorted({k[:4] for k in cells}, key=lambda k: (k[0] != "transformer", k[1] != "post", k[1], k[2], k[3]))
    print("| style, placement, lr, warmup | " + " | ".join("L = %d" % d for d in depths) + " |")
    print("|---|" + "---|" * len(depths))
    for row in rows:
        print("| %s, %s, %g, %d | " % row + " | ".join(seeds_text(cells.get(row + (d,), [])) for d in depths) + " |")


def seeds_text(rs):
    return " / ".join("%s%s" % ("inf" if r["fail_reason"] == "nonfinite" else "%.3f" % float(r["eval_bpc"]),
                               "*" if r["failed"] == "1" else "") for r in sorted(rs, key=lambda r: int(r["seed"])))


def lines_of(summary):
    text = " ".join(open(summary).read().split())
    trained = re.search(r"trained below ([0-9.]+) bits", text)
    unigram = re.search(r"collapsed above the unigram baseline's ([0-9.]+) bits", text)
    if not trained or not unigram:
        sys.exit("%s: no trained line and unigram baseline in its legend" % summary)
    return float(trained.group(1)), float(unigram.group(1))


def chaos(path, summary):
    trained_line, collapsed_line = lines_of(summary)
    cells = read_cells(path)
    def name(k):
        return "%-11s %-8s lr=%-6g warmup=%-3d L=%-2d" % k

    mixed = [k for k, rs in sorted(cells.items()) if len({r["failed"] for r in rs}) > 1]
    print("Seeds that disagree (some collapsed*, some not) in %d of %d cells; bits per character, seeds 0 / 1 / 2:"
          % (len(mixed), len(cells)))
    for k in mixed:
        print("  %s  %s" % (name(k), seeds_text(cells[k])))
    close = []
    for k, rs in sorted(cells.items()):
        median = statistics.median(float(r["eval_bpc"]) for r in rs)
        line = min((abs(median - trained_line), "trained"), (abs(median - collapsed_line), "collapsed"))
        if line[0] < CLOSE:
            close.append((k, median, line[1]))
    print("Close calls: the median within %g bits per character of the trained line (%.3f) or the collapsed line "
          "(%.3f) in %d of %d cells:" % (CLOSE, trained_line, collapsed_line, len(close), len(cells)))
    for k, median, line in close:
        print("  %s  median %.3f (%s line)  %s" % (name(k), median, line, seeds_text(cells[k])))


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "runs":
        runs(sys.argv[2:])
    elif len(sys.argv) == 3 and sys.argv[1] == "table":
        table(sys.argv[2])
    elif len(sys.argv) == 4 and sys.argv[1] == "chaos":
        chaos(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
