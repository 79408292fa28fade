#!/usr/bin/env python3
"""Fuzz test of the tapegrad-depth command line.

    lab_cli_fuzz.py TAPEGRAD_DEPTH WORK_DIR [--cases N] [--seed S] [--memory-gib G]

Random argument lists (numbers of every sign and size, words that are not numbers,
unknown options, repeated options, shard strings such as 3/2, -1/4, a/b, the merge
subcommand with folders that exist or not), from a fixed seed, each run in a fresh
copy of a folder holding finished runs. Every invocation must:
  - exit 0, 1 or 2 (never a signal, an abort or an uncaught exception) within
    TIMEOUT_SECONDS and under an address-space limit of --memory-gib (default 2;
    0: none, for AddressSanitizer builds, which reserve terabytes of address space);
  - if it exits non-zero, leave the finished runs (runs/, sweep.json, the CSVs) as
    they were; if it exits 2, also create no file or folder;
  - if it exits 0 with --resume on the finished folder, keep every finished run.
The valid values in the pools are small, so that a command that does run trains a
tiny sweep in well under a second: the whole test stays under a minute.
"""
import argparse
import hashlib
import os
import random
import resource
import shutil
import subprocess
import sys

TIMEOUT_SECONDS = 30
memory_bytes = 2 << 30

# The finished sweep every case starts from: 2 placements x 2 depths x 2 warmups = 8 runs.
TINY = ["--placements", "post,rezero", "--depths", "1,3", "--lrs", "0.01", "--warmups", "0,5", "--widths", "4",
        "--steps", "12", "--batch", "8", "--train-size", "64", "--eval-size", "32", "--eval-every", "4", "--no-plots"]

COUNTS = ["-9223372036854775809", "-9223372036854775808", "-4294967296", "-1000", "-4", "-1", "-0", "0", "1", "2",
          "3", "7", "1025", "4097", "1000001", "4294967296", "9223372036854775807", "18446744073709551615",
          "18446744073709551616", "99999999999999999999999", "1e3", "1.5", "nan", "inf", "-inf", "0x10", "", "abc",
          "1,2", "1,,2", ",", "2,2", "3,-1", " 4", "5 "]
RATES = ["0.01", "1e-3", "3", "1e308", "1e-320", "-0.01", "0", "-0", "nan", "inf", "-inf", "abc", "0.01,0.01",
         "1e400", ""]
PLACEMENTS = ["post", "pre", "none", "deepnorm", "postnorm", "", "POST", "post,post", "rezero,sandwich", ","]
SHARDS = ["0/1", "0/2", "1/2", "3/2", "-1/4", "a/b", "0/0", "1/", "/4", "2/2", "99999999999/1", "0/99999999999",
          "1/3/4", "", "0.5/2"]
FOLDERS = ["done", "shard0", "shard1", "nowhere", "done/runs", "done/runs.csv", "new", "new/deeper", "", "."]
WORDS = ["--foo", "-x", "--", "merge", "--resume", "--no-plots", "--allow-partial", "extra", "-j", "--out", "-"]

OPTIONS = {  # option -> the pool its values come from
    "--depths": COUNTS, "--widths": COUNTS, "-d": COUNTS, "--steps": COUNTS, "--batch": COUNTS,
    "--warmups": COUNTS, "--seeds": COUNTS, "--train-size": COUNTS, "--eval-size": COUNTS, "--eval-every": COUNTS,
    "--jobs": COUNTS, "-j": COUNTS, "--lrs": RATES, "--placements": PLACEMENTS, "--shard": SHARDS,
    "--out": FOLDERS, "-o": FOLDERS, "--dump": FOLDERS,
    "--arch": ["ffn", "transformer", "rnn", "", "FFN", "ffn,transformer"], "--init": ["pytorch", "xavier", "he", ""],
    "--norm": ["layer", "rms", "batch", "group", ""], "--activation": ["relu", "gelu", "tanh", ""],
    "--ffn-mult": COUNTS, "--heads": COUNTS, "--seq-len": COUNTS,
    "--preset": ["default", "Transformer", "x", ""],  # not "transformer": a sweep of minutes
}


VALID = {"--depths": ["2", "1,2"], "--widths": ["3"], "-d": ["5"], "--steps": ["3", "1"], "--batch": ["4", "1"],
         "--warmups": ["0", "2"], "--seeds": ["1", "0,1"], "--eval-every": ["1", "3"], "--jobs": ["1", "3"],
         "-j": ["2"], "--lrs": ["0.1"], "--placements": ["pre"], "--shard": ["0/2", "1/3"], "--out": ["new"],
         "-o": ["new"], "--dump": ["new"], "--train-size": ["64"], "--eval-size": ["8"], "--arch": ["transformer"],
         "--init": ["xavier"], "--norm": ["rms", "batch"], "--activation": ["gelu"], "--ffn-mult": ["2"],
         "--heads": ["2"], "--seq-len": ["3"], "--preset": ["default"]}
MERGE_WORDS = ["--no-plots", "--allow-partial", "--allow-partial", "shard0", "shard1", "--foo", "--depths"]


def arguments(rng):
    """One random argument list."""
    merge = rng.random() < 0.3
    if merge:  # merge OUT DIRS... [options]
        args = ["merge", rng.choice(FOLDERS)] + [rng.choice(FOLDERS) for _ in range(rng.randint(1, 3))]
    else:
        args = list(TINY) + ["--out", "done"]
        if rng.random() < 0.3:
            args.append("--resume")
    for _ in range(rng.randint(1, 3)):
        kind = rng.random()
        if merge and kind < 0.7:
            args.append(rng.choice(MERGE_WORDS))
        elif kind < 0.4:
            option = rng.choice(sorted(OPTIONS))
            args += [option, rng.choice(VALID[option])]
        elif kind < 0.8:
            option = rng.choice(sorted(OPTIONS))
            args += [option, rng.choice(OPTIONS[option])]
        elif kind < 0.9:
            args.append(rng.choice(WORDS))
        else:
            option = rng.choice(sorted(OPTIONS))
            args.append(option)  # an option without its value
    if rng.random() < 0.1:
        rng.shuffle(args)
    return args


def tree_digest(path):
    """One digest of every file's name and bytes under path (or of its absence)."""
    h = hashlib.sha256()
    if not os.path.exists(path):
        return "absent"
    for root, dirs, files in os.walk(path):
        dirs.sort()
        for name in sorted(files):
            full = os.path.join(root, name)
            h.update(os.path.relpath(full, path).encode() + b"\0")
            with open(full, "rb") as f:
                h.update(f.read())
    return h.hexdigest()


def limit_memory():
    if memory_bytes:
        resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))


def run(binary, args, cwd):
    return subprocess.run([binary] + args, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          timeout=TIMEOUT_SECONDS, preexec_fn=limit_memory)


def make_template(binary, template):
    shutil.rmtree(template, ignore_errors=True)
    os.makedirs(template)
    for out, extra in (("done", []), ("shard0", ["--shard", "0/2"]), ("shard1", ["--shard", "1/2"])):
        r = run(binary, TINY + ["--out", out] + extra, template)
        if r.returncode != 0:
            sys.exit("FAIL: the scratch sweep %s failed: %s" % (out, r.stderr.decode(errors="replace")))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("binary")
    parser.add_argument("work")
    parser.add_argument("--cases", type=int, default=200)
    parser.add_argument("--seed", type=int, default=20261201)
    parser.add_argument("--memory-gib", type=int, default=2)
    o = parser.parse_args()
    global memory_bytes
    memory_bytes = o.memory_gib << 30
    binary = os.path.abspath(o.binary)
    template, case_dir = os.path.join(o.work, "template"), os.path.join(o.work, "case")
    make_template(binary, template)
    finished = tree_digest(os.path.join(template, "done"))
    rng = random.Random(o.seed)
    exits = {0: 0, 1: 0, 2: 0}
    for i in range(o.cases):
        args = arguments(rng)
        shutil.rmtree(case_dir, ignore_errors=True)
        shutil.copytree(template, case_dir, symlinks=True)
        entries = sorted(os.listdir(case_dir))
        try:
            r = run(binary, args, case_dir)
        except subprocess.TimeoutExpired:
            sys.exit("FAIL: case %d did not finish in %d s: %r" % (i, TIMEOUT_SECONDS, args))
        err = r.stderr.decode(errors="replace")
        where = "case %d: tapegrad-depth %s" % (i, " ".join(repr(a) for a in args))
        if r.returncode not in exits:
            sys.exit("FAIL: %s exited %d (0, 1 or 2 expected):\n%s" % (where, r.returncode, err[-2000:]))
        exits[r.returncode] += 1
        if r.returncode != 0 and tree_digest(os.path.join(case_dir, "done")) != finished:
            sys.exit("FAIL: %s exited %d and changed the finished runs in done/:\n%s" % (where, r.returncode, err))
        if r.returncode == 2:
            if not err.strip():
                sys.exit("FAIL: %s exited 2 without saying why" % where)
            if sorted(os.listdir(case_dir)) != entries:
                sys.exit("FAIL: %s exited 2 but created %s" % (where, set(os.listdir(case_dir)) - set(entries)))
        outs = [args[k + 1] for k in range(len(args) - 1) if args[k] in ("--out", "-o")]
        if r.returncode == 0 and "--resume" in args and "merge" not in args and outs == ["done"]:
            runs = os.path.join(case_dir, "done", "runs")
            for run_id in os.listdir(os.path.join(template, "done", "runs")):
                if tree_digest(os.path.join(runs, run_id)) != tree_digest(os.path.join(template, "done", "runs", run_id)):
                    sys.exit("FAIL: %s (a resume) changed the finished run %s" % (where, run_id))
        if "terminate called" in err or "Sanitizer" in err or "runtime error:" in err:
            sys.exit("FAIL: %s:\n%s" % (where, err))
    shutil.rmtree(case_dir, ignore_errors=True)
    print("%d argument lists: %d exited 0, %d exited 1, %d exited 2" % (o.cases, exits[0], exits[1], exits[2]))
    print("PASS: fuzz")


if __name__ == "__main__":
    main()
