#!/usr/bin/python3
"""Writes the lesson notebooks in both languages from one source each: notebooks/source/<name>.md gives
notebooks/<name>.ipynb (English) and notebooks/zh/<name>.ipynb (Chinese). The code is written once, so the two
notebooks cannot drift; only the prose is written twice.

  tools/notebooks.py                 write every notebook
  tools/notebooks.py --check         exit 1, naming them, if a committed notebook differs from its source
  tools/notebooks.py --from-ipynb F  print a source for an English notebook F (to start a new source from)
  --notebooks DIR                    another notebooks folder (DIR/source/ to DIR/ and DIR/zh/; the tests use it)

The source is a list of cells, each opened by a marker line of its own:

  <!-- markdown -->            prose in English, up to the next marker
  <!-- zh -->                  the Chinese of the prose cell just above (every prose cell needs one for notebooks/zh/)
  <!-- code -->                a code cell, the same in both notebooks
  <!-- code tags: a, b -->     a code cell with Jupyter cell tags
  <!-- zh strings -->          after a code cell: lines ["English", "中文"], string literals of that cell that are
                               prose (labels the cell prints): the Chinese notebook's cell has the Chinese text.
                               Numbers and what the code computes stay the same.

A cell's text is its lines without the newline before the next marker. The Chinese notebook sits one folder
deeper, so its code's relative paths ("../include", "../build") get one more "../". Nothing else differs.
"""

import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

METADATA = {
    "kernelspec": {"display_name": "C++17", "language": "C++17", "name": "xcpp17"},
    "language_info": {"codemirror_mode": "text/x-c++src", "file_extension": ".cpp", "mimetype": "text/x-c++src",
                      "name": "c++", "version": "17"},
}
MARKER = re.compile(r"^<!-- (markdown|zh|code|code tags: (.*)|zh strings) -->$")


class SourceError(Exception):
    pass


def shown(path):
    """A path as messages show it: from the checkout's root when it is inside."""
    relative = os.path.relpath(path, ROOT)
    return path if relative.startswith("..") else relative


def parse(path):
    """The cells of a source: dicts with kind "markdown" (en, zh) or "code" (text, tags, strings)."""
    cells, block, where = [], None, shown(path)

    def close():
        if block is None:
            return
        kind, line_no, lines = block
        text = "\n".join(lines)
        if kind == "markdown":
            cells.append({"kind": "markdown", "en": text, "zh": None, "line": line_no})
        elif kind.startswith("code"):
            tags = [t.strip() for t in kind[len("code tags:"):].split(",")] if kind.startswith("code tags:") else []
            cells.append({"kind": "code", "text": text, "tags": tags, "strings": [], "line": line_no})
        elif kind == "zh":
            if not cells or cells[-1]["kind"] != "markdown" or cells[-1]["zh"] is not None:
                raise SourceError(f"{where}:{line_no}: <!-- zh --> must follow a <!-- markdown --> cell (once)")
            cells[-1]["zh"] = text
        else:  # zh strings
            if not cells or cells[-1]["kind"] != "code":
                raise SourceError(f"{where}:{line_no}: <!-- zh strings --> must follow a <!-- code --> cell")
            for offset, line in enumerate(lines):
                if not line.strip():
                    continue
                try:
                    pair = json.loads(line)
                except json.JSONDecodeError as e:
                    raise SourceError(f"{where}:{line_no + 1 + offset}: not a JSON pair [\"English\", \"中文\"]: {e}")
                if not (isinstance(pair, list) and len(pair) == 2 and all(isinstance(s, str) and s for s in pair)):
                    raise SourceError(f"{where}:{line_no + 1 + offset}: expected [\"English\", \"中文\"], got {line}")
                cells[-1]["strings"].append((pair[0], pair[1], line_no + 1 + offset))

    with open(path, encoding="utf-8") as f:
        for line_no, line in enumerate(f.read().split("\n"), 1):
            m = MARKER.match(line)
            if m:
                close()
                block = (m.group(1), line_no, [])
            elif block is None:
                if line.strip():
                    raise SourceError(f"{where}:{line_no}: text before the first cell marker")
            else:
                block[2].append(line)
    if block is not None:
        block[2][-1:] = [block[2][-1]] if block[2] and block[2][-1] else []  # the file's final newline
    close()
    return cells


def cpp_literal(text):
    """The C++ string literal the notebooks write for `text` (as json escapes it, which C++ reads alike)."""
    return json.dumps(text, ensure_ascii=False)


def chinese_code(cell, where):
    """The code cell as the Chinese notebook has it: its prose strings translated, its relative paths one deeper."""
    code = cell["text"]
    for en, zh, line_no in cell["strings"]:
        literal = cpp_literal(en)
        if literal not in code:
            raise SourceError(f"{where}:{line_no}: zh strings: {literal} is not a string literal of the code cell above")
        code = code.replace(literal, cpp_literal(zh))
    return code.replace('"../', '"../../')


def lines_of(text):
    """A cell's text as .ipynb stores it: its lines, each with its newline but the last."""
    parts = text.split("\n")
    return [p + "\n" for p in parts[:-1]] + ([parts[-1]] if parts[-1] else [])


def markdown_cell(text):
    return {"cell_type": "markdown", "metadata": {}, "source": lines_of(text)}


def code_cell(text, tags=None):
    return {"cell_type": "code", "execution_count": None, "metadata": {"tags": tags} if tags else {},
            "outputs": [], "source": lines_of(text)}


def text_of(cells, nbformat_minor=4):
    """The notebook file of these cells, as every committed notebook is written (tools/exercise_notebooks.py too)."""
    nb = {"cells": cells, "metadata": METADATA, "nbformat": 4, "nbformat_minor": nbformat_minor}
    return json.dumps(nb, indent=1, ensure_ascii=False) + "\n"


def notebook(cells, language, where):
    out = []
    for cell in cells:
        if cell["kind"] == "markdown":
            text = cell["en"] if language == "en" else cell["zh"]
            if text is None:
                raise SourceError(f"{where}:{cell['line']}: this prose cell has no <!-- zh --> translation")
            out.append(markdown_cell(text))
        else:
            out.append(code_cell(cell["text"] if language == "en" else chinese_code(cell, where), cell["tags"]))
    return text_of(out)


def untranslated(cells):
    return sum(1 for c in cells if c["kind"] == "markdown" and c["zh"] is None)


def targets(notebooks):
    """(source path, name) of every source in notebooks/source/, sorted."""
    sources = os.path.join(notebooks, "source")
    return [(os.path.join(sources, f), f[:-3]) for f in sorted(os.listdir(sources)) if f.endswith(".md")]


def from_ipynb(path):
    nb = json.load(open(path, encoding="utf-8"))
    out = []
    for c in nb["cells"]:
        text = "".join(c["source"])
        if c["cell_type"] == "markdown":
            out.append("<!-- markdown -->\n" + text)
        else:
            tags = c.get("metadata", {}).get("tags", [])
            out.append((f"<!-- code tags: {', '.join(tags)} -->\n" if tags else "<!-- code -->\n") + text)
    return "\n".join(out) + "\n"


def main(argv):
    if len(argv) == 2 and argv[0] == "--from-ipynb":
        sys.stdout.write(from_ipynb(argv[1]))
        return 0
    notebooks = os.path.join(ROOT, "notebooks")
    if len(argv) >= 2 and argv[-2] == "--notebooks":
        notebooks, argv = os.path.abspath(argv[-1]), argv[:-2]
    check = argv == ["--check"]
    if argv and not check:
        print(__doc__, file=sys.stderr)
        return 2
    folders = {"en": notebooks, "zh": os.path.join(notebooks, "zh")}
    stale, problems = [], []
    for source, name in targets(notebooks):
        where = shown(source)
        try:
            cells = parse(source)
            # A Chinese notebook is written once every prose cell has its Chinese (tests/notebooks: all of them do).
            languages = ["en", "zh"] if untranslated(cells) == 0 else ["en"]
            for language in languages:
                path = os.path.join(folders[language], name + ".ipynb")
                text = notebook(cells, language, where)
                old = open(path, encoding="utf-8").read() if os.path.exists(path) else None
                if old == text:
                    continue
                if check:
                    stale.append(shown(path))
                else:
                    os.makedirs(os.path.dirname(path), exist_ok=True)
                    with open(path, "w", encoding="utf-8") as f:
                        f.write(text)
                    print("wrote", shown(path))
        except SourceError as e:
            problems.append(str(e))
    for p in problems:
        print("notebooks.py:", p, file=sys.stderr)
    if stale:
        print("notebooks.py: not what notebooks/source/ gives (run tools/notebooks.py): " + ", ".join(stale),
              file=sys.stderr)
    return 1 if stale or problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
