#!/usr/bin/python3
"""Writes the exercise notebooks notebooks/exercise_<group>.ipynb from the exercise files (exercises/NN_*.cpp) and
the exercise table (exercises/table.tsv: which exercise is in which notebook): the statement is each file's leading
comment, the cells to fill in are a cell for the learner's helpers and each of the file's functions (one per cell:
xeus-cling's rule), and a check cell per exercise calls the grader as scripts/exercise.sh does. An exercise built on
earlier ones (the blocks #include the LayerNorm exercises) gets their functions as cells first. One source for all:
after editing an exercise file or the table, run this again (the test exercise.notebooks_up_to_date fails until then).

  tools/exercise_notebooks.py            write the notebooks
  tools/exercise_notebooks.py --check    exit 1, naming them, if a committed notebook differs

Each notebook also in Chinese, notebooks/zh/exercise_<group>.ipynb: the same cells, its title, introduction and
setup text in Chinese, the report in Chinese (lang = "zh"), the paths one folder deeper. The statements are the
exercise files' own, which give each line in both languages.

notebooks/exercise_layer_norm.ipynb (exercises 2 and 3) has its own source (notebooks/source/, tools/notebooks.py).
"""

import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
from exercise_cells import split_definitions  # noqa: E402
from exercise_table import exercises  # noqa: E402  (exercises/table.tsv)
from notebooks import code_cell, markdown_cell, text_of  # noqa: E402  (the notebook file format, shared)

EXERCISES = {e.name: e for e in exercises()}
HAND_WRITTEN = {"exercise_layer_norm"}
TITLES = {  # (English, 中文)
    "exercise_residual_and_norms": ("The residual, RMSNorm and BatchNorm by hand", "手撕残差、RMSNorm 和 BatchNorm"),
    "exercise_ffn_and_blocks": ("The FFN and the Add & Norm, Post-Norm and Pre-Norm blocks by hand",
                                "手撕 FFN 与 Add & Norm、Post-Norm、Pre-Norm 块"),
    "exercise_softmax_attention_adam": ("Softmax, attention and Adam by hand", "手撕 softmax、注意力和 Adam"),
    "exercise_softmax_cross_entropy": ("The safe and the online softmax, and cross-entropy, by hand",
                                       "手撕安全 softmax、在线 softmax 和交叉熵"),
    "exercise_multi_head_attention": ("Multi-head attention with masks, its backward, and GQA by hand",
                                      "手撕带掩码的多头注意力、它的反向和 GQA"),
    "exercise_rope": ("RoPE forward and backward by hand", "手撕 RoPE 前向和反向"),
    "exercise_llm_parts": ("A language model's parts by hand: the KV cache, SwiGLU, LoRA, dropout and sampling",
                           "手撕语言模型的部件：KV cache、SwiGLU、LoRA、dropout 和采样"),
    "exercise_llama_block": ("A LLaMA block from your own parts by hand: Pre-RMSNorm, RoPE, GQA and SwiGLU",
                             "用你自己的零件手撕 LLaMA 块：Pre-RMSNorm、RoPE、GQA 和 SwiGLU"),
}


def groups():
    """notebook -> its exercises, in the table's order; every notebook the table names has a title here."""
    out = {}
    for e in exercises():
        if e.notebook in HAND_WRITTEN:
            continue
        if e.notebook not in TITLES:
            raise SystemExit("exercise_notebooks.py: exercises/table.tsv names notebook %s, which has no title in TITLES"
                             % e.notebook)
        out.setdefault(e.notebook, []).append(e.name)
    return out


# The prose of a notebook, per language: (English, 中文).
INTRO = ("""Write each forward and backward yourself, on plain arrays, and let the grader tell you whether they are
right and, if not, **which mistake** you made. 自己写前向和反向，检查器会告诉你对不对；不对的话，告诉你**犯了哪个错误**。

Fill in an exercise cell (replace the `throw`), run it, then run the check cell below it: a table of the cases
(green passed, red did not) and a diagnosis with a hint. Your code runs in a child process, so a crash or an
endless loop is reported and the notebook lives on. Fix, re-run your cell, re-run the check. The same
exercises are files in `exercises/` (`scripts/exercise.sh check <name>`); LayerNorm has its own notebook,
`exercise_layer_norm.ipynb`. Helpers of your own (an activation, a matrix product) go in the helpers cell above
an exercise's functions: definitions only, one cell of them, run before the functions that use them.""",
         """自己在普通数组上写每个前向和反向，检查器会告诉你对不对；不对的话，告诉你**犯了哪个错误**。

填好一个练习单元格（把 `throw` 换掉），运行它，再运行它下面的检查单元格：你会看到一张测试用例表（绿色通过，红色未通过），
以及带提示的诊断。你的代码在子进程里运行，所以崩溃或死循环都会被报告出来，notebook 不受影响。改好后，重新运行你的单元格，
再重新运行检查。同样的练习也是 `exercises/` 里的文件（`scripts/exercise.sh check <name> --lang zh`）；LayerNorm 有自己的
notebook：`exercise_layer_norm.ipynb`。你自己的辅助函数（一个激活函数、一个矩阵乘法）放在练习函数上方的辅助函数单元格里：
只写定义，放在一个单元格里，并在用到它们的函数之前运行。""")
SETUP = ("## Setup\n\nThe pragmas point the interpreter at tapegrad's headers and library, and the exercises' grader's "
         "(paths relative to `notebooks/`).",
         "## 准备\n\n这些 pragma 告诉解释器 tapegrad 和练习评分器的头文件和库在哪里（路径相对于 `notebooks/zh/`）。")
LANGUAGE = ('The report\'s language: `"en"` or `"zh"` (中文). 报告的语言：`"en"` 或 `"zh"`。',
            '报告的语言：`"zh"`（中文）或 `"en"`（英文）。')
HEADING = ("# Exercises: ", "# 练习：")
NEXT = ("## Next\n\nThe report's last line, `result: pass` or `result: fail diagnosis=<id>`, is what "
        "`scripts/exercise.sh check` prints too.",
        "## 接下来\n\n报告的最后一行 `result: pass` 或 `result: fail diagnosis=<id>` 和 `scripts/exercise.sh check` "
        "打印的一样。")
LANGUAGES = {"en": 0, "zh": 1}


markdown, code = markdown_cell, code_cell


def exercise_file(name):
    folder = os.path.join(ROOT, "exercises")
    return os.path.join(folder, "%02d_%s.cpp" % (EXERCISES[name].number, name))


# `#include "02_layer_norm_forward.cpp"`: an exercise file built on an earlier one.
INCLUDED_EXERCISE = re.compile(r'^#include "(\d\d)_(\w+)\.cpp"', re.M)


def statement(path):
    """The leading comment as markdown: its first two lines (English, Chinese) the heading, the rest as text."""
    comment = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.startswith("//"):
                break
            comment.append(line[2:].rstrip("\n")[1:] if line.startswith("// ") else line[2:].rstrip("\n"))
    title, chinese = comment[0], comment[1]
    body = [l for l in comment[2:] if not l.startswith("Check it:")]
    while body and not body[0].strip():
        body.pop(0)
    return "## %s\n\n*%s*\n\n```text\n%s\n```" % (title, chinese, "\n".join(body).rstrip())


def check_calls(name):
    """The check cells: scripts/exercise.sh's call with the report's language; the blocks' combine() split."""
    call = EXERCISES[name].parts
    calls = re.findall(r"check_\w+\([^()]*\bo\)", call)
    return ["ex::" + c[:-2] + "{lang})" for c in calls]


def notebook(group, lang="en"):
    """The cells of notebooks/exercise_<group>.ipynb ("en") or notebooks/zh/exercise_<group>.ipynb ("zh")."""
    at, names = LANGUAGES[lang], groups()[group]
    title = TITLES[group][at] if lang == "zh" else "%s (%s)" % TITLES[group]
    up = "../../" if lang == "zh" else "../"
    # The files' `using` lines (tapegrad::Array, the gradients' structs), once, in the setup cell.
    usings = []
    for name in names:
        with open(exercise_file(name), encoding="utf-8") as f:
            text = f.read()
        for _, earlier in INCLUDED_EXERCISE.findall(text):
            with open(exercise_file(earlier), encoding="utf-8") as f:
                text = f.read() + text
        usings += [u for u in re.findall(r"^using [\w:]+;$", text, re.M) if u not in usings]
    cells = [markdown(HEADING[at] + title + "\n\n" + INTRO[at]),
             markdown(SETUP[at]),
             code('#pragma cling add_include_path("%sinclude")\n'
                  '#pragma cling add_include_path("%sexercises/grader/include")\n#pragma cling add_library_path("%sbuild")\n'
                  '#pragma cling load("libopenblas")\n#pragma cling load("libtapegrad")\n#pragma cling load("libtapegrad_grader")'
                  % (up, up, up)),
             code("#include <cmath>\n#include <iostream>\n#include <string>\n#include <vector>\n\n"
                  "#include <tapegrad/tapegrad.hpp>\n#include <tapegrad_grader/exercise.hpp>\n\n"
                  "namespace ex = tapegrad::exercise;\n\n" + "\n".join(usings)),
             markdown(LANGUAGE[at]),
             code('std::string lang = "%s";  // en, or zh for 中文' % lang, ["parameters"])]
    for name in names:
        path = exercise_file(name)
        cells.append(markdown(statement(path)))
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for number, earlier in INCLUDED_EXERCISE.findall(text):
            cells.append(markdown("Your exercise %d (`%s`), which this one builds on: paste it from its notebook or "
                                  "file, or write it here. 这个练习用到你的练习 %d（`%s`）：从它的 notebook 或文件里粘贴过来，"
                                  "或者在这里写。" % (int(number), earlier, int(number), earlier)))
            with open(exercise_file(earlier), encoding="utf-8") as f:
                for function, definition in split_definitions(f.read())[1]:
                    cells.append(code(definition, ["exercise:" + function]))
        cells.append(code("// Your helpers for exercise %d, if any (definitions only). 练习 %d 的辅助函数（如有）。"
                          % (EXERCISES[name].number, EXERCISES[name].number), ["exercise:helpers:" + name]))
        for function, definition in split_definitions(text)[1]:
            cells.append(code(definition, ["exercise:" + function]))
        for call in check_calls(name):
            cells.append(code(call))
    cells.append(markdown(NEXT[at]))
    return cells


def main():
    args = sys.argv[1:]
    if any(a in ("-h", "--help") for a in args):
        print(__doc__.strip())
        return 0
    unknown = [a for a in args if a != "--check"]
    if unknown:
        print("exercise_notebooks.py: unknown argument %s (see --help)" % unknown[0], file=sys.stderr)
        return 2
    check = "--check" in args
    stale = []
    for group, lang in [(g, lang) for g in groups() for lang in LANGUAGES]:
        path = os.path.join(ROOT, "notebooks", *(["zh"] if lang == "zh" else []), group + ".ipynb")
        want = text_of(notebook(group, lang), nbformat_minor=5)
        have = open(path, encoding="utf-8").read() if os.path.exists(path) else None
        if check:
            if have != want:
                stale.append(os.path.relpath(path, ROOT))
        elif have != want:
            with open(path, "w", encoding="utf-8") as f:
                f.write(want)
            print("wrote", os.path.relpath(path, ROOT))
    if stale:
        print("FAIL: not what tools/exercise_notebooks.py writes (run it): " + ", ".join(stale))
        return 1
    if check:
        print("PASS: exercise notebooks up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main())
