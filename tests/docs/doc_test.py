#!/usr/bin/python3
"""Docs are tests: every code block a user is shown runs against the build (ctest label `docs`).

Which files: every *.md of the source tree (README.md, docs/, notebooks/, tools/*/, ...) except
CHANGELOG.md (history, not instructions) and tests/docs/fixtures/ (this test's own broken examples).
The source tree is what git tracks plus new files it does not ignore (doc_markdown.source_files); what
a run wrote into the checkout (results/, build*/) is output, never source, also for the path checks. Only fenced blocks (``` or ~~~) are read (by doc_markdown.py).

THE RULES (for anyone writing docs)
The info string after the fence says what a block is:
  cpp, c++          C++. Statements are wrapped in main() (#include and `using namespace` lines go
                    above it); a block with its own main() is a whole program. All of them are built
                    as a user does: `cmake --install` of the build into a scratch prefix, then a project
                    with find_package(tapegrad) (the `cmake` block below, if the docs have one). Each
                    one runs and must exit 0.
  sh, bash, shell   command lines, run in order by one bash per block (set -e -o pipefail) in a scratch
                    copy of the source tree whose build/ is the build under test.
  cmake             lines of a consumer's CMakeLists.txt (find_package, target_link_libraries(my_app
                    ...)); the C++ blocks are its main.cpp.
  text, console, output, gdb, python, json
                    not run: output, sessions, illustrations.
A fence with no info string or another one fails the test: say what the block is.

Markers: HTML comments on the lines just above the fence (blank lines between are fine).
  <!-- doc-test: skip: REASON -->                  not run. Say why and what covers it instead.
  <!-- doc-test: covered-by: FILE[, FILE...] -->   not run: each command line must appear, as written
                       (spaces collapsed, the comment dropped), in one of these files: the script or
                       test that does run it (e.g. .ci/run for scripts/test.sh). Paths from the source
                       root, globs allowed; a notebook counts by its cells' text.
  <!-- doc-test: expect: REGEX -->                 the block's output must match (Python re.search, DOTALL).
  <!-- doc-test: same-as: FILE -->                 a text block that must be FILE's text, verbatim (a table that a
                       program printed and a test compares with a fresh run, quoted in a doc: README.md's
                       depth table is docs/lab/summary.txt).
  skip and covered-by can apply to some lines of a block only, named by how they start:
  <!-- doc-test: skip scripts/lab.sh: the default sweep takes minutes -->
  <!-- doc-test: covered-by scripts/test.sh: .ci/run -->
  (such a prefix must match a line of the block, so a stale marker fails).
Checked on every sh line, run or not:
  - a relative path whose first part exists in the source tree (scripts/, tools/, ...) or is build/
    must exist (build/ = the build under test; globs must match something);
  - -DTAPEGRAD_* must be a cache variable of the build, `--preset NAME` a preset in CMakePresets.json;
  - options (-x, --xyz, --xyz=v) given to a program in build/ or to a .py script of the tree must
    appear in its --help (when its --help runs; e.g. not for scripts that need PyTorch).
How sh lines run:
  - /tmp/... and /opt/... are replaced by folders in the scratch dir;
  - `cmake -S . -B build ...` and `cmake --build build ...` are not run: build/ is the build under
    test, configured and built just so (their -D options are checked as above);
  - a command that fails fails the test, so a renamed script or option shows.
Commands that take minutes, need a cluster, PyTorch or conda, or would run this suite again
(scripts/test.sh) are marked skip or covered-by.

  doc_test.py --source-dir S --build-dir B --scratch DIR [--files A.md ...] [--list] [--expect-failure KIND]
  (--list: what would run, and the static checks, without running anything)

Each failure prints `FAIL [KIND] file:line: message`; KIND is one of unmarked, info, marker, path, option,
covered, compile, cmake, run, expect, same. --expect-failure KIND exits 0 only if there were failures and
all were of that KIND (the tests in tests/docs/fixtures prove each check fails when it should).
"""

import argparse
import glob
import json
import os
import re
import shutil
import signal
import subprocess
import sys

from doc_markdown import (KINDS, RUN_INFO, Block, Failures, command_lines, markdown_files, read_blocks, source_files,
                          split_commands, strip_comment)


class Checker:
    def __init__(self, source, build, failures):
        self.source, self.build, self.failures = source, build, failures
        # The first parts of source paths (scripts/, tools/, ...): output folders such as results/ are not
        # among them even when a run has written one, so `results/small` in a command is an output path.
        self.top = {path.split("/", 1)[0] for path in source_files(source)}
        self.cache = self.read_cache()
        self.presets = self.read_presets()
        self.helps = {}

    def read_cache(self):
        names = set()
        try:
            with open(os.path.join(self.build, "CMakeCache.txt"), encoding="utf-8") as f:
                for line in f:
                    m = re.match(r"^([A-Za-z_][A-Za-z0-9_]*):", line)
                    if m:
                        names.add(m.group(1))
        except OSError:
            pass
        return names

    def read_presets(self):
        try:
            with open(os.path.join(self.source, "CMakePresets.json"), encoding="utf-8") as f:
                data = json.load(f)
        except (OSError, ValueError):
            return set()
        return {p["name"] for key, presets in data.items() if key.endswith("Presets") for p in presets}

    def resolve(self, token):
        """The file a relative path token names (build/ -> the build under test), or None if not ours."""
        token = token.split("=", 1)[-1] if re.match(r"^[A-Za-z_]+=", token) else token
        if "/" not in token or token.startswith(("/", "~", "$", "-", "http")) or "{" in token:
            return None
        first = token.split("/", 1)[0]
        if first == "build":
            return os.path.join(self.build, token.split("/", 1)[1])
        if first in self.top:
            return os.path.join(self.source, token)
        return None

    def help_text(self, program):
        if program not in self.helps:
            command = [sys.executable, program, "--help"] if program.endswith(".py") else [program, "--help"]
            try:
                r = subprocess.run(command, capture_output=True, text=True, timeout=60,
                                   env=dict(os.environ, OPENBLAS_NUM_THREADS="1"))
                self.helps[program] = r.stdout + r.stderr if r.returncode == 0 else None
            except (OSError, subprocess.TimeoutExpired):
                self.helps[program] = None
        return self.helps[program]

    def check_line(self, where, command):
        for tokens in split_commands(command):
            for t in tokens:
                path = self.resolve(t)
                if path and not glob.glob(path):
                    self.failures.add("path", where, f"'{t}' does not exist (in `{command}`)")
                m = re.match(r"^-D(TAPEGRAD_[A-Za-z0-9_]+)(:[A-Z]+)?=", t)
                if m and self.cache and m.group(1) not in self.cache:
                    self.failures.add("option", where, f"-D{m.group(1)} is not a cache variable of the build")
            for k, t in enumerate(tokens[:-1]):
                if t == "--preset" and tokens[0] in ("cmake", "ctest") and tokens[k + 1] not in self.presets:
                    self.failures.add("option", where, f"there is no preset '{tokens[k + 1]}' in CMakePresets.json")
            self.check_options(where, command, tokens)

    def check_options(self, where, command, tokens):
        start = 1 if tokens[0] in ("python3", "/usr/bin/python3") and len(tokens) > 1 else 0
        path = self.resolve(tokens[start])
        if not path or not os.path.isfile(path):
            return
        # A program of the build (the token names build/...; not "inside the build's folder", which a scratch
        # copy of the tree may be) or a Python script of the tree.
        if not (path.endswith(".py") or tokens[start].split("/", 1)[0] == "build"):
            return
        help_text = self.help_text(path)
        if help_text is None:
            return
        for t in tokens[start + 1:]:
            if not t.startswith("-") or re.match(r"^-[0-9.]", t):
                continue
            option = t.split("=", 1)[0]
            if not re.search(r"(?<![\w-])" + re.escape(option) + r"(?![\w-])", help_text):
                self.failures.add("option", where, f"{tokens[start]} has no option {option} (not in its --help)")


def covered(source, targets, command):
    pattern = re.compile(r"(?<!\S)" + re.escape(command) + r"(?!\S)")
    found_any = False
    for target in [t.strip() for t in targets.split(",") if t.strip()]:
        for path in glob.glob(os.path.join(source, target)):
            found_any = True
            if path.endswith(".ipynb"):
                with open(path, encoding="utf-8") as f:
                    cells = json.load(f).get("cells", [])
                text = "\n".join("".join(c.get("source", [])) for c in cells)
            else:
                with open(path, encoding="utf-8", errors="replace") as f:
                    text = f.read()
            if any(pattern.search(" ".join(strip_comment(line).split())) for line in text.splitlines()) \
                    or pattern.search(" ".join(text.split())):
                return None
    return f"`{command}` is not in {targets}" if found_any else f"covered-by names no file: {targets}"


RECURSIVE = re.compile(r"(^|[\s/;&|])(scripts/test\.sh|ctest)(\s|$)")
BUILT_ALREADY = [re.compile(r"^cmake\s+(-S\s+\.\s+-B\s+build|-B\s+build\s+-S\s+\.)(\s|$)"),
                 re.compile(r"^cmake\s+--build\s+build(\s|$)")]


def runnable(command, scratch):
    """The command as it runs: build/ configure and build steps dropped, /tmp and /opt in the scratch dir."""
    parts = [p for p in re.split(r"\s+&&\s+", command) if not any(b.match(p.strip()) for b in BUILT_ALREADY)]
    text = " && ".join(parts)
    return re.sub(r"(?<![\w./$-])/(tmp|opt)/", lambda m: f"{scratch}/{m.group(1)}/", text)


def shell_blocks(blocks, checker, work, failures, listing=False):
    source = checker.source
    for b in blocks:
        commands = command_lines(b)
        used = set()
        to_run = []
        for offset, command in commands:
            where = b.where(offset)
            checker.check_line(where, command)
            rule = ("skip", b.skip) if b.skip else ("covered-by", b.covered_by) if b.covered_by else None
            for number, prefix, kind, argument in b.scoped:
                if command.startswith(prefix):
                    rule = (kind, argument)
                    used.add(number)
            if rule and rule[0] == "covered-by":
                problem = covered(source, rule[1], command)
                if problem:
                    failures.add("covered", where, problem)
            elif not rule:
                if RECURSIVE.search(command):
                    failures.add("marker", where, f"`{command}` would run this test suite again: "
                                 "mark it covered-by (e.g. .ci/run) or skip")
                else:
                    to_run.append((offset, command))
        for number, prefix, _, _ in b.scoped:
            if number not in used:
                failures.add("marker", f"{b.path}:{number}", f"no command line of the block starts with '{prefix}'")
        if listing:
            for offset, command in commands:
                print(f"  {b.where(offset)}: {'RUN ' if (offset, command) in to_run else 'not run'}  {command}")
        elif to_run:
            run_shell(b, to_run, work, failures)


def check_same_as(blocks, source, failures):
    """A block marked same-as: FILE is that file's text, line for line."""
    for b in blocks:
        if not b.same_as:
            continue
        number, rel = b.same_as
        path = os.path.join(source, rel)
        if not os.path.isfile(path):
            failures.add("same", f"{b.path}:{number}", f"same-as names no file: {rel}")
            continue
        with open(path, encoding="utf-8") as f:
            want = f.read().rstrip("\n").split("\n")
        if b.lines != want:
            k = next((i for i, (x, y) in enumerate(zip(b.lines, want)) if x != y), min(len(b.lines), len(want)))
            failures.add("same", b.where(k), f"the block differs from {rel} at its line {k + 1}: "
                         f"{(b.lines[k] if k < len(b.lines) else '(end of block)')!r} against "
                         f"{(want[k] if k < len(want) else '(end of file)')!r}")


def check_covered_blocks(blocks, source, failures):
    """A cpp or cmake block marked covered-by: each of its lines is in the file that runs it."""
    for b in blocks:
        if b.info == "sh" or not b.covered_by:
            continue
        for offset, line in enumerate(b.lines):
            text = " ".join(line.split())
            if text:
                problem = covered(source, b.covered_by, text)
                if problem:
                    failures.add("covered", b.where(offset), problem)


def slowdown(work):
    """How much longer a block may take: 4 times in a Debug build, whose library is not optimised."""
    try:
        with open(os.path.join(work["tree"], "build", "CMakeCache.txt"), encoding="utf-8") as f:
            return 4 if re.search(r"^CMAKE_BUILD_TYPE:\w+=Debug$", f.read(), re.M) else 1
    except OSError:
        return 1


def run_shell(block, commands, work, failures):
    script = ["set -e -o pipefail"]
    for offset, command in commands:
        script.append(f"echo '+ {command}' | sed 's/^/    /'")
        script.append(runnable(command, work["scratch"]))
    print(f"run {block.where()} (sh, {len(commands)} lines)", flush=True)
    out, code = run_in_group(["bash", "-c", "\n".join(script)], work["tree"], 300 * slowdown(work))
    if code != 0:
        failures.add("run", block.where(), f"the block's commands failed (exit {code}):\n{indent(out)}")
    else:
        check_expect(block, out, failures)


def run_in_group(command, cwd, timeout):
    """(output, exit status); on a timeout the whole process group is killed, not only bash."""
    p = subprocess.Popen(command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                         start_new_session=True, env=dict(os.environ, OPENBLAS_NUM_THREADS="1"))
    try:
        out, _ = p.communicate(timeout=timeout)
        return out, p.returncode
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, _ = p.communicate()
        return out + f"\n(timed out after {timeout} s)", -1


def check_expect(block, output, failures):
    for number, regex in block.expect:
        if not re.search(regex, output, re.S):
            failures.add("expect", f"{block.path}:{number}", f"output does not match /{regex}/:\n{indent(output)}")


def indent(text, limit=60):
    lines = text.rstrip().splitlines()
    if len(lines) > limit:
        lines = lines[:limit // 2] + ["    ..."] + lines[-limit // 2:]
    return "\n".join("    " + l for l in lines)


# ---------------------------------------------------------------- C++ and the CMake consumer

def cpp_program(blocks):
    """One main.cpp holding every statement block as doc_snippet_<k>(), run by `my_app k`."""
    head, bodies = ["#include <string>"], []
    for k, b in enumerate(blocks):
        body = [f"static void doc_snippet_{k}() {{"]
        for offset, line in enumerate(b.lines):
            if re.match(r"^\s*(#|using\s+namespace\s+[\w:]+\s*;)", line):
                head += [f'#line {b.line + offset} "{b.path}"', line]
                body.append("")
            else:
                body += [f'#line {b.line + offset} "{b.path}"', line]
        bodies += body + ["}"]
    calls = [f"  if (which == {k}) doc_snippet_{k}();" for k in range(len(blocks))]
    main = ["int main(int argc, char** argv) {", "  int which = argc > 1 ? std::stoi(argv[1]) : -1;"] + calls + \
           ["  return 0;", "}"]
    return "\n".join(head + bodies + main) + "\n"


def consumer_blocks(blocks, checker, work, failures):
    cpp = [b for b in blocks if b.info == "cpp" and not b.skip and not b.covered_by]
    cmake = [b for b in blocks if b.info == "cmake" and not b.skip and not b.covered_by]
    if not cpp and not cmake:
        return
    prefix = os.path.join(work["scratch"], "prefix")
    r = subprocess.run(["cmake", "--install", checker.build, "--prefix", prefix], capture_output=True, text=True)
    if r.returncode != 0:
        failures.add("cmake", "(install)", f"cmake --install {checker.build} failed:\n{indent(r.stdout + r.stderr)}")
        return
    default = Block("(default consumer)", 1, "cmake",
                    ["find_package(tapegrad REQUIRED)", "target_link_libraries(my_app PRIVATE tapegrad::tapegrad)"])
    statements = [b for b in cpp if not re.search(r"\bint\s+main\s*\(", "\n".join(b.lines))]
    programs = [b for b in cpp if b not in statements]
    for k, project in enumerate(cmake or [default]):
        build_consumer(k, project, statements if k == 0 else [], programs if k == 0 else [],
                       checker, work, prefix, failures)


def build_consumer(k, project, statements, programs, checker, work, prefix, failures):
    folder = os.path.join(work["scratch"], f"consumer{k}")
    os.makedirs(folder, exist_ok=True)
    text = "\n".join(project.lines)
    targets = list(dict.fromkeys(re.findall(r"target_\w+\(\s*([\w-]+)", text)))
    app = targets[0] if targets else "my_app"
    lines = ["cmake_minimum_required(VERSION 3.25)", "project(doc_test_consumer LANGUAGES CXX)",
             "set(CMAKE_CXX_STANDARD 17)", "set(CMAKE_CXX_STANDARD_REQUIRED ON)"]
    for t in targets or [app]:
        if not re.search(r"add_(executable|library)\(\s*" + re.escape(t) + r"\b", text):
            lines.append(f"add_executable({t} main.cpp)")
    for n, b in enumerate(programs):
        with open(os.path.join(folder, f"program{n}.cpp"), "w") as f:
            f.write(f'#line {b.line} "{b.path}"\n' + "\n".join(b.lines) + "\n")
        lines.append(f"add_executable(doc_program{n} program{n}.cpp)")
        lines.append(f"target_link_libraries(doc_program{n} PRIVATE tapegrad::tapegrad)")
    if project.path != "(default consumer)":
        lines.append(f'#line {project.line} "{project.path}"')  # (comment only: CMake has no #line)
    lines += project.lines
    with open(os.path.join(folder, "CMakeLists.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(os.path.join(folder, "main.cpp"), "w") as f:
        f.write(cpp_program(statements) if statements else "int main() { return 0; }\n")
    configure = ["cmake", "-S", folder, "-B", os.path.join(folder, "build"), f"-DCMAKE_PREFIX_PATH={prefix}"]
    cache = cache_values(checker.build)
    for name in ("CMAKE_CXX_COMPILER", "CMAKE_CXX_COMPILER_LAUNCHER"):
        if cache.get(name):
            configure.append(f"-D{name}={cache[name]}")
    print(f"build {project.where()} (cmake consumer, {len(statements)} C++ blocks, {len(programs)} programs)",
          flush=True)
    r = subprocess.run(configure, capture_output=True, text=True)
    if r.returncode != 0:
        failures.add("cmake", project.where(), f"configuring a project with this block failed:\n"
                     f"{indent(r.stdout + r.stderr)}")
        return
    r = subprocess.run(["cmake", "--build", os.path.join(folder, "build"), "-j2"], capture_output=True, text=True)
    if r.returncode != 0:
        output = r.stdout + r.stderr
        errors = [l for l in output.splitlines() if "error" in l] or output.splitlines()
        failures.add("compile", project.where() if not statements else statements[0].where(),
                     f"the C++ blocks do not build:\n{indent(chr(10).join(errors), 40)}")
        return
    for n, b in enumerate(statements):
        run_program(b, [os.path.join(folder, "build", app), str(n)], work, failures)
    for n, b in enumerate(programs):
        run_program(b, [os.path.join(folder, "build", f"doc_program{n}")], work, failures)


def run_program(block, command, work, failures):
    print(f"run {block.where()} (cpp)", flush=True)
    out, code = run_in_group(command, work["tree"], 120)
    print(indent(out, 20), flush=True)
    if code != 0:
        failures.add("run", block.where(), f"exit status {code}:\n{indent(out)}")
    else:
        check_expect(block, out, failures)


def cache_values(build):
    values = {}
    try:
        with open(os.path.join(build, "CMakeCache.txt"), encoding="utf-8") as f:
            for line in f:
                m = re.match(r"^([A-Za-z_][A-Za-z0-9_]*):[A-Z]+=(.*)$", line.rstrip("\n"))
                if m:
                    values[m.group(1)] = m.group(2)
    except OSError:
        pass
    return values


# ---------------------------------------------------------------- main

def scratch_tree(source, build, scratch):
    """A copy of the source tree (source files only: no build folders, no results, no .git) with
    build -> the build under test."""
    if os.path.isdir(scratch):
        shutil.rmtree(scratch)
    tree = os.path.join(scratch, "tree")
    os.makedirs(tree)
    for rel in source_files(source):
        if rel == "build" or rel.startswith("build/"):
            continue
        os.makedirs(os.path.dirname(os.path.join(tree, rel)), exist_ok=True)
        shutil.copy2(os.path.join(source, rel), os.path.join(tree, rel), follow_symlinks=False)
    os.symlink(os.path.realpath(build), os.path.join(tree, "build"))
    for sub in ("tmp", "opt"):
        os.makedirs(os.path.join(scratch, sub))
    return {"scratch": scratch, "tree": tree}


def main():
    parser = argparse.ArgumentParser(description="Run the code blocks of the Markdown docs (see the top of this file).")
    parser.add_argument("--source-dir", required=True)
    parser.add_argument("--build-dir", required=True)
    parser.add_argument("--scratch", required=True, help="a folder this test may delete and fill")
    parser.add_argument("--files", nargs="*", help="Markdown files (paths from --source-dir); default: all")
    parser.add_argument("--list", action="store_true", help="only list the blocks, what runs, and the static checks")
    parser.add_argument("--expect-failure", choices=KINDS, help="pass only if it fails, and only for this reason")
    args = parser.parse_args()
    source, build = os.path.realpath(args.source_dir), os.path.realpath(args.build_dir)
    failures = Failures()
    files = args.files or markdown_files(source)
    blocks = []
    for rel in files:
        blocks += read_blocks(source, rel, failures)
    print(f"{len(files)} Markdown files, {len(blocks)} code blocks", flush=True)
    work = scratch_tree(source, build, os.path.realpath(args.scratch))
    checker = Checker(source, build, failures)
    check_covered_blocks(blocks, source, failures)
    check_same_as(blocks, source, failures)
    shell_blocks([b for b in blocks if b.info == "sh"], checker, work, failures, args.list)
    if args.list:
        for b in blocks:
            if b.info != "sh":
                runs = b.info in ("cpp", "cmake") and not b.skip and not b.covered_by
                print(f"  {b.where()}: {'RUN ' if runs else 'not run'}  ({b.info} block)")
        return 1 if failures.items else 0
    for b in blocks:
        if b.info == "cpp" and b.expect and (b.skip or b.covered_by):
            failures.add("marker", b.where(), "expect: on a block that does not run")
    consumer_blocks(blocks, checker, work, failures)
    kinds = {kind for kind, _, _ in failures.items}
    if args.expect_failure:
        if kinds == {args.expect_failure}:
            print(f"PASS: failed as expected ({args.expect_failure})")
            return 0
        print(f"ERROR: expected failures of kind {args.expect_failure} only, got {sorted(kinds) or 'none'}")
        return 1
    if failures.items:
        print(f"{len(failures.items)} failure(s); the rules are at the top of {__file__}")
        return 1
    print("PASS: every code block ran or is marked")
    return 0


if __name__ == "__main__":
    sys.exit(main())
