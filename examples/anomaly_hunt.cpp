// anomaly: anomaly mode names the op that made the first NaN, forward or backward.
//
// Without it a NaN travels silently through every later op and all you see is
// `loss = nan`. With tapegrad::detect_anomaly on, the op that made it throws
// tapegrad::AnomalyError: its name, its tape position, the input shapes, where
// the bad values are.
//
// In gdb, stop right where it happens:
//   (gdb) catch throw
//   (gdb) run
//   (gdb) bt                      ... the frame of the op (e.g. tapegrad::log) is a few frames up
//   (gdb) frame function tapegrad::check_forward_anomaly
//   (gdb) p value                 the bad output, with its NaNs
#include <iostream>

#include "tapegrad/tapegrad.hpp"

using namespace tapegrad;

int main() {
  // A variance computed as E[x²] − E[x]² can come out slightly negative from
  // rounding (here we force it), and the std = sqrt(var) of it is NaN.
  Tensor x(Array{1.0, 2.0, 3.0}, true, "x");
  Tensor shift(Array{-1.0, 0.5, 2.0}, false, "shift");

  // 1. Without anomaly mode: the NaN goes unnoticed until the end.
  {
    Tensor var = x - shift * 2.0;  // [3, 1, -1]: the last "variance" is negative
    Tensor loss = sum(log(var));
    std::cout << "without anomaly mode: loss = " << loss.item() << "  (where did the nan come from?)\n\n";
    tape().clear();
  }

  // 2. With anomaly mode: the log that made the NaN throws.
  try {
    detect_anomaly guard;
    Tensor var = x - shift * 2.0;
    Tensor loss = sum(log(var));
    std::cout << "not reached: loss = " << loss.item() << '\n';
  } catch (const AnomalyError& err) {
    std::cout << "forward: " << err.what() << "\n\n";
  }
  tape().clear();

  // 3. A NaN/Inf born in backward: sqrt is fine at 0 going forward (sqrt(0) = 0),
  //    but its gradient 1 / (2 sqrt(x)) is inf there.
  try {
    detect_anomaly guard;
    Tensor r(Array{0.0, 4.0}, true, "r");
    Tensor loss = sum(sqrt(r));
    std::cout << "forward is fine: loss = " << loss.item() << '\n';
    loss.backward();
  } catch (const AnomalyError& err) {
    std::cout << "backward: " << err.what() << '\n';
    std::cout << "(op '" << err.op << "', tape entry " << err.tape_index << ", input " << err.input << ", "
              << err.bad_count << " bad value(s), the first at flat index " << err.first_bad << ")\n";
  }
  tape().clear();
  return 0;
}
