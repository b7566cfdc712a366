// TensorRT-LLM: free_gpu_memory_fraction (0.9) of what is free after its profiling run, in blocks
// of tokens_per_block (32), with KV heads per rank ceil(n_kv / tp) and MLA K-only.
// Sources (docs/engines.md section 3): tensorrt_llm/_torch/pyexecutor/_util.py KvCacheCreator
// (configure_kv_cache_capacity), resource_manager.py get_cache_bytes_per_token and
// calculate_max_num_blocks, llmapi/llm_args.py KvCacheConfig; cpp kvCacheManager.cpp
// calculateMaxNumBlocks (TRT-engine path).
#include <algorithm>
#include <fmt/format.h>
#include <variant>

#include "engine_util.hpp"
#include "kvplan/budget.hpp"
#include "kvplan/engine.hpp"
#include "kvplan/quantity.hpp"
#include "kvplan/units.hpp"

namespace kvplan {
namespace {

// Version keys are major * 100 + minor: 0.5 -> 5, 1.3 -> 103.
constexpr int kPytorchBackendSince = 100;  // 1.0: the PyTorch backend and LLM API defaults

// get_cache_bytes_per_token: kv_factor (2, or 1 for MLA) x sum of ceil(n_kv / tp) x head_dim x bytes.
std::uint64_t bytes_per_token(const ModelSpec& m, const DType& kv, std::uint32_t tp) {
  std::uint64_t total = 0;
  for (const LayerGroup& g : m.layers) {
    std::uint64_t per_layer = 0;
    if (const auto* full = std::get_if<FullAttention>(&g.spec)) {
      per_layer = ceil_div(full->num_key_value_heads, tp) *
                  (row_bytes(kv, full->head_dim) + row_bytes(kv, full->v_head_dim.value_or(full->head_dim)));
    } else if (const auto* swa = std::get_if<SlidingWindow>(&g.spec)) {
      const FullAttention& a = swa->attention;
      per_layer = ceil_div(a.num_key_value_heads, tp) *
                  (row_bytes(kv, a.head_dim) + row_bytes(kv, a.v_head_dim.value_or(a.head_dim)));
    } else if (const auto* mla = std::get_if<LatentAttention>(&g.spec)) {
      per_layer = row_bytes(kv, std::uint64_t{mla->kv_lora_rank} + mla->qk_rope_head_dim);
    }
    total += g.count * per_layer;
  }
  return total;
}

}  // namespace

EnginePrediction predict_trtllm(const EngineInputs& in) {
  const ModelSpec& m = *in.model;
  const EngineSettings& s = in.settings;
  EnginePrediction p;
  const std::uint32_t fraction = s.free_gpu_memory_fraction_ppm.value_or(900'000);
  const std::uint64_t tpb = s.tokens_per_block.value_or(in.version >= kPytorchBackendSince ? 32 : 64);
  const std::uint64_t max_num_tokens = s.max_num_tokens.value_or(8192);
  p.max_model_len = in.max_model_len.value_or(m.max_position_embeddings);

  const std::uint64_t weights = weight_bytes_per_gpu(m.params, in.weights, in.tensor_parallel);
  // The profiling peak: kvplan's engine-neutral reserve (activations of a max_num_tokens batch,
  // CUDA graphs, NCCL). No TensorRT-LLM profiling log is in the calibration set to refine it.
  Reserve reserve = estimate_reserve(m.vocab_size, in.tensor_parallel);
  reserve.activations_bytes = s.activation_bytes.value_or(reserve.activations_bytes);
  reserve.framework_bytes = s.non_torch_bytes.value_or(reserve.framework_bytes);
  reserve.cuda_graphs_bytes = s.cuda_graph_bytes.value_or(reserve.cuda_graphs_bytes);
  const std::uint64_t peak = sat_add(weights, reserve.total());
  const std::uint64_t free_after = sat_sub(in.gpu_memory_bytes, peak);
  const std::uint64_t available = mul_frac(free_after, fraction, 1'000'000);
  const std::uint64_t per_token = bytes_per_token(m, in.kv_dtype, in.tensor_parallel);
  const std::uint64_t max_tokens = per_token == 0 ? 0 : available / per_token;
  const std::uint64_t blocks = max_tokens / tpb;
  p.kv_budget_bytes = available;
  p.fits = blocks * tpb >= p.max_model_len;
  p.budget = {
      {"total_gpu_memory_bytes", "Device total memory", Cell::bytes(in.gpu_memory_bytes), ""},
      {"weights_bytes", "− Weights", Cell::bytes(weights), ""},
      {"peak_non_weight_bytes", "− Profiling peak beyond weights", Cell::bytes(reserve.total()),
       fmt::format("kvplan's engine-neutral estimate, not yet scaled by max_num_tokens {}", with_commas(max_num_tokens))},
      {"free_gpu_memory_fraction", "free_gpu_memory_fraction", Cell::number(static_cast<double>(fraction) / 1e6),
       s.free_gpu_memory_fraction_ppm ? "--free-gpu-memory-fraction" : "KvCacheConfig default"},
      {"available_kv_bytes", "= Available KV cache memory", Cell::bytes(available), "(total − peak) × fraction"},
  };
  p.fields = {
      {"kv_bytes_per_token", "kv size per token", Cell::bytes(per_token), "KV heads per rank: ceil(n_kv / tp)"},
      {"max_tokens", "max tokens", Cell::tokens(max_tokens), ""},
      {"tokens_per_block", "tokens per block", Cell::tokens(tpb), ""},
      {"blocks_in_primary_pool", "blocks in primary pool", Cell::count(blocks), "max_tokens // tokens_per_block"},
  };
  p.log_lines.push_back(fmt::format("Number of blocks in KV cache primary pool: {}", blocks));
  p.log_lines.push_back(fmt::format("Number of tokens per block: {}.", tpb));
  p.log_lines.push_back(fmt::format("[MemUsageChange] Allocated {} GiB for max tokens in paged KV cache ({}).",
                                    engines::gib(blocks * tpb * per_token), max_tokens));
  if (!p.fits) {
    p.log_lines.push_back(fmt::format("maxAttentionWindow and maxSequenceLen are too large for at least one sequence to "
                                      "fit in kvCache. they are reduced to {}",
                                      blocks * tpb));
  }
  for (std::uint64_t len : in.frontier_lengths) {
    if (len <= p.max_model_len) {
      p.frontier.emplace_back(len, blocks / ceil_div(len, tpb));
    }
  }
  p.notes.push_back("TensorRT-LLM's profiling peak is not calibrated: no log of its PyTorch backend is in the "
                    "calibration set; give the measured figure with --reserve when you have one.");
  return p;
}

}  // namespace kvplan
