#include "tapegrad/nn/kv_cache.hpp"

#include <xtensor/xbuilder.hpp>

namespace tapegrad::nn {

void KVCache::reset() {
  keys_ = Array();
  values_ = Array();
}

void KVCache::append(const Array& k_new, const Array& v_new) {
  if (k_new.dimension() != 4 || k_new.shape() != v_new.shape())
    throw ShapeError("KVCache::append: expected k and v of the same shape (B, Hkv, S, Dh), got k " +
                     shape_str(k_new.shape()) + " and v " + shape_str(v_new.shape()));
  if (empty()) {
    keys_ = k_new;
    values_ = v_new;
    return;
  }
  const auto& cached = keys_.shape();  // (B, Hkv, T, Dh)
  if (k_new.shape()[0] != cached[0] || k_new.shape()[1] != cached[1] || k_new.shape()[3] != cached[3])
    throw ShapeError("KVCache::append: the cache holds (B, Hkv, T, Dh) = " + shape_str(cached) +
                     "; expected new keys (B, Hkv, S, Dh) with the same B, Hkv and Dh, got " + shape_str(k_new.shape()) +
                     " (a cache from another model or batch? reset() it)");
  // Evaluated into Arrays: the new positions go after the cached ones along the sequence axis.
  Array keys = xt::concatenate(xt::xtuple(keys_, k_new), 2);
  Array values = xt::concatenate(xt::xtuple(values_, v_new), 2);
  keys_ = std::move(keys);
  values_ = std::move(values);
}

}  // namespace tapegrad::nn
