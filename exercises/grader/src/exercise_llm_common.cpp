// A mistake in any of an exercise's parts, and the small conversions exercises 11 to 16 share.

#include "exercise_llm_common.hpp"

#include <cmath>

namespace tapegrad::exercise::detail {

void add_in_any_parts(Spec& spec, const std::string& id, const std::vector<std::size_t>& outputs_per_part,
                      const Runner& wrong, const Text& hint, std::vector<std::size_t> parts) {
  if (parts.empty())
    for (std::size_t p = 0; p < outputs_per_part.size(); ++p) parts.push_back(p);
  // each non-empty subset of `parts`, as a bit set over the parts
  for (unsigned subset = 1; subset < (1u << parts.size()); ++subset) {
    std::vector<bool> wrong_part(outputs_per_part.size(), false);
    for (std::size_t i = 0; i < parts.size(); ++i)
      if (subset & (1u << i)) wrong_part[parts[i]] = true;
    const Runner right = spec.reference;
    spec.mistakes.push_back({id,
                             [=](const Case& c) {
                               const Outputs w = wrong(c), r = right(c);
                               Outputs out;
                               std::size_t at = 0;
                               for (std::size_t p = 0; p < outputs_per_part.size(); ++p)
                                 for (std::size_t k = 0; k < outputs_per_part[p]; ++k, ++at)
                                   out.push_back(wrong_part[p] ? w.at(at) : r.at(at));
                               return out;
                             },
                             hint, false});
  }
}

Array scalar(double v) {
  Array a = xt::zeros<double>(Shape{});
  a() = v;
  return a;
}

std::vector<std::int64_t> int_list(const Array& a) {
  std::vector<std::int64_t> out;
  for (std::size_t i = 0; i < a.size(); ++i) out.push_back(static_cast<std::int64_t>(std::llround(a.data()[i])));
  return out;
}

std::vector<std::size_t> size_list(const Array& a) {
  std::vector<std::size_t> out;
  for (std::int64_t v : int_list(a)) out.push_back(static_cast<std::size_t>(v));
  return out;
}

Array array_of(const std::vector<double>& values) {
  Array a = xt::zeros<double>(Shape{values.size()});
  for (std::size_t i = 0; i < values.size(); ++i) a(i) = values[i];
  return a;
}

}  // namespace tapegrad::exercise::detail
