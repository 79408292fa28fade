#!/usr/bin/python3
"""Protocol tests for the tapegrad-xcpp kernel, through jupyter_client (as Jupyter talks to it).

  kernel_protocol.py --kernelspecs BUILD/share/jupyter --kernel BUILD/kernel/tapegrad-xcpp \
                     --lib-dir BUILD --include-dir include

Each check starts from a running kernel and says what it expected when it fails:
state carried across cells, stream output in order, a result's text and rich display, a
compile error and the cell after it, an escaping exception and the cell after it, an
interrupted endless loop (in the cell's own code, inside OpenBLAS, inside malloc, while the cell
still compiles, or idle) and the cell after it, a restart, kernel_info / is_complete /
completion, and a malformed connection file (a clear message, a non-zero exit status). Then what
learners type (issue 24): re-run definitions, typos that must not poison later cells, lambdas in
statements, results ending in '}', crashes, the magics; "Run All" past error cells (nbclient,
allow_errors); and a stale or broken precompiled header.
"""

import argparse
import os
import queue
import subprocess
import sys
import tempfile
import time

import jupyter_client

failures = []
seen = []  # the iopub messages run() read for the current cell (printed if it hangs)

# STOP_ON_ERROR: with Jupyter's default stop_on_error=True, a kernel answers an error by aborting the
# requests that reach it in the next moments (xeus: 50 ms) with a bare {"status": "error"} reply and no
# output, as "Run All" stops at an error. These checks send a cell right after an erroring one, which
# would then be aborted now and then (it looked like a hang), so they send every cell with
# stop_on_error=False.


def check(condition, what):
    print(("ok    " if condition else "FAIL  ") + what)
    if not condition:
        failures.append(what)


def run(kc, code, timeout=120):
    """Executes code; returns (reply content, [(msg_type, content)] of its iopub output)."""
    msg_id = kc.execute(code, stop_on_error=False)  # see STOP_ON_ERROR below
    outputs = []
    seen.clear()
    deadline = time.monotonic() + timeout
    while True:
        try:
            msg = kc.get_iopub_msg(timeout=max(1, deadline - time.monotonic()))
        except queue.Empty:
            print("no idle status for %r; iopub messages seen since it was sent: %r" % (code[:60], seen[-12:]))
            try:
                reply = kc.get_shell_msg(timeout=1)
                print("its shell channel holds: %r %r" % (reply["parent_header"].get("msg_id") == msg_id, reply["content"]))
            except queue.Empty:
                print("and no shell reply either")
            raise
        seen.append((msg["parent_header"].get("msg_id") == msg_id, msg["msg_type"], str(msg["content"])[:60]))
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
            break
        if msg["msg_type"] in ("stream", "execute_result", "display_data", "error"):
            outputs.append((msg["msg_type"], msg["content"]))
    while True:
        reply = kc.get_shell_msg(timeout=timeout)
        if reply["parent_header"].get("msg_id") == msg_id:
            return reply["content"], outputs


def start_kernel():
    """A kernel from the kernelspecs on JUPYTER_PATH, ready for requests."""
    km = jupyter_client.KernelManager(kernel_name="xcpp17")
    km.start_kernel(cwd=tempfile.gettempdir())
    kc = km.client()
    kc.start_channels()
    kc.wait_for_ready(timeout=60)
    return km, kc


def with_kernel(checks):
    """Starts a kernel, runs checks(kc), stops the kernel; returns the exit status (1 if a check failed)."""
    km, kc = start_kernel()
    try:
        checks(kc)
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
    if failures:
        print("%d check(s) failed" % len(failures))
        return 1
    print("all checks passed")
    return 0


def kernel_stacks(km):
    """The kernel's threads' stacks (gdb), printed when a cell hangs, so the failure says where."""
    try:
        return subprocess.run(["gdb", "-batch", "-p", str(km.provisioner.process.pid), "-ex", "thread apply all bt 25"],
                              capture_output=True, text=True, timeout=60).stdout
    except (OSError, AttributeError, subprocess.TimeoutExpired) as e:
        return "(no stacks: %s)" % e


def stdout_of(outputs):
    return "".join(c["text"] for t, c in outputs if t == "stream" and c["name"] == "stdout")


def learner_checks(kc, km, args):
    """Issue 24: what learners type. Needs tapegrad loaded (the OpenBLAS checks do that)."""
    def ok_out(code, want, what, timeout=120):
        reply, out = run(kc, code, timeout=timeout)
        check(reply["status"] == "ok" and want in stdout_of(out),
              "%s (got %s %s %r)" % (what, reply["status"], reply.get("evalue", "")[:200], stdout_of(out)[:200]))
        return reply, out

    def error(code, ename, what):
        reply, out = run(kc, code)
        check(reply["status"] == "error" and reply.get("ename") == ename,
              "%s: error %s (got %s %s: %s)" % (what, ename, reply["status"], reply.get("ename"), reply.get("evalue", "")[:200]))
        return reply

    run(kc, "#include <algorithm>\n#include <stdexcept>\n#include <vector>\nnamespace tg = tapegrad;")
    # Re-running cells that define things: the newer definition wins, later cells see it.
    for first, again, probe, want, what in (
            ("double sq(double v) { return v * v; }", "double sq(double v) { return v * v * 10; }",
             "std::cout << sq(3.0) << std::endl;", "90\n", "a function definition"),
            ('tg::Tensor xr = tg::tensor({1.0, 2.0}, true, "x");', 'tg::Tensor xr = tg::tensor({1.0, 2.0, 3.0}, true, "x");',
             "std::cout << xr.value().size() << std::endl;", "3\n", "a variable definition"),
            ("struct Pt { int x; };", "struct Pt { int x; int y = 5; };", "std::cout << Pt{1}.y << std::endl;", "5\n",
             "a struct definition"),
            ("template <class T> T twice(T v) { return v + v; }", "template <class T> T twice(T v) { return v + v + v; }",
             "std::cout << twice(2) << std::endl;", "6\n", "a template definition"),
            ("double area(double r) { return 3 * r * r; }", "int area(int w, int h) { return w * h; }",
             'std::cout << area(1.0) << " " << area(2, 3) << std::endl;', "3 6\n",
             "an overload in a later cell (both stay)"),
            ("namespace geo {\ndouble scale(double v) { return 2 * v; }\nstruct Box { int w; };\n}",
             "namespace geo {\ndouble scale(double v) { return 3 * v; }\nstruct Box { int w; int h = 4; };\n}",
             "std::cout << geo::scale(1) << ' ' << geo::Box{1}.h << std::endl;", "3 4\n",
             "a namespace block (its function and struct)"),
            ("namespace geo { namespace deep { int level() { return 1; } } }",
             "namespace geo { namespace deep { int level() { return 2; } } }",
             "std::cout << geo::deep::level() << std::endl;", "2\n", "nested namespace blocks")):
        run(kc, first)
        reply, _ = run(kc, again)
        check(reply["status"] == "ok", "re-running %s works (got %s)" % (what, reply.get("evalue")))
        ok_out(probe, want, "after re-running %s, later cells see the new one" % what)

    # What cannot be replaced says what to do: a member defined outside its class, an explicit specialisation.
    run(kc, "struct Shape { double area() const; };")
    run(kc, "double Shape::area() const { return 1.5; }")
    reply = error("double Shape::area() const { return 2.5; }", "CompileError", "an out-of-line member defined again")
    check(any(line.startswith("hint: ") and "re-run the cell that defines the class" in line
              for line in reply.get("traceback", [])),
          "its error names the way out (re-run the class's cell) (got %r)" % reply.get("traceback", [])[-1:])
    run(kc, "struct Shape { double area() const; };")
    ok_out("double Shape::area() const { return 2.5; }\nstd::cout << Shape{}.area() << std::endl;", "2.5\n",
           "after the class's cell is re-run, the member can be defined anew")
    # A header outside the include paths: the error says how the notebooks set them.
    reply = error('#include "tapegrad/no_such_header.hpp"', "CompileError", "a tapegrad header not found")
    check(any(line.startswith("hint: ") and 'add_include_path("../include")' in line for line in reply.get("traceback", [])),
          "its error names the pragma (got %r)" % reply.get("traceback", [])[-1:])
    reply = error('#include "mylib/helpers.hpp"', "CompileError", "another header not found")
    check(any(line.startswith("hint: 'mylib/helpers.hpp' is in none of the include paths") for line in reply.get("traceback", [])),
          "its error names add_include_path (got %r)" % reply.get("traceback", [])[-1:])
    # A call before a braced initialiser in one statement is one statement (was: split at S{1}'s "}").
    ok_out("struct Pair2 { int a; int b = 9; };\nstd::cout << sq(1.0) << ' ' << Pair2{1}.b << std::endl;", " 9\n",
           "f(x) << S{1}.b in one statement")

    # A failed cell removes nothing and poisons nothing (issue 24's three cells, and std::vector<long>).
    error('double sq(double v) { return v; } int bad_typo = "x";', "CompileError", "a typo after a redefinition")
    ok_out("std::cout << sq(3.0) << std::endl;", "90\n", "a failed cell does not remove or replace earlier definitions")
    error('tg::Tensor t1 = tg::tensor({1.0, 2.0}, true, "t"); int bad = "x";', "CompileError",
          "a typo in the cell that first uses an instantiation")
    ok_out('tg::Tensor t2 = tg::tensor({1.0, 2.0}, true, "t"); std::cout << t2.value();', "{ 1.,  2.}",
           "the next cell that needs the same instantiations runs (was: JIT session error)")
    ok_out("std::cout << tg::layer_norm(tg::tensor({3.0, 4.0, 5.0}), {3}).value();", "-1.224",
           "and so does layer_norm (was: JIT session error)")
    error('std::vector<long> vl; vl.push_back(3); int bad = "y";', "CompileError", "a typo where std::vector<long> is first used")
    ok_out("std::vector<long> vl2; vl2.push_back(3); std::cout << vl2.size() << std::endl;", "1\n",
           "std::vector<long> works after it")
    error("std::cout << undefined_here;", "CompileError", "a plain undeclared name")
    # The error quotes the cell's line as typed, with the column and the ^ under the spot, as cling does: the
    # kernel's wrappers taken out and the positions moved with them (kernel/src/diagnostic_text.cpp).
    for code, spot, what in (('int typo_a = 1; int typo_b = "x";', "typo_b", "a declaration after another"),
                             ("std::cout << 1;\nstd::cout << undefined_too;", "undefined_too", "a statement"),
                             ("xr.shap()", "shap", "a last expression"),
                             ("auto sq_typo = [&](double v) { return v * vv; };", "vv", "a top-level lambda")):
        reply = error(code, "CompileError", "%s with a typo" % what)
        line_no, line = len(code.split("\n")), code.split("\n")[-1]
        tb = reply.get("traceback", [])
        quoted = [i for i, l in enumerate(tb) if l == "%5d | %s" % (line_no, line)]
        check(len(quoted) == 1 and quoted[0] + 1 < len(tb) and tb[quoted[0] + 1].find("^") == 8 + line.index(spot)
              and any(l.endswith(":%d:%d: error: %s" % (line_no, line.index(spot) + 1, reply.get("evalue", "")))
                      for l in tb),
              "%s: the error quotes the line as typed, its column and ^ under %r (got %r)" % (what, spot, tb))

    # Lambdas anywhere: the README's gradcheck as one statement (it killed the kernel before).
    for attempt in range(3):
        ok_out("std::cout << tg::gradcheck([](auto& in) { return tg::sum(in[0] * in[0]); }, {xr}).report << std::endl;",
               "gradcheck passed", "a generic lambda inside a statement (try %d)" % (attempt + 1))
    ok_out("std::vector<int> order = {3, 1, 2};\nstd::sort(order.begin(), order.end(), [](int a, int b) { return a > b; });\n"
           "std::cout << order[0] << order[2] << std::endl;", "31\n", "a lambda in a statement after a declaration")
    # The last expression is the result, also when it ends in '}'.
    for code, want in (("std::vector<int>{1, 2, 3}.size()", "(unsigned long) 3"), ("[] { return 7; }()", "(int) 7"),
                       ("Pt{4}.y", "(int) 5"), ("std::vector<double>{1.5, 2.5}.back()", "(double) 2.5000000")):
        reply, out = run(kc, code)
        results = [c["data"].get("text/plain") for t, c in out if t == "execute_result"]
        check(results == [want], "%r shows %s as the cell's result (got %r %s)" % (code, want, results, reply.get("evalue")))
    # Statements and declarations run in the order written, const ones too.
    ok_out("double total = 0;\nfor (int i = 0; i < 4; ++i) total += i;\nconst double half = total / 2;\n"
           "std::cout << half << std::endl;", "3\n", "a const declaration after a loop sees the loop's work")

    # A crash in the cell's code ends the cell, not the kernel.
    error("int* nowhere = nullptr;\n*nowhere = 3;", "SegmentationFault", "a null pointer write")
    ok_out("std::cout << sq(2.0) << std::endl;", "40\n", "after a crash the kernel runs cells and keeps definitions")
    run(kc, "int down(int n) { return n < 0 ? 0 : down(n + 1) + 1; }")
    error("std::cout << down(0);", "SegmentationFault", "endless recursion (a stack overflow)")
    ok_out("std::cout << twice(21) << std::endl;", "63\n", "after a stack overflow the kernel runs cells")

    # Magics.
    import re
    reply, out = run(kc, "%timeit -n 10 -r 3 sq(2.0)")
    pattern = r"^\d+(\.\d+)?(e[-+]\d+)? (s|ms|us|ns) \+- \d+(\.\d+)?(e[-+]\d+)? (s|ms|us|ns) per loop \(mean \+- std\. dev\. of 3 runs 10 loops each\)\n$"
    check(reply["status"] == "ok" and re.match(pattern, stdout_of(out)),
          "%%timeit -n 10 -r 3 prints xeus-cling's line (got %r %s)" % (stdout_of(out), reply.get("evalue")))
    reply, out = run(kc, "%%timeit -r 2\ndouble z = sq(3.0);\n(void)z;")
    check(reply["status"] == "ok" and re.search(r"per loop \(mean \+- std\. dev\. of 2 runs \d+ loops each\)", stdout_of(out)),
          "%%%%timeit times the cell's body, choosing the loops (got %r %s)" % (stdout_of(out), reply.get("evalue")))
    target = os.path.join(tempfile.mkdtemp(), "written.txt")
    reply, out = run(kc, "%%%%file %s\nfirst line\nsecond line" % target)
    check(reply["status"] == "ok" and open(target).read() == "first line\nsecond line\n",
          "%%%%file writes the cell to the file (got %s %r)" % (reply["status"], os.path.exists(target) and open(target).read()))
    for code in ("?tg::layer_norm", "tapegrad::layer_norm?"):
        reply, out = run(kc, code)
        text = stdout_of(out)
        check(reply["status"] == "ok" and "Tensor layer_norm(const Tensor& x" in text and "// y = (x" in text
              and "normalization.hpp" in text,
              "%s shows the declaration and the comment above it (got %r)" % (code, text[:300]))
    reply, out = run(kc, "?std::vector")
    check(reply["status"] == "ok" and "vector" in stdout_of(out) and "stl_vector.h" in stdout_of(out),
          "?std::vector shows it from the standard library's header (got %r)" % stdout_of(out)[:200])
    reply, out = run(kc, "sq?")
    check(reply["status"] == "ok" and "double sq(double v)" in stdout_of(out),
          "name? shows a cell's own definition (got %r)" % stdout_of(out)[:200])
    error("?no_such_thing_anywhere", "NameError", "?name of an unknown name")
    run(kc, "int undo_me = 5;")
    reply, out = run(kc, "%undo")
    check(reply["status"] == "ok", "%%undo works (got %s)" % reply.get("evalue"))
    error("std::cout << undo_me;", "CompileError", "after %undo the cell's name is gone")
    run(kc, "double sq(double v) { return -1; }")
    run(kc, "%undo")
    ok_out("std::cout << sq(3.0) << std::endl;", "90\n", "%undo of a redefinition brings back the one before")
    error("%nosuch", "UnknownMagic", "an unknown magic")
    error("%%timeit -n x\nsq(1.0);", "MagicError", "a magic with arguments it cannot read")


def restart_and_run_all(args):
    """Jupyter's 'Restart & Run All' with a deliberate error cell runs past it (nbclient, allow_errors)."""
    import nbclient
    import nbformat
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "xcpp17", "display_name": "C++17", "language": "C++17"}
    nb.cells = [nbformat.v4.new_code_cell('#include <iostream>\n#include <stdexcept>\nint before = 1;'),
                nbformat.v4.new_code_cell('int broken = "deliberately";'),
                nbformat.v4.new_code_cell('throw std::runtime_error("deliberate");'),
                nbformat.v4.new_code_cell('std::cout << "after " << before << std::endl;')]
    nbclient.NotebookClient(nb, kernel_name="xcpp17", allow_errors=True, timeout=300).execute()
    errors = [[o.get("ename") for o in c.outputs if o.output_type == "error"] for c in nb.cells]
    last = "".join(o.get("text", "") for o in nb.cells[3].outputs if o.output_type == "stream")
    check(errors[:3] == [[], ["CompileError"], ["std::runtime_error"]] and last == "after 1\n",
          "Run All with allow_errors runs past a compile error and an exception (errors %r, last cell %r)" % (errors, last))


def precompiled_header_fallback(args):
    """A stale or broken precompiled header: the kernel parses the headers instead, says so once, lives."""
    import json
    import shutil
    spec = json.load(open(os.path.join(args.kernelspecs, "kernels", "xcpp17", "kernel.json")))
    if "--pch" not in spec["argv"]:
        check(False, "the build's kernelspec passes --pch (argv %r)" % spec["argv"])
        return
    pch = spec["argv"][spec["argv"].index("--pch") + 1]
    for case in ("stale", "broken"):
        root = tempfile.mkdtemp()
        os.makedirs(os.path.join(root, "kernels", "xcpp17"))
        copy = os.path.join(root, "copy.pch")
        if case == "stale":
            shutil.copy(pch, copy)
            header = os.path.join(root, "changed.hpp")
            with open(copy + ".d", "w") as d:
                d.write(open(pch + ".d").read().rstrip() + " \\\n  " + header + "\n")
            time.sleep(0.05)
            open(header, "w").write("// changed after the PCH\n")
        else:
            open(copy, "w").write("not a precompiled header")
        argv = list(spec["argv"])
        argv[argv.index("--pch") + 1] = copy
        json.dump(dict(spec, argv=argv), open(os.path.join(root, "kernels", "xcpp17", "kernel.json"), "w"))
        saved = os.environ["JUPYTER_PATH"]
        os.environ["JUPYTER_PATH"] = root
        km, kc = start_kernel()
        try:
            reply, out = run(kc, '#include <iostream>\nstd::cout << "works" << std::endl;')
            said = "".join(c["text"] for t, c in out if t == "stream" and c["name"] == "stderr")
            reply2, out2 = run(kc, 'std::cout << "again" << std::endl;')
            said2 = "".join(c["text"] for t, c in out2 if t == "stream" and c["name"] == "stderr")
            check(reply["status"] == "ok" and stdout_of(out) == "works\n" and "is not used" in said
                  and reply2["status"] == "ok" and "is not used" not in said2,
                  "a %s precompiled header: the kernel works without it and says so once (got %r, then %r)"
                  % (case, said[:200], said2[:200]))
        except queue.Empty:
            check(False, "a %s precompiled header: the kernel answers" % case)
        finally:
            kc.stop_channels()
            km.shutdown_kernel(now=True)
            os.environ["JUPYTER_PATH"] = saved


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kernelspecs", required=True)
    ap.add_argument("--kernel", required=True, help="the tapegrad-xcpp program (for the malformed-file check)")
    ap.add_argument("--lib-dir", required=True, help="the folder of libtapegrad.so")
    ap.add_argument("--include-dir", required=True, help="tapegrad's include folder")
    args = ap.parse_args()
    os.environ["JUPYTER_PATH"] = os.path.abspath(args.kernelspecs)

    km, kc = start_kernel()
    try:
        info = kc.kernel_info(reply=True, timeout=30)["content"]
        check(info["language_info"]["name"] == "c++" and info["language_info"]["version"] == "17",
              "kernel_info: language_info is C++ 17 (%s)" % info["language_info"])

        reply, out = run(kc, '#include <cstdio>\n#include <iostream>\nint counter = 41;\n'
                             'std::cout << "one" << std::endl;\nstd::printf("two\\n");\nstd::cout << "three" << std::endl;')
        check(reply["status"] == "ok" and stdout_of(out) == "one\ntwo\nthree\n",
              "std::cout and printf arrive as stdout, in order (got %r)" % stdout_of(out))
        reply, out = run(kc, 'std::cerr << "to stderr" << std::endl;')
        check(any(t == "stream" and c["name"] == "stderr" and "to stderr" in c["text"] for t, c in out),
              "std::cerr arrives as stderr")

        reply, out = run(kc, "++counter;\ncounter")
        results = [c for t, c in out if t == "execute_result"]
        check(len(results) == 1 and results[0]["data"].get("text/plain") == "(int) 42",
              "state carries across cells and a last expression without ';' is the result (got %r)" % results)

        reply, out = run(kc, '#include <string>\n#include <nlohmann/json.hpp>\nnamespace shapes {\n'
                             'struct Square { int side; };\n'
                             'nlohmann::json mime_bundle_repr(const Square& s) {\n'
                             '  return {{"text/html", "<b>square " + std::to_string(s.side) + "</b>"}};\n}\n}')
        reply, out = run(kc, "#include <xcpp/xdisplay.hpp>\nxcpp::display(shapes::Square{3});\nshapes::Square four{4};\nfour")
        html = [c["data"].get("text/html") for t, c in out if t in ("display_data", "execute_result")]
        check(html == ["<b>square 3</b>", "<b>square 4</b>"],
              "xcpp::display and a last expression use the type's mime_bundle_repr (got %r)" % html)

        reply, out = run(kc, "int broken = no_such_name;")
        check(reply["status"] == "error" and reply["ename"] == "CompileError" and "no_such_name" in reply["evalue"]
              and any("error:" in line for line in reply["traceback"]),
              "a compile error is an error reply with clang's diagnostics (got %s: %s)"
              % (reply.get("ename"), reply.get("evalue")))
        reply, out = run(kc, 'std::cout << "after the error " << counter << std::endl;')
        check(reply["status"] == "ok" and stdout_of(out) == "after the error 42\n",
              "the cell after a compile error runs (got %s %r)" % (reply["status"], stdout_of(out)))

        reply, out = run(kc, '#include <stdexcept>\nthrow std::out_of_range("index 7 of 3");')
        check(reply["status"] == "error" and reply["ename"] == "std::out_of_range" and reply["evalue"] == "index 7 of 3",
              "an escaping exception is an error reply with its type and what() (got %s: %s)"
              % (reply.get("ename"), reply.get("evalue")))
        reply, out = run(kc, 'std::cout << "after the throw" << std::endl;')
        check(reply["status"] == "ok" and stdout_of(out) == "after the throw\n", "the cell after an exception runs")

        def interrupted(code, delay, what):
            """Sends code, interrupts after delay seconds; checks the error reply and that the next cell runs."""
            msg_id = kc.execute(code, stop_on_error=False)
            time.sleep(delay)
            km.interrupt_kernel()
            sent = time.monotonic()
            reply = None
            while time.monotonic() < sent + 30:
                try:
                    msg = kc.get_shell_msg(timeout=30)
                except queue.Empty:
                    break
                if msg["parent_header"].get("msg_id") == msg_id:
                    reply = msg["content"]
                    break
            took = time.monotonic() - sent
            check(reply is not None and reply["status"] == "error" and reply["ename"] == "Interrupted",
                  "Interrupt stops %s with an error reply (got %r after %.2f s)"
                  % (what, reply and (reply.get("ename"), reply.get("evalue")), took))
            return reply

        # An endless loop in the cell's own code: the handler jumps out at once.
        interrupted("volatile unsigned long spins = 0;\nwhile (true) { ++spins; }", 3, "an endless loop")
        reply, out = run(kc, 'std::cout << "alive, spun " << (spins > 0 ? "yes" : "no") << std::endl;', timeout=30)
        check(reply["status"] == "ok" and stdout_of(out) == "alive, spun yes\n",
              "the kernel survives the interrupt and runs the next cell (got %r)" % stdout_of(out))

        # An endless loop that spends its time in a library (OpenBLAS through libtapegrad, and
        # malloc): the interrupt must wait until the library returns to the cell's code, or it
        # would leave the library's locks held (the next matmul or malloc would hang).
        reply, out = run(kc, '#pragma cling add_include_path("%s")\n#pragma cling add_library_path("%s")\n'
                             '#pragma cling load("libtapegrad")\n#include <tapegrad/tapegrad.hpp>\n'
                             'tapegrad::Tensor big = tapegrad::ones({256, 256}, true);' % (args.include_dir, args.lib_dir))
        check(reply["status"] == "ok", "tapegrad loads (got %s %s)" % (reply["status"], reply.get("evalue")))
        for attempt in range(3):
            interrupted("while (true) { tapegrad::tape().clear(); tapegrad::Tensor p = tapegrad::matmul(big, big); }",
                        1 + attempt, "a loop inside OpenBLAS (try %d)" % (attempt + 1))
            reply, out = run(kc, 'tapegrad::tape().clear();\n'
                                 'std::cout << static_cast<long>(tapegrad::sum(tapegrad::matmul(big, big)).item())'
                                 ' << " " << (std::vector<double>(1000, 1.0).size()) << std::endl;', timeout=30)
            check(reply["status"] == "ok" and stdout_of(out) == "16777216 1000\n",
                  "after it, matmul and malloc still work (got %r)" % stdout_of(out))

        # A loop that spends its time in malloc and free (libc), which hold the heap's lock: a jump
        # from inside them would leave it held, and the next malloc would wait for ever.
        run(kc, "#include <cstdlib>\nvoid* blocks[1000];")
        for attempt in range(3):
            interrupted("while (true) {\n  for (int i = 0; i < 1000; ++i) blocks[i] = std::malloc(64 + (i * 37) % 4000);\n"
                        "  for (int i = 0; i < 1000; ++i) std::free(blocks[i]);\n}", 1 + attempt,
                        "a loop inside malloc and free (try %d)" % (attempt + 1))
            reply, out = run(kc, 'std::cout << std::vector<double>(100000, 1.0).size() << std::endl;', timeout=30)
            check(reply["status"] == "ok" and stdout_of(out) == "100000\n",
                  "after it, malloc still works (got %r)" % stdout_of(out))

        learner_checks(kc, km, args)

        # An interrupt while clang still compiles the cell: it stops the cell as soon as it starts.
        interrupted('#include <regex>\nwhile (true) {}', 0.05, "a cell that is still compiling")
        reply, out = run(kc, 'std::cout << "after the early interrupt" << std::endl;', timeout=30)
        check(reply["status"] == "ok" and stdout_of(out) == "after the early interrupt\n",
              "the cell after an interrupt during compilation runs (got %s %r)" % (reply.get("evalue"), stdout_of(out)))
        # An interrupt while the kernel is idle is dropped (it does not stop the next cell).
        km.interrupt_kernel()
        time.sleep(0.5)
        reply, out = run(kc, 'std::cout << "not interrupted" << std::endl;', timeout=30)
        check(reply["status"] == "ok" and stdout_of(out) == "not interrupted\n",
              "an interrupt while idle does not stop the next cell (got %s %r)" % (reply.get("ename"), stdout_of(out)))

        for code, want in (("int f() {", "incomplete"), ("int f() { return 1; }", "complete")):
            msg_id = kc.is_complete(code)
            msg = kc.get_shell_msg(timeout=30)
            check(msg["parent_header"].get("msg_id") == msg_id and msg["content"]["status"] == want,
                  "is_complete(%r) is %s (got %r)" % (code, want, msg["content"]))
        comp = kc.complete("coun", 4, reply=True, timeout=30)["content"]
        check("counter" in comp["matches"] and comp["cursor_start"] == 0,
              "completion offers names declared so far (got %r)" % comp["matches"])

        km.restart_kernel(now=False)
        kc.wait_for_ready(timeout=60)
        reply, out = run(kc, "counter")
        check(reply["status"] == "error", "after a restart the old state is gone")
        reply, out = run(kc, '#include <iostream>\nstd::cout << "fresh" << std::endl;')
        check(reply["status"] == "ok" and stdout_of(out) == "fresh\n", "after a restart the kernel runs cells")
    except queue.Empty:
        check(False, "the kernel answers every cell (one hung; the kernel's stacks follow)")
        print(kernel_stacks(km))
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=False)
    check(not km.is_alive(), "shutdown ends the kernel")

    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        f.write('{"shell_port": 1, "transport": ')
    proc = subprocess.run([args.kernel, "-f", f.name], capture_output=True, text=True, timeout=60)
    os.unlink(f.name)
    check(proc.returncode != 0 and "cannot read the connection file" in proc.stderr,
          "a malformed connection file: clear message, non-zero exit (rc %d, %r)" % (proc.returncode, proc.stderr[:200]))

    restart_and_run_all(args)
    precompiled_header_fallback(args)

    if failures:
        print("%d check(s) failed" % len(failures))
        return 1
    print("all kernel protocol checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
