// kvplan/model_source.hpp: where a model comes from, read once: a built-in preset (name, alias or
// Hugging Face id), a config.json, or a local model folder holding one. Every input that names a
// model (kvplan's --model/--config, a deployment file, an engine's command line) comes through here.
#pragma once

#include <string>
#include <string_view>

#include "kvplan/catalog.hpp"
#include "kvplan/plan.hpp"

namespace kvplan {

/// A config.json file or a folder holding one; `where` prefixes errors ("--config").
ModelChoice load_config(const std::string& path, std::string_view where);

/// A GGUF model file (or the first shard of a split one), read from its header.
ModelChoice load_gguf(const std::string& path, std::string_view where);

/// A built-in preset by name, alias or HF id; throws kvplan::Error with "did you mean".
ModelChoice load_preset(std::string_view name);

/// A quantized re-upload's name over an architecture: the weights the name's suffix states
/// (`-AWQ`: AWQ int4; `-unsloth-bnb-4bit`: nf4 with 16-bit layers the name does not give).
void apply_reupload_name(ModelChoice& c, const ReuploadName& name);

/// What an engine's command line names: a local folder with a config.json, or a preset by its HF id.
/// A local path that cannot be read here is refused by name, with what to give instead.
ModelChoice load_engine_model(const std::string& name, std::string_view where);

}  // namespace kvplan

namespace kvplan {

/// `--gpu` text: a catalog GPU with an optional count ("H100", "H100x4", "4xH100", "H100:8").
Hardware hardware_from_gpu(std::string_view text);

/// A catalog GPU and how many of them (nullopt: not stated), as a manifest's labels name them.
Hardware hardware_of(const GpuSpec& gpu, std::optional<std::uint32_t> count);

/// `--vram` text: a size per GPU, with a hint when it is a marketed decimal size.
Hardware hardware_from_vram(std::string_view text);

}  // namespace kvplan
