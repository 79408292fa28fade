// tape_table() and draw_dot(tape()): what they print, and that Graphviz accepts the graph.
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "helpers.hpp"

using namespace tapegrad;

namespace {
bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// Runs a shell command, returns its exit status.
int run(const std::string& command) { return std::system(command.c_str()); }
}  // namespace

TEST_CASE("tape_table lists index, op, inputs, output, and norms after backward", "[tape_view][debug]") {
  tape().clear();
  Tensor x(Array{{3.0, 4.0}}, true, "x");         // |x| = 5
  Tensor w(Array{{1.0, 0.0}, {0.0, 1.0}}, true, "w");
  Tensor h = matmul(x, w);                         // entry 0: (1, 2), value [3, 4]
  h.retain_grad();
  Tensor r = relu(h);                              // entry 1
  Tensor loss = sum(r);                            // entry 2: () value 7
  const std::string before = tape_table();
  INFO(before);
  CHECK(contains(before, "Tape with 3 entries"));
  // Header, then one row per entry with the inputs as labels or "#k" references.
  CHECK(contains(before, "#  op      inputs                  output  |value|  |grad|"));
  CHECK(contains(before, "0  matmul  'x' (1, 2), 'w' (2, 2)  (1, 2)  5        -"));
  CHECK(contains(before, "1  relu    #0 (1, 2)               (1, 2)  5        -"));
  CHECK(contains(before, "2  sum     #1 (1, 2)               ()      7        -"));
  CHECK(contains(before, "'x' (1, 2)  yes            5        -"));

  loss.backward(/*retain_graph=*/true);
  const std::string after = tape_table();
  INFO(after);
  // h kept its grad [1, 1] (norm √2); r did not (no retain_grad); x.grad = [1, 1] @ wᵀ.
  CHECK(contains(after, "0  matmul  'x' (1, 2), 'w' (2, 2)  (1, 2)  5        1.414"));
  CHECK(contains(after, "1  relu    #0 (1, 2)               (1, 2)  5        -"));
  CHECK(contains(after, "'x' (1, 2)  yes            5        1.414"));
  CHECK(contains(after, "'w' (2, 2)  yes            1.414    7.071"));  // grad [[3, 3], [4, 4]]: √50
  tape().clear();
}

TEST_CASE("tape_table of an empty tape says so", "[tape_view][debug]") {
  tape().clear();
  CHECK(tape_table() == "Tape with 0 entries\n");
}

TEST_CASE("draw_dot of the tape draws tensors and ops, and dot accepts it", "[tape_view][debug]") {
  tape().clear();
  Tensor a(Array{1.0, 2.0}, true, "a \"quoted\"");
  Tensor b(Array{3.0, 4.0}, false, "b");
  Tensor c = sub(a, b);
  Tensor d = mul(c, c);  // c used twice: one node, two edges
  const std::string dot = draw_dot(tape());
  INFO(dot);
  CHECK(contains(dot, "digraph tape {"));
  // draw_dot's source (draw.hpp): parameter a blue box, constant b a white note, ops "#k op".
  CHECK(contains(dot, "t0 [id=\"t0\", class=\"tensor\", shape=box, style=\"rounded,filled\", fillcolor=lightblue, "
                      "label=\"a \\\"quoted\\\"\\n(2)\\n[1, 2]\"];"));
  CHECK(contains(dot, "t1 [id=\"t1\", class=\"tensor\", shape=note, style=filled, fillcolor=white, label=\"b\\n(2)\\n[3, 4]\"];"));
  CHECK(contains(dot, "e0 [id=\"e0\", class=\"op primitive\", shape=box, style=\"filled\", fillcolor=lightgrey, "
                      "label=\"#0 sub\\nprimitive\"];"));
  CHECK(contains(dot, "t0 -> e0 [label=\"0\"];"));
  CHECK(contains(dot, "t1 -> e0 [label=\"1\"];"));
  CHECK(contains(dot, "e0 -> t2;"));
  CHECK(contains(dot, "t2 -> e1 [label=\"0\"];"));
  CHECK(contains(dot, "t2 -> e1 [label=\"1\"];"));
  CHECK(contains(dot, "e1 -> t3;"));
  tape().clear();

  if (run("command -v dot > /dev/null 2>&1") != 0) {
    WARN("skipped the Graphviz check: the `dot` program is not installed (apt install graphviz)");
    return;
  }
  const std::string path = "tapegrad_test_draw_dot.dot";
  std::ofstream(path) << dot;
  CHECK(run("dot -Tsvg " + path + " -o " + path + ".svg") == 0);
  std::ifstream svg(path + ".svg");
  std::string first_lines((std::istreambuf_iterator<char>(svg)), std::istreambuf_iterator<char>());
  CHECK(contains(first_lines, "<svg"));
  CHECK(contains(first_lines, "#0 sub"));
  std::remove(path.c_str());
  std::remove((path + ".svg").c_str());
}
