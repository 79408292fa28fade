#!/usr/bin/python3
"""The README's "Read the code in this order" is accurate: each numbered line names a file or folder
first (in backticks), which must exist, then the functions and types to look at there (in backticks),
each of which must appear in that file (or in a file under that folder) as a definition-like word:
`name(`, `name {`, `struct name`, `class name` or `name::`.

  tour_test.py --source-dir S [--readme README.md] [--section TITLE]     (exit 0: accurate; 1: what is wrong)
  (README.zh-CN.md's tour is under "## 按这个顺序读代码": --section 按这个顺序读代码)
"""
import argparse
import os
import re
import sys


def tour_lines(readme, title):
    text = open(readme, encoding="utf-8").read()
    start = text.find("## " + title)
    if start < 0:
        sys.exit(f"FAIL {readme}: no section '## {title}'")
    section = text[start:text.find("\n## ", start + 1)]
    return [(line, re.findall(r"`([^`]+)`", line)) for line in section.splitlines() if re.match(r"\d+\. ", line)]


def sources(path):
    if os.path.isfile(path):
        return [path]
    return [os.path.join(d, f) for d, _, fs in os.walk(path) for f in fs if f.endswith((".cpp", ".hpp"))]


def defines(text, name):
    short = name.split("::")[-1]
    return re.search(rf"(\b{re.escape(short)}\s*\(|\b(struct|class)\s+{re.escape(short)}\b|\b{re.escape(short)}::)",
                     text) is not None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--source-dir", required=True)
    ap.add_argument("--readme", default="README.md")
    ap.add_argument("--section", default="Read the code in this order")
    args = ap.parse_args()
    readme = os.path.join(args.source_dir, args.readme)
    lines = tour_lines(readme, args.section)
    problems = []
    if len(lines) < 5:
        problems.append(f"the tour has {len(lines)} steps; expected a tour")
    for line, names in lines:
        if not names:
            problems.append(f"no file named in: {line}")
            continue
        path = os.path.join(args.source_dir, names[0].rstrip("/"))
        if not os.path.exists(path):
            problems.append(f"{names[0]} does not exist: {line}")
            continue
        text = "".join(open(f, encoding="utf-8").read() for f in sources(path))
        for name in names[1:]:
            if re.fullmatch(r"[A-Za-z_][\w:]*", name) and not defines(text, name):
                problems.append(f"{name} is not defined in {names[0]}: {line}")
    for p in problems:
        print("FAIL", p)
    print(f"{len(lines)} tour steps checked, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
