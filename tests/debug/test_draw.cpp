// draw() and backward_steps(): the SVG's structure (nodes and edges are the tape's entries,
// inputs and outputs), its labels, gradients only after backward, and the frames' order.
#include <algorithm>
#include <regex>

#include "helpers.hpp"
#include "tapegrad/autograd/hooks.hpp"

using namespace tapegrad;

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::size_t count(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

// Graphviz's SVG: one <g ... class="node..."> per node, one <g ... class="edge"> per edge.
std::size_t svg_nodes(const std::string& svg) { return count(svg, "class=\"node"); }
std::size_t svg_edges(const std::string& svg) { return count(svg, "class=\"edge\""); }

// The <text> lines of the node with this id.
std::vector<std::string> node_text(const std::string& svg, const std::string& id) {
  std::vector<std::string> lines;
  const std::size_t start = svg.find("<g id=\"" + id + "\"");
  if (start == std::string::npos) return lines;
  const std::size_t end = svg.find("</g>", start);
  const std::string node = svg.substr(start, end - start);
  static const std::regex text("<text[^>]*>([^<]*)</text>");
  for (std::sregex_iterator it(node.begin(), node.end(), text), last; it != last; ++it) lines.push_back((*it)[1]);
  return lines;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + " | ";
  return out;
}

Array column(double a, double b) {
  Array c = Array::from_shape({2, 1});
  c(0, 0) = a;
  c(1, 0) = b;
  return c;
}

// A small graph: loss = sum((x·w + b)²), with x a constant.
struct Small {
  Tensor x{Array({{1.0, 2.0}}), false, "x"};
  Tensor w{column(0.5, -1.0), true, "w"};
  Tensor b{Array({0.25}), true, "b"};
  Tensor h, y, loss;
  Small() {
    tape().clear();
    h = add(matmul(x, w), b);  // entries 0, 1: h = [[-1.25]]
    y = mul(h, h);             // entry 2: h used twice
    loss = sum(y);             // entry 3
    loss.set_name("loss");
  }
};

}  // namespace

TEST_CASE("draw: one node per entry and per tensor, one edge per input and per output", "[draw][debug]") {
  Small g;
  const Tape& t = tape();
  std::size_t inputs = 0;
  for (const TapeEntry& e : t.entries) inputs += e.inputs.size();
  const std::size_t tensors = 3 /* x, w, b */ + t.size() /* outputs */;
  const std::string svg = draw(g.loss).svg;
  INFO(svg);
  CHECK(svg.rfind("<svg", 0) == 0);  // no XML prologue: it sits inside HTML
  CHECK(svg_nodes(svg) == t.size() + tensors);
  CHECK(svg_edges(svg) == inputs + t.size());
  CHECK(inputs == 7);  // matmul 2, add 2, mul 2 (h twice), sum 1
  // draw(tape()) draws the same tape.
  const std::string whole = draw(tape()).svg;
  CHECK(svg_nodes(whole) == svg_nodes(svg));
  CHECK(svg_edges(whole) == svg_edges(svg));
  tape().clear();
}

TEST_CASE("draw: labels carry names, shapes, values — op boxes say fused or primitive", "[draw][debug]") {
  Small g;
  const std::string svg = draw(g.loss).svg;
  INFO(svg);
  // Tensors in order of first use: x t0, w t1, matmul's output t2, b t3, h t4, y t5, loss t6.
  CHECK(joined(node_text(svg, "t0")) == "x | (1, 2) | [[1, 2]] | ");
  CHECK(joined(node_text(svg, "t1")) == "w | (2, 1) | [[0.5], [&#45;1]] | ");
  CHECK(joined(node_text(svg, "t4")) == "(1, 1) | [[&#45;1.25]] | ");
  CHECK(joined(node_text(svg, "t6")) == "loss | () | 1.562 | ");
  CHECK(joined(node_text(svg, "e0")) == "#0 matmul | primitive | ");
  // Styles: a parameter, a constant, the root.
  const std::string dot = draw_dot(g.loss);
  CHECK(contains(dot, "t1 [id=\"t1\", class=\"tensor\", shape=box, style=\"rounded,filled\", fillcolor=lightblue"));
  CHECK(contains(dot, "t0 [id=\"t0\", class=\"tensor\", shape=note"));
  CHECK(contains(dot, "t6 [id=\"t6\", class=\"tensor\", shape=ellipse, style=filled, fillcolor=gold, peripheries=2"));
  tape().clear();

  Tensor x(testing::randn({2, 3}, 1), true, "x");
  Tensor fused = layer_norm(x, {3});
  CHECK(contains(draw_dot(fused), "label=\"#0 layer_norm\\nfused\""));
  tape().clear();
  Tensor composed_ln = composed::layer_norm(x, {3});
  const std::string composed_dot = draw_dot(composed_ln);
  CHECK(!contains(composed_dot, "fused\""));
  CHECK(count(composed_dot, "\\nprimitive\"") == tape().size());
  tape().clear();
}

TEST_CASE("draw: large tensors show min, max and norm — options pick the fields and direction", "[draw][debug]") {
  tape().clear();
  Tensor a(Array{{3.0, -4.0, 0.0}, {0.0, 0.0, 0.0}, {0.0, 0.0, 1.0}}, true, "a");
  Tensor s = sum(a);
  CHECK(contains(draw_dot(s), "a\\n(3, 3)\\nmin -4 max 3 |x| 5.099"));
  DrawOptions o;
  o.values = false;
  o.names = false;
  o.direction = "LR";
  const std::string dot = draw_dot(s, o);
  CHECK(contains(dot, "rankdir=LR;"));
  CHECK(contains(dot, "label=\"(3, 3)\"]"));
  tape().clear();
}

TEST_CASE("draw: gradients only after backward, and a released graph is a clear error", "[draw][debug]") {
  Small g;
  CHECK(!contains(draw(g.loss).svg, "grad"));
  g.loss.backward(/*retain_graph=*/true);
  const std::string after = draw(g.loss).svg;
  INFO(after);
  // dloss/dw = 2h·xᵀ = 2·(-1.25)·[1, 2]; b: 2h = -2.5. Intermediates kept no gradient.
  CHECK(joined(node_text(after, "t1")) == "w | (2, 1) | [[0.5], [&#45;1]] | grad [[&#45;2.5], [&#45;5]] | ");
  CHECK(joined(node_text(after, "t3")) == "b | (1) | [0.25] | grad [&#45;2.5] | ");
  CHECK(joined(node_text(after, "t4")) == "(1, 1) | [[&#45;1.25]] | ");
  tape().clear();

  Small kept;
  retain_grads();
  kept.loss.backward(/*retain_graph=*/true);
  CHECK(joined(node_text(draw(kept.loss).svg, "t4")) == "(1, 1) | [[&#45;1.25]] | grad [[&#45;2.5]] | ");
  tape().clear();

  Small released;
  released.loss.backward();
  CHECK_THROWS_WITH(draw(released.loss), Catch::Contains("draw: the graph of 'loss' () (output of 'sum') was released") &&
                                             Catch::Contains("backward_steps"));
  tape().clear();
}

TEST_CASE("draw: the graph of a tensor is only what it depends on — a leaf is one node", "[draw][debug]") {
  Small g;
  Tensor other = mul(g.w, g.w);  // entry 4, not behind loss
  CHECK(svg_nodes(draw(g.loss).svg) == 4 + 7);
  CHECK(svg_nodes(draw(tape()).svg) == 5 + 8);
  CHECK(svg_nodes(draw(g.w).svg) == 1);
  tape().clear();
}

TEST_CASE("draw: depth folds repeated modules into one box", "[draw][debug]") {
  tape().clear();
  Generator gen(3);
  nn::Sequential model;
  auto blocks = std::make_shared<nn::Sequential>();
  for (int l = 0; l < 32; ++l) {
    nn::ResidualBlockOptions options;
    options.sublayer_name = "ffn";
    blocks->append(std::make_shared<nn::ResidualBlock>(std::make_shared<nn::FFN>(4, 8, "relu", gen),
                                                       nn::Placement::pre, 4, options));
  }
  model.append(blocks);
  Tensor x(testing::randn({2, 4}, 5), false, "x");
  Tensor loss = sum(model(x));
  const std::size_t entries = tape().size();
  DrawOptions o;
  o.depth = 2;
  o.model = &model;
  const std::string dot = draw_dot(loss, o);
  INFO(dot);
  CHECK(contains(dot, "0.0 ... 0.31\\nResidualBlock \xc3\x97" "32\\n"));
  CHECK(count(dot, "shape=box3d") == 1);
  CHECK(svg_nodes(draw(loss, o).svg) == 5);  // x, the fold, its output, sum, loss
  CHECK(svg_nodes(draw(loss).svg) > 2 * entries);
  o.model = nullptr;
  CHECK(contains(draw_dot(loss, o), "#.# \xc3\x97" "32"));
  tape().clear();
}

TEST_CASE("backward_steps: frames follow the tape in reverse, gradients arrive node by node", "[draw][debug]") {
  Small g;
  const std::size_t entries = tape().size();
  BackwardSteps steps = backward_steps(g.loss);
  REQUIRE(steps.frames.size() == entries + 1);
  CHECK(steps.frames[0].entry == -1);  // the seed
  CHECK(steps.frames[0].grads == std::vector<std::string>{"grad 1"});
  for (std::size_t k = 1; k < steps.frames.size(); ++k)
    CHECK(steps.frames[k].entry == static_cast<long>(entries - k));
  // mul's backward (entry 2) gives h its gradient 2h = -2.5; matmul's (entry 0) gives w its own.
  CHECK(steps.frames[2].entry == 2);
  CHECK(steps.frames[2].grads == std::vector<std::string>{"grad [[-2.5]]"});
  CHECK(steps.frames[4].nodes == std::vector<std::string>{"t1"});
  CHECK(steps.frames[4].grads == std::vector<std::string>{"grad [[-2.5], [-5]]"});
  // It ran the backward: the parameters have their gradients, the tape is released.
  CHECK(g.w.grad()(1, 0) == -5.0);
  CHECK(tape().empty());
  // One self-contained HTML block: the slider, the play button, the frames, no network.
  CHECK(contains(steps.html, "type=\"range\" min=\"0\" max=\"4\""));
  CHECK(contains(steps.html, "tg-play"));
  CHECK(contains(steps.html, "<svg"));
  CHECK(!contains(steps.html, "src=\"http"));
  CHECK(!contains(steps.html, "<link"));
  // Laid out once with every final gradient line in place.
  CHECK(contains(steps.svg, "grad [[&#45;2.5], [&#45;5]]"));
  tape().clear();
}

TEST_CASE("backward_steps: the watcher is put back, also when backward throws", "[draw][debug]") {
  Small g;
  Tensor not_scalar = mul(g.w, g.w);
  CHECK_THROWS_WITH(backward_steps(not_scalar), Catch::Contains("not a scalar"));
  BackwardWatcher none = set_backward_watcher(nullptr);
  CHECK(!none);
  CHECK_THROWS_WITH(backward_steps(g.w), Catch::Contains("is a leaf"));
  tape().clear();
}

TEST_CASE("render_svg's fallbacks, as a build without libgvc takes them: the dot program, else what to install",
          "[draw][debug]") {
  const std::string source = "digraph { a [label=\"mul\"]; b [label=\"x\"]; b -> a; }";
  std::vector<std::string> svgs{detail::render_svg_with(source, "dot program")};  // graphviz: a test dependency
  if (graphviz_backend() == "libgvc") svgs.push_back(detail::render_svg_with(source, "libgvc"));
  else CHECK_THROWS_WITH(detail::render_svg_with(source, "libgvc"), Catch::Contains("has no libgvc"));
  for (const std::string* svg : {&svgs.front(), &svgs.back()}) {
    CHECK(svg->rfind("<svg", 0) == 0);  // the XML prologue stripped, as for HTML
    CHECK(contains(*svg, ">mul</text>"));
    CHECK(contains(*svg, ">x</text>"));
  }
  CHECK_THROWS_WITH(detail::render_svg_with(source, ""),
                    Catch::Contains("sudo apt-get install libgraphviz-dev") && Catch::Contains("tape_table()"));
  CHECK_THROWS_WITH(detail::render_svg_with("digraph { a -> }", "dot program"), Catch::Contains("`dot -Tsvg` failed"));
}
