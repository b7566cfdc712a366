// kvplan/plan.hpp: the main job, `kvplan --model M --vram V`: budget, frontier, comparisons and
// advice for one model on one GPU, as a Document. Inputs are validated values (the CLI builds
// them); this layer computes and describes, it never parses.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "kvplan/budget.hpp"
#include "kvplan/dtype.hpp"
#include "kvplan/engine.hpp"
#include "kvplan/formula.hpp"
#include "kvplan/gpus.hpp"
#include "kvplan/model.hpp"
#include "kvplan/report.hpp"

namespace kvplan {

struct Preset;

struct PlanInputs {
  ModelSpec model;
  const Preset* preset = nullptr;          // set when the model is a built-in preset
  std::string model_source;                // "preset models/x.json" or "config /path/config.json"
  std::uint64_t vram_bytes = 0;
  std::string vram_label;                  // "80 GB" or "H100-SXM (80 GB)"
  std::string vram_detail;                 // how the size was understood
  const GpuSpec* gpu = nullptr;
  std::uint32_t gpu_count = 1;
  std::uint32_t utilization_ppm = 900'000;
  std::optional<std::uint64_t> reserve_bytes;  // --reserve overrides the estimate
  std::uint32_t tensor_parallel = 1;
  std::uint32_t pipeline_parallel = 1;
  std::uint32_t context_parallel = 1;      // raw engine only: ring attention over cp GPUs
  std::uint32_t replicas = 1;              // data-parallel copies: gpu count / (tp * pp * cp)
  std::uint32_t stage = 0;                 // which pipeline stage `model` is, when pipeline_parallel > 1
  DType kv_dtype;
  WeightFormat weights;
  std::optional<std::uint64_t> seq_len;
  std::optional<std::uint64_t> batch;
  std::uint64_t block_size = 16;
  std::uint64_t max_model_len = 0;         // --max-model-len, or max_position_embeddings
  bool explain = false;
  std::string version;
  EngineChoice engine;                     // profile == nullptr: the engine-neutral plan ("raw")
  EngineSettings engine_settings;
  bool max_model_len_given = false;
};

/// The numbers a plan rests on, for one set of inputs.
struct Evaluation {
  Budget budget;
  Reserve reserve;
  Deployment shape;                        // seq_len and batch of the question
  std::uint64_t kv_per_sequence = 0;       // bytes per GPU for one sequence of shape.seq_len
  std::uint64_t max_batch = 0;             // per GPU (one replica)
  std::optional<std::uint64_t> longest_at_batch_1;
  bool fits = false;                       // the shape (batch, seq_len) fits
  std::optional<EnginePrediction> engine;  // what --engine predicts; its KV budget replaces the estimate
};

Evaluation evaluate(const PlanInputs& in);

struct PlanOutcome {
  Document doc;
  int exit_code = 0;                       // 0 fits, 1 nothing fits
};

PlanOutcome build_plan(const PlanInputs& in);

}  // namespace kvplan

namespace kvplan {

/// `name` looked up in `table`; throws kvplan::Error naming `option`, with "did you mean".
DType require_dtype(std::span<const DType> table, std::string_view option, std::string_view name);

/// The weight layout for `--weight-dtype name` ("auto": the checkpoint's own). Quantized formats
/// apply to linear layers and experts; embeddings and norms keep the model's 16-bit dtype.
/// Throws kvplan::Error for an unknown name or an unmodelled checkpoint quantization.
WeightFormat weight_format(const ModelSpec& m, std::string_view name);

/// Whether the plan serves --batch x --seq-len (on every pipeline stage).
bool serves(const PlanInputs& in);

/// Smallest value in [lo, hi] of a monotone knob (`set` applies it) for which the plan serves
/// --batch x --seq-len; nullopt when even `hi` does not. The inverse questions and `emit` use it.
std::optional<std::uint64_t> smallest_serving(const PlanInputs& in, std::uint64_t lo, std::uint64_t hi,
                                              const std::function<void(PlanInputs&, std::uint64_t)>& set);

/// Why `tp` cannot split this model, in vLLM's words, or nullopt when it can: tp must divide
/// num_attention_heads, and the KV heads must divide tp or be divisible by it.
std::optional<std::string> tp_problem(const ModelSpec& m, std::uint32_t tp);

}  // namespace kvplan
