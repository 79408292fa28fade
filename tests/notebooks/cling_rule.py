#!/usr/bin/env python3
"""Check that notebook cells follow xeus-cling's rule for definitions.

cling compiles a cell by wrapping its statements in a function. Which part it wraps is
decided by cling's getWrapPoint (lib/Utils/SourceNormalization.cpp), on tokens, before
parsing; this file follows it step by step:
  * preprocessor lines and comments are skipped;
  * a cell whose first token is `namespace`, `extern` or `template` is not wrapped at all;
  * `using ...;` first: everything after its `;` is wrapped;
  * a function or class definition first (`T f(...) {`, `A::B f(...) {`, `struct S {`):
    everything after its closing `}` (and `;`) is wrapped;
  * anything else first: the whole cell is wrapped.
A function, class or template definition in the wrapped part is then an error in
xeus-cling ("function definition is not allowed here"). clang-repl and this project's
kernel accept such cells, so only this check keeps the notebooks working in xeus-cling.
The fix: give each definition its own cell (or make it the first thing in the cell).

  cling_rule.py notebooks/*.ipynb          exit 1 and list the cells that break the rule
  cling_rule.py --expect-violation NB      exit 0 only if NB breaks it (tests the checker)
"""

import json
import re
import sys

TOKEN_RE = re.compile(r"""
    (?P<ws>\s+)
  | (?P<comment>//[^\n]*|/\*.*?\*/)
  | (?P<string>R"(?P<delim>[^(\s]*)\(.*?\)(?P=delim)"|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*')
  | (?P<ident>[A-Za-z_]\w*)
  | (?P<number>\.?\d(?:[\w.']|[eEpP][+-])*)
  | (?P<punct>::|>>|<<|->|\.\.\.|[^\s])
""", re.VERBOSE | re.DOTALL)


def tokens_of(source):
    """[(kind, text, line)]; a preprocessor line is one ('pp', text, line) token."""
    out, pos, line, at_line_start = [], 0, 1, True
    while pos < len(source):
        if at_line_start:
            m = re.match(r"[ \t]*#(?:[^\n\\]|\\.)*", source[pos:], re.DOTALL)
            if m:
                out.append(("pp", m.group(0).strip(), line))
                line += m.group(0).count("\n")
                pos += m.end()
                continue
        m = TOKEN_RE.match(source, pos)
        kind = m.lastgroup if m.lastgroup != "delim" else "string"
        text = m.group(0)
        if kind not in ("ws", "comment"):
            out.append((kind, text, line))
        newlines = text.count("\n")
        line += newlines
        at_line_start = newlines > 0 and kind in ("ws", "comment") and text.endswith("\n") or \
            (kind == "ws" and "\n" in text and text[text.rfind("\n") + 1:].strip(" \t") == "")
        pos = m.end()
    return out


class Lexer:
    """The token stream with cling's MinimalPPLexer helpers (CheckBalance, SkipScopes, ...)."""

    def __init__(self, toks, start):
        self.toks, self.i = toks, start

    def tok(self):
        return self.toks[self.i] if self.i < len(self.toks) else ("eof", "", 0)

    def text(self):
        return self.tok()[1]

    def lex(self):  # LexClean: False at the end
        self.i += 1
        return self.i < len(self.toks)

    def is_ident(self):
        return self.tok()[0] == "ident"

    def check_balance(self):
        opening = self.text()
        closing = {"(": ")", "{": "}", "[": "]", "<": ">"}[opening]
        depth = 1
        while depth and self.lex():
            if self.text() == closing:
                depth -= 1
            elif self.text() == opening:
                depth += 1
        return depth == 0

    def skip_scopes(self):
        while self.text() == "::":
            if not self.lex() or not self.is_ident():
                return False
            if not self.lex():
                return False
        return True

    def skip_pointer_refs(self):
        while not self.is_ident():
            if self.text() not in ("*", "&"):
                return False
            if not self.lex():
                return False
        return True

    def skip_identifier(self):
        if not self.is_ident():
            if not self.skip_scopes() or not self.skip_pointer_refs():
                return False
        if not self.is_ident():
            return False
        if not self.lex():
            return False
        return self.skip_scopes()

    def advance_to(self, text):
        while self.lex():
            if self.text() == text:
                return True
        return False

    def class_or_function(self):
        """cling's IsClassOrFunction at the current token: (kind, has_body) with kind None,
        'function' or 'class'; on success the lexer stands on the body's '{' (or the end)."""
        first = self.text()
        if not self.is_ident():
            return None, True
        if not self.lex() or self.text() == "(":
            return None, True
        ctor = dtor = False
        if self.text() == "::":
            ident = ""
            while True:
                if not self.lex():
                    return None, True
                if self.is_ident():
                    if ident:
                        first = ident
                    ident = self.text()
                    if not self.lex():
                        return None, True
                    if self.text() == "<":
                        if not self.check_balance() or not self.lex():
                            return None, True
                if self.text() != "::":
                    break
            if self.text() == "~":
                dtor = True
                if not self.lex():
                    return None, True
                if ident:
                    first = ident
                ident = self.text() if self.is_ident() else ""
                if not ident or not self.lex():
                    return None, True
            else:
                ctor = True
            if first != ident:
                if not self.skip_pointer_refs() or not self.lex() or not self.skip_scopes():
                    return None, True
                ctor = dtor = False
        else:
            seen_sign = False
            if first in ("struct", "class"):
                while True:
                    if not self.is_ident() or not self.lex():
                        return None, True
                    if not (self.text() == "::" and self.lex()):
                        break
                if self.text() == "{":
                    return "class", True
                if self.text() == ":":
                    return ("class", True) if self.advance_to("{") else (None, True)
            elif first in ("static", "constexpr", "inline", "const"):
                if self.text() in ("signed", "unsigned"):
                    seen_sign = True
                if not self.lex():
                    return None, True
            elif first in ("signed", "unsigned"):
                seen_sign = True
            if not self.skip_identifier():
                return None, True
            if seen_sign and self.text() != "(" and not self.skip_identifier():
                return None, True
        if self.text() != "(" or not self.check_balance() or not self.lex():
            return None, True
        if self.text() == "{":
            return "function", True
        if ctor and self.text() == ":":
            return ("function", True) if self.advance_to("{") else (None, True)
        if (ctor or dtor) and self.text() == "=":
            return None, True  # `= default;`: no body to skip (rare in notebooks)
        if not ctor and self.text() == "const":
            if self.lex() and self.text() == "{":
                return "function", True
        return None, True


def wrap_point(toks):
    """Index of the first token cling wraps into a function, or None if it wraps nothing."""
    i = 0
    while i < len(toks) and toks[i][0] == "pp":
        i += 1
    if i == len(toks):
        return None
    first = toks[i][1]
    if first == "using":
        lx = Lexer(toks, i)
        return lx.i + 1 if lx.advance_to(";") else None
    if first in ("extern", "namespace", "template"):
        return None
    if toks[i][0] != "ident":
        return i
    lx = Lexer(toks, i)
    kind, has_body = lx.class_or_function()
    if kind is None:
        return i
    if has_body and not lx.check_balance():
        return i
    if not lx.lex():
        return None
    if lx.text() == ";":
        return lx.i if lx.lex() else None
    if kind == "class":  # `struct T {} t;`: the declarator ends at the next ';'
        return lx.i if lx.advance_to(";") and lx.lex() else None
    return lx.i


STATEMENT_KEYWORDS = {"if", "else", "for", "while", "do", "switch", "return", "try", "catch", "throw", "case",
                      "default", "break", "continue", "goto", "delete", "new", "sizeof", "co_return", "co_await"}


def definitions_in_wrapped_part(toks, start):
    """[(line, what)] for each function/class/template definition at the top level of toks[start:]."""
    found = []
    i, depth, at_statement_start = start, 0, True
    while i < len(toks):
        kind, text, line = toks[i]
        if depth == 0 and at_statement_start and kind != "pp":
            if text in STATEMENT_KEYWORDS:
                pass  # `else if (...) {` is not `T f(...) {`
            elif text == "template":
                found.append((line, "a template"))
            else:
                lx = Lexer(toks, i)
                what, _ = lx.class_or_function()
                if what is not None:
                    found.append((line, "a %s definition (%s)" % (what, text if text not in ("struct", "class")
                                                                  else " ".join(t[1] for t in toks[i:i + 2]))))
            at_statement_start = False
        if text in ("(", "[", "{"):
            depth += 1
        elif text in (")", "]", "}"):
            depth -= 1
            if depth == 0 and text == "}":
                at_statement_start = True
        elif text == ";" and depth == 0:
            at_statement_start = True
        i += 1
    return found


def violations(nb):
    """[(cell index, message)] for the code cells that break the rule."""
    out = []
    for index, cell in enumerate(nb.get("cells", [])):
        if cell.get("cell_type") != "code":
            continue
        src = cell.get("source", "")
        src = "".join(src) if isinstance(src, list) else src
        toks = tokens_of(src)
        start = wrap_point(toks)
        if start is None:
            continue
        for line, what in definitions_in_wrapped_part(toks, start):
            out.append((index, "cell %d, line %d: %s after a statement (or after another definition): "
                               "xeus-cling wraps it into a function and rejects it; give it its own cell"
                        % (index, line, what)))
    return out


def main(argv):
    expect_violation = "--expect-violation" in argv
    paths = [a for a in argv if a != "--expect-violation"]
    if not paths:
        print(__doc__)
        return 2
    status = 0
    for path in paths:
        with open(path, encoding="utf-8") as f:
            found = violations(json.load(f))
        if expect_violation:
            if found:
                print("%s: breaks the rule, as expected: %s" % (path, found[0][1]))
            else:
                print("%s: expected a cell that breaks the rule, found none" % path)
                status = 1
        elif found:
            status = 1
            print("%s: cells that xeus-cling rejects:" % path)
            for _, message in found:
                print("  " + message)
        else:
            print("%s: every cell follows cling's rule" % path)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
