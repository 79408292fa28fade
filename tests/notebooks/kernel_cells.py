#!/usr/bin/python3
"""Issue 34's cells (and issue 38's ?name), through jupyter_client as Jupyter sends them.

  kernel_cells.py --kernelspecs BUILD/share/jupyter --lib-dir BUILD --include-dir include

  - raw strings (with quotes, with a delimiter, over lines, assigned to a member), character literals
    with escapes, digit separators, prefixed strings, attributes: each cell runs and prints what it should;
  - a crash in a thread that a cell started: the cell's error, and the kernel lives on;
  - a cell whose brackets do not close (clang 22 crashed on it inside the kernel's wrapper): a
    CompileError of that cell, and the next cell runs;
  - a cell's value in cling's format: containers (sequence, associative, nested, long ones cut with
    `...`), pair, tuple, std::array, C arrays, optional, pointers, enums; a user's operator<< and
    mime_bundle_repr above them; numbers and strings as before;
  - ?name: the comment above a declaration (tapegrad::gelu, tapegrad::linear), names found through
    `using namespace`, and Shift-Tab (inspect_request) the same.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kernel_protocol as kp  # noqa: E402  (run, check, start_kernel, stdout_of)

check, run, stdout_of = kp.check, kp.run, kp.stdout_of


def results(out):
    return [c["data"] for t, c in out if t == "execute_result"]


def lexical_forms(kc):
    for code, want in (
            ('std::cout << R"(it\'s)" << std::endl;', "it's\n"),
            ('auto s34 = R"(a "quoted" \'x\' )";\nstd::cout << s34 << std::endl;', 'a "quoted" \'x\' \n'),
            ('std::cout << R"x(a )" b)x" << u8R"(it\'s {)" << std::endl;', 'a )" b' + "it's {\n"),
            ("std::cout << '\\'' << '\\\\' << 1'000'000 << ' ' << 0xFF'FF << std::endl;", "'\\1000000 65535\n"),
            ('[[maybe_unused]] int attr34 = 2;\nstd::cout << attr34 << sizeof(U"x\'") << std::endl;', "212\n"),
            ("auto twice34 = [k = 2](int x) -> int { return k * x; };\nstd::cout << twice34(4) << std::endl;", "8\n")):
        reply, out = run(kc, code)
        check(reply["status"] == "ok" and stdout_of(out) == want,
              "%r prints %r (got %s %s %r)" % (code[:50], want, reply["status"], reply.get("evalue", "")[:200],
                                              stdout_of(out)[:200]))
    # The display a learner updates from a raw string assigned to a member (issue 34's third cell).
    run(kc, "struct Rect34 { std::string m_content; };")
    run(kc, "Rect34 rect34;")
    reply, out = run(kc, "rect34.m_content = R\"(<div style='width: 10px; color: red'>\n  {it's}\n</div>)\";\n"
                         "std::cout << rect34.m_content.size() << std::endl;")
    check(reply["status"] == "ok" and stdout_of(out) == "53\n",
          "a multi-line raw string assigned to a member (got %s %s %r)" % (reply["status"], reply.get("evalue", "")[:200],
                                                                        stdout_of(out)))


def broken_brackets(kc):
    # Today's kernel put this into its wrapper function, and clang 22 crashed at the end of the input.
    reply, out = run(kc, "auto b34 = (1;\nstd::cout << b34 << std::endl;")
    check(reply["status"] == "error" and reply.get("ename") == "CompileError",
          "a cell whose brackets do not close is a CompileError (got %s %s: %s)"
          % (reply["status"], reply.get("ename"), reply.get("evalue", "")[:200]))
    reply, out = run(kc, 'std::cout << "after it" << std::endl;')
    check(reply["status"] == "ok" and stdout_of(out) == "after it\n", "the cell after it runs (got %r)" % stdout_of(out))


def thread_crash(kc):
    # A crash in a thread the cell started killed the kernel; now it is the cell's error.
    reply, out = run(kc, "#include <thread>\nstd::thread crasher34([] { volatile int* p = nullptr; *p = 1; });\n"
                         "crasher34.join();")
    check(reply["status"] == "error" and reply.get("ename") == "SegmentationFault",
          "a crash in a thread the cell started is the cell's error (got %s %s)" % (reply["status"], reply.get("ename")))
    reply, out = run(kc, 'std::cout << "alive after the thread" << std::endl;')
    check(reply["status"] == "ok" and stdout_of(out) == "alive after the thread\n",
          "the kernel lives on after it (got %s %r)" % (reply["status"], stdout_of(out)))


def values(kc):
    run(kc, "#include <array>\n#include <map>\n#include <optional>\n#include <string_view>\n#include <tuple>\n"
            "#include <unordered_map>\n#include <vector>")
    run(kc, 'std::vector<std::string> a34 = {"a", "b", "c"};')
    run(kc, "std::map<int, int> m34{{0, 1}, {1, 2}};")
    run(kc, "int carr34[3] = {4, 5, 6};")
    run(kc, "int* nptr34 = nullptr;")
    run(kc, "enum Color34 { red34, green34 };")
    run(kc, "enum class Mode34 : unsigned char { on = 3, off };")
    run(kc, "struct Pt34 { int x; };")
    run(kc, 'std::ostream& operator<<(std::ostream& o, const Pt34& p) { return o << "Pt34(" << p.x << ")"; }')
    for code, want in (
            ("std::vector<int>{1, 2, 3}", "(std::vector<int>) { 1, 2, 3 }"),
            ("a34", '(std::vector<std::string> &) { "a", "b", "c" }'),
            ("m34", "(std::map<int, int> &) { 0 => 1, 1 => 2 }"),
            ("std::vector<std::vector<int>>{{1}, {}}", "(std::vector<std::vector<int> >) { { 1 }, {} }"),
            ("std::unordered_map<std::string, bool>{{\"k\", true}}", '(std::unordered_map<std::string, bool>) { "k" => true }'),
            ("std::make_pair(4L, 'c')", "(std::pair<long, char>) { 4, 'c' }"),
            ("std::make_tuple(1, std::make_tuple(1, 'c'))", "(std::tuple<int, std::tuple<int, char> >) { 1, { 1, 'c' } }"),
            ("std::tuple<>()", "(std::tuple<>) {}"),
            ("std::array<int, 3>{42, 43, 44}", "(std::array<int, 3>) { 42, 43, 44 }"),
            ("carr34", "(int[3] &) { 4, 5, 6 }"),
            ("std::optional<int>{3}", "(std::optional<int>) std::optional -> 3"),
            ("std::optional<int>{}", "(std::optional<int>) std::nullopt"),
            ('std::vector<std::string_view>{"x"}', '(std::vector<std::string_view>) { "x" }'),
            ("nptr34", "(int *) nullptr"),
            ("green34", "(Color34) (Color34::green34) : (unsigned int) 1"),
            ("Mode34::off", "(Mode34) (Mode34::off) : (unsigned char) 4"),
            ("std::vector<double>{0.5}", "(std::vector<double>) { 0.50000000 }"),
            ("std::vector<int>(2000, 7)", "(std::vector<int>) { 7, 7, 7, ..., 7, 7, 7 }"),
            ("Pt34{3}", "Pt34(3)"),
            ("std::vector<Pt34>{{1}, {2}}", "(std::vector<Pt34>) { Pt34(1), Pt34(2) }"),
            ("6 * 7", "(int) 42"),
            ('std::string("as before")', '(std::string) "as before"')):
        reply, out = run(kc, code)
        got = [r.get("text/plain") for r in results(out)]
        check(reply["status"] == "ok" and got == [want],
              "%s shows %s (got %r %s)" % (code, want, got, reply.get("evalue", "")[:200]))
    reply, out = run(kc, "&carr34[0]")
    got = [r.get("text/plain", "") for r in results(out)]
    check(len(got) == 1 and got[0].startswith("(int *) 0x"), "a pointer shows its type and address (got %r)" % got)
    # mime_bundle_repr above all (rich display), even for a type with an operator<<.
    run(kc, "struct Rich34 {};")
    run(kc, 'std::ostream& operator<<(std::ostream& o, const Rich34&) { return o << "plain"; }\n'
            'nl::json mime_bundle_repr(const Rich34&) { return {{"text/html", "<b>rich</b>"}}; }')
    reply, out = run(kc, "Rich34{}")
    check([r.get("text/html") for r in results(out)] == ["<b>rich</b>"] and "plain" not in str(results(out)),
          "mime_bundle_repr wins over operator<< (got %r)" % results(out))


def help_texts(kc):
    for code, want in (("?tapegrad::gelu", "// approximate = \"none\""), ("?tapegrad::linear", "// y = x W")):
        reply, out = run(kc, code)
        check(reply["status"] == "ok" and want in stdout_of(out) and "Tensor" in stdout_of(out),
              "%s shows the comment just above it (got %r)" % (code, stdout_of(out)[:300]))
    run(kc, "using namespace tapegrad;")
    reply, out = run(kc, "?layer_norm")
    check(reply["status"] == "ok" and "Tensor layer_norm(const Tensor& x" in stdout_of(out),
          "?layer_norm after `using namespace tapegrad;` (got %s %r)" % (reply.get("evalue"), stdout_of(out)[:200]))
    code = "auto y = gelu(x);"
    kc.inspect(code, cursor_pos=code.index("gelu") + 2)
    reply = kc.get_shell_msg(timeout=60)["content"]
    text = reply.get("data", {}).get("text/plain", "")
    check(reply.get("found") and "Tensor gelu(" in text and "// approximate" in text,
          "Shift-Tab on gelu after `using namespace tapegrad;` (got %r)" % text[:200])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kernelspecs", required=True)
    ap.add_argument("--lib-dir", required=True, help="the folder of libtapegrad.so")
    ap.add_argument("--include-dir", required=True, help="tapegrad's include folder")
    args = ap.parse_args()
    args.lib_dir, args.include_dir = os.path.abspath(args.lib_dir), os.path.abspath(args.include_dir)
    os.environ["JUPYTER_PATH"] = args.kernelspecs

    def checks(kc):
        reply, out = run(kc, '#pragma cling add_include_path("%s")\n#pragma cling add_library_path("%s")\n'
                             '#pragma cling load("libtapegrad")\n#include <tapegrad/tapegrad.hpp>\n#include <iostream>\n'
                             '#include <string>' % (args.include_dir, args.lib_dir), timeout=300)
        check(reply["status"] == "ok", "tapegrad loads (got %s)" % reply.get("evalue"))
        lexical_forms(kc)
        broken_brackets(kc)
        thread_crash(kc)
        values(kc)
        help_texts(kc)

    return kp.with_kernel(checks)


if __name__ == "__main__":
    sys.exit(main())
