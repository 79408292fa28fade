#!/usr/bin/python3
"""Time figures are written once: in docs/lab/times.txt, which scripts/measure-times.sh writes.

    times_test.py --source-dir S [--write]   (--write: put the table into docs/performance.md; measure-times.sh does)

Checks:
  - docs/performance.md shows every line of docs/lab/times.txt, as the table below its marker
    `<!-- times: docs/lab/times.txt -->` (on a mismatch the table it should hold is printed);
  - the other documents and the programs' help say no time of their own (a `same-as:` block is a program's output,
    checked against its file, and is not read here) ("about 2 CPU-minutes", "~30 s",
    "9 min 46 s of CPU", "1 minute on 2 idle cores"): they point to docs/performance.md, or compute it from
    the file (tapegrad-depth --help, scripts/debug.sh).
Prints PASS: times, or FAIL: and why.
"""
import argparse
import glob
import os
import re
import sys

MARKER = "<!-- times: docs/lab/times.txt -->"
COMMANDS = {  # name in times.txt -> what a reader types
    "default-sweep": "`scripts/lab.sh` (the default sweep)",
    "transformer-preset": "`tapegrad-depth --preset transformer`",
    "lab-papers": "`scripts/lab-papers.sh`",
    "lab-init-profile": "`scripts/lab-init-profile.sh`",
    "lab-precision": "`scripts/lab-precision.sh`",
    "lab-widths": "`scripts/lab-widths.sh` (the quick study)",
    "lab-poems-depth": "`scripts/lab-poems-depth.sh` (the depth sweep on the poems)",
    "lab-poems-depth-full": "`scripts/lab-poems-depth.sh --full` (every placement)",
    "debug-build": "`scripts/debug.sh` on a fresh clone (the debug build)",
}
# Where a time may not be written by hand, and what such a time looks like.
CHECKED = ["README.md", "docs/lab.md", "docs/using-tapegrad.md", "exercises/README.md", "tools/gdb/README.md",
           "tools/lldb/README.md", "scripts/*.sh", "lab/cli/*.cpp", "lab/cli/*.hpp"]
A_TIME = re.compile(r"\d(\.\d+)?\s*CPU-(minute|second)s?"
                    r"|\d+(\.\d+)? ?(s|min|minutes?|seconds?)( \d+ s)? of CPU"
                    r"|\d+ ?(minutes?|min|s|seconds?) on \d+ (idle )?cores"
                    r"|[(~]~?\d+(\.\d+)? ?(s|min|minutes?|seconds?|CPU)\b")


def duration(seconds):
    return "%.1f s" % seconds if seconds < 120 else "%.1f s (%.1f min)" % (seconds, seconds / 60)


def table(times_file):
    lines, comments = [], []
    with open(times_file) as f:
        for line in f:
            if line.startswith("#"):
                comments.append(line[1:].strip())
            if line.startswith("#") or not line.strip():
                continue
            name, runs, cpu, wall, load = line.split()
            runs, cpu = int(runs), float(cpu)
            lines.append("| %s | %s | %s | %s | %s |" % (
                COMMANDS[name], runs or "", duration(cpu), "%.2f s" % (cpu / runs) if runs else "",
                "not measured" if wall == "-" else "%s (load %s)" % (duration(float(wall)), load)))
    # The third comment line says where the figures come from (measure-times.sh: the date, the machine, the load).
    return [comments[2].rstrip(".") + "." if len(comments) > 2 else "", "",
            "| command | runs | CPU time | per run | wall time |", "|---|---|---|---|---|"] + lines


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--source-dir", required=True)
    ap.add_argument("--write", action="store_true")
    args = ap.parse_args()
    src = args.source_dir
    problems = []
    want = table(os.path.join(src, "docs", "lab", "times.txt"))
    with open(os.path.join(src, "docs", "performance.md")) as f:
        perf = f.read().split("\n")
    if MARKER not in perf:
        problems.append("docs/performance.md has no %s" % MARKER)
    else:
        start = perf.index(MARKER) + 1
        end = start
        while end < len(perf) and (perf[end].startswith("|") or end == start or (end == start + 1 and not perf[end])):
            end += 1
        have = perf[start:end]
        if have != want and args.write:
            with open(os.path.join(src, "docs", "performance.md"), "w") as f:
                f.write("\n".join(perf[:start] + want + ([""] if end < len(perf) and perf[end] else []) + perf[end:]))
        elif have != want:
            problems.append("docs/performance.md's table is not docs/lab/times.txt; it should read:\n" + "\n".join(want))
    for pattern in CHECKED:
        for path in sorted(glob.glob(os.path.join(src, pattern))):
            if path.endswith("measure-times.sh"):
                continue
            with open(path, encoding="utf-8") as f:
                generated = None  # inside a `same-as:` block: a program's output, checked against its file
                for number, line in enumerate(f, 1):
                    if "doc-test: same-as:" in line:
                        generated = "marker"
                    elif generated == "marker" and line.startswith("```"):
                        generated = "block"
                    elif generated == "block" and line.startswith("```"):
                        generated = None
                    if generated:
                        continue
                    m = A_TIME.search(line)
                    if m:
                        problems.append("%s:%d: a time written by hand (%r): point to docs/performance.md instead" % (
                            os.path.relpath(path, src), number, m.group(0)))
    for p in problems:
        print("FAIL: " + p)
    print("PASS: times" if not problems else "%d problems" % len(problems))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
