#pragma once
// Everything in one include, in the layers' order, bottom up:
//   autograd (tensor, tape, backward) -> ops -> nn -> optim -> debug (gradcheck, anomaly mode,
//   tape views and pictures, notebook display).
// The exercises' grader (exercises/grader/, tapegrad_grader/exercise.hpp) and the depth-stability lab
// (lab/) are applications on this library, not part of it: each has its own target, headers and
// sources.

// Printing needs nothing more: a Tensor's value() and grad() are xt::xarray, printed by
// xtensor's own operator<< (xio.hpp), so it comes with this header (a second operator<< for
// Array in tapegrad would be ambiguous with it wherever both are seen). The library's own
// headers leave xio.hpp out: it is heavy, and they do not print arrays.
#include <iostream>
#include <xtensor/xio.hpp>

// autograd: the tensor, the tape, backward, precision, the one RNG.
#include "tapegrad/autograd/error.hpp"
#include "tapegrad/autograd/precision.hpp"
#include "tapegrad/autograd/random.hpp"
#include "tapegrad/autograd/tape.hpp"
#include "tapegrad/autograd/tensor.hpp"
// ops: what records on the tape.
#include "tapegrad/ops/activation.hpp"
#include "tapegrad/ops/attention.hpp"
#include "tapegrad/ops/batched_matmul.hpp"
#include "tapegrad/ops/dropout.hpp"
#include "tapegrad/ops/elementwise.hpp"
#include "tapegrad/ops/embedding.hpp"
#include "tapegrad/ops/feed_forward.hpp"
#include "tapegrad/ops/grouped_query_attention.hpp"
#include "tapegrad/ops/linear.hpp"
#include "tapegrad/ops/loss.hpp"
#include "tapegrad/ops/matmul.hpp"
#include "tapegrad/ops/narrow.hpp"
#include "tapegrad/ops/normalization.hpp"
#include "tapegrad/ops/reduce.hpp"
#include "tapegrad/ops/repeat_kv.hpp"
#include "tapegrad/ops/residual.hpp"
#include "tapegrad/ops/rotary_embedding.hpp"
#include "tapegrad/ops/sampling.hpp"
#include "tapegrad/ops/shape.hpp"
#include "tapegrad/ops/softmax.hpp"
// nn: modules made of ops.
#include "tapegrad/nn/dropout_layer.hpp"
#include "tapegrad/nn/embedding_layer.hpp"
#include "tapegrad/nn/ffn.hpp"
#include "tapegrad/nn/init.hpp"
#include "tapegrad/nn/kv_cache.hpp"
#include "tapegrad/nn/linear_layer.hpp"
#include "tapegrad/nn/lora_linear.hpp"
#include "tapegrad/nn/module.hpp"
#include "tapegrad/nn/multihead_attention.hpp"
#include "tapegrad/nn/norm_layers.hpp"
#include "tapegrad/nn/residual_block.hpp"
#include "tapegrad/nn/self_attention.hpp"
#include "tapegrad/nn/sequential.hpp"
#include "tapegrad/nn/transformer_block.hpp"
#include "tapegrad/nn/transformer_lm.hpp"
// optim: what updates the parameters.
#include "tapegrad/optim/adam.hpp"
#include "tapegrad/optim/checkpoint.hpp"
#include "tapegrad/optim/clip.hpp"
#include "tapegrad/optim/mixed_precision.hpp"
#include "tapegrad/optim/optimizer.hpp"
#include "tapegrad/optim/schedule.hpp"
#include "tapegrad/optim/sgd.hpp"
// debug: the tools that look at all of the above.
#include "tapegrad/debug/anomaly.hpp"
#include "tapegrad/debug/display.hpp"
#include "tapegrad/debug/draw.hpp"
#include "tapegrad/debug/gradcheck.hpp"
#include "tapegrad/debug/tape_view.hpp"
