// Comparison tables at the plan's budget and shape, the --explain steps, and the advice that
// turns "nothing fits" into the knob that would make it fit.
#include "plan_sections.hpp"

#include <fmt/format.h>
#include <variant>

#include "kvplan/quantity.hpp"
#include "kvplan/solver.hpp"
#include "kvplan/units.hpp"
#include "plan_text.hpp"

namespace kvplan {
namespace {

double relative(std::uint64_t value, std::uint64_t base) {
  return base == 0 ? 0.0 : static_cast<double>(value) / static_cast<double>(base);
}

bool has_kind(const ModelSpec& m, auto pred) {
  for (const LayerGroup& g : m.layers) {
    if (pred(g.spec)) {
      return true;
    }
  }
  return false;
}

Table attention_table(const PlanInputs& in, const Evaluation& e) {
  struct Variant {
    std::string label;
    ModelSpec model;
  };
  const ModelSpec& m = in.model;
  const std::uint32_t kv = m.dense_attention.num_key_value_heads;
  std::vector<Variant> variants{{"as is", m}};
  const bool special = has_kind(m, [](const LayerCacheSpec& s) { return !std::holds_alternative<FullAttention>(s); });
  const bool mla = has_kind(m, [](const LayerCacheSpec& s) { return std::holds_alternative<LatentAttention>(s); });
  if (special && !mla) {
    variants.push_back({"dense equivalent (every layer full attention)", dense_equivalent(m)});
  }
  if (mla || kv != m.num_attention_heads) {
    variants.push_back({fmt::format("MHA ({} KV heads{})", m.num_attention_heads, mla ? ", MLA written out" : ""),
                        with_kv_heads(m, m.num_attention_heads)});
  }
  if (mla || kv != 1) {
    variants.push_back({"MQA (1 KV head)", with_kv_heads(m, 1)});
  }
  Table t;
  t.key = "attention";
  t.title = fmt::format("Attention: same budget, {} × {} tokens", with_commas(e.shape.batch), with_commas(e.shape.seq_len));
  t.columns = {{"variant", "Variant"},           {"kv_bytes_per_token", "KV/token"}, {"kv_bytes_per_sequence", "KV/seq"},
               {"max_batch", "Max batch"},       {"relative", "Relative"}};
  std::uint64_t base = 0;
  for (const Variant& v : variants) {
    Deployment one = e.shape;
    one.batch = 1;
    const std::uint64_t per_seq = kv_bytes_per_sequence(v.model, one);
    base = base == 0 ? per_seq : base;
    t.rows.push_back({Cell::str(v.label), Cell::bytes(model_kv_bytes_per_token(v.model, in.kv_dtype)),
                      Cell::bytes(per_seq), Cell::count(max_batch(v.model, e.shape, e.budget.kv_budget_bytes)),
                      Cell::ratio(relative(per_seq, base))});
  }
  return t;
}

Table dtype_table(const PlanInputs& in, const Evaluation& e) {
  Table t;
  t.key = "kv_dtype";
  t.title = "KV dtype: same budget and shape";
  t.columns = {{"kv_dtype", "KV dtype"},         {"bits_per_element", "Bits/elem"}, {"kv_bytes_per_sequence", "KV/seq"},
               {"max_batch", "Max batch"},       {"relative", "Relative"}};
  const std::string sixteen = in.model.torch_dtype == "fp16" ? "fp16" : "bf16";
  std::uint64_t base = 0;
  for (const char* name : {sixteen.c_str(), "fp8", "int8", "int4"}) {
    Deployment d = e.shape;
    d.kv_dtype = *find_dtype(kv_dtypes(), name);
    d.batch = 1;
    const std::uint64_t per_seq = kv_bytes_per_sequence(in.model, d);
    base = base == 0 ? per_seq : base;
    const double bits = 8.0 * d.kv_dtype.block_bytes / d.kv_dtype.block_elems;
    const std::string scale = d.kv_dtype.row_scale_bytes > 0 ? fmt::format(" + {} B/row", d.kv_dtype.row_scale_bytes) : "";
    t.rows.push_back({Cell::str(fmt::format("{}", d.kv_dtype.name)), Cell::str(fmt::format("{:.2f}{}", bits, scale)),
                      Cell::bytes(per_seq), Cell::count(max_batch(in.model, d, e.budget.kv_budget_bytes)),
                      Cell::ratio(relative(per_seq, base))});
  }
  t.notes.push_back("int8: fp32 scale per token and head (vLLM int8_per_token_head); int4: fp16 scale + zero per 64 "
                    "elements (HF QuantizedCache).");
  return t;
}

Table allocation_table(const PlanInputs& in, const Evaluation& e) {
  Table t;
  t.key = "allocation";
  t.title = fmt::format("Allocation: sequences of {} tokens, max length {}", with_commas(e.shape.seq_len),
                        with_commas(in.max_model_len));
  t.columns = {{"allocation", "Allocation"}, {"reserved_bytes_per_sequence", "Reserved/seq"},
               {"used_bytes_per_sequence", "Used/seq"}, {"waste_percent", "Waste"},
               {"max_batch", "Max batch"}, {"relative", "Relative"}};
  Deployment exact = e.shape;
  exact.batch = 1;
  exact.block_size = 1;
  const std::uint64_t used = kv_bytes_per_sequence(in.model, exact);
  struct Row {
    std::string label;
    Deployment d;
  };
  Deployment paged = exact;
  paged.block_size = in.block_size;
  Deployment contiguous = exact;
  contiguous.seq_len = in.max_model_len;
  const std::vector<Row> rows{{fmt::format("paged, block {}", in.block_size), paged},
                              {fmt::format("contiguous, reserves {}", with_commas(in.max_model_len)), contiguous}};
  std::uint64_t base = 0;
  for (const Row& r : rows) {
    const std::uint64_t reserved = kv_bytes_per_sequence(in.model, r.d);
    base = base == 0 ? reserved : base;
    const double waste = reserved == 0 ? 0.0 : 100.0 * static_cast<double>(reserved - used) / static_cast<double>(reserved);
    t.rows.push_back({Cell::str(r.label), Cell::bytes(reserved), Cell::bytes(used), Cell::percent(waste),
                      Cell::count(reserved == 0 ? 0 : e.budget.kv_budget_bytes / reserved), Cell::ratio(relative(reserved, base))});
  }
  t.notes.push_back("Paged waste is under one block per sequence and layer group; contiguous allocation reserves the "
                    "maximum length for every sequence.");
  return t;
}

}  // namespace

std::vector<Section> comparison_sections(const PlanInputs& in, const Evaluation& e) {
  Section s;
  s.key = "compare";
  s.title = "Comparisons";
  s.tables.push_back(attention_table(in, e));
  s.tables.push_back(dtype_table(in, e));
  s.tables.push_back(allocation_table(in, e));
  return {s};
}

Section explain_section(const PlanInputs& in, const Evaluation& e) {
  Section s;
  s.title = "How these numbers were computed";
  const Deployment& d = e.shape;
  std::size_t step = 1;
  auto note = [&](std::string text) { s.notes.push_back(fmt::format("{}. {}", step++, text)); };
  for (const LayerGroup& g : in.model.layers) {
    const std::string kind = kind_label(g.spec);
    if (const auto* state = std::get_if<RecurrentState>(&g.spec)) {
      note(fmt::format("{} × {}: ({} / tp {}) · {} B + ({} / tp {}) · {} B = {} per sequence and layer", g.count, kind,
                       with_commas(state->conv_elements), d.tensor_parallel, state->conv_element_bytes,
                       with_commas(state->ssm_elements), d.tensor_parallel, state->ssm_element_bytes,
                       format_bytes(fixed_bytes_per_sequence(g.spec, d.tensor_parallel))));
      continue;
    }
    const std::uint64_t per_token = bytes_per_token(g.spec, d.kv_dtype, d.tensor_parallel);
    if (const auto* full = std::get_if<FullAttention>(&g.spec)) {
      note(fmt::format("{} × {}: KV heads per GPU = max(1, {} / tp {}) = {}", g.count, kind, full->num_key_value_heads,
                       d.tensor_parallel, kv_heads_per_rank(full->num_key_value_heads, d.tensor_parallel)));
    } else if (const auto* swa = std::get_if<SlidingWindow>(&g.spec)) {
      note(fmt::format("{} × {}: KV heads per GPU = max(1, {} / tp {}) = {}", g.count, kind,
                       swa->attention.num_key_value_heads, d.tensor_parallel,
                       kv_heads_per_rank(swa->attention.num_key_value_heads, d.tensor_parallel)));
    } else {
      note(fmt::format("{} × {}: one latent per token, the same on every GPU", g.count, kind));
    }
    const std::uint64_t held = tokens_held(g.spec, d.seq_len);
    const std::uint64_t rounded = round_up(held, d.block_size);
    s.notes.push_back(fmt::format("   {} B per token per layer ({}); holds {} of {} tokens, rounded up to blocks of {}: {} tokens",
                     with_commas(per_token), per_token_formula(g.spec, 1, d.kv_dtype), with_commas(held),
                     with_commas(d.seq_len), d.block_size, with_commas(rounded)));
    s.notes.push_back(fmt::format("   {} layers × {} B × {} tokens = {} per sequence", g.count, with_commas(per_token),
                     with_commas(rounded), format_bytes(sat_mul(g.count, sat_mul(per_token, rounded)))));
  }
  note(fmt::format("One sequence: {} ({} B) per GPU", format_bytes(e.kv_per_sequence), with_commas(e.kv_per_sequence)));
  const Budget& b = e.budget;
  note(fmt::format("KV budget = floor({} B × {}) − {} B weights − {} B reserve = {} B", with_commas(b.vram_bytes),
                   static_cast<double>(b.utilization_ppm) / 1e6, with_commas(b.weights_bytes), with_commas(b.reserved_bytes),
                   b.deficit_bytes > 0 ? "-" + with_commas(b.deficit_bytes) : with_commas(b.kv_budget_bytes)));
  note(fmt::format("Max batch = floor({} / {}) = {}", with_commas(b.kv_budget_bytes), with_commas(e.kv_per_sequence),
                   with_commas(e.max_batch)));
  note("Longest context: binary search for the largest length whose KV fits, capped at the model's maximum.");
  return s;
}

std::optional<std::string> tp_problem(const ModelSpec& m, std::uint32_t tp) {
  if (m.num_attention_heads % tp != 0) {
    return fmt::format("Total number of attention heads ({}) must be divisible by tensor parallel size ({})",
                       m.num_attention_heads, tp);
  }
  const bool mla = has_kind(m, [](const LayerCacheSpec& s) { return std::holds_alternative<LatentAttention>(s); });
  const std::uint32_t kv = m.dense_attention.num_key_value_heads;
  if (!mla && kv % tp != 0 && tp % kv != 0) {
    return fmt::format("{} KV heads cannot be split or replicated evenly across tensor parallel size {}", kv, tp);
  }
  return std::nullopt;
}

std::vector<std::string> advice(const PlanInputs& in, const Evaluation& e) {
  std::vector<std::string> out;
  const Budget& b = e.budget;
  if (e.engine && e.engine->kv_budget_bytes == 0) {
    out.push_back(fmt::format("kvplan: nothing fits: {} {} leaves no memory for the KV cache: the weights alone take {} "
                              "of each GPU's {}.",
                              in.engine.profile->display, in.engine.version_text, format_bytes(b.weights_bytes),
                              format_bytes(b.vram_bytes)));
  } else if (e.engine && e.shape.seq_len > e.engine->max_model_len) {
    out.push_back(fmt::format("kvplan: nothing fits: {} {} accepts at most {} tokens per request{}, fewer than the {} "
                              "asked.",
                              in.engine.profile->display, in.engine.version_text, with_commas(e.engine->max_model_len),
                              in.engine.profile->name == "llamacpp" ? " (its per-slot context, n_ctx_seq)" : "",
                              with_commas(e.shape.seq_len)));
  } else if (b.deficit_bytes > 0) {
    out.push_back(fmt::format("kvplan: nothing fits: weights ({}) and runtime reserve ({}) need {} per GPU, but only {} is "
                              "usable ({} × {}).",
                              format_bytes(b.weights_bytes), format_bytes(b.reserved_bytes),
                              format_bytes(sat_add(b.weights_bytes, b.reserved_bytes)), format_bytes(b.usable_bytes),
                              in.vram_label, static_cast<double>(b.utilization_ppm) / 1e6));
  } else {
    const std::string longest = e.longest_at_batch_1
                                    ? fmt::format("the longest context that fits at batch 1 is {} tokens",
                                                  with_commas(*e.longest_at_batch_1))
                                    : "not even one token fits";
    out.push_back(fmt::format("kvplan: nothing fits: {} × {} tokens need {} of KV per GPU, but the KV budget is {}; {}.",
                              with_commas(e.shape.batch), with_commas(e.shape.seq_len),
                              format_bytes(sat_mul(e.shape.batch, e.kv_per_sequence)),
                              format_bytes(b.kv_budget_bytes), longest));
  }
  std::vector<std::string> fixes;
  auto describe = [&](const PlanInputs& alt) {
    const Evaluation x = evaluate(alt);
    return x.fits ? std::optional<std::string>(fmt::format("KV budget {} per GPU, max batch {} at {} tokens",
                                                           format_bytes(x.budget.kv_budget_bytes), with_commas(x.max_batch),
                                                           with_commas(x.shape.seq_len)))
                  : std::nullopt;
  };
  for (std::uint32_t tp = in.tensor_parallel * 2; tp <= 64; tp *= 2) {
    if (tp_problem(in.model, tp)) {
      continue;
    }
    PlanInputs alt = in;
    alt.tensor_parallel = tp;
    if (auto d = describe(alt)) {
      const std::string knob = in.gpu != nullptr ? fmt::format("--gpu {}x{}", in.gpu->name, tp * (in.gpu_count / in.tensor_parallel))
                                                 : fmt::format("--tp {}", tp);
      fixes.push_back(fmt::format("{} (tensor parallel {}): {}", knob, tp, *d));
      break;
    }
  }
  for (const char* w : {"fp8", "int4"}) {
    const DType& dt = *find_dtype(weight_dtypes(), w);
    if (dt.block_bytes * in.weights.linear.block_elems >= in.weights.linear.block_bytes * dt.block_elems) {
      continue;  // not smaller than what is loaded now
    }
    PlanInputs alt = in;
    alt.weights = weight_format(in.model, dt.name);
    if (auto d = describe(alt)) {
      fixes.push_back(fmt::format("--weight-dtype {} (a checkpoint quantized to {}): {}", w, w, *d));
      break;
    }
  }
  if (b.deficit_bytes == 0 && in.kv_dtype.block_bytes > 1) {
    PlanInputs alt = in;
    alt.kv_dtype = *find_dtype(kv_dtypes(), "fp8");
    if (auto d = describe(alt)) {
      fixes.push_back(fmt::format("--kv-dtype fp8: {}", *d));
    }
  }
  const GpuSpec* bigger = nullptr;
  for (const GpuSpec& g : gpu_catalog()) {
    PlanInputs alt = in;
    alt.vram_bytes = g.memory_bytes;
    if (g.memory_bytes > in.vram_bytes && (bigger == nullptr || g.memory_bytes < bigger->memory_bytes) && describe(alt)) {
      bigger = &g;
    }
  }
  if (bigger != nullptr) {
    fixes.push_back(fmt::format("--gpu {} ({}, {} visible): a bigger GPU at the same settings", bigger->name,
                                bigger->marketed, format_bytes(bigger->memory_bytes)));
  }
  const bool too_long_for_engine = e.engine && e.shape.seq_len > e.engine->max_model_len;
  if (too_long_for_engine && in.engine.profile->name == "llamacpp") {
    const std::uint64_t slots = in.engine_settings.parallel.value_or(4);
    fixes.push_back(fmt::format("--ctx-size {}: {} slots of {} tokens", sat_mul(slots, e.shape.seq_len), slots,
                                with_commas(e.shape.seq_len)));
    if (!in.engine_settings.kv_unified.value_or(false)) {
      fixes.push_back("--kv-unified: every slot may use all of n_ctx");
    }
  } else if (too_long_for_engine) {
    fixes.push_back(fmt::format("--max-model-len {}: let the engine accept requests this long", e.shape.seq_len));
  } else if (b.deficit_bytes == 0 && e.longest_at_batch_1 && in.seq_len) {
    fixes.push_back(fmt::format("--seq-len {}: the longest context that fits at batch 1", *e.longest_at_batch_1));
  }
  if (fixes.empty()) {
    out.push_back("  No single knob makes it fit; combine them (--tp with --weight-dtype fp8) or use more GPUs.");
  } else {
    out.push_back("  Try one of:");
    for (const std::string& f : fixes) {
      out.push_back("    " + f);
    }
  }
  return out;
}

}  // namespace kvplan
