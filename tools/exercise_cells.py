"""An exercise file cut into notebook cells: its preamble (comments, #include lines, helpers) and its top-level
function definitions, each with its name. Used by tools/exercise_notebooks.py (the skeleton cells) and
tests/exercises/exercise_notebook.py (a solution or a planted mistake filled into them)."""

import re

SIGNATURE = re.compile(r"^[A-Za-z_][\w:<>,\s&*]*?\b(\w+)\s*\(", re.M)


def split_definitions(text):
    """(preamble, [(function, definition text)]) for the non-static top-level functions, in file order. The preamble is
    everything else before the first of them (leading comment lines dropped): #includes and static helpers."""
    definitions, depth, start, i, preamble_end = [], 0, None, 0, None
    n = len(text)
    while i < n:
        if text.startswith("//", i):
            i = text.find("\n", i) if text.find("\n", i) >= 0 else n
            continue
        ch = text[i]
        if depth == 0 and (i == 0 or text[i - 1] == "\n") and start is None:
            m = SIGNATURE.match(text, i)
            if m and not text.startswith("static", i) and not text.startswith("#", i):
                start, name = i, m.group(1)
                if preamble_end is None:
                    preamble_end = i
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0 and start is not None:
                definitions.append((name, text[start:i + 1]))
                start = None
        i += 1
    preamble = text[:preamble_end] if preamble_end is not None else text
    kept = [l for l in preamble.split("\n") if not l.startswith("//")]
    return "\n".join(kept).strip("\n"), definitions
