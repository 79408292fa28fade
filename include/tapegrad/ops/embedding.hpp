#pragma once
// embedding: a table lookup, as torch.nn.functional.embedding. Row i of the output is
// row indices[i] of the weight. Token and learned position embeddings are this op.
//
// Indices come as a Tensor of whole numbers (tapegrad's tensors hold doubles; PyTorch
// uses int64): a negative, fractional, NaN or too-large index is an error naming it.

#include <vector>

#include "tapegrad/autograd/tensor.hpp"

namespace tapegrad {

// indices of any shape, weight (num_embeddings, embedding_dim):
// y of shape indices.shape + (embedding_dim), y[i..., :] = weight[indices[i...], :].
// Only the weight gets a gradient; indices that require grad are refused.
Tensor embedding(const Tensor& indices, const Tensor& weight);

// The backward of embedding: dweight[r, :] = Σ over the positions i holding index r of dy[i, :].
// Few rows are touched, but the gradient is a dense (num_embeddings, embedding_dim) array, as
// PyTorch's default (sparse=False): the optimizers then treat it like any other.
void embedding_backward(const Array& dy, const Tensor& weight, const std::vector<std::size_t>& rows);

}  // namespace tapegrad
