#pragma once
// Generator: the one seeded random number generator behind all of tapegrad's
// randomness (init schemes, dropout masks, data shuffling), like torch.Generator.
//
// Why not std::normal_distribution / std::uniform_real_distribution? The C++
// standard fixes the bits std::mt19937_64 produces, but not the algorithm the
// distributions use: libstdc++ and libc++ turn the same engine draws into
// different numbers. So every transform from raw 64-bit draws to a value is
// written out here, and the same seed gives the same numbers everywhere
// (given a libm whose log/cos/sin are the usual correctly-rounded-in-practice
// glibc ones, which normal() uses).
//
// Draws per call, so that a reader can follow the state in gdb:
//   next_u64()      1 draw
//   uniform()       1 draw   (top 53 bits → a double in [0, 1))
//   normal()        2 draws  (Box–Muller; the second output is thrown away
//                             rather than cached, so no hidden state)
//   integer(n)      ≥1 draw  (rejection sampling, no modulo bias)

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "tapegrad/autograd/tensor.hpp"

namespace tapegrad {

class Generator {
 public:
  static constexpr std::uint64_t default_seed = 67280421310721ULL;  // torch's default_rng_seed_val

  explicit Generator(std::uint64_t seed = default_seed) : engine_(seed), seed_(seed) {}

  // Restart the sequence from `seed` (torch.Generator.manual_seed).
  void manual_seed(std::uint64_t seed);
  std::uint64_t initial_seed() const { return seed_; }

  // One raw 64-bit draw of the Mersenne Twister.
  std::uint64_t next_u64() { return engine_(); }

  // U[0, 1): the top 53 bits of a draw, times 2^-53. Every value is a
  // multiple of 2^-53, so all 2^53 doubles of that grid are equally likely.
  double uniform();
  // U[a, b): a + (b − a)·U[0, 1).
  double uniform(double a, double b);
  // N(mean, std²) by the Box–Muller transform of two uniforms.
  double normal(double mean = 0.0, double std = 1.0);
  // Uniform integer in [0, n); n must be > 0.
  std::uint64_t integer(std::uint64_t n);

  // Arrays of a shape, filled in row-major order (element 0 first).
  Array randn(const Shape& shape, double mean = 0.0, double std = 1.0);
  Array rand(const Shape& shape, double a = 0.0, double b = 1.0);

  // A random ordering of 0..n−1 (Fisher–Yates), like torch.randperm.
  std::vector<std::size_t> permutation(std::size_t n);
  // k distinct indices from [0, n), in random order (the first k of a
  // partial Fisher–Yates shuffle); k ≤ n.
  std::vector<std::size_t> sample(std::size_t n, std::size_t k);

  // The whole state, for reproducible resumption (text form of the engine).
  std::string get_state() const;
  void set_state(const std::string& state);

 private:
  std::mt19937_64 engine_;
  std::uint64_t seed_;
};

// The generator used when none is passed (torch.default_generator).
Generator& default_generator();
// Reseed the default generator (torch.manual_seed).
void manual_seed(std::uint64_t seed);

}  // namespace tapegrad
