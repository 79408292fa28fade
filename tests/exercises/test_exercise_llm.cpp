// Exercises 11 to 16 (softmax, cross-entropy, multi-head attention and its backward, GQA, RoPE): every reference
// solution passes, every skeleton is not_implemented, and RoPE grades the style the learner wrote. (Their planted mistakes are in test_exercise_mistakes.cpp with the others.)
#include "exercise_test_common.hpp"

#include <cstdint>

namespace sol11 {
#include "../../exercises/solutions/11_softmax_solution.cpp"
}
namespace sol12 {
#include "../../exercises/solutions/12_cross_entropy_solution.cpp"
}
namespace sol13 {
#include "../../exercises/solutions/13_multi_head_attention_solution.cpp"
}
namespace sol14 {
#include "../../exercises/solutions/14_multi_head_attention_backward_solution.cpp"
}
namespace sol15 {
#include "../../exercises/solutions/15_grouped_query_attention_solution.cpp"
}
namespace sol16 {
#include "../../exercises/solutions/16_rope_solution.cpp"
}
namespace skel11 {
#include "../../exercises/11_softmax.cpp"
}
namespace skel12 {
#include "../../exercises/12_cross_entropy.cpp"
}
namespace skel13 {
#include "../../exercises/13_multi_head_attention.cpp"
}
namespace skel14 {
#include "../../exercises/14_multi_head_attention_backward.cpp"
}
namespace skel15 {
#include "../../exercises/15_grouped_query_attention.cpp"
}
namespace skel16 {
#include "../../exercises/16_rope.cpp"
}

using namespace tapegrad::exercise;
using tapegrad::Array;
using tapegrad::RopeStyle;

namespace {

// Every report of exercises 11 to 16, the solution's or the skeleton's.
std::vector<Report> reports(bool solutions) {
  const Options o = english();
  if (solutions)
    return {check_softmax(sol11::softmax_forward, sol11::softmax_online_forward, o),
            check_cross_entropy(sol12::cross_entropy_forward, sol12::cross_entropy_backward, o),
            check_multi_head_attention(sol13::multi_head_attention_forward, o),
            check_multi_head_attention_backward(sol14::multi_head_attention_backward, o),
            check_grouped_query_attention(sol15::grouped_query_attention_forward, o),
            check_rope(sol16::rope_forward, sol16::rope_backward, o)};
  return {check_softmax(skel11::softmax_forward, skel11::softmax_online_forward, o),
          check_cross_entropy(skel12::cross_entropy_forward, skel12::cross_entropy_backward, o),
          check_multi_head_attention(skel13::multi_head_attention_forward, o),
          check_multi_head_attention_backward(skel14::multi_head_attention_backward, o),
          check_grouped_query_attention(skel15::grouped_query_attention_forward, o),
          check_rope(skel16::rope_forward, skel16::rope_backward, o)};
}

// The solution's RoPE with one style only: the other throws NotImplemented, as the skeleton asks.
Array rope_interleaved_only(const Array& x, const std::vector<std::int64_t>& p, double base, RopeStyle style) {
  if (style != RopeStyle::interleaved) throw NotImplemented("rope_forward");
  return sol16::rope_forward(x, p, base, style);
}
Array rope_interleaved_only_backward(const Array& dy, const std::vector<std::int64_t>& p, double base, RopeStyle style) {
  if (style != RopeStyle::interleaved) throw NotImplemented("rope_backward");
  return sol16::rope_backward(dy, p, base, style);
}
// The half_split branch written with the interleaved pairs: the other style, named.
Array rope_half_split_as_interleaved(const Array& x, const std::vector<std::int64_t>& p, double base, RopeStyle style) {
  if (style != RopeStyle::half_split) throw NotImplemented("rope_forward");
  return sol16::rope_forward(x, p, base, RopeStyle::interleaved);
}
Array rope_half_split_as_interleaved_backward(const Array& dy, const std::vector<std::int64_t>& p, double base,
                                              RopeStyle style) {
  if (style != RopeStyle::half_split) throw NotImplemented("rope_backward");
  return sol16::rope_backward(dy, p, base, RopeStyle::interleaved);
}

}  // namespace

TEST_CASE("exercise: the reference solutions of exercises 11 to 16 pass", "[exercise]") {
  for (const Report& r : reports(true)) {
    INFO(r.to_string());
    CHECK(r.passed);
    CHECK(r.rows.size() >= 6);
    CHECK(r.result_line() == "result: pass");
  }
}

TEST_CASE("exercise: the skeletons of exercises 11 to 16 are not implemented", "[exercise]") {
  for (const Report& r : reports(false)) {
    INFO(r.to_string());
    CHECK_FALSE(r.passed);
    CHECK(r.diagnosis == "not_implemented");
  }
}

TEST_CASE("exercise: RoPE grades the style the learner wrote and names the other", "[exercise]") {
  const Report one = check_rope(rope_interleaved_only, rope_interleaved_only_backward, english());
  INFO(one.to_string());
  CHECK(one.passed);
  for (const CheckRow& row : one.rows) CHECK(row.case_name.find("interleaved") != std::string::npos);
  const Report other = check_rope(rope_half_split_as_interleaved, rope_half_split_as_interleaved_backward, english());
  INFO(other.to_string());
  CHECK(other.diagnosis == "other_style");
}
