// A YAML settings file into typed entries (settings_file.hpp). Scalars are read as PyYAML's
// safe_load reads them, which is what the engines use (vllm/utils/argparse_utils.py, SGLang's
// server_args_config_parser.py, TensorRT-LLM's llmapi): unquoted YAML 1.1 booleans are booleans,
// ~ and null are null, everything else keeps its text for the engine's own reader.
#include "settings_file.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include "kvplan/error.hpp"
#include "kvplan/text.hpp"
#include "kvplan/quantity.hpp"

namespace kvplan {
namespace {

std::string python_str(const nlohmann::json& v);

// Nodes visited and nesting depth per file (docs/limits.md): a settings file holds a few dozen
// keys; aliases of aliases must not make the walk endless.
constexpr std::size_t kMaxNodes = 100'000;
constexpr std::size_t kMaxDepth = 64;
constexpr std::size_t kMaxText = 4ull << 20;

class Walk {
 public:
  explicit Walk(const std::string& path) : path_(path) {}

  void visit(const YAML::Node& n, std::size_t depth) {
    if (++nodes_ > kMaxNodes) {
      throw Error(fmt::format("{}: the YAML expands to more than {} nodes; kvplan reads settings files of at most "
                              "that size",
                              path_, with_commas(kMaxNodes)));
    }
    if (depth > kMaxDepth) {
      throw Error(fmt::format("{}:{}: nested deeper than {} levels", path_, line(n), kMaxDepth));
    }
  }
  [[nodiscard]] static std::uint32_t line(const YAML::Node& n) {
    return n.Mark().line >= 0 ? static_cast<std::uint32_t>(n.Mark().line + 1) : 1;
  }
  const std::string& scalar(const YAML::Node& n) {
    text_ += n.Scalar().size();
    if (text_ > kMaxText) {
      throw Error(fmt::format("{}: the YAML expands to more than {} MiB of text; kvplan reads settings files of at "
                              "most that size",
                              path_, kMaxText >> 20));
    }
    return n.Scalar();
  }
  [[nodiscard]] const std::string& path() const { return path_; }

 private:
  const std::string& path_;
  std::size_t nodes_ = 0;
  std::size_t text_ = 0;
};

// An unquoted scalar PyYAML reads as a boolean or null (YAML 1.1's resolver).
bool plain(const YAML::Node& n) { return n.Tag() == "?"; }
std::optional<bool> yaml_bool(const YAML::Node& n) {
  if (!n.IsScalar() || !plain(n)) {
    return std::nullopt;
  }
  static constexpr std::string_view kTrue[] = {"true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON"};
  static constexpr std::string_view kFalse[] = {"false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF"};
  const std::string& s = n.Scalar();
  if (std::find(std::begin(kTrue), std::end(kTrue), s) != std::end(kTrue)) {
    return true;
  }
  if (std::find(std::begin(kFalse), std::end(kFalse), s) != std::end(kFalse)) {
    return false;
  }
  return std::nullopt;
}
bool yaml_null(const YAML::Node& n) {
  if (n.IsNull()) {
    return true;
  }
  if (!n.IsScalar()) {
    return false;
  }
  const std::string& s = n.Scalar();
  return plain(n) && (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL");
}

// A value as JSON (a map or list nested in a flag's value: vLLM's --compilation-config).
nlohmann::json to_json(Walk& w, const YAML::Node& n, std::size_t depth) {
  w.visit(n, depth);
  if (n.IsMap()) {
    nlohmann::json o = nlohmann::json::object();
    for (const auto& kv : n) {
      if (!kv.first.IsScalar()) {
        throw Error(fmt::format("{}:{}: a key must be text", w.path(), Walk::line(kv.first)));
      }
      o[w.scalar(kv.first)] = to_json(w, kv.second, depth + 1);
    }
    return o;
  }
  if (n.IsSequence()) {
    nlohmann::json a = nlohmann::json::array();
    for (const auto& item : n) {
      a.push_back(to_json(w, item, depth + 1));
    }
    return a;
  }
  if (yaml_null(n)) {
    return nullptr;
  }
  if (const auto b = yaml_bool(n)) {
    return *b;
  }
  const std::string& s = w.scalar(n);
  if (plain(n)) {
    if (const auto u = to_unsigned(s)) {
      return *u;
    }
    if (const auto d = to_decimal(s)) {
      return *d;
    }
  }
  return s;
}

// A map as JSON text; the YAML reader takes bytes that are not UTF-8, which JSON (and PyYAML) do not.
std::string dump(const Walk& w, const YAML::Node& n, const nlohmann::json& j) {
  try {
    return j.dump();
  } catch (const nlohmann::json::exception&) {
    throw Error(fmt::format("{}:{}: not UTF-8 text", w.path(), Walk::line(n)));
  }
}

SettingsValue leaf(Walk& w, const YAML::Node& n, std::size_t depth) {
  SettingsValue v;
  if (yaml_null(n)) {
    v.kind = SettingsValue::Kind::null;
  } else if (n.IsMap()) {
    v.kind = SettingsValue::Kind::object;
    const nlohmann::json j = to_json(w, n, depth);
    v.text = dump(w, n, j);
    v.python = python_str(j);
  } else if (n.IsSequence()) {
    v.kind = SettingsValue::Kind::list;
    const nlohmann::json j = to_json(w, n, depth);
    for (const nlohmann::json& item : j) {
      v.items.push_back(python_str(item));
    }
    v.python = python_str(j);
  } else if (const auto b = yaml_bool(n)) {
    v.kind = SettingsValue::Kind::boolean;
    v.flag = *b;
  } else {
    v.text = w.scalar(n);
  }
  return v;
}

void walk_map(Walk& w, const YAML::Node& map, const std::string& prefix, bool nested, std::size_t depth,
              std::vector<SettingsEntry>& out) {
  for (const auto& kv : map) {
    w.visit(kv.first, depth);
    if (!kv.first.IsScalar() || kv.first.Scalar().empty()) {
      throw Error(fmt::format("{}:{}: a key must be text", w.path(), Walk::line(kv.first)));
    }
    const std::string key = prefix.empty() ? w.scalar(kv.first) : prefix + "." + w.scalar(kv.first);
    if (nested && kv.second.IsMap() && kv.second.size() > 0) {
      walk_map(w, kv.second, key, nested, depth + 1, out);
      continue;
    }
    w.visit(kv.second, depth + 1);
    out.push_back(SettingsEntry{key, leaf(w, kv.second, depth + 1), Walk::line(kv.first)});
  }
}

std::string python_repr(const nlohmann::json& v) {
  if (v.is_string()) {
    std::string out = "'";
    for (const char c : v.get_ref<const std::string&>()) {
      out += c == '\'' || c == '\\' ? std::string("\\") + c : std::string(1, c);
    }
    return out + "'";
  }
  return python_str(v);
}

// Python's str() of a value PyYAML read: a text as itself, True/False/None, a list or dict as its repr.
std::string python_str(const nlohmann::json& v) {
  switch (v.type()) {
    case nlohmann::json::value_t::string:
      return v.get<std::string>();
    case nlohmann::json::value_t::boolean:
      return v.get<bool>() ? "True" : "False";
    case nlohmann::json::value_t::null:
      return "None";
    case nlohmann::json::value_t::array: {
      std::string out = "[";
      for (const nlohmann::json& item : v) {
        out += (out.size() > 1 ? ", " : "") + python_repr(item);
      }
      return out + "]";
    }
    case nlohmann::json::value_t::object: {
      std::string out = "{";
      for (const auto& [key, item] : v.items()) {
        out += (out.size() > 1 ? ", " : "") + python_repr(key) + ": " + python_repr(item);
      }
      return out + "}";
    }
    default:
      return v.dump();
  }
}

}  // namespace

std::vector<SettingsEntry> read_settings_yaml(std::string_view text, const std::string& path, bool nested) {
  YAML::Node root;
  refuse_stray_yaml_comma(text, path);
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    throw Error(fmt::format("{}:{}:{}: not valid YAML: {}", path, e.mark.line >= 0 ? e.mark.line + 1 : 1,
                            e.mark.column >= 0 ? e.mark.column + 1 : 1, one_line(e.msg)));
  }
  std::vector<SettingsEntry> out;
  if (!root.IsDefined() || root.IsNull()) {
    return out;  // an empty file sets nothing
  }
  if (!root.IsMap()) {
    throw Error(fmt::format("{}:{}: expected a map of settings (key: value per line)", path, Walk::line(root)));
  }
  Walk w(path);
  walk_map(w, root, "", nested, 0, out);
  return out;
}

}  // namespace kvplan
