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

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tools"))
from exercise_cells import split_definitions  # noqa: E402  (tools/exercise_cells.py)


def source(cell):
    s = cell.get("source", "")
    return "".join(s) if isinstance(s, list) else s


def without_leading_comment(text):
    lines = text.split("\n")
    while lines and (lines[0].startswith("//") or not lines[0].strip()):
        lines.pop(0)
    return "\n".join(lines).rstrip("\n")


def top_level_definitions(text):
    """The top-level definitions of a helpers' preamble, each with the comment lines above it; #include lines
    dropped (the notebook's setup cell includes the standard headers)."""
    text = re.sub(r"^#include [^\n]*\n?", "", text, flags=re.M)
    out, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                end = i + 1
                if text[end:end + 1] == ";":
                    end += 1
                out.append(text[start:end].strip("\n"))
                start = end
    return [d for d in out if d.strip()]


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
    # A notebook with a helpers cell for the exercise (tagged exercise:helpers:<exercise>) gets the file's
    # helpers there instead, one definition per cell (xeus-cling's rule). The preamble's `using` lines are
    # dropped (the notebook's setup cell has them; a `using` first makes cling wrap the rest), and so is an
    # `#include "02_layer_norm_forward_solution.cpp"` of an earlier exercise (its functions are cells).
    tags = {t for c in nb["cells"] for t in c.get("metadata", {}).get("tags", [])}
    texts, key_of, helpers = {}, {}, {}
    for key, file in fills.items():
        with open(os.path.join(ROOT, file) if not os.path.isabs(file) else file, encoding="utf-8") as f:
            text = f.read()
        whole = re.sub(r"^using [\w:]+;\n\n?", "", without_leading_comment(text), flags=re.M)
        texts[key], key_of[key] = whole, key
        preamble, definitions = split_definitions(text)
        preamble = re.sub(r'^(#include "\d\d_\w+\.cpp"|using [\w:]+;)\n?', "", preamble, flags=re.M).strip("\n")
        if "exercise:helpers:" + key in tags:
            helpers[key] = top_level_definitions(preamble)
            preamble = ""
        for i, (function, definition) in enumerate(definitions):
            if function != key:
                texts[function] = (preamble + "\n\n" + definition) if i == 0 and preamble else definition
                key_of[function] = key
    filled = set()
    cells = []
    for cell in nb["cells"]:
        tag = next((t for t in cell.get("metadata", {}).get("tags", []) if t.startswith("exercise:helpers:")), None)
        if tag and tag[len("exercise:helpers:"):] in helpers:
            key = tag[len("exercise:helpers:"):]
            for definition in helpers[key] or ["// (no helpers)"]:
                cells.append(dict(cell, source=definition, metadata={"tags": [tag]}))
            filled.add(key)
        else:
            cells.append(cell)
    nb["cells"] = cells
    for cell in nb["cells"]:
        for tag in cell.get("metadata", {}).get("tags", []):
            if tag.startswith("exercise:") and tag[len("exercise:"):] in texts:
                fn = tag[len("exercise:"):]
                cell["source"] = texts[fn]
                filled.add(key_of[fn])
        if "parameters" in cell.get("metadata", {}).get("tags", []) and args.lang:
            cell["source"] = re.sub(r'lang = "[a-z]*"', 'lang = "%s"' % args.lang, source(cell))
        if cell.get("cell_type") == "code":
            cell["source"] = re.sub(r'add_include_path\("\.\./([^"]*)"\)',
                                    lambda m: 'add_include_path("%s")' % os.path.join(ROOT, m.group(1)), source(cell))
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
