// A YAML file of an engine's settings, named by one of its flags (vLLM's and SGLang's --config,
// trtllm-serve's --extra_llm_api_options), read once into typed entries, each with its line. What
// the keys mean is the engine's (Engine::settings_file); this reader knows YAML only.
// Private to the app layer (src/app).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kvplan {

struct SettingsValue {
  enum class Kind : std::uint8_t {
    text,     // a scalar, as written (numbers too: engines read them from text)
    boolean,  // YAML 1.1's true/false/yes/no/on/off, unquoted (what PyYAML's safe_load reads as bool)
    null,     // ~, null or nothing
    list,     // a sequence: `items`, each a scalar's text or a nested value as JSON
    object,   // a map kept whole (top-level keys only): `text` is its JSON
  };
  Kind kind = Kind::text;
  std::string text;
  bool flag = false;
  std::vector<std::string> items;
  std::string python;          // list and object: Python's str() of the value ([1, 'x', True], {'k': 1}), as
                               // engines that stringify the file's values write it
};

struct SettingsEntry {
  std::string key;           // a top-level key, or a dotted path ("kv_cache_config.dtype") when nested
  SettingsValue value;
  std::uint32_t line = 1;
};

/// Reads `text` (the file `path`, for messages) as one YAML map. `nested`: maps are walked into
/// dotted paths down to their leaves; otherwise each top-level key is one entry and a map value is
/// an object. Throws kvplan::Error naming the file and line: not YAML, not a map, a key that is not
/// text, more nodes or depth than kvplan reads (docs/limits.md).
std::vector<SettingsEntry> read_settings_yaml(std::string_view text, const std::string& path, bool nested);

}  // namespace kvplan
