#include "tapegrad/nn/embedding_layer.hpp"

#include "tapegrad/nn/init.hpp"
#include "tapegrad/ops/embedding.hpp"

namespace tapegrad::nn {

Embedding::Embedding(std::size_t num, std::size_t dim, Generator& gen)
    : Module("Embedding"), num_embeddings(num), embedding_dim(dim) {
  weight = register_parameter("weight", zeros({num, dim}));
  init::normal_(weight, 0.0, 1.0, gen);
}

Tensor Embedding::forward(const Tensor& indices) { return embedding(indices, weight); }

std::string Embedding::extra_repr() const {
  return std::to_string(num_embeddings) + ", " + std::to_string(embedding_dim);
}

}  // namespace tapegrad::nn
