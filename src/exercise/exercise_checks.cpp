// The list of exercises, in the seeds' order, and what is read from it (exercises(), catalogue_ids,
// make_spec). Each check_* sits beside its exercise's spec, in exercise_*.cpp.

#include <algorithm>

#include "grader.hpp"

namespace tapegrad::exercise {

using namespace detail;

namespace {

struct Entry {
  const char* name;
  Text title;
  Spec (*spec)();
};

const std::vector<Entry>& entries() {
  static const std::vector<Entry> e = {
      {"residual", {"1. the residual connection y = x + x Wᵀ, forward and backward", "1. 残差连接 y = x + x Wᵀ，前向和反向"}, residual_spec},
      {"layer_norm_forward", {"2. LayerNorm forward", "2. LayerNorm 前向"}, layer_norm_forward_spec},
      {"layer_norm_backward", {"3. LayerNorm backward", "3. LayerNorm 反向"}, layer_norm_backward_spec},
      {"rms_norm", {"4. RMSNorm forward and backward", "4. RMSNorm 前向和反向"}, rms_norm_spec},
      {"batch_norm", {"5. BatchNorm (training mode, features last) forward and backward", "5. BatchNorm（训练模式，特征在最后一维）前向和反向"}, batch_norm_spec},
      {"ffn", {"6. the FFN (ReLU and GELU) forward and backward", "6. FFN（ReLU 和 GELU）前向和反向"}, ffn_spec},
      {"blocks", {"7. Add & Norm, Post-Norm and Pre-Norm blocks from your own LayerNorm", "7. 用你自己的 LayerNorm 搭 Add & Norm、Post-Norm 和 Pre-Norm"}, nullptr},
      {"softmax_backward", {"8. softmax backward", "8. softmax 反向"}, softmax_backward_spec},
      {"attention_backward", {"9. single-head attention backward", "9. 单头注意力反向"}, attention_backward_spec},
      {"adam_step", {"10. one Adam step", "10. Adam 的一步更新"}, adam_step_spec},
  };
  return e;
}

}  // namespace

namespace detail {
Spec make_spec(const std::string& exercise) {
  if (exercise == "add_and_norm") return add_and_norm_spec();
  if (exercise == "post_norm") return post_norm_spec();
  if (exercise == "pre_norm") return pre_norm_spec();
  for (const Entry& e : entries())
    if (exercise == e.name && e.spec) return e.spec();
  throw Error("exercise: no exercise named '" + exercise + "'");
}
}  // namespace detail

std::vector<ExerciseInfo> exercises(const std::string& lang) {
  const std::string l = language(lang);
  std::vector<ExerciseInfo> list;
  for (const Entry& e : entries()) list.push_back({e.name, e.title.in(l)});
  return list;
}

std::vector<std::string> catalogue_ids(const std::string& exercise) {
  std::vector<std::string> ids;
  const std::vector<std::string> names = exercise == "blocks" ? std::vector<std::string>{"add_and_norm", "post_norm", "pre_norm"}
                                                              : std::vector<std::string>{exercise};
  for (const std::string& n : names)
    for (const Mistake& m : make_spec(n).mistakes)
      if (std::find(ids.begin(), ids.end(), m.id) == ids.end()) ids.push_back(m.id);
  return ids;
}

}  // namespace tapegrad::exercise
