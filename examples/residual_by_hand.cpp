// residual: y = x + F(x). The gradient reaching x is dL/dy through the identity
// path PLUS dL/dy through F: the "+ x" is a highway that lets gradients skip
// the sublayer, which is why deep stacks of residual blocks still train.
//
// In gdb: `break linear.cpp:tapegrad::residual` stops in the forward; `p x` and `p fx`
// show both summands.
#include <iostream>

#include <xtensor/xio.hpp>

#include "tapegrad/tapegrad.hpp"

using namespace tapegrad;

int main() {
  Tensor x(Array{{1.0, -1.0, 0.5}}, true, "x");                              // (1, 3)
  Tensor w(Array{{0.1, 0.0, 0.0}, {0.0, 0.1, 0.0}, {0.0, 0.0, 0.1}}, true, "w");  // a small sublayer
  Tensor fx = tanh(linear(x, w));  // F(x), close to 0.1·x
  Tensor y = residual(x, fx);      // x + F(x); refuses a shape change (add would broadcast)
  std::cout << "x    = " << x.value() << "\nF(x) = " << fx.value() << "\ny    = " << y.value() << "\n\n";

  Tensor loss = sum(y);
  loss.backward();
  // dL/dy = 1 everywhere; the identity path gives 1, F adds about 0.1.
  std::cout << "dL/dx = " << x.grad() << "   (= 1 from the identity path + ~0.1 through F)\n";

  // Without the residual the gradient is only the small part through F.
  x.zero_grad();
  sum(tanh(linear(x, w))).backward();
  std::cout << "without the residual: dL/dx = " << x.grad() << '\n';

  // A shape change is refused: a sublayer must keep the shape.
  try {
    residual(x, sum(x, {1}, true));
  } catch (const ShapeError& err) {
    std::cout << "\nresidual with a (1, 1) F(x): " << err.what() << '\n';
  }
  tape().clear();
  return 0;
}
