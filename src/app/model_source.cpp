// Models from presets, config.json files and local model folders.
#include "kvplan/model_source.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
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
#include "ollama_library.hpp"

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

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? std::string() : std::string(v);
}

std::string small_file(const fs::path& p, std::string_view what) {
  std::string text = read_bounded_file(p.string(), 1 << 20, what);
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ')) {
    text.pop_back();
  }
  return text;
}

// The Hugging Face cache (huggingface_hub constants.py: HF_HUB_CACHE, else HF_HOME/hub, else
// ~/.cache/huggingface/hub), a repository's folder models--ORG--NAME, and the snapshot its
// refs/main names (file_download.py: snapshots/<commit> holds the files, as links to blobs/).
std::optional<ModelChoice> from_hf_cache(std::string_view repo, std::string_view where) {
  const std::size_t slash = repo.find('/');
  if (slash == std::string_view::npos || slash == 0 || repo.find('/', slash + 1) != std::string_view::npos ||
      repo.find("..") != std::string_view::npos || repo.find(':') != std::string_view::npos || repo.size() > 200) {
    return std::nullopt;
  }
  std::string cache = env("HF_HUB_CACHE");
  if (cache.empty() && !env("HF_HOME").empty()) {
    cache = env("HF_HOME") + "/hub";
  }
  if (cache.empty() && !env("HOME").empty()) {
    cache = env("HOME") + "/.cache/huggingface/hub";
  }
  if (cache.empty()) {
    return std::nullopt;
  }
  const fs::path dir = fs::path(cache) / fmt::format("models--{}--{}", repo.substr(0, slash), repo.substr(slash + 1));
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    return std::nullopt;
  }
  const fs::path ref = dir / "refs" / "main";
  if (!fs::exists(ref, ec)) {
    throw Error(fmt::format("{}: the Hugging Face cache has {} but no refs/main; download the model again, or give "
                            "its snapshot folder with --config",
                            where, quote_input(dir.string())));
  }
  const std::string commit = small_file(ref, "refs/main");
  const fs::path snapshot = dir / "snapshots" / commit;
  if (commit.empty() || commit.find('/') != std::string::npos || !fs::is_directory(snapshot, ec)) {
    throw Error(fmt::format("{}: {} names the revision {}, but {} is not there", where, quote_input(ref.string()),
                            quote_input(commit), quote_input(snapshot.string())));
  }
  ModelChoice c = load_config(snapshot.string(), where);
  c.source = fmt::format("the Hugging Face cache: {} ({})", snapshot.string(), c.source);
  c.id = std::string(repo);
  return c;
}

// Ollama's store (envconfig.Models(): OLLAMA_MODELS, else ~/.ollama/models): a tag's manifest at
// manifests/registry.ollama.ai/library/NAME/TAG (or USER/NAME/TAG), whose layer of media type
// application/vnd.ollama.image.model is the GGUF blob blobs/sha256-<hex>.
std::optional<ModelChoice> from_ollama(std::string_view name, std::string_view where) {
  const std::size_t colon = name.find(':');
  if (colon == std::string_view::npos || colon == 0 || colon + 1 == name.size() ||
      name.find("..") != std::string_view::npos || name.find(':', colon + 1) != std::string_view::npos ||
      name.size() > 200) {
    return std::nullopt;
  }
  std::string store = env("OLLAMA_MODELS");
  if (store.empty() && !env("HOME").empty()) {
    store = env("HOME") + "/.ollama/models";
  }
  if (store.empty()) {
    return std::nullopt;
  }
  const std::string model(name.substr(0, colon));
  const std::string tag(name.substr(colon + 1));
  const fs::path base = fs::path(store) / "manifests" / "registry.ollama.ai";
  const fs::path manifest = model.find('/') == std::string::npos ? base / "library" / model / tag : base / model / tag;
  std::error_code ec;
  if (!fs::is_regular_file(manifest, ec)) {
    return std::nullopt;
  }
  const std::string text = read_bounded_file(manifest.string(), 1 << 20, "Ollama manifest");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception&) {
    throw Error(fmt::format("{}: {} is not valid JSON", where, quote_input(manifest.string())));
  }
  std::optional<std::string> model_digest;
  std::optional<std::string> params_digest;
  if (j.is_object() && j.contains("layers") && j["layers"].is_array()) {
    for (const auto& layer : j["layers"]) {
      if (!layer.is_object() || !layer.contains("mediaType") || !layer.contains("digest") ||
          !layer["mediaType"].is_string() || !layer["digest"].is_string()) {
        continue;
      }
      const std::string type = layer["mediaType"].get<std::string>();
      if (type == "application/vnd.ollama.image.model") {
        model_digest = layer["digest"].get<std::string>();
      } else if (type == "application/vnd.ollama.image.params") {
        params_digest = layer["digest"].get<std::string>();
      }
    }
  }
  auto blob = [&](const std::string& digest) {
    std::string file = digest;
    std::replace(file.begin(), file.end(), ':', '-');
    if (file.find('/') != std::string::npos || file.rfind("sha256-", 0) != 0) {
      throw Error(fmt::format("{}: {}: layer digest {} is not sha256:<hex>", where, quote_input(manifest.string()),
                              quote_input(digest)));
    }
    return fs::path(store) / "blobs" / file;
  };
  if (!model_digest) {
    throw Error(fmt::format("{}: {} has no model layer", where, quote_input(manifest.string())));
  }
  const fs::path gguf = blob(*model_digest);
  if (!fs::is_regular_file(gguf, ec)) {
    throw Error(fmt::format("{}: {} names the blob {}, which is not in the store", where, quote_input(manifest.string()),
                            quote_input(gguf.string())));
  }
  ModelChoice c = load_gguf(gguf.string(), where);
  std::string ctx;
  if (params_digest) {
    const fs::path params = blob(*params_digest);
    if (fs::is_regular_file(params, ec)) {
      try {
        const nlohmann::json p = nlohmann::json::parse(read_bounded_file(params.string(), 1 << 20, "Ollama params"));
        if (p.is_object() && p.contains("num_ctx") && p["num_ctx"].is_number_unsigned()) {
          ctx = fmt::format("; its Modelfile sets num_ctx {}", with_commas(p["num_ctx"].get<std::uint64_t>()));
        }
      } catch (const nlohmann::json::exception&) {
        // a params blob that is not JSON: no num_ctx to report
      }
    }
  }
  c.source = fmt::format("the Ollama store: {} → {}{}", name, c.source, ctx);
  c.id = std::string(name);
  return c;
}

// A GGUF file that is not on this machine (llama-server -m gemma-3-27b-it-Q4_K_M.gguf in a CI job):
// the model from the name before its file type, the weights estimated from the type's bits per weight.
std::optional<ModelChoice> from_gguf_name(const std::string& path, std::string_view where) {
  std::error_code ec;
  if (fs::exists(path, ec)) {
    return std::nullopt;
  }
  const auto named = gguf_name_type(path);
  if (!named) {
    return std::nullopt;
  }
  const auto& [model, type] = *named;
  ModelChoice base;
  try {
    base = load_preset(model);
  } catch (const Error& e) {
    throw Error(fmt::format("{}: the GGUF file {} is not on this machine, and the model its name gives, {}, is not in "
                            "the catalog ({}); name the architecture with --model NAME",
                            where, quote_input(path), quote_input(model), one_line(e.what())));
  }
  auto spec = std::make_shared<ModelSpec>(*base.spec);
  const std::uint64_t params = std::max<std::uint64_t>(spec->params.total(), 1);
  __extension__ using Wide = unsigned __int128;
  spec->params.stated_bytes = static_cast<std::uint64_t>((static_cast<Wide>(params) * type.millibits + 7999) / 8000);
  spec->params.stated_params = params;
  spec->weights_note.clear();
  spec->weights_estimated = true;
  spec->quant_method = "gguf";
  spec->weights_label = type.name;
  spec->weights_source = fmt::format("estimated from the file name's {}: {}.{:03} bits per weight ({})", type.name,
                                     type.millibits / 1000, type.millibits % 1000, type.basis);
  ModelChoice c;
  c.spec = std::move(spec);
  c.preset = base.preset;
  c.source = fmt::format("{} (not on this machine: the architecture of {}, weights estimated from the name's {})", path,
                         base.source, type.name);
  c.id = path;
  return c;
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
  // The file type its name states, else the tensor type holding the most bytes.
  if (const auto named = gguf_name_type(path)) {
    g.spec.weights_label = named->second.name;
  } else {
    std::uint64_t most = 0;
    for (const auto& [type, bytes] : g.bytes_by_type) {
      if (bytes > most) {
        most = bytes;
        g.spec.weights_label = type;
      }
    }
  }
  c.spec = std::make_shared<const ModelSpec>(std::move(g.spec));
  c.id = path;
  return c;
}

ModelChoice load_config(const std::string& path, std::string_view where) {
  if (is_gguf_path(path)) {
    if (std::optional<ModelChoice> c = from_gguf_name(path, where)) {
      return *c;
    }
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

void apply_reupload_name(ModelChoice& c, const ReuploadName& name) {
  // A quantized re-upload: the base architecture, the weights its name states.
  if (!name.weight_dtype.empty()) {
    auto quantized = std::make_shared<ModelSpec>(*c.spec);
    quantized->checkpoint_weight_dtype = name.weight_dtype;
    quantized->quant_method = name.method;
    quantized->skip_list_unread = name.skip_list_unread;
    quantized->expert_weight_dtype.clear();
    quantized->attention_weight_dtype.clear();
    c.spec = std::move(quantized);
  }
  c.source += name.weight_dtype.empty()
                  ? fmt::format(", {}: {}", quote_input(name.suffix), name.note)
                  : fmt::format(", weights {} from the name's {} suffix", name.note, quote_input(name.suffix));
}

ModelChoice load_preset(std::string_view name) {
  if (is_gguf_path(name)) {
    if (std::optional<ModelChoice> c = from_gguf_name(std::string(name), "--model")) {
      return *c;
    }
    return load_gguf(std::string(name), "--model");  // --model PATH.gguf
  }
  std::error_code ec;
  if (fs::is_directory(std::string(name), ec) && fs::exists(fs::path(std::string(name)) / "config.json", ec)) {
    return load_config(std::string(name), "--model");  // --model DIR: a checkpoint folder
  }
  // The machine's own model stores come before the built-in catalog.
  if (std::optional<ModelChoice> c = from_hf_cache(name, "--model")) {
    return *c;
  }
  if (std::optional<ModelChoice> c = from_ollama(name, "--model")) {
    return *c;
  }
  if (std::optional<ModelChoice> c = from_ollama_library(name, "--model")) {
    return *c;
  }
  const std::optional<PresetMatch> match = resolve_preset(name);
  const Preset& p = match ? *match->preset : find_preset(name);  // find_preset throws with "did you mean"
  ModelChoice c;
  c.spec = std::shared_ptr<const ModelSpec>(std::shared_ptr<const Preset>(), &p.spec);  // presets live for the program
  c.preset = &p;
  c.source = fmt::format("{} ({})", p.hf_id, p.path);
  if (match && !match->suffix.empty()) {
    apply_reupload_name(c, *match);
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
  if (is_gguf_path(name)) {
    if (std::optional<ModelChoice> c = from_gguf_name(name, where)) {
      return *c;
    }
    return load_gguf(name, where);
  }
  if (std::optional<ModelChoice> c = from_hf_cache(name, where)) {
    return *c;
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

Hardware hardware_of(const GpuSpec& gpu, std::optional<std::uint32_t> count) {
  Hardware h;
  h.gpu = &gpu;
  h.vram_bytes = gpu.memory_bytes;
  h.count = count;
  h.label = count.value_or(1) > 1 ? fmt::format("{}x{}", gpu.name, *count) : std::string(gpu.name);
  h.detail = fmt::format("{}: {} B as CUDA reports it (sold as {})", gpu.name, with_commas(gpu.memory_bytes),
                         gpu.marketed);
  return h;
}

Hardware hardware_from_gpu(std::string_view text) {
  const GpuChoice g = parse_gpu(text);
  Hardware h = hardware_of(*g.gpu, g.count_given ? std::optional<std::uint32_t>(g.count) : std::nullopt);
  h.label = g.count > 1 ? fmt::format("{}x{}", g.gpu->name, g.count) : std::string(g.gpu->name);
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
      // A whole GPU sold by a plain size ("80 GB"): not a MIG slice, a GCD's share ("64 GB per GCD") or a
      // Mac's unified memory ("16 GB unified"), which is the machine's, not a GPU's.
      const bool plain = g.slice_of.empty() && g.marketed.find(' ') == g.marketed.rfind(' ');
      if (plain && parse_size("", g.marketed).bytes == size.bytes) {
        h.detail += fmt::format("; a GPU sold as \"{}\" ({}) exposes {}: try --gpu {}", g.marketed, g.name,
                                format_bytes(g.memory_bytes), g.name);
        break;
      }
    }
  }
  return h;
}

}  // namespace kvplan
