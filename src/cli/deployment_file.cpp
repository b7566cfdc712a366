// Deployment files for `kvplan check`: JSON with the plan's settings under their kvplan names and
// the engine's knobs under the engine's names. Unknown keys are errors with "did you mean", and
// every error carries the file and line.
#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "deployment.hpp"
#include "json_fields.hpp"
#include "kvplan/error.hpp"
#include "kvplan/text.hpp"

namespace kvplan::cli {
namespace {

using nlohmann::json;

std::uint32_t line_at(const std::string& text, std::size_t offset) {
  return static_cast<std::uint32_t>(1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(std::min(offset, text.size())), '\n'));
}

// The line of `"key"` (its first occurrence), for annotations and messages.
std::uint32_t line_of_key(const std::string& text, const std::string& key) {
  const std::size_t at = text.find("\"" + key + "\"");
  return at == std::string::npos ? 1 : line_at(text, at);
}

// A JSON scalar as the flag text the plan parses: 0.9 -> "0.9", 131072 -> "131072", "40GiB" -> "40GiB".
std::string scalar(const std::string& where, const json& v) {
  if (v.is_string()) {
    return v.get<std::string>();
  }
  if (v.is_number_unsigned() || v.is_number_integer()) {
    return v.dump();
  }
  if (v.is_number_float()) {
    std::string s = fmt::format("{:.6f}", v.get<double>());
    while (s.back() == '0') {
      s.pop_back();
    }
    if (s.back() == '.') {
      s.pop_back();
    }
    return s;
  }
  if (v.is_boolean()) {
    return v.get<bool>() ? "on" : "off";
  }
  throw Error(fmt::format("{}: expected a number or a string, not {}", where, v.type_name()));
}

struct Key {
  const char* name;
  std::string PlanOptions::*field;
};

const Key kTopKeys[] = {
    {"model", &PlanOptions::model},           {"config", &PlanOptions::config},
    {"gpu", &PlanOptions::gpu},               {"vram", &PlanOptions::vram},
    {"engine", &PlanOptions::engine},         {"tp", &PlanOptions::tp},
    {"pp", &PlanOptions::pp},                 {"cp", &PlanOptions::cp},
    {"kv_dtype", &PlanOptions::kv_dtype},     {"weight_dtype", &PlanOptions::weight_dtype},
    {"utilization", &PlanOptions::utilization}, {"reserve", &PlanOptions::reserve},
    {"max_model_len", &PlanOptions::max_model_len}, {"block_size", &PlanOptions::block_size},
};

const Key kEngineKeys[] = {
    {"gpu_memory_utilization", &PlanOptions::gpu_memory_utilization},
    {"kv_cache_memory", &PlanOptions::kv_cache_memory},
    {"max_num_seqs", &PlanOptions::max_num_seqs},
    {"max_num_batched_tokens", &PlanOptions::max_num_batched_tokens},
    {"kv_cache_dtype", &PlanOptions::kv_cache_dtype},
    {"mem_fraction_static", &PlanOptions::mem_fraction_static},
    {"page_size", &PlanOptions::page_size},
    {"chunked_prefill_size", &PlanOptions::chunked_prefill_size},
    {"free_gpu_memory_fraction", &PlanOptions::free_gpu_memory_fraction},
    {"tokens_per_block", &PlanOptions::tokens_per_block},
    {"max_num_tokens", &PlanOptions::max_num_tokens},
    {"ctx_size", &PlanOptions::ctx_size},
    {"parallel", &PlanOptions::parallel},
    {"cache_type_k", &PlanOptions::cache_type_k},
    {"cache_type_v", &PlanOptions::cache_type_v},
    {"fit", &PlanOptions::fit},
    {"ubatch_size", &PlanOptions::ubatch_size},
    {"max_model_len", &PlanOptions::max_model_len},
    {"block_size", &PlanOptions::block_size},
};

template <std::size_t N>
void read_keys(const json& object, const Key (&keys)[N], const std::vector<std::string>& extra, const std::string& path,
               const std::string& text, const std::string& section, PlanOptions& plan) {
  std::vector<std::string> names(extra);
  for (const Key& k : keys) {
    names.emplace_back(k.name);
  }
  for (const auto& item : object.items()) {
    const std::string where = fmt::format("{}:{}: {}{}", path, line_of_key(text, item.key()), section, item.key());
    const Key* key = nullptr;
    for (const Key& k : keys) {
      if (item.key() == k.name) {
        key = &k;
      }
    }
    if (key != nullptr) {
      plan.*(key->field) = scalar(where, item.value());
    } else if (std::find(extra.begin(), extra.end(), item.key()) == extra.end()) {
      throw Error(fmt::format("{}: unknown key{}", where, did_you_mean(item.key(), names)));
    }
  }
}

}  // namespace

Deployment read_deployment_file(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    throw Error(fmt::format("{}: no such deployment file", path));
  }
  if (std::filesystem::file_size(path, ec) > 16 * 1024 * 1024) {
    throw Error(fmt::format("{}: larger than 16 MiB; a deployment file is a few hundred bytes", path));
  }
  std::ifstream in(path, std::ios::binary);
  std::ostringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  json j;
  try {
    j = json::parse(text);
  } catch (const json::parse_error& e) {
    const std::string what = e.what();
    throw Error(fmt::format("{}:{}: not valid JSON: {}", path, line_at(text, e.byte == 0 ? 0 : e.byte - 1),
                            what.substr(what.rfind(": ") + 2)));
  } catch (const json::exception& e) {  // out_of_range.406: a number too large for JSON's doubles
    const std::string what = e.what();
    throw Error(fmt::format("{}: not valid JSON: {}", path, what.substr(what.find("] ") + 2)));
  }
  if (!j.is_object()) {
    throw Error(fmt::format("{}:1: a deployment is a JSON object", path));
  }
  Deployment d;
  d.origin = path;
  d.plan.format = "table";
  read_keys(j, kTopKeys, {"name", "engine_args", "require"}, path, text, "", d.plan);
  if (j.contains("name")) {
    d.name = scalar(fmt::format("{}:{}: name", path, line_of_key(text, "name")), j["name"]);
  }
  if (const auto it = j.find("engine_args"); it != j.end()) {
    if (!it->is_object()) {
      throw Error(fmt::format("{}:{}: engine_args must be an object of the engine's own settings", path,
                              line_of_key(text, "engine_args")));
    }
    read_keys(*it, kEngineKeys, {}, path, text, "engine_args.", d.plan);
  }
  if (const auto it = j.find("require"); it != j.end()) {
    if (!it->is_object()) {
      throw Error(fmt::format("{}:{}: require must be an object", path, line_of_key(text, "require")));
    }
    for (const auto& item : it->items()) {
      const std::string where = fmt::format("{}:{}: require.{}", path, line_of_key(text, item.key()), item.key());
      if (item.key() == "concurrency") {
        if (!item.value().is_number_unsigned() || item.value().get<std::uint64_t>() == 0) {
          throw Error(fmt::format("{}: must be a positive integer (got {})", where, item.value().dump()));
        }
        d.concurrency = item.value().get<std::uint64_t>();
      } else if (item.key() == "context_length") {
        d.context_length = scalar(where, item.value());
      } else {
        throw Error(fmt::format("{}: unknown key{}", where, did_you_mean(item.key(), {"concurrency", "context_length"})));
      }
    }
  }
  if (d.plan.model.empty() && d.plan.config.empty()) {
    throw Error(fmt::format("{}:1: missing \"model\" (a built-in name or Hugging Face id) or \"config\" (a config.json)",
                            path));
  }
  if (d.plan.gpu.empty() && d.plan.vram.empty()) {
    throw Error(fmt::format("{}:1: missing \"gpu\" (e.g. \"H100x4\") or \"vram\" (e.g. \"80GB\")", path));
  }
  if (!d.plan.config.empty() && std::filesystem::path(d.plan.config).is_relative()) {
    d.plan.config = (std::filesystem::path(path).parent_path() / d.plan.config).string();  // relative to the file
  }
  if (d.plan.engine.empty()) {
    d.plan.engine = "raw";
  }
  return d;
}

}  // namespace kvplan::cli
