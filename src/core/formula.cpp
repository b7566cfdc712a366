// The formula engine: one overloaded lambda per layer kind, each with its equation and source.
#include "kvplan/formula.hpp"

#include <algorithm>
#include <cstdint>
#include <variant>

#include "kvplan/units.hpp"

namespace kvplan {
namespace {

std::uint64_t full_bytes_per_token(const FullAttention& a, const DType& kv, std::uint32_t tp) noexcept {
  // vLLM AttentionSpec.real_page_size_bytes / block_size = num_kv_heads * (head_size + head_size_v) * dtype;
  // quantized formats store each head's row in blocks (ggml row_size, vLLM per-token-head scales).
  const std::uint64_t heads = kv_heads_per_rank(a.num_key_value_heads, tp);
  const std::uint64_t k_row = row_bytes(kv, a.head_dim);
  const std::uint64_t v_row = row_bytes(kv, a.v_head_dim.value_or(a.head_dim));
  return sat_mul(heads, sat_add(k_row, v_row));
}

}  // namespace

std::uint32_t kv_heads_per_rank(std::uint32_t num_kv_heads, std::uint32_t tp) noexcept {
  return std::max<std::uint32_t>(1, num_kv_heads / std::max<std::uint32_t>(tp, 1));
}

std::uint64_t bytes_per_token(const LayerCacheSpec& layer, const DType& kv, std::uint32_t tp) noexcept {
  return std::visit(
      overloaded{
          [&](const FullAttention& a) { return full_bytes_per_token(a, kv, tp); },
          [&](const SlidingWindow& s) { return full_bytes_per_token(s.attention, kv, tp); },
          // vLLM MLAAttentionSpec: block_size * 1 head * (kv_lora_rank + qk_rope_head_dim) * dtype,
          // K only, the same on every TP rank.
          [&](const LatentAttention& l) {
            return row_bytes(kv, std::uint64_t{l.kv_lora_rank} + l.qk_rope_head_dim);
          },
          [](const RecurrentState&) { return std::uint64_t{0}; },
          [&](const ChunkedLocal& c) { return full_bytes_per_token(c.attention, kv, tp); },
          // Cross-attention holds encoder tokens, a fixed count per sequence (fixed_bytes_per_sequence).
          [](const CrossAttention&) { return std::uint64_t{0}; },
          [](const SharedKV&) { return std::uint64_t{0}; },
          // vLLM DeepseekV32IndexerCache: head_dim fp8 + an fp32 scale per token, whatever kv is.
          [](const IndexerCache& i) { return std::uint64_t{i.head_dim} + i.scale_bytes; },
          [](const NoCache&) { return std::uint64_t{0}; },
      },
      layer);
}

std::uint64_t tokens_held(const LayerCacheSpec& layer, std::uint64_t seq_len) noexcept {
  return std::visit(overloaded{
                        [&](const FullAttention&) { return seq_len; },
                        [&](const SlidingWindow& s) { return std::min(seq_len, s.window_tokens); },
                        [&](const LatentAttention&) { return seq_len; },
                        [](const RecurrentState&) { return std::uint64_t{0}; },
                        [&](const ChunkedLocal& c) { return std::min(seq_len, c.chunk_tokens); },
                        [](const CrossAttention&) { return std::uint64_t{0}; },
                        [](const SharedKV&) { return std::uint64_t{0}; },
                        [&](const IndexerCache&) { return seq_len; },
                        [](const NoCache&) { return std::uint64_t{0}; },
                    },
                    layer);
}

std::uint64_t fixed_bytes_per_sequence(const LayerCacheSpec& layer, const DType& kv, std::uint32_t tp) noexcept {
  // vLLM MambaSpec.page_size_bytes = sum(prod(shape) * dtype_size); every state shape is
  // divided across TP ranks (mamba_utils.py MambaStateShapeCalculator).
  const std::uint64_t ranks = std::max<std::uint32_t>(tp, 1);
  return std::visit(overloaded{
                        [](const FullAttention&) { return std::uint64_t{0}; },
                        [](const SlidingWindow&) { return std::uint64_t{0}; },
                        [](const LatentAttention&) { return std::uint64_t{0}; },
                        [&](const RecurrentState& state) {
                          return sat_add(sat_mul(state.conv_elements / ranks, state.conv_element_bytes),
                                         sat_mul(state.ssm_elements / ranks, state.ssm_element_bytes));
                        },
                        [](const ChunkedLocal&) { return std::uint64_t{0}; },
                        // vLLM CrossAttentionSpec: K and V of every encoder token, heads split by TP.
                        [&](const CrossAttention& c) {
                          return sat_mul(full_bytes_per_token(c.attention, kv, tp), c.encoder_tokens);
                        },
                        [](const SharedKV&) { return std::uint64_t{0}; },
                        [](const IndexerCache&) { return std::uint64_t{0}; },
                        [](const NoCache&) { return std::uint64_t{0}; },
                    },
                    layer);
}

std::uint64_t layer_bytes_per_sequence(const LayerCacheSpec& layer, const Deployment& d) noexcept {
  const std::uint64_t block = std::max<std::uint64_t>(d.block_size, 1);
  // Context parallelism (ring attention) gives each rank ceil(S / cp) of a sequence's tokens.
  const std::uint64_t shard = ceil_div(tokens_held(layer, d.seq_len), std::max<std::uint32_t>(d.context_parallel, 1));
  const std::uint64_t tokens = round_up(shard, block);
  return sat_add(sat_mul(bytes_per_token(layer, d.kv_dtype, d.tensor_parallel), tokens),
                 fixed_bytes_per_sequence(layer, d.kv_dtype, d.tensor_parallel));
}

std::uint64_t kv_bytes_per_sequence(const ModelSpec& m, const Deployment& d) noexcept {
  std::uint64_t total = 0;
  for (const LayerGroup& g : m.layers) {
    total = sat_add(total, sat_mul(g.count, layer_bytes_per_sequence(g.spec, d)));
  }
  return total;
}

std::uint64_t kv_cache_bytes_per_gpu(const ModelSpec& m, const Deployment& d) noexcept {
  return sat_mul(d.batch, kv_bytes_per_sequence(m, d));
}

std::uint64_t kv_cache_bytes_total(const ModelSpec& m, const Deployment& d) noexcept {
  return sat_mul(sat_mul(kv_cache_bytes_per_gpu(m, d), std::max<std::uint32_t>(d.tensor_parallel, 1)),
                 std::max<std::uint32_t>(d.context_parallel, 1));
}

std::uint64_t model_kv_bytes_per_token(const ModelSpec& m, const DType& kv) noexcept {
  std::uint64_t total = 0;
  for (const LayerGroup& g : m.layers) {
    total = sat_add(total, sat_mul(g.count, bytes_per_token(g.spec, kv, 1)));
  }
  return total;
}

std::uint64_t model_kv_bytes_per_token_past_windows(const ModelSpec& m, const DType& kv) noexcept {
  std::uint64_t total = 0;
  for (const LayerGroup& g : m.layers) {
    const bool grows = std::visit(overloaded{
                                      [](const FullAttention&) { return true; },
                                      [](const SlidingWindow&) { return false; },  // its window is full
                                      [](const LatentAttention&) { return true; },
                                      [](const RecurrentState&) { return false; },
                                      [](const ChunkedLocal&) { return false; },  // its chunk is full
                                      [](const CrossAttention&) { return false; },
                                      [](const SharedKV&) { return false; },
                                      [](const IndexerCache&) { return true; },
                                      [](const NoCache&) { return false; },
                                  },
                                  g.spec);
    if (grows) {
      total = sat_add(total, sat_mul(g.count, bytes_per_token(g.spec, kv, 1)));
    }
  }
  return total;
}

std::uint64_t model_fixed_bytes_per_sequence(const ModelSpec& m, const DType& kv) noexcept {
  std::uint64_t total = 0;
  for (const LayerGroup& g : m.layers) {
    total = sat_add(total, sat_mul(g.count, fixed_bytes_per_sequence(g.spec, kv, 1)));
  }
  return total;
}

std::uint64_t weight_bytes_per_gpu(const ParamCounts& p, const WeightFormat& w, std::uint32_t tp) noexcept {
  if (p.stated_bytes > 0 && p.stated_params > 0) {
    // --weights SIZE: this share of the stated checkpoint, in proportion to its parameters
    // stated_bytes * total / stated_params in 128 bits: both counts reach 10^12
    __extension__ using Wide = unsigned __int128;
    const Wide share = static_cast<Wide>(p.stated_bytes) * p.total() / p.stated_params;
    const std::uint64_t bytes = share > UINT64_MAX ? UINT64_MAX : static_cast<std::uint64_t>(share);
    return ceil_div(bytes, std::max<std::uint32_t>(tp, 1));
  }
  const std::uint64_t kept_attention = w.skip_list ? std::min(p.attention_16bit, p.attention) : 0;
  const std::uint64_t kept_mlp = w.skip_list ? std::min(p.mlp_16bit, p.mlp) : 0;
  const std::uint64_t unquantized = tensor_bytes(
      w.embeddings,
      sat_add(sat_add(sat_add(sat_add(p.embedding, p.lm_head), p.norms), p.vision), sat_add(kept_attention, kept_mlp)));
  const std::uint64_t linear = sat_add(tensor_bytes(w.attention.value_or(w.linear), p.attention - kept_attention),
                                       tensor_bytes(w.linear, p.mlp - kept_mlp));
  const std::uint64_t experts = tensor_bytes(w.experts, p.experts);
  return ceil_div(sat_add(sat_add(unquantized, linear), experts), std::max<std::uint32_t>(tp, 1));
}

}  // namespace kvplan
