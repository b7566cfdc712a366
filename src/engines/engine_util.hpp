// Helpers shared by the engine profiles (src/engines only): GiB printing as the engines print it,
// fractions in parts per million, and the layer groups a model's cache splits into.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kvplan/formula.hpp"
#include "kvplan/model.hpp"

namespace kvplan::engines {

/// bytes / 2^30 with 2 decimals: what vLLM, SGLang and TRT-LLM print as "GiB" or "GB".
std::string gib(std::uint64_t bytes);
/// bytes / 2^20 with 2 decimals: llama.cpp's "MiB".
std::string mib(std::uint64_t bytes);
/// ceil(bytes * ppm / 10^6), exact for bytes < 2^64 / 10^6 * 10^6.
std::uint64_t ceil_frac(std::uint64_t bytes, std::uint32_t ppm);

/// One kind of layer for an engine's grouping: full attention (incl. MLA), one sliding window, or
/// recurrent state, with the per-rank bytes of one layer.
struct LayerType {
  enum class Kind { full, sliding, recurrent } kind = Kind::full;
  std::uint64_t window = 0;          // sliding only
  std::uint32_t layers = 0;
  std::uint64_t bytes_per_token = 0; // per layer per rank (attention kinds)
  std::uint64_t state_bytes = 0;     // per layer per rank per sequence (recurrent)
  const LayerCacheSpec* spec = nullptr;
};

/// The model's layers by kind, in order of first appearance (one entry per distinct window).
std::vector<LayerType> layer_types(const ModelSpec& m, const DType& kv, std::uint32_t tp);

}  // namespace kvplan::engines
