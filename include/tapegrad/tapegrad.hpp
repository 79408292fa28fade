#pragma once
// Everything in one include. The layers, bottom up:
//   autograd (tensor, tape, backward, gradcheck) -> ops -> nn -> optim -> experiments

#include "tapegrad/autograd/error.hpp"
#include "tapegrad/autograd/gradcheck.hpp"
#include "tapegrad/autograd/tape.hpp"
#include "tapegrad/autograd/tensor.hpp"
#include "tapegrad/ops/activation.hpp"
#include "tapegrad/ops/elementwise.hpp"
#include "tapegrad/ops/loss.hpp"
#include "tapegrad/ops/matmul.hpp"
#include "tapegrad/ops/reduce.hpp"
#include "tapegrad/ops/shape.hpp"
#include "tapegrad/ops/softmax.hpp"
