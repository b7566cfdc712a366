// kvplan/engine.hpp: engine profiles. Users run an engine, and each engine sizes its KV cache its
// own way: vLLM takes a fraction of total memory minus what it profiles, SGLang a fraction of the
// memory free at start, TensorRT-LLM a fraction of what is free after its profiling run, and
// llama.cpp exactly n_ctx cells. A profile turns (model, GPU, the engine's own knobs, version)
// into what that engine will allocate, in the terms its own logs use. One file per engine in
// src/engines/, one row in the table of src/engines/registry.cpp. docs/engines.md has the sources.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kvplan/dtype.hpp"
#include "kvplan/formula.hpp"
#include "kvplan/gpus.hpp"
#include "kvplan/model.hpp"
#include "kvplan/report.hpp"

namespace kvplan {

/// The engines' own knobs under their own names; nullopt means "the engine's default".
struct EngineSettings {
  // vLLM
  std::optional<std::uint32_t> gpu_memory_utilization_ppm;
  std::optional<std::uint64_t> kv_cache_memory_bytes;
  std::optional<std::uint64_t> max_num_seqs;
  std::optional<std::uint64_t> max_num_batched_tokens;
  std::optional<std::uint64_t> block_size;
  // SGLang
  std::optional<std::uint32_t> mem_fraction_static_ppm;
  std::optional<std::uint64_t> page_size;
  std::optional<std::uint64_t> chunked_prefill_size;
  // TensorRT-LLM
  std::optional<std::uint32_t> free_gpu_memory_fraction_ppm;
  std::optional<std::uint64_t> tokens_per_block;
  std::optional<std::uint64_t> max_num_tokens;
  // llama.cpp
  std::optional<std::uint64_t> ctx_size;
  std::optional<std::uint64_t> parallel;
  std::optional<DType> cache_type_k;
  std::optional<DType> cache_type_v;
  std::optional<bool> kv_unified;
  std::optional<bool> swa_full;
  std::optional<bool> fit;
  std::optional<std::uint64_t> ubatch_size;
  // Measured non-KV memory, replacing kvplan's estimates (engine-neutral plan, vLLM, TensorRT-LLM)
  std::optional<std::uint64_t> activation_bytes;
  std::optional<std::uint64_t> non_torch_bytes;
  std::optional<std::uint64_t> cuda_graph_bytes;
};

struct EngineInputs {
  const ModelSpec* model = nullptr;
  WeightFormat weights;
  DType kv_dtype;                          // vLLM, SGLang, TRT-LLM cache dtype ("auto" resolved)
  std::uint32_t tensor_parallel = 1;
  std::uint32_t pipeline_parallel = 1;
  std::uint32_t context_parallel = 1;      // vLLM: decode context parallelism inside the TP group
  bool last_stage = true;                  // the pipeline stage that samples (computes the logits)
  std::uint64_t gpu_memory_bytes = 0;      // CUDA total per GPU
  std::optional<std::uint64_t> max_model_len;  // --max-model-len / context length, when given
  EngineSettings settings;
  int version = 0;                         // the profile's own version key (see EngineProfile)
  std::string version_text;
  bool default_version = true;
  std::vector<std::uint64_t> frontier_lengths;
};

/// What the engine will do on one GPU (the bottleneck rank), in its own terms.
struct EnginePrediction {
  std::uint64_t kv_budget_bytes = 0;       // bytes the engine gives the KV cache
  std::uint64_t max_model_len = 0;         // the context length the engine will accept
  std::vector<Field> budget;               // the engine's budget arithmetic, line by line
  std::vector<Field> fields;               // the numbers its logs print (JSON: engine.<key>)
  std::vector<std::string> log_lines;      // the log lines themselves
  std::vector<std::string> notes;          // assumptions and version-specific behaviour
  std::vector<std::pair<std::uint64_t, std::uint64_t>> frontier;  // (seq_len, max concurrent requests)
  bool fits = true;                        // one request of max_model_len fits
};

struct EngineProfile {
  std::string_view name;                   // "vllm"
  std::string_view display;                // "vLLM"
  std::string_view default_version;        // "0.19"
  std::string_view versions_help;          // "0.10 to 0.30"
  std::optional<int> (*parse_version)(std::string_view text);
  EnginePrediction (*predict)(const EngineInputs& in);
};

std::span<const EngineProfile> engine_profiles() noexcept;

struct EngineChoice {
  const EngineProfile* profile = nullptr;  // nullptr: the engine-neutral "raw" plan
  int version = 0;
  std::string version_text;
  bool default_version = true;
};

/// "vllm", "vllm@0.19", "sglang@0.5", "raw": throws kvplan::Error with "did you mean".
EngineChoice parse_engine(std::string_view text);

// Profiles (one file each in src/engines/).
EnginePrediction predict_vllm(const EngineInputs& in);
EnginePrediction predict_sglang(const EngineInputs& in);
EnginePrediction predict_trtllm(const EngineInputs& in);
EnginePrediction predict_llamacpp(const EngineInputs& in);

}  // namespace kvplan
