#pragma once
// Every sentence and label the grader writes (grading.cpp, grader_report.cpp), in both languages, in
// one place: a translation is read side by side with its English. Hints of a mistake live beside
// the mistake (exercise_*.cpp); those of a run that stopped beside run_error_id.

#include "grader.hpp"

namespace tapegrad::exercise::detail::text {

// ---- a row's detail (grading.cpp) ----
inline const Text shape{"shape ", "形状 "};
inline const Text expected{", expected ", "，应为 "};
inline const Text at{" at ", " 位于 "};
inline const Text of{" of ", " / "};
inline const Text elements{" elements)", " 个元素)"};
inline const Text empty{"empty", "空数组"};
inline const Text max_error{"max error ", "最大误差 "};
inline const Text worst_at{"worst at ", "最差元素 "};
inline const Text got{": got ", "：得到 "};
inline const Text got_scalar{"got ", "得到 "};
inline const Text error{", error ", "，误差 "};
inline const Text case_word{"case ", "用例 "};
inline const Text cases_word{"cases ", "用例 "};
inline const Text not_run{"not run: an earlier case timed out", "未运行：前面的用例超时了"};
inline const Text vs_fd{" vs finite differences of your forward", " 对比你的前向的有限差分"};
inline const Text list_sep{", ", "、"};

// ---- the diagnosis's hint (grading.cpp) ----
inline const Text partly{"Partly: this mistake reproduces your results on {explained} but not on {others}, which "
                         "fail another way (a second mistake?). ",
                         "部分吻合：这个错误在{explained}上与你的结果一致，但{others}不一致，它们错在别处（还有第二个错误？）。"};
inline const Text pair{"Two mistakes at once: ", "同时有两个错误："};
inline const Text also_threw{" Besides, {cases} threw an exception: ", " 另外，{cases}抛出了异常："};
inline const Text wrong_value_too{" {cases} ran and gave wrong values, which no known mistake explains.",
                                  " {cases}运行了但数值不对，没有已知的错误能解释。"};
inline const Text unknown_start{"No known mistake matches your results. ", "没有已知的错误与你的结果吻合。"};
inline const Text shapes_too{" Besides, a shape is wrong ({details}): a gradient has the shape of what it is the "
                             "gradient of (a bias or γ shared by every row: the sum over the rows).",
                             "另外，有形状不对（{details}）：梯度的形状与对应的量相同（被每一行共用的偏置或 γ：对所有行求和）。"};
inline const Text only_shapes{"Only the shapes are wrong ({details}). A gradient has the shape of what it is the "
                              "gradient of; a parameter shared by every row (γ, β, a bias) gets the sum over every "
                              "axis but the last, as a parameter of shape (N) does.",
                              "只有形状不对（{details}）。梯度的形状与对应的量相同；被每一行共用的参数（γ、β、偏置）"
                              "的梯度要对除最后一个轴以外的所有轴求和，形状为 (N)。"};
inline const Text factor_too_large{"{output} is {factor} times too large on every failing case ({factor} = {value} "
                                   "in {case}): a 1/{factor} is missing.",
                                   "{output} 在每个失败的用例上都大了 {factor} 倍（{case}中 {factor} = {value}）：少了一个 1/{factor}。"};
inline const Text factor_too_small{"{output} is {factor} times too small on every failing case ({factor} = {value} "
                                   "in {case}): it is divided by {factor} once too often (or a factor {factor} is "
                                   "missing).",
                                   "{output} 在每个失败的用例上都小了 {factor} 倍（{case}中 {factor} = {value}）："
                                   "多除了一个 {factor}（或者少乘了 {factor}）。"};
inline const Text forward_right_fd_wrong{
    "Your forward is right, and {output} disagrees with finite differences of it: the bug is in the backward.",
    "你的前向是对的，而 {output} 与它的有限差分不一致：错误在反向里。"};
inline const Text backward_follows_forward{
    "Your {output} agrees with finite differences of your own forward, and the forward is wrong: fix the forward "
    "first; the backward may follow.",
    "你的 {output} 与你自己的前向的有限差分一致，而前向是错的：先改前向，反向可能随之正确。"};
inline const Text some_outputs_right{"{right} right on every case and {wrong} not: look at how {wrong} is computed "
                                     "from them.",
                                     "{right} 在每个用例上都对，而 {wrong} 不对：检查 {wrong} 是怎样由它们算出来的。"};
inline const Text compare_worst{"Compare the worst elements above with the formula, on the smallest failing case "
                                "first ({case}).",
                                "先在最小的失败用例上（{case}），对照上面最差的元素和公式检查。"};
inline const Text look_at_line{" Look at line {line} of {file}, where {output} is computed: {code}",
                               "看 {file} 的第 {line} 行，{output} 在那里计算：{code}"};
inline const Text look_in_function{" Look at where {function} computes {output}.", "看 {function} 里计算 {output} 的地方。"};
inline const Text are{" are", " "};
inline const Text is{" is", " "};

// ---- the report (grader_report.cpp) ----
inline const Text checks_passed_en{"exercise {exercise}: {passed} of {total} checks passed",
                                   "练习 {exercise}：{total} 项检查，{passed} 项通过"};
inline const Text ok{"ok    ", "通过  "};
inline const Text fail{"FAIL  ", "失败  "};
inline const Text printed{"your code printed:", "你的代码打印了："};
inline const Text first_failing{"first failing case: {case} ({function}; --gdb stops there)",
                                "第一个失败的用例：{case}（{function}；--gdb 会停在这里）"};
inline const Text diagnosis{"diagnosis: ", "诊断："};
inline const Text location{"at: ", "位置："};
inline const Text warnings{"the compiler's warnings:", "编译器的警告："};
inline const Text html_location{" (at ", "（位置 "};
inline const Text html_close{")", "）"};
inline const Text html_exercise{"exercise ", "练习 "};
inline const Text html_passed{" checks passed", " 项检查通过"};
inline const Text html_case{"case", "用例"};
inline const Text html_output{"output", "输出"};
inline const Text html_detail{"detail", "详情"};

// `pattern` with each {name} replaced by its value.
std::string fill(const std::string& pattern, const std::vector<std::pair<std::string, std::string>>& values);

}  // namespace tapegrad::exercise::detail::text
