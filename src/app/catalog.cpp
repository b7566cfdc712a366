// Built-in presets: parse the embedded models/*.json once, find them by any of their names.
#include "kvplan/catalog.hpp"

#include <algorithm>
#include <cctype>
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
  std::vector<std::unique_ptr<Preset>> parsed;
  std::vector<std::vector<std::string>> folded;  // model_key of every name of each file, made on first use

  Catalog() { parsed.resize(files.size()); }
  const Preset& at(std::size_t i) {
    if (!parsed[i]) {
      parsed[i] = std::make_unique<Preset>(parse_preset(files[i].text, files[i].path));
    }
    return *parsed[i];
  }
  const std::vector<std::vector<std::string>>& keys() {
    if (folded.empty()) {
      for (const EmbeddedFile& f : files) {
        std::vector<std::string> k;
        for (std::string_view n : f.names) {
          if (!n.empty()) {
            k.push_back(model_key(n));
          }
        }
        folded.push_back(std::move(k));
      }
    }
    return folded;
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

namespace {

// Quantized re-uploads name their format as a suffix of the base model's name (Qwen's -AWQ and
// -GPTQ-Int4, RedHatAI's -FP8-dynamic and -quantized.w4a16, NVIDIA's -NVFP4, unsloth's -bnb-4bit).
// The weight format each means is the one its quantization_config states in those repositories
// (AWQ and GPTQ 4-bit: int4 with group scales; W8A8: int8; -FP8: e4m3; NVFP4; MXFP4; bnb 4-bit: nf4).
struct QuantSuffix {
  std::string_view suffix;  // lowercase, longest first where one ends another
  std::string_view dtype;   // kvplan weight dtype, "" when the name does not say
  std::string_view note;
  std::string_view method = {};  // quantization_config.quant_method in those repositories ("" where it varies)
  std::string_view skip_list_unread = {};  // ReuploadName::skip_list_unread
};
constexpr QuantSuffix kQuantSuffixes[] = {
    {"-gptq-int4", "int4", "GPTQ int4", "gptq"},
    {"-gptq-int8", "int8", "GPTQ int8", "gptq"},
    {"-awq-int4", "int4", "AWQ int4", "awq"},
    {"-awq", "int4", "AWQ int4", "awq"},
    {"-gptq", "int4", "GPTQ int4", "gptq"},
    {"-int4", "int4", "int4"},
    {"-int8", "int8", "int8"},
    {"-fp8-dynamic", "fp8", "FP8 (dynamic activation scales)", "compressed-tensors"},
    {"-fp8-static", "fp8", "FP8"},
    {"-fp8", "fp8", "FP8"},
    {"-quantized.w4a16", "int4", "W4A16 int4", "compressed-tensors"},
    {"-quantized.w8a8", "int8", "W8A8 int8", "compressed-tensors"},
    {"-w4a16", "int4", "W4A16 int4"},
    {"-w8a8", "int8", "W8A8 int8"},
    {"-w8a8-fp8", "fp8", "W8A8 FP8"},
    {"-nvfp4", "nvfp4", "NVFP4"},
    {"-mxfp4", "mxfp4", "MXFP4"},
    // Unsloth's dynamic 4-bit uploads keep the blocks their config.json lists in llm_int8_skip_modules
    // at 16 bits, a list per model: unsloth/QwQ-32B-unsloth-bnb-4bit (config.json at b5d53e9f) names
    // model.layers.0.self_attn and the MLPs of layers 0, 4-6 and 8-23 before layer 24's; Unsloth's vLLM
    // log in unslothai/unsloth#2313 prints qwen2.5-3b-instruct-unsloth-bnb-4bit's (layers 2, 3, 30).
    {"-unsloth-bnb-4bit", "nf4", "bitsandbytes nf4 (Unsloth dynamic)", "bitsandbytes",
     "an Unsloth dynamic 4-bit upload"},
    {"-bnb-4bit", "nf4", "bitsandbytes nf4", "bitsandbytes"},
    {"-bnb-8bit", "int8", "bitsandbytes int8", "bitsandbytes"},
    // A -GGUF repository holds one file per quantization; its name does not say which.
    {"-gguf", "", "a GGUF repository, one file per quantization; the weights are shown in the model's dtype until --weight-dtype names the file's"},
};

bool same_ignoring_case(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

std::optional<std::size_t> find_file(std::string_view name) {
  Catalog& c = catalog();
  for (std::size_t i = 0; i < c.files.size(); ++i) {  // exact: name, HF id or alias as written
    for (std::string_view n : c.files[i].names) {
      if (!n.empty() && same_ignoring_case(n, name)) {
        return i;
      }
    }
  }
  const std::string key = model_key(name);
  const std::vector<std::vector<std::string>>& keys = c.keys();
  for (std::size_t i = 0; i < c.files.size(); ++i) {
    if (std::find(keys[i].begin(), keys[i].end(), key) != keys[i].end()) {
      return i;
    }
  }
  return std::nullopt;
}

// Lowercase letters before the first digit or separator of a name's last segment: its family
// ("mistral" in "Mistral-7B", "qwen" in "qwen3.5-27b").
std::string family_of(std::string_view name) {
  if (const std::size_t slash = name.rfind('/'); slash != std::string_view::npos) {
    name.remove_prefix(slash + 1);
  }
  std::string out;
  for (const char ch : name) {
    const char c = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (c < 'a' || c > 'z') {
      break;
    }
    out += c;
  }
  return out;
}

}  // namespace

std::optional<ReuploadName> reupload_suffix(std::string_view name) {
  const std::string lowered = to_lower(name);
  for (const QuantSuffix& q : kQuantSuffixes) {
    if (lowered.size() > q.suffix.size() && lowered.ends_with(q.suffix)) {
      return ReuploadName{std::string(q.dtype), std::string(name.substr(name.size() - q.suffix.size())),
                          std::string(q.note), std::string(q.method), std::string(q.skip_list_unread)};
    }
  }
  return std::nullopt;
}

std::optional<PresetMatch> resolve_preset(std::string_view name) {
  if (auto i = find_file(name)) {
    PresetMatch m;
    m.preset = &catalog().at(*i);
    return m;
  }
  const std::string lowered = to_lower(name);
  for (const QuantSuffix& q : kQuantSuffixes) {
    if (lowered.size() > q.suffix.size() && lowered.ends_with(q.suffix)) {
      const std::string_view base = name.substr(0, name.size() - q.suffix.size());
      if (auto i = find_file(base)) {
        PresetMatch m;
        static_cast<ReuploadName&>(m) = *reupload_suffix(name);
        m.preset = &catalog().at(*i);
        return m;
      }
    }
  }
  return std::nullopt;
}

const Preset* lookup_preset(std::string_view name) {
  const std::optional<PresetMatch> m = resolve_preset(name);
  return m ? m->preset : nullptr;
}

const Preset& find_preset(std::string_view name) {
  if (const Preset* p = lookup_preset(name)) {
    return *p;
  }
  std::vector<std::string> names;
  for (const EmbeddedFile& f : catalog().files) {
    names.emplace_back(f.names.front());
  }
  // Within the family first: "mistral-7b" means the Mistral-7B presets, not Mixtral.
  const std::string family = family_of(name);
  std::vector<std::string> kin;
  std::vector<std::string> extending;  // family presets whose name extends what was typed
  const std::string typed = to_lower(name.substr(name.rfind('/') == std::string_view::npos ? 0 : name.rfind('/') + 1));
  for (const std::string& n : names) {
    if (!family.empty() && n.rfind(family, 0) == 0) {
      kin.push_back(n);
      if (typed.size() >= family.size() + 1 && n.rfind(typed, 0) == 0) {
        extending.push_back(n);
      }
    }
  }
  std::sort(extending.begin(), extending.end());
  std::string hint;
  if (!extending.empty() && extending.size() <= 4 && name.size() <= 128) {
    hint = ", did you mean ";
    for (std::size_t k = 0; k < extending.size(); ++k) {
      hint += fmt::format("{}'{}'", k == 0 ? "" : k + 1 == extending.size() ? " or " : ", ", extending[k]);
    }
    hint += "?";
  } else {
    hint = did_you_mean(name, kin);
    if (hint.empty()) {
      hint = did_you_mean(name, names);
    }
  }
  throw Error(fmt::format("unknown model {}{} (see 'kvplan models', or give --config PATH)", quote_input(name), hint));
}

}  // namespace kvplan
