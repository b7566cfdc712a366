// The plan flags, shared by every subcommand that plans, and their one conversion into a typed
// PlanRequest (ripgrep's LowArgs -> HiArgs). The engines' own knobs become flags here from their
// knob tables: each engine lists the knobs kvplan offers (Knob::cli), and a knob of another engine
// is refused with the engines it belongs to. run_plan prints describe(plan(request)).
#include <fmt/format.h>
#include <set>

#include "commands.hpp"
#include "kvplan/catalog.hpp"
#include "kvplan/error.hpp"
#include "kvplan/model_source.hpp"
#include "kvplan/plan.hpp"
#include "kvplan/quantity.hpp"
#include "kvplan/text.hpp"

namespace kvplan::cli {
namespace {

std::string first_word(std::string_view s) { return std::string(s.substr(0, s.find(' '))); }

// "--parallel --np" -> "--parallel,--np" (CLI11's name list).
std::string cli11_names(std::string_view spellings) {
  std::string out;
  std::size_t start = 0;
  while (start < spellings.size()) {
    const std::size_t end = std::min(spellings.find(' ', start), spellings.size());
    out += (out.empty() ? "" : ",") + std::string(spellings.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

// A flag-type knob is a bare switch on kvplan's command line unless it reads a value (--fit on).
bool bare_switch(const Knob& k) { return k.type == KnobType::flag && k.parse == nullptr; }

void load_model(const PlanOptions& o, PlanRequest& q) {
  if (!o.model.empty() && !o.config.empty()) {
    throw Error("give --model NAME or --config PATH, not both");
  }
  if (!o.config.empty()) {
    q.model = load_config(o.config, "--config");
  } else if (o.model.empty()) {
    throw Error("--model NAME or --config PATH is required (see 'kvplan models' for the built-in names)");
  } else {
    q.model = load_preset(o.model);
  }
  if (q.model.spec->weights_estimated) {
    q.warnings.push_back(fmt::format("{} is not on this machine: the weights are {}", quote_input(q.model.id),
                                     q.model.spec->weights_source));
  }
}

// --weights SIZE and --encoder-tokens N: the model as the user states it, on a copy of the spec.
void apply_model_overrides(const PlanOptions& o, PlanRequest& q) {
  if (o.weights.empty() && o.encoder_tokens.empty()) {
    return;
  }
  auto m = std::make_shared<ModelSpec>(*q.model.spec);
  if (!o.weights.empty()) {
    m->params.stated_bytes = parse_size("--weights", o.weights).bytes;
    m->params.stated_params = std::max<std::uint64_t>(m->params.total(), 1);
    m->weights_note.clear();  // the stated size replaces the estimate, towers included
    m->weights_source.clear();
  }
  if (!o.encoder_tokens.empty()) {
    const std::uint64_t tokens = parse_tokens("--encoder-tokens", o.encoder_tokens);
    bool any = false;
    for (LayerGroup& g : m->layers) {
      const bool cross = std::visit(overloaded{
                                        [&](CrossAttention& c) {
                                          c.encoder_tokens = tokens;
                                          return true;
                                        },
                                        [](FullAttention&) { return false; },
                                        [](SlidingWindow&) { return false; },
                                        [](LatentAttention&) { return false; },
                                        [](RecurrentState&) { return false; },
                                        [](ChunkedLocal&) { return false; },
                                        [](SharedKV&) { return false; },
                                        [](IndexerCache&) { return false; },
                                        [](NoCache&) { return false; },
                                    },
                                    g.spec);
      any = any || cross;
    }
    if (!any) {
      throw Error(fmt::format("--encoder-tokens: {} has no cross-attention layers; leave it out", m->name));
    }
  }
  q.model.spec = std::move(m);
}

void load_memory(const PlanOptions& o, PlanRequest& q) {
  if (!o.gpu.empty() && !o.vram.empty()) {
    throw Error("give --gpu NAME or --vram SIZE, not both");
  }
  if (!o.gpu.empty()) {
    q.hardware = hardware_from_gpu(o.gpu);
    return;
  }
  if (o.vram.empty()) {
    throw Error("--vram SIZE or --gpu NAME is required (e.g. --vram 80GB, --gpu H100; see 'kvplan gpus')");
  }
  q.hardware = hardware_from_vram(o.vram);
}

void load_parallelism(const PlanOptions& o, PlanRequest& q) {
  auto count = [](const char* flag, const std::string& v) -> std::optional<std::uint32_t> {
    return v.empty() ? std::nullopt : std::optional<std::uint32_t>(static_cast<std::uint32_t>(parse_count(flag, v, 1024)));
  };
  q.tp = count("--tp", o.tp);
  q.pp = count("--pp", o.pp);
  q.cp = count("--cp", o.cp);
  q.dp = count("--dp", o.dp);
}

void load_shape(const PlanOptions& o, PlanRequest& q) {
  const ModelSpec& m = q.model_spec();
  if (!o.max_model_len.empty()) {
    q.max_model_len = parse_tokens("--max-model-len", o.max_model_len);
  } else if (m.max_position_embeddings == 0) {
    throw Error("the config has no max_position_embeddings; give the context length with --max-model-len");
  }
  const std::uint64_t max_len = q.max_model_len.value_or(m.max_position_embeddings);
  if (!o.seq_len.empty()) {
    q.seq_len = parse_tokens("--seq-len", o.seq_len);
    if (*q.seq_len > max_len && !o.max_model_len.empty()) {
      throw Error(fmt::format("--seq-len {} is longer than --max-model-len {}; raise --max-model-len to plan beyond it",
                              with_commas(*q.seq_len), with_commas(max_len)));
    }
    if (*q.seq_len > max_len) {
      // Beyond the trained context: the memory is still computed (the question has an answer), and the
      // report says what the engines do with such a length.
      q.warnings.push_back(fmt::format(
          "--seq-len {} is beyond {}'s trained context of {} tokens (max_position_embeddings): planned at that length, "
          "but engines refuse it unless told to allow it (RoPE scaling in the config, or the engine's override: "
          "docs/engines.md)",
          with_commas(*q.seq_len), m.name, with_commas(max_len)));
      q.max_model_len = *q.seq_len;
    }
  }
  if (!o.batch.empty()) {
    q.batch = parse_count("--batch", o.batch, 10'000'000);
  }
}

// The engines a kvplan flag belongs to, for the message when another engine is chosen.
std::string owners(const std::string& flag) {
  std::string out;
  for (const Engine* e : all_engines()) {
    for (const Knob& k : e->knobs()) {
      if (!k.cli.empty() && first_word(k.cli) == flag) {
        out += (out.empty() ? "" : ", ") + std::string(e->name());
        break;
      }
    }
  }
  return out;
}

std::optional<std::size_t> knob_by_cli(const Engine& e, const std::string& flag) {
  const std::span<const Knob> all = e.knobs();
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (!all[i].cli.empty() && first_word(all[i].cli) == flag) {
      return i;
    }
  }
  return std::nullopt;
}

void load_knobs(const PlanOptions& o, PlanRequest& q) {
  const Engine& e = q.engine_ref();
  std::map<std::string, std::string> given;
  for (const auto& [flag, option] : o.knob_options) {
    if (option->count() == 0) {
      continue;
    }
    const auto sw = o.knob_switches.find(flag);
    given[flag] = sw != o.knob_switches.end() ? (sw->second ? "on" : "off") : o.knob_values.at(flag);
  }
  for (const auto& [flag, text] : given) {
    std::optional<std::size_t> index = knob_by_cli(e, flag);
    if (!index && flag == "--utilization" && e.fraction_knob()) {
      index = e.fraction_knob();  // --utilization is the chosen engine's own memory fraction
      const Knob& own = e.knobs()[*index];
      if (given.count(first_word(own.cli)) > 0) {
        throw Error(fmt::format("--utilization and {} are the same knob for --engine {}; give one of them",
                                first_word(own.cli), e.name()));
      }
    }
    if (!index) {
      throw Error(fmt::format("{} belongs to --engine {}, but this plan uses --engine {}", flag, owners(flag), e.name()));
    }
    const Knob& k = e.knobs()[*index];
    // kvplan's own flags take kvplan's quantities; a text knob is read as the engine reads it (-ngl all, -ts 3,1),
    // and so is a plain number for a size the engine takes in its own unit (--kv-offloading-size 64: GiB).
    const bool engine_unit = k.type == KnobType::bytes && to_decimal(text).has_value();
    const KnobValue v = k.parse != nullptr && (k.type == KnobType::text || engine_unit) ? k.parse(flag, text)
                                                                                        : read_knob(k, flag, text);
    switch (k.target) {
      case Target::kv_dtype:
        if (o.kv_dtype != "auto") {
          throw Error(fmt::format("give {} (the engine's name) or --kv-dtype, not both", flag));
        }
        if (const auto* d = std::get_if<DType>(&v)) {
          q.kv_dtype = *d;
        }
        break;
      case Target::own:
        q.knobs.set(*index, v);
        break;
      default:
        throw Error(fmt::format("{}: not a knob of kvplan's plan flags", flag));
    }
  }
  e.validate(q.knobs);
}

void check_split(const PlanOptions& o, const PlanRequest& q) {
  const Resolved r = resolve(q);
  if (q.hardware.count && q.hardware.gpu != nullptr) {
    const bool ring = q.engine_ref().capabilities().context == ContextParallel::ring;
    const std::uint32_t group = r.tp * r.pp * (ring ? r.cp : 1);
    if (*q.hardware.count % group != 0 || r.gpus_used > *q.hardware.count) {
      throw Error(fmt::format("--tp {} × --pp {} × --cp {}{} = {} GPUs does not fit the {} GPUs of --gpu {}", r.tp, r.pp,
                              r.cp, q.dp ? fmt::format(" × --dp {}", r.dp) : "", q.dp ? r.gpus_used : group,
                              *q.hardware.count, o.gpu));
    }
  }
  if (auto problem = split_problem(q, r)) {
    if (q.engine_ref().capabilities().splits_heads && tp_problem(q.model_spec(), r.tp)) {
      throw Error(fmt::format("--tp {}: {}", r.tp, *problem));
    }
    throw Error(*problem);
  }
}

}  // namespace

namespace {

// Whether an argument spells one of the knob's flags: --name, --name=VALUE, or -cVALUE for a short name.
bool named(const Knob& k, const std::vector<std::string>& args) {
  for (std::size_t start = 0; start < k.cli.size();) {
    const std::size_t end = std::min(k.cli.find(' ', start), k.cli.size());
    const std::string_view name = std::string_view(k.cli).substr(start, end - start);
    start = end + 1;
    const bool is_short = name.size() == 2 && name[0] == '-' && name[1] != '-';
    for (const std::string& a : args) {
      if (a.rfind(name, 0) == 0 &&
          (a.size() == name.size() || a[name.size()] == '=' || (is_short && a.rfind("--", 0) != 0))) {
        return true;
      }
    }
  }
  return false;
}

}  // namespace

void setup_plan(CLI::App& app, PlanOptions& o, const std::vector<std::string>* only_named) {
  app.add_option("--model,-m", o.model, "Built-in model: name, alias or Hugging Face id (see 'kvplan models')");
  app.add_option("--config", o.config, "A model's config.json, or a folder holding one, instead of --model");
  app.add_option("--gpu,-g", o.gpu, "GPU from the catalog, optionally with a count: H100, H200x8, 4xH100 (see 'kvplan gpus')");
  app.add_option("--vram", o.vram, "Memory per GPU instead of --gpu: 80GB (10^9), 80GiB (2^30), 81920MiB");
  app.add_option("--pp", o.pp, "Pipeline-parallel size: splits the layers into stages, one GPU group each (default 1)");
  app.add_option("--cp", o.cp, "Context-parallel size: ring attention over N more GPUs (engine-neutral plans), or decode "
                              "context parallelism inside the TP group where the engine has it (default 1)");
  app.add_option("--tp", o.tp, "Tensor-parallel size: splits weights and KV heads (default: the --gpu count, or 1)");
  app.add_option("--dp", o.dp, "Data-parallel replicas (default: what the --gpu count leaves after tp × pp × cp)");
  app.add_option("--kv-dtype", o.kv_dtype, "KV element format: auto (the model's), bf16, fp16, fp8, int8, int4, "
                                           "q8_0, q4_0, ... (default auto)");
  app.add_option("--weight-dtype", o.weight_dtype,
                 "Weight format: auto (the checkpoint's), bf16, fp16, fp8, int8, int4, mxfp4 (default auto)");
  app.add_option("--seq-len,-s", o.seq_len, "Tokens per sequence for the shape and comparisons (default 8192, or the model's maximum if shorter)");
  app.add_option("--batch,-b,--concurrency", o.batch,
                 "Concurrent sequences; with --seq-len, answers 'does this fit?', the smallest engine knob that serves "
                 "it, and the fewest GPUs of --gpu's type that do");
  app.add_option("--weights", o.weights,
                 "The checkpoint's size (e.g. 140GB, from its safetensors), instead of parameters × bytes per weight");
  app.add_option("--encoder-tokens", o.encoder_tokens,
                 "Encoder tokens per sequence that cross-attention layers hold (default: the config's image or "
                 "audio token count)");
  app.add_option("--max-model-len", o.max_model_len,
                 "Longest sequence the server accepts (default: the model's max_position_embeddings)");
  app.add_option("--format,-f", o.format,
                 "Output: table, json, csv, markdown, html (one page with its charts) or svg (one chart) (default table)");
  app.add_option("--chart", o.chart, "With --format svg: memory (per GPU), frontier (max batch by context), or a "
                                     "comparison (compare.attention, compare.kv_dtype, compare.allocation); "
                                     "simulate: simulate (its memory states over time)");
  app.add_flag("--explain", o.explain, "Show every step of the arithmetic");
  app.add_flag("--brief", o.brief, "Print only the answer: the verdict, max batch, longest context, KV budget, the fix");
  std::string names;
  for (const Engine* e : all_engines()) {
    names += (names.empty() ? "" : ", ") + std::string(e->name());
  }
  app.add_option("--engine,-e", o.engine,
                 fmt::format("Predict what an engine allocates: {} (raw is kvplan's engine-neutral plan); NAME@VERSION "
                             "picks a version (see docs/engines.md)",
                             names));
  std::set<std::string> registered;
  for (const Engine* e : all_engines()) {
    for (const Knob& k : e->knobs()) {
      if (k.cli.empty() || (only_named != nullptr && !named(k, *only_named)) ||
          !registered.insert(first_word(k.cli)).second) {
        continue;  // not a kvplan flag, or one an earlier engine already offers
      }
      const std::string flag = first_word(k.cli);
      o.knob_options[flag] = bare_switch(k) ? app.add_flag(cli11_names(k.cli), o.knob_switches[flag], std::string(k.help))
                                            : app.add_option(cli11_names(k.cli), o.knob_values[flag], std::string(k.help));
    }
  }
}

PlanRequest plan_request(const PlanOptions& o) {
  PlanRequest q;
  q.version_banner = version();
  const EngineChoice choice = parse_engine(o.engine);
  q.engine = choice.engine;
  q.version = choice.version;
  load_model(o, q);
  apply_model_overrides(o, q);
  load_memory(o, q);
  load_parallelism(o, q);
  if (o.kv_dtype != "auto") {
    q.kv_dtype = require_dtype(kv_dtypes(), "--kv-dtype", o.kv_dtype);
  }
  if (o.weight_dtype != "auto") {
    q.weights = weight_format(q.model_spec(), o.weight_dtype);
    q.weights_label = o.weight_dtype;
  } else {
    (void)weight_format(q.model_spec(), "auto");  // an unmodelled checkpoint quantization is refused here
  }
  load_shape(o, q);
  load_knobs(o, q);
  check_split(o, q);
  q.explain = o.explain;
  return q;
}

View chart_view(const PlanOptions& o, Format format, std::string_view default_chart) {
  View view = o.view;
  view.chart = std::string(default_chart);
  if (!o.chart.empty()) {
    if (format != Format::svg) {
      throw Error("--chart picks the chart of --format svg; give --format svg, or --format html for all of them");
    }
    view.chart = o.chart;
  }
  return view;
}

int run_plan(const PlanOptions& o, std::ostream& out, std::ostream& err) {
  const Format format = parse_format(o.format);
  const PlanResult result = plan(plan_request(o));
  for (const std::string& w : result.request.warnings) {
    err << "kvplan: warning: " << one_line(w) << '\n';
  }
  Document doc = describe(result);
  const View view = chart_view(o, format);
  if (o.brief) {
    std::erase_if(doc.sections, [](const Section& s) { return s.key != "answer"; });
    doc.advice.clear();
  }
  render(doc, format, out, view);
  if (format == Format::csv || format == Format::json) {
    for (const std::string& line : doc.advice) {  // machine formats keep stdout parseable
      err << line << '\n';
    }
  }
  return result.verdict.fits ? 0 : 1;
}

}  // namespace kvplan::cli
