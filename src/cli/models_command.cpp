// `kvplan models` lists the built-in presets; `kvplan models show NAME` prints one.
#include <algorithm>
#include <fmt/format.h>

#include "commands.hpp"
#include "kvplan/arch.hpp"
#include "kvplan/catalog.hpp"
#include "kvplan/dtype.hpp"
#include "kvplan/formula.hpp"
#include "kvplan/quantity.hpp"
#include "kvplan/report.hpp"

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

Document show_document(const Preset& p) {
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
      {"max_position_embeddings", "Max context", Cell::tokens(p.spec.max_position_embeddings), ""},
      {"parameters", "Parameters (computed)", Cell::count(p.spec.params.total()),
       p.params_official.empty() ? "" : fmt::format("official: {} ({})", p.params_official, p.params_source)},
  };
  s.notes.push_back("Config source: " + p.config_source);
  s.notes.push_back("config.json fields as used:");
  std::string line;
  for (char c : p.config_json) {
    if (c == '\n') {
      s.notes.push_back("  " + line);
      line.clear();
    } else {
      line += c;
    }
  }
  s.notes.push_back("  " + line);
  doc.sections.push_back(std::move(s));
  return doc;
}

}  // namespace

void setup_models(CLI::App& app, ModelsOptions& o) {
  CLI::App* types = app.add_subcommand("types", "List the config.json model_types kvplan sizes, with their configuration class");
  types->add_option("--format,-f", o.format, "Output: table, json, csv or markdown");
  types->callback([&o] { o.types = true; });
  CLI::App* show = app.add_subcommand("show", "Print one model's architecture and sources");
  show->add_option("name", o.show, "Model name, alias or Hugging Face id")->required();
  show->add_option("--format,-f", o.format, "Output: table, json, csv or markdown");
  app.add_option("--format,-f", o.format, "Output: table, json, csv or markdown");
}

int run_models(const ModelsOptions& o, std::ostream& out) {
  const Format format = parse_format(o.format);
  if (o.types) {
    render(types_document(), format, out);
    return 0;
  }
  render(o.show.empty() ? list_document() : show_document(find_preset(o.show)), format, out);
  return 0;
}

}  // namespace kvplan::cli
