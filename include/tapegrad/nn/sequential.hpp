#pragma once
// Sequential: children "0", "1", ... applied in order (also the list of blocks of a deep stack).

#include <memory>

#include "tapegrad/nn/module.hpp"

namespace tapegrad::nn {

class Sequential : public Module {
 public:
  Sequential() : Module("Sequential") {}
  Sequential& append(std::shared_ptr<Module> module);
  Tensor forward(const Tensor& x) override;
  std::size_t size() const { return layers_.size(); }
  Module& operator[](std::size_t i) const;
  template <class M>
  M& at(std::size_t i) const {
    return dynamic_cast<M&>((*this)[i]);
  }

 private:
  std::vector<std::shared_ptr<Module>> layers_;
};

}  // namespace tapegrad::nn
