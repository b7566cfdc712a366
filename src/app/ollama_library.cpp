// Ollama's public library by tag (`--model llama3.1:8b` where no local Ollama store holds it): the
// preset of the tag's base model and the GGUF Ollama publishes for it. The default tags' model
// files are the registry manifests' model layers (application/vnd.ollama.image.model), whose size
// is the whole GGUF: tensor data plus a few MiB of metadata. docs/model-files.md ("Ollama's library, not
// pulled here") cites every row; the manifests are the registry's as josh/ollama-models-nix mirrors them at
// b9624670 (2025-08-05), and the type of a default tag is the one its page or `ollama show` states,
// or, where marked, the one its bits per weight match (Q4_0 about 4.5-4.65, Q4_K_M 4.8-5.1).
#include "ollama_library.hpp"

#include <array>
#include <fmt/format.h>

#include "kvplan/error.hpp"
#include "kvplan/gguf.hpp"
#include "kvplan/model_source.hpp"
#include "kvplan/quantity.hpp"
#include "kvplan/text.hpp"

namespace kvplan {
namespace {

struct LibraryTag {
  std::string_view name;    // the library's model name: "llama3.1"
  std::string_view size;    // its size tag: "8b"
  bool latest;              // what `name:latest` (and `name` alone, in Ollama) is
  std::string_view preset;  // kvplan's preset of the base model's architecture
  std::string_view type;    // the default tag's llama.cpp file type
  std::uint64_t bytes;      // the default tag's model layer, bytes
  bool type_stated;         // the type is stated by a page or `ollama show` (else inferred from the size)
};

constexpr std::array kTags{
    LibraryTag{"llama3.1", "8b", true, "llama-3.1-8b", "Q4_K_M", 4'920'738'944, true},
    LibraryTag{"llama3.1", "70b", false, "llama-3.1-70b", "Q4_K_M", 42'520'398'176, false},
    LibraryTag{"llama3.1", "405b", false, "llama-3.1-405b", "Q4_K_M", 243'069'610'720, false},
    LibraryTag{"llama3.2", "3b", true, "llama-3.2-3b", "Q4_K_M", 2'019'377'376, false},
    LibraryTag{"llama3.2", "1b", false, "llama-3.2-1b", "Q8_0", 1'321'082'688, true},
    LibraryTag{"llama3.3", "70b", true, "llama-3.3-70b", "Q4_K_M", 42'520'398'528, true},
    LibraryTag{"llama3", "8b", true, "llama-3-8b", "Q4_0", 4'661'211'424, true},
    LibraryTag{"llama3", "70b", false, "llama-3-70b", "Q4_0", 39'969'732'096, false},
    LibraryTag{"llama2", "7b", true, "llama-2-7b", "Q4_0", 3'826'781'184, true},
    LibraryTag{"llama2", "13b", false, "llama-2-13b", "Q4_0", 7'366'808'800, true},
    LibraryTag{"llama2", "70b", false, "llama-2-70b", "Q4_0", 38'873'223'392, false},
    LibraryTag{"qwen2.5", "0.5b", false, "qwen2.5-0.5b", "Q4_K_M", 397'807'936, true},
    LibraryTag{"qwen2.5", "3b", false, "qwen2.5-3b", "Q4_K_M", 1'929'903'008, true},
    LibraryTag{"qwen2.5", "7b", true, "qwen2.5-7b", "Q4_K_M", 4'683'073'952, true},
    LibraryTag{"qwen2.5", "14b", false, "qwen2.5-14b", "Q4_K_M", 8'988'110'688, false},
    LibraryTag{"qwen2.5", "32b", false, "qwen2.5-32b", "Q4_K_M", 19'851'336'288, false},
    LibraryTag{"qwen2.5", "72b", false, "qwen2.5-72b", "Q4_K_M", 47'415'715'200, false},
    LibraryTag{"qwen3", "8b", true, "qwen3-8b", "Q4_K_M", 5'225'374'496, false},
    LibraryTag{"qwen3", "14b", false, "qwen3-14b", "Q4_K_M", 9'276'184'896, false},
    LibraryTag{"qwen3", "32b", false, "qwen3-32b", "Q4_K_M", 20'201'240'160, false},
    LibraryTag{"gemma2", "9b", true, "gemma-2-9b", "Q4_0", 5'443'143'296, false},
    LibraryTag{"gemma2", "27b", false, "gemma-2-27b", "Q4_0", 15'628'378'336, true},
    LibraryTag{"gemma3", "4b", true, "gemma-3-4b", "Q4_K_M", 3'338'792'448, false},
    LibraryTag{"gemma3", "12b", false, "gemma-3-12b", "Q4_K_M", 8'149'180'896, false},
    LibraryTag{"gemma3", "27b", false, "gemma-3-27b", "Q4_K_M", 17'396'927'584, false},
    LibraryTag{"mistral", "7b", true, "mistral-7b-v0.3", "Q4_K_M", 4'372'811'712, true},
    LibraryTag{"mixtral", "8x7b", true, "mixtral-8x7b", "Q4_0", 26'443'590'560, false},
    LibraryTag{"mixtral", "8x22b", false, "mixtral-8x22b", "Q4_0", 79'521'266'688, false},
    LibraryTag{"phi3", "3.8b", true, "phi-3-mini", "Q4_0", 2'176'177'120, false},
    LibraryTag{"phi3", "mini", false, "phi-3-mini", "Q4_0", 2'176'177'120, false},
    LibraryTag{"phi3", "14b", false, "phi-3-medium", "Q4_0", 7'897'125'664, false},
    LibraryTag{"phi3", "medium", false, "phi-3-medium", "Q4_0", 7'897'125'664, false},
    LibraryTag{"phi4", "14b", true, "phi-4", "Q4_K_M", 9'053'114'464, false},
    LibraryTag{"deepseek-r1", "32b", false, "deepseek-r1-distill-qwen-32b", "Q4_K_M", 19'851'335'552, false},
    LibraryTag{"deepseek-r1", "671b", false, "deepseek-r1-0528", "Q4_K_M", 404'430'186'848, false},
    LibraryTag{"gpt-oss", "20b", true, "gpt-oss-20b", "MXFP4", 13'780'154'624, true},
    LibraryTag{"gpt-oss", "120b", false, "gpt-oss-120b", "MXFP4", 65'290'172'992, true},
    LibraryTag{"mistral-nemo", "12b", true, "mistral-nemo", "Q4_0", 7'071'700'672, false},
};

}  // namespace

std::optional<ModelChoice> from_ollama_library(std::string_view name, std::string_view where) {
  const std::size_t colon = name.find(':');
  if (colon == std::string_view::npos || colon == 0 || name.find('/') != std::string_view::npos) {
    return std::nullopt;
  }
  const std::string model = to_lower(name.substr(0, colon));
  const std::string tag = to_lower(name.substr(colon + 1));
  bool known_model = false;
  for (const LibraryTag& t : kTags) {
    known_model = known_model || t.name == model;
  }
  if (!known_model) {
    return std::nullopt;
  }
  // "latest", "8b", or "8b-instruct-q8_0": the size first, then variants, the file type last.
  const std::string size = tag.substr(0, tag.find('-'));
  const LibraryTag* row = nullptr;
  for (const LibraryTag& t : kTags) {
    if (t.name == model && (tag == "latest" ? t.latest : t.size == size)) {
      row = &t;
    }
  }
  std::vector<std::string> tags;
  for (const LibraryTag& t : kTags) {
    if (t.name == model) {
      tags.push_back(fmt::format("{}:{}", t.name, t.size));
    }
  }
  if (row == nullptr) {
    throw Error(fmt::format("{}: {} is not a tag kvplan knows of Ollama's {} (it knows {}); with the model pulled "
                            "('ollama pull {}') kvplan reads it from the Ollama store, or give --model with the "
                            "architecture and --weight-dtype",
                            where, quote_input(name), model, fmt::join(tags, ", "), std::string(name)));
  }
  std::optional<GgufFileType> type;
  if (const std::size_t dash = tag.rfind('-'); tag != "latest" && dash != std::string::npos) {
    type = gguf_file_type(tag.substr(dash + 1));
  }
  if (!type && tag != "latest" && tag != row->size) {
    throw Error(fmt::format("{}: {} names no file type kvplan knows at its end (q4_0, q4_K_M, q8_0, fp16, ...); "
                            "give the type with --weight-dtype, or pull the model so kvplan reads the Ollama store",
                            where, quote_input(name)));
  }
  ModelChoice base = load_preset(row->preset);
  auto spec = std::make_shared<ModelSpec>(*base.spec);
  spec->params.stated_params = std::max<std::uint64_t>(spec->params.total(), 1);
  spec->weights_note.clear();
  spec->quant_method = "gguf";
  const bool default_type = !type || type->name == row->type;
  spec->weights_label = default_type ? std::string(row->type) : type->name;
  if (default_type) {
    spec->params.stated_bytes = row->bytes;
    spec->weights_source = fmt::format("the registry's model layer for {}:{}, {} B of GGUF {} ({}; docs/models.md)",
                                       row->name, row->size, with_commas(row->bytes), row->type,
                                       row->type_stated ? "the type Ollama states" : "the type its bits per weight match");
  } else {
    const std::uint64_t params = spec->params.stated_params;
    __extension__ using Wide = unsigned __int128;
    spec->params.stated_bytes = static_cast<std::uint64_t>((static_cast<Wide>(params) * type->millibits + 7999) / 8000);
    spec->weights_estimated = true;
    spec->weights_source = fmt::format("estimated from the tag's {}: {}.{:03} bits per weight ({})", type->name,
                                       type->millibits / 1000, type->millibits % 1000, type->basis);
  }
  ModelChoice c;
  c.spec = std::move(spec);
  c.preset = base.preset;
  c.source = fmt::format("Ollama's library {} (not in a local Ollama store): the architecture of {}, {} {}", name,
                         base.source, default_type ? row->type : type->name,
                         default_type ? "as the registry publishes it" : "estimated from the tag");
  c.id = std::string(name);
  return c;
}

}  // namespace kvplan
