#!/usr/bin/python3
"""Execute notebooks in real Jupyter, as a test: nbclient runs every cell through the
project's kernel (tapegrad-xcpp, kernelspec xcpp17), as a learner's Jupyter would.

Checks, per notebook:
  * the file: nbformat 4, xeus-cling's kernelspec and language_info, no stale outputs, no
    magics, and xeus-cling's rule for definitions (cling_rule.py);
  * every cell runs without an error output (a compile error, an escaping exception, ...);
    with "errors" in expectations.json, exactly those cells fail, with that error name;
  * a cell that prints with std::cout at its top level printed something;
  * the substrings / regexes / forbidden regexes of expectations.json, over all the text
    the notebook printed (stream output and text/plain results, cell after cell);
  * "displays" in expectations.json: the cell whose source is `cell` (or contains
    `cell_contains`) shows a rich
    output of that mime type containing `contains` (the Tensor's HTML table, the plot's PNG).
A Chinese notebook (notebooks/zh/NAME) is checked against NAME's expectations (its code is NAME's,
tests/notebooks/notebook_sources_test.py says so, and the labels those check stay English) plus those
of the key "zh/NAME", which must exist and hold at least one substring: the Chinese it prints. With
"inherit": false in "zh/NAME", that entry alone (a notebook whose checked output is all Chinese).

Usage (by /usr/bin/python3, whose Jupyter packages are Debian's):
  run_notebook.py NB.ipynb [...] --kernelspecs BUILD/share/jupyter [--lib-dir BUILD]
      [--expectations tests/notebooks/expectations.json] [--timeout 600] [-v]
      [--expect-failure compile|exception|expectation|...] [--save-executed DIR]
--lib-dir replaces the directory of the notebook's `#pragma cling add_library_path` (the
tests use the library of the build being tested; the file itself is not changed).
With --expect-failure the runner succeeds only if the notebook fails for that reason and
no other: it is how tests/notebooks/broken_*.ipynb prove that failures are caught.
"""

import argparse
import json
import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cling_rule  # noqa: E402

KERNEL_NAME = "xcpp17"  # the kernel's name; its display label is the kernelspec's ("C++17"), not checked here
LANGUAGE_INFO = {"codemirror_mode": "text/x-c++src", "file_extension": ".cpp",
                 "mimetype": "text/x-c++src", "name": "c++", "version": "17"}
LIBRARY_PATH_RE = re.compile(r'^(\s*#\s*pragma\s+cling\s+add_library_path\s*\(\s*")([^"]*)("\s*\).*)$', re.M)
# The kernel's error names, and the failure reason each one is reported as.
ERROR_REASONS = {"CompileError": "compile", "JITError": "compile", "PragmaError": "compile",
                 "Interrupted": "interrupted"}


def cell_source(cell):
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def file_problems(nb):
    problems = []
    if nb.get("nbformat") != 4:
        problems.append("nbformat is %r, expected 4" % nb.get("nbformat"))
    meta = nb.get("metadata", {})
    if meta.get("kernelspec", {}).get("name") != KERNEL_NAME:
        problems.append("kernelspec is %r, expected the kernel named %r" % (meta.get("kernelspec"), KERNEL_NAME))
    if meta.get("language_info") != LANGUAGE_INFO:
        problems.append("language_info is %r, expected %r" % (meta.get("language_info"), LANGUAGE_INFO))
    for i, cell in enumerate(nb.get("cells", [])):
        if cell.get("cell_type") != "code":
            continue
        if cell.get("outputs") or cell.get("execution_count") is not None:
            problems.append("cell %d has stale outputs: clear them before committing" % i)
        for line in cell_source(cell).splitlines():
            if re.match(r"^\s*(%|!|\?)", line):
                problems.append("cell %d uses a magic (the kernel has none): %s" % (i, line.strip()))
    return problems


def prints_at_top_level(src):
    """True if the cell itself prints (std::cout outside any braces)."""
    code = re.sub(r'"(\\.|[^"\\])*"', '""', src)
    code = re.sub(r"//[^\n]*", "", code)
    depth = 0
    for m in re.finditer(r"[{}]|std::cout\s*<<", code):
        tok = m.group(0)
        if tok == "{":
            depth += 1
        elif tok == "}":
            depth -= 1
        elif depth == 0:
            return True
    return False


def cell_text(cell):
    """What a cell printed: its stream output and the text/plain of its results."""
    parts = []
    for out in cell.get("outputs", []):
        if out["output_type"] == "stream":
            parts.append(out["text"] if isinstance(out["text"], str) else "".join(out["text"]))
        elif out["output_type"] in ("execute_result", "display_data"):
            text = out.get("data", {}).get("text/plain", "")
            parts.append((text if isinstance(text, str) else "".join(text)) + "\n")
    return "".join(parts)


def execute(nb, nb_dir, args):
    import nbclient  # Debian's python3-nbclient
    import nbformat
    nb = nbformat.from_dict(nb)
    client = nbclient.NotebookClient(nb, kernel_name="xcpp17", timeout=args.timeout, allow_errors=True,
                                     startup_timeout=120, resources={"metadata": {"path": nb_dir}})
    client.execute()
    return nb


def expectations_for(name, expectations):
    """NAME's entry; for "zh/NAME", NAME's entry with the lists of "zh/NAME" added (None if either is missing)."""
    if not name.startswith("zh/"):
        return expectations.get(name)
    english, chinese = expectations.get(name[len("zh/"):]), expectations.get(name)
    if chinese is None or not chinese.get("substrings"):
        return None
    if not chinese.get("inherit", True):  # the notebook prints its checked text in Chinese too
        return chinese
    if english is None:
        return None
    merged = {key: list(value) if isinstance(value, list) else dict(value) for key, value in english.items()}
    for key, value in chinese.items():
        if key == "inherit":
            continue
        if isinstance(value, list):
            merged[key] = merged.get(key, []) + value
        else:
            merged[key] = value
    return merged


def notebook_name(path):
    """The key in expectations.json: the file name, "zh/" before it for notebooks/zh/."""
    name = os.path.basename(path)
    parent = os.path.basename(os.path.dirname(os.path.abspath(path)))
    return "zh/" + name if parent == "zh" else name


def check(name, nb, expectations):
    failures = []
    exp = expectations_for(name, expectations)
    if exp is None:
        failures.append(("expectation", "no expectations for %s in the expectations file%s" % (
            name, " (a zh/ notebook needs its English one's and its own, with a Chinese substring)"
            if name.startswith("zh/") else "")))
        exp = {}
    expected_errors = {int(k): v for k, v in exp.get("errors", {}).items()}
    texts = []
    for index, cell in enumerate(nb["cells"]):
        if cell.get("cell_type") != "code":
            continue
        text = cell_text(cell)
        texts.append(text)
        errors = [o for o in cell.get("outputs", []) if o["output_type"] == "error"]
        for err in errors:
            reason = ERROR_REASONS.get(err["ename"], "exception")
            message = "cell %d: %s: %s" % (index, err["ename"], err["evalue"])
            if expected_errors.get(index) == err["ename"]:
                failures.append((reason, message + " (expected here)"))
            else:
                failures.append((reason, message + "\n    " + "\n    ".join(err.get("traceback", []))))
                if expected_errors:
                    failures.append(("wrong-error", "%s, but expectations.json wants %r" % (message, expected_errors)))
        for index_wanted, ename in expected_errors.items():
            if index_wanted == index and not any(e["ename"] == ename for e in errors):
                failures.append(("wrong-error", "cell %d should fail with %s but did not" % (index, ename)))
        if not errors and prints_at_top_level(cell_source(cell)) and not text.strip():
            failures.append(("missing-output", "cell %d prints with std::cout but printed nothing" % index))
    out = "\n".join(texts)
    for s in exp.get("substrings", []):
        if s not in out:
            failures.append(("expectation", "expected output %r is missing" % s))
    for r in exp.get("regexes", []):
        if not re.search(r, out, re.MULTILINE):
            failures.append(("expectation", "expected output matching /%s/ is missing" % r))
    for r in exp.get("forbidden", []):
        if re.search(r, out, re.MULTILINE):
            failures.append(("expectation", "output must not match /%s/" % r))
    for d in exp.get("displays", []):
        want = d.get("cell") or d.get("cell_contains")
        cells = [c for c in nb["cells"] if c.get("cell_type") == "code" and
                 (cell_source(c).strip() == d["cell"] if "cell" in d else d["cell_contains"] in cell_source(c))]
        shown = [o.get("data", {}).get(d["mime"]) for c in cells for o in c.get("outputs", [])
                 if o["output_type"] in ("execute_result", "display_data")]
        shown = ["".join(s) if isinstance(s, list) else s for s in shown if s]
        if not cells:
            failures.append(("expectation", "no cell %r (expectations.json displays)" % want))
        elif not any(d.get("contains", "") in s for s in shown):
            failures.append(("display", "the cell %r shows no %s output containing %r"
                             % (want, d["mime"], d.get("contains", ""))))
    return failures, out


def run_one(path, args, expectations):
    name = notebook_name(path)
    nb_dir = os.path.dirname(os.path.abspath(path))
    with open(path, encoding="utf-8") as f:
        nb = json.load(f)
    problems = file_problems(nb)
    failures = [("notebook", p) for p in problems]
    failures += [("cling-rule", m) for _, m in cling_rule.violations(nb)]
    if failures:
        return failures, 0.0
    if args.lib_dir:
        for cell in nb["cells"]:
            if cell.get("cell_type") == "code":
                cell["source"] = LIBRARY_PATH_RE.sub(lambda m: m.group(1) + os.path.abspath(args.lib_dir) + m.group(3),
                                                     cell_source(cell))
    start = time.monotonic()
    try:
        nb = execute(nb, nb_dir, args)
    except Exception as e:  # the kernel died, a cell timed out, ...
        return [("crash", "%s: %s" % (type(e).__name__, e))], time.monotonic() - start
    seconds = time.monotonic() - start
    failures, out = check(name, nb, expectations)
    if args.save_executed:
        os.makedirs(args.save_executed, exist_ok=True)
        with open(os.path.join(args.save_executed, name), "w", encoding="utf-8") as f:
            json.dump(nb, f, indent=1)
    if args.verbose or (failures and not args.expect_failure):
        print("==== %s (%.1f s)" % (name, seconds))
        for index, cell in enumerate(nb["cells"]):
            if cell.get("cell_type") == "code" and cell.get("outputs"):
                print("---- cell %d" % index)
                print(cell_text(cell).rstrip("\n"))
    return failures, seconds


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("notebooks", nargs="+")
    ap.add_argument("--expectations", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                           "expectations.json"))
    ap.add_argument("--kernelspecs", help="a folder with kernels/xcpp17/kernel.json (added to JUPYTER_PATH)")
    ap.add_argument("--lib-dir")
    ap.add_argument("--timeout", type=float, default=600, help="seconds per cell")
    ap.add_argument("--save-executed", help="write the executed notebooks (with outputs) here")
    ap.add_argument("--expect-failure")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    if args.kernelspecs:
        os.environ["JUPYTER_PATH"] = os.path.abspath(args.kernelspecs) + os.pathsep + os.environ.get("JUPYTER_PATH", "")
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    with open(args.expectations, encoding="utf-8") as f:
        expectations = json.load(f)

    status = 0
    for path in args.notebooks:
        failures, seconds = run_one(path, args, expectations)
        name = notebook_name(path)
        reasons = {r for r, _ in failures}
        if args.expect_failure:
            if reasons == {args.expect_failure}:
                print("%s: failed as expected (%s):" % (name, args.expect_failure))
                for _, msg in failures:
                    print("  " + msg.split("\n")[0])
            else:
                status = 1
                print("%s: expected a %s failure and no other, got %s" % (name, args.expect_failure,
                                                                       sorted(reasons) or "success"))
                for reason, msg in failures:
                    print("  [%s] %s" % (reason, msg))
        elif failures:
            status = 1
            print("%s: FAILED" % name)
            for reason, msg in failures:
                print("  [%s] %s" % (reason, msg))
        else:
            print("%s: passed (%.1f s)" % (name, seconds))
    return status


if __name__ == "__main__":
    sys.exit(main())
