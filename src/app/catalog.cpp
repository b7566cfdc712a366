// Built-in presets: parse the embedded models/*.json once, find them by any of their names.
#include "kvplan/catalog.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <memory>
#include <nlohmann/json.hpp>

#include "json_fields.hpp"
#include "kvplan/config_reader.hpp"
#include "kvplan/error.hpp"
#include "kvplan/text.hpp"

namespace kvplan {

Preset parse_preset(std::string_view text, std::string_view path) {
  const nlohmann::json j = parse_json_text(text, path);
  const JsonFields f(j, std::string(path), "");
  static const std::vector<std::string> known{"name",          "hf_id",     "aliases", "description", "config",
                                              "config_source", "defaulted", "params",  "expect",      "notes"};
  for (const auto& item : j.items()) {
    if (std::find(known.begin(), known.end(), item.key()) == known.end()) {
      f.fail(item.key(), fmt::format("unknown key{}", did_you_mean(item.key(), known)));
    }
  }
  Preset p;
  p.path = std::string(path);
  p.name = f.string("name").value_or("");
  if (p.name.empty()) {
    f.fail("name", "is required");
  }
  p.hf_id = f.string("hf_id").value_or("");
  p.description = f.string("description").value_or("");
  p.config_source = f.string("config_source").value_or("");
  if (p.config_source.empty()) {
    f.fail("config_source", "is required: every preset cites the config.json it copies");
  }
  if (const nlohmann::json* aliases = f.array("aliases")) {
    for (const nlohmann::json& a : *aliases) {
      if (!a.is_string()) {
        f.fail("aliases", "must be an array of strings");
      }
      p.aliases.push_back(a.get<std::string>());
    }
  }
  const nlohmann::json* config = f.object("config");
  if (config == nullptr) {
    f.fail("config", "is required");
  }
  p.config_json = config->dump(2);
  if (const nlohmann::json* params = f.object("params")) {
    const JsonFields pf(*params, std::string(path), "/params");
    p.params_official = pf.string("official").value_or("");
    p.params_source = pf.string("source").value_or("");
    p.params_exact = pf.uint("exact", 1, std::uint64_t{1} << 50);
    p.params_exact_source = pf.string("exact_source").value_or("");
  }
  if (const nlohmann::json* expect = f.object("expect")) {
    const JsonFields ef(*expect, std::string(path), "/expect");
    p.expect_kv_bytes_per_token_bf16 = ef.uint("kv_bytes_per_token_bf16", 1, std::uint64_t{1} << 40);
  }
  p.spec = read_hf_config(*config, p.name, std::string(path) + ": config");
  p.keys.push_back(model_key(p.name));
  if (!p.hf_id.empty()) {
    p.keys.push_back(model_key(p.hf_id));
  }
  for (const std::string& a : p.aliases) {
    p.keys.push_back(model_key(a));
  }
  return p;
}

namespace {

// The embedded files and, per file, its parsed preset once asked for: a plan parses only the preset
// it names (the name index comes from the build, cmake/catalog.cmake), a listing parses them all.
struct Catalog {
  std::vector<EmbeddedFile> files = embedded_model_files();
  std::vector<std::vector<std::string>> keys;  // model_key of every name of each file
  std::vector<std::unique_ptr<Preset>> parsed;

  Catalog() {
    parsed.resize(files.size());
    for (const EmbeddedFile& f : files) {
      std::vector<std::string> k;
      for (std::string_view n : f.names) {
        if (!n.empty()) {
          k.push_back(model_key(n));
        }
      }
      keys.push_back(std::move(k));
    }
  }
  const Preset& at(std::size_t i) {
    if (!parsed[i]) {
      parsed[i] = std::make_unique<Preset>(parse_preset(files[i].text, files[i].path));
    }
    return *parsed[i];
  }
};

Catalog& catalog() {
  static Catalog c;
  return c;
}

}  // namespace

const std::vector<Preset>& presets() {
  static const std::vector<Preset> all = [] {
    std::vector<Preset> out;
    Catalog& c = catalog();
    for (std::size_t i = 0; i < c.files.size(); ++i) {
      out.push_back(c.at(i));
    }
    std::sort(out.begin(), out.end(), [](const Preset& a, const Preset& b) { return a.name < b.name; });
    return out;
  }();
  return all;
}

std::string model_key(std::string_view name) {
  const std::size_t slash = name.rfind('/');
  if (slash != std::string_view::npos) {
    name.remove_prefix(slash + 1);
  }
  const std::string lowered = to_lower(name);
  std::string key;
  std::size_t start = 0;
  while (start <= lowered.size()) {
    std::size_t end = lowered.find_first_of("-_ ", start);
    if (end == std::string::npos) {
      end = lowered.size();
    }
    const std::string word = lowered.substr(start, end - start);
    const bool variant = word == "instruct" || word == "it" || word == "chat" || word == "hf" || word == "base";
    const bool org_word = word == "meta" && key.empty();
    if (!variant && !org_word) {
      key += word;
    }
    start = end + 1;
  }
  return key;
}

const Preset* lookup_preset(std::string_view name) {
  const std::string key = model_key(name);
  Catalog& c = catalog();
  for (std::size_t i = 0; i < c.files.size(); ++i) {
    if (std::find(c.keys[i].begin(), c.keys[i].end(), key) != c.keys[i].end()) {
      return &c.at(i);
    }
  }
  return nullptr;
}

const Preset& find_preset(std::string_view name) {
  if (const Preset* p = lookup_preset(name)) {
    return *p;
  }
  std::vector<std::string> names;
  for (const EmbeddedFile& f : catalog().files) {
    names.emplace_back(f.names.front());
  }
  throw Error(fmt::format("unknown model {}{} (see 'kvplan models', or give --config PATH)", quote_input(name),
                          did_you_mean(name, names)));
}

}  // namespace kvplan
