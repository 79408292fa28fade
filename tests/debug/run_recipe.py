#!/usr/bin/env python3
"""Runs one gdb recipe (tools/gdb/recipes/NAME.gdb) and checks the docs that show it.

A recipe is a gdb command file with a header line naming the program it runs on:

    # program: examples/layer_norm_by_hand
    start
    break tapegrad::layer_norm_backward
    ...

A doc shows it as a transcript, in a fenced block right after a marker line:

    <!-- recipe: layer_norm_stop -->
    ```gdb
    (gdb) break tapegrad::layer_norm_backward     # comments after two spaces and '#'
    Breakpoint 2 at 0x...: file .../normalization.cpp, line ...
    ```

The test runs the recipe's commands in gdb (batch mode, each as -ex, so an error does
not stop the rest, as at the prompt), echoing "(gdb) command" before each, and checks:
  - the commands in each doc block are exactly the recipe's, in order;
  - every output line a doc shows appears, in order, among the lines that command
    printed ("..." inside a line matches anything; a line that is only "..." is a gap);
  - nothing that means a broken printer or a failed command shows up.
It prints "SKIPPED: <why>" and exits 0 when gdb is missing or the program or library
has no debug information (a Release or MinSizeRel build): ctest shows it as skipped.

  run_recipe.py --gdb /usr/bin/gdb --build-dir build --recipe tools/gdb/recipes/x.gdb \
                --doc tools/gdb/README.md [--doc README.md]
"""

import argparse
import os
import re
import subprocess
import sys

# Output that means a printer broke, a command failed or the docs promise too much.
REFUSED = [
    "Python Exception", "Error while executing Python code", "<tapegrad ",  # a printer failed
    "m_storage", "_M_refcount", "p_begin",                                     # xtensor/libstdc++ internals
    "auto-loading has been declined",
    "No symbol", "No frame", "No stack", "not defined", "Function \"",           # a command failed
    "Couldn't write extended state", "Cannot evaluate function",                # calls into the program
    "Make breakpoint pending",
    "error: ",                                                                  # lldb: a command failed
]


def skip(reason):
    print("SKIPPED: " + reason)
    sys.exit(0)


def has_debug_info(path, readelf):
    out = subprocess.run([readelf, "-S", "--wide", path], capture_output=True, text=True).stdout
    return ".debug_info" in out


def read_recipe(path):
    program, commands = None, []
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            m = re.match(r"#\s*program:\s*(\S+)", line)
            if m:
                program = m.group(1)
            elif line.strip() and not line.lstrip().startswith("#"):
                commands.append(line.strip())
    if not program:
        sys.exit("%s: no '# program: examples/...' line" % path)
    return program, commands


def doc_blocks(doc_path, name):
    """The transcript blocks of `doc_path` marked <!-- recipe: name -->, as line lists."""
    with open(doc_path) as f:
        lines = f.read().split("\n")
    blocks = []
    for i, line in enumerate(lines):
        if line.strip() != "<!-- recipe: %s -->" % name:
            continue
        j = i + 1
        while j < len(lines) and not lines[j].strip():
            j += 1
        if j >= len(lines) or not lines[j].startswith("```"):
            sys.exit("%s:%d: the recipe marker must be followed by a fenced block" % (doc_path, i + 1))
        end = j + 1
        while end < len(lines) and not lines[end].startswith("```"):
            end += 1
        blocks.append((j + 2, lines[j + 1:end]))
    return blocks


def split_doc(lines, prompt):
    """[(command, [output lines])] and the program named on a "$ gdb ..." line, if any."""
    sections, program = [], None
    for line in lines:
        if line.startswith("$ "):
            if re.match(r"\$ (gdb|lldb)", line):
                program = line.split()[-1]
            continue
        if line.startswith(prompt):
            command = re.sub(r"\s{2,}#.*$", "", line[len(prompt):]).strip()
            sections.append((command, []))
        elif sections:
            sections[-1][1].append(line.rstrip())
        elif line.strip():
            sys.exit("doc block: output line before the first (gdb) command: %r" % line)
    return sections, program


def split_transcript(text, prompt):
    sections = []
    for line in text.split("\n"):
        if line.startswith(prompt):
            sections.append((line[len(prompt):].strip(), []))
        elif sections:
            sections[-1][1].append(line.rstrip())
    return sections


def line_pattern(doc_line):
    parts = [re.escape(p) for p in doc_line.split("...")]
    return re.compile("^" + ".*".join(parts) + "$")


def check_block(where, doc_sections, transcript, commands):
    problems = []
    doc_commands = [c for c, _ in doc_sections]
    if doc_commands != commands:
        problems.append("%s: the doc's commands %s differ from the recipe's %s" % (where, doc_commands, commands))
        return problems
    for (command, shown), (ran, printed) in zip(doc_sections, transcript):
        at = 0
        for doc_line in shown:
            if doc_line.strip() == "...":
                continue
            pattern = line_pattern(doc_line)
            while at < len(printed) and not pattern.match(printed[at]):
                at += 1
            if at == len(printed):
                problems.append("%s: after '%s' the doc shows a line the debugger did not print (in this order):\n"
                                "    %s" % (where, command, doc_line))
                break
            at += 1
    return problems


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gdb", default="")
    ap.add_argument("--lldb", default="", help="for .lldb recipes: lldb (e.g. lldb-22)")
    ap.add_argument("--cwd", help="where the debugger runs (default: --build-dir)")
    ap.add_argument("--readelf", default="readelf")
    ap.add_argument("--build-dir", required=True)
    ap.add_argument("--library", required=True)
    ap.add_argument("--recipe", required=True)
    ap.add_argument("--program", help="the program to run (default: the recipe's, in --build-dir)")
    ap.add_argument("--doc", action="append", default=[])
    ap.add_argument("--optional-doc", action="append", default=[],
                    help="checked if it has a block for this recipe (e.g. the top-level README)")
    args = ap.parse_args()

    name = os.path.splitext(os.path.basename(args.recipe))[0]
    program_rel, commands = read_recipe(args.recipe)
    program = os.path.abspath(args.program or os.path.join(args.build_dir, program_rel))
    lldb = args.recipe.endswith(".lldb")
    debugger = args.lldb if lldb else args.gdb
    if not debugger or not os.path.exists(debugger):
        skip("%s is not installed (apt install %s); the %s recipes need it"
             % ("lldb" if lldb else "gdb", "lldb-22" if lldb else "gdb", "lldb" if lldb else "gdb"))
    if not os.path.exists(program):
        sys.exit("%s: the program %s was not built" % (args.recipe, program))
    for path in (args.library, program):
        if not has_debug_info(path, args.readelf):
            skip("%s has no debug information (a Release or MinSizeRel build): the gdb recipes need -g; "
                 "build with the debug preset (cmake --preset debug) or RelWithDebInfo" % os.path.basename(path))

    blocks = []
    for doc in args.doc + args.optional_doc:
        for line_no, block in doc_blocks(doc, name):
            blocks.append(("%s:%d" % (os.path.relpath(doc), line_no), block))
    if args.doc and not any(where.startswith(tuple(os.path.relpath(d) for d in args.doc)) for where, _ in blocks):
        sys.exit("recipe %s is shown in none of %s (add a block after <!-- recipe: %s -->)" % (name, args.doc, name))

    prompt = "(lldb) " if lldb else "(gdb) "
    gdb_args = [args.gdb, "-batch", "-nx",
                "-iex", "add-auto-load-safe-path " + os.path.dirname(os.path.abspath(args.library)),
                "-iex", "set debuginfod enabled off", "-iex", "set pagination off",
                "-iex", "set width 0", "-iex", "set confirm off"]
    for command in commands:
        gdb_args += ["-ex", "echo (gdb) %s\\n" % command.replace("\\", "\\\\"), "-ex", command]
    gdb_args.append(program)
    if lldb:  # lldb -b echoes each -o command as "(lldb) command" itself
        gdb_args = [debugger, "-b", "--no-lldbinit"] + [a for c in commands for a in ("-o", c)] + [program]
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    run = subprocess.run(gdb_args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
                         timeout=150, cwd=args.cwd or args.build_dir)
    print(run.stdout)
    transcript = split_transcript(run.stdout, prompt)
    if lldb and transcript and transcript[0][0].startswith("target create"):
        transcript = transcript[1:]  # lldb's own first command, from the program argument

    problems = []
    if [c for c, _ in transcript] != commands:
        problems.append("gdb did not run every command (the transcript has %d of %d)" % (len(transcript), len(commands)))
    for text in REFUSED:
        if text in run.stdout:
            problems.append("gdb printed %r" % text)
    for where, block in blocks:
        sections, doc_program = split_doc(block, prompt)
        if doc_program and not doc_program.endswith(program_rel):
            problems.append("%s: the doc runs %s but the recipe is tested on %s" % (where, doc_program, program_rel))
        problems += check_block(where, sections, transcript, commands)
    if problems:
        print("FAIL: recipe %s\n  " % name + "\n  ".join(problems))
        sys.exit(1)
    print("PASS: recipe %s (%d commands, %d doc blocks)" % (name, len(commands), len(blocks)))


if __name__ == "__main__":
    main()
