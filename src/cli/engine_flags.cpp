// The engines' own flags on the plan: which engine owns each (a flag of another engine is refused),
// how each maps into EngineSettings, and the combinations an engine refuses. Private to src/cli.
#include <fmt/format.h>

#include "commands.hpp"
#include "kvplan/engine.hpp"
#include "kvplan/error.hpp"
#include "kvplan/quantity.hpp"

namespace kvplan::cli {
namespace {

// Which engine owns each engine-specific flag, so a flag for another engine is an error.
struct EngineFlag {
  const char* flag;
  const char* engine;
  const std::string PlanOptions::*value;
};

void check_engine_flags(const PlanOptions& o, const EngineChoice& choice) {
  const EngineFlag flags[] = {
      {"--gpu-memory-utilization", "vllm", &PlanOptions::gpu_memory_utilization},
      {"--kv-cache-memory", "vllm", &PlanOptions::kv_cache_memory},
      {"--max-num-seqs", "vllm", &PlanOptions::max_num_seqs},
      {"--max-num-batched-tokens", "vllm", &PlanOptions::max_num_batched_tokens},
      {"--mem-fraction-static", "sglang", &PlanOptions::mem_fraction_static},
      {"--page-size", "sglang", &PlanOptions::page_size},
      {"--chunked-prefill-size", "sglang", &PlanOptions::chunked_prefill_size},
      {"--free-gpu-memory-fraction", "trtllm", &PlanOptions::free_gpu_memory_fraction},
      {"--tokens-per-block", "trtllm", &PlanOptions::tokens_per_block},
      {"--max-num-tokens", "trtllm", &PlanOptions::max_num_tokens},
      {"--ctx-size", "llamacpp", &PlanOptions::ctx_size},
      {"--parallel", "llamacpp", &PlanOptions::parallel},
      {"--cache-type-k", "llamacpp", &PlanOptions::cache_type_k},
      {"--cache-type-v", "llamacpp", &PlanOptions::cache_type_v},
      {"--fit", "llamacpp", &PlanOptions::fit},
      {"--ubatch-size", "llamacpp", &PlanOptions::ubatch_size},
  };
  const std::string current = choice.profile == nullptr ? "raw" : std::string(choice.profile->name);
  for (const EngineFlag& f : flags) {
    if (!(o.*f.value).empty() && current != f.engine) {
      throw Error(fmt::format("{} belongs to --engine {}, but this plan uses --engine {}", f.flag, f.engine, current));
    }
  }
  if ((o.kv_unified || o.swa_full) && current != "llamacpp") {
    throw Error(fmt::format("{} belongs to --engine llamacpp, but this plan uses --engine {}",
                            o.kv_unified ? "--kv-unified" : "--swa-full", current));
  }
  if (!o.kv_cache_dtype.empty() && current != "vllm" && current != "sglang" && current != "trtllm") {
    throw Error(fmt::format("--kv-cache-dtype belongs to --engine vllm, sglang or trtllm; with --engine {} use {}", current,
                            current == "llamacpp" ? "--cache-type-k and --cache-type-v" : "--kv-dtype"));
  }
}

std::optional<bool> on_off(std::string_view option, const std::string& text) {
  if (text.empty()) {
    return std::nullopt;
  }
  if (text == "on" || text == "1" || text == "true") {
    return true;
  }
  if (text == "off" || text == "0" || text == "false") {
    return false;
  }
  throw Error(fmt::format("{}: expected on or off (got '{}')", option, text));
}

}  // namespace

void load_engine(const PlanOptions& o, PlanInputs& in) {
  check_engine_flags(o, in.engine);
  EngineSettings& s = in.engine_settings;
  auto count = [](const char* flag, const std::string& v, std::uint64_t max) -> std::optional<std::uint64_t> {
    return v.empty() ? std::nullopt : std::optional<std::uint64_t>(parse_count(flag, v, max));
  };
  auto fraction = [](const char* flag, const std::string& v) -> std::optional<std::uint32_t> {
    return v.empty() ? std::nullopt : std::optional<std::uint32_t>(parse_fraction_ppm(flag, v));
  };
  if (!o.kv_cache_memory.empty() && (!o.gpu_memory_utilization.empty() || !o.utilization.empty())) {
    throw Error("--kv-cache-memory and a GPU memory utilization contradict each other: vLLM ignores "
                "gpu_memory_utilization when kv_cache_memory_bytes is set; give one of them");
  }
  s.gpu_memory_utilization_ppm = fraction("--gpu-memory-utilization", o.gpu_memory_utilization);
  if (!s.gpu_memory_utilization_ppm && !o.utilization.empty() && in.engine.profile != nullptr &&
      in.engine.profile->name == "vllm") {
    s.gpu_memory_utilization_ppm = in.utilization_ppm;  // --utilization is vLLM's utilization
  }
  if (!o.kv_cache_memory.empty()) {
    s.kv_cache_memory_bytes = parse_size("--kv-cache-memory", o.kv_cache_memory).bytes;
  }
  s.max_num_seqs = count("--max-num-seqs", o.max_num_seqs, 1'000'000);
  s.max_num_batched_tokens = count("--max-num-batched-tokens", o.max_num_batched_tokens, 1ULL << 30);
  if (!o.block_size.empty()) {
    s.block_size = in.block_size;
  }
  s.mem_fraction_static_ppm = fraction("--mem-fraction-static", o.mem_fraction_static);
  s.page_size = count("--page-size", o.page_size, 1 << 20);
  s.chunked_prefill_size = count("--chunked-prefill-size", o.chunked_prefill_size, 1ULL << 30);
  s.free_gpu_memory_fraction_ppm = fraction("--free-gpu-memory-fraction", o.free_gpu_memory_fraction);
  s.tokens_per_block = count("--tokens-per-block", o.tokens_per_block, 1 << 20);
  s.max_num_tokens = count("--max-num-tokens", o.max_num_tokens, 1ULL << 30);
  if (!o.ctx_size.empty()) {
    s.ctx_size = o.ctx_size == "0" ? 0 : parse_tokens("--ctx-size", o.ctx_size);
  }
  s.parallel = count("--parallel", o.parallel, 4096);
  if (!o.cache_type_k.empty()) {
    s.cache_type_k = require_dtype(kv_dtypes(), "--cache-type-k", o.cache_type_k == "f16" ? "fp16" : o.cache_type_k);
    in.kv_dtype = *s.cache_type_k;
  }
  if (in.engine.profile != nullptr && in.engine.profile->name == "llamacpp" && o.kv_dtype != "auto") {
    s.cache_type_k = s.cache_type_k.value_or(in.kv_dtype);  // --kv-dtype sets both, as -ctk and -ctv would
    s.cache_type_v = in.kv_dtype;
  }
  if (!o.cache_type_v.empty()) {
    s.cache_type_v = require_dtype(kv_dtypes(), "--cache-type-v", o.cache_type_v == "f16" ? "fp16" : o.cache_type_v);
  }
  if (o.kv_unified) {
    s.kv_unified = true;
  }
  if (o.swa_full) {
    s.swa_full = true;
  }
  s.fit = on_off("--fit", o.fit);
  s.ubatch_size = count("--ubatch-size", o.ubatch_size, 1 << 20);
  auto measured = [](const char* flag, const std::string& v) -> std::optional<std::uint64_t> {
    if (v.empty()) {
      return std::nullopt;
    }
    return v == "0" ? 0 : parse_size(flag, v).bytes;
  };
  s.activation_bytes = measured("--activation-memory", o.activation_memory);
  s.non_torch_bytes = measured("--non-torch-memory", o.non_torch_memory);
  s.cuda_graph_bytes = measured("--cuda-graph-memory", o.cuda_graph_memory);
  const bool any_measured = s.activation_bytes || s.non_torch_bytes || s.cuda_graph_bytes;
  if (any_measured && !o.reserve.empty()) {
    throw Error("--reserve replaces the whole runtime reserve; give it or --activation-memory/--non-torch-memory/"
                "--cuda-graph-memory, not both");
  }
  if (any_measured && in.engine.profile != nullptr &&
      (in.engine.profile->name == "sglang" || in.engine.profile->name == "llamacpp")) {
    throw Error(fmt::format("--engine {} does not profile activations, non-torch or CUDA-graph memory; its "
                            "headroom is {}",
                            in.engine.profile->name,
                            in.engine.profile->name == "sglang" ? "1 - --mem-fraction-static" : "not reserved"));
  }
  if (!o.kv_cache_dtype.empty()) {
    if (o.kv_dtype != "auto") {
      throw Error("give --kv-cache-dtype (the engine's name) or --kv-dtype, not both");
    }
    in.kv_dtype = require_dtype(kv_dtypes(), "--kv-cache-dtype",
                                o.kv_cache_dtype == "auto" ? in.model.torch_dtype : o.kv_cache_dtype);
  }
  if (in.engine.profile != nullptr && in.engine.profile->name != "vllm" && in.context_parallel > 1) {
    throw Error(fmt::format("--cp with --engine {} is not modelled (SGLang's decode CP and TensorRT-LLM's Helix are "
                            "open; TensorRT-LLM disables KV estimation under CP); use --engine raw or vllm",
                            in.engine.profile->name));
  }
  if (in.engine.profile != nullptr && in.engine.profile->name == "llamacpp" && in.tensor_parallel > 1) {
    throw Error("llama.cpp splits layers across GPUs (--split-mode layer), not KV heads; plan it with --tp 1");
  }
}

}  // namespace kvplan::cli
