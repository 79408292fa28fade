#!/usr/bin/python3
"""A learner's notebook: the kernel driven by a few hundred cells a learner could type, from a fixed seed.

  learner_notebook.py --kernelspecs BUILD/share/jupyter --lib-dir BUILD --include-dir include \
                      [--seed 24] [--cells 320] [--no-redefinition] [-v]

The cells mix definitions (variables, functions, structs, templates, Tensors) and re-runs of them
with new values, typos (compile errors, often in the cell that first uses a type, such as
std::vector<short> or a tapegrad op), runtime exceptions, crashes (a null pointer), statements with
lambdas (generic and not), Interrupts of endless loops, and magics (%timeit, %%file, ?name, %undo,
an unknown one).

The oracle, after every cell:
  - the cell's reply is what it must be: ok, or the right ename for a deliberate error;
  - a probe cell uses every name defined so far (the newest definition of each) and prints what
    each gives, which must be what the test expects, and instantiates templates no cell used
    before (std::array<int, N> for a new N, the learner's own templates with a new type);
  - the kernel is alive (every request answered).
--no-redefinition leaves out the re-runs of definitions (for kernels that do not allow them); with
it, the kernel from before issue 24 fails at the first typo in a cell that first uses a type.
Exit status 0 if every check passed; the first failures are printed with the cells that led to them.
"""

import argparse
import os
import queue
import random
import re
import sys
import tempfile
import time

import jupyter_client

FRESH_TYPES = ["std::vector<short>", "std::vector<long>", "std::deque<unsigned>", "std::map<int, long>",
               "std::vector<std::pair<int, char>>", "std::list<double>", "std::set<long long>",
               "std::vector<unsigned char>", "std::map<long, double>", "std::deque<short>",
               "std::vector<std::vector<long>>", "std::set<unsigned>"]


class Kernel:
    def __init__(self, kernelspecs, verbose):
        os.environ["JUPYTER_PATH"] = os.path.abspath(kernelspecs)
        self.km = jupyter_client.KernelManager(kernel_name="xcpp17")
        self.km.start_kernel(cwd=tempfile.gettempdir())
        self.kc = self.km.client()
        self.kc.start_channels()
        self.kc.wait_for_ready(timeout=120)
        self.verbose = verbose
        self.log = []  # (cell, reply status/ename, stdout) of every cell, for the failure report

    def run(self, code, interrupt_after=None, timeout=120):
        msg_id = self.kc.execute(code, stop_on_error=False)
        if interrupt_after is not None:
            time.sleep(interrupt_after)
            self.km.interrupt_kernel()
        out, results = [], []
        deadline = time.monotonic() + timeout
        while True:
            msg = self.kc.get_iopub_msg(timeout=max(1, deadline - time.monotonic()))
            if msg["parent_header"].get("msg_id") != msg_id:
                continue
            kind = msg["msg_type"]
            if kind == "status" and msg["content"]["execution_state"] == "idle":
                break
            if kind == "stream" and msg["content"]["name"] == "stdout":
                out.append(msg["content"]["text"])
            if kind == "execute_result":
                results.append(msg["content"]["data"].get("text/plain", ""))
        while True:
            reply = self.kc.get_shell_msg(timeout=timeout)
            if reply["parent_header"].get("msg_id") == msg_id:
                break
        content = reply["content"]
        status = content["status"] if content["status"] == "ok" else content.get("ename", "error")
        self.log.append((code, status, "".join(out)))
        if self.verbose:
            print("--- %s\n%s\n=> %s %r %r" % (len(self.log), code, status, "".join(out)[:200], results))
        return status, "".join(out), results, content

    def stop(self):
        self.kc.stop_channels()
        self.km.shutdown_kernel(now=True)


class Learner:
    """Generates the cells and knows what every name defined so far must give."""

    def __init__(self, rng, redefine):
        self.rng = rng
        self.redefine = redefine
        self.names = {}  # name -> (probe expression printed with std::cout, expected text)
        self.templates = []  # names of function templates (probed with new types)
        self.count = 0
        self.fresh = list(FRESH_TYPES)
        self.rng.shuffle(self.fresh)

    def new_name(self, prefix):
        if self.redefine and self.names and self.rng.random() < 0.35:
            existing = [n for n in self.names if re.fullmatch(prefix + r"\d+", n)]
            if existing:
                return self.rng.choice(existing)
        self.count += 1
        return "%s%d" % (prefix, self.count)

    def cell(self):
        """(code, expected status, expected stdout or None, names it defines {name: (probe, expected)}, interrupt)."""
        r = self.rng.random()
        c = self.rng.randint(1, 99)
        if r < 0.12:
            n = self.new_name("v")
            return ("double %s = %d;" % (n, c), "ok", None, {n: ("%s" % n, str(c))}, None)
        if r < 0.22:
            n = self.new_name("f")
            return ("double %s(double x) { return x * %d; }" % (n, c), "ok", None, {n: ("%s(2.0)" % n, str(2 * c))}, None)
        if r < 0.30:
            n = self.new_name("S")
            return ("struct %s {\n  int a = %d;\n  int get() const { return a; }\n};" % (n, c), "ok", None,
                    {n: ("%s{}.get()" % n, str(c))}, None)
        if r < 0.37:
            n = self.new_name("tp")
            if n not in self.templates:
                self.templates.append(n)
            return ("template <class T>\nT %s(T x) { return x + T(%d); }" % (n, c), "ok", None,
                    {n: ("%s(1)" % n, str(1 + c))}, None)
        if r < 0.44:
            n = self.new_name("tz")
            return ('tg::Tensor %s = tg::tensor({1.0, %d.0}, true, "%s");' % (n, c, n), "ok", None,
                    {n: ("tg::sum(%s).item()" % n, str(1 + c))}, None)
        if r < 0.54:  # a typo; often in the cell that first uses a type (or redefines a name)
            kind = self.rng.randint(0, 3)
            if kind == 0 and self.fresh:
                t = self.fresh.pop()
                return ("%s w; w.insert(w.end(), {}); int bad = \"x\";" % t if "map" in t or "set" in t
                        else "%s w(3); w.push_back({}); int bad = \"x\";" % t, "CompileError", None, {}, t)
            if kind == 1:
                return ('tg::Tensor tbad = tg::tensor({1.0, 2.0}, true, "t"); int bad = "x";', "CompileError", None, {}, None)
            if kind == 2 and self.names:
                n = self.rng.choice(sorted(self.names))
                return ("double %s = no_such_name_%d;" % (n, c), "CompileError", None, {}, None)
            return ("std::cout << tg::layer_norm(tg::tensor({3.0, 4.0, 5.0}), {3}).value() << undefined_%d;" % c,
                    "CompileError", None, {}, None)
        if r < 0.60:
            if self.rng.random() < 0.5:
                return ('throw std::runtime_error("e%d");' % c, "std::runtime_error", None, {}, None)
            return ("std::cout << tg::matmul(tg::ones({2, 3}), tg::ones({2, 3})).value();", "tapegrad::ShapeError",
                    None, {}, None)
        if r < 0.70:  # lambdas in statements, generic or not, and a result ending in '}'
            k = self.rng.randint(0, 3)
            if k == 0:
                return ("std::cout << [](auto v) { return v * 2; }(%d) << std::endl;" % c, "ok", "%d\n" % (2 * c), {}, None)
            if k == 1:
                return ("std::vector<int> vs%d = {%d, 1};\nstd::sort(vs%d.begin(), vs%d.end(), [](int a, int b) { return a < b; });\n"
                        "std::cout << vs%d[0] << std::endl;" % (self.count, c, self.count, self.count, self.count),
                        "ok", "%d\n" % min(c, 1), {}, None)
            if k == 2 and any(re.fullmatch(r"tz\d+", n) for n in self.names):
                n = self.rng.choice(sorted(n for n in self.names if re.fullmatch(r"tz\d+", n)))
                return ("std::cout << tg::gradcheck([](auto& in) { return tg::sum(in[0] * in[0]); }, {%s}).ok"
                        " << std::endl;" % n, "ok", "1\n", {}, None)
            return ("std::vector<int>{%d, 2, 3}.size()" % c, "ok", None, {}, None)
        if r < 0.75:
            return ("while (true) { ++spins; }", "Interrupted", None, {}, "interrupt")
        if r < 0.78:
            return ("int* nowhere = nullptr;\n*nowhere = %d;" % c, "SegmentationFault", None, {}, None)
        # magics
        k = self.rng.randint(0, 4)
        funcs = sorted(n for n in self.names if re.fullmatch(r"f\d+", n))
        if k == 0 and funcs:
            return ("%%timeit -n 5 -r 2 %s(1.0)" % self.rng.choice(funcs), "ok", "per loop", {}, None)
        if k == 1:
            return ("%%%%file %s/tgx_learner_%d.txt\nline %d" % (tempfile.gettempdir(), c, c), "ok", "", {}, None)
        if k == 2 and self.names:
            n = self.rng.choice(sorted(self.names))
            return ("?%s" % n, "ok", n, {}, None)
        if k == 3:
            return ("%%nosuch_%d" % c, "UnknownMagic", None, {}, None)
        return ("int undone_%d = %d;" % (self.count, c), "ok", None, {}, "undo")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kernelspecs", required=True)
    ap.add_argument("--lib-dir", required=True)
    ap.add_argument("--include-dir", required=True)
    ap.add_argument("--seed", type=int, default=24)
    ap.add_argument("--cells", type=int, default=320)
    ap.add_argument("--no-redefinition", action="store_true")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()

    rng = random.Random(args.seed)
    learner = Learner(rng, redefine=not args.no_redefinition)
    kernel = Kernel(args.kernelspecs, args.verbose)
    failures = []
    started = time.monotonic()

    def fail(what):
        failures.append(what)
        print("FAIL  cell %d: %s" % (len(kernel.log), what))
        for code, status, out in kernel.log[-3:]:
            print("      | %s  -> %s %r" % (code.replace("\n", "\n      | "), status, out[:120]))

    try:
        setup = ('#pragma cling add_include_path("%s")\n#pragma cling add_library_path("%s")\n'
                 '#pragma cling load("libtapegrad")' % (os.path.abspath(args.include_dir), os.path.abspath(args.lib_dir)))
        for code in (setup, "#include <tapegrad/tapegrad.hpp>\n#include <algorithm>\n#include <array>\n#include <deque>\n"
                            "#include <list>\n#include <map>\n#include <set>\n#include <stdexcept>\nnamespace tg = tapegrad;",
                     "volatile unsigned long spins = 0;"):
            status, out, _, content = kernel.run(code)
            if status != "ok":
                print("setup failed: %s %s" % (status, content.get("evalue")))
                return 1
        for step in range(args.cells):
            code, want, want_out, defines, extra = learner.cell()
            status, out, results, content = kernel.run(code, interrupt_after=1.0 if extra == "interrupt" else None)
            if status != want:
                fail("%r gave %s (%s), expected %s" % (code[:80], status, str(content.get("evalue"))[:160], want))
            elif want == "ok" and want_out is not None and want_out not in out:
                fail("%r printed %r, expected %r in it" % (code[:80], out[:200], want_out))
            elif want == "ok" and code.endswith("size()") and results != ["(unsigned long) 3"]:
                fail("%r showed %r, expected the result (unsigned long) 3" % (code, results))
            if status == "ok":
                learner.names.update(defines)
            if extra == "undo" and status == "ok":
                name = code.split()[1]
                s2, _, _, c2 = kernel.run("%undo")
                s3, _, _, c3 = kernel.run("std::cout << %s;" % name)
                if s2 != "ok" or s3 != "CompileError":
                    fail("%%undo of %r: %s, then using it gave %s (expected CompileError)" % (code, s2, s3))
            if extra and extra.startswith("std::"):  # the type the typo used first must work now
                s2, out2, _, c2 = kernel.run("%s w_ok; std::cout << w_ok.size() << std::endl;" % extra)
                if s2 != "ok" or out2 != "0\n":
                    fail("%s after a typo in the cell that used it first: %s %r %s" % (extra, s2, out2, c2.get("evalue")))
            # The oracle: every name works, and new template instantiations compile and run.
            probes = sorted(learner.names.items())
            lines = ['std::cout << "%s=" << (%s) << ";";' % (n, p) for n, (p, _) in probes]
            lines.append("std::cout << std::array<int, %d>{}.size() << \";\";" % (step + 1))
            for t in learner.templates[-3:]:
                if t in learner.names:
                    lines.append("std::cout << %s(static_cast<short>(%d)) << \";\";" % (t, step % 7))
            expected = "".join("%s=%s;" % (n, e) for n, (_, e) in probes) + "%d;" % (step + 1)
            status, out, _, content = kernel.run("\n".join(lines))
            if status != "ok" or not out.startswith(expected):
                fail("the probe after it: %s %s\n      got      %r\n      expected %r..." %
                     (status, str(content.get("evalue"))[:200], out[:300], expected[:300]))
            if len(failures) >= 5:
                break
    except queue.Empty:
        fail("the kernel did not answer (dead or hung)")
    finally:
        kernel.stop()
    print("%d cells (%d learner's cells, each followed by a probe) in %.0f s, %d names defined at the end"
          % (len(kernel.log), args.cells, time.monotonic() - started, len(learner.names)))
    if failures:
        print("%d failure(s)" % len(failures))
        return 1
    print("the learner's notebook passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
