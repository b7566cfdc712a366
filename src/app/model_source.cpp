// Models from presets, config.json files and local model folders.
#include "kvplan/model_source.hpp"

#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <sstream>

#include "kvplan/catalog.hpp"
#include "kvplan/config_reader.hpp"
#include "kvplan/error.hpp"
#include "kvplan/files.hpp"
#include "kvplan/formula.hpp"
#include "kvplan/gguf.hpp"
#include "kvplan/gpus.hpp"
#include "kvplan/quantity.hpp"
#include "kvplan/safetensors.hpp"
#include "kvplan/text.hpp"

namespace kvplan {
namespace {

namespace fs = std::filesystem;


std::string read_config_file(const std::string& path_text, std::string_view where) {
  fs::path path(path_text);
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    path /= "config.json";  // a Hugging Face model folder
  }
  if (!fs::is_regular_file(path, ec)) {
    throw Error(fmt::format("{}: no config.json at {}", where, quote_input(path.string())));
  }
  return read_bounded_file(path.string(), kMaxConfigBytes, "config.json");
}

bool looks_like_path(const std::string& name) {
  return !name.empty() && (name.front() == '/' || name.front() == '.' || name.front() == '~' ||
                           name.find('\\') != std::string::npos || name.rfind("file:", 0) == 0);
}

}  // namespace

ModelChoice load_gguf(const std::string& path, std::string_view where) {
  GgufModel g = read_gguf(path, where);
  ModelChoice c;
  std::string types;
  for (const auto& [type, bytes] : g.bytes_by_type) {
    types += fmt::format("{}{} {}", types.empty() ? "" : ", ", type, format_bytes(bytes));
  }
  c.source = g.tensors > 0 ? fmt::format("GGUF {} ({} {}, {} tensors, {}: {})", path, g.shards, g.shards == 1 ? "file" : "shards",
                                         g.tensors, format_bytes(g.tensor_bytes), types)
                           : fmt::format("GGUF {} (architecture {}, no tensors)", path, g.architecture);
  c.spec = std::make_shared<const ModelSpec>(std::move(g.spec));
  c.id = path;
  return c;
}

ModelChoice load_config(const std::string& path, std::string_view where) {
  if (is_gguf_path(path)) {
    return load_gguf(path, where);
  }
  ModelChoice c;
  ModelSpec spec = read_hf_config_text(read_config_file(path, where), fs::path(path).filename().string(), path);
  c.source = fmt::format("config {}", path);
  std::error_code ec;
  c.id = fs::is_directory(path, ec) ? path : fs::path(path).parent_path().string();
  // A checkpoint folder: its safetensors headers give the weights exactly.
  if (const std::optional<SafetensorsWeights> w = read_safetensors_folder(c.id.empty() ? "." : c.id, where)) {
    const std::uint64_t estimate = weight_bytes_per_gpu(spec.params, weight_format(spec, "auto"), 1);
    spec.params.stated_bytes = w->bytes;
    spec.params.stated_params = std::max<std::uint64_t>(spec.params.total(), 1);
    spec.weights_note.clear();
    std::string dtypes;
    for (const auto& [dtype, bytes] : w->bytes_by_dtype) {
      dtypes += fmt::format("{}{} {}", dtypes.empty() ? "" : ", ", dtype, format_bytes(bytes));
    }
    std::string parts;
    for (const auto& [part, bytes] : w->bytes_by_part) {
      parts += fmt::format("{}{} {}", parts.empty() ? "" : ", ", part, format_bytes(bytes));
    }
    spec.weights_source = fmt::format("the safetensors headers ({} {}, {} tensors: {}; {}; the architecture's "
                                      "estimate was {})",
                                      w->files, w->files == 1 ? "file" : "files", with_commas(w->tensors), dtypes, parts,
                                      format_bytes(estimate));
    c.source += fmt::format(", weights {} from {} safetensors {}", format_bytes(w->bytes), w->files,
                            w->files == 1 ? "file" : "files");
  }
  c.spec = std::make_shared<const ModelSpec>(std::move(spec));
  return c;
}

ModelChoice load_preset(std::string_view name) {
  if (is_gguf_path(name)) {
    return load_gguf(std::string(name), "--model");  // --model PATH.gguf
  }
  const std::optional<PresetMatch> match = resolve_preset(name);
  const Preset& p = match ? *match->preset : find_preset(name);  // find_preset throws with "did you mean"
  ModelChoice c;
  c.spec = std::shared_ptr<const ModelSpec>(std::shared_ptr<const Preset>(), &p.spec);  // presets live for the program
  c.preset = &p;
  c.source = fmt::format("{} ({})", p.hf_id, p.path);
  if (match && !match->suffix.empty()) {
    // A quantized re-upload: the base preset's architecture, the weights its name states.
    if (!match->weight_dtype.empty()) {
      auto quantized = std::make_shared<ModelSpec>(p.spec);
      quantized->checkpoint_weight_dtype = match->weight_dtype;
      quantized->expert_weight_dtype.clear();
      quantized->attention_weight_dtype.clear();
      c.spec = std::move(quantized);
    }
    c.source += match->weight_dtype.empty()
                    ? fmt::format(", {}: {}", quote_input(match->suffix), match->note)
                    : fmt::format(", weights {} from the name's {} suffix", match->note, quote_input(match->suffix));
  }
  // A launch command names the model as the user did when it is a Hugging Face id (an -Instruct variant, say).
  c.id = name.find('/') != std::string_view::npos ? std::string(name) : p.hf_id;
  return c;
}

ModelChoice load_engine_model(const std::string& name, std::string_view where) {
  std::error_code ec;
  if (fs::is_directory(name, ec) && fs::is_regular_file(fs::path(name) / "config.json", ec)) {
    ModelChoice c = load_config(name, where);
    c.id = name;
    return c;
  }
  if (lookup_preset(name) != nullptr) {
    return load_preset(name);
  }
  if (looks_like_path(name)) {
    throw Error(fmt::format("{}: the model {} is a local path with no config.json on this machine; name the "
                            "architecture with --model NAME or --config PATH",
                            where, quote_input(name)));
  }
  return load_preset(name);  // unknown: "did you mean"
}

}  // namespace kvplan

namespace kvplan {

Hardware hardware_from_gpu(std::string_view text) {
  const GpuChoice g = parse_gpu(text);
  Hardware h;
  h.gpu = g.gpu;
  h.vram_bytes = g.gpu->memory_bytes;
  h.count = g.count_given ? std::optional<std::uint32_t>(g.count) : std::nullopt;
  h.label = g.count > 1 ? fmt::format("{}x{}", g.gpu->name, g.count) : std::string(g.gpu->name);
  h.detail = fmt::format("{}: {} B as CUDA reports it (sold as {})", g.gpu->name, with_commas(g.gpu->memory_bytes),
                         g.gpu->marketed);
  return h;
}

Hardware hardware_from_vram(std::string_view text) {
  const ParsedSize size = parse_size("--vram", text);
  Hardware h;
  h.vram_bytes = size.bytes;
  h.label = std::string(text);
  h.detail = fmt::format("{} read as {} B ({})", quote_input(text), with_commas(size.bytes),
                         size.decimal ? "decimal: GB = 10^9 B" : "binary: GiB = 2^30 B");
  if (size.decimal) {
    for (const GpuSpec& g : gpu_catalog()) {
      if (g.marketed.find("per") == std::string_view::npos && parse_size("", g.marketed).bytes == size.bytes) {
        h.detail += fmt::format("; a GPU sold as \"{}\" ({}) exposes {}: try --gpu {}", g.marketed, g.name,
                                format_bytes(g.memory_bytes), g.name);
        break;
      }
    }
  }
  return h;
}

}  // namespace kvplan
