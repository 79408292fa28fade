#!/usr/bin/python3
"""Every setting is a column of the lab's per-run CSVs, named by its key, so that a reader groups by it with
the csv module alone (no parsing of run ids): a sweep listing --inits, --norms and --precisions and a --diagnose
listing --inits, read back and grouped by each listed setting; the page's summary has a row per placement and
listed value, as summary.txt; tools/precision_table.py finds each run's fp64 twin by the columns.

  listed_columns_test.py TAPEGRAD_DEPTH SOURCE_DIR WORKDIR
"""
import collections
import csv
import os
import re
import shutil
import subprocess
import sys

SETTINGS = ["arch", "heads", "seq_len", "ffn_mult", "init", "norm", "activation", "precision", "final_norm_mode",
            "embed_scale"]
LISTED = {"init": ["pytorch", "xavier"], "norm": ["layer", "rms"], "precision": ["fp64", "bf16"]}


def fail(message):
    print("FAIL: listed_columns: " + message)
    sys.exit(1)


def read(path):
    with open(path) as f:
        reader = csv.DictReader(f)
        return reader.fieldnames, list(reader)


def main(binary, source, work):
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    sweep = os.path.join(work, "sweep")
    subprocess.run([binary, "--out", sweep, "--placements", "post,pre", "--depths", "2", "--widths", "8",
                    "--lrs", "1e-2", "--warmups", "0", "--seeds", "0", "--steps", "6", "--batch", "8", "--train-size", "64",
                    "--eval-size", "32", "--eval-every", "3", "--inits", "pytorch,xavier", "--norms", "layer,rms",
                    "--precisions", "fp64,bf16", "--no-plots", "-j", "2"], check=True, stdout=subprocess.DEVNULL)
    _, runs = read(os.path.join(sweep, "runs.csv"))
    if len(runs) != 16:
        fail("%d rows in runs.csv, expected 16" % len(runs))
    by_run = {}
    for name in ("runs.csv", "curves.csv", "init_grads.csv", "output_change.csv"):
        header, rows = read(os.path.join(sweep, name))
        missing = [s for s in SETTINGS if s not in header]
        if missing:
            fail("%s has no column %s (its header: %s)" % (name, ", ".join(missing), ",".join(header)))
        for r in rows:
            settings = {s: r[s] for s in SETTINGS}
            if by_run.setdefault(r["run"], settings) != settings:
                fail("%s: run %s has settings %s, another file says %s" % (name, r["run"], settings, by_run[r["run"]]))
        for key, values in LISTED.items():
            groups = collections.Counter(r[key] for r in rows)
            if sorted(groups) != sorted(values) or len(set(groups.values())) != 1:
                fail("%s grouped by %s: %s, expected the same number of rows for each of %s" % (
                    name, key, dict(groups), values))
    # Each run's columns say what its run id says (here, where the id is simple enough to read: the check's
    # only use of it).
    for r in runs:
        parts = r["run"].split("_")
        expected = {"init": "xavier" if "xavier" in parts else "pytorch",
                    "norm": "rms" if "rmsnorm" in parts else "layer",
                    "precision": "bf16" if "bf16" in parts else "fp64"}
        for key, value in expected.items():
            if r[key] != value:
                fail("run %s: column %s is %s, its id says %s" % (r["run"], key, r[key], value))
        if r["heads"] != "" or r["seq_len"] != "" or r["embed_scale"] != "":
            fail("run %s of the FFN stack has transformer settings %s" % (r["run"], r))
    groups = collections.Counter((r["placement"], r["init"], r["norm"], r["precision"]) for r in runs)
    if len(groups) != 16:
        fail("runs.csv grouped by placement and every listed setting: %d groups, expected 16" % len(groups))

    # The page: a row per placement and listed value (one lr and warmup here), with a column for each setting.
    page = open(os.path.join(sweep, "index.html")).read()
    summary = page[page.index('<table class="summary">'):]
    summary = summary[:summary.index("</table>")]
    header = re.findall(r"<th>([^<]*)</th>", summary.split("</tr>")[0])
    if header[:6] != ["placement", "init", "norm", "precision", "lr", "warmup"]:
        fail("the page's summary columns are %s" % header)
    rows = summary.count("<tr>") - 1
    text_rows = len([l for l in open(os.path.join(sweep, "summary.txt")) if re.match(r"(post|pre) ", l)])
    if rows != 16 or text_rows != 16:
        fail("the page's summary has %d rows, summary.txt %d, expected 16 (a row per placement and listed value)"
             % (rows, text_rows))

    # tools/precision_table.py: a row per placement and precision, and each bf16 run's fp64 twin found by the columns.
    table = subprocess.run(["/usr/bin/python3", os.path.join(source, "tools", "precision_table.py"), sweep],
                           check=True, capture_output=True, text=True).stdout
    if len([l for l in table.splitlines() if re.match(r"(post|pre) +(bf16|fp64) +4 ", l)]) != 4:
        fail("precision_table.py has not a row of 4 runs per placement and precision:\n" + table)
    sys.path.insert(0, os.path.join(source, "tools"))
    import precision_table
    header, _ = read(os.path.join(sweep, "runs.csv"))
    fp64 = {precision_table.twin_key(r, header): r for r in runs if r["precision"] == "fp64"}
    for r in runs:
        twin = fp64.get(precision_table.twin_key(r, header))
        if twin is None or twin["run"] != r["run"].replace("_bf16", ""):
            fail("precision_table.py's fp64 twin of %s is %s" % (r["run"], twin and twin["run"]))

    # --diagnose's CSVs carry the columns too.
    diagnose = os.path.join(work, "diagnose")
    subprocess.run([binary, "--diagnose", diagnose, "--arch", "transformer", "--placements", "pre", "--depths", "2",
                    "--widths", "8", "--heads", "2", "--seq-len", "4", "--batch", "4", "--train-size", "64",
                    "--eval-size", "16", "--lrs", "1e-3", "--warmups", "0", "--seeds", "0", "--steps", "2", "--tracked-steps", "2",
                    "--inits", "pytorch,xavier"], check=True, stdout=subprocess.DEVNULL)
    for name in ("expected_grads.csv", "hidden_norms.csv", "update_sizes.csv", "output_change.csv"):
        header, rows = read(os.path.join(diagnose, name))
        groups = collections.Counter(r.get("init") for r in rows)
        if sorted(groups, key=str) != ["pytorch", "xavier"] or len(set(groups.values())) != 1:
            fail("%s grouped by init: %s" % (name, dict(groups)))
        if {r["heads"] for r in rows} != {"2"} or {r["arch"] for r in rows} != {"transformer"}:
            fail("%s: the Transformer's heads and arch columns are not 2 and transformer" % name)
    print("PASS: listed_columns")


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    main(*sys.argv[1:])
