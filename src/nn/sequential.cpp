#include "tapegrad/nn/sequential.hpp"

namespace tapegrad::nn {

Sequential& Sequential::append(std::shared_ptr<Module> module) {
  layers_.push_back(register_module(std::to_string(layers_.size()), std::move(module)));
  return *this;
}

Tensor Sequential::forward(const Tensor& x) {
  Tensor h = x;
  for (auto& layer : layers_) h = (*layer)(h);
  return h;
}

Module& Sequential::operator[](std::size_t i) const {
  if (i >= layers_.size())
    throw Error("Sequential: index " + std::to_string(i) + " out of range for " + std::to_string(layers_.size()) +
                " modules");
  return *layers_[i];
}

}  // namespace tapegrad::nn
