// kvplan/config_reader.hpp: Hugging Face config.json -> ModelSpec. The one place that knows
// config field names and each architecture's rules (which layers slide, what MLA caches, how
// many parameters a layer has). Presets in models/ go through the same reader.
// Architectures it cannot size are refused by name; nothing falls back to a dense formula.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "kvplan/hparams.hpp"
#include "kvplan/model.hpp"

namespace kvplan {

/// Reads a parsed config.json. `origin` prefixes every error ("models/x.json: config: ...").
ModelSpec read_hf_config(const nlohmann::json& config, std::string_view name, std::string_view origin);

/// Reads neutral hyper-parameters named with config.json's keys (kvplan/hparams.hpp), whatever
/// file they came from: the config.json reader and the GGUF reader both end here.
ModelSpec read_hparams(HObject top, std::string_view name, std::string_view origin);

/// Parses JSON text (at most 16 MiB) and reads it; errors name `origin`.
ModelSpec read_hf_config_text(std::string_view text, std::string_view name, std::string_view origin);

/// Model types the reader can size, for messages and docs.
std::string supported_model_types();

/// The decoder parameters a bitsandbytes checkpoint keeps in 16 bits, by vLLM's rule for its
/// llm_int8_skip_modules (is_layer_skipped_bnb) over vLLM's fused module names. `layered` is false
/// where kvplan cannot place the entries on layers (MoE models, other module names).
struct BnbKept {
  std::uint64_t attention = 0;
  std::uint64_t mlp = 0;
  bool layered = true;
};
BnbKept bnb_kept_params(const ModelSpec& m, const std::vector<std::string>& skip);

}  // namespace kvplan
