// Printing, as the README shows it: tapegrad.hpp alone lets `std::cout <<` print a
// Tensor, its value and its gradient.
#include <sstream>

#include <catch2/catch.hpp>

#include "tapegrad/tapegrad.hpp"

using namespace tapegrad;

TEST_CASE("printing: operator<< of a Tensor is its to_string(), and value and grad print as arrays", "[autograd]") {
  Tensor w(Array({{0.5, -1.0}}), true, "w");
  sum(mul(w, w)).backward();
  std::ostringstream tensor_text, grad_text;
  tensor_text << w;
  grad_text << w.grad();
  CHECK(tensor_text.str() == w.to_string());
  CHECK(tensor_text.str().find("name='w'") != std::string::npos);
  CHECK(grad_text.str() == "{{ 1., -2.}}");
}
