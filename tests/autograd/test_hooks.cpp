// The engine's hook (autograd/hooks.hpp): record() and the backward walk call the one
// installed for this thread, and nothing when none is; anomaly mode is that hook. And the
// engine's bookkeeping is private: Tensor::impl() reads it, only the engine writes it.
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "helpers.hpp"
#include "tapegrad/autograd/hooks.hpp"

using namespace tapegrad;
using namespace tapegrad::testing;

namespace {

// What the recording hook saw: "forward <op> <tape index>" and "backward <op> <tape index>".
thread_local std::vector<std::string> seen;

void record_forward(const char* op, const std::vector<Tensor>&, const Array&, long tape_index) {
  seen.push_back(std::string("forward ") + op + " " + std::to_string(tape_index));
}
void record_backward(const TapeEntry& e, const Array& grad_output, std::size_t tape_index) {
  seen.push_back("backward " + e.op + " " + std::to_string(tape_index));
  e.backward(grad_output, e);
}
const AutogradHook recording{record_forward, record_backward};

// Restores the hook that was installed before, whatever the test does.
struct HookGuard {
  explicit HookGuard(const AutogradHook* h) : previous(set_autograd_hook(h)) {}
  ~HookGuard() { set_autograd_hook(previous); }
  const AutogradHook* previous;
};

// Whether T has a member impl_ that code outside the engine can name (access is part of
// substitution: a private one makes this false).
template <class T, class = void>
struct impl_is_public : std::false_type {};
template <class T>
struct impl_is_public<T, std::void_t<decltype(std::declval<T&>().impl_)>> : std::true_type {};

}  // namespace

TEST_CASE("autograd hook: record() and the walk call the installed hook, in order, and nothing without one",
          "[autograd][hooks]") {
  tape().clear();
  Tensor x(Array{1.0, 2.0}, true, "x");
  seen.clear();
  {
    HookGuard guard(&recording);
    CHECK(autograd_hook() == &recording);
    Tensor y = relu(x * 2.0);  // mul_scalar at #0, relu at #1
    {
      no_grad off;
      (void)exp(x);  // not recorded: the hook still sees it, with tape index -1
    }
    sum(y).backward();  // sum at #2; the walk runs #2, #1, #0
    CHECK(x.grad() == Array{2.0, 2.0});
  }
  CHECK(autograd_hook() == nullptr);
  const std::vector<std::string> expected{"forward mul_scalar 0", "forward relu 1",    "forward exp -1",
                                          "forward sum 2",        "backward sum 2",    "backward relu 1",
                                          "backward mul_scalar 0"};
  CHECK(seen == expected);

  seen.clear();
  Tensor z = sum(x * x);  // no hook installed: nothing is called
  z.backward();
  CHECK(seen.empty());
}

TEST_CASE("autograd hook: anomaly mode is its checks installed as the hook", "[autograd][hooks][anomaly]") {
  CHECK(autograd_hook() == nullptr);
  {
    detect_anomaly guard;
    CHECK(autograd_hook() != nullptr);
    CHECK(is_anomaly_enabled());
    CHECK_THROWS_AS(log(Tensor(Array{-1.0})), AnomalyError);  // the hook's forward check
  }
  CHECK(autograd_hook() == nullptr);
  CHECK_FALSE(is_anomaly_enabled());
  {
    HookGuard other(&recording);  // another hook is not anomaly mode, and turning it off leaves it
    CHECK_FALSE(is_anomaly_enabled());
    set_detect_anomaly(false);
    CHECK(autograd_hook() == &recording);
  }
}

TEST_CASE("Tensor: the engine's bookkeeping is private, read through impl()", "[autograd][tensor]") {
  static_assert(!impl_is_public<Tensor>::value, "Tensor::impl_ is the engine's: keep it private");
  tape().clear();
  Tensor x(Array{1.0, 2.0}, true, "x");
  Tensor y = x * 3.0;
  CHECK(y.impl().made_by == "mul_scalar");
  CHECK(y.impl().tape_index == 0);
  CHECK(x.impl().tape_index == -1);
  CHECK(&x.impl() != &y.impl());
  CHECK_THROWS_WITH(Tensor().impl(), Catch::Contains("undefined"));
  tape().clear();
}
