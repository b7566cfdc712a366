// The engine- and pipeline-specific parts of the plan: running an engine profile, the budget and
// engine sections in the engine's own terms, and the bottleneck pipeline stage.
#include <algorithm>
#include <fmt/format.h>

#include "kvplan/plan.hpp"
#include "kvplan/solver.hpp"
#include "kvplan/units.hpp"
#include "plan_sections.hpp"

namespace kvplan {

EnginePrediction run_engine(const PlanInputs& in, const Deployment& shape) {
  EngineInputs ei;
  ei.model = &in.model;
  ei.weights = in.weights;
  ei.kv_dtype = in.kv_dtype;
  ei.tensor_parallel = in.tensor_parallel;
  ei.pipeline_parallel = in.pipeline_parallel;
  ei.context_parallel = in.context_parallel;
  ei.last_stage = in.stage + 1 == in.pipeline_parallel;
  ei.gpu_memory_bytes = in.vram_bytes;
  if (in.max_model_len_given) {
    ei.max_model_len = in.max_model_len;
  }
  ei.settings = in.engine_settings;
  ei.version = in.engine.version;
  ei.version_text = in.engine.version_text;
  ei.default_version = in.engine.default_version;
  ei.frontier_lengths = frontier_lengths(in.max_model_len, shape.seq_len);
  return in.engine.profile->predict(ei);
}

Section engine_budget_section(const PlanInputs& in, const Evaluation& e) {
  const Budget& b = e.budget;
  Section s;
  s.key = "budget";
  s.title = fmt::format("Memory budget per GPU, as {} {} sizes it (tp {})", in.engine.profile->display,
                        in.engine.version_text, in.tensor_parallel);
  s.fields = e.engine->budget;
  // The schema's common keys, JSON only (an empty label keeps them out of human output).
  for (Field f : std::vector<Field>{{"vram_bytes", "", Cell::bytes(b.vram_bytes), ""},
                                    {"utilization", "", Cell::number(static_cast<double>(b.utilization_ppm) / 1e6), ""},
                                    {"usable_bytes", "", Cell::bytes(b.usable_bytes), ""},
                                    {"weights_bytes", "", Cell::bytes(b.weights_bytes), ""},
                                    {"reserved_bytes", "", Cell::bytes(b.reserved_bytes), ""},
                                    {"kv_budget_bytes", "", Cell::bytes(b.kv_budget_bytes), ""}}) {
    const bool present = std::any_of(s.fields.begin(), s.fields.end(), [&](const Field& g) { return g.key == f.key; });
    if (!present) {
      s.fields.push_back(std::move(f));
    }
  }
  return s;
}

Section engine_section(const PlanInputs& in, const Evaluation& e) {
  Section s;
  s.key = "engine";
  s.title = fmt::format("{} {}{}: what it will allocate and log", in.engine.profile->display, in.engine.version_text,
                        in.engine.default_version ? " (kvplan's default version)" : "");
  s.fields.push_back({"name", "Engine", Cell::str(std::string(in.engine.profile->name)), ""});
  s.fields.push_back({"version", "Version", Cell::str(in.engine.version_text),
                      in.engine.default_version ? "default; pick another with --engine NAME@VERSION" : ""});
  for (const Field& f : e.engine->fields) {
    s.fields.push_back(f);
  }
  s.notes.push_back("Log lines it will print:");
  for (const std::string& line : e.engine->log_lines) {
    s.notes.push_back("  " + line);
  }
  for (const std::string& n : e.engine->notes) {
    s.notes.push_back("Note: " + n);
  }
  return s;
}

// With pipeline parallelism every stage is a GPU of its own; the stage that admits the fewest
// sequences of the asked shape decides (vLLM takes the minimum of num_blocks over workers).
PlanInputs bottleneck_stage(const PlanInputs& in, Section& stages) {
  stages.key = "pipeline";
  stages.title = fmt::format("Pipeline stages (pp {}, layers split as vLLM's get_pp_indices does)", in.pipeline_parallel);
  Table t;
  t.key = "stages";
  t.columns = {{"stage", "Stage"}, {"layers", "Layers"}, {"weights_bytes", "Weights/GPU"},
               {"kv_budget_bytes", "KV budget/GPU"}, {"max_batch", "Max batch"}};
  PlanInputs best;
  std::optional<std::pair<std::uint64_t, std::uint64_t>> best_key;
  std::uint32_t first = 0;
  const std::vector<std::uint32_t> parts = pipeline_partition(in.model.num_hidden_layers, in.pipeline_parallel);
  for (std::uint32_t r = 0; r < in.pipeline_parallel; ++r) {
    PlanInputs stage = in;
    stage.model = pipeline_stage(in.model, in.pipeline_parallel, r);
    stage.stage = r;
    const Evaluation e = evaluate(stage);
    t.rows.push_back({Cell::count(r), Cell::str(fmt::format("{}-{}", first, first + parts[r] - 1)),
                      Cell::bytes(e.budget.weights_bytes), Cell::bytes(e.budget.kv_budget_bytes), Cell::count(e.max_batch)});
    first += parts[r];
    const std::pair<std::uint64_t, std::uint64_t> key{e.max_batch, e.budget.kv_budget_bytes};
    if (!best_key || key < *best_key) {
      best_key = key;
      best = stage;
    }
  }
  t.notes.push_back(fmt::format("The rest of this report is stage {}'s, the bottleneck: the stage with the fewest "
                                "sequences of the asked shape.",
                                best.stage));
  stages.tables.push_back(std::move(t));
  return best;
}

}  // namespace kvplan
