#!/usr/bin/python3
"""Protocol tests for the tapegrad-xcpp kernel, through jupyter_client (as Jupyter talks to it).

  kernel_protocol.py --kernelspecs BUILD/share/jupyter --kernel BUILD/kernel/tapegrad-xcpp \
                     --lib-dir BUILD --include-dir include

Each check starts from a running kernel and says what it expected when it fails:
state carried across cells, stream output in order, a result's text and rich display, a
compile error and the cell after it, an escaping exception and the cell after it, an
interrupted endless loop (in the cell's own code, inside OpenBLAS, inside malloc, while the cell
still compiles, or idle) and the cell after it, a restart, kernel_info / is_complete /
completion, and a malformed connection file (a clear message, a non-zero exit status).
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


def kernel_stacks(km):
    """The kernel's threads' stacks (gdb), printed when a cell hangs, so the failure says where."""
    try:
        return subprocess.run(["gdb", "-batch", "-p", str(km.provisioner.process.pid), "-ex", "thread apply all bt 25"],
                              capture_output=True, text=True, timeout=60).stdout
    except (OSError, AttributeError, subprocess.TimeoutExpired) as e:
        return "(no stacks: %s)" % e


def stdout_of(outputs):
    return "".join(c["text"] for t, c in outputs if t == "stream" and c["name"] == "stdout")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kernelspecs", required=True)
    ap.add_argument("--kernel", required=True, help="the tapegrad-xcpp program (for the malformed-file check)")
    ap.add_argument("--lib-dir", required=True, help="the folder of libtapegrad.so")
    ap.add_argument("--include-dir", required=True, help="tapegrad's include folder")
    args = ap.parse_args()
    os.environ["JUPYTER_PATH"] = os.path.abspath(args.kernelspecs)

    km = jupyter_client.KernelManager(kernel_name="xcpp17")
    km.start_kernel(cwd=tempfile.gettempdir())
    kc = km.client()
    kc.start_channels()
    try:
        kc.wait_for_ready(timeout=60)
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
        check(len(results) == 1 and results[0]["data"].get("text/plain") == "42",
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

    if failures:
        print("%d check(s) failed" % len(failures))
        return 1
    print("all kernel protocol checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
