// plan(): one request, typed, to one result, typed. Resolves the defaults, asks the engine what it
// allocates on the bottleneck GPU (every pipeline stage is a GPU of its own), and decides the
// verdict and its cause. The fixes and the inverse answers are searches over this same function
// (plan_fixes.cpp, plan_inverse.cpp); describe() (plan_describe.cpp) turns the result into text.
#include "kvplan/budget.hpp"
#include "kvplan/plan.hpp"

#include <algorithm>
#include <fmt/format.h>

#include "kvplan/catalog.hpp"
#include "kvplan/error.hpp"
#include "kvplan/quantity.hpp"
#include "kvplan/solver.hpp"
#include "kvplan/units.hpp"
#include "plan_sections.hpp"

namespace kvplan {
namespace {

constexpr std::uint64_t kDefaultShapeTokens = 8192;  // the seeds' example: one sequence of 8,192 tokens
constexpr std::uint64_t kUncapped = std::uint64_t{1} << 40;
constexpr std::uint64_t kNeutralBlock = 16;  // the engine-neutral plan's default block (vLLM's CacheConfig default)

// The bottleneck stage; its prediction is written where the result keeps it (no move per point).
struct StageEval {
  EnginePrediction& prediction;
  std::shared_ptr<const ModelSpec> model;
  std::uint32_t stage = 0;
};

EngineInputs engine_inputs(const PlanRequest& q, const Resolved& r, const ModelSpec& model, std::uint32_t stage,
                           bool text, std::span<const std::uint64_t> lengths) {
  EngineInputs in;
  in.model = &model;
  in.weights = r.weights;
  in.kv_dtype = r.kv_dtype;
  in.tensor_parallel = r.tp;
  in.pipeline_parallel = r.pp;
  in.context_parallel = r.cp;
  in.data_parallel = r.dp;
  in.devices = q.engine_ref().capabilities().layers_over_devices ? r.gpus_used : 1;
  in.last_stage = stage + 1 == r.pp;
  in.nodes = q.nodes.value_or(1);
  in.gpu_memory_bytes = q.hardware.vram_bytes;
  in.gpu_name = q.hardware.gpu != nullptr ? q.hardware.gpu->name : std::string_view();
  in.gpu_arch = q.hardware.gpu != nullptr ? q.hardware.gpu->arch : kUnknownArch;
  in.memory_detail = q.hardware.detail;
  in.max_model_len = r.max_model_len;
  in.max_model_len_given = r.max_model_len_given;
  in.knobs = &q.knobs;
  in.version = q.version.key;
  in.version_text = q.version.text;
  in.shape_seq_len = r.seq_len;
  in.frontier_lengths = lengths;
  in.kv_margin_ppm = q.kv_margin_ppm;
  in.text = text;
  return in;
}

// The requests of the shape's length one replica runs at once: what memory holds, then the cap.
std::uint64_t served(const EnginePrediction& p) {
  return p.concurrency_cap ? std::min(p.capacity_at_shape, *p.concurrency_cap) : p.capacity_at_shape;
}

// The pipeline stages of a model, cached for the last few (model, pp) asked: a sweep plans the same
// stages thousands of times. The cache holds the whole model too, so its address stays its own.
const std::vector<std::shared_ptr<const ModelSpec>>& stages_of(const std::shared_ptr<const ModelSpec>& model,
                                                               std::uint32_t pp) {
  struct Entry {
    std::shared_ptr<const ModelSpec> model;
    std::uint32_t pp = 0;
    std::vector<std::shared_ptr<const ModelSpec>> stages;
  };
  thread_local std::vector<Entry> cache;
  for (const Entry& e : cache) {
    if (e.model.get() == model.get() && e.pp == pp) {
      return e.stages;
    }
  }
  constexpr std::size_t kEntries = 8;
  if (cache.size() >= kEntries) {
    cache.erase(cache.begin());
  }
  Entry e{model, pp, {}};
  for (std::uint32_t s = 0; s < pp; ++s) {
    e.stages.push_back(std::make_shared<const ModelSpec>(pipeline_stage(*model, pp, s)));
  }
  cache.push_back(std::move(e));
  return cache.back().stages;
}

StageEval evaluate_stages(const PlanRequest& q, const Resolved& r, std::vector<StageRow>* rows,
                          EnginePrediction& prediction) {
  const Engine& engine = q.engine_ref();
  StageEval best{prediction, nullptr, 0};
  if (r.pp <= 1) {
    best.model = q.model.spec;
    best.prediction = engine.predict(engine_inputs(q, r, *best.model, 0, false, {}));
    return best;
  }
  const std::vector<std::uint32_t> parts = pipeline_partition(q.model_spec().num_hidden_layers, r.pp);
  std::optional<std::pair<std::uint64_t, std::uint64_t>> best_key;
  std::uint32_t first = 0;
  const std::vector<std::shared_ptr<const ModelSpec>>& stages = stages_of(q.model.spec, r.pp);
  for (std::uint32_t s = 0; s < r.pp; ++s) {
    std::shared_ptr<const ModelSpec> stage = stages[s];
    EnginePrediction p = engine.predict(engine_inputs(q, r, *stage, s, false, {}));
    const std::pair<std::uint64_t, std::uint64_t> key{served(p), p.kv_budget_bytes};
    if (rows != nullptr) {
      rows->push_back({first, first + parts[s] - 1, p.weights_bytes, p.kv_budget_bytes, served(p)});
    }
    first += parts[s];
    // Every stage must start; one that does not is the bottleneck whatever its numbers.
    const bool broken = p.startup != Startup::ok;
    if (!best_key || (broken && best.prediction.startup == Startup::ok) || key < *best_key) {
      if (!best_key || broken || best.prediction.startup == Startup::ok) {
        best_key = key;
        best.prediction = std::move(p);
        best.model = std::move(stage);
        best.stage = s;
      }
    }
  }
  return best;
}

Verdict decide(const PlanRequest& q, const Resolved& r, const PlanResult& out) {
  Verdict v;
  v.uncertain = q.uncertain;
  const EnginePrediction& p = out.engine;
  if (p.startup == Startup::refused) {
    v.cause = Cause::refused;
    v.refusal = p.refusal;
    return v;
  }
  if (r.gpus_used > r.gpus_available) {
    v.cause = Cause::gpus;
    v.limit = r.gpus_used;
    return v;
  }
  if (sat_add(p.weights_bytes, p.reserved_bytes) > p.usable_bytes ||
      (p.kv_budget_bytes == 0 && p.weights_bytes >= p.usable_bytes)) {
    v.cause = Cause::weights;
    v.needed_bytes = sat_add(p.weights_bytes, p.reserved_bytes);
    v.available_bytes = p.usable_bytes;
    return v;
  }
  if (p.startup == Startup::no_kv_memory) {
    v.cause = Cause::no_kv_memory;
    v.needed_bytes = out.kv_per_sequence;
    v.available_bytes = p.kv_budget_bytes;
    return v;
  }
  if (p.startup == Startup::too_long) {
    v.cause = Cause::startup_too_long;
    v.limit = p.startup_max_len;
    v.needed_bytes = p.startup_needed_bytes;
    v.available_bytes = p.kv_budget_bytes;
    return v;
  }
  if (r.seq_len > p.max_model_len) {
    v.cause = Cause::too_long;
    v.limit = p.max_model_len;
    return v;
  }
  if (p.capacity_at_shape < r.batch_per_replica) {
    v.cause = Cause::capacity;
    v.needed_bytes = sat_mul(r.batch_per_replica, out.kv_per_sequence);
    v.available_bytes = p.kv_budget_bytes;
    return v;
  }
  if (p.concurrency_cap && *p.concurrency_cap < r.batch_per_replica) {
    v.cause = Cause::concurrency_cap;
    v.limit = sat_mul(*p.concurrency_cap, r.dp);
    return v;
  }
  v.fits = true;
  return v;
}

// What the GPU's arithmetic lacks for the dtypes planned (issue #12, compatibility warnings). The
// memory is planned as asked: a format the hardware cannot compute in is stored as it is and
// converted to compute, or the engine refuses it (docs/gpus.md, "Architectures").
std::string arch_words(const GpuArch& a) { return fmt::format("{} ({})", a.target, a.family); }

std::vector<std::string> hardware_warnings(const PlanRequest& q, const Resolved& r) {
  std::vector<std::string> out;
  if (q.hardware.gpu == nullptr) {
    return out;
  }
  const GpuSpec& g = *q.hardware.gpu;
  const bool fp8_kv = r.kv_dtype.name.starts_with("fp8");
  const bool fp8_weights = r.weights.linear.name.starts_with("fp8") || r.weights.experts.name.starts_with("fp8");
  if (!g.arch.fp8 && (fp8_kv || fp8_weights)) {
    const std::string what = fp8_kv && fp8_weights ? "fp8 weights and KV cache" : fp8_kv ? "fp8 KV cache" : "fp8 weights";
    out.push_back(fmt::format("the {} is {} and has no FP8 arithmetic (NVIDIA has it from sm_89, AMD from CDNA 3): "
                              "the memory planned here holds the {} at one byte per element, but it is converted to "
                              "16-bit to compute, so FP8 saves memory there, not time, and only kernels that convert "
                              "it take it",
                              g.name, arch_words(g.arch), what));
  }
  const bool bf16 = r.kv_dtype.name == "bf16" || r.weights.embeddings.name == "bf16" || r.weights.linear.name == "bf16";
  if (!g.arch.bf16 && bf16) {
    out.push_back(fmt::format("the {} is {} and has no bfloat16 arithmetic (NVIDIA has it from sm_80): a bf16 model is "
                              "served there as fp16, the same two bytes per element and so the memory planned here, "
                              "or refused, by engine and version (docs/engines.md)",
                              g.name, arch_words(g.arch)));
  }
  return out;
}

}  // namespace

Resolved resolve(const PlanRequest& q) {
  const ModelSpec& m = q.model_spec();
  const Capabilities caps = q.engine_ref().capabilities();
  Resolved r;
  r.pp = q.pp.value_or(1);
  r.cp = q.cp.value_or(1);
  const std::uint32_t cp_gpus = caps.context == ContextParallel::ring ? r.cp : 1;
  // kvplan's own flags plan for the GPUs given (--gpu H100x4 is tp 4); an engine's command line
  // gets the engine's defaults (tp 1, dp 1), whatever the machine has.
  const bool from_count = q.origin != Origin::command_line && q.hardware.count.has_value();
  const bool slices = q.hardware.gpu != nullptr && !q.hardware.gpu->slice_of.empty();  // MIG: replicas only
  if (q.tp) {
    r.tp = *q.tp;
  } else if (from_count && caps.splits_heads && !slices) {
    r.tp = std::max<std::uint32_t>(1, *q.hardware.count / (r.pp * cp_gpus * q.dp.value_or(1)));
  }
  if (q.dp) {
    r.dp = *q.dp;
  } else if (from_count && caps.data_parallel) {
    r.dp = std::max<std::uint32_t>(1, *q.hardware.count / (r.tp * r.pp * cp_gpus));
  }
  r.gpus_used = r.tp * r.pp * cp_gpus * r.dp;
  r.gpus_available = q.hardware.count.value_or(r.gpus_used);
  if (caps.layers_over_devices) {
    r.gpus_used = r.gpus_available;  // llama.cpp spreads the model over every GPU it sees
  }
  r.kv_dtype = q.kv_dtype ? *q.kv_dtype : require_dtype(kv_dtypes(), "--kv-dtype", m.torch_dtype);
  r.weights = q.weights ? *q.weights : weight_format(m, "auto");
  r.max_model_len_given = q.max_model_len.has_value();
  r.max_model_len = q.max_model_len.value_or(m.max_position_embeddings);
  r.seq_len_given = q.seq_len.has_value();
  r.seq_len = q.seq_len.value_or(q.shape_at_max_len ? r.max_model_len : std::min(kDefaultShapeTokens, r.max_model_len));
  r.batch_given = q.batch.has_value();
  r.batch = q.batch.value_or(1);
  r.batch_per_replica = ceil_div(r.batch, r.dp);
  return r;
}

std::optional<std::string> split_problem(const PlanRequest& q, const Resolved& r) {
  const ModelSpec& m = q.model_spec();
  const Engine& engine = q.engine_ref();
  const Capabilities caps = engine.capabilities();
  if (r.pp > m.num_hidden_layers) {
    return fmt::format("pipeline parallel size {} is more than the model's {} layers; every stage needs at least one",
                       r.pp, m.num_hidden_layers);
  }
  if (q.hardware.gpu != nullptr && q.hardware.gpu->arch.vendor == GpuVendor::apple && !caps.metal) {
    std::string with;
    for (const Engine* e : all_engines()) {
      if (e->capabilities().metal) {
        with += (with.empty() ? "" : " or ") + std::string(e->name());
      }
    }
    return fmt::format("{} does not run on Apple's GPUs (Metal); plan {} with --engine {}", engine.display(),
                       q.hardware.gpu->name, with);
  }
  if (q.hardware.gpu != nullptr && !q.hardware.gpu->slice_of.empty() && (r.tp > 1 || r.pp > 1 || r.cp > 1)) {
    // NVIDIA MIG User Guide, "CUDA Device Enumeration": a CUDA process sees one MIG instance.
    return fmt::format("{} is a MIG instance, and a process sees only one MIG instance (CUDA device enumeration), "
                       "so one model is not split over several (tp {}, pp {}): serve replicas, one per instance "
                       "(--dp), or a bigger instance",
                       q.hardware.gpu->name, r.tp, r.pp);
  }
  if (r.cp > 1 && caps.context == ContextParallel::none) {
    std::string with;
    for (const Engine* e : all_engines()) {
      if (e->capabilities().context != ContextParallel::none) {
        with += (with.empty() ? "" : " or ") + std::string(e->name());
      }
    }
    return fmt::format("context parallelism with {} is not modelled; use --engine {}", engine.display(), with);
  }
  if (caps.splits_heads) {
    if (auto problem = tp_problem(m, r.tp)) {
      return problem;
    }
  }
  return engine.split_problem(m, r.tp, r.pp, r.cp);
}

PlanResult plan(const PlanRequest& q, Depth depth) {
  PlanResult out;
  if (depth == Depth::report) {
    out.request = q;  // searches at verdict depth read only the numbers
  }
  out.r = resolve(q);
  Resolved& r = out.r;
  const Engine& engine = q.engine_ref();
  std::optional<std::string> problem = q.refusal;
  if (!problem) {
    problem = split_problem(q, r);
  }
  if (!problem && q.shape_at_max_len && !q.seq_len) {
    // No stated length: one request of the longest the settings configure (a llama.cpp slot, say).
    const EnginePrediction probe = engine.predict(engine_inputs(q, r, q.model_spec(), r.pp - 1, false, {}));
    const std::uint64_t len = probe.configured_len > 0 ? probe.configured_len : probe.max_model_len;
    if (len > 0) {
      r.seq_len = len;
    }
  }
  if (problem) {
    out.verdict.cause = Cause::refused;
    out.verdict.refusal = *problem;
    out.verdict.uncertain = q.uncertain;
    out.stage_model = q.model.spec;
    return out;
  }
  const bool report = depth == Depth::report;
  StageEval best = evaluate_stages(q, r, report ? &out.stages : nullptr, out.engine);
  out.stage_model = best.model;
  out.stage = best.stage;
  const ModelSpec& m = *best.model;
  if (report) {
    // The bottleneck again, with the engine's text and the frontier.
    out.frontier_lengths = frontier_lengths(r.max_model_len, r.seq_len);
    out.engine = engine.predict(engine_inputs(q, r, m, best.stage, true, out.frontier_lengths));
  }
  const EnginePrediction& p = out.engine;
  if (p.kv_dtype) {
    r.kv_dtype = *p.kv_dtype;
  }
  out.budget.vram_bytes = q.hardware.vram_bytes;
  out.budget.usable_bytes = p.usable_bytes;
  out.budget.utilization_ppm = p.fraction_ppm;
  out.budget.weights_bytes = p.weights_bytes;
  out.budget.kv_budget_bytes = p.kv_budget_bytes;
  out.budget.reserved_bytes = sat_sub(sat_sub(p.usable_bytes, p.weights_bytes), p.kv_budget_bytes);
  out.budget.deficit_bytes = sat_sub(sat_add(p.weights_bytes, p.reserved_bytes), p.usable_bytes);
  out.shape.batch = r.batch_per_replica;
  out.shape.seq_len = r.seq_len;
  out.shape.kv_dtype = r.kv_dtype;
  out.shape.tensor_parallel = r.tp;
  out.shape.context_parallel = r.cp;
  // The engine-neutral figures (KV/seq, comparisons) use the neutral plan's paged block; an engine's
  // own granule shows in its own section and in the allocation table.
  out.shape.block_size = &engine == &raw_engine() ? p.block_tokens : kNeutralBlock;
  Deployment one = out.shape;
  one.batch = 1;
  out.kv_per_sequence = kv_bytes_per_sequence(m, one);
  out.memory_batch = p.capacity_at_shape;
  out.max_batch = served(p);
  out.total_concurrency = sat_mul(out.max_batch, r.dp);
  const std::uint64_t accepted = std::min(p.max_model_len, r.max_model_len);
  out.longest_at_batch_1 = longest_seq_len(m, one, p.kv_budget_bytes, accepted);
  if (report) {
    out.longest_uncapped = longest_seq_len(m, one, p.kv_budget_bytes, kUncapped);
  }
  out.verdict = decide(q, r, out);
  // Weights named, not read (an Unsloth dynamic 4-bit upload): those planned are a lower bound, and the
  // answer stands only where the upper bound, every layer in the model's 16-bit dtype, gives it too.
  const bool lower_bound = !q.model_spec().skip_list_unread.empty() && r.weights.skip_list;
  if (out.verdict.fits && lower_bound) {
    PlanRequest upper = q;
    upper.weights = weight_format(q.model_spec(), q.model_spec().torch_dtype);
    const PlanResult u = plan(upper, Depth::verdict);
    if (!u.verdict.fits) {
      out.verdict.fits = false;
      out.verdict.cause = Cause::weights_unknown;
      out.verdict.upper_cause = u.verdict.cause;
      out.verdict.needed_bytes = u.budget.weights_bytes;
      out.verdict.available_bytes = out.budget.weights_bytes;
    }
  }
  if (report && lower_bound && out.verdict.cause != Cause::weights_unknown) {
    out.request.warnings.push_back(fmt::format(
        "the checkpoint is {}, named, not read: it keeps the layers its config.json lists in "
        "quantization_config.llm_int8_skip_modules at 16 bits, so the weights planned ({} per GPU, every layer at "
        "{}) are a lower bound and the KV budget an upper one{}; give the config.json (--config PATH, or the "
        "checkpoint's folder) for its own",
        q.model_spec().skip_list_unread, format_bytes(out.budget.weights_bytes), r.weights.linear.name,
        out.verdict.fits ? " (the verdict holds with every layer at 16 bits too)" : ""));
  }
  if (report) {
    for (std::string& w : hardware_warnings(q, r)) {
      out.request.warnings.push_back(std::move(w));
    }
  }
  if (report && !out.verdict.fits) {
    out.fixes = find_fixes(out);
  }
  // Nothing left for the KV cache: the report shows the plan under the first fix (which was
  // planned to fit, so it does not nest further; the guard is for a fix that would not).
  static thread_local bool nested = false;
  if (report && !nested && !out.verdict.fits && out.budget.kv_budget_bytes == 0 && !out.fixes.empty()) {
    PlanRequest fixed = q;
    for (const Change& c : out.fixes.front().changes) {
      fixed = apply(fixed, c);
    }
    nested = true;
    try {
      out.under_fix = std::make_shared<const PlanResult>(plan(fixed, Depth::report));
    } catch (...) {
      nested = false;
      throw;
    }
    nested = false;
  }
  if (report && r.seq_len_given && r.batch_given) {
    out.inverse = find_inverse(q, r);
  }
  return out;
}

bool serves(const PlanRequest& q) { return plan(q, Depth::verdict).verdict.fits; }

}  // namespace kvplan
