"""Reading the Markdown for doc_test.py: fenced blocks, the doc-test markers above them, and
the command lines of shell blocks (continuations joined, comments dropped). The rules are at the
top of doc_test.py."""

import fnmatch
import os
import re
import shlex
import subprocess

RUN_INFO = {"cpp": "cpp", "c++": "cpp", "sh": "sh", "bash": "sh", "shell": "sh", "cmake": "cmake"}
QUIET_INFO = {"text", "console", "output", "gdb", "python", "json"}
FENCE = re.compile(r"^( {0,3})(```+|~~~+)\s*([^\s`]*)")
MARKER = re.compile(r"^\s*<!--\s*doc-test:\s*(.*?)\s*-->\s*$")
DIRECTIVE = re.compile(r"^(skip|covered-by|expect|same-as)(?:\s+(.+?))?:\s*(.*)$")
KINDS = ("unmarked", "info", "marker", "path", "option", "covered", "compile", "cmake", "run", "expect", "same")


class Block:
    def __init__(self, path, line, info, lines):
        self.path, self.line, self.info, self.lines = path, line, info, lines  # line: of the first code line
        self.skip = None            # reason, for the whole block
        self.covered_by = None      # targets, for the whole block
        self.scoped = []            # (marker's line, prefix, "skip"|"covered-by", argument)
        self.expect = []            # (marker's line, regex)
        self.same_as = None         # a file whose text the block is, verbatim (a table a program printed)

    def where(self, offset=0):
        return f"{self.path}:{self.line + offset}"


class Failures:
    def __init__(self):
        self.items = []

    def add(self, kind, where, message):
        assert kind in KINDS
        self.items.append((kind, where, message))
        print(f"FAIL [{kind}] {where}: {message}", flush=True)


# ---------------------------------------------------------------- reading the Markdown

# What the programs write into a checkout, never source (the same list as .gitignore's): scripts/lab.sh
# writes results/depth, the build scripts build*/. Used only where git cannot say what is source.
OUTPUT_PATTERNS = ("build*", "out*", "results*", "__pycache__", ".ipynb_checkpoints", "*.pyc")


def source_files(source):
    """The source tree's files (relative paths): what git tracks, and new files it does not ignore; outside
    a git checkout, every file but those under OUTPUT_PATTERNS and .git. Output a user's run left in the
    checkout (results/ after scripts/lab.sh) is never source."""
    try:
        r = subprocess.run(["git", "-C", source, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                           capture_output=True, text=True, timeout=60)
        if r.returncode == 0 and os.path.samefile(source, git_toplevel(source)):
            return sorted(p for p in r.stdout.split("\0") if p and os.path.lexists(os.path.join(source, p)))
    except (OSError, subprocess.TimeoutExpired):
        pass
    found = []
    for folder, dirs, files in os.walk(source):
        rel = os.path.relpath(folder, source)
        dirs[:] = sorted(d for d in dirs if not d.startswith(".git") and not is_output(d))
        found += [os.path.normpath(os.path.join(rel, f)) for f in sorted(files) if not is_output(f)]
    return found


def git_toplevel(source):
    r = subprocess.run(["git", "-C", source, "rev-parse", "--show-toplevel"], capture_output=True, text=True, timeout=60)
    return r.stdout.strip() if r.returncode == 0 else ""


def is_output(name):
    return any(fnmatch.fnmatch(name, pattern) for pattern in OUTPUT_PATTERNS)


def markdown_files(source):
    fixtures = os.path.join("tests", "docs", "fixtures") + os.sep
    return [f for f in source_files(source)
            if f.endswith(".md") and os.path.basename(f) != "CHANGELOG.md" and not f.startswith(fixtures)]


def read_blocks(source, rel, failures):
    with open(os.path.join(source, rel), encoding="utf-8") as f:
        text = f.read().splitlines()
    blocks, pending, i = [], [], 0
    while i < len(text):
        line = text[i]
        marker = MARKER.match(line)
        if marker:
            pending.append((i + 1, marker.group(1)))
            i += 1
            continue
        fence = FENCE.match(line)
        if not fence:
            if line.strip():
                for number, _ in pending:
                    failures.add("marker", f"{rel}:{number}", "a doc-test marker not followed by a code block")
                pending = []
            i += 1
            continue
        indent, ticks, info = len(fence.group(1)), fence.group(2), fence.group(3).lower()
        body, j = [], i + 1
        while j < len(text) and not re.match(r"^ {0,3}" + re.escape(ticks[0]) + "{" + str(len(ticks)) + r",}\s*$", text[j]):
            body.append(text[j][indent:] if indent and text[j][:indent].isspace() else text[j])
            j += 1
        block = Block(rel, i + 2, info, body)
        apply_markers(block, pending, rel, failures)
        pending = []
        if not info:
            failures.add("unmarked", f"{rel}:{i + 1}", "a code block without an info string: mark it "
                         "(cpp, sh, cmake to run it; text, console, gdb, ... if it is output or an illustration)")
        elif info not in RUN_INFO and info not in QUIET_INFO:
            failures.add("info", f"{rel}:{i + 1}", f"unknown info string '{info}' (known: "
                         f"{', '.join(sorted(set(RUN_INFO) | QUIET_INFO))})")
        else:
            block.info = RUN_INFO.get(info, info)  # cpp, sh, cmake or a quiet one
            blocks.append(block)
        i = j + 1
    return blocks


def apply_markers(block, pending, rel, failures):
    for number, content in pending:
        d = DIRECTIVE.match(content)
        if not d or not d.group(3) or (d.group(1) == "same-as" and d.group(2)):
            failures.add("marker", f"{rel}:{number}", f"cannot read the marker '{content}' (skip: REASON | "
                         "covered-by: FILE[, FILE] | expect: REGEX | same-as: FILE | skip PREFIX: ... | covered-by PREFIX: ...)")
            continue
        kind, prefix, argument = d.groups()
        if kind == "expect":
            block.expect.append((number, argument))
        elif kind == "same-as":
            block.same_as = (number, argument)
        elif prefix:
            block.scoped.append((number, prefix.strip(), kind, argument))
        elif kind == "skip":
            block.skip = argument
        else:
            block.covered_by = argument


# ---------------------------------------------------------------- shell lines

def strip_comment(line):
    quote, previous = None, " "
    for k, c in enumerate(line):
        if quote:
            if c == quote:
                quote = None
        elif c in "'\"":
            quote = c
        elif c == "#" and previous.isspace():
            return line[:k]
        previous = c
    return line


def command_lines(block):
    """(offset in block, command) for each command line: continuations joined, comments dropped."""
    commands, current, start = [], "", None
    for k, raw in enumerate(block.lines):
        if start is None:
            start = k
        text = raw.rstrip()
        if text.endswith("\\"):
            current += strip_comment(text[:-1]) + " "
            continue
        current += strip_comment(text)
        if current.strip():
            commands.append((start, " ".join(current.split())))
        current, start = "", None
    if current.strip():
        commands.append((start, " ".join(current.split())))
    return commands


def split_commands(command):
    """The simple commands of a line, as token lists (split at && || ; |)."""
    try:
        tokens = shlex.split(command)
    except ValueError:
        return [command.split()]
    parts, current = [], []
    for t in tokens:
        if t in ("&&", "||", ";", "|"):
            parts.append(current)
            current = []
        else:
            current.append(t)
    parts.append(current)
    return [p for p in parts if p]
