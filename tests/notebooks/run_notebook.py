#!/usr/bin/env python3
"""Execute xeus-cling notebooks end to end with clang-repl, as a test.

Users run notebooks/*.ipynb in Jupyter with the xeus-cling kernel (xcpp17).
xeus-cling is not packaged for Debian, but clang-repl (clang-tools-22) is an
incremental C++ interpreter built on the same idea, so the test suite runs
every notebook through it, top to bottom, the way a learner would.

What the runner does, and why (see /work/shared/notes/cling-and-clang-repl.md):
  * clang-repl ignores `#pragma cling ...`, so the runner translates them:
    add_include_path("d") -> --Xcc=-I<d>   (all of them, up front)
    add_library_path("d") -> a directory to resolve load() in
    load("name")          -> `%lib /abs/libname.so`, at that point of the notebook
    Relative paths are relative to the notebook's folder (Jupyter's cwd).
  * clang-repl reads its input line by line, so a multi-line cell breaks:
    each cell is written to cell_N.cpp and fed as `#include "/abs/cell_N.cpp"`.
  * Output goes through a pty, which keeps stdout and stderr in order.
  * A marker line is printed before every cell so output is attributed to it.
  * The session ends with `std::fflush(nullptr); std::_Exit(0);`: JIT'd
    thread_local destructors otherwise run after their code is unmapped.
  * clang-repl exits 0 even after compile errors, so failure is read from the
    output: `error:`, `JIT session error`, `Failed to materialize`,
    `terminate called` (an escaping exception also kills it: rc 134), a
    non-zero exit status, a missing end marker, a cell that prints with
    std::cout but printed nothing, or an expected substring/regex (from
    expectations.json) that does not appear in the output.

Usage:
  run_notebook.py notebooks/01_tensors_and_tape.ipynb [more.ipynb ...]
      [--expectations tests/notebooks/expectations.json]
      [--lib-dir BUILD_DIR]   searched before the notebook's add_library_path dirs
      [--include-dir DIR]     added before the notebook's add_include_path dirs
      [--clang-repl clang-repl-22] [--timeout 600] [--keep WORKDIR] [-v]
      [--expect-failure compile|exception|expectation]

With --expect-failure the runner succeeds only if the notebook fails for that
reason: it is how tests/notebooks/broken_*.ipynb prove that failures are caught.

Python 3 standard library only.
"""

import argparse
import json
import os
import pty
import re
import select
import shutil
import subprocess
import sys
import tempfile
import time

CELL_MARKER = "@@tapegrad-cell {}@@"
END_MARKER = "@@tapegrad-end@@"
KERNEL = {"display_name": "C++17", "language": "C++17", "name": "xcpp17"}
LANGUAGE_INFO = {"codemirror_mode": "text/x-c++src", "file_extension": ".cpp",
                 "mimetype": "text/x-c++src", "name": "c++", "version": "17"}
SYSTEM_LIB_DIRS = ["/usr/local/lib", "/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib",
                   "/lib/x86_64-linux-gnu"]

PRAGMA_RE = re.compile(r'^\s*#\s*pragma\s+cling\s+(\w+)\s*\(\s*"([^"]*)"\s*\)\s*$')
ANSI_RE = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
# Each failure pattern maps to the reason reported (and matched by --expect-failure).
FAILURE_PATTERNS = [
    (re.compile(r"terminate called"), "exception"),
    (re.compile(r"JIT session error"), "jit"),
    (re.compile(r"Failed to materialize"), "jit"),
    (re.compile(r"\berror:"), "compile"),
]


class NotebookError(Exception):
    """A problem with the notebook file itself (not with running it)."""


def cell_source(cell):
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def load_notebook(path):
    with open(path, encoding="utf-8") as f:
        nb = json.load(f)
    problems = []
    if nb.get("nbformat") != 4:
        problems.append("nbformat is %r, expected 4" % nb.get("nbformat"))
    meta = nb.get("metadata", {})
    if meta.get("kernelspec") != KERNEL:
        problems.append("kernelspec is %r, expected %r" % (meta.get("kernelspec"), KERNEL))
    if meta.get("language_info") != LANGUAGE_INFO:
        problems.append("language_info is %r, expected %r" % (meta.get("language_info"), LANGUAGE_INFO))
    for i, cell in enumerate(nb.get("cells", [])):
        if cell.get("cell_type") == "code" and (cell.get("outputs") or cell.get("execution_count") is not None):
            problems.append("cell %d has stale outputs: clear them before committing" % i)
        for line in cell_source(cell).splitlines():
            if cell.get("cell_type") == "code" and re.match(r"^\s*(%|!|\?)", line):
                problems.append("cell %d uses a magic the runner cannot translate: %s" % (i, line.strip()))
    if problems:
        raise NotebookError("; ".join(problems))
    return nb


def resolve_library(name, dirs):
    """cling's load("name") finds name, name.so, libname.so in the library dirs."""
    if os.path.isabs(name):
        return name if os.path.exists(name) else None
    base = name[3:] if name.startswith("lib") else name
    candidates = [name, name + ".so", "lib" + base + ".so"]
    for d in dirs + SYSTEM_LIB_DIRS:
        for c in candidates:
            p = os.path.join(d, c)
            if os.path.isfile(p):
                return os.path.abspath(p)
    return None


def translate(nb, nb_dir, workdir, args):
    """Returns (clang-repl command line, the input text to feed, code cells [(index, source)])."""
    include_dirs = list(args.include_dir)
    lib_dirs = list(args.lib_dir)
    lines = ["#include <cstdio>"]
    code_cells = []
    for index, cell in enumerate(nb["cells"]):
        if cell.get("cell_type") != "code":
            continue
        src = cell_source(cell)
        kept = []
        loads = []
        for line in src.splitlines():
            m = PRAGMA_RE.match(line)
            if not m:
                kept.append(line)
                continue
            kind, value = m.groups()
            path = value if os.path.isabs(value) else os.path.normpath(os.path.join(nb_dir, value))
            if kind == "add_include_path":
                include_dirs.append(path)
            elif kind == "add_library_path":
                lib_dirs.append(path)
            elif kind == "load":
                lib = resolve_library(value, lib_dirs)
                if lib is None:
                    raise NotebookError("cell %d: cannot find library %r in %s (is the library built? "
                                        "see notebooks/README.md)" % (index, value, lib_dirs))
                loads.append(lib)
            else:
                raise NotebookError("cell %d: unknown pragma cling %s" % (index, kind))
            kept.append("// (runner) " + line.strip())  # keep line numbers of diagnostics right
        code_cells.append((index, src))
        lines.append('std::printf("\\n%s\\n"); std::fflush(nullptr);' % CELL_MARKER.format(index))
        lines.extend("%lib " + lib for lib in loads)
        body = "\n".join(kept)
        if body.strip() and not all(l.startswith("// (runner)") or not l.strip() for l in kept):
            cell_file = os.path.join(workdir, "cell_%d.cpp" % index)
            with open(cell_file, "w", encoding="utf-8") as f:
                f.write(body + "\n")
            lines.append('#include "%s"' % cell_file)
            lines.append("std::fflush(nullptr);")
    lines.append('std::printf("\\n%s\\n"); std::fflush(nullptr); std::_Exit(0);' % END_MARKER)
    cmd = [args.clang_repl, "--Xcc=-std=c++17", "--Xcc=-fno-color-diagnostics"]
    cmd += ["--Xcc=-I" + d for d in include_dirs]
    return cmd, "\n".join(lines) + "\n", code_cells


def run_repl(cmd, text, cwd, timeout):
    """Runs clang-repl with its output on a pty (keeps stdout/stderr ordered)."""
    master, slave = pty.openpty()
    env = dict(os.environ, OPENBLAS_NUM_THREADS=os.environ.get("OPENBLAS_NUM_THREADS", "1"), TERM="dumb")
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=slave, stderr=slave, cwd=cwd, env=env,
                            close_fds=True)
    os.close(slave)
    proc.stdin.write(text.encode())
    proc.stdin.close()
    chunks = []
    deadline = time.monotonic() + timeout
    timed_out = False
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            timed_out = True
            proc.kill()
            break
        ready, _, _ = select.select([master], [], [], min(left, 1.0))
        if ready:
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: the child closed the pty
                break
            if not data:
                break
            chunks.append(data)
        elif proc.poll() is not None:
            # Drain whatever is left, then stop.
            while select.select([master], [], [], 0.2)[0]:
                try:
                    data = os.read(master, 65536)
                except OSError:
                    data = b""
                if not data:
                    break
                chunks.append(data)
            break
    os.close(master)
    rc = proc.wait()
    out = b"".join(chunks).decode("utf-8", errors="replace")
    out = ANSI_RE.sub("", out).replace("\r\n", "\n").replace("\r", "\n")
    return rc, out, timed_out


def split_by_cell(out):
    """{cell index: its output}; output before the first marker goes to -1."""
    per_cell = {-1: []}
    current = -1
    for line in out.split("\n"):
        m = re.fullmatch(r"@@tapegrad-cell (\d+)@@", line.strip())
        if m:
            current = int(m.group(1))
            per_cell[current] = []
            continue
        if line.strip() == END_MARKER:
            current = "end"
            per_cell[current] = []
            continue
        per_cell[current].append(line)
    return {k: "\n".join(v).strip("\n") for k, v in per_cell.items()}


def prints_at_top_level(src):
    """True if the cell itself prints (std::cout outside any braces): a cell that only defines a
    printing function prints nothing, and that is fine."""
    code = re.sub(r'"(\\.|[^"\\])*"', '""', src)   # string literals
    code = re.sub(r"//[^\n]*", "", code)             # comments
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


def check(name, rc, out, timed_out, code_cells, expectations):
    """Returns a list of (reason, message) failures."""
    failures = []
    per_cell = split_by_cell(out)
    if timed_out:
        failures.append(("timeout", "the session timed out"))
    for pattern, reason in FAILURE_PATTERNS:
        for m in pattern.finditer(out):
            line_start = out.rfind("\n", 0, m.start()) + 1
            line_end = out.find("\n", m.end())
            failures.append((reason, "output has %r: %s" % (pattern.pattern, out[line_start:line_end].strip())))
            break
    if rc == 134 or rc == -6:
        failures.append(("exception", "clang-repl aborted (rc %d): an uncaught exception?" % rc))
    elif rc != 0:
        failures.append(("crash", "clang-repl exited with status %d" % rc))
    if "end" not in per_cell:
        last = max([k for k in per_cell if isinstance(k, int)], default=-1)
        failures.append(("crash", "the session did not reach its end (last cell started: %d)" % last))
    for index, src in code_cells:
        if prints_at_top_level(src) and index in per_cell and not per_cell[index].strip():
            failures.append(("missing-output", "cell %d prints with std::cout but printed nothing" % index))
    exp = expectations.get(name)
    if exp is None:
        failures.append(("expectation", "no expectations for %s in the expectations file" % name))
        exp = {}
    for s in exp.get("substrings", []):
        if s not in out:
            failures.append(("expectation", "expected output %r is missing" % s))
    for r in exp.get("regexes", []):
        if not re.search(r, out, re.MULTILINE):
            failures.append(("expectation", "expected output matching /%s/ is missing" % r))
    for r in exp.get("forbidden", []):
        if re.search(r, out, re.MULTILINE):
            failures.append(("expectation", "output must not match /%s/" % r))
    return failures, per_cell


def run_one(path, args, expectations):
    name = os.path.basename(path)
    nb_dir = os.path.dirname(os.path.abspath(path))
    workdir = args.keep or tempfile.mkdtemp(prefix="tapegrad-nb-")
    os.makedirs(workdir, exist_ok=True)
    try:
        try:
            nb = load_notebook(path)
            cmd, text, code_cells = translate(nb, nb_dir, workdir, args)
        except NotebookError as e:
            return [("notebook", str(e))], ""
        with open(os.path.join(workdir, "session.txt"), "w", encoding="utf-8") as f:
            f.write(" ".join(cmd) + "\n" + text)
        start = time.monotonic()
        rc, out, timed_out = run_repl(cmd, text, nb_dir, args.timeout)
        failures, per_cell = check(name, rc, out, timed_out, code_cells, expectations)
        if args.verbose or failures:
            print("==== %s (%.1f s, rc %d)" % (name, time.monotonic() - start, rc))
            for k, v in per_cell.items():
                if v.strip():
                    print("---- %s" % ("cell %d" % k if isinstance(k, int) and k >= 0 else k))
                    print(v)
        return failures, out
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("notebooks", nargs="+")
    ap.add_argument("--expectations", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                           "expectations.json"))
    ap.add_argument("--lib-dir", action="append", default=[])
    ap.add_argument("--include-dir", action="append", default=[])
    ap.add_argument("--clang-repl", default="clang-repl-22")
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--keep", help="write the cells and session here and keep them")
    ap.add_argument("--expect-failure", choices=["compile", "exception", "expectation", "crash", "notebook"])
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    if shutil.which(args.clang_repl) is None:
        print("run_notebook: %s not found (install clang-tools-22)" % args.clang_repl)
        return 2
    with open(args.expectations, encoding="utf-8") as f:
        expectations = json.load(f)

    status = 0
    for path in args.notebooks:
        failures, _ = run_one(path, args, expectations)
        name = os.path.basename(path)
        reasons = {r for r, _ in failures}
        if args.expect_failure:
            if args.expect_failure in reasons:
                print("%s: failed as expected (%s)" % (name, args.expect_failure))
            else:
                status = 1
                print("%s: expected a %s failure, got %s" % (name, args.expect_failure,
                                                           sorted(reasons) or "success"))
        elif failures:
            status = 1
            print("%s: FAILED" % name)
            for reason, msg in failures:
                print("  [%s] %s" % (reason, msg))
        else:
            print("%s: passed" % name)
    return status


if __name__ == "__main__":
    sys.exit(main())
