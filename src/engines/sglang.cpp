// SGLang: mem_fraction_static (derived per GPU size when not given) of the memory free at start,
// minus what loading consumed, in token slots; hybrid SWA and Mamba models get separate pools.
// Sources (docs/engines.md section 2): server_args.py _handle_gpu_memory_settings,
// pool_configurator.py / kv_cache_configurator.py _profile_available_bytes, _compute_cell_size,
// HybridSWAPoolConfigurator, _handle_max_mamba_cache; scheduler.py (log line).
#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "engine_util.hpp"
#include "kvplan/engine.hpp"
#include "kvplan/quantity.hpp"
#include "kvplan/units.hpp"

namespace kvplan {
namespace {

using engines::LayerType;

// Version keys are minor versions of 0.x.
constexpr int kPerGpuFractionSince = 5;  // _handle_gpu_memory_settings (v0.5.x) derives the fraction per GPU

// Calibrated on the one SGLang entry (sglang-doc-qwq32b-tp4-l4, v0.4.3.post4): memory in use
// before the weights load (CUDA context) and what loading uses beyond the weights themselves.
constexpr std::uint64_t kStartupBytes = 328 * kMiB;     // 21.95 GiB total - 21.63 GiB free at start
constexpr std::uint64_t kLoadOverheadBytes = 297 * kMiB;  // 15.54 GiB "mem usage" - 15.25 GiB of weights

struct Defaults {
  std::uint64_t chunked_prefill = 4096;
  std::uint64_t cuda_graph_max_bs = 160;
};

// _handle_gpu_memory_settings: by device memory in MiB.
Defaults defaults(std::uint64_t gpu_mib, std::uint32_t tp) {
  if (gpu_mib < 20 * 1024) {
    return {2048, 8};
  }
  if (gpu_mib < 35 * 1024) {
    return {2048, tp < 4 ? 24U : 80U};
  }
  if (gpu_mib < 60 * 1024) {
    return {4096, tp < 4 ? 32U : 160U};
  }
  if (gpu_mib < 160 * 1024) {
    return {8192, tp < 4 ? 256U : 512U};
  }
  return {16384, 512};
}

std::uint32_t default_fraction(int version, std::uint64_t gpu_mib, std::uint32_t tp, std::uint32_t pp,
                               std::uint64_t chunked, std::uint64_t graph_bs, std::string& why) {
  if (version < kPerGpuFractionSince) {
    // python/sglang/srt/server_args.py ServerArgs.__post_init__ (0.4.x): by tensor-parallel size
    // (copies of that file read via the code search; 0.3.x had 0.83 at tp >= 8)
    why = "0.4.x default by tp size";
    return tp >= 16 ? 790'000 : tp >= 8 ? 810'000 : tp >= 4 ? 850'000 : tp >= 2 ? 870'000 : 880'000;
  }
  double reserved = 512 + static_cast<double>(std::max<std::uint64_t>(chunked, 2048)) * 1.5 +
                    static_cast<double>(graph_bs) * 2 + static_cast<double>(tp) * pp / 8 * 1024;
  if (gpu_mib > 60 * 1024) {
    reserved = std::max(reserved, 10.0 * 1024);
  }
  why = fmt::format("(gpu_mem {} MiB − reserved {:.0f} MiB) / gpu_mem", gpu_mib, reserved);
  const double f = std::round((static_cast<double>(gpu_mib) - reserved) / static_cast<double>(gpu_mib) * 1000) / 1000;
  return static_cast<std::uint32_t>(std::lround(f * 1e6));
}

}  // namespace

EnginePrediction predict_sglang(const EngineInputs& in) {
  const ModelSpec& m = *in.model;
  const EngineSettings& s = in.settings;
  EnginePrediction p;
  const std::uint64_t gpu_mib = in.gpu_memory_bytes / kMiB;
  const Defaults d = defaults(gpu_mib, in.tensor_parallel);
  const std::uint64_t chunked = s.chunked_prefill_size.value_or(d.chunked_prefill);
  std::string why = "--mem-fraction-static";
  const std::uint32_t f = s.mem_fraction_static_ppm.value_or(
      default_fraction(in.version, gpu_mib, in.tensor_parallel, in.pipeline_parallel, chunked, d.cuda_graph_max_bs, why));
  const std::uint64_t page = s.page_size.value_or(1);
  p.max_model_len = in.max_model_len.value_or(m.max_position_embeddings);

  const std::uint64_t free_at_start = sat_sub(in.gpu_memory_bytes, kStartupBytes);
  const std::uint64_t weights = sat_add(weight_bytes_per_gpu(m.params, in.weights, in.tensor_parallel), kLoadOverheadBytes);
  const std::uint64_t after_load = sat_sub(free_at_start, weights);
  const std::uint64_t held_back = in.gpu_memory_bytes == 0 ? 0 : mul_frac(free_at_start, 1'000'000 - f, 1'000'000);
  std::uint64_t rest = sat_sub(after_load, held_back);

  const std::vector<LayerType> types = engines::layer_types(m, in.kv_dtype, in.tensor_parallel);
  std::uint64_t full_cell = 0;
  std::uint64_t swa_cell = 0;
  std::uint64_t state_per_request = 0;
  for (const LayerType& t : types) {
    if (t.kind == LayerType::Kind::full) {
      full_cell += t.layers * t.bytes_per_token;
    } else if (t.kind == LayerType::Kind::sliding) {
      swa_cell += t.layers * t.bytes_per_token;
    } else {
      state_per_request += t.layers * t.state_bytes;
    }
  }
  std::uint64_t mamba_slots = 0;
  if (state_per_request > 0) {
    // _handle_max_mamba_cache: mamba_full_memory_ratio 0.9 -> rest * 0.9 / 1.9 for states
    const std::uint64_t budget = mul_frac(rest, 9, 19);
    mamba_slots = budget > state_per_request ? (budget - state_per_request) / state_per_request : 0;
    rest = sat_sub(rest, sat_mul(mamba_slots + 1, state_per_request));
  }
  // HybridSWAPoolConfigurator: swa_full_tokens_ratio 0.8; all-SWA models have no ratio.
  const bool hybrid_swa = full_cell > 0 && swa_cell > 0;
  const std::uint64_t cell = hybrid_swa ? full_cell + mul_frac(swa_cell, 8, 10) : full_cell + swa_cell;
  const std::uint64_t tokens = cell == 0 ? 0 : rest / cell / page * page;
  const std::uint64_t swa_tokens = hybrid_swa ? mul_frac(tokens, 8, 10) / page * page : 0;
  std::uint64_t running = std::min<std::uint64_t>(
      std::clamp<std::uint64_t>(p.max_model_len == 0 ? 0 : tokens * 512 / p.max_model_len, 2048, 4096), tokens / 2);
  if (mamba_slots > 0) {
    running = std::min(running, mamba_slots / 3);  // 3 state slots per request with the radix cache
  }
  p.kv_budget_bytes = rest;
  p.fits = tokens >= p.max_model_len && tokens > 0;
  p.budget = {
      {"total_gpu_memory_bytes", "Total GPU memory", Cell::bytes(in.gpu_memory_bytes), ""},
      {"free_at_start_bytes", "Free at start", Cell::bytes(free_at_start), "before weights (CUDA context held)"},
      {"weights_bytes", "− Weights loaded", Cell::bytes(weights), "\"Load weight end ... mem usage\""},
      {"mem_fraction_static", "mem_fraction_static", Cell::number(static_cast<double>(f) / 1e6), why},
      {"held_back_bytes", "− Held back", Cell::bytes(held_back), "free at start × (1 − mem_fraction_static)"},
  };
  if (mamba_slots > 0) {
    p.budget.push_back({"mamba_state_bytes", "− Mamba state pool", Cell::bytes((mamba_slots + 1) * state_per_request),
                        fmt::format("{} slots of {}", mamba_slots, format_bytes(state_per_request))});
  }
  p.budget.push_back({"kv_pool_bytes", "= KV pool", Cell::bytes(rest), ""});
  const std::uint64_t k_bytes = tokens * (full_cell + (hybrid_swa ? 0 : swa_cell)) / 2;
  p.fields = {
      {"mem_fraction_static", "mem_fraction_static", Cell::number(static_cast<double>(f) / 1e6), why},
      {"max_total_num_tokens", "max_total_num_tokens", Cell::tokens(tokens), fmt::format("{} B per token", with_commas(cell))},
      {"max_running_requests", "max_running_requests", Cell::count(running), ""},
      {"page_size", "page_size", Cell::tokens(page), ""},
      {"chunked_prefill_size", "chunked_prefill_size", Cell::tokens(chunked), ""},
      {"context_len", "context_len", Cell::tokens(p.max_model_len), ""},
  };
  if (hybrid_swa) {
    p.fields.push_back({"swa_tokens", "SWA pool tokens", Cell::tokens(swa_tokens), "0.8 × full pool"});
    p.log_lines.push_back(fmt::format("Use sliding window memory pool. full_layer_tokens={}, swa_layer_tokens={}",
                                      tokens, swa_tokens));
  } else if (std::any_of(types.begin(), types.end(), [](const LayerType& t) {
               return t.spec != nullptr && std::holds_alternative<LatentAttention>(*t.spec);
             })) {
    p.log_lines.push_back(fmt::format("KV Cache is allocated. #tokens: {}, KV size: {} GB", tokens,
                                      engines::gib(tokens * cell)));
  } else {
    p.log_lines.push_back(fmt::format("KV Cache is allocated. #tokens: {}, K size: {} GB, V size: {} GB", tokens,
                                      engines::gib(k_bytes), engines::gib(k_bytes)));
  }
  p.log_lines.push_back(fmt::format("max_total_num_tokens={}, chunked_prefill_size={}, max_prefill_tokens=16384, "
                                    "max_running_requests={}, context_len={}",
                                    tokens, chunked, running, p.max_model_len));
  for (std::uint64_t len : in.frontier_lengths) {
    if (len <= p.max_model_len) {
      p.frontier.emplace_back(len, std::min(running, tokens / len));
    }
  }
  p.notes.push_back("Startup and load overheads are calibrated on one SGLang 0.4.3 log; treat them as uncertain.");
  return p;
}

}  // namespace kvplan
