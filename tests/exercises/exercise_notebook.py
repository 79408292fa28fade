#!/usr/bin/python3
"""Runs an exercise notebook with its exercise cells filled in, as a test: once with the reference
solutions (every check green), once with a planted mistake (the right diagnosis shown).

The cells tagged `exercise:<function>` get the text of a file (its leading comment dropped), or of the
function's definition in it (exercise_cells.py), the cell
tagged `parameters` can set the report's language, and the notebook, saved as <name>.ipynb in --out
(with its include path made absolute), runs through tests/notebooks/run_notebook.py, whose other
arguments follow `--`. Its expectations are the entry <name>.ipynb of the expectations file.

  exercise_notebook.py NB --name NAME --out DIR [--fill FUNCTION=FILE ...] [--lang zh] -- RUN_NOTEBOOK_ARGS
"""

import argparse
import json
import os
import re
import subprocess
import sys

from exercise_cells import split_definitions

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def source(cell):
    s = cell.get("source", "")
    return "".join(s) if isinstance(s, list) else s


def without_leading_comment(text):
    lines = text.split("\n")
    while lines and (lines[0].startswith("//") or not lines[0].strip()):
        lines.pop(0)
    return "\n".join(lines).rstrip("\n")


def main():
    argv = sys.argv[1:]
    rest = argv[argv.index("--") + 1:] if "--" in argv else []
    argv = argv[:argv.index("--")] if "--" in argv else argv
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("notebook")
    ap.add_argument("--name", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--fill", action="append", default=[], help="FUNCTION=FILE")
    ap.add_argument("--lang")
    args = ap.parse_args(argv)

    with open(args.notebook, encoding="utf-8") as f:
        nb = json.load(f)
    fills = dict(item.split("=", 1) for item in args.fill)
    # What each tagged cell gets: a file whose name is the tag's gets the whole file; a file of an exercise with
    # several functions (one cell each) gives each its definition, the first one after the file's #includes and
    # helpers (a cell our kernel takes; the committed notebook keeps one definition per cell for xeus-cling).
    texts, key_of = {}, {}
    for key, file in fills.items():
        with open(os.path.join(ROOT, file) if not os.path.isabs(file) else file, encoding="utf-8") as f:
            text = f.read()
        texts[key], key_of[key] = without_leading_comment(text), key
        preamble, definitions = split_definitions(text)
        for i, (function, definition) in enumerate(definitions):
            if function != key:
                texts[function] = (preamble + "\n\n" + definition) if i == 0 and preamble else definition
                key_of[function] = key
    filled = set()
    for cell in nb["cells"]:
        tags = cell.get("metadata", {}).get("tags", [])
        for tag in tags:
            if tag.startswith("exercise:") and tag[len("exercise:"):] in texts:
                fn = tag[len("exercise:"):]
                cell["source"] = texts[fn]
                filled.add(key_of[fn])
        if "parameters" in tags and args.lang:
            cell["source"] = re.sub(r'lang = "[a-z]*"', 'lang = "%s"' % args.lang, source(cell))
        if cell.get("cell_type") == "code":
            cell["source"] = source(cell).replace('add_include_path("../include")',
                                                  'add_include_path("%s")' % os.path.join(ROOT, "include"))
    missing = set(fills) - filled
    if missing:
        print("exercise_notebook.py: no cell tagged exercise:%s in %s" % (", exercise:".join(sorted(missing)), args.notebook))
        return 1
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, args.name + ".ipynb")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(nb, f, indent=1, ensure_ascii=False)
    runner = os.path.join(ROOT, "tests", "notebooks", "run_notebook.py")
    return subprocess.call([sys.executable, runner, path] + rest)


if __name__ == "__main__":
    sys.exit(main())
