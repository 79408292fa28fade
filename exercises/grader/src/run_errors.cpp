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
  if (id == "memory_error")
    return {"Your code read or wrote memory outside an array (a sanitizer stopped it at the line above): "
            "an index past the end (i <= N, the wrong row's offset, the wrong axis length), a null pointer, "
            "or a reference to an array that no longer exists. Check the loop bounds on that line.",
            "你的代码读写了数组之外的内存（sanitizer 在上面那一行停住了它）：下标越界（i <= N、"
            "行偏移算错、用错了轴的长度）、空指针，或引用了已经不存在的数组。检查那一行的循环边界。"};
  if (id == "undefined_behaviour")
    return {"Your code has undefined behaviour (UndefinedBehaviorSanitizer stopped it at the line above): "
            "a signed integer that overflows, a shift too far, a division by an integer zero, a bad cast. "
            "Its results mean nothing until that line is fixed.",
            "你的代码有未定义行为（UndefinedBehaviorSanitizer 在上面那一行停住了它）：有符号整数溢出、"
            "移位过多、整数除以零、错误的类型转换。修好那一行之前，它的结果没有意义。"};
  if (id == "xtensor_lazy_expression")
    return {"xtensor's lazy expressions: with xtensor 0.24.3 a keep_dims reduction broadcast inside a larger "
            "expression (x - xt::mean(x, {1}, xt::keep_dims)), or an expression held in `auto`, reads past its "
            "buffer. Two ways out: assign the reduction to a tapegrad::Array first "
            "(tapegrad::Array mu = xt::mean(x, {1}, xt::keep_dims);), or pass xt::evaluation_strategy::immediate "
            "(xt::mean(x, {1}, xt::keep_dims | xt::evaluation_strategy::immediate)).",
            "xtensor 的惰性表达式：xtensor 0.24.3 中，把 keep_dims 归约放进更大的表达式里广播"
            "（x - xt::mean(x, {1}, xt::keep_dims)），或用 `auto` 保存表达式，会读到缓冲区之外。两种改法："
            "先把归约赋给 tapegrad::Array（tapegrad::Array mu = xt::mean(x, {1}, xt::keep_dims);），"
            "或传 xt::evaluation_strategy::immediate（xt::mean(x, {1}, xt::keep_dims | "
            "xt::evaluation_strategy::immediate)）。"};
  if (id == "uninitialized_variable")
    return {"A variable is read before it is given a value (the compiler's warning names it, at the line "
            "above): an accumulator needs its start, double sum = 0; and, per row, inside the row loop.",
            "有变量在赋值之前就被读取了（编译器的警告指出了它，见上面那一行）：累加器需要初值，"
            "double sum = 0;，而且每一行都要在行循环里重新设。"};
  return {"No known mistake matches your results. Compare the worst elements above with the formula, "
          "on the smallest failing case first.",
          "没有已知的错误与你的结果吻合。先在最小的失败用例上，对照上面最差的元素和公式检查。"};
}

std::string run_error_id(const RunResult& r) {
  if (!r.sanitizer.id.empty()) return r.sanitizer.id;
  if (r.not_implemented) return "not_implemented";
  switch (r.status) {
    case RunResult::exception: return "exception";
    case RunResult::crashed: return "crashed";
    case RunResult::timeout: return "timeout";
    default: return "";
  }
}

bool is_cpp_pitfall(const std::string& id) {
  return id == "memory_error" || id == "undefined_behaviour" || id == "xtensor_lazy_expression" ||
         id == "uninitialized_variable";
}

}  // namespace tapegrad::exercise::detail
