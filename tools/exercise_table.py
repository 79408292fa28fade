"""exercises/table.tsv, the one list of the exercises, read: for the planter (tests/exercises/plant_mistakes.py), the
notebook generator (tools/exercise_notebooks.py) and the notebook tests. scripts/exercise.sh and the grader (through
exercises/grader/exercise_table.cmake) read the same file."""

import os
import re
from collections import namedtuple

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TABLE = os.path.join(ROOT, "exercises", "table.tsv")
COLUMNS = "number name functions parts notebook title_en title_zh"

# functions: the learner's function names (a list); parts: the grader's call with them (`o`: the Options).
Exercise = namedtuple("Exercise", COLUMNS)


def exercises():
    rows = []
    with open(TABLE, encoding="utf-8") as f:
        for line in f:
            if not line[:1].isdigit():
                continue
            cols = line.rstrip("\n").split("\t")
            if len(cols) != len(COLUMNS.split()):
                raise SystemExit("exercises/table.tsv: a row has %d columns, not %d (%s): %r"
                                 % (len(cols), len(COLUMNS.split()), COLUMNS, line))
            e = Exercise(int(cols[0]), cols[1], cols[2].split(), *cols[3:])
            missing = [f for f in e.functions if not re.search(r"\b%s\b" % f, e.parts)]
            if missing:
                raise SystemExit("exercises/table.tsv: %s's parts do not call %s" % (e.name, " ".join(missing)))
            rows.append(e)
    return rows


def qualified(exercise, namespace):
    """The exercise's parts with the learner's functions taken from `namespace` (a planted mistake's)."""
    names = "|".join(map(re.escape, exercise.functions))
    return re.sub(r"\b(%s)\b" % names, lambda m: namespace + "::" + m.group(1), exercise.parts)


def readme_rows(path):
    """exercises/README.md's table of the exercises: (file, title) per row `| `NN_name.cpp` | title |`."""
    rows = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"^\| `(\d\d_\w+\.cpp)` \| (.*) \|$", line.rstrip("\n"))
            if m:
                rows.append((m.group(1), m.group(2)))
    return rows


if __name__ == "__main__":
    # exercise_table.py --check-readme: exercises/README.md lists the table's exercises, files and titles.
    import sys
    want = [("%02d_%s.cpp" % (e.number, e.name), e.title_en) for e in exercises()]
    have = readme_rows(os.path.join(ROOT, "exercises", "README.md"))
    missing = [os.path.join("exercises", f) for f, _ in want if not os.path.exists(os.path.join(ROOT, "exercises", f))]
    if have != want or missing:
        for w, h in zip(want + [None] * len(have), have + [None] * len(want)):
            if w != h:
                print("FAIL: exercises/README.md's row %s, exercises/table.tsv's %s" % (h, w))
                break
        for m in missing:
            print("FAIL: exercises/table.tsv names %s, which does not exist" % m)
        sys.exit(1)
    print("PASS: exercises/README.md lists the %d exercises of exercises/table.tsv" % len(want))
