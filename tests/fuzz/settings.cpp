// libFuzzer target: settings files an engine's command line names (vLLM's and SGLang's --config,
// trtllm-serve's --extra_llm_api_options), src/app/settings_file.cpp. The first byte picks flat or
// nested keys, the rest is the YAML. The reader either returns entries (each with a key and a line) or
// throws Error.
#include "fuzz_support.hpp"
#include "settings_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) {
    return 0;
  }
  const std::string_view text = kvplan::fuzz::bytes(data + 1, size - 1);
  const bool nested = (data[0] & 1U) != 0;
  kvplan::fuzz::only_kvplan_errors([&] {
    for (const kvplan::SettingsEntry& e : kvplan::read_settings_yaml(text, "fuzz.yaml", nested)) {
      if (e.key.empty() || e.line == 0) {
        kvplan::fuzz::finding("a settings entry without a key or line", text);
      }
      if (e.value.kind == kvplan::SettingsValue::Kind::object && e.value.text.empty()) {
        kvplan::fuzz::finding("an object without its JSON", text);
      }
    }
  });
  return 0;
}
