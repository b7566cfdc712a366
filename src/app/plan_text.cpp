// Human descriptions of layer specs and their per-token formulas.
#include "plan_text.hpp"

#include <fmt/format.h>
#include <variant>

#include "kvplan/quantity.hpp"

namespace kvplan {
namespace {

// "2 B" for plain formats; "row(128) = 136 B" for blocked or scaled ones.
std::string element_term(const DType& kv, std::uint32_t dim) {
  if (kv.block_elems == 1 && kv.row_scale_bytes == 0) {
    return fmt::format("{} · {} B", dim, kv.block_bytes);
  }
  return fmt::format("{} B/row ({} elements in {})", row_bytes(kv, dim), dim, kv.name);
}

std::string full_formula(const FullAttention& a, std::uint32_t count, const DType& kv) {
  const std::uint32_t v = a.v_head_dim.value_or(a.head_dim);
  if (v == a.head_dim) {
    return fmt::format("2 · L {} · n_kv {} · d_head {}", count, a.num_key_value_heads, element_term(kv, a.head_dim));
  }
  return fmt::format("L {} · n_kv {} · (K {} + V {})", count, a.num_key_value_heads, element_term(kv, a.head_dim),
                     element_term(kv, v));
}

}  // namespace

std::string attention_kind(std::uint32_t kv_heads, std::uint32_t query_heads) {
  if (kv_heads == 1) {
    return "MQA";
  }
  return kv_heads == query_heads ? "MHA" : "GQA";
}

std::string kind_label(const LayerCacheSpec& spec) {
  return std::visit(overloaded{
                        [](const FullAttention&) { return std::string("full attention"); },
                        [](const SlidingWindow& s) { return fmt::format("sliding window {}", with_commas(s.window_tokens)); },
                        [](const LatentAttention&) { return std::string("MLA latent"); },
                        [](const RecurrentState& r) {
                          switch (r.kind) {
                            case RecurrentState::Kind::mamba:
                              return std::string("Mamba state");
                            case RecurrentState::Kind::short_conv:
                              return std::string("short convolution state");
                            case RecurrentState::Kind::linear_attention:
                              break;
                          }
                          return std::string("linear attention state");
                        },
                        [](const ChunkedLocal& c) { return fmt::format("chunked local {}", with_commas(c.chunk_tokens)); },
                        [](const CrossAttention&) { return std::string("cross attention"); },
                        [](const SharedKV&) { return std::string("shared KV"); },
                        [](const IndexerCache&) { return std::string("sparse-attention indexer"); },
                        [](const NoCache&) { return std::string("attention-free"); },
                    },
                    spec);
}

std::string geometry(const LayerCacheSpec& spec, std::uint32_t query_heads) {
  auto full = [&](const FullAttention& a) {
    std::string v;
    if (a.v_head_dim && *a.v_head_dim != a.head_dim) {
      v = fmt::format(" (V {})", *a.v_head_dim);
    }
    return fmt::format("{}: {} KV heads × head_dim {}{} ({} query heads)", attention_kind(a.num_key_value_heads, query_heads),
                       a.num_key_value_heads, a.head_dim, v, query_heads);
  };
  return std::visit(
      overloaded{
          [&](const FullAttention& a) { return full(a); },
          [&](const SlidingWindow& s) {
            return full(s.attention) + fmt::format(", keeps the last {} tokens", with_commas(s.window_tokens));
          },
          [](const LatentAttention& l) {
            return fmt::format("kv_lora_rank {} + qk_rope_head_dim {} = {} per token, K only, 1 head, not split by TP",
                               l.kv_lora_rank, l.qk_rope_head_dim, l.kv_lora_rank + l.qk_rope_head_dim);
          },
          [](const RecurrentState& r) {
            return fmt::format("fixed state per sequence: conv {} × {} B + recurrent {} × {} B",
                               with_commas(r.conv_elements), r.conv_element_bytes, with_commas(r.ssm_elements),
                               r.ssm_element_bytes);
          },
          [&](const ChunkedLocal& c) {
            return full(c.attention) + fmt::format(", attends within chunks of {} tokens", with_commas(c.chunk_tokens));
          },
          [&](const CrossAttention& c) {
            return full(c.attention) + fmt::format(", over {} encoder tokens per sequence", with_commas(c.encoder_tokens));
          },
          [](const SharedKV& shared) { return fmt::format("reads the cache of layer {}, holds none", shared.source_layer); },
          [](const IndexerCache& i) {
            return fmt::format("{} fp8 + {} B scale per token, 1 head, not split by TP", i.head_dim, i.scale_bytes);
          },
          [](const NoCache&) { return std::string("no attention: an MLP, MoE or linear block"); },
      },
      spec);
}

std::string per_token_formula(const LayerCacheSpec& spec, std::uint32_t count, const DType& kv) {
  return std::visit(
      overloaded{
          [&](const FullAttention& a) { return full_formula(a, count, kv); },
          [&](const SlidingWindow& s) {
            return full_formula(s.attention, count, kv) + fmt::format(", until {} tokens", with_commas(s.window_tokens));
          },
          [&](const LatentAttention& l) {
            return fmt::format("L {} · (r {} + d_rope {}) → {}", count, l.kv_lora_rank, l.qk_rope_head_dim,
                               element_term(kv, l.kv_lora_rank + l.qk_rope_head_dim));
          },
          [&](const RecurrentState& r) {
            return fmt::format("L {} · ({} · {} B + {} · {} B) per sequence, not per token", count,
                               with_commas(r.conv_elements), r.conv_element_bytes, with_commas(r.ssm_elements),
                               r.ssm_element_bytes);
          },
          [&](const ChunkedLocal& c) {
            return full_formula(c.attention, count, kv) + fmt::format(", until {} tokens", with_commas(c.chunk_tokens));
          },
          [&](const CrossAttention& c) {
            return full_formula(c.attention, count, kv) +
                   fmt::format(" · {} encoder tokens, per sequence, not per token", with_commas(c.encoder_tokens));
          },
          [&](const SharedKV&) { return fmt::format("L {} · 0 (shared)", count); },
          [&](const IndexerCache& i) {
            return fmt::format("L {} · ({} · 1 B + {} B), fp8 whatever the KV dtype", count, i.head_dim, i.scale_bytes);
          },
          [&](const NoCache&) { return fmt::format("L {} · 0", count); },
      },
      spec);
}

}  // namespace kvplan
