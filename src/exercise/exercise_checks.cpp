// The check_* functions: each wraps the learner's functions as the Parts of its exercise's Spec and
// grades them. Also the list of exercises, in the seeds' order.

#include <algorithm>

#include "grader.hpp"
#include "tapegrad/ops/softmax.hpp"

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

Report graded(Spec spec, std::vector<Part> parts, const Options& options) {
  spec.parts = std::move(parts);
  return grade(spec, options);
}

// The learner's result as the grader's outputs, in the order the structs list them.
Outputs out(const NormGrads& g, bool with_dbeta = true) {
  return with_dbeta ? Outputs{g.dx, g.dgamma, g.dbeta} : Outputs{g.dx, g.dgamma};
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

Report check_residual(ResidualForward forward, ResidualBackward backward, const Options& options) {
  return graded(residual_spec(),
                {{"residual_forward", {"y"}, [=](const Case& c) { return Outputs{forward(c.in[0], c.in[1])}; }},
                 {"residual_backward", {"dx", "dw"}, [=](const Case& c) {
                    const ResidualGrads g = backward(c.in[2], c.in[0], c.in[1]);
                    return Outputs{g.dx, g.dw};
                  }}},
                options);
}

Report check_layer_norm_forward(NormForward forward, const Options& options) {
  return graded(layer_norm_forward_spec(),
                {{"layer_norm_forward", {"y"},
                  [=](const Case& c) { return Outputs{forward(c.in[0], c.in[1], c.in[2], c.eps)}; }}},
                options);
}

Report check_layer_norm_backward(NormBackward backward, const Options& options) {
  return graded(layer_norm_backward_spec(),
                {{"layer_norm_backward", {"dx", "dgamma", "dbeta"},
                  [=](const Case& c) { return out(backward(c.in[3], c.in[0], c.in[1], c.eps)); }}},
                options);
}

Report check_rms_norm(RmsForward forward, NormBackward backward, const Options& options) {
  return graded(rms_norm_spec(),
                {{"rms_norm_forward", {"y"}, [=](const Case& c) { return Outputs{forward(c.in[0], c.in[1], c.eps)}; }},
                 {"rms_norm_backward", {"dx", "dgamma"},
                  [=](const Case& c) { return out(backward(c.in[3], c.in[0], c.in[1], c.eps), false); }}},
                options);
}

Report check_batch_norm(NormForward forward, NormBackward backward, const Options& options) {
  return graded(batch_norm_spec(),
                {{"batch_norm_forward", {"y"},
                  [=](const Case& c) { return Outputs{forward(c.in[0], c.in[1], c.in[2], c.eps)}; }},
                 {"batch_norm_backward", {"dx", "dgamma", "dbeta"},
                  [=](const Case& c) { return out(backward(c.in[3], c.in[0], c.in[1], c.eps)); }}},
                options);
}

Report check_ffn(FfnForward forward, FfnBackward backward, const Options& options) {
  return graded(ffn_spec(),
                {{"ffn_forward", {"y"},
                  [=](const Case& c) {
                    return Outputs{forward(c.in[0], c.in[1], c.in[2], c.in[3], c.in[4], c.activation)};
                  }},
                 {"ffn_backward", {"dx", "dw1", "db1", "dw2", "db2"},
                  [=](const Case& c) {
                    const FfnGrads g = backward(c.in[5], c.in[0], c.in[1], c.in[2], c.in[3], c.in[4], c.activation);
                    return Outputs{g.dx, g.dw1, g.db1, g.dw2, g.db2};
                  }}},
                options);
}

Report check_add_and_norm(AddNormForward forward, AddNormBackward backward, const Options& options) {
  return graded(add_and_norm_spec(),
                {{"add_and_norm_forward", {"y"},
                  [=](const Case& c) { return Outputs{forward(c.in[0], c.in[1], c.in[2], c.in[3], c.eps)}; }},
                 {"add_and_norm_backward", {"dx", "dfx", "dgamma", "dbeta"},
                  [=](const Case& c) {
                    const AddNormGrads g = backward(c.in[4], c.in[0], c.in[1], c.in[2], c.eps);
                    return Outputs{g.dx, g.dfx, g.dgamma, g.dbeta};
                  }}},
                options);
}

namespace {
Report check_block(Spec spec, const std::string& name, BlockForward forward, BlockBackward backward,
                   const Options& options) {
  return graded(std::move(spec),
                {{name + "_forward", {"y"},
                  [=](const Case& c) { return Outputs{forward(c.in[0], c.in[1], c.in[2], c.in[3], c.in[4], c.eps)}; }},
                 {name + "_backward", {"dx", "dw", "db", "dgamma", "dbeta"},
                  [=](const Case& c) {
                    const BlockGrads g = backward(c.in[5], c.in[0], c.in[1], c.in[2], c.in[3], c.in[4], c.eps);
                    return Outputs{g.dx, g.dw, g.db, g.dgamma, g.dbeta};
                  }}},
                options);
}
}  // namespace

Report check_post_norm(BlockForward forward, BlockBackward backward, const Options& options) {
  return check_block(post_norm_spec(), "post_norm", std::move(forward), std::move(backward), options);
}
Report check_pre_norm(BlockForward forward, BlockBackward backward, const Options& options) {
  return check_block(pre_norm_spec(), "pre_norm", std::move(forward), std::move(backward), options);
}

Report check_softmax_backward(SoftmaxBackward backward, const Options& options) {
  return graded(softmax_backward_spec(),
                {{"softmax_backward", {"dx"},
                  [=](const Case& c) {
                    // the learner gets y = softmax(x), computed by the library
                    Outputs o = value_and_grads([](const std::vector<Tensor>& t) { return softmax(t[0], -1); },
                                                {c.in[0]}, c.in[1]);
                    return Outputs{backward(c.in[1], o[0])};
                  }}},
                options);
}

Report check_attention_backward(AttentionBackward backward, const Options& options) {
  return graded(attention_backward_spec(),
                {{"attention_backward", {"dq", "dk", "dv"},
                  [=](const Case& c) {
                    const AttentionGrads g = backward(c.in[3], c.in[0], c.in[1], c.in[2]);
                    return Outputs{g.dq, g.dk, g.dv};
                  }}},
                options);
}

Report check_adam_step(AdamStep step, const Options& options) {
  return graded(adam_step_spec(),
                {{"adam_step", {"param", "m", "v", "step"},
                  [=](const Case& c) {
                    AdamState s;
                    s.param = c.in[0];
                    s.m = xt::zeros<double>(c.in[0].shape());
                    s.v = xt::zeros<double>(c.in[0].shape());
                    for (std::size_t gi = 2; gi < c.in.size(); ++gi)
                      s = step(s, c.in[gi], c.in[1](0), c.in[1](1), c.in[1](2), c.in[1](3));
                    return Outputs{s.param, s.m, s.v, Array{static_cast<double>(s.step)}};
                  }}},
                options);
}

}  // namespace tapegrad::exercise
