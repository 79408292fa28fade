// Exercises 17-22 (the KV-cache decode step, SwiGLU, LoRA, dropout, sampling, a LLaMA block): each skeleton untouched is
// not_implemented, each reference solution passes (their planted mistakes are in the generated
// test_exercise_mistakes.cpp), and the sampling check judges the distribution of the draws, not each draw.
#include "exercise_test_common.hpp"

#include <chrono>

namespace sol17 {
#include "../../exercises/solutions/17_kv_cache_decode_solution.cpp"
}
namespace sol18 {
#include "../../exercises/solutions/18_swiglu_solution.cpp"
}
namespace sol19 {
#include "../../exercises/solutions/19_lora_solution.cpp"
}
namespace sol20 {
#include "../../exercises/solutions/20_dropout_solution.cpp"
}
namespace sol21 {
#include "../../exercises/solutions/21_sampling_solution.cpp"
}
namespace sol22 {
#include "../../exercises/solutions/22_llama_block_solution.cpp"
}
namespace skel17 {
#include "../../exercises/17_kv_cache_decode.cpp"
}
namespace skel18 {
#include "../../exercises/18_swiglu.cpp"
}
namespace skel19 {
#include "../../exercises/19_lora.cpp"
}
namespace skel20 {
#include "../../exercises/20_dropout.cpp"
}
namespace skel21 {
#include "../../exercises/21_sampling.cpp"
}
namespace skel22 {
#include "../../exercises/22_llama_block.cpp"
}

using namespace tapegrad::exercise;
using tapegrad::Array;

namespace {

// Each check, graded with the learner's code in child processes as scripts/exercise.sh does.
struct Graded {
  std::string name;
  std::function<Report(const Options&)> solution, skeleton;
};
const std::vector<Graded>& graded_exercises() {
  static const std::vector<Graded> g = {
      {"kv_cache_decode", [](const Options& o) { return check_kv_cache_decode(sol17::kv_cache_decode_step, o); },
       [](const Options& o) { return check_kv_cache_decode(skel17::kv_cache_decode_step, o); }},
      {"swiglu", [](const Options& o) { return check_swiglu(sol18::swiglu_forward, sol18::swiglu_backward, o); },
       [](const Options& o) { return check_swiglu(skel18::swiglu_forward, skel18::swiglu_backward, o); }},
      {"lora", [](const Options& o) { return check_lora(sol19::lora_forward, sol19::lora_backward, sol19::lora_merge, o); },
       [](const Options& o) { return check_lora(skel19::lora_forward, skel19::lora_backward, skel19::lora_merge, o); }},
      {"dropout", [](const Options& o) { return check_dropout(sol20::dropout_forward, sol20::dropout_backward, o); },
       [](const Options& o) { return check_dropout(skel20::dropout_forward, skel20::dropout_backward, o); }},
      {"sampling", [](const Options& o) { return check_sampling(sol21::sampling_probabilities, sol21::sample_token, o); },
       [](const Options& o) { return check_sampling(skel21::sampling_probabilities, skel21::sample_token, o); }},
      {"llama_block", [](const Options& o) { return check_llama_block(sol22::llama_block_forward, o); },
       [](const Options& o) { return check_llama_block(skel22::llama_block_forward, o); }},
  };
  return g;
}

}  // namespace

TEST_CASE("exercise: the reference solutions of exercises 17-22 pass within 3 s each", "[exercise]") {
  for (const Graded& g : graded_exercises()) {
    const auto start = std::chrono::steady_clock::now();
    const Report r = g.solution(english());
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    INFO(g.name << " in " << seconds << " s:\n" << r.to_string());
    CHECK(r.passed);
    CHECK(r.result_line() == "result: pass");
    CHECK(seconds < 3.0);
  }
}

TEST_CASE("exercise: the skeletons of exercises 17-22 are not implemented", "[exercise]") {
  for (const Graded& g : graded_exercises()) {
    const Report r = g.skeleton(english());
    INFO(g.name << ":\n" << r.to_string());
    CHECK(r.diagnosis == "not_implemented");
    CHECK(r.result_line() == "result: fail diagnosis=not_implemented");
  }
}

TEST_CASE("exercise: sampling's draws are judged as a distribution", "[exercise]") {
  SECTION("a correct sampler that sums in another order (most likely first) passes") {
    const Report r = check_sampling(
        sol21::sampling_probabilities,
        [](const Array& logits, double t, std::size_t k, double top_p, double u) -> std::size_t {
          if (t == 0) return sol21::sample_token(logits, t, k, top_p, u);
          const Array p = sol21::sampling_probabilities(logits, t, k, top_p);
          std::vector<std::size_t> order(p.size());
          std::iota(order.begin(), order.end(), 0);
          std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return p(a) > p(b); });
          double c = 0;
          for (std::size_t i : order)
            if (u < (c += p(i))) return i;
          return order.front();
        },
        english());
    INFO(r.to_string());
    CHECK(r.passed);
  }
  SECTION("a sampler that always takes the argmax fails its draws") {
    const Report r = check_sampling(
        sol21::sampling_probabilities,
        [](const Array& logits, double t, std::size_t k, double top_p, double u) {
          return sol21::sample_token(logits, 0.0, k, top_p, u + 0 * t);
        },
        english());
    INFO(r.to_string());
    CHECK_FALSE(r.passed);
    CHECK(r.first_failing_function == "sample_token");
    CHECK(r.first_failing_case == 0);
  }
  SECTION("temperature 0 is the argmax, the first of tied largest logits") {
    const Array p = sol21::sampling_probabilities(Array{0.5, 2, -1, 2}, 0.0, 0, 1.0);
    CHECK(p(1) == 1.0);
    CHECK(xt::sum(p)() == 1.0);
  }
}
