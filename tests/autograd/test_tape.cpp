// The tape, backward() and the autograd rules users rely on.
#include <memory>

#include "helpers.hpp"

using namespace tapegrad;
using tapegrad::testing::param;

TEST_CASE("ops on tensors that require grad are recorded in order", "[tape]") {
  tape().clear();
  Tensor x = param({2, 3}, 1, "x");
  Tensor w = param({3, 4}, 2, "w");
  Tensor h = relu(matmul(x, w));
  Tensor loss = mean(h);
  REQUIRE(tape().size() == 3);
  CHECK(tape()[0].op == "matmul");
  CHECK(tape()[1].op == "relu");
  CHECK(tape()[2].op == "mean");
  CHECK(tape()[0].output.shape() == Shape{2, 4});
  CHECK(tape()[2].inputs[0].same(h));
  const std::string listing = tape().to_string();
  CHECK(listing.find("matmul") != std::string::npos);
  CHECK(listing.find("'x' (2, 3), 'w' (3, 4) -> (2, 4)") != std::string::npos);
  loss.backward();
  CHECK(tape().empty());  // released after backward
}

TEST_CASE("nothing is recorded without requires_grad or under no_grad", "[tape]") {
  tape().clear();
  Tensor a(Array{1.0, 2.0});
  Tensor b = exp(a) * 2.0;
  CHECK(tape().empty());
  CHECK_FALSE(b.requires_grad());
  Tensor c = param({2}, 3);
  {
    no_grad guard;
    Tensor d = c * c;
    CHECK_FALSE(d.requires_grad());
    CHECK(tape().empty());
    {
      enable_grad again;
      Tensor e = c * c;
      CHECK(e.requires_grad());
    }
  }
  CHECK(is_grad_enabled());
  CHECK(tape().size() == 1);
  tape().clear();
}

TEST_CASE("a tensor used twice gets the sum of both gradients", "[tape]") {
  Tensor x(Array{1.0, -2.0, 3.0}, true, "x");
  Tensor y = sum(x * x + x);  // dy/dx = 2x + 1
  y.backward();
  CHECK(x.grad() == Array{3.0, -3.0, 7.0});
}

TEST_CASE("leaf gradients accumulate across backward calls until zero_grad", "[tape]") {
  Tensor x(Array{2.0}, true);
  sum(x * 3.0).backward();
  sum(x * 3.0).backward();
  CHECK(x.grad()(0) == 6.0);
  x.zero_grad();
  CHECK_FALSE(x.has_grad());
}

TEST_CASE("backward on a non-scalar needs a gradient of its shape", "[tape][errors]") {
  Tensor x = param({2, 3}, 4, "x");
  Tensor y = x * 2.0;
  REQUIRE_THROWS_WITH(y.backward(), Catch::Contains("not a scalar") && Catch::Contains("(2, 3)"));
  REQUIRE_THROWS_WITH(y.backward(Array{1.0, 2.0}), Catch::Contains("grad_output has shape (2)"));
  y.backward(xt::ones<double>({2, 3}));
  CHECK(x.grad() == Array(xt::ones<double>({2, 3}) * 2.0));
}

TEST_CASE("the graph is released after backward unless retained", "[tape][errors]") {
  Tensor x = param({3}, 5, "x");
  Tensor h = tanh(x).set_name("h");
  Tensor loss = sum(h);
  loss.backward();
  REQUIRE_THROWS_WITH(loss.backward(), Catch::Contains("already released") && Catch::Contains("retain_graph"));
  REQUIRE_THROWS_WITH(h.grad(), Catch::Contains("'h' (3)") && Catch::Contains("released"));

  Tensor x2 = param({3}, 6, "x2");
  Tensor h2 = tanh(x2);
  h2.retain_grad();
  Tensor loss2 = sum(h2 * h2);
  loss2.backward(/*retain_graph=*/true);
  const Array first = x2.grad();
  CHECK(h2.grad() == Array(2.0 * h2.value()));
  loss2.backward();
  CHECK(testing::allclose(x2.grad(), 2.0 * first));
  CHECK(h2.grad() == Array(2.0 * h2.value()));  // the latest pass, not a sum
}

TEST_CASE("grad of a tensor that does not require grad is a clear error", "[tape][errors]") {
  Tensor c(Array{1.0}, false, "c");
  REQUIRE_THROWS_WITH(c.grad(), Catch::Contains("'c' (1)") && Catch::Contains("does not require grad"));
  Tensor p(Array{1.0}, true, "p");
  REQUIRE_THROWS_WITH(p.grad(), Catch::Contains("no gradient yet"));
  REQUIRE_THROWS_WITH(sum(c).backward(), Catch::Contains("does not require grad"));
}

TEST_CASE("changing an input in place after it was recorded makes backward refuse", "[tape][errors]") {
  Tensor w = param({3}, 7, "w");
  Tensor loss = sum(w * w);
  w.mutable_value() += 1.0;
  REQUIRE_THROWS_WITH(loss.backward(), Catch::Contains("'w' (3)") && Catch::Contains("modified in place"));
  tape().clear();
}

TEST_CASE("detach cuts the history", "[tape]") {
  Tensor x = param({2}, 8);
  Tensor y = (x * 3.0).detach();
  CHECK_FALSE(y.requires_grad());
  CHECK(y.is_leaf());
  CHECK(y.value() == Array(x.value() * 3.0));
  tape().clear();
}

TEST_CASE("requires_grad_ only on leaves - undefined tensors are reported", "[tape][errors]") {
  Tensor x = param({2}, 9);
  Tensor y = x * 2.0;
  REQUIRE_THROWS_WITH(y.requires_grad_(false), Catch::Contains("not a leaf"));
  Tensor undefined;
  REQUIRE_THROWS_WITH(undefined.shape(), Catch::Contains("undefined"));
  REQUIRE_THROWS_WITH(add(undefined, x), Catch::Contains("undefined"));
  tape().clear();
}

TEST_CASE("item reads one value and refuses more", "[tape][errors]") {
  CHECK(Tensor(Array(2.5)).item() == 2.5);
  REQUIRE_THROWS_WITH(Tensor(Array{1.0, 2.0}).item(), Catch::Contains("2 elements"));
}

TEST_CASE("a non-scalar seed is used as given, and a seed that is some tensor's grad is copied first", "[tape]") {
  tape().clear();
  Tensor x(Array{1.0, -2.0, 3.0}, true, "x");
  SECTION("the root keeps the seed as its grad only when it retains grad") {
    Tensor y = x * 2.0;
    y.retain_grad();
    const Array seed{0.5, 1.0, 2.0};
    y.backward(seed);
    CHECK(y.grad() == seed);
    CHECK(x.grad() == Array{1.0, 2.0, 4.0});
  }
  SECTION("the seed is the grad of a leaf that the pass adds to: y.backward(x.grad())") {
    // y = x + x: dx = 2·seed. Adding the first half into x.grad (the seed itself)
    // must not change the seed the second half reads.
    x.accumulate_grad(Array{1.0, 1.0, 1.0});
    Tensor y = x + x;
    y.backward(x.grad());
    CHECK(x.grad() == Array{3.0, 3.0, 3.0});  // 1 (before) + 2·1
  }
  SECTION("the seed is the retained grad of an intermediate that the pass frees and refills") {
    Tensor h = x * 3.0;
    h.retain_grad();
    Tensor y = h * 2.0;
    y.backward(Array{1.0, 1.0, 1.0}, /*retain_graph=*/true);
    REQUIRE(h.grad() == Array{2.0, 2.0, 2.0});
    x.zero_grad();
    y.backward(h.grad());  // seed {2, 2, 2}: dh = 4, dx = 12
    CHECK(h.grad() == Array{4.0, 4.0, 4.0});
    CHECK(x.grad() == Array{12.0, 12.0, 12.0});
  }
}

TEST_CASE("backward frees each intermediate gradient once its op's backward has used it", "[tape]") {
  tape().clear();
  Tensor x(Array{1.0, 2.0}, true, "x");
  Tensor h, kept;
  bool h_had_grad = true, kept_had_grad = false;
  // The first op on the tape, so its backward runs last: by then h's and kept's
  // gradients have been used by the ops that made them.
  Tensor probe = record("probe", {x}, x.value(), [&](const Array& dy, const TapeEntry& e) {
    h_had_grad = h.has_grad();
    kept_had_grad = kept.has_grad();
    e.inputs[0].accumulate_grad(dy);
  });
  h = probe * 2.0;
  kept = h * 3.0;
  kept.retain_grad();
  Tensor loss = sum(kept);
  loss.backward();
  CHECK_FALSE(h_had_grad);  // freed right after mul's backward used it
  CHECK(kept_had_grad);     // retained
  CHECK(kept.grad() == Array{1.0, 1.0});
  CHECK(x.grad() == Array{6.0, 6.0});
}

TEST_CASE("backward frees what each op saved once its backward has run, unless the graph is retained", "[tape]") {
  for (const bool retain_graph : {false, true}) {
    INFO("retain_graph = " << retain_graph);
    tape().clear();
    Tensor x(Array{1.0, 2.0}, true, "x");
    std::weak_ptr<int> saved_by_square;
    bool freed_before_first_op_ran = false;
    // The first op on the tape: its backward runs last.
    Tensor probe = record("probe", {x}, x.value(), [&](const Array& dy, const TapeEntry& e) {
      freed_before_first_op_ran = saved_by_square.expired();
      e.inputs[0].accumulate_grad(dy);
    });
    // An op that saves something for its backward, as the FFN saves its hidden layer.
    auto saved = std::make_shared<int>(42);
    saved_by_square = saved;
    Tensor y = record("square", {probe}, probe.value() * probe.value(),
                      [saved](const Array& dy, const TapeEntry& e) {
                        e.inputs[0].accumulate_grad(dy * 2.0 * e.inputs[0].value() * (*saved == 42 ? 1.0 : 0.0));
                      });
    saved.reset();
    sum(y).backward(retain_graph);
    CHECK(freed_before_first_op_ran == !retain_graph);
    CHECK(x.grad() == Array{2.0, 4.0});
    tape().clear();
  }
}

TEST_CASE("a backward that throws half way releases the graph", "[tape][errors]") {
  tape().clear();
  Tensor x(Array{1.0, 2.0}, true, "x");
  Tensor h = record("fails_in_backward", {x}, x.value(), [](const Array&, const TapeEntry&) {
    throw Error("fails_in_backward: as planned");
  });
  Tensor loss = sum(h * 3.0);
  REQUIRE_THROWS_WITH(loss.backward(), Catch::Contains("as planned"));
  // mul's backward ran and let go of what it saved: the graph cannot be walked again.
  CHECK(tape().empty());
  REQUIRE_THROWS_WITH(loss.backward(), Catch::Contains("already released"));
}
