#!/usr/bin/python3
"""cling's own lit tests as the kernel's specification (issue 45).

  cling_spec.py --kernelspecs BUILD/share/jupyter [--only STEM] [--show]

The cases are data: cling_spec/<Folder>_<Test>.json, one file per cling test (its "cling_source" names
the file in github.com/root-project/cling that the cells and the expected text come from: the cling
test's input lines as cells, its `// CHECK` lines and `expected-error` comments as what a cell must show).
Left out: what needs cling's meta-commands (.L, .x, .rawInput, .undo, .storeState, ...) or its own API.

Each file runs in a fresh kernel, its cases one after the other (as the issue's measurement did). A cell is
run as Jupyter sends it; its text is its stdout, then its results' text/plain. A cell with
  "expect": [...]  must succeed and show these texts in this order ({{regex}} as in FileCheck);
  "error": "..."   must be an error whose message (evalue and traceback) contains this text;
  "absent": [...]  must not show any of these.
A case passes if all its cells do. A cell without an answer in CELL_TIMEOUT seconds fails the case, and
the file goes on in a new kernel.

EXPECTED_FAILURES lists the cases the kernel does not yet pass (by file and name), DIFFERS_FROM_CLING the ones
where it differs from cling on purpose (with the reason). The test fails if a case outside the lists fails (a
regression) or a listed one passes (take it off the list). It prints a
tally by kind: the kinds of issue 45 (decl_last_line, preprocessor, poison, namespaces, value_text,
missing_return) and baseline (what worked already).
"""

import argparse
import glob
import json
import os
import queue
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kernel_protocol as kp  # noqa: E402  (run, start_kernel)

CELL_TIMEOUT = 60

# (file stem, case name): not yet as in cling. Issue 45 says what each kind needs.
EXPECTED_FAILURES = set()

# (file stem, case name): where the kernel chooses to differ from cling, and why (notebooks/README.md says
# so too). A listed case must still fail: if it passes, take it off.
DIFFERS_FROM_CLING = {
    ('Prompt_ClashingDecls', 'an unrelated using-directive'):
        "`using namespace UNRELATED;` (which declares a function `name`), then `int name = 12; name`: cling's "
        "shadowing hides the function; the kernel, as clang++ does for the same code in one file, says "
        "\"reference to 'name' is ambiguous\" (a cell's variable is a namespace member like any other)",
}


def pattern_of(text):
    """A CHECK text as a regex: {{...}} is a regex, the rest literal."""
    parts = re.split(r"\{\{(.*?)\}\}", text)
    return "".join(re.escape(p) if i % 2 == 0 else "(?:%s)" % p for i, p in enumerate(parts))


def cell_text(outputs):
    out = []
    for kind, content in outputs:
        if kind == "stream" and content["name"] == "stdout":
            out.append(content["text"])
        elif kind in ("execute_result", "display_data"):
            out.append(content["data"].get("text/plain", "") + "\n")
    return "".join(out)


def check_cell(cell, reply, outputs):
    """'' if the cell did what cling does, else what differed."""
    text = cell_text(outputs)
    if "error" in cell:
        if reply["status"] != "error":
            return "expected an error containing %r, got status %s and %r" % (cell["error"], reply["status"], text[:200])
        message = reply.get("evalue", "") + "\n" + "\n".join(reply.get("traceback", []))
        if cell["error"] not in message:
            return "expected an error containing %r, got %r" % (cell["error"], message[:300])
        return ""
    if reply["status"] != "ok":
        return "expected success, got %s: %s" % (reply.get("ename"), reply.get("evalue", "")[:300])
    at = 0
    for want in cell.get("expect", []):
        m = re.compile(pattern_of(want)).search(text, at)
        if m is None:
            return "expected %r (in order) in %r" % (want, text[:300])
        at = m.end()
    for unwanted in cell.get("absent", []):
        if unwanted in text:
            return "did not expect %r in %r" % (unwanted, text[:300])
    return ""


def run_file(path, show):
    """{case name: '' if it passed, else why not}, for one file, in fresh kernels."""
    data = json.load(open(path))
    outcomes = {}
    km, kc = kp.start_kernel()
    try:
        for case in data["cases"]:
            why = ""
            for cell in case["cells"]:
                try:
                    reply, outputs = kp.run(kc, cell["code"], timeout=CELL_TIMEOUT)
                except queue.Empty:
                    why = "no answer in %d s to %r" % (CELL_TIMEOUT, cell["code"][:60])
                    kc.stop_channels()
                    km.shutdown_kernel(now=True)
                    km, kc = kp.start_kernel()
                    break
                if show:
                    print("   | %r -> %s %r" % (cell["code"][:60], reply["status"], cell_text(outputs)[:120]))
                why = check_cell(cell, reply, outputs)
                if why:
                    why = "cell %r: %s" % (cell["code"][:60], why)
                    break
            outcomes[case["name"]] = why
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
    return data, outcomes


def time_limit(kernelspecs):
    """No cell hangs the kernel (issue 45): a cell clang never finishes compiling (here a wrapper left open
    by an #if the kernel cannot evaluate) is stopped after TAPEGRAD_XCPP_CHECK_SECONDS, with a clear error,
    and the next cell runs. '' if so, else what happened."""
    os.environ["TAPEGRAD_XCPP_CHECK_SECONDS"] = "5"
    km, kc = kp.start_kernel()
    del os.environ["TAPEGRAD_XCPP_CHECK_SECONDS"]
    try:
        reply, _ = kp.run(kc, "#define FM45(x) x\n#if FM45(1)\nint hang45 = 1\n#else\nint other45 = 2;\n#endif",
                          timeout=CELL_TIMEOUT)
        if reply.get("ename") != "CompileTimeout" or "did not finish compiling this cell in 5 s" not in reply.get("evalue", ""):
            return "expected a CompileTimeout after 5 s, got %s %s" % (reply["status"], reply.get("evalue", "")[:200])
        reply, outputs = kp.run(kc, "int after45 = 3;\nafter45", timeout=CELL_TIMEOUT)
        if reply["status"] != "ok" or "3" not in cell_text(outputs):
            return "the cell after it: %s %r" % (reply.get("evalue"), cell_text(outputs))
        return ""
    except queue.Empty:
        return "no answer in %d s" % CELL_TIMEOUT
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kernelspecs", required=True)
    ap.add_argument("--only", help="one file stem, e.g. Prompt_DontWrap")
    ap.add_argument("--show", action="store_true", help="print each cell's answer")
    args = ap.parse_args()
    os.environ["JUPYTER_PATH"] = args.kernelspecs
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cling_spec")
    tally = {}  # kind -> [passing, total]
    problems, failing = [], []
    for path in sorted(glob.glob(os.path.join(here, "*.json"))):
        stem = os.path.splitext(os.path.basename(path))[0]
        if args.only and stem != args.only:
            continue
        data, outcomes = run_file(path, args.show)
        print("%s  (cling: %s)" % (stem, data["cling_source"]))
        for case in data["cases"]:
            why = outcomes[case["name"]]
            passed = why == ""
            counts = tally.setdefault(case["kind"], [0, 0])
            counts[0] += passed
            counts[1] += 1
            listed = (stem, case["name"]) in EXPECTED_FAILURES or (stem, case["name"]) in DIFFERS_FROM_CLING
            print("  %s %-11s %s%s" % ("pass" if passed else "FAIL", case["kind"], case["name"],
                                       "" if passed else "\n                   " + why))
            if not passed:
                failing.append((stem, case["name"]))
            if not passed and (stem, case["name"]) in DIFFERS_FROM_CLING:
                print("                   (differs from cling on purpose: %s)" % DIFFERS_FROM_CLING[(stem, case["name"])])
            if passed and listed:
                problems.append("%s / %s passes now: take it off EXPECTED_FAILURES or DIFFERS_FROM_CLING" % (stem, case["name"]))
            elif not passed and not listed:
                problems.append("%s / %s fails (not an expected failure): %s" % (stem, case["name"], why))
    if not args.only:
        why = time_limit(args.kernelspecs)
        print("%s the check pass's time limit%s" % ("pass" if not why else "FAIL", why and ": " + why))
        if why:
            problems.append("the check pass's time limit: " + why)
    print("\ntally by kind (passing / cases):")
    for kind, (passed, total) in sorted(tally.items()):
        print("  %-15s %3d / %d" % (kind, passed, total))
    print("  %-15s %3d / %d" % ("all", sum(p for p, _ in tally.values()), sum(t for _, t in tally.values())))
    if args.show:
        print("\nfailing now:\n" + "".join("    (%r, %r),\n" % f for f in failing))
    for p in problems:
        print("PROBLEM  " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
