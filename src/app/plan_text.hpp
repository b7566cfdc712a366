// Human descriptions of layer specs and formulas, shared by the plan sections (src/app only).
#pragma once

#include <string>

#include "kvplan/dtype.hpp"
#include "kvplan/model.hpp"

namespace kvplan {

/// "full attention", "sliding window 4,096", "MLA latent", "linear attention state".
std::string kind_label(const LayerCacheSpec& spec);

/// "GQA: 8 KV heads x 128 (64 query heads)" and the like.
std::string geometry(const LayerCacheSpec& spec, std::uint32_t query_heads);

/// "2 * 80 * 8 * 128 * 2 B" for `count` layers of `spec` in `kv`, the per-token bytes formula.
std::string per_token_formula(const LayerCacheSpec& spec, std::uint32_t count, const DType& kv);

/// "MHA", "GQA", "MQA" for full attention with these head counts.
std::string attention_kind(std::uint32_t kv_heads, std::uint32_t query_heads);

}  // namespace kvplan
