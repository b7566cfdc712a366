// describe(): the report a person reads, built from the typed PlanResult, and the words for the
// verdict and the fixes, spelled in the terms of where the request came from (kvplan's flags, the
// engine's own command line, a deployment file). Nothing here computes a number the result lacks.
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

bool neutral(const PlanRequest& q) { return &q.engine_ref() == &raw_engine(); }

std::string engine_words(const PlanRequest& q) {
  return neutral(q) ? std::string("kvplan's engine-neutral plan")
                    : fmt::format("{} {}", q.engine_ref().display(), q.version.text);
}

std::string first_spelling(std::string_view flags) { return std::string(flags.substr(0, flags.find(' '))); }

std::optional<std::size_t> knob_for(const Engine& e, Target t) {
  const std::span<const Knob> all = e.knobs();
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (all[i].target == t && !all[i].flags.empty()) {
      return i;
    }
  }
  return std::nullopt;
}

std::string gpu_name(const PlanResult& x) {
  return x.request.hardware.gpu != nullptr ? std::string(x.request.hardware.gpu->name) : x.request.hardware.label;
}

// The fixed plan's GPU count, for fixes that add GPUs.
std::uint32_t gpus_after(const PlanResult& x, const Change& c) {
  const Resolved r = resolve(apply(x.request, c));
  return std::max(r.gpus_used, r.gpus_available);
}

std::string knob_value_text(const Knob& k, const Change& c) {
  if (c.dtype) {
    const std::string n(c.dtype->name);
    return n == "fp16" ? "f16" : n == "fp32" ? "f32" : n;
  }
  if (k.type == KnobType::flag) {
    return c.value != 0 ? "on" : "off";
  }
  return knob_text(k, KnobValue{c.value});
}

std::string spell_flags(const Change& c, const PlanResult& x) {
  const Engine& e = x.request.engine_ref();
  const bool named_gpu = x.request.hardware.gpu != nullptr;
  switch (c.kind) {
    case Change::Kind::max_model_len:
      return fmt::format("--max-model-len {}", c.value);
    case Change::Kind::tp: {
      if (!named_gpu) {
        return fmt::format("--tp {}", c.value);
      }
      const std::uint32_t gpus = gpus_after(x, c);
      return fmt::format("--gpu {}x{}{} (tensor parallel {})", gpu_name(x), gpus,
                         x.request.tp ? fmt::format(" --tp {}", c.value) : "", c.value);
    }
    case Change::Kind::gpus:
      return fmt::format("--gpu {}x{} ({} replicas of tp {})", gpu_name(x), gpus_after(x, c), c.value, x.r.tp);
    case Change::Kind::gpu_count:
      return named_gpu ? fmt::format("--gpu {}x{}", gpu_name(x), c.value) : fmt::format("{} GPUs", c.value);
    case Change::Kind::weights:
      return fmt::format("--weight-dtype {} (a checkpoint quantized to {})", c.dtype->name, c.dtype->name);
    case Change::Kind::kv_dtype:
      return fmt::format("--kv-dtype {}", c.dtype->name);
    case Change::Kind::gpu: {
      const std::uint32_t n = x.r.gpus_available;
      return fmt::format("--gpu {}{} ({}, {} visible): a bigger GPU at the same settings", c.gpu->name,
                         n > 1 ? fmt::format("x{}", n) : "", c.gpu->marketed, format_bytes(c.gpu->memory_bytes));
    }
    case Change::Kind::knob: {
      const Knob& k = e.knobs()[c.knob];
      const std::string flag = !k.cli.empty() ? first_spelling(k.cli) : first_spelling(k.flags);
      return fmt::format("{} {}", flag, knob_value_text(k, c));
    }
    case Change::Kind::batch:
      return fmt::format("--batch {}: the most that fit", c.value);
    case Change::Kind::seq_len:
      return fmt::format("--seq-len {}: the longest context that fits at batch 1", c.value);
  }
  return "";
}

// A knob a settings file sets over the command line (trtllm-serve --config FILE): the fix is made there.
const PlanRequest::FileSetting* file_setting(const PlanRequest& q, std::optional<std::size_t> knob) {
  for (const PlanRequest::FileSetting& f : q.file_settings) {
    if (knob && f.knob == *knob) {
      return &f;
    }
  }
  return nullptr;
}

std::optional<std::size_t> target_knob(const Engine& e, Target t) {
  for (std::size_t i = 0; i < e.knobs().size(); ++i) {
    if (e.knobs()[i].target == t) {
      return i;
    }
  }
  return std::nullopt;
}

std::string spell_command(const Change& c, const PlanResult& x) {
  const Engine& e = x.request.engine_ref();
  auto flag = [&](Target t, std::string_view fallback) {
    const auto k = knob_for(e, t);
    return k ? first_spelling(e.knobs()[*k].flags) : std::string(fallback);
  };
  // In the file that overrides the command line: "tensor_parallel_size: 4 in FILE".
  const std::optional<std::size_t> changed =
      c.kind == Change::Kind::knob       ? std::optional<std::size_t>(c.knob)
      : c.kind == Change::Kind::tp       ? target_knob(e, Target::tp)
      : c.kind == Change::Kind::kv_dtype ? target_knob(e, Target::kv_dtype)
      : c.kind == Change::Kind::max_model_len ? target_knob(e, Target::max_model_len)
                                              : std::nullopt;
  if (const PlanRequest::FileSetting* f = file_setting(x.request, changed)) {
    const Knob& k = e.knobs()[f->knob];
    const std::string value = c.kind == Change::Kind::knob || c.kind == Change::Kind::kv_dtype
                                  ? knob_value_text(k, c)
                                  : std::to_string(c.value);
    const std::string gpus = c.kind == Change::Kind::tp && gpus_after(x, c) > x.r.gpus_available
                                 ? fmt::format(" on {} GPUs", gpus_after(x, c))
                                 : std::string();
    return fmt::format("{}: {} in {}{}", f->key, value, f->file, gpus);
  }
  const std::string& key = x.request.hardware.count_key;
  auto check_with = [&](std::uint64_t gpus) {
    return key.empty() ? fmt::format("check it with --gpu {}x{}", gpu_name(x), gpus)
                       : fmt::format("{}: {} in the manifest", key, gpus);
  };
  auto more_gpus = [&](std::uint32_t gpus) {
    return gpus > x.r.gpus_available ? fmt::format(" on {} GPUs ({})", gpus, check_with(gpus)) : std::string();
  };
  switch (c.kind) {
    case Change::Kind::max_model_len:
      return fmt::format("{} {}", flag(Target::max_model_len, "--max-model-len"), c.value);
    case Change::Kind::tp:
      return fmt::format("{} {}{}", flag(Target::tp, "--tensor-parallel-size"), c.value, more_gpus(gpus_after(x, c)));
    case Change::Kind::gpus:
      return fmt::format("{} {}{}", flag(Target::dp, "--data-parallel-size"), c.value, more_gpus(gpus_after(x, c)));
    case Change::Kind::gpu_count:
      return fmt::format("run it on {} GPUs ({})", c.value, check_with(c.value));
    case Change::Kind::weights:
      if (c.dtype->name == "fp8" && knob_for(e, Target::weights)) {
        return "--quantization fp8 (or an FP8 checkpoint of the model)";
      }
      return fmt::format("a {} checkpoint of the model (AWQ or GPTQ for int4)", c.dtype->name);
    case Change::Kind::kv_dtype:
      return fmt::format("{} {}", flag(Target::kv_dtype, "--kv-cache-dtype"), c.dtype->name);
    case Change::Kind::gpu:
      return fmt::format("a bigger GPU: {} ({} visible; check it with --gpu {}{})", c.gpu->name,
                         format_bytes(c.gpu->memory_bytes), c.gpu->name,
                         x.r.gpus_available > 1 ? fmt::format("x{}", x.r.gpus_available) : "");
    case Change::Kind::knob: {
      const Knob& k = e.knobs()[c.knob];
      if (k.flags.empty()) {
        return fmt::format("{} {}", first_spelling(k.cli), knob_value_text(k, c));
      }
      return fmt::format("{} {}", first_spelling(k.flags), knob_value_text(k, c));
    }
    case Change::Kind::batch:
    case Change::Kind::seq_len:
      return spell_flags(c, x);
  }
  return "";
}

std::string spell_file(const Change& c, const PlanResult& x) {
  const Engine& e = x.request.engine_ref();
  switch (c.kind) {
    case Change::Kind::max_model_len:
      return fmt::format("\"max_model_len\": {}", c.value);
    case Change::Kind::tp:
      return fmt::format("\"tp\": {}{}", c.value,
                         x.request.hardware.gpu != nullptr && gpus_after(x, c) > x.r.gpus_available
                             ? fmt::format(", \"gpu\": \"{}x{}\"", gpu_name(x), gpus_after(x, c))
                             : "");
    case Change::Kind::gpus:
    case Change::Kind::gpu_count:
      return fmt::format("\"gpu\": \"{}x{}\"", gpu_name(x), gpus_after(x, c));
    case Change::Kind::weights:
      return fmt::format("\"weight_dtype\": \"{}\"", c.dtype->name);
    case Change::Kind::kv_dtype:
      return fmt::format("\"kv_dtype\": \"{}\"", c.dtype->name);
    case Change::Kind::gpu:
      return fmt::format("\"gpu\": \"{}{}\"", c.gpu->name,
                         x.r.gpus_available > 1 ? fmt::format("x{}", x.r.gpus_available) : "");
    case Change::Kind::knob: {
      const Knob& k = e.knobs()[c.knob];
      const std::string v = knob_value_text(k, c);
      const bool quoted = k.type == KnobType::dtype || k.type == KnobType::text || k.type == KnobType::flag;
      return fmt::format("\"engine_args\": {{\"{}\": {}}}", k.key, quoted ? fmt::format("\"{}\"", v) : v);
    }
    case Change::Kind::batch:
      return fmt::format("\"require\": {{\"concurrency\": {}}}", c.value);
    case Change::Kind::seq_len:
      return fmt::format("\"require\": {{\"context_length\": {}}}", c.value);
  }
  return "";
}

std::string changes_text(const Fix& f, const PlanResult& x) {
  std::string changes;
  for (const Change& c : f.changes) {
    changes += (changes.empty() ? "" : " ") + spell(c, x);
  }
  return changes;
}

std::string fix_outcome(const Fix& f) {
  return fmt::format("KV budget {} per GPU, max batch {} at {} tokens", format_bytes(f.kv_budget_bytes),
                     with_commas(f.total_concurrency), with_commas(f.seq_len));
}

std::string fix_text(const Fix& f, const PlanResult& x) {
  return fmt::format("{}: {}", changes_text(f, x), fix_outcome(f));
}

Section model_section(const PlanResult& x) {
  const ModelSpec& m = x.request.model_spec();
  const DType& kv = x.r.kv_dtype;
  Section s;
  s.key = "model";
  s.title = fmt::format("Model: {}", m.name);
  s.fields.push_back({"name", "Name", Cell::str(m.name), x.request.model.source});
  if (!m.defaults_note.empty()) {
    s.fields.push_back({"defaults", "Defaults filled in", Cell::str("config.json omits"), m.defaults_note});
  }
  for (const LayerGroup& g : m.layers) {
    s.fields.push_back({"", fmt::format("{} layers", kind_label(g.spec)), Cell::count(g.count),
                        geometry(g.spec, m.num_attention_heads)});
  }
  for (const LayerGroup& g : m.layers) {
    const auto per_token = [&] {
      s.fields.push_back({"", fmt::format("  {} per token", kind_label(g.spec)),
                          Cell::bytes(sat_mul(g.count, bytes_per_token(g.spec, kv, 1))),
                          per_token_formula(g.spec, g.count, kv)});
    };
    const auto per_sequence = [&](std::string_view what) {
      s.fields.push_back({"", fmt::format("  {} per sequence", what),
                          Cell::bytes(sat_mul(g.count, fixed_bytes_per_sequence(g.spec, kv, 1))),
                          per_token_formula(g.spec, g.count, kv)});
    };
    std::visit(overloaded{
                   [&](const FullAttention&) { per_token(); },
                   [&](const SlidingWindow&) { per_token(); },
                   [&](const LatentAttention&) { per_token(); },
                   [&](const RecurrentState&) { per_sequence("state"); },
                   [&](const ChunkedLocal&) { per_token(); },
                   [&](const CrossAttention&) { per_sequence("encoder KV"); },
                   [&](const SharedKV&) {},
                   [&](const IndexerCache&) { per_token(); },
                   [&](const NoCache&) {},
               },
               g.spec);
  }
  const std::uint64_t per_token = model_kv_bytes_per_token(m, kv);
  s.fields.push_back({"kv_bytes_per_token", "KV per token", Cell::bytes(per_token),
                      fmt::format("{} B at {} ({}), one sequence, tp 1", with_commas(per_token), kv.name, kv.note)});
  if (const std::uint32_t tp = x.r.tp; tp > 1) {
    // How tensor parallelism splits the cache: KV heads divide (or, past their count, repeat:
    // max(1, n_kv / tp) per rank), and a latent or an indexer key is whole on every rank.
    std::uint64_t per_gpu = 0;  // of the bottleneck stage's layers, at pp above 1
    for (const LayerGroup& g : x.stage_model->layers) {
      per_gpu = sat_add(per_gpu, sat_mul(g.count, bytes_per_token(g.spec, kv, tp)));
    }
    std::uint32_t heads = 0;
    bool latent = false;
    bool indexer = false;
    for (const LayerGroup& g : m.layers) {
      const auto attention = [&](const FullAttention& a) {
        heads = heads == 0 ? a.num_key_value_heads : std::min(heads, a.num_key_value_heads);
      };
      std::visit(overloaded{
                     [&](const FullAttention& a) { attention(a); },
                     [&](const SlidingWindow& w) { attention(w.attention); },
                     [&](const LatentAttention&) { latent = true; },
                     [](const RecurrentState&) {},
                     [&](const ChunkedLocal& c) { attention(c.attention); },
                     [&](const CrossAttention& c) { attention(c.attention); },
                     [](const SharedKV&) {},
                     [&](const IndexerCache&) { indexer = true; },
                     [](const NoCache&) {},
                 },
                 g.spec);
    }
    std::string how;
    if (heads > 0 && tp > heads) {
      how = fmt::format("{} KV heads over tp {}: each head is held by {} GPUs (KV heads repeat once tp passes their "
                        "count, max(1, n_kv / tp) per GPU), so the GPUs together hold {}× the model's KV",
                        heads, tp, tp / heads, tp / heads);
    } else if (heads > 0) {
      how = fmt::format("{} KV heads over tp {}: {} per GPU", heads, tp, kv_heads_per_rank(heads, tp));
    }
    if (latent || indexer) {
      how += fmt::format("{}{} not split by tp: every GPU holds {} whole", how.empty() ? "" : "; ",
                         latent && indexer ? "the MLA latent and the indexer key are"
                         : latent          ? "the MLA latent is"
                                           : "the indexer key is",
                         latent && indexer ? "them" : "it");
    }
    if (x.r.pp > 1) {
      how += fmt::format("{}the bottleneck stage's layers (pp {})", how.empty() ? "" : "; ", x.r.pp);
    }
    s.fields.push_back({"kv_bytes_per_token_per_gpu", "KV per token per GPU", Cell::bytes(per_gpu), how});
  }
  if (const std::uint64_t past = model_kv_bytes_per_token_past_windows(m, kv); past != per_token) {
    s.fields.push_back({"kv_bytes_per_token_past_windows", "KV per token, long context", Cell::bytes(past),
                        "once every sliding window and chunk is full: full attention, MLA and indexer layers"});
  }
  if (const std::uint64_t fixed = model_fixed_bytes_per_sequence(m, kv); fixed > 0) {
    s.fields.push_back({"fixed_bytes_per_sequence", "State per sequence", Cell::bytes(fixed),
                        "recurrent state and encoder tokens, independent of length"});
  }
  s.fields.push_back({"max_position_embeddings", "Max context", Cell::tokens(m.max_position_embeddings),
                      "max_position_embeddings"});
  std::string official = "no official count in the sources read";
  if (x.request.model.preset != nullptr && !x.request.model.preset->params_official.empty()) {
    official = fmt::format("official: {}", x.request.model.preset->params_official);
  }
  s.fields.push_back({"parameters", "Parameters", Cell::count(m.params.total()),
                      fmt::format("{:.2f}B computed from the architecture; {}", static_cast<double>(m.params.total()) / 1e9,
                                  official)});
  if (m.params.stated_bytes > 0) {
    s.fields.push_back({"weights_stated_bytes", m.weights_estimated ? "Weights (estimated)" : "Weights (stated)",
                        Cell::bytes(m.params.stated_bytes),
                        m.weights_estimated
                            ? m.weights_source
                            : fmt::format("{}: the checkpoint's size replaces parameters × bytes per weight",
                                          m.weights_source.empty() ? std::string("--weights") : m.weights_source)});
  } else if (!m.weights_note.empty()) {
    s.fields.push_back({"weights_estimate", "Weights", Cell::str("estimated"),
                        fmt::format("{}; give --weights SIZE (the checkpoint's size) for the exact figure", m.weights_note)});
  }
  return s;
}

Section stages_section(const PlanResult& x) {
  Section s;
  s.key = "pipeline";
  s.title = fmt::format("Pipeline stages (pp {}, layers split evenly, the remainder before the last stage)", x.r.pp);
  Table t;
  t.key = "stages";
  t.columns = {{"stage", "Stage"}, {"layers", "Layers"}, {"weights_bytes", "Weights/GPU"},
               {"kv_budget_bytes", "KV budget/GPU"}, {"max_batch", "Max batch"}};
  for (std::size_t i = 0; i < x.stages.size(); ++i) {
    const StageRow& row = x.stages[i];
    t.rows.push_back({Cell::count(i), Cell::str(fmt::format("{}-{}", row.first_layer, row.last_layer)),
                      Cell::bytes(row.weights_bytes), Cell::bytes(row.kv_budget_bytes), Cell::count(row.max_batch)});
  }
  t.notes.push_back(fmt::format("The rest of this report is stage {}'s, the bottleneck: the stage with the fewest "
                                "sequences of the asked shape.",
                                x.stage));
  s.tables.push_back(std::move(t));
  return s;
}

Section budget_section(const PlanResult& x) {
  const Budget& b = x.budget;
  Section s;
  s.key = "budget";
  s.title = neutral(x.request) ? fmt::format("Memory budget per GPU (tp {})", x.r.tp)
                               : fmt::format("Memory budget per GPU, as {} sizes it (tp {})", engine_words(x.request), x.r.tp);
  s.fields = x.engine.budget;
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

Section engine_section(const PlanResult& x) {
  const PlanRequest& q = x.request;
  Section s;
  s.key = "engine";
  s.title = fmt::format("{}{}: what it will allocate and log", engine_words(q),
                        q.version.is_default ? " (kvplan's default version)" : "");
  s.fields.push_back({"name", "Engine", Cell::str(std::string(q.engine_ref().name())), ""});
  s.fields.push_back({"version", "Version", Cell::str(q.version.text),
                      q.version.is_default ? "default; pick another with --engine NAME@VERSION" : ""});
  for (const Field& f : x.engine.fields) {
    s.fields.push_back(f);
  }
  s.notes.push_back("Log lines it will print:");
  for (const std::string& line : x.engine.log_lines) {
    s.notes.push_back("  " + line);
  }
  for (const std::string& n : x.engine.notes) {
    s.notes.push_back("Note: " + n);
  }
  return s;
}

// What bounds the longest context at batch 1: memory, the model's maximum, or the engine's.
std::string longest_detail(const PlanResult& x) {
  const PlanRequest& q = x.request;
  if (!x.longest_at_batch_1) {
    return "not even one token fits";
  }
  const std::uint64_t accepted = std::min(x.engine.max_model_len, x.r.max_model_len);
  const bool engine_cap = accepted < x.r.max_model_len;
  if (*x.longest_at_batch_1 == accepted && x.longest_uncapped && *x.longest_uncapped > accepted && engine_cap) {
    return fmt::format("capped at the {} tokens per request {} accepts; memory alone would allow {}",
                       with_commas(accepted), q.engine_ref().display(), with_commas(*x.longest_uncapped));
  }
  if (*x.longest_at_batch_1 == accepted && x.longest_uncapped && *x.longest_uncapped > accepted) {
    return *x.longest_uncapped >= (std::uint64_t{1} << 40)
               ? std::string("capped at the model's maximum context; no layer's cache grows without bound")
               : fmt::format("capped at the model's maximum context; memory alone would allow {}",
                             with_commas(*x.longest_uncapped));
  }
  return "the most memory allows";
}

Section frontier_section(const PlanResult& x) {
  const PlanRequest& q = x.request;
  const ModelSpec& m = *x.stage_model;
  Section s;
  s.title = "Batch vs. context length";
  Table t;
  t.key = "frontier";
  t.columns = {{"seq_len", "Context [tokens]"}, {"max_batch", "Max batch"}, {"kv_bytes_per_sequence", "KV/seq"}};
  const std::optional<std::uint64_t> cap = x.engine.concurrency_cap;
  bool capped = false;
  for (const auto& [len, requests] : x.engine.frontier) {
    Deployment one = x.shape;
    one.seq_len = len;
    one.batch = 1;
    const std::uint64_t n = cap ? std::min(requests, *cap) : requests;
    capped = capped || n < requests;
    t.rows.push_back({Cell::tokens(len), Cell::count(n), Cell::bytes(kv_bytes_per_sequence(m, one))});
  }
  if (x.r.dp > 1) {
    t.notes.push_back(fmt::format("Per replica; the {} data-parallel replicas serve {} times as many.", x.r.dp, x.r.dp));
  }
  t.notes.push_back(neutral(q) ? fmt::format("Max batch: concurrent sequences per {} (paged, blocks of {} tokens); "
                                             "KV/seq per GPU.",
                                             x.r.tp > 1 ? "tensor-parallel group" : "GPU", x.engine.block_tokens)
                               : fmt::format("Max batch: concurrent requests of that length under {}'s own accounting; "
                                             "KV/seq is the engine-neutral size.",
                                             q.engine_ref().display()));
  if (capped) {
    t.notes.push_back(fmt::format("Capped at {} requests at once, the engine's concurrency limit.", with_commas(*cap)));
  }
  s.tables.push_back(std::move(t));
  s.fields.push_back({"max_seq_len_at_batch_1", "Longest context at batch 1",
                      x.longest_at_batch_1 ? Cell::tokens(*x.longest_at_batch_1) : Cell::tokens(0), longest_detail(x)});
  return s;
}

// The answer to the question asked, before any detail (issue #12): the verdict, the numbers that
// answer it and, when it does not fit, the first fix. Each figure is the typed result's own, the
// same one the sections below show.
Section answer_section(const PlanResult& x) {
  const Resolved& r = x.r;
  Section s;
  s.key = "answer";
  s.title = "Answer";
  const std::string shape = fmt::format("{} × {} tokens", with_commas(r.batch), with_commas(r.seq_len));
  // Where the shape came from, when it was not all asked: --batch alone takes the default length.
  const std::string given = r.seq_len_given && r.batch_given ? "as asked"
                            : r.batch_given   ? fmt::format("(--batch at the default length, {}; --seq-len asks another)",
                                                            with_commas(r.seq_len))
                            : r.seq_len_given ? "(--seq-len at batch 1; --batch asks more)"
                                              : "(the default shape; --batch and --seq-len ask another)";
  std::string fits = verdict_text(x);
  if (x.verdict.fits) {
    const std::uint64_t per_gpu = kv_cache_bytes_per_gpu(*x.stage_model, x.shape);
    fits = fmt::format("{} {}; {} of the KV budget to spare", shape, given,
                       format_bytes(sat_sub(x.budget.kv_budget_bytes, per_gpu)));
  } else if (x.verdict.cause == Cause::capacity && !r.seq_len_given) {
    fits += fmt::format(" ({} is the default length; --seq-len asks another)", with_commas(r.seq_len));
  }
  s.fields.push_back({"fits", "Fits", Cell::flag(x.verdict.fits), fits});
  if (x.verdict.cause == Cause::refused) {
    return s;
  }
  if (!x.fixes.empty()) {
    const Fix& f = x.fixes.front();
    s.fields.push_back({"fix", "Fix", Cell::str(changes_text(f, x)),
                        fix_outcome(f) + (x.fixes.size() > 1 ? fmt::format(" (the first of {})", x.fixes.size()) : "")});
  }
  if (x.under_fix) {
    // Nothing fits as given: the zeros would say nothing more; the fix's figures are above.
    s.fields.push_back({"kv_budget_bytes", "KV cache budget per GPU", Cell::bytes(0),
                        fmt::format("short by {}", format_bytes(x.budget.deficit_bytes))});
    return s;
  }
  const std::string per = x.r.tp > 1 || x.r.pp > 1 || x.r.cp > 1 ? "replica" : "GPU";
  std::string batch = fmt::format("concurrent sequences per {}", per);
  if (x.memory_batch > x.max_batch) {
    batch += fmt::format("; memory holds {}, the engine runs at most {}", with_commas(x.memory_batch),
                         with_commas(x.max_batch));
  }
  if (r.dp > 1) {
    batch += fmt::format("; {} over {} replicas", with_commas(x.total_concurrency), r.dp);
  }
  s.fields.push_back({"max_batch", fmt::format("Max batch at {} tokens", with_commas(r.seq_len)), Cell::count(x.max_batch),
                      batch});
  s.fields.push_back({"max_seq_len_at_batch_1", "Longest context at batch 1",
                      x.longest_at_batch_1 ? Cell::tokens(*x.longest_at_batch_1) : Cell::tokens(0), longest_detail(x)});
  if (const auto& host = x.engine.host) {
    s.fields.push_back({"host_kv_tokens", "Host KV tier", Cell::tokens(host->tokens),
                        fmt::format("tokens in {} of host memory{} ({}): a prefix cache for blocks the GPU evicts, "
                                    "not room for more running requests",
                                    format_bytes(host->bytes), r.dp > 1 ? " per replica" : "", host->knob)});
  }
  s.fields.push_back({"kv_budget_bytes", "KV cache budget per GPU", Cell::bytes(x.budget.kv_budget_bytes),
                      x.budget.kv_budget_bytes == 0
                          ? fmt::format("short by {}", format_bytes(x.budget.deficit_bytes))
                          : fmt::format("{} usable − {} weights − {} reserve", format_bytes(x.budget.usable_bytes),
                                        format_bytes(x.budget.weights_bytes), format_bytes(x.budget.reserved_bytes))});
  return s;
}

Section shape_section(const PlanResult& x) {
  const ModelSpec& m = *x.stage_model;
  Section s;
  s.key = "shape";
  s.title = fmt::format("Your shape: {} × {} tokens", with_commas(x.r.batch), with_commas(x.r.seq_len));
  const std::uint64_t per_gpu = kv_cache_bytes_per_gpu(m, x.shape);
  s.fields.push_back({"seq_len", "Context", Cell::tokens(x.r.seq_len), ""});
  s.fields.push_back({"batch", "Batch", Cell::count(x.r.batch),
                      x.r.dp > 1 ? fmt::format("concurrent sequences, {} per replica", with_commas(x.r.batch_per_replica))
                                 : std::string("concurrent sequences")});
  s.fields.push_back({"kv_cache_bytes", "KV cache, all GPUs", Cell::bytes(sat_mul(kv_cache_bytes_total(m, x.shape), x.r.dp)),
                      x.r.cp > 1 ? fmt::format("per-GPU KV × tp {} × cp {}", x.r.tp, x.r.cp)
                                 : fmt::format("per-GPU KV × tp {}{}", x.r.tp,
                                               x.r.dp > 1 ? fmt::format(" × {} replicas", x.r.dp) : "")});
  s.fields.push_back({"kv_cache_bytes_per_gpu", "KV cache per GPU", Cell::bytes(per_gpu), ""});
  s.fields.push_back({"fits", "Fits", Cell::flag(x.verdict.fits),
                      x.verdict.fits ? fmt::format("{} to spare", format_bytes(sat_sub(x.budget.kv_budget_bytes, per_gpu)))
                                     : verdict_text(x)});
  return s;
}

}  // namespace

std::string spell(const Change& change, const PlanResult& result) {
  switch (result.request.origin) {
    case Origin::flags:
      return spell_flags(change, result);
    case Origin::command_line:
      return spell_command(change, result);
    case Origin::deployment_file:
      return spell_file(change, result);
  }
  return "";
}

namespace {

// A verdict's cause in a few words, for the upper bound of weights_unknown.
std::string_view cause_words(Cause c) {
  switch (c) {
    case Cause::fits: return "it fits";
    case Cause::refused: return "the settings are refused";
    case Cause::gpus: return "more GPUs are needed";
    case Cause::weights: return "the weights do not fit";
    case Cause::no_kv_memory: return "no memory is left for the KV cache";
    case Cause::startup_too_long: return "one request of max_model_len does not fit";
    case Cause::too_long: return "the request is longer than the engine accepts";
    case Cause::capacity: return "the KV cache holds fewer requests than required";
    case Cause::concurrency_cap: return "the engine runs fewer requests at once than required";
    case Cause::weights_unknown: return "its weights are not known";
  }
  return "";
}

}  // namespace

std::string verdict_text(const PlanResult& x) {
  const PlanRequest& q = x.request;
  const Verdict& v = x.verdict;
  const Resolved& r = x.r;
  const std::string engine = engine_words(q);
  switch (v.cause) {
    case Cause::fits:
      return "fits";
    case Cause::refused:
      return neutral(q) ? v.refusal : fmt::format("{} refuses these settings: {}", engine, v.refusal);
    case Cause::gpus:
      return fmt::format("tp {} × pp {} × {} replica{} need {} GPUs, but {} {} given", r.tp, r.pp, r.dp,
                         r.dp == 1 ? "" : "s", r.gpus_used, r.gpus_available, r.gpus_available == 1 ? "is" : "are");
    case Cause::weights: {
      std::string s = neutral(q)
                          ? fmt::format("weights ({}) and runtime reserve ({}) need {} per GPU, but only {} is usable "
                                        "({} × {})",
                                        format_bytes(x.engine.weights_bytes), format_bytes(x.engine.reserved_bytes),
                                        format_bytes(v.needed_bytes), format_bytes(v.available_bytes), q.hardware.label,
                                        static_cast<double>(x.budget.utilization_ppm) / 1e6)
                      : x.engine.reserved_bytes == 0
                          ? fmt::format("{} leaves no memory for the KV cache: the weights ({}) exceed the {} it uses "
                                        "on each GPU",
                                        engine, format_bytes(x.engine.weights_bytes), format_bytes(v.available_bytes))
                          : fmt::format("{} leaves no memory for the KV cache: the weights ({}) and its other memory "
                                        "({}) need {} of the {} it uses on each GPU",
                                        engine, format_bytes(x.engine.weights_bytes), format_bytes(x.engine.reserved_bytes),
                                        format_bytes(v.needed_bytes), format_bytes(v.available_bytes));
      if (q.origin == Origin::command_line && !q.tp && r.gpus_available > 1) {
        s += fmt::format("; the command line runs tensor parallel {} on one of the {} GPUs (the engine's default)", r.tp,
                         r.gpus_available);
      }
      return s;
    }
    case Cause::no_kv_memory:
      if (!x.engine.refusal.empty()) {
        return fmt::format("{}: {}", engine, x.engine.refusal);
      }
      return fmt::format("{} leaves no memory for the KV cache: the weights take {} of the {} it uses on each GPU",
                         engine, format_bytes(x.engine.weights_bytes), format_bytes(x.engine.usable_bytes));
    case Cause::startup_too_long:
      return fmt::format("{} refuses to start: one request of max_model_len {} needs {} of KV cache, but only {} is "
                         "available; the largest max_model_len that fits is {}",
                         engine, with_commas(r.max_model_len), format_bytes(v.needed_bytes), format_bytes(v.available_bytes),
                         with_commas(v.limit));
    case Cause::too_long:
      return fmt::format("{} accepts at most {} tokens per request, fewer than the {} asked", engine, with_commas(v.limit),
                         with_commas(r.seq_len));
    case Cause::capacity: {
      const std::string longest = x.longest_at_batch_1 ? fmt::format("the longest context that fits at batch 1 is {} tokens",
                                                                     with_commas(*x.longest_at_batch_1))
                                                       : "not even one token fits";
      return fmt::format("{} × {} tokens need {} of KV per GPU{}, but the KV budget is {} ({} fit); {}",
                         with_commas(r.batch_per_replica), with_commas(r.seq_len), format_bytes(v.needed_bytes),
                         r.dp > 1 ? fmt::format(" in each of {} replicas", r.dp) : "", format_bytes(v.available_bytes),
                         with_commas(x.memory_batch), longest);
    }
    case Cause::concurrency_cap: {
      const auto cap = q.engine_ref().cap_knob();
      const std::string flag = cap ? first_spelling(q.engine_ref().knobs()[*cap].flags) : std::string("its cap");
      return fmt::format("{} runs at most {} requests at once ({} {}{}), fewer than the {} required", engine,
                         with_commas(v.limit), flag, with_commas(x.engine.concurrency_cap.value_or(0)),
                         r.dp > 1 ? fmt::format(" × {} replicas", r.dp) : "", with_commas(r.batch));
    }
    case Cause::weights_unknown:
      return fmt::format("the checkpoint's weights decide it, and its name does not give them: it fits with {} of "
                         "weights per GPU ({}), but with every layer at 16 bits ({} per GPU) {}; {} keeps the layers "
                         "its config.json lists in quantization_config.llm_int8_skip_modules at 16 bits, so give "
                         "that config.json (--config PATH, or the checkpoint's folder) to decide",
                         format_bytes(v.available_bytes), r.weights.linear.name, format_bytes(v.needed_bytes),
                         cause_words(v.upper_cause), q.model_spec().skip_list_unread);
  }
  return "";
}

std::vector<std::string> advice(const PlanResult& x) {
  std::vector<std::string> out;
  out.push_back(fmt::format("kvplan: {}: {}.",
                            x.verdict.cause == Cause::weights_unknown ? "cannot confirm that it fits" : "nothing fits",
                            verdict_text(x)));
  if (x.fixes.empty()) {
    if (x.verdict.cause != Cause::refused) {
      out.push_back("  No single knob makes it fit; combine them (--tp with --weight-dtype fp8) or use more GPUs.");
    }
    return out;
  }
  out.push_back("  Try one of:");
  for (const Fix& f : x.fixes) {
    out.push_back("    " + fix_text(f, x));
  }
  return out;
}

Section inverse_section(const PlanResult& x) {
  const PlanRequest& q = x.request;
  const Inverse& inv = *x.inverse;
  const Engine& e = q.engine_ref();
  Section s;
  s.key = "inverse";
  s.title = fmt::format("What serves {} × {} tokens", with_commas(x.r.batch), with_commas(x.r.seq_len));
  const std::string margin = inv.margin_ppm > 0 ? fmt::format(", with a {:g}% margin (docs/accuracy.md)",
                                                              static_cast<double>(inv.margin_ppm) / 1e4)
                                                : "";
  if (const auto knob = e.fraction_knob()) {
    const Knob& k = e.knobs()[*knob];
    const std::string flag = first_spelling(k.cli.empty() ? k.flags : k.cli);
    const std::string key = neutral(q) ? "min_utilization" : fmt::format("min_{}", k.key);
    s.fields.push_back({key, fmt::format("Smallest {}", flag),
                        inv.min_fraction_ppm ? Cell::number(static_cast<double>(*inv.min_fraction_ppm) / 1e6) : Cell::none(),
                        inv.min_fraction_ppm ? fmt::format("{} {} serves it{}", flag,
                                                           knob_text(k, KnobValue{std::uint64_t{*inv.min_fraction_ppm}}),
                                                           margin)
                                             : "nothing serves it on this GPU: even 1.0 is too little"});
  }
  if (inv.has_kv_memory_knob) {
    const Knob& k = e.knobs()[*e.kv_memory_knob()];
    const std::string flag = first_spelling(k.cli.empty() ? k.flags : k.cli);
    s.fields.push_back({fmt::format("min_{}", k.key), fmt::format("Smallest {}", flag),
                        inv.min_kv_memory_bytes ? Cell::bytes(*inv.min_kv_memory_bytes) : Cell::none(),
                        inv.min_kv_memory_bytes ? fmt::format("{} {}B{}", flag, *inv.min_kv_memory_bytes, margin)
                                                : "more than the whole GPU"});
  }
  if (!inv.slots.empty()) {
    std::string settings;
    for (const Change& c : inv.slots) {
      settings += (settings.empty() ? "" : " ") + spell_command(c, x);
    }
    s.fields.push_back({"ctx_size", fmt::format("{} settings", e.display()), Cell::str(settings),
                        inv.slots_fit ? "fits: one slot of L tokens per sequence" : "does not fit on this GPU"});
  }
  if (inv.searched_gpus) {
    if (inv.fewest_gpus) {
      std::string split = fmt::format("--gpu {}x{} --tp {} --pp {}", gpu_name(x), *inv.fewest_gpus, inv.tp, inv.pp);
      split += inv.cp > 1 ? fmt::format(" --cp {}", inv.cp) : "";
      split += inv.dp > 1 ? fmt::format(" ({} replicas)", inv.dp) : "";
      s.fields.push_back({"fewest_gpus", "Fewest GPUs", Cell::count(*inv.fewest_gpus), split + margin});
      s.fields.push_back({"tp", "", Cell::count(inv.tp), ""});
      s.fields.push_back({"pp", "", Cell::count(inv.pp), ""});
      s.fields.push_back({"cp", "", Cell::count(inv.cp), ""});
      s.fields.push_back({"dp", "", Cell::count(inv.dp), ""});
    } else {
      s.fields.push_back({"fewest_gpus", "Fewest GPUs", Cell::none(),
                          fmt::format("more than 64 {} (replicas, tensor, pipeline and context parallel)", gpu_name(x))});
    }
  }
  return s;
}

namespace {

Document describe_plan(const PlanResult& x, bool comparisons);

}  // namespace

Document describe(const PlanResult& x) { return describe_plan(x, true); }

namespace {

// The weights as the header names them (issue #12: the real format): the experts' format where it
// differs ("mxfp4 experts, bf16": gpt-oss), and the checkpoint's packing where its method names one
// ("awq int4", "gptq int4", "bnb nf4") and the weights are the checkpoint's own.
std::string weights_words(const PlanResult& x) {
  const ModelSpec& m = x.request.model_spec();
  const WeightFormat& w = x.r.weights;
  if (m.quant_method == "gguf" && !m.weights_label.empty()) {
    return fmt::format("gguf {}", m.weights_label);  // the file's own type: its bytes are the GGUF's
  }
  std::string out(w.linear.name);
  const std::string_view method = m.quant_method == "bitsandbytes" ? std::string_view("bnb") : m.quant_method;
  if ((method == "awq" || method == "gptq" || method == "bnb") && m.checkpoint_weight_dtype == w.linear.name) {
    out = fmt::format("{} {}", method, out);
  }
  if (m.params.experts > 0 && !(w.experts == w.linear)) {
    out = fmt::format("{} experts, {}", w.experts.name, out);
  }
  return out;
}

Document describe_plan(const PlanResult& x, bool comparisons) {
  const PlanRequest& q = x.request;
  Document doc;
  const std::string engine = neutral(q) ? fmt::format("raw engine, paged, block {}", x.engine.block_tokens)
                                        : fmt::format("{} {}", q.engine_ref().display(), q.version.text);
  std::string extra = x.r.pp > 1 ? fmt::format(" · pp {}", x.r.pp) : "";
  extra += x.r.cp > 1 ? fmt::format(" · cp {}", x.r.cp) : "";
  extra += x.r.dp > 1 ? fmt::format(" · {} replicas", x.r.dp) : "";
  doc.title = fmt::format("kvplan {} · {} on {} · {} · tp {}{} · KV {} · weights {}", q.version_banner,
                          q.model_spec().name, q.hardware.label, engine, x.r.tp, extra, x.r.kv_dtype.name,
                          weights_words(x));
  doc.sections.push_back(answer_section(x));
  doc.sections.push_back(model_section(x));
  if (x.verdict.cause == Cause::refused) {
    doc.advice = advice(x);
    return doc;
  }
  if (x.r.pp > 1) {
    doc.sections.push_back(stages_section(x));
  }
  doc.sections.push_back(budget_section(x));
  if (!neutral(q)) {
    doc.sections.push_back(engine_section(x));
  }
  if (x.under_fix) {
    // No KV memory at all: the tables would be zeros, so the plan under the first fix stands in.
    const std::string with = changes_text(x.fixes.front(), x);
    // Its budget and frontier; the comparisons stay with a plan that has memory to compare.
    for (Section& s : describe_plan(*x.under_fix, false).sections) {
      if (s.key == "answer" || s.key == "model") {
        continue;
      }
      s.title = fmt::format("With {}: {}", with, s.title);
      s.key = s.key.empty() ? "with_fix" : "with_fix." + s.key;
      doc.sections.push_back(std::move(s));
    }
    doc.advice = advice(x);
    return doc;
  }
  doc.sections.push_back(frontier_section(x));
  if (x.r.seq_len_given && x.r.batch_given) {
    doc.sections.push_back(shape_section(x));
    if (x.inverse) {
      doc.sections.push_back(inverse_section(x));
    }
  }
  if (comparisons) {
    for (Section& s : comparison_sections(x)) {
      doc.sections.push_back(std::move(s));
    }
  }
  if (q.explain) {
    doc.sections.push_back(explain_section(x));
  }
  if (!x.verdict.fits) {
    doc.advice = advice(x);
  }
  return doc;
}

}  // namespace

}  // namespace kvplan
