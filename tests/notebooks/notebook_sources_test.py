#!/usr/bin/python3
"""tools/notebooks.py: one source per notebook, both languages from it.

  1. The committed notebooks are what their sources give (a stale one fails, naming it).
  2. The English and the Chinese notebook of one source have the same code: the same cells in the same order,
     each code cell equal once the Chinese cell's prose strings are put back and its paths made one folder
     shallower; every prose cell has both languages.
  3. The generator's own rules on a small source: the zh prose and strings land, a prose cell without its Chinese
     writes no Chinese notebook, a string that is not in its cell is
     refused with the line, a notebook edited by hand is reported stale.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import notebooks as gen  # noqa: E402

failures = []


def fail(message):
    failures.append(message)
    print("FAIL:", message)


def run(*args):
    return subprocess.run([sys.executable, os.path.join(ROOT, "tools", "notebooks.py"), *args],
                          capture_output=True, text=True)


# --- 1. the committed notebooks are up to date
r = run("--check")
if r.returncode != 0:
    fail("tools/notebooks.py --check: " + r.stderr.strip())
else:
    print("committed notebooks: what their sources give")

# --- 2. the same code in both languages
sources = gen.targets(os.path.join(ROOT, "notebooks"))
translated = 0
for source, name in sources:
    cells = gen.parse(source)
    zh_path = os.path.join(ROOT, "notebooks", "zh", name + ".ipynb")
    if gen.untranslated(cells):
        if os.path.exists(zh_path):
            fail(f"notebooks/zh/{name}.ipynb exists but {gen.untranslated(cells)} prose cells have no Chinese")
        continue
    translated += 1
    en = json.load(open(os.path.join(ROOT, "notebooks", name + ".ipynb"), encoding="utf-8"))["cells"]
    zh = json.load(open(zh_path, encoding="utf-8"))["cells"]
    if [c["cell_type"] for c in en] != [c["cell_type"] for c in zh]:
        fail(f"{name}: the two notebooks' cells differ in kind or number")
        continue
    for i, (cell, e, z) in enumerate(zip(cells, en, zh)):
        if e["cell_type"] != "code":
            if not "".join(z["source"]).strip():
                fail(f"{name}: prose cell {i} is empty in Chinese")
            continue
        code = "".join(z["source"]).replace('"../../', '"../')
        for english, chinese, _ in cell["strings"]:
            code = code.replace(gen.cpp_literal(chinese), gen.cpp_literal(english))
        if code != "".join(e["source"]):
            fail(f"{name}: code cell {i} differs between the languages beyond its listed strings")
print(f"{translated} of {len(sources)} sources translated: their code cells are the same in both languages")

# --- 3. the generator's rules on a small source
SAMPLE = """<!-- markdown -->
# Residual
The gradient flows through $x + F(x)$.
<!-- zh -->
# 残差连接
梯度经由 $x + F(x)$ 传回。
<!-- code -->
#pragma cling add_include_path("../include")
<!-- code tags: parameters -->
std::cout << "largest difference: " << 1e-12 << std::endl;
<!-- zh strings -->
["largest difference: ", "最大差："]
"""
with tempfile.TemporaryDirectory() as scratch:
    os.makedirs(os.path.join(scratch, "source"))
    sample = os.path.join(scratch, "source", "sample.md")
    with open(sample, "w", encoding="utf-8") as f:
        f.write(SAMPLE)
    r = run("--notebooks", scratch)
    zh_nb = os.path.join(scratch, "zh", "sample.ipynb")
    if r.returncode != 0 or not os.path.exists(zh_nb):
        fail("the sample source did not give both notebooks: " + r.stdout + r.stderr)
    else:
        zh = json.load(open(zh_nb, encoding="utf-8"))["cells"]
        en = json.load(open(os.path.join(scratch, "sample.ipynb"), encoding="utf-8"))["cells"]
        checks = [
            ("".join(zh[0]["source"]) == "# 残差连接\n梯度经由 $x + F(x)$ 传回。", "the Chinese prose"),
            ("".join(en[0]["source"]).startswith("# Residual\n"), "the English prose"),
            ('"../../include"' in "".join(zh[1]["source"]), "the Chinese notebook's include path one folder deeper"),
            ('"最大差："' in "".join(zh[2]["source"]) and '"largest difference: "' in "".join(en[2]["source"]),
             "the listed string translated in Chinese only"),
            (zh[2]["metadata"] == {"tags": ["parameters"]}, "the cell tags"),
        ]
        for ok, what in checks:
            if not ok:
                fail("sample: " + what)
        # a notebook edited by hand is stale
        with open(zh_nb, "a", encoding="utf-8") as f:
            f.write(" ")
        r = run("--check", "--notebooks", scratch)
        if r.returncode == 0 or "zh/sample.ipynb" not in r.stderr:
            fail("an edited notebook was not reported stale: " + r.stderr)
    # a string that is not in its cell
    with open(sample, "w", encoding="utf-8") as f:
        f.write(SAMPLE.replace('["largest difference: "', '["largest difference:"'))
    r = run("--notebooks", scratch)
    if r.returncode == 0 or "sample.md:12" not in r.stderr or "is not a string literal" not in r.stderr:
        fail("a zh string missing from its cell was not refused with its line: " + r.stderr)
    # a prose cell without its Chinese: the English notebook only
    shutil.rmtree(os.path.join(scratch, "zh"))
    with open(sample, "w", encoding="utf-8") as f:
        f.write(SAMPLE.replace("<!-- zh -->\n# 残差连接\n梯度经由 $x + F(x)$ 传回。\n", ""))
    r = run("--notebooks", scratch)
    if r.returncode != 0 or os.path.exists(zh_nb):
        fail("an untranslated source should give the English notebook only: " + r.stderr)
print("the generator's rules: translated prose and strings, deeper paths, tags, stale and bad sources refused")

sys.exit(1 if failures else 0)
