#!/usr/bin/env python3
"""Checks .vscode/launch.json and tasks.json: every example has a gdb and an lldb
configuration on the debug preset's build, the build task exists, and the
configurations' setup commands run in batch gdb / lldb-22 (tapegrad's printers and
formatters load, `$tape()` / `tapegrad-tape` work). Prints PASS or FAIL: lines.

  check_vscode.py --source-dir . --program build/tests/tapegrad_gdb_tape_walkthrough \
                  --gdb /usr/bin/gdb --lldb /usr/bin/lldb-22
"""

import argparse
import glob
import json
import os
import subprocess
import sys

problems = []


def check(ok, message):
    if not ok:
        problems.append(message)


def run(args, cwd):
    out = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=150, cwd=cwd,
                         env=dict(os.environ, OPENBLAS_NUM_THREADS="1")).stdout
    print(out)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--source-dir", required=True)
    ap.add_argument("--program", required=True, help="an -O0 -g example linked to this build's library")
    ap.add_argument("--gdb", default="")
    ap.add_argument("--lldb", default="")
    ap.add_argument("--library", required=True)
    ap.add_argument("--readelf", default="readelf")
    args = ap.parse_args()
    root = os.path.abspath(args.source_dir)
    launch = json.load(open(os.path.join(root, ".vscode", "launch.json")))
    tasks = json.load(open(os.path.join(root, ".vscode", "tasks.json")))
    presets = json.load(open(os.path.join(root, "CMakePresets.json")))

    # The build task: the debug preset, which exists and builds into build-debug/.
    labels = {t["label"]: t for t in tasks["tasks"]}
    debug = [p for p in presets["configurePresets"] if p["name"] == "debug"]
    check(debug and debug[0]["binaryDir"] == "${sourceDir}/build-debug", "CMakePresets.json: no debug preset in build-debug")
    check("cmake --build --preset debug" in [t["command"] for t in labels.values()],
          "tasks.json: no task runs cmake --build --preset debug")

    # One gdb and one lldb configuration per example, on build-debug/examples/<name>.
    examples = sorted(os.path.splitext(os.path.basename(p))[0] for p in glob.glob(os.path.join(root, "examples", "*.cpp")))
    configs = launch["configurations"]
    for name in examples:
        for kind, type_ in (("gdb", "cppdbg"), ("lldb", "lldb")):
            found = [c for c in configs if c.get("type") == type_ and
                     c.get("program") == "${workspaceFolder}/build-debug/examples/" + name]
            check(len(found) == 1, "launch.json: no %s configuration for examples/%s" % (kind, name))
    for c in configs:
        check(c.get("preLaunchTask") in labels, "launch.json: %s: unknown preLaunchTask %r" % (c["name"], c.get("preLaunchTask")))

    # Without debug information (Release, MinSizeRel) gdb and lldb have nothing to show.
    no_debug_info = [os.path.basename(p) for p in (args.library, args.program)
                     if ".debug_info" not in subprocess.run([args.readelf, "-S", "--wide", p], capture_output=True,
                                                            text=True).stdout]
    if no_debug_info and not problems:
        print("SKIPPED: the configurations are complete, but %s has no debug information (a Release or MinSizeRel "
              "build): the debugger part needs -g; build with the debug preset or RelWithDebInfo" % no_debug_info[0])
        return
    if no_debug_info:
        args.gdb = args.lldb = ""

    def expand(text):
        return text.replace("${workspaceFolder}", root)

    # gdb: each distinct list of setupCommands, in batch mode (MI commands through interpreter-exec).
    gdb_setups = {json.dumps(c["setupCommands"]) for c in configs if c.get("type") == "cppdbg"}
    if args.gdb and os.path.exists(args.gdb):
        for setup in gdb_setups:
            cmd = [args.gdb, "-batch", "-nx"]
            for s in json.loads(setup):
                text = expand(s["text"])
                cmd += ["-iex", 'interpreter-exec mi "%s"' % text if text.startswith("-") else text]
            cmd += ["-ex", "start", "-ex", "info pretty-printer", "-ex", "p $tape()", os.path.abspath(args.program)]
            out = run(cmd, root)
            check("tapegrad" in out and "Tape with 0 entries" in out,
                  "gdb with launch.json's setupCommands: the tapegrad printers did not load")
            for bad in ("declined", "Undefined command", "Python Exception", "^error", "No symbol"):
                check(bad not in out, "gdb with launch.json's setupCommands printed %r" % bad)
    else:
        print("note: gdb not installed, its configurations not run")

    lldb_inits = {json.dumps(c["initCommands"]) for c in configs if c.get("type") == "lldb"}
    if args.lldb and os.path.exists(args.lldb):
        for init in lldb_inits:
            cmd = [args.lldb, "-b", "--no-lldbinit"]
            for text in json.loads(init):
                cmd += ["-o", expand(text)]
            cmd += ["-o", "breakpoint set -n main", "-o", "run", "-o", "tapegrad-tape", os.path.abspath(args.program)]
            out = run(cmd, root)
            check("Tape with 0 entries" in out, "lldb with launch.json's initCommands: the tapegrad formatters did not load")
            check("error:" not in out, "lldb with launch.json's initCommands printed an error")
    else:
        print("note: lldb-22 not installed, its configurations not run")

    if problems:
        print("FAIL: " + "\nFAIL: ".join(problems))
        sys.exit(1)
    print("PASS: .vscode: %d configurations for %d examples" % (len(configs), len(examples)))


if __name__ == "__main__":
    main()
