// The engine registry: one row per engine. Adding an engine is one file in src/engines/ that
// defines its accessor, plus its row here (the declaration and the entry), plus its line in
// CMakeLists.txt (docs/architecture.md). Nothing else names an engine.
#include <array>
#include <fmt/format.h>

#include "kvplan/engine.hpp"
#include "kvplan/error.hpp"
#include "kvplan/text.hpp"

namespace kvplan {

// Each defined in src/engines/<name>.cpp.
const Engine& raw_engine_module() noexcept;
const Engine& vllm_engine_module() noexcept;
const Engine& sglang_engine_module() noexcept;
const Engine& trtllm_engine_module() noexcept;
const Engine& llamacpp_engine_module() noexcept;
const Engine& ik_llamacpp_engine_module() noexcept;

namespace {

const std::array<const Engine*, 6>& table() noexcept {
  static const std::array<const Engine*, 6> kEngines{
      &raw_engine_module(),
      &vllm_engine_module(),
      &sglang_engine_module(),
      &trtllm_engine_module(),
      &llamacpp_engine_module(),
      &ik_llamacpp_engine_module(),
  };
  return kEngines;
}

}  // namespace

std::span<const Engine* const> all_engines() noexcept { return table(); }

const Engine& raw_engine() noexcept { return *table().front(); }

const Engine* find_engine(std::string_view name) noexcept {
  const std::string wanted = to_lower(name);
  for (const Engine* e : table()) {
    if (e->name() == wanted) {
      return e;
    }
    for (std::string_view a : e->aliases()) {
      if (a == wanted) {
        return e;
      }
    }
  }
  return nullptr;
}

EngineVersion parse_engine_version(const Engine& engine, std::string_view version) {
  EngineVersion v;
  v.text = std::string(version);
  v.is_default = false;
  const auto key = engine.parse_version(version);
  if (!key) {
    throw Error(fmt::format("--engine: unknown {} version {} (versions kvplan models: {}; default {})",
                            engine.display(), quote_input(version), engine.versions_help(), engine.default_version()));
  }
  v.key = *key;
  return v;
}

EngineChoice parse_engine(std::string_view text) {
  const std::size_t at = text.find('@');
  const std::string_view name = text.substr(0, at);
  const Engine* e = find_engine(name);
  if (e == nullptr) {
    std::vector<std::string> names;
    std::string list;
    for (const Engine* x : table()) {
      names.emplace_back(x->name());
      list += (list.empty() ? "" : ", ") + std::string(x->name());
    }
    throw Error(fmt::format("--engine: unknown engine {}{} (one of: {})", quote_input(name), did_you_mean(name, names), list));
  }
  EngineChoice choice;
  choice.engine = e;
  if (at == std::string_view::npos) {
    choice.version = parse_engine_version(*e, e->default_version());
    choice.version.is_default = true;
  } else {
    choice.version = parse_engine_version(*e, text.substr(at + 1));
  }
  return choice;
}

}  // namespace kvplan
