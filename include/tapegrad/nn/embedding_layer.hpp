#pragma once
// nn::Embedding: a learned table of num_embeddings vectors of size embedding_dim, as
// torch.nn.Embedding; forward(indices) looks rows up (ops/embedding.hpp). Used for token
// embeddings (indices = token ids) and learned position embeddings (indices = 0, 1, ..., S−1).
// Init as PyTorch: every entry N(0, 1).

#include "tapegrad/autograd/random.hpp"
#include "tapegrad/nn/module.hpp"

namespace tapegrad::nn {

class Embedding : public Module {
 public:
  Embedding(std::size_t num_embeddings, std::size_t embedding_dim, Generator& gen = default_generator());
  // indices: whole numbers in [0, num_embeddings), any shape -> indices.shape + (embedding_dim).
  Tensor forward(const Tensor& indices) override;

  std::size_t num_embeddings, embedding_dim;
  Tensor weight;  // (num_embeddings, embedding_dim)

 protected:
  std::string extra_repr() const override;
};

}  // namespace tapegrad::nn
