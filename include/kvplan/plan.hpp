// kvplan/plan.hpp: the one typed path of every command. A PlanRequest holds every input typed once
// at the boundary (kvplan's flags, a deployment file, an engine's command line); plan() computes a
// PlanResult (budget, layout, frontier, the verdict and its cause, the fixes, the inverse answers,
// the engine's prediction) and describe() turns it into the Document the renderers print. check,
// sweep, emit and simulate read PlanResult; nothing reads a Document back or parses text.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kvplan/budget.hpp"
#include "kvplan/dtype.hpp"
#include "kvplan/engine.hpp"
#include "kvplan/formula.hpp"
#include "kvplan/gpus.hpp"
#include "kvplan/model.hpp"
#include "kvplan/report.hpp"

namespace kvplan {

struct Preset;

struct ModelChoice {
  std::shared_ptr<const ModelSpec> spec;
  const Preset* preset = nullptr;          // set when the model is a built-in preset
  std::string source;                      // "meta-llama/Llama-3.1-8B (models/llama-3.1-8b.json)"
  std::string id;                          // what a launch command names: an HF id or a local path
};

struct Hardware {
  const GpuSpec* gpu = nullptr;            // nullptr: only a memory size was given
  std::uint64_t vram_bytes = 0;            // per GPU
  std::string label;                       // "H100-SXM", "80GB"
  std::string detail;                      // how the size was understood
  std::optional<std::uint32_t> count;      // GPUs available, when stated (--gpu H100x4, CUDA_VISIBLE_DEVICES)
  std::string count_key;                   // where a manifest states the count ("nvidia.com/gpu"); empty: --gpu
};

/// Where a request came from: fixes are spelled in its terms.
enum class Origin : std::uint8_t { flags, command_line, deployment_file };

struct PlanRequest {
  ModelChoice model;
  Hardware hardware;
  std::optional<std::uint32_t> tp, pp, cp, dp;  // nullopt: the engine's default (or the GPU count)
  std::optional<std::uint32_t> nodes;           // machines one server spans (--nnodes), as its command line says
  std::optional<DType> kv_dtype;                // nullopt: the model's own dtype
  std::optional<WeightFormat> weights;          // nullopt: the checkpoint's own format
  std::string weights_label;                    // how the format was given ("--quantization awq")
  std::optional<std::uint64_t> max_model_len;   // nullopt: the model's max_position_embeddings
  std::optional<std::uint64_t> seq_len;         // the shape's length
  std::optional<std::uint64_t> batch;           // the shape's concurrency, whole deployment
  const Engine* engine = nullptr;               // nullptr: the engine-neutral plan
  EngineVersion version;
  KnobSet knobs;                                // the engine's own knobs
  Origin origin = Origin::flags;
  std::vector<std::string> warnings;            // unmodelled flags, unknown flags, idle GPUs ...
  bool uncertain = false;                       // a memory-changing setting kvplan does not model
  std::optional<std::string> refusal;           // the engine rejects the command line itself (an ambiguous flag)
  /// Knobs a settings file sets over the command line (trtllm-serve's --config): a fix names them there.
  struct FileSetting {
    std::size_t knob = 0;                       // index into the engine's knobs
    std::string file;                           // the file, as kvplan read it
    std::string key;                            // the key there ("tensor_parallel_size")
  };
  std::vector<FileSetting> file_settings;
  bool explain = false;
  bool shape_at_max_len = false;                // no --seq-len: the shape is one request of max_model_len
  std::uint32_t kv_margin_ppm = 0;              // capacity on the KV budget less this share (emit, inverse)
  std::string version_banner;                   // "0.1.0", for the report title

  [[nodiscard]] const Engine& engine_ref() const noexcept { return engine != nullptr ? *engine : raw_engine(); }
  [[nodiscard]] const ModelSpec& model_spec() const noexcept { return *model.spec; }
};

/// The request with every default applied.
struct Resolved {
  std::uint32_t tp = 1, pp = 1, cp = 1, dp = 1;
  std::uint32_t gpus_used = 1;             // tp × pp × dp (× cp for ring attention)
  std::uint32_t gpus_available = 1;        // the GPUs given, or gpus_used when none were stated
  DType kv_dtype;
  WeightFormat weights;
  std::uint64_t max_model_len = 0;         // the longest request the deployment accepts
  bool max_model_len_given = false;
  std::uint64_t seq_len = 0;               // the shape's length (asked, or the default)
  std::uint64_t batch = 1;                 // the shape's concurrency, whole deployment
  std::uint64_t batch_per_replica = 1;     // ceil(batch / dp)
  bool seq_len_given = false;
  bool batch_given = false;
};

/// Why a plan does or does not serve its shape: a value, never a fake deficit.
enum class Cause : std::uint8_t {
  fits,
  refused,            // the engine refuses the settings (tp not dividing heads, dcp beyond tp / n_kv ...)
  gpus,               // tp × pp × dp needs more GPUs than there are
  weights,            // weights and the reserve do not fit in what the engine may use
  no_kv_memory,       // the engine is left no memory for the KV cache
  startup_too_long,   // the engine refuses to start: one request of max_model_len does not fit (vLLM)
  too_long,           // the shape is longer than the engine accepts (max_model_len, a llama.cpp slot)
  capacity,           // batch × seq_len does not fit in the KV cache
  concurrency_cap,    // the engine runs at most N requests at once (max_num_seqs, -np, ...)
  weights_unknown,    // fits with the checkpoint's weights as named, not with every layer it may keep at 16 bits
                      // (ModelSpec::skip_list_unread): its config.json decides
};

struct Verdict {
  bool fits = false;
  Cause cause = Cause::fits;
  std::string refusal;                     // refused: what the engine says
  std::uint64_t needed_bytes = 0;          // weights: weights + reserve; capacity: the shape's KV per GPU
  std::uint64_t available_bytes = 0;       // weights: usable; capacity: the KV budget per GPU
                                           // weights_unknown: the weights per GPU at 16 bits, and as named
  std::uint64_t limit = 0;                 // startup_too_long: longest max_model_len that starts;
                                           // too_long: the engine's maximum; concurrency_cap: cap × dp;
                                           // gpus: the GPUs needed
  bool uncertain = false;                  // settings kvplan does not model may change the answer
  Cause upper_cause = Cause::fits;         // weights_unknown: the verdict with every layer at 16 bits
};

/// One change to a request: what a fix does, typed. describe() spells it for the request's origin.
struct Change {
  enum class Kind : std::uint8_t {
    max_model_len,   // value: tokens
    tp,              // value: tensor-parallel size (GPUs follow)
    gpus,            // value: data-parallel replicas (GPUs follow)
    gpu_count,       // value: GPUs to run on (the split stays)
    weights,         // dtype: the weight format
    kv_dtype,        // dtype: the KV format
    gpu,             // gpu: another GPU type
    knob,            // knob: index into the engine's knobs; value: its new value (fraction ppm, count)
    batch,           // value: concurrency that fits
    seq_len,         // value: the longest length that fits
  };
  Kind kind = Kind::max_model_len;
  std::uint64_t value = 0;
  std::optional<DType> dtype;
  const GpuSpec* gpu = nullptr;
  std::size_t knob = 0;

  static Change of(Kind k, std::uint64_t v) {
    Change c;
    c.kind = k;
    c.value = v;
    return c;
  }
  static Change format(Kind k, const DType& d) {
    Change c;
    c.kind = k;
    c.dtype = d;
    return c;
  }
  static Change to_gpu(const GpuSpec& g) {
    Change c;
    c.kind = Kind::gpu;
    c.gpu = &g;
    return c;
  }
  static Change set(std::size_t knob, std::uint64_t v) {
    Change c;
    c.kind = Kind::knob;
    c.knob = knob;
    c.value = v;
    return c;
  }
  static Change set(std::size_t knob, const DType& d) {
    Change c;
    c.kind = Kind::knob;
    c.knob = knob;
    c.dtype = d;
    return c;
  }
};

struct Fix {
  std::vector<Change> changes;             // applied together
  std::uint64_t kv_budget_bytes = 0;       // of the fixed plan, per GPU
  std::uint64_t total_concurrency = 0;     // of the fixed plan, at the shape's length
  std::uint32_t gpus = 0;                  // GPUs the fixed plan uses
  std::uint64_t seq_len = 0;               // the fixed plan's length (a max_model_len fix may shorten it)
};

/// For --batch N × --seq-len L: the smallest setting of the engine's fraction knob and the fewest GPUs.
struct Inverse {
  std::optional<std::uint32_t> min_fraction_ppm;   // nullopt: no fraction serves it
  std::optional<std::uint64_t> min_kv_memory_bytes;  // engines with a KV-size knob (vLLM)
  bool has_kv_memory_knob = false;
  std::optional<std::uint32_t> fewest_gpus;
  std::uint32_t tp = 1, pp = 1, cp = 1, dp = 1;
  bool searched_gpus = false;
  std::uint32_t margin_ppm = 0;            // the safety margin the answers keep
  std::vector<Change> slots;               // engines without a fraction (llama.cpp): the settings that serve it
  bool slots_fit = false;
};

struct StageRow {
  std::uint32_t first_layer = 0, last_layer = 0;
  std::uint64_t weights_bytes = 0, kv_budget_bytes = 0, max_batch = 0;
};

enum class Depth : std::uint8_t {
  verdict,  // the numbers and the verdict (sweep, searches)
  report,   // also the engine's text, the frontier, the fixes and the inverse answers
};

struct PlanResult {
  PlanRequest request;                     // the request as planned (report depth only; empty at verdict depth)
  Resolved r;
  std::shared_ptr<const ModelSpec> stage_model;  // the bottleneck stage's model (the whole model at pp 1)
  std::uint32_t stage = 0;
  std::vector<StageRow> stages;            // pp > 1
  EnginePrediction engine;                 // the engine-neutral plan is an engine too
  Budget budget;                           // usable, weights, reserve and KV budget per GPU
  Deployment shape;                        // one replica's shape, per GPU
  std::uint64_t kv_per_sequence = 0;       // per GPU, one sequence of shape.seq_len
  std::uint64_t memory_batch = 0;          // per replica: sequences of seq_len the KV cache holds
  std::uint64_t max_batch = 0;             // per replica, after the engine's concurrency cap
  std::uint64_t total_concurrency = 0;     // max_batch × dp
  std::optional<std::uint64_t> longest_at_batch_1;
  std::optional<std::uint64_t> longest_uncapped;  // what memory alone allows (no max_model_len cap)
  std::vector<std::uint64_t> frontier_lengths;
  Verdict verdict;
  std::vector<Fix> fixes;
  std::optional<Inverse> inverse;
  // When the weights leave no KV memory: the plan under fixes.front() (report depth), which the
  // report shows instead of tables of zeros.
  std::shared_ptr<const PlanResult> under_fix;
};

/// Plans one request. Throws kvplan::Error only for what cannot be planned at all (no memory given).
PlanResult plan(const PlanRequest& request, Depth depth = Depth::report);

/// Whether `request` serves its shape, as plan() would say (searches use it).
bool serves(const PlanRequest& request);

/// The report a person reads, built from the typed result.
Document describe(const PlanResult& result);

/// How `change` is spelled for a request from `origin` with `engine` ("--tensor-parallel-size 4").
std::string spell(const Change& change, const PlanResult& result);
/// One line: why the plan does not serve its shape, in the engine's terms.
std::string verdict_text(const PlanResult& result);

/// Checks the parallel split against the model and engine; the reason it is refused, or nullopt.
std::optional<std::string> split_problem(const PlanRequest& request, const Resolved& r);
/// Resolves the request's defaults (parallelism, dtypes, lengths).
Resolved resolve(const PlanRequest& request);

/// `name` looked up in `table`; throws kvplan::Error naming `option`, with "did you mean".
DType require_dtype(std::span<const DType> table, std::string_view option, std::string_view name);

/// The weight layout for `--weight-dtype name` ("auto": the checkpoint's own). Quantized formats
/// apply to linear layers and experts; embeddings and norms keep the model's 16-bit dtype.
/// Throws kvplan::Error for an unknown name or an unmodelled checkpoint quantization.
WeightFormat weight_format(const ModelSpec& m, std::string_view name);

/// Why `tp` cannot split this model, or nullopt when it can: tp must divide num_attention_heads, and
/// the KV heads must divide tp or be divisible by it (vllm/config/model.py verify_with_parallel_config).
std::optional<std::string> tp_problem(const ModelSpec& m, std::uint32_t tp);

}  // namespace kvplan
