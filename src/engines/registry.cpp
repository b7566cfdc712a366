// The engine table: one row per engine, with its versions and default version.
#include <array>
#include <cctype>
#include <charconv>
#include <fmt/format.h>

#include "kvplan/engine.hpp"
#include "kvplan/error.hpp"
#include "kvplan/text.hpp"

namespace kvplan {
namespace {

std::optional<int> number(std::string_view s) {
  int v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) {
    return std::nullopt;
  }
  return v;
}

// "0.19", "0.19.0", "v0.19.1" -> 19, for 0.lo .. 0.hi.
std::optional<int> zero_minor(std::string_view text, int lo, int hi) {
  if (!text.empty() && text.front() == 'v') {
    text.remove_prefix(1);
  }
  if (text.rfind("0.", 0) != 0) {
    return std::nullopt;
  }
  text.remove_prefix(2);
  const auto v = number(text.substr(0, text.find('.')));
  return v && *v >= lo && *v <= hi ? v : std::nullopt;
}

std::optional<int> vllm_version(std::string_view t) { return zero_minor(t, 10, 30); }
std::optional<int> sglang_version(std::string_view t) { return zero_minor(t, 4, 5); }

// "1.3", "1.3.0rc10", "0.5" -> major * 100 + minor.
std::optional<int> trtllm_version(std::string_view text) {
  const std::size_t dot = text.find('.');
  if (dot == std::string_view::npos) {
    return std::nullopt;
  }
  const auto major = number(text.substr(0, dot));
  std::string_view rest = text.substr(dot + 1);
  std::size_t digits = 0;
  while (digits < rest.size() && std::isdigit(static_cast<unsigned char>(rest[digits])) != 0) {
    ++digits;
  }
  const auto minor = number(rest.substr(0, digits));
  if (!major || !minor || *major > 1 || (*major == 0 && *minor < 5) || (*major == 1 && *minor > 3)) {
    return std::nullopt;
  }
  return *major * 100 + *minor;
}

// "2026-01-24" -> 20260124 (builds from 2024-01-01 on).
std::optional<int> llamacpp_version(std::string_view text) {
  if (text.size() != 10 || text[4] != '-' || text[7] != '-') {
    return std::nullopt;
  }
  const auto y = number(text.substr(0, 4));
  const auto m = number(text.substr(5, 2));
  const auto d = number(text.substr(8, 2));
  if (!y || !m || !d || *y < 2024 || *y > 2030 || *m < 1 || *m > 12 || *d < 1 || *d > 31) {
    return std::nullopt;
  }
  return *y * 10000 + *m * 100 + *d;
}

constexpr std::array kEngines{
    EngineProfile{"vllm", "vLLM", "0.19", "0.10 to 0.30", vllm_version, predict_vllm},
    EngineProfile{"sglang", "SGLang", "0.5", "0.4 or 0.5", sglang_version, predict_sglang},
    EngineProfile{"trtllm", "TensorRT-LLM", "1.3", "0.5 to 1.3", trtllm_version, predict_trtllm},
    EngineProfile{"llamacpp", "llama.cpp", "2026-11-30", "a build date, 2024-01-01 to 2030-12-31", llamacpp_version,
                  predict_llamacpp},
};

}  // namespace

std::span<const EngineProfile> engine_profiles() noexcept { return kEngines; }

EngineChoice parse_engine(std::string_view text) {
  const std::size_t at = text.find('@');
  const std::string name = to_lower(text.substr(0, at));
  EngineChoice choice;
  if (name == "raw") {
    if (at != std::string_view::npos) {
      throw Error("--engine raw has no versions: it is kvplan's engine-neutral formula");
    }
    return choice;
  }
  std::vector<std::string> names{"raw"};
  for (const EngineProfile& e : kEngines) {
    names.emplace_back(e.name);
    if (e.name != name && !(name == "llama.cpp" && e.name == "llamacpp") && !(name == "tensorrt-llm" && e.name == "trtllm")) {
      continue;
    }
    choice.profile = &e;
    choice.version_text = std::string(at == std::string_view::npos ? e.default_version : text.substr(at + 1));
    choice.default_version = at == std::string_view::npos;
    const auto v = e.parse_version(choice.version_text);
    if (!v) {
      throw Error(fmt::format("--engine: unknown {} version '{}' (kvplan models versions {}; default {})", e.display,
                              choice.version_text, e.versions_help, e.default_version));
    }
    choice.version = *v;
    return choice;
  }
  throw Error(fmt::format("--engine: unknown engine '{}'{} (one of: raw, vllm, sglang, trtllm, llamacpp)", name,
                          did_you_mean(name, names)));
}

}  // namespace kvplan
