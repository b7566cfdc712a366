// Deployment files for `kvplan check`: JSON with the plan's settings under kvplan's names and the
// engine's knobs under the engine's own keys (engine_args), or the engine's command line as one
// string ("command"). Values are typed from the JSON values themselves; unknown keys are errors
// with "did you mean", and every error carries the file and line.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "deployment.hpp"
#include "json_fields.hpp"
#include "kvplan/error.hpp"
#include "kvplan/files.hpp"
#include "kvplan/model_source.hpp"
#include "kvplan/quantity.hpp"
#include "kvplan/text.hpp"

namespace kvplan::cli {
namespace {

using nlohmann::json;


std::uint32_t line_at(const std::string& text, std::size_t offset) {
  return static_cast<std::uint32_t>(
      1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(std::min(offset, text.size())), '\n'));
}

// The line of `"key"` (its first occurrence), for annotations and messages.
std::uint32_t line_of_key(const std::string& text, const std::string& key) {
  const std::size_t at = text.find("\"" + key + "\"");
  return at == std::string::npos ? 1 : line_at(text, at);
}

std::string string_value(const std::string& where, const json& v) {
  if (!v.is_string()) {
    throw Error(fmt::format("{}: expected a string, not {}", where, v.type_name()));
  }
  return v.get<std::string>();
}

std::uint64_t whole_value(const std::string& where, const json& v, std::uint64_t max) {
  if (!v.is_number_unsigned() || v.get<std::uint64_t>() == 0) {
    throw Error(fmt::format("{}: must be a positive integer (got {})", where,
                            brief(v)));
  }
  if (v.get<std::uint64_t>() > max) {
    throw Error(fmt::format("{}: {} is too large (at most {})", where, v.get<std::uint64_t>(), with_commas(max)));
  }
  return v.get<std::uint64_t>();
}

// A JSON value as the knob's type: numbers stay numbers; a float fraction is read from its
// shortest decimal form (0.9 -> "0.9"), exactly as if it had been typed.
KnobValue json_knob(const Knob& k, const std::string& where, const json& v) {
  if (v.is_string()) {
    return read_knob(k, where, v.get<std::string>());
  }
  switch (k.type) {
    case KnobType::count:
    case KnobType::tokens:
    case KnobType::bytes:
      if (v.is_number_unsigned() && (v.get<std::uint64_t>() > 0 || k.zero_ok)) {
        if (k.max != 0 && v.get<std::uint64_t>() > k.max) {
          throw Error(fmt::format("{}: {} is too large (at most {})", where, v.get<std::uint64_t>(), with_commas(k.max)));
        }
        return v.get<std::uint64_t>();
      }
      throw Error(fmt::format("{}: must be a positive integer (got {})", where, brief(v)));
    case KnobType::fraction:
    case KnobType::ratio:
      if (v.is_number()) {
        return read_knob(k, where, fmt::format("{}", v.get<double>()));
      }
      break;
    case KnobType::flag:
      if (v.is_boolean()) {
        return v.get<bool>();
      }
      break;
    case KnobType::json:
      return v.dump();
    case KnobType::dtype:
    case KnobType::text:
      break;
  }
  throw Error(fmt::format("{}: expected {} (got {})", where,
                          k.type == KnobType::fraction ? "a number such as 0.9"
                          : k.type == KnobType::ratio  ? "a number such as 2.0"
                          : k.type == KnobType::flag   ? "true or false"
                                                       : "a string",
                          v.type_name()));
}

std::string read_file(const std::string& path) {
  return read_bounded_file(path, kMaxDeploymentBytes, "deployment file");
}

const char* const kTopKeys[] = {"name", "model", "config", "gpu", "vram", "engine", "tp", "pp", "cp", "dp",
                                "kv_dtype", "weight_dtype", "utilization", "reserve", "max_model_len", "block_size",
                                "engine_args", "require", "command"};

}  // namespace

Deployment read_deployment_file(const std::string& path, bool strict) {
  return read_deployment_text(read_file(path), path, strict);
}

Deployment read_deployment_text(const std::string& text, const std::string& path, bool strict) {
  if (json_depth(text) > kMaxJsonDepth) {
    throw Error(fmt::format("{}: JSON nested deeper than {} levels; a deployment file is two levels deep", path,
                            kMaxJsonDepth));
  }
  json j;
  try {
    j = json::parse(text);
  } catch (const json::parse_error& e) {
    throw Error(fmt::format("{}:{}: not valid JSON: {}", path, line_at(text, e.byte == 0 ? 0 : e.byte - 1),
                            json_error_text(e)));
  } catch (const json::exception& e) {  // out_of_range.406: a number too large for JSON's doubles
    throw Error(fmt::format("{}: not valid JSON: {}", path, json_error_text(e)));
  }
  if (!j.is_object()) {
    throw Error(fmt::format("{}:1: a deployment is a JSON object", path));
  }
  // A key is user input too: one of kvplan's keys prints as written, any other is quoted and cut.
  auto where = [&](const std::string& key, const std::string& prefix = "") {
    const bool plain = key.size() <= 64 && std::all_of(key.begin(), key.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '-' || c == '.';
    });
    return fmt::format("{}:{}: {}{}", path, line_of_key(text, key), prefix, plain ? key : quote_input(key));
  };
  std::vector<std::string> top(std::begin(kTopKeys), std::end(kTopKeys));
  for (const auto& item : j.items()) {
    if (std::find(top.begin(), top.end(), item.key()) == top.end()) {
      throw Error(fmt::format("{}: unknown key{}", where(item.key()), did_you_mean(item.key(), top)));
    }
  }
  Deployment d;
  d.origin = path;
  if (j.contains("name")) {
    d.name = string_value(where("name"), j["name"]);
  }
  PlanRequest& q = d.request;
  q.origin = Origin::deployment_file;
  q.version_banner = "";
  // The machine.
  if (j.contains("gpu") && j.contains("vram")) {
    throw Error(fmt::format("{}: give \"gpu\" or \"vram\", not both", where("vram")));
  }
  // A value's own error ("unknown GPU ...") is prefixed with the file, line and key it came from.
  const auto prefixed = [&](const std::string& key, auto read) {
    try {
      return read();
    } catch (const Error& e) {
      throw Error(fmt::format("{}: {}", where(key), e.what()));
    }
  };
  std::optional<Hardware> hardware;
  if (j.contains("gpu")) {
    hardware = prefixed("gpu", [&] { return hardware_from_gpu(string_value(where("gpu"), j["gpu"])); });
  } else if (j.contains("vram")) {
    hardware = prefixed("vram", [&] { return hardware_from_vram(string_value(where("vram"), j["vram"])); });
  } else {
    throw Error(fmt::format("{}:1: missing \"gpu\" (e.g. \"H100x4\") or \"vram\" (e.g. \"80GB\")", path));
  }
  // The model.
  std::optional<ModelChoice> model;
  if (j.contains("model") && j.contains("config")) {
    throw Error(fmt::format("{}: give \"model\" or \"config\", not both", where("config")));
  }
  if (j.contains("config")) {
    std::string config = string_value(where("config"), j["config"]);
    if (std::filesystem::path(config).is_relative()) {
      config = (std::filesystem::path(path).parent_path() / config).string();  // relative to the file
    }
    model = load_config(config, where("config"));
  } else if (j.contains("model")) {
    model = prefixed("model", [&] { return load_preset(string_value(where("model"), j["model"])); });
  }
  if (j.contains("command")) {
    // The engine's own command line: everything it says is read from it.
    for (const char* key : {"engine", "tp", "pp", "cp", "dp", "kv_dtype", "weight_dtype", "utilization", "reserve",
                            "max_model_len", "block_size", "engine_args"}) {
      if (j.contains(key)) {
        throw Error(fmt::format("{}: with \"command\", the command line says this; remove \"{}\"", where(key), key));
      }
    }
    CommandContext ctx;
    ctx.hardware = hardware;
    ctx.model = model;
    ctx.strict = strict;
    ctx.origin = where("command");
    ctx.base_dir = std::filesystem::path(path).parent_path().string();  // --config FILE beside the deployment file
    q = read_command_line(shell_words(string_value(where("command"), j["command"])), ctx);
    q.origin = Origin::deployment_file;
    d.line = line_of_key(text, "command");
  } else {
    if (!model) {
      throw Error(fmt::format("{}:1: missing \"model\" (a built-in name or Hugging Face id), \"config\" (a "
                              "config.json) or \"command\" (the engine's command line)",
                              path));
    }
    q.model = *model;
    q.hardware = *hardware;
    const std::string engine = j.contains("engine") ? string_value(where("engine"), j["engine"]) : "raw";
    EngineChoice choice;
    try {
      choice = parse_engine(engine);
    } catch (const Error& e) {
      throw Error(fmt::format("{}: {}", where("engine"), e.what()));
    }
    q.engine = choice.engine;
    q.version = choice.version;
    const Engine& e = q.engine_ref();
    for (const char* key : {"tp", "pp", "cp", "dp"}) {
      if (j.contains(key)) {
        const auto n = static_cast<std::uint32_t>(whole_value(where(key), j[key], 1024));
        (key == std::string("tp") ? q.tp : key == std::string("pp") ? q.pp : key == std::string("cp") ? q.cp : q.dp) = n;
      }
    }
    if (j.contains("kv_dtype") && string_value(where("kv_dtype"), j["kv_dtype"]) != "auto") {
      q.kv_dtype = require_dtype(kv_dtypes(), where("kv_dtype"), j["kv_dtype"].get<std::string>());
    }
    if (j.contains("weight_dtype")) {
      const std::string w = string_value(where("weight_dtype"), j["weight_dtype"]);
      q.weights = weight_format(q.model_spec(), w);
      q.weights_label = w;
    }
    if (j.contains("max_model_len")) {
      q.max_model_len = j["max_model_len"].is_string()
                            ? parse_tokens(where("max_model_len"), j["max_model_len"].get<std::string>())
                            : whole_value(where("max_model_len"), j["max_model_len"], std::uint64_t{1} << 40);
    }
    auto set_knob = [&](std::size_t index, const std::string& at, const json& v) {
      const Knob& k = e.knobs()[index];
      const KnobValue value = json_knob(k, at, v);
      switch (k.target) {
        case Target::own:
          q.knobs.set(index, value);
          break;
        case Target::max_model_len:
          q.max_model_len = std::get<std::uint64_t>(value);
          break;
        case Target::kv_dtype:
          if (const auto* dt = std::get_if<DType>(&value)) {
            q.kv_dtype = *dt;
          }
          break;
        case Target::tp:
          q.tp = static_cast<std::uint32_t>(std::get<std::uint64_t>(value));
          break;
        case Target::pp:
          q.pp = static_cast<std::uint32_t>(std::get<std::uint64_t>(value));
          break;
        case Target::dp:
          q.dp = static_cast<std::uint32_t>(std::get<std::uint64_t>(value));
          break;
        case Target::nodes:
          q.nodes = static_cast<std::uint32_t>(std::get<std::uint64_t>(value));
          break;
        case Target::cp:
          q.cp = static_cast<std::uint32_t>(std::get<std::uint64_t>(value));
          break;
        case Target::model:
        case Target::weights:
          throw Error(fmt::format("{}: give it as \"{}\" at the top level", at,
                                  k.target == Target::model ? "model" : "weight_dtype"));
      }
    };
    // kvplan's own keys at the top level that are the engine's knobs (utilization is its memory fraction).
    for (const char* key : {"utilization", "reserve", "block_size"}) {
      if (!j.contains(key)) {
        continue;
      }
      std::optional<std::size_t> index = e.knob_index(key);
      if (!index && key == std::string("utilization")) {
        index = e.fraction_knob();
      }
      if (!index) {
        throw Error(fmt::format("{}: --engine {} has no \"{}\"", where(key), e.name(), key));
      }
      set_knob(*index, where(key), j[key]);
    }
    if (const auto it = j.find("engine_args"); it != j.end()) {
      if (!it->is_object()) {
        throw Error(fmt::format("{}: engine_args must be an object of the engine's own settings", where("engine_args")));
      }
      std::vector<std::string> keys;
      for (const Knob& k : e.knobs()) {
        keys.emplace_back(k.key);
      }
      for (const auto& item : it->items()) {
        std::optional<std::size_t> index = e.knob_index(item.key());
        if (!index && item.key() == "max_model_len") {
          q.max_model_len = whole_value(where(item.key(), "engine_args."), item.value(), std::uint64_t{1} << 40);
          continue;  // the common name of every engine's context length
        }
        if (!index) {
          throw Error(fmt::format("{}: unknown key for {}{}", where(item.key(), "engine_args."), e.display(),
                                  did_you_mean(item.key(), keys)));
        }
        set_knob(*index, where(item.key(), "engine_args."), item.value());
      }
    }
    e.validate(q.knobs);
  }
  if (const auto it = j.find("require"); it != j.end()) {
    if (!it->is_object()) {
      throw Error(fmt::format("{}: require must be an object", where("require")));
    }
    for (const auto& item : it->items()) {
      const std::string at = where(item.key(), "require.");
      if (item.key() == "concurrency") {
        d.concurrency = whole_value(at, item.value(), 10'000'000);
      } else if (item.key() == "context_length") {
        d.context_length = item.value().is_string() ? parse_tokens(at, item.value().get<std::string>())
                                                    : whole_value(at, item.value(), std::uint64_t{1} << 40);
      } else {
        throw Error(fmt::format("{}: unknown key{}", at, did_you_mean(item.key(), {"concurrency", "context_length"})));
      }
    }
  }
  return d;
}

}  // namespace kvplan::cli
