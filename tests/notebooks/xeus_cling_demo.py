#!/usr/bin/python3
"""xeus-cling's demo cells, through jupyter_client (issue 34): written by us in the spirit of xeus-cling's
own notebook (notebooks/xcpp.ipynb there), each cell with the output it must give.

  xeus_cling_demo.py --kernelspecs BUILD/share/jupyter --lib-dir BUILD --include-dir include

Output and errors, functions, classes and polymorphism, templates with a specialisation, C++11
constructors, a vector shown as the cell's value, ?std::vector, a mime_bundle_repr of one's own (an
image), xcpp::display with a display id and its update from a raw HTML string, %timeit, xtensor and
xtensor-blas.
"""

import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kernel_protocol as kp  # noqa: E402

check, run, stdout_of = kp.check, kp.run, kp.stdout_of


def outputs_of(out, kind):
    return [c for t, c in out if t == kind]


def plain_results(out):
    return [c["data"].get("text/plain") for c in outputs_of(out, "execute_result")]


CELLS = [
    # (cell, check(reply, out) -> bool, what it must give)
    ('#include <iostream>\nstd::cout << "some output" << std::endl;',
     lambda r, o: stdout_of(o) == "some output\n", "stdout"),
    ('std::cerr << "some error" << std::endl;',
     lambda r, o: any(c["name"] == "stderr" and "some error" in c["text"] for c in outputs_of(o, "stream")), "stderr"),
    ('#include <stdexcept>\nthrow std::runtime_error("Unknown exception");',
     lambda r, o: r["status"] == "error" and r["ename"] == "std::runtime_error" and r["evalue"] == "Unknown exception",
     "an exception as the cell's error"),
    ("int j = 5;\nstd::cout << j << std::endl;", lambda r, o: stdout_of(o) == "5\n", "the cell after it runs"),
    ("double sqr(double a)\n{\n    return a * a;\n}", lambda r, o: r["status"] == "ok", "a function"),
    ("double a = 2.5;\ndouble asqr = sqr(a);\nasqr", lambda r, o: plain_results(o) == ["(double) 6.2500000"], "its value"),
    ("class Foo\n{\npublic:\n    virtual ~Foo() {}\n    virtual void print(double value) const\n    {\n"
     '        std::cout << "Foo value = " << value << std::endl;\n    }\n};', lambda r, o: r["status"] == "ok", "a class"),
    ("Foo bar;\nbar.print(1.2);", lambda r, o: stdout_of(o) == "Foo value = 1.2\n", "its method"),
    ("class Bar : public Foo\n{\npublic:\n    virtual ~Bar() {}\n    virtual void print(double value) const\n    {\n"
     '        std::cout << "Bar value = " << 2 * value << std::endl;\n    }\n};', lambda r, o: r["status"] == "ok",
     "a derived class"),
    ("Foo* bar2 = new Bar;\nbar2->print(1.2);\ndelete bar2;", lambda r, o: stdout_of(o) == "Bar value = 2.4\n",
     "polymorphism"),
    ("#include <typeinfo>\ntemplate <class T>\nclass FooT\n{\npublic:\n    explicit FooT(const T& t) : m_t(t) {}\n"
     '    void print() const\n    {\n        std::cout << typeid(T).name() << " m_t = " << m_t << std::endl;\n    }\n'
     "private:\n    T m_t;\n};", lambda r, o: r["status"] == "ok", "a class template"),
    ('template <>\nvoid FooT<int>::print() const\n{\n    std::cout << "m_t = " << m_t << std::endl;\n}',
     lambda r, o: r["status"] == "ok", "its specialisation"),
    ("FooT<double> foot1(1.2);\nfoot1.print();", lambda r, o: stdout_of(o) == "d m_t = 1.2\n", "the template"),
    ("FooT<int> foot2(4);\nfoot2.print();", lambda r, o: stdout_of(o) == "m_t = 4\n", "the specialisation"),
    ('class Foo11\n{\npublic:\n    Foo11() { std::cout << "Foo11 default constructor" << std::endl; }\n'
     '    Foo11(const Foo11&) { std::cout << "Foo11 copy constructor" << std::endl; }\n'
     '    Foo11(Foo11&&) { std::cout << "Foo11 move constructor" << std::endl; }\n};',
     lambda r, o: r["status"] == "ok", "C++11 constructors"),
    ("Foo11 f1;\nFoo11 f2(f1);\nFoo11 f3(std::move(f1));",
     lambda r, o: stdout_of(o) == "Foo11 default constructor\nFoo11 copy constructor\nFoo11 move constructor\n",
     "which constructor runs"),
    ("#include <vector>\nstd::vector<int> v = {1, 2, 3};\nauto iter = ++v.begin();\nv",
     lambda r, o: plain_results(o) == ["(std::vector<int> &) { 1, 2, 3 }"], "a vector as the cell's value"),
    ("*iter", lambda r, o: plain_results(o) == ["(int) 2"], "an iterator's element"),
    ("for (auto a : v) { std::cout << a << std::endl; }", lambda r, o: stdout_of(o) == "1\n2\n3\n", "a range for"),
    ("?std::vector", lambda r, o: "stl_vector.h" in stdout_of(o) and "class vector" in stdout_of(o), "help"),
    ('#include <string>\n#include <sstream>\n#include "xtl/xbase64.hpp"\n#include "nlohmann/json.hpp"\n'
     "namespace nl = nlohmann;\nnamespace im\n{\n    struct image\n    {\n"
     "        explicit image(const std::string& bytes) { m_buffer << bytes; }\n        std::stringstream m_buffer;\n"
     "    };\n    nl::json mime_bundle_repr(const image& i)\n    {\n        auto bundle = nl::json::object();\n"
     '        bundle["image/png"] = xtl::base64encode(i.m_buffer.str());\n        return bundle;\n    }\n}',
     lambda r, o: r["status"] == "ok", "a mime_bundle_repr of one's own"),
    ('im::image dot("\\x89PNG tiny");\ndot', lambda r, o: [c["data"].get("image/png") for c in outputs_of(o, "execute_result")]
     == ["iVBORyB0aW55"], "the image as the cell's value"),
    ("#include \"xcpp/xdisplay.hpp\"\nxcpp::display(dot);",
     lambda r, o: [c["data"].get("image/png") for c in outputs_of(o, "display_data")] == ["iVBORyB0aW55"],
     "xcpp::display"),
    ("namespace ht\n{\n    struct html\n    {\n        inline html(const std::string& content) { m_content = content; }\n"
     "        std::string m_content;\n    };\n    nl::json mime_bundle_repr(const html& a)\n    {\n"
     '        auto bundle = nl::json::object();\n        bundle["text/html"] = a.m_content;\n        return bundle;\n'
     "    }\n}\n\nht::html rect(R\"(\n<div style='width: 90px; height: 50px; background-color: blue; color: white;'>\n"
     "Original\n</div>)\");", lambda r, o: r["status"] == "ok", "an HTML type, made from a raw string"),
    ('xcpp::display(rect, "some_display_id");',
     lambda r, o: [(c["transient"].get("display_id"), "Original" in c["data"].get("text/html", ""))
                   for c in outputs_of(o, "display_data")] == [("some_display_id", True)], "a display with an id"),
    ("rect.m_content = R\"(\n<div style='width: 90px; height: 50px; background-color: red; color: white;'>\n"
     'Updated\n</div>)";\nxcpp::display(rect, "some_display_id", true);',
     lambda r, o: r["status"] == "ok" and r.get("ename") is None, "its update from a raw string (issue 34)"),
    ("%timeit sqr(2.0);", lambda r, o: re.search(r"per loop \(mean \+- std\. dev\. of 7 runs \d+ loops? each\)",
                                                 stdout_of(o)) is not None, "%timeit"),
    ("#include <xtensor/xarray.hpp>\n#include <xtensor/xio.hpp>\n#include <xtensor/xview.hpp>\n"
     "xt::xarray<double> arr1{{1.0, 2.0, 3.0}, {2.0, 5.0, 7.0}, {2.0, 5.0, 7.0}};\n"
     "xt::xarray<double> arr2{5.0, 6.0, 7.0};\nxt::view(arr1, 1) + arr2",
     lambda r, o: plain_results(o) == ["{  7.,  11.,  14.}"], "xtensor"),
    ('#pragma cling load("libopenblas")\n#include <xtensor-blas/xlinalg.hpp>\n'
     "xt::xarray<double> m{{1.0, 2.0}, {3.0, 4.0}};\nxt::xarray<double> d = xt::linalg::dot(m, m);\n"
     'std::cout << d << std::endl;', lambda r, o: stdout_of(o) == "{{  7.,  10.},\n { 15.,  22.}}\n", "xtensor-blas"),
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kernelspecs", required=True)
    args = ap.parse_args()
    os.environ["JUPYTER_PATH"] = args.kernelspecs

    def checks(kc):
        for code, ok, what in CELLS:
            reply, out = run(kc, code, timeout=300)
            got = "%s %s %s | %r | %r" % (reply["status"], reply.get("ename"), reply.get("evalue", "")[:150],
                                          stdout_of(out)[:150], [c.get("data") for t, c in out if t != "stream"][:2])
            check(ok(reply, out), "%s: %r (got %s)" % (what, code.split("\n")[-1][:50], got[:400]))

    return kp.with_kernel(checks)


if __name__ == "__main__":
    sys.exit(main())
