// The learner's code did not return (it threw, crashed, ran out of time, or still says "not implemented
// yet"): the diagnosis id for that and its hint. Separate from grading.cpp because the ids grow with
// what the child process reports (sanitizer reports, compiler warnings).

#include "grader.hpp"

namespace tapegrad::exercise::detail {

Text run_error_hint(const std::string& id) {
  if (id == "not_implemented")
    return {"The function still throws \"not implemented yet\": replace that line with your code. "
            "The statement and the formula are in the comment above it.",
            "函数仍然抛出 \"not implemented yet\"：把这一行换成你的代码。题目和公式写在它上面的注释里。"};
  if (id == "exception")
    return {"Your code threw an exception (the message is in the row above). Often it is an xtensor "
            "broadcast between shapes that do not fit: print the shapes of your intermediate arrays.",
            "你的代码抛出了异常（信息见上面的行）。常见原因是 xtensor 在不匹配的形状之间广播："
            "打印中间数组的形状看看。"};
  if (id == "crashed")
    return {"Your code crashed (the signal is in the row above): most often an index outside an array "
            "(x[i] with i >= size, or the wrong axis length). Run with --gdb to stop where it happens.",
            "你的代码崩溃了（信号见上面的行）：最常见的是数组越界（i >= size，或用错了轴的长度）。"
            "加 --gdb 运行，可以停在出错的地方。"};
  if (id == "timeout")
    return {"Your code did not finish in time and was stopped: an endless loop? Check each loop's "
            "condition and that its counter moves (an unsigned i-- never goes below 0).",
            "你的代码没有按时结束，被停止了：是死循环吗？检查每个循环的条件和计数器是否在变化"
            "（无符号整数 i-- 永远不会小于 0）。"};
  return {"No known mistake matches your results. Compare the worst elements above with the formula, "
          "on the smallest failing case first.",
          "没有已知的错误与你的结果吻合。先在最小的失败用例上，对照上面最差的元素和公式检查。"};
}

std::string run_error_id(const RunResult& r) {
  if (r.not_implemented) return "not_implemented";
  switch (r.status) {
    case RunResult::exception: return "exception";
    case RunResult::crashed: return "crashed";
    case RunResult::timeout: return "timeout";
    default: return "";
  }
}

}  // namespace tapegrad::exercise::detail
