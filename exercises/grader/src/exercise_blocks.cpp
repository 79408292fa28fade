// Exercises 1 and 7: the residual connection y = x + x Wᵀ, and the blocks built from the learner's
// own parts: Add & Norm LN(x + fx), Post-Norm LN(x + F(x)), Pre-Norm x + F(LN(x)), F(h) = h Wᵀ + b.
// The reference and the catalogue are both the library's autograd: a mistake here is a wrong wiring
// (the residual dropped, added to the normalized input, Post and Pre swapped), so it is written as
// that wiring of the library's ops, and its gradients are the wrong graph's.

#include "grader.hpp"
#include "tapegrad/ops/elementwise.hpp"
#include "tapegrad/ops/linear.hpp"
#include "tapegrad/ops/normalization.hpp"
#include "tapegrad/ops/residual.hpp"

namespace tapegrad::exercise::detail {

namespace {

using Graph = std::function<Tensor(const std::vector<Tensor>&, const Case&)>;

// y from `forward`, the gradients from `backward` (the same graph for a consistent learner; a correct
// forward with a wrong backward otherwise). inputs: the first n of c.in; c.in[n] is dy.
Outputs run_graphs(const Case& c, std::size_t n, const Graph& forward, const Graph& backward) {
  std::vector<Array> in(c.in.begin(), c.in.begin() + static_cast<long>(n));
  const auto f = [&](const Graph& g) {
    return value_and_grads([&](const std::vector<Tensor>& t) { return g(t, c); }, in, c.in[n]);
  };
  Outputs out = f(backward);
  if (&forward != &backward) out[0] = f(forward)[0];
  return out;
}

Mistake wiring(const std::string& id, std::size_t n, Graph forward, Graph backward, Text hint) {
  return {id, [=](const Case& c) { return run_graphs(c, n, forward, backward); }, std::move(hint), false};
}
Mistake wiring(const std::string& id, std::size_t n, Graph both, Text hint) {
  return {id, [=](const Case& c) { return run_graphs(c, n, both, both); }, std::move(hint), false};
}

const Text kResidualMissing{
    "The residual is missing: the input x is not added back (or its gradient is dropped). y = x + F(x), so dx "
    "gets dy straight through the identity path plus the gradient through F: the \"highway\" that lets deep "
    "stacks train.",
    "缺了残差：没有把输入 x 加回来（或者丢了它的梯度）。y = x + F(x)，所以 dx 既有沿恒等路径直接传回的 dy，"
    "也有经过 F 的梯度：这条“高速公路”让很深的网络也能训练。"};
const Text kPostPreSwapped{
    "Post-Norm and Pre-Norm are swapped. Post-Norm (the original Transformer) normalizes after the residual "
    "sum: LN(x + F(x)). Pre-Norm (GPT, Llama) normalizes the sublayer's input only: x + F(LN(x)).",
    "Post-Norm 和 Pre-Norm 写反了。Post-Norm（原始 Transformer）在残差相加之后归一化：LN(x + F(x))。"
    "Pre-Norm（GPT、Llama）只归一化子层的输入：x + F(LN(x))。"};
const Text kResidualAfterNorm{
    "Your Post-Norm adds the residual after the norm: y = x + LN(F(x)). Post-Norm normalizes the sum, "
    "y = LN(x + F(x)): the residual goes inside the norm, so every block's output has the norm's scale.",
    "你的 Post-Norm 在归一化之后才加残差：y = x + LN(F(x))。Post-Norm 归一化的是和："
    "y = LN(x + F(x))：残差要放在归一化里面，这样每个块的输出都有归一化后的尺度。"};
const Text kResidualOfNormalized{
    "Your Pre-Norm adds LN(x) instead of x: y = LN(x) + F(LN(x)). The residual must carry the raw x, "
    "untouched by any norm; that unnormalized path is why Pre-Norm trains deep stacks stably.",
    "你的 Pre-Norm 加的是 LN(x) 而不是 x：y = LN(x) + F(LN(x))。残差必须传递原始的 x，不经过任何归一化；"
    "正是这条未归一化的路径让 Pre-Norm 在很深时也能稳定训练。"};

Tensor ln(const Tensor& h, const Tensor& gamma, const Tensor& beta, const Case& c) {
  return layer_norm(h, {last_dim(h.value())}, gamma, beta, c.eps);
}

// ---- cases ----
// Residual: in = {x, w, dy}. Blocks: in = {x, w, b, gamma, beta, dy}. Add & Norm: {x, fx, gamma, beta, dy}.
namespace residual_input {
enum : std::size_t { x, w, dy };
}
namespace add_norm_input {
enum : std::size_t { x, fx, gamma, beta, dy };
}
namespace block_input {
enum : std::size_t { x, w, b, gamma, beta, dy };
}
// The backward against finite differences of the forward (part 0) in x (input 0), dx output 1 (after y).
FiniteDifferences dx_against_forward(std::size_t dy_input) {
  FiniteDifferences fd;
  fd.forward_part = 0, fd.x_input = 0, fd.grad_output = 1;
  fd.dy_input = static_cast<int>(dy_input);
  return fd;
}
std::vector<Shape> block_shapes() { return {{7, 8}, {5}, {3, 5}, {2, 3, 5}}; }
Text shape_name(const Shape& s, std::size_t i) {
  if (i == 0) return {"the worked example's shape " + shape_str(s), "例题的形状 " + shape_str(s)};
  return {"random " + shape_str(s), "随机 " + shape_str(s)};
}
// One case per block shape, its inputs drawn by `inputs` (given the shape and its last axis D) from one
// stream per exercise.
using DrawInputs = std::function<std::vector<Array>(Draw&, const Shape&, std::size_t D)>;
std::vector<Case> block_cases(std::uint64_t seed, const DrawInputs& inputs) {
  Draw d(seed);
  std::vector<Case> cases;
  const auto shapes = block_shapes();
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    Case c;
    c.name = shape_name(shapes[i], i);
    c.in = inputs(d, shapes[i], shapes[i].back());
    cases.push_back(c);
  }
  return cases;
}

}  // namespace

Spec residual_spec() {
  Spec s;
  s.exercise = "residual";
  s.cases = block_cases(1, [](Draw& d, const Shape& shape, std::size_t D) {
    return std::vector<Array>{d.normal(shape), d.normal({D, D}, 0, 0.5), d.normal(shape)};
  });
  const Graph right = [](const std::vector<Tensor>& t, const Case&) { return residual(t[0], linear(t[0], t[1])); };
  s.reference = [=](const Case& c) { return run_graphs(c, 2, right, right); };
  const Graph no_residual = [](const std::vector<Tensor>& t, const Case&) { return linear(t[0], t[1]); };
  const Graph no_residual_grad = [](const std::vector<Tensor>& t, const Case&) {
    return residual(t[0].detach(), linear(t[0], t[1]));
  };
  const Graph no_sublayer_grad = [](const std::vector<Tensor>& t, const Case&) {
    return residual(t[0], linear(t[0].detach(), t[1]));
  };
  s.mistakes.push_back(wiring("residual_missing", 2, no_residual, kResidualMissing));
  s.mistakes.push_back(wiring("residual_missing", 2, right, no_residual_grad, kResidualMissing));
  s.mistakes.push_back(wiring(
      "sublayer_grad_missing", 2, right, no_sublayer_grad,
      {"dx has only the identity path: dy. The sublayer F(x) = x Wᵀ depends on x too, so dx = dy + dy W: both "
       "paths of the sum carry gradient back to x.",
       "dx 只有恒等路径的 dy。子层 F(x) = x Wᵀ 也依赖 x，所以 dx = dy + dy W：和式的两条路径都要把梯度传回 x。"}));
  s.mistakes.push_back({"weight_grad_transposed",
                        [=](const Case& c) {
                          Outputs o = run_graphs(c, 2, right, right);
                          o[2] = xt::transpose(o[2]);
                          return o;
                        },
                        {"dW is transposed. W has nn.Linear's (out, in) layout and F(x) = x Wᵀ, so dW = dyᵀ x "
                         "(summed over every row), not xᵀ dy.",
                         "dW 转置了。W 是 nn.Linear 的 (out, in) 布局，F(x) = x Wᵀ，所以 dW = dyᵀ x（对所有行求和），"
                         "而不是 xᵀ dy。"},
                        false});
  s.fd = dx_against_forward(residual_input::dy);
  return s;
}

Spec add_and_norm_spec() {
  Spec s;
  s.exercise = "add_and_norm";
  s.cases = block_cases(7, [](Draw& d, const Shape& shape, std::size_t D) {
    return std::vector<Array>{d.normal(shape), d.normal(shape), d.uniform({D}, 0.5, 1.5), d.normal({D}, 0, 0.5),
                              d.normal(shape)};
  });
  const Graph right = [](const std::vector<Tensor>& t, const Case& c) {
    return add_and_norm(t[0], t[1], t[2], t[3], c.eps);
  };
  s.reference = [=](const Case& c) { return run_graphs(c, 4, right, right); };
  s.mistakes.push_back(wiring("residual_missing", 4,
                              [](const std::vector<Tensor>& t, const Case& c) { return ln(t[1], t[2], t[3], c); },
                              kResidualMissing));
  s.mistakes.push_back(wiring("residual_missing", 4, right,
                              [](const std::vector<Tensor>& t, const Case& c) {
                                return ln(add(t[0].detach(), t[1]), t[2], t[3], c);
                              },
                              kResidualMissing));
  s.mistakes.push_back(wiring("post_pre_swapped", 4,
                              [](const std::vector<Tensor>& t, const Case& c) { return add(t[0], ln(t[1], t[2], t[3], c)); },
                              kPostPreSwapped));
  s.fd = dx_against_forward(add_norm_input::dy);
  return s;
}

namespace {
Spec block_spec(const std::string& name, const Graph& right, std::uint64_t seed) {
  Spec s;
  s.exercise = name;
  s.cases = block_cases(seed, [](Draw& d, const Shape& shape, std::size_t D) {
    // x, W, b, γ, β, dy
    return std::vector<Array>{d.normal(shape), d.normal({D, D}, 0, 0.5), d.normal({D}, 0, 0.5),
                              d.uniform({D}, 0.5, 1.5), d.normal({D}, 0, 0.5), d.normal(shape)};
  });
  s.reference = [=](const Case& c) { return run_graphs(c, 5, right, right); };
  s.fd = dx_against_forward(block_input::dy);
  return s;
}

// t = {x, w, b, gamma, beta}
Tensor post(const std::vector<Tensor>& t, const Case& c) { return ln(residual(t[0], linear(t[0], t[1], t[2])), t[3], t[4], c); }
Tensor pre(const std::vector<Tensor>& t, const Case& c) { return residual(t[0], linear(ln(t[0], t[3], t[4], c), t[1], t[2])); }
}  // namespace

Spec post_norm_spec() {
  Spec s = block_spec("post_norm", post, 8);
  s.mistakes.push_back(wiring("post_pre_swapped", 5, pre, kPostPreSwapped));
  s.mistakes.push_back(wiring("residual_after_norm", 5,
                              [](const std::vector<Tensor>& t, const Case& c) {
                                return add(t[0], ln(linear(t[0], t[1], t[2]), t[3], t[4], c));
                              },
                              kResidualAfterNorm));
  s.mistakes.push_back(wiring("residual_missing", 5,
                              [](const std::vector<Tensor>& t, const Case& c) { return ln(linear(t[0], t[1], t[2]), t[3], t[4], c); },
                              kResidualMissing));
  s.mistakes.push_back(wiring("residual_missing", 5, post,
                              [](const std::vector<Tensor>& t, const Case& c) {
                                return ln(add(t[0].detach(), linear(t[0], t[1], t[2])), t[3], t[4], c);
                              },
                              kResidualMissing));
  return s;
}

Spec pre_norm_spec() {
  Spec s = block_spec("pre_norm", pre, 9);
  const Graph of_normalized = [](const std::vector<Tensor>& t, const Case& c) {
    const Tensor h = ln(t[0], t[3], t[4], c);
    return add(h, linear(h, t[1], t[2]));
  };
  s.mistakes.push_back(wiring("post_pre_swapped", 5, post, kPostPreSwapped));
  s.mistakes.push_back(wiring("residual_of_normalized", 5, of_normalized, kResidualOfNormalized));
  s.mistakes.push_back(wiring("residual_of_normalized", 5, pre, of_normalized, kResidualOfNormalized));
  s.mistakes.push_back(wiring("residual_missing", 5,
                              [](const std::vector<Tensor>& t, const Case& c) { return linear(ln(t[0], t[3], t[4], c), t[1], t[2]); },
                              kResidualMissing));
  s.mistakes.push_back(wiring("residual_missing", 5, pre,
                              [](const std::vector<Tensor>& t, const Case& c) {
                                return add(t[0].detach(), linear(ln(t[0], t[3], t[4], c), t[1], t[2]));
                              },
                              kResidualMissing));
  return s;
}

}  // namespace tapegrad::exercise::detail

namespace tapegrad::exercise {

using namespace detail;

Report check_residual(ResidualForward forward, ResidualBackward backward, const Options& options) {
  return graded(residual_spec(),
                {{"residual_forward", {"y"}, [=](const Case& c) { return Outputs{forward(c.in[residual_input::x], c.in[residual_input::w])}; }},
                 {"residual_backward", {"dx", "dw"}, [=](const Case& c) {
                    const ResidualGrads g = backward(c.in[residual_input::dy], c.in[residual_input::x], c.in[residual_input::w]);
                    return Outputs{g.dx, g.dw};
                  }}},
                options);
}

Report check_add_and_norm(AddNormForward forward, AddNormBackward backward, const Options& options) {
  return graded(add_and_norm_spec(),
                {{"add_and_norm_forward", {"y"},
                  [=](const Case& c) { return Outputs{forward(c.in[add_norm_input::x], c.in[add_norm_input::fx], c.in[add_norm_input::gamma], c.in[add_norm_input::beta], c.eps)}; }},
                 {"add_and_norm_backward", {"dx", "dfx", "dgamma", "dbeta"},
                  [=](const Case& c) {
                    const AddNormGrads g = backward(c.in[add_norm_input::dy], c.in[add_norm_input::x], c.in[add_norm_input::fx], c.in[add_norm_input::gamma], c.eps);
                    return Outputs{g.dx, g.dfx, g.dgamma, g.dbeta};
                  }}},
                options);
}

namespace {
Report check_block(Spec spec, const std::string& name, BlockForward forward, BlockBackward backward,
                   const Options& options) {
  return graded(std::move(spec),
                {{name + "_forward", {"y"},
                  [=](const Case& c) { return Outputs{forward(c.in[block_input::x], c.in[block_input::w], c.in[block_input::b], c.in[block_input::gamma], c.in[block_input::beta], c.eps)}; }},
                 {name + "_backward", {"dx", "dw", "db", "dgamma", "dbeta"},
                  [=](const Case& c) {
                    const BlockGrads g = backward(c.in[block_input::dy], c.in[block_input::x], c.in[block_input::w], c.in[block_input::b], c.in[block_input::gamma], c.in[block_input::beta], c.eps);
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

}  // namespace tapegrad::exercise
