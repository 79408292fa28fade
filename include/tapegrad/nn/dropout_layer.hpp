#pragma once
// nn::Dropout: tapegrad::dropout in train() mode, the identity in eval() mode (torch.nn.Dropout).

#include "tapegrad/autograd/random.hpp"
#include "tapegrad/nn/module.hpp"

namespace tapegrad::nn {

class Dropout : public Module {
 public:
  // p outside [0, 1] throws at construction. The masks are drawn from `gen`, which must
  // outlive the module (the default generator does).
  explicit Dropout(double p = 0.5, Generator& gen = default_generator());
  Tensor forward(const Tensor& x) override;

  double p;

 protected:
  std::string extra_repr() const override;

 private:
  Generator* gen_;
};

}  // namespace tapegrad::nn
