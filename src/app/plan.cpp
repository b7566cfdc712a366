// The plan: evaluate one deployment, then describe it (model, budget, frontier, shape) and,
// when nothing fits, say which knob would make it fit. Comparison tables: plan_compare.cpp.
#include "kvplan/plan.hpp"

#include <algorithm>
#include <fmt/format.h>

#include "kvplan/catalog.hpp"
#include "kvplan/quantity.hpp"
#include "kvplan/solver.hpp"
#include "kvplan/units.hpp"
#include "plan_sections.hpp"
#include "plan_text.hpp"

namespace kvplan {
namespace {

constexpr std::uint64_t kDefaultShapeTokens = 8192;  // the seeds' example: one sequence of 8,192 tokens
constexpr std::uint64_t kUncapped = std::uint64_t{1} << 40;

Section model_section(const PlanInputs& in) {
  const ModelSpec& m = in.model;
  Section s;
  s.key = "model";
  s.title = fmt::format("Model: {}", m.name);
  s.fields.push_back({"name", "Name", Cell::str(m.name), in.model_source});
  for (const LayerGroup& g : m.layers) {
    s.fields.push_back({"", fmt::format("{} layers", kind_label(g.spec)), Cell::count(g.count),
                        geometry(g.spec, m.num_attention_heads)});
  }
  for (const LayerGroup& g : m.layers) {
    if (std::holds_alternative<RecurrentState>(g.spec)) {
      s.fields.push_back({"", "  state per sequence", Cell::bytes(sat_mul(g.count, fixed_bytes_per_sequence(g.spec, 1))),
                          per_token_formula(g.spec, g.count, in.kv_dtype)});
    } else {
      s.fields.push_back({"", fmt::format("  {} per token", kind_label(g.spec)),
                          Cell::bytes(sat_mul(g.count, bytes_per_token(g.spec, in.kv_dtype, 1))),
                          per_token_formula(g.spec, g.count, in.kv_dtype)});
    }
  }
  const std::uint64_t per_token = model_kv_bytes_per_token(m, in.kv_dtype);
  s.fields.push_back({"kv_bytes_per_token", "KV per token", Cell::bytes(per_token),
                      fmt::format("{} B at {} ({}), one sequence, tp 1", with_commas(per_token), in.kv_dtype.name,
                                  in.kv_dtype.note)});
  if (const std::uint64_t fixed = model_fixed_bytes_per_sequence(m); fixed > 0) {
    s.fields.push_back({"fixed_bytes_per_sequence", "State per sequence", Cell::bytes(fixed),
                        "recurrent state, independent of length"});
  }
  s.fields.push_back({"max_position_embeddings", "Max context", Cell::tokens(m.max_position_embeddings),
                      "max_position_embeddings"});
  std::string official = "no official count in the sources read";
  if (in.preset != nullptr && !in.preset->params_official.empty()) {
    official = fmt::format("official: {}", in.preset->params_official);
  }
  s.fields.push_back({"parameters", "Parameters", Cell::count(m.params.total()),
                      fmt::format("{:.2f}B computed from the architecture; {}", static_cast<double>(m.params.total()) / 1e9, official)});
  return s;
}

Section budget_section(const PlanInputs& in, const Evaluation& e) {
  if (e.engine) {
    return engine_budget_section(in, e);
  }
  const Budget& b = e.budget;
  Section s;
  s.key = "budget";
  s.title = fmt::format("Memory budget per GPU (tp {})", in.tensor_parallel);
  s.fields.push_back({"vram_bytes", "VRAM", Cell::bytes(b.vram_bytes), in.vram_detail});
  s.fields.push_back({"utilization", "Usable fraction", Cell::number(static_cast<double>(b.utilization_ppm) / 1e6),
                      "--utilization (vLLM's gpu_memory_utilization default before v0.25)"});
  s.fields.push_back({"usable_bytes", "Usable", Cell::bytes(b.usable_bytes), "VRAM × usable fraction"});
  std::string formats(in.weights.linear.name);
  if (in.model.params.experts > 0 && !(in.weights.experts == in.weights.linear)) {
    formats += fmt::format(", experts in {}", in.weights.experts.name);
  }
  if (!(in.weights.embeddings == in.weights.linear)) {
    formats += fmt::format(", embeddings and norms in {}", in.weights.embeddings.name);
  }
  s.fields.push_back({"weights_bytes", "− Weights", Cell::bytes(b.weights_bytes),
                      fmt::format("{:.2f}B params in {} / tp {}", static_cast<double>(in.model.params.total()) / 1e9, formats,
                                  in.tensor_parallel)});
  if (in.reserve_bytes) {
    s.fields.push_back({"reserved_bytes", "− Runtime reserve", Cell::bytes(b.reserved_bytes), "--reserve"});
  } else {
    s.fields.push_back({"reserved_bytes", "− Runtime reserve", Cell::bytes(b.reserved_bytes),
                        "sum of the three estimates below (docs/budget.md)"});
    const EngineSettings& measured = in.engine_settings;
    s.fields.push_back({"activations_bytes", "    activations", Cell::bytes(e.reserve.activations_bytes),
                        measured.activation_bytes
                            ? std::string("--activation-memory")
                            : fmt::format("0.435 GiB + 13,300 B × vocab {} (fit to vLLM 0.19 profiling peaks)",
                                          with_commas(in.model.vocab_size))});
    s.fields.push_back({"cuda_graphs_bytes", "    CUDA graphs", Cell::bytes(e.reserve.cuda_graphs_bytes),
                        measured.cuda_graph_bytes ? "--cuda-graph-memory" : "median of 16 vLLM 0.19 CUDA-graph estimates, 0.935 GiB (range 0.65-1.79)"});
    s.fields.push_back({"framework_bytes", "    framework", Cell::bytes(e.reserve.framework_bytes),
                        measured.non_torch_bytes ? "--non-torch-memory"
                        : in.tensor_parallel > 1 ? "CUDA context + NCCL buffers (vLLM 0.19 non-torch at tp 2)"
                                               : "CUDA context, cuBLAS (vLLM 0.19 non-torch at tp 1)"});
  }
  if (b.deficit_bytes > 0) {
    s.fields.push_back({"kv_budget_bytes", "= KV cache budget", Cell::bytes(0),
                        fmt::format("short by {}: weights and reserve exceed what is usable",
                                    format_bytes(b.deficit_bytes))});
  } else {
    s.fields.push_back({"kv_budget_bytes", "= KV cache budget", Cell::bytes(b.kv_budget_bytes),
                        "what is left for the KV cache"});
  }
  return s;
}

Section frontier_section(const PlanInputs& in, const Evaluation& e) {
  Section s;
  s.title = "Batch vs. context length";
  const std::vector<std::uint64_t> lengths = frontier_lengths(in.max_model_len, in.seq_len);
  Table t;
  t.key = "frontier";
  t.columns = {{"seq_len", "Context [tokens]"}, {"max_batch", "Max batch"}, {"kv_bytes_per_sequence", "KV/seq"}};
  std::vector<FrontierPoint> points;
  if (e.engine) {
    for (const auto& [len, requests] : e.engine->frontier) {
      points.push_back(FrontierPoint{len, requests});
    }
  } else {
    points = frontier(in.model, e.shape, e.budget.kv_budget_bytes, lengths);
  }
  for (const FrontierPoint& p : points) {
    Deployment one = e.shape;
    one.seq_len = p.seq_len;
    one.batch = 1;
    t.rows.push_back({Cell::tokens(p.seq_len), Cell::count(p.max_batch), Cell::bytes(kv_bytes_per_sequence(in.model, one))});
  }
  if (in.replicas > 1) {
    t.notes.push_back(fmt::format("Per replica; the {} data-parallel replicas serve {} times as many.", in.replicas,
                                  in.replicas));
  }
  t.notes.push_back(e.engine ? fmt::format("Max batch: concurrent requests of that length under {}'s own accounting; "
                                           "KV/seq is the engine-neutral size.",
                                           in.engine.profile->display)
                             : fmt::format("Max batch: concurrent sequences per {} (paged, blocks of {} tokens).",
                                           in.tensor_parallel > 1 ? "tensor-parallel group" : "GPU", in.block_size));
  s.tables.push_back(std::move(t));

  Deployment one = e.shape;
  one.batch = 1;
  const auto uncapped = longest_seq_len(in.model, one, e.budget.kv_budget_bytes, kUncapped);
  std::string detail = "not even one token fits";
  if (e.longest_at_batch_1) {
    detail = "the most memory allows";
    if (*e.longest_at_batch_1 == in.max_model_len && uncapped && *uncapped > in.max_model_len) {
      detail = *uncapped >= kUncapped
                   ? std::string("capped at the model's maximum context; no layer's cache grows without bound")
                   : fmt::format("capped at the model's maximum context; memory alone would allow {}",
                                 with_commas(*uncapped));
    }
  }
  s.fields.push_back({"max_seq_len_at_batch_1", "Longest context at batch 1",
                      e.longest_at_batch_1 ? Cell::tokens(*e.longest_at_batch_1) : Cell::tokens(0), detail});
  return s;
}

Section shape_section(const PlanInputs& in, const Evaluation& e) {
  Section s;
  s.key = "shape";
  s.title = fmt::format("Your shape: {} × {} tokens", with_commas(e.shape.batch), with_commas(e.shape.seq_len));
  const std::uint64_t per_gpu = kv_cache_bytes_per_gpu(in.model, e.shape);
  s.fields.push_back({"seq_len", "Context", Cell::tokens(e.shape.seq_len), ""});
  s.fields.push_back({"batch", "Batch", Cell::count(e.shape.batch), "concurrent sequences"});
  s.fields.push_back({"kv_cache_bytes", "KV cache, all GPUs", Cell::bytes(kv_cache_bytes_total(in.model, e.shape)),
                      in.context_parallel > 1 ? fmt::format("per-GPU KV × tp {} × cp {}", in.tensor_parallel,
                                                            in.context_parallel)
                                              : fmt::format("per-GPU KV × tp {}", in.tensor_parallel)});
  s.fields.push_back({"kv_cache_bytes_per_gpu", "KV cache per GPU", Cell::bytes(per_gpu), ""});
  s.fields.push_back({"fits", "Fits", Cell::flag(e.fits),
                      e.fits ? fmt::format("{} to spare", format_bytes(e.budget.kv_budget_bytes - per_gpu))
                             : fmt::format("over by {}", format_bytes(sat_sub(sat_add(per_gpu, e.budget.deficit_bytes),
                                                                            e.budget.kv_budget_bytes)))});
  return s;
}

}  // namespace

Evaluation evaluate(const PlanInputs& in) {
  Evaluation e;
  e.reserve = estimate_reserve(in.model.vocab_size, in.tensor_parallel);
  const EngineSettings& measured = in.engine_settings;  // --activation-memory etc. replace single estimates
  e.reserve.activations_bytes = measured.activation_bytes.value_or(e.reserve.activations_bytes);
  e.reserve.framework_bytes = measured.non_torch_bytes.value_or(e.reserve.framework_bytes);
  e.reserve.cuda_graphs_bytes = measured.cuda_graph_bytes.value_or(e.reserve.cuda_graphs_bytes);
  const std::uint64_t reserved = in.reserve_bytes.value_or(e.reserve.total());
  const std::uint64_t weights =
      weight_bytes_per_gpu(in.model.params, in.weights, in.tensor_parallel);
  e.budget = make_budget(in.vram_bytes, in.utilization_ppm, weights, reserved);
  e.shape.batch = in.batch.value_or(1);
  e.shape.seq_len = in.seq_len.value_or(std::min(kDefaultShapeTokens, in.max_model_len));
  e.shape.kv_dtype = in.kv_dtype;
  e.shape.tensor_parallel = in.tensor_parallel;
  e.shape.context_parallel = in.context_parallel;
  e.shape.block_size = in.block_size;
  if (in.engine.profile != nullptr) {
    // The engine's own arithmetic decides the KV budget; the rest of the budget is everything
    // that is neither weights nor KV (activations, graphs, context, the headroom it leaves).
    e.engine = run_engine(in, e.shape);
    const std::uint64_t kv = e.engine->kv_budget_bytes;
    e.budget.kv_budget_bytes = kv;
    e.budget.reserved_bytes = sat_sub(sat_sub(e.budget.usable_bytes, weights), kv);
    e.budget.deficit_bytes = kv == 0 ? std::max<std::uint64_t>(e.budget.deficit_bytes, 1) : 0;
  }
  e.max_batch = max_batch(in.model, e.shape, e.budget.kv_budget_bytes);
  if (e.engine) {
    e.max_batch = 0;
    for (const auto& [len, requests] : e.engine->frontier) {
      if (len == e.shape.seq_len) {
        e.max_batch = requests;
      }
    }
  }
  Deployment one = e.shape;
  one.batch = 1;
  e.kv_per_sequence = kv_bytes_per_sequence(in.model, one);
  e.longest_at_batch_1 = longest_seq_len(in.model, one, e.budget.kv_budget_bytes, in.max_model_len);
  e.fits = e.budget.deficit_bytes == 0 && e.max_batch >= e.shape.batch && (!e.engine || e.engine->fits);
  return e;
}

PlanOutcome build_plan(const PlanInputs& whole) {
  Section stages;
  const PlanInputs in = whole.pipeline_parallel > 1 ? bottleneck_stage(whole, stages) : whole;
  const Evaluation e = evaluate(in);
  PlanOutcome out;
  Document& doc = out.doc;
  const std::string engine = in.engine.profile == nullptr
                                 ? fmt::format("raw engine, paged, block {}", in.block_size)
                                 : fmt::format("{} {}", in.engine.profile->display, in.engine.version_text);
  std::string pp = in.pipeline_parallel > 1 ? fmt::format(" · pp {}", in.pipeline_parallel) : "";
  pp += in.context_parallel > 1 ? fmt::format(" · cp {}", in.context_parallel) : "";
  pp += in.replicas > 1 ? fmt::format(" · {} replicas", in.replicas) : "";
  doc.title = fmt::format("kvplan {} · {} on {} · {} · tp {}{} · KV {} · weights {}", in.version, whole.model.name,
                          in.vram_label, engine, in.tensor_parallel, pp, in.kv_dtype.name, in.weights.linear.name);
  doc.sections.push_back(model_section(whole));
  if (whole.pipeline_parallel > 1) {
    doc.sections.push_back(std::move(stages));
  }
  doc.sections.push_back(budget_section(in, e));
  if (e.engine) {
    doc.sections.push_back(engine_section(in, e));
  }
  doc.sections.push_back(frontier_section(in, e));
  if (in.seq_len && in.batch) {
    doc.sections.push_back(shape_section(in, e));
    doc.sections.push_back(inverse_section(whole));
  }
  for (Section& s : comparison_sections(in, e)) {
    doc.sections.push_back(std::move(s));
  }
  if (in.explain) {
    doc.sections.push_back(explain_section(in, e));
  }
  if (!e.fits) {
    doc.advice = advice(in, e);
    out.exit_code = 1;
  }
  return out;
}

}  // namespace kvplan
