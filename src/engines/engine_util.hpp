// Helpers shared by the engine modules (src/engines only): GiB printing as the engines print it,
// fractions in parts per million, the layer kinds a model's cache splits into, and the pieces of
// command-line recognition every engine needs.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kvplan/engine.hpp"
#include "kvplan/formula.hpp"
#include "kvplan/model.hpp"

namespace kvplan::engines {

/// bytes / 2^30 with 2 decimals: what vLLM, SGLang and TRT-LLM print as "GiB" or "GB".
std::string gib(std::uint64_t bytes);
/// bytes / 2^20 with 2 decimals: llama.cpp's "MiB".
std::string mib(std::uint64_t bytes);
/// ceil(bytes * ppm / 10^6), exact for bytes < 2^64 / 10^6 * 10^6.
std::uint64_t ceil_frac(std::uint64_t bytes, std::uint32_t ppm);

/// The share of a KV budget that capacity and start-up checks may use: budget × (1 − margin).
std::uint64_t with_margin(std::uint64_t budget_bytes, std::uint32_t margin_ppm);

/// One kind of layer for an engine's grouping: full attention (incl. MLA and the indexer), one
/// sliding window, one chunk size, cross-attention over encoder tokens, or recurrent state, with the
/// per-rank bytes of one layer. Layers that hold nothing (shared KV, no attention) are in none.
struct LayerType {
  enum class Kind { full, sliding, chunked, encoder, recurrent } kind = Kind::full;
  std::uint64_t window = 0;          // sliding: the window; chunked: the chunk; encoder: its tokens per request
  std::uint32_t layers = 0;
  std::uint64_t bytes_per_token = 0; // per layer per rank (attention kinds)
  std::uint64_t state_bytes = 0;     // per layer per rank per sequence (recurrent)
  bool latent = false;               // MLA: one latent per token, K only
  std::uint32_t kv_heads = 0;        // full and sliding: the layer's KV heads (all ranks)
  RecurrentState::Kind recurrence = RecurrentState::Kind::linear_attention;  // recurrent: which state it holds
};

/// The model's layers by kind, in order of first appearance (one entry per distinct window).
std::vector<LayerType> layer_types(const ModelSpec& m, const DType& kv, std::uint32_t tp);

/// The file name of a path or command word: "/usr/bin/llama-server" -> "llama-server".
std::string_view program_name(std::string_view word);
/// `python -m MODULE` (python, python3, python3.11, a path to one): the index after MODULE, or nullopt.
std::optional<std::size_t> python_module(std::span<const std::string> argv, std::string_view module);

/// A container image split into its repository (registry host dropped) and tag ("" when absent):
/// "docker.io/vllm/vllm-openai:v0.11.0" -> {"vllm/vllm-openai", "v0.11.0"}.
struct Image {
  std::string repository;
  std::string tag;
};
Image split_image(std::string_view image);

/// vLLM's human_readable_int (vllm/engine/arg_utils.py): "32768", "32k" (10^3), "32K" (2^10), "1.5m".
KnobValue human_readable_int(std::string_view where, std::string_view text);
/// A decimal number of GiB, as vLLM's --cpu-offload-gb and --swap-space take it, in bytes.
KnobValue decimal_gib(std::string_view where, std::string_view text);
/// on|off (also true/false, 1/0), for flags that take their state as a value (llama.cpp's --fit on).
KnobValue on_off(std::string_view where, std::string_view text);
/// A plain decimal fraction as the engines' float flags take it ("0.9", ".85"), in parts per million.
KnobValue engine_fraction(std::string_view where, std::string_view text);

}  // namespace kvplan::engines
