// `kvplan models` lists the built-in presets; `kvplan models show NAME` prints one.
#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "json_fields.hpp"
#include "plan_text.hpp"
#include "kvplan/arch.hpp"
#include "kvplan/catalog.hpp"
#include "kvplan/dtype.hpp"
#include "kvplan/files.hpp"
#include "kvplan/formula.hpp"
#include "kvplan/gguf.hpp"
#include "kvplan/model_source.hpp"
#include "kvplan/quantity.hpp"
#include "kvplan/report.hpp"
#include "kvplan/text.hpp"

namespace kvplan::cli {
namespace {

// "52 SWA 1K + 10 full": layer kinds with their counts, kinds of the same label merged (Gemma 4's
// full layers with their own geometry are still "full").
std::string layout(const ModelSpec& m) {
  std::vector<std::pair<std::string, std::uint64_t>> kinds;
  for (const LayerGroup& g : m.layers) {
    const std::string kind =
        std::visit(overloaded{
                       [](const FullAttention&) { return std::string("full"); },
                       [](const SlidingWindow& s) { return fmt::format("SWA {}", format_tokens_short(s.window_tokens)); },
                       [](const LatentAttention&) { return std::string("MLA"); },
                       [](const RecurrentState& r) {
                         switch (r.kind) {
                           case RecurrentState::Kind::mamba:
                             return std::string("Mamba");
                           case RecurrentState::Kind::short_conv:
                             return std::string("conv");
                           case RecurrentState::Kind::linear_attention:
                             break;
                         }
                         return std::string("linear");
                       },
                       [](const ChunkedLocal& c) { return fmt::format("chunked {}", format_tokens_short(c.chunk_tokens)); },
                       [](const CrossAttention&) { return std::string("cross"); },
                       [](const SharedKV&) { return std::string("shared"); },
                       [](const IndexerCache&) { return std::string("indexer"); },
                       [](const NoCache&) { return std::string("no-attention"); },
                   },
                   g.spec);
    auto it = std::find_if(kinds.begin(), kinds.end(), [&](const auto& k) { return k.first == kind; });
    if (it == kinds.end()) {
      kinds.emplace_back(kind, g.count);
    } else {
      it->second += g.count;
    }
  }
  std::string out;
  for (const auto& [kind, count] : kinds) {
    out += fmt::format("{}{} {}", out.empty() ? "" : " + ", count, kind);
  }
  return out;
}

// KV heads a layer's cache holds, the most over the layer kinds (MiMo-V2-Flash: 4 full, 8 sliding;
// Nemotron-NAS: per block): 1 for MLA's single latent (num_key_value_heads is nominal there).
std::uint32_t cached_kv_heads(const ModelSpec& m) {
  std::uint32_t most = 0;
  for (const LayerGroup& g : m.layers) {
    most = std::max(most, std::visit(overloaded{
                                         [](const FullAttention& a) { return a.num_key_value_heads; },
                                         [](const SlidingWindow& w) { return w.attention.num_key_value_heads; },
                                         [](const LatentAttention&) { return 1U; },
                                         [](const RecurrentState&) { return 0U; },
                                         [](const ChunkedLocal& c) { return c.attention.num_key_value_heads; },
                                         [](const CrossAttention& c) { return c.attention.num_key_value_heads; },
                                         [](const SharedKV&) { return 0U; },
                                         [](const IndexerCache&) { return 0U; },
                                         [](const NoCache&) { return 0U; },
                                     },
                                     g.spec));
  }
  return most;
}

// Every row of the architecture table (kvplan/arch.hpp): its model_type, the configuration class
// it follows, and what it is for a wrapper.
Document types_document() {
  Document doc;
  Section s;
  Table t;
  t.key = "model_types";
  t.columns = {{"model_type", "model_type"}, {"class", "Configuration class (source)"}, {"backbone", "Text backbone"}};
  for (const ArchRow& r : arch_rows()) {
    t.rows.push_back({Cell::str(std::string(r.model_type)), Cell::str(std::string(r.config_class)),
                      Cell::str(r.text_type.empty() ? std::string("itself") : std::string(r.text_type))});
  }
  t.notes.push_back(fmt::format("{} model types; a config.json of any of them is read by --config (docs/architecture.md, "
                                "\"A new architecture\", adds one).",
                                arch_rows().size()));
  s.tables.push_back(std::move(t));
  doc.sections.push_back(std::move(s));
  return doc;
}

Document list_document() {
  Document doc;
  Section s;
  s.key = "";
  Table t;
  t.key = "models";
  t.columns = {{"name", "Name"},         {"hf_id", "Hugging Face id"},        {"layers", "Layers"},
               {"kv_heads", "KV heads"}, {"kv_bytes_per_token_bf16", "KV/token (bf16)"}, {"max_context", "Max context"},
               {"parameters", "Params"}};
  const DType& bf16 = *find_dtype(kv_dtypes(), "bf16");
  for (const Preset& p : presets()) {
    t.rows.push_back({Cell::str(p.name), Cell::str(p.hf_id), Cell::str(layout(p.spec)),
                      Cell::count(cached_kv_heads(p.spec)),
                      Cell::bytes(model_kv_bytes_per_token(p.spec, bf16)), Cell::tokens(p.spec.max_position_embeddings),
                      Cell::str(fmt::format("{:.1f}B", static_cast<double>(p.spec.params.total()) / 1e9))});
  }
  t.notes.push_back("Names, aliases and Hugging Face ids all work with --model; 'kvplan models show NAME' for details.");
  s.tables.push_back(std::move(t));
  doc.sections.push_back(std::move(s));
  return doc;
}

// Decoder-layer indices, compactly: "3, 7, 11, …, 47 (every 4th from 3)", "0-35", or ranges.
std::string layer_list(const std::vector<std::uint32_t>& at) {
  if (at.empty()) {
    return "-";
  }
  if (at.size() == 1) {
    return std::to_string(at[0]);
  }
  const std::uint32_t step = at[1] - at[0];
  bool progression = step > 0;
  for (std::size_t i = 1; i < at.size() && progression; ++i) {
    progression = at[i] - at[i - 1] == step;
  }
  if (progression && step == 1) {
    return fmt::format("{}-{}", at.front(), at.back());
  }
  if (progression && at.size() > 3) {
    return fmt::format("{}, {}, …, {} (every {} from {})", at[0], at[1], at.back(),
                       step == 2 ? std::string("2nd") : step == 3 ? std::string("3rd") : fmt::format("{}th", step), at[0]);
  }
  std::string out;
  for (std::size_t i = 0; i < at.size();) {
    std::size_t j = i;
    while (j + 1 < at.size() && at[j + 1] == at[j] + 1) {
      ++j;
    }
    if (out.size() > 60) {
      return out + fmt::format(", … ({} layers)", at.size());
    }
    out += (out.empty() ? "" : ", ") + (j == i ? std::to_string(at[i]) : fmt::format("{}-{}", at[i], at[j]));
    i = j + 1;
  }
  return out;
}

// One config.json value on one line: scalars and objects as JSON, and a long list as its repeating
// unit ("[\"sliding_attention\", \"full_attention\"] × 12") or its ends and length.
std::string compact_value(const nlohmann::json& v) {
  const std::string whole = v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (!v.is_array() || whole.size() <= 100) {
    return whole.size() <= 400 ? whole : whole.substr(0, 400) + fmt::format(" … ({} characters)", whole.size());
  }
  const std::size_t n = v.size();
  for (std::size_t period = 1; period <= n / 2; ++period) {
    if (n % period != 0) {
      continue;
    }
    bool repeats = true;
    for (std::size_t i = period; i < n && repeats; ++i) {
      repeats = v[i] == v[i - period];
    }
    if (repeats) {
      nlohmann::json unit = nlohmann::json::array();
      for (std::size_t i = 0; i < period; ++i) {
        unit.push_back(v[i]);
      }
      const std::string u = unit.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
      if (u.size() <= 200) {
        return fmt::format("{} × {} ({} entries)", u, n / period, n);
      }
      break;
    }
  }
  nlohmann::json head = nlohmann::json::array();
  for (std::size_t i = 0; i < std::min<std::size_t>(4, n); ++i) {
    head.push_back(v[i]);
  }
  std::string h = head.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  h.pop_back();
  return fmt::format("{}, …, {}] ({} entries)", h, v[n - 1].dump(-1, ' ', false, nlohmann::json::error_handler_t::replace),
                     n);
}

Document show_document(const Preset& p, const std::vector<std::pair<std::string, std::string>>* gguf_metadata = nullptr) {
  Document doc;
  doc.title = fmt::format("{}: {}", p.name, p.description);
  Section s;
  s.key = "model";
  const DType& bf16 = *find_dtype(kv_dtypes(), "bf16");
  std::string aliases;
  for (const std::string& a : p.aliases) {
    aliases += (aliases.empty() ? "" : ", ") + a;
  }
  s.fields = {
      {"name", "Name", Cell::str(p.name), ""},
      {"hf_id", "Hugging Face id", Cell::str(p.hf_id), ""},
      {"aliases", "Aliases", Cell::str(aliases.empty() ? "-" : aliases), ""},
      {"model_type", "model_type", Cell::str(p.spec.model_type), ""},
      {"layers", "Layers", Cell::str(layout(p.spec)), ""},
      {"kv_bytes_per_token", "KV per token (bf16)", Cell::bytes(model_kv_bytes_per_token(p.spec, bf16)),
       "all layers that grow with length, tp 1"},
      {"fixed_bytes_per_sequence", "State per sequence (bf16)", Cell::bytes(model_fixed_bytes_per_sequence(p.spec, bf16)),
       "recurrent state and encoder tokens, whatever the length"},
      {"max_position_embeddings", "Max context", Cell::tokens(p.spec.max_position_embeddings), ""},
      {"parameters", "Parameters (computed)", Cell::count(p.spec.params.total()),
       p.params_official.empty() ? "" : fmt::format("official: {} ({})", p.params_official, p.params_source)},
  };
  if (p.spec.params.stated_bytes > 0 && !p.spec.weights_source.empty()) {
    s.fields.push_back({"weights_bytes", "Weights", Cell::bytes(p.spec.params.stated_bytes), p.spec.weights_source});
  }
  doc.sections.push_back(std::move(s));

  // Each layer kind once: how many, their geometry, and which decoder layers.
  Section kinds;
  kinds.key = "layer_kinds";
  kinds.title = "Layer kinds";
  Table t;
  t.key = "layer_kinds";
  t.columns = {{"kind", "Kind"}, {"count", "Layers"}, {"geometry", "Geometry"}, {"layers", "Decoder layers"}};
  for (std::size_t g = 0; g < p.spec.layers.size(); ++g) {
    std::vector<std::uint32_t> at;
    for (std::size_t i = 0; i < p.spec.layer_group.size(); ++i) {
      if (p.spec.layer_group[i] == g) {
        at.push_back(i < p.spec.layer_decoder.size() ? p.spec.layer_decoder[i] : static_cast<std::uint32_t>(i));
      }
    }
    const LayerGroup& group = p.spec.layers[g];
    t.rows.push_back({Cell::str(kind_label(group.spec)), Cell::count(group.count),
                      Cell::str(geometry(group.spec, p.spec.num_attention_heads)), Cell::str(layer_list(at))});
  }
  kinds.tables.push_back(std::move(t));
  kinds.notes.push_back("Config source: " + p.config_source);
  if (gguf_metadata != nullptr) {
    kinds.notes.push_back("GGUF metadata, one key per line (arrays by their length):");
    for (const auto& [key, value] : *gguf_metadata) {
      kinds.notes.push_back(fmt::format("  {}: {}", key, one_line(value.size() <= 200 ? value : value.substr(0, 200) + " …")));
    }
    doc.sections.push_back(std::move(kinds));
    return doc;
  }
  kinds.notes.push_back("config.json fields as used, one per line (long lists by their repeating unit):");
  const nlohmann::json config = nlohmann::json::parse(p.config_json);
  for (const auto& [key, value] : config.items()) {
    if (value.is_object()) {
      for (const auto& [inner, v] : value.items()) {
        kinds.notes.push_back(fmt::format("  {}.{}: {}", key, inner, compact_value(v)));
      }
    } else {
      kinds.notes.push_back(fmt::format("  {}: {}", key, compact_value(value)));
    }
  }
  doc.sections.push_back(std::move(kinds));
  return doc;
}

}  // namespace

void setup_models(CLI::App& app, ModelsOptions& o) {
  CLI::App* types = app.add_subcommand("types", "List the config.json model_types kvplan sizes, with their configuration class");
  types->add_option("--format,-f", o.format, "Output: table, json, csv or markdown");
  types->callback([&o] { o.types = true; });
  CLI::App* show = app.add_subcommand("show", "Print one model's architecture and sources");
  show->add_option("name", o.show, "Model name, alias or Hugging Face id, or a config.json (or a folder holding one)")->required();
  show->add_option("--format,-f", o.format, "Output: table, json, csv or markdown");
  app.add_option("--format,-f", o.format, "Output: table, json, csv or markdown");
}

int run_models(const ModelsOptions& o, std::ostream& out) {
  const Format format = parse_format(o.format);
  if (o.types) {
    render(types_document(), format, out, o.view);
    return 0;
  }
  if (o.show.empty()) {
    render(list_document(), format, out, o.view);
    return 0;
  }
  std::error_code ec;
  if (is_gguf_path(o.show) && !std::filesystem::exists(o.show, ec) && gguf_name_type(o.show)) {
    // A GGUF named but not here: the architecture its name gives, the weights estimated from its type.
    const ModelChoice c = load_preset(o.show);
    Preset p = c.preset != nullptr ? *c.preset : Preset{};
    p.name = std::filesystem::path(o.show).filename().string();
    p.description = c.source;
    p.spec = *c.spec;
    render(show_document(p), format, out, o.view);
    return 0;
  }
  if (is_gguf_path(o.show)) {
    const GgufModel g = read_gguf(o.show, "models show");
    Preset p;
    p.name = std::filesystem::path(o.show).filename().string();  // the path itself is in the notes
    p.hf_id = "-";
    p.description = fmt::format("GGUF {}, architecture {}", o.show, g.architecture);
    p.config_source = g.tensors > 0 ? fmt::format("{} tensors, {} of weights", g.tensors, format_bytes(g.tensor_bytes))
                                    : std::string("no tensors (a vocabulary-only file)");
    p.spec = g.spec;
    render(show_document(p, &g.metadata), format, out, o.view);
    return 0;
  }
  if (std::filesystem::exists(o.show, ec)) {
    // A config.json, or a model folder holding one: what kvplan reads from it.
    const ModelChoice c = load_config(o.show, "models show");
    std::filesystem::path file(o.show);
    if (std::filesystem::is_directory(file, ec)) {
      file /= "config.json";
    }
    Preset p;
    // A folder is named by the folder (a checkpoint's name); a file by the file.
    p.name = std::filesystem::is_directory(o.show, ec) ? std::filesystem::path(o.show).lexically_normal().filename().string()
                                                         : file.filename().string();
    if (p.name.empty()) {
      p.name = std::filesystem::path(o.show).lexically_normal().parent_path().filename().string();
    }
    p.hf_id = "-";
    p.description = std::filesystem::is_directory(o.show, ec) ? "a model folder: its config.json (and safetensors headers)"
                                                             : "config.json read from the file";
    p.config_source = file.string();
    p.config_json = parse_json_text(read_bounded_file(file.string(), kMaxConfigBytes, "config.json"), file.string()).dump();
    p.spec = *c.spec;
    render(show_document(p), format, out, o.view);
    return 0;
  }
  render(show_document(find_preset(o.show)), format, out, o.view);
  return 0;
}

}  // namespace kvplan::cli
