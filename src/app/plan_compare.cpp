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

struct Kinds {
  bool special = false;  // any layer that is not plain full attention
  bool latent = false;   // MLA
};

Kinds kinds(const ModelSpec& m) {
  Kinds k;
  for (const LayerGroup& g : m.layers) {
    std::visit(overloaded{
                   [](const FullAttention&) {},
                   [&](const SlidingWindow&) { k.special = true; },
                   [&](const LatentAttention&) { k.special = k.latent = true; },
                   [&](const RecurrentState&) { k.special = true; },
                   [&](const ChunkedLocal&) { k.special = true; },
                   [&](const CrossAttention&) { k.special = true; },
                   [&](const SharedKV&) { k.special = true; },
                   [&](const IndexerCache&) { k.special = true; },
                   [&](const NoCache&) { k.special = true; },
               },
               g.spec);
  }
  return k;
}

Table attention_table(const PlanResult& x) {
  struct Variant {
    std::string label;
    ModelSpec model;
  };
  const ModelSpec& m = *x.stage_model;
  const std::uint32_t kv = m.dense_attention.num_key_value_heads;
  std::vector<Variant> variants{{"as is", m}};
  const Kinds k = kinds(m);
  const bool special = k.special;
  const bool mla = k.latent;
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
  t.title = fmt::format("Attention: same budget, {} × {} tokens", with_commas(x.shape.batch), with_commas(x.shape.seq_len));
  t.columns = {{"variant", "Variant"},           {"kv_bytes_per_token", "KV/token (model)"}, {"kv_bytes_per_sequence", "KV/seq"},
               {"max_batch", "Max batch"},       {"relative", "Relative"}};
  std::uint64_t base = 0;
  for (const Variant& v : variants) {
    Deployment one = x.shape;
    one.batch = 1;
    const std::uint64_t per_seq = kv_bytes_per_sequence(v.model, one);
    base = base == 0 ? per_seq : base;
    t.rows.push_back({Cell::str(v.label), Cell::bytes(model_kv_bytes_per_token(v.model, x.r.kv_dtype)),
                      Cell::bytes(per_seq), Cell::count(max_batch(v.model, x.shape, x.budget.kv_budget_bytes)),
                      Cell::ratio(relative(per_seq, base))});
  }
  return t;
}

Table dtype_table(const PlanResult& x) {
  Table t;
  t.key = "kv_dtype";
  t.title = "KV dtype: same budget and shape";
  t.columns = {{"kv_dtype", "KV dtype"},         {"bits_per_element", "Bits/elem"}, {"kv_bytes_per_sequence", "KV/seq"},
               {"max_batch", "Max batch"},       {"relative", "Relative"}};
  const std::string sixteen = x.stage_model->torch_dtype == "fp16" ? "fp16" : "bf16";
  std::uint64_t base = 0;
  for (const char* name : {sixteen.c_str(), "fp8", "int8", "int4"}) {
    Deployment d = x.shape;
    d.kv_dtype = *find_dtype(kv_dtypes(), name);
    d.batch = 1;
    const std::uint64_t per_seq = kv_bytes_per_sequence(*x.stage_model, d);
    base = base == 0 ? per_seq : base;
    const double bits = 8.0 * d.kv_dtype.block_bytes / d.kv_dtype.block_elems;
    const std::string scale = d.kv_dtype.row_scale_bytes > 0 ? fmt::format(" + {} B/row", d.kv_dtype.row_scale_bytes) : "";
    t.rows.push_back({Cell::str(fmt::format("{}", d.kv_dtype.name)), Cell::str(fmt::format("{:.2f}{}", bits, scale)),
                      Cell::bytes(per_seq), Cell::count(max_batch(*x.stage_model, d, x.budget.kv_budget_bytes)),
                      Cell::ratio(relative(per_seq, base))});
  }
  t.notes.push_back("int8: fp32 scale per token and head (an int8_per_token_head cache); int4: fp16 scale + zero per 64 "
                    "elements (HF QuantizedCache).");
  return t;
}

Table allocation_table(const PlanResult& x) {
  Table t;
  t.key = "allocation";
  t.title = fmt::format("Allocation: sequences of {} tokens, max length {}", with_commas(x.shape.seq_len),
                        with_commas(x.r.max_model_len));
  t.columns = {{"allocation", "Allocation"}, {"reserved_bytes_per_sequence", "Reserved/seq"},
               {"used_bytes_per_sequence", "Used/seq"}, {"waste_percent", "Waste"},
               {"max_batch", "Max batch"}, {"relative", "Relative"}};
  Deployment exact = x.shape;
  exact.batch = 1;
  exact.block_size = 1;
  const std::uint64_t used = kv_bytes_per_sequence(*x.stage_model, exact);
  struct Row {
    std::string label;
    Deployment d;
  };
  Deployment paged = exact;
  paged.block_size = x.engine.block_tokens;
  Deployment contiguous = exact;
  contiguous.seq_len = x.r.max_model_len;
  const std::vector<Row> rows{{fmt::format("paged, block {}", x.engine.block_tokens), paged},
                              {fmt::format("contiguous, reserves {}", with_commas(x.r.max_model_len)), contiguous}};
  std::uint64_t base = 0;
  for (const Row& r : rows) {
    const std::uint64_t reserved = kv_bytes_per_sequence(*x.stage_model, r.d);
    base = base == 0 ? reserved : base;
    const double waste = reserved == 0 ? 0.0 : 100.0 * static_cast<double>(reserved - used) / static_cast<double>(reserved);
    t.rows.push_back({Cell::str(r.label), Cell::bytes(reserved), Cell::bytes(used), Cell::percent(waste),
                      Cell::count(reserved == 0 ? 0 : x.budget.kv_budget_bytes / reserved), Cell::ratio(relative(reserved, base))});
  }
  t.notes.push_back("Paged waste is under one block per sequence and layer group; contiguous allocation reserves the "
                    "maximum length for every sequence.");
  return t;
}


// The frontier again, as the page draws it (issue #12, "Pictures"): max batch by context length for
// each KV dtype (paged, the same budget) and for contiguous allocation, which reserves max_model_len
// for every sequence whatever its length. The engine-neutral arithmetic, as the tables above.
Table curves_table(const PlanResult& x) {
  Table t;
  t.key = "curves";
  t.title = "Max batch by context: each KV dtype paged, and contiguous (same budget)";
  t.in_text = false;  // the kv_dtype and allocation tables say it in the terminal
  t.curves = true;
  const std::string sixteen = x.stage_model->torch_dtype == "fp16" ? "fp16" : "bf16";
  const std::vector<std::string> names{sixteen, "fp8", "int8", "int4"};
  t.columns = {{"seq_len", "Context [tokens]"}};
  for (const std::string& n : names) {
    t.columns.push_back({n + "_paged", n + " paged"});
  }
  t.columns.push_back({"contiguous", fmt::format("{} contiguous", x.r.kv_dtype.name)});
  Deployment contiguous = x.shape;
  contiguous.batch = 1;
  contiguous.block_size = 1;
  contiguous.seq_len = x.r.max_model_len;
  const std::uint64_t reserved = kv_bytes_per_sequence(*x.stage_model, contiguous);
  const std::uint64_t flat = reserved == 0 ? 0 : x.budget.kv_budget_bytes / reserved;
  for (const std::uint64_t len : x.frontier_lengths) {
    std::vector<Cell> row{Cell::tokens(len)};
    for (const std::string& n : names) {
      Deployment d = x.shape;
      d.kv_dtype = *find_dtype(kv_dtypes(), n);
      d.seq_len = len;
      row.push_back(Cell::count(max_batch(*x.stage_model, d, x.budget.kv_budget_bytes)));
    }
    row.push_back(Cell::count(flat));
    t.rows.push_back(std::move(row));
  }
  t.notes.push_back(fmt::format("Contiguous: every sequence reserves max_model_len ({} tokens) at {}.",
                                with_commas(x.r.max_model_len), x.r.kv_dtype.name));
  return t;
}

}  // namespace

std::vector<Section> comparison_sections(const PlanResult& x) {
  Section s;
  s.key = "compare";
  s.title = "Comparisons: KV/seq per GPU, max batch per replica";
  s.tables.push_back(attention_table(x));
  s.tables.push_back(dtype_table(x));
  s.tables.push_back(allocation_table(x));
  s.tables.push_back(curves_table(x));
  return {s};
}

Section explain_section(const PlanResult& x) {
  Section s;
  s.title = "How these numbers were computed";
  const Deployment& d = x.shape;
  std::size_t step = 1;
  auto note = [&](std::string text) { s.notes.push_back(fmt::format("{}. {}", step++, text)); };
  for (const LayerGroup& g : x.stage_model->layers) {
    const std::string kind = kind_label(g.spec);
    const std::uint64_t per_token = bytes_per_token(g.spec, d.kv_dtype, d.tensor_parallel);
    auto heads = [&](const FullAttention& a) {
      note(fmt::format("{} × {}: KV heads per GPU = max(1, {} / tp {}) = {}", g.count, kind, a.num_key_value_heads,
                       d.tensor_parallel, kv_heads_per_rank(a.num_key_value_heads, d.tensor_parallel)));
      return true;
    };
    const bool grows = std::visit(
        overloaded{
            [&](const FullAttention& a) { return heads(a); },
            [&](const SlidingWindow& w) { return heads(w.attention); },
            [&](const LatentAttention&) {
              note(fmt::format("{} × {}: one latent per token, the same on every GPU", g.count, kind));
              return true;
            },
            [&](const RecurrentState& state) {
              note(fmt::format("{} × {}: ({} / tp {}) · {} B + ({} / tp {}) · {} B = {} per sequence and layer", g.count,
                               kind, with_commas(state.conv_elements), d.tensor_parallel, state.conv_element_bytes,
                               with_commas(state.ssm_elements), d.tensor_parallel, state.ssm_element_bytes,
                               format_bytes(fixed_bytes_per_sequence(g.spec, d.kv_dtype, d.tensor_parallel))));
              return false;
            },
            [&](const ChunkedLocal& c) { return heads(c.attention); },
            [&](const CrossAttention& c) {
              heads(c.attention);
              note(fmt::format("   {} encoder tokens per sequence: {} per sequence and layer", with_commas(c.encoder_tokens),
                               format_bytes(fixed_bytes_per_sequence(g.spec, d.kv_dtype, d.tensor_parallel))));
              return false;
            },
            [&](const SharedKV& shared) {
              note(fmt::format("{} × {}: reads layer {}'s cache and holds none", g.count, kind, shared.source_layer));
              return false;
            },
            [&](const IndexerCache& i) {
              note(fmt::format("{} × {}: {} fp8 + {} B scale per token, the same on every GPU", g.count, kind, i.head_dim,
                               i.scale_bytes));
              return true;
            },
            [&](const NoCache&) {
              note(fmt::format("{} × {}: no attention, nothing held", g.count, kind));
              return false;
            },
        },
        g.spec);
    if (!grows) {
      continue;
    }
    const std::uint64_t held = tokens_held(g.spec, d.seq_len);
    const std::uint64_t rounded = round_up(held, d.block_size);
    s.notes.push_back(fmt::format("   {} B per token per layer ({}); holds {} of {} tokens, rounded up to blocks of {}: {} tokens",
                     with_commas(per_token), per_token_formula(g.spec, 1, d.kv_dtype), with_commas(held),
                     with_commas(d.seq_len), d.block_size, with_commas(rounded)));
    s.notes.push_back(fmt::format("   {} layers × {} B × {} tokens = {} per sequence", g.count, with_commas(per_token),
                     with_commas(rounded), format_bytes(sat_mul(g.count, sat_mul(per_token, rounded)))));
  }
  note(fmt::format("One sequence: {} ({} B) per GPU", format_bytes(x.kv_per_sequence), with_commas(x.kv_per_sequence)));
  const Budget& b = x.budget;
  note(fmt::format("KV budget = floor({} B × {}) − {} B weights − {} B reserve = {} B", with_commas(b.vram_bytes),
                   static_cast<double>(b.utilization_ppm) / 1e6, with_commas(b.weights_bytes), with_commas(b.reserved_bytes),
                   b.deficit_bytes > 0 ? "-" + with_commas(b.deficit_bytes) : with_commas(b.kv_budget_bytes)));
  note(fmt::format("Max batch = floor({} / {}) = {}", with_commas(b.kv_budget_bytes), with_commas(x.kv_per_sequence),
                   with_commas(x.memory_batch)));
  note("Longest context: binary search for the largest length whose KV fits, capped at the model's maximum.");
  return s;
}

std::optional<std::string> tp_problem(const ModelSpec& m, std::uint32_t tp) {
  if (m.num_attention_heads % tp != 0) {
    return fmt::format("Total number of attention heads ({}) must be divisible by tensor parallel size ({})",
                       m.num_attention_heads, tp);
  }
  const bool mla = kinds(m).latent;
  const std::uint32_t kv = m.dense_attention.num_key_value_heads;
  if (!mla && kv % tp != 0 && tp % kv != 0) {
    return fmt::format("{} KV heads cannot be split or replicated evenly across tensor parallel size {}", kv, tp);
  }
  return std::nullopt;
}

}  // namespace kvplan
