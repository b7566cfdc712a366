// vLLM (V1 engine): budget, KV cache groups, blocks, and the "GPU KV cache size" and "Maximum
// concurrency" it logs. Sources (docs/engines.md): vllm/v1/worker/gpu_worker.py
// determine_available_memory, vllm/v1/core/kv_cache_utils.py get_kv_cache_configs /
// _report_kv_cache_config, vllm/v1/kv_cache_interface.py, vllm/engine/arg_utils.py
// get_batch_defaults, vllm/platforms/interface.py _align_hybrid_block_size.
#include <algorithm>
#include <fmt/format.h>

#include "engine_util.hpp"
#include "kvplan/budget.hpp"
#include "kvplan/error.hpp"
#include "kvplan/engine.hpp"
#include "kvplan/quantity.hpp"
#include "kvplan/units.hpp"

namespace kvplan {
namespace {

using engines::LayerType;

// Version keys are minor versions of 0.x.
constexpr int kCudaGraphEstimateSince = 21;   // VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=1 by default
constexpr int kUtilization092Since = 25;      // CacheConfig.gpu_memory_utilization default 0.92
constexpr int kTokensFromConcurrencySince = 27;  // num_tokens = int(max_concurrency * max_model_len)
constexpr int kLargeGpuTierSince = 28;        // >= 160 GiB devices get max_num_batched_tokens 16384

// Activation peak of the profiling run, calibrated on 15 vLLM 0.19.0 H100 runs at the API-server
// defaults max_num_batched_tokens 8192 and max_num_seqs 1024 (docs/budget.md): 445 MiB for the
// forward, scaled by the batched tokens, plus ~13 B per vocabulary entry per sampled row (the
// sampler's fp32 logits and their copies).
std::uint64_t activation_bytes(std::uint64_t vocab, std::uint64_t batched_tokens, std::uint64_t max_seqs,
                               bool samples) {
  const ReserveModel fit;
  constexpr std::uint64_t kBytesPerVocabRow = 13;  // the fit's 13,300 B per vocab entry / 1,024 rows
  const std::uint64_t forward = mul_frac(fit.activation_base_bytes, batched_tokens, 8192);
  const std::uint64_t rows = samples ? std::min(max_seqs, batched_tokens) : 0;  // only the last PP stage samples
  return sat_add(forward, sat_mul(sat_mul(vocab, kBytesPerVocabRow), rows));
}

struct Layout {
  std::uint64_t block_size = 16;
  std::uint64_t page_bytes = 0;        // one block of one layer, per rank
  std::uint64_t group_size = 0;        // layers per group (tensors shared across groups)
  std::vector<LayerType> group_kinds;  // one entry per KV cache group
  std::string note;
};

Layout layout(const std::vector<LayerType>& types, std::uint64_t block) {
  Layout l;
  l.block_size = block;
  std::uint64_t attention_ppt = 0;
  std::uint64_t state = 0;
  for (const LayerType& t : types) {
    if (t.kind == LayerType::Kind::recurrent) {
      state = std::max(state, t.state_bytes);
    } else {
      attention_ppt = std::max(attention_ppt, t.bytes_per_token);
    }
  }
  if (state > 0 && attention_ppt > 0 && block * attention_ppt < state) {
    // _align_hybrid_block_size: raise the attention block until its page holds a Mamba state.
    const std::uint64_t align = std::max<std::uint64_t>(16, block);
    l.block_size = align * ceil_div(state, align * attention_ppt);
    l.note = fmt::format("Setting attention block size to {} tokens to ensure that attention page size is >= mamba "
                         "page size.",
                         l.block_size);
  }
  l.page_bytes = attention_ppt > 0 ? l.block_size * attention_ppt : state;
  if (types.size() == 1) {
    l.group_size = types.front().layers;
    l.group_kinds = types;
    return l;
  }
  // _get_kv_cache_groups_uniform_page_size: group_size = min layers per type, or the max when
  // max < 1.5 * min; each type is split into cdiv(n, group_size) groups (padding layers fill gaps).
  std::uint64_t lo = kSaturated;
  std::uint64_t hi = 0;
  for (const LayerType& t : types) {
    lo = std::min<std::uint64_t>(lo, t.layers);
    hi = std::max<std::uint64_t>(hi, t.layers);
  }
  l.group_size = 2 * hi < 3 * lo ? hi : lo;
  for (const LayerType& t : types) {
    for (std::uint64_t g = 0; g < ceil_div(t.layers, l.group_size); ++g) {
      l.group_kinds.push_back(t);
    }
  }
  return l;
}

// kv_cache_interface.py max_memory_usage_bytes, in blocks, for one request of `len` tokens.
// Decode context parallelism (dcp > 1) gives each rank cdiv(len, dcp) of a request's tokens
// (FullAttentionSpec.max_memory_usage_bytes); Mamba state stays whole on every rank.
std::uint64_t blocks_per_request(const Layout& l, std::uint64_t len, std::uint64_t batched_tokens, std::uint64_t dcp) {
  std::uint64_t blocks = 0;
  for (const LayerType& g : l.group_kinds) {
    switch (g.kind) {
      case LayerType::Kind::full:
        blocks += ceil_div(ceil_div(len, dcp), l.block_size);
        break;
      case LayerType::Kind::sliding:  // SlidingWindowSpec: the window may not start at a block edge
        blocks += ceil_div(std::min(g.window - 1 + batched_tokens, len), l.block_size) + 1;
        break;
      case LayerType::Kind::recurrent:  // MambaSpec, mamba_cache_mode "none"
        blocks += 1;
        break;
    }
  }
  return blocks;
}

}  // namespace

EnginePrediction predict_vllm(const EngineInputs& in) {
  const ModelSpec& m = *in.model;
  const EngineSettings& s = in.settings;
  EnginePrediction p;
  const bool large = in.gpu_memory_bytes >= 70 * kGiB;  // get_batch_defaults (the "a100" name check aside)
  const bool huge = in.version >= kLargeGpuTierSince && in.gpu_memory_bytes >= 160 * kGiB;
  const std::uint64_t batched = s.max_num_batched_tokens.value_or(huge ? 16384 : large ? 8192 : 2048);
  const std::uint64_t max_seqs = s.max_num_seqs.value_or(large ? 1024 : 256);
  p.max_model_len = in.max_model_len.value_or(m.max_position_embeddings);

  std::uint64_t available = 0;
  bool weights_fit = true;
  if (s.kv_cache_memory_bytes) {
    available = *s.kv_cache_memory_bytes;
    weights_fit = sat_add(weight_bytes_per_gpu(m.params, in.weights, in.tensor_parallel), available) <= in.gpu_memory_bytes;
    p.budget.push_back({"kv_cache_memory_bytes", "--kv-cache-memory", Cell::bytes(available),
                        "given: profiling still runs, utilization is ignored"});
  } else {
    const std::uint32_t util = s.gpu_memory_utilization_ppm.value_or(in.version >= kUtilization092Since ? 920'000 : 900'000);
    const std::uint64_t requested = engines::ceil_frac(in.gpu_memory_bytes, util);
    const std::uint64_t weights = weight_bytes_per_gpu(m.params, in.weights, in.tensor_parallel);
    const std::uint64_t activations =
        s.activation_bytes.value_or(activation_bytes(m.vocab_size, batched, max_seqs, in.last_stage));
    const ReserveModel fit;
    const std::uint64_t non_torch = s.non_torch_bytes.value_or(in.tensor_parallel > 1 ? fit.framework_multi_gpu_bytes
                                                                                      : fit.framework_tp1_bytes);
    const std::uint64_t graphs =
        in.version >= kCudaGraphEstimateSince ? s.cuda_graph_bytes.value_or(fit.cuda_graphs_bytes) : 0;
    available = sat_sub(requested, sat_add(sat_add(weights, activations), sat_add(non_torch, graphs)));
    p.budget = {
        {"total_gpu_memory_bytes", "Total GPU memory", Cell::bytes(in.gpu_memory_bytes), "cudaMemGetInfo total"},
        {"gpu_memory_utilization", "gpu_memory_utilization", Cell::number(static_cast<double>(util) / 1e6),
         s.gpu_memory_utilization_ppm ? "--gpu-memory-utilization"
                                      : fmt::format("default in vLLM 0.{}", in.version)},
        {"requested_memory_bytes", "Requested memory", Cell::bytes(requested), "ceil(total × utilization)"},
        {"weights_bytes", "− Model weights", Cell::bytes(weights), "\"Model loading took\""},
        {"activation_peak_bytes", "− Torch peak increase", Cell::bytes(activations),
         fmt::format("profiling run of {} tokens, sampler over {} rows", with_commas(batched),
                     with_commas(std::min(max_seqs, batched)))},
        {"non_torch_bytes", "− Non-torch memory", Cell::bytes(non_torch),
         in.tensor_parallel > 1 ? "CUDA context + NCCL" : "CUDA context"},
        {"cuda_graph_bytes", "− CUDA graph estimate", Cell::bytes(graphs),
         graphs > 0 ? "subtracted since v0.21" : "not subtracted before v0.21 (graphs live in the headroom)"},
    };
  }
  p.kv_budget_bytes = available;
  p.budget.push_back({"available_kv_cache_bytes", "= Available KV cache memory", Cell::bytes(available), ""});

  const std::vector<LayerType> types = engines::layer_types(m, in.kv_dtype, in.tensor_parallel);
  const Layout l = layout(types, s.block_size.value_or(16));
  const std::uint64_t dcp = std::max<std::uint32_t>(in.context_parallel, 1);
  if (dcp > 1 && std::any_of(types.begin(), types.end(), [](const LayerType& t) { return t.kind == LayerType::Kind::sliding; })) {
    throw Error("vLLM does not support decode context parallelism with sliding-window layers (kv_cache_interface.py "
                "asserts it off)");
  }
  const std::uint64_t bytes_per_block = sat_mul(l.page_bytes, l.group_size);
  const std::uint64_t num_blocks = bytes_per_block == 0 ? 0 : available / bytes_per_block;
  const std::uint64_t per_request = blocks_per_request(l, p.max_model_len, batched, dcp);
  const double concurrency = static_cast<double>(num_blocks) / static_cast<double>(per_request);
  const std::uint64_t groups = l.group_kinds.size();
  const std::uint64_t tokens = in.version >= kTokensFromConcurrencySince
                                   ? static_cast<std::uint64_t>(concurrency * static_cast<double>(p.max_model_len))
                                   : num_blocks / groups * l.block_size * dcp;  // "Multiplying ... by the cp_world_size"
  p.fields = {
      {"available_kv_cache_bytes", "Available KV cache memory", Cell::bytes(available), ""},
      {"num_gpu_blocks", "KV cache blocks", Cell::count(num_blocks),
       fmt::format("{} B per block: {} layers per group × {} B page", with_commas(bytes_per_block), l.group_size,
                   with_commas(l.page_bytes))},
      {"block_size", "Block size", Cell::tokens(l.block_size), "tokens"},
      {"num_kv_cache_groups", "KV cache groups", Cell::count(groups), ""},
      {"gpu_kv_cache_tokens", "GPU KV cache size", Cell::tokens(tokens),
       in.version >= kTokensFromConcurrencySince ? "int(max concurrency × max_model_len)"
                                                 : "blocks // groups × block size"},
      {"max_concurrency", "Maximum concurrency", Cell::number(concurrency),
       fmt::format("{} blocks / {} blocks per {}-token request", with_commas(num_blocks), with_commas(per_request),
                   with_commas(p.max_model_len))},
      {"max_model_len", "max_model_len", Cell::tokens(p.max_model_len), ""},
      {"max_num_batched_tokens", "max_num_batched_tokens", Cell::tokens(batched), ""},
      {"max_num_seqs", "max_num_seqs", Cell::count(max_seqs), ""},
  };
  if (dcp > 1) {
    p.fields.push_back({"decode_context_parallel_size", "decode_context_parallel_size", Cell::count(dcp),
                        "each rank holds cdiv(tokens, dcp) of every request"});
    p.log_lines.insert(p.log_lines.begin(), fmt::format("Multiplying the GPU KV cache size by the cp_world_size {} "
                                                        "(pcp_world_size 1 * dcp_world_size {}).",
                                                        dcp, dcp));
  }
  if (!l.note.empty()) {
    p.log_lines.push_back(l.note);
  }
  p.log_lines.push_back(fmt::format("Available KV cache memory: {} GiB", engines::gib(available)));
  p.log_lines.push_back(fmt::format("GPU KV cache size: {} tokens", with_commas(tokens)));
  p.log_lines.push_back(fmt::format("Maximum concurrency for {} tokens per request: {:.2f}x", with_commas(p.max_model_len),
                                    concurrency));
  p.fits = per_request <= num_blocks && num_blocks > 0 && weights_fit;
  if (!weights_fit) {
    p.notes.push_back("The weights and --kv-cache-memory together exceed the GPU's memory: allocation would fail.");
  }
  if (available == 0) {
    p.log_lines.push_back("ValueError: No available memory for the cache blocks. Try increasing "
                          "`gpu_memory_utilization` when initializing the engine.");
  } else if (!p.fits) {
    std::uint64_t lo = 0;
    std::uint64_t hi = p.max_model_len;
    while (hi - lo > 1) {  // estimate_max_model_len: largest length whose blocks fit
      const std::uint64_t mid = lo + (hi - lo) / 2;
      (blocks_per_request(l, mid, batched, dcp) <= num_blocks ? lo : hi) = mid;
    }
    p.log_lines.push_back(fmt::format(
        "ValueError: To serve at least one request with the models's max seq len ({}), ({} GiB KV cache is needed, "
        "which is larger than the available KV cache memory ({} GiB). Based on the available memory, the estimated "
        "maximum model length is {}. Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when "
        "initializing the engine.",
        p.max_model_len, engines::gib(sat_mul(per_request, bytes_per_block)), engines::gib(available), lo));
  }
  for (std::uint64_t len : in.frontier_lengths) {
    if (len <= p.max_model_len) {
      p.frontier.emplace_back(len, num_blocks / blocks_per_request(l, len, batched, dcp));
    }
  }
  p.notes.push_back("Block 0 is vLLM's null block; the logged figures count it, as vLLM does.");
  return p;
}

}  // namespace kvplan
