// safetensors headers (huggingface/safetensors, docs "Format" and safetensors/src/tensor.rs):
// 8 bytes of little-endian u64 N, then N bytes of JSON {"__metadata__": {...}, "NAME": {"dtype",
// "shape", "data_offsets": [BEGIN, END]}, ...}; END - BEGIN is the tensor's size in bytes. kvplan
// reads only those 8 + N bytes of each file.
#include "kvplan/safetensors.hpp"

#include <algorithm>
#include <array>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <vector>

#include "json_fields.hpp"
#include "kvplan/error.hpp"
#include "kvplan/files.hpp"
#include "kvplan/quantity.hpp"
#include "kvplan/text.hpp"

namespace kvplan {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// safetensors/src/tensor.rs: MAX_HEADER_SIZE is 100,000,000 bytes.
constexpr std::uint64_t kMaxHeaderBytes = 100'000'000;
constexpr std::size_t kMaxShards = 1024;

struct Dtype {
  std::string_view name;
  std::uint32_t bits;
};

// safetensors/src/tensor.rs, enum Dtype and Dtype::bitsize.
constexpr std::array kDtypes{
    Dtype{"BOOL", 8},    Dtype{"F4", 4},      Dtype{"F6_E2M3", 6}, Dtype{"F6_E3M2", 6}, Dtype{"U8", 8},
    Dtype{"I8", 8},      Dtype{"F8_E5M2", 8}, Dtype{"F8_E4M3", 8}, Dtype{"F8_E8M0", 8}, Dtype{"I16", 16},
    Dtype{"U16", 16},    Dtype{"F16", 16},    Dtype{"BF16", 16},   Dtype{"I32", 32},    Dtype{"U32", 32},
    Dtype{"F32", 32},    Dtype{"C64", 64},    Dtype{"F64", 64},    Dtype{"I64", 64},    Dtype{"U64", 64},
};

// Which part of the model a tensor belongs to, by the names transformers gives them.
std::string part_of(std::string_view name) {
  auto has = [&](std::string_view s) { return name.find(s) != std::string_view::npos; };
  if (has("vision_tower") || has("visual.") || has("vision_model") || has("multi_modal_projector") ||
      has("mm_projector") || has("vision_embed") || has("image_newline")) {
    return "vision";
  }
  if (has("audio_tower") || has("audio_model") || has("whisper_encoder")) {
    return "audio";
  }
  if (has("embed_tokens") || has("wte.") || has("word_embeddings") || has("tok_embeddings") || has("embeddings.")) {
    return "embeddings";
  }
  if (name.rfind("lm_head", 0) == 0 || has(".lm_head") || name == "output.weight") {
    return "lm_head";
  }
  if (has(".experts.") || has("block_sparse_moe.experts")) {
    return "experts";
  }
  return "layers";
}

std::uint64_t header_length(std::string_view bytes, std::string_view name) {
  if (bytes.size() < 8) {
    throw Error(fmt::format("{}: not a safetensors file: {} bytes, less than the 8-byte header length", name,
                            bytes.size()));
  }
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) {
    n = (n << 8) | static_cast<unsigned char>(bytes[static_cast<std::size_t>(i)]);
  }
  if (n > kMaxHeaderBytes) {
    throw Error(fmt::format("{}: byte 0: a header of {} bytes; safetensors allows at most {} (MAX_HEADER_SIZE)", name,
                            with_commas(n), with_commas(kMaxHeaderBytes)));
  }
  if (n < 2) {
    throw Error(fmt::format("{}: byte 0: a header of {} bytes cannot hold a JSON object", name, n));
  }
  return n;
}

std::string read_prefix(const fs::path& path, std::string_view where) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) {
    throw Error(fmt::format("{}: {} is not a regular file", where, quote_input(path.string())));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw Error(fmt::format("{}: cannot read {}", where, quote_input(path.string())));
  }
  std::string head(8, '\0');
  in.read(head.data(), 8);
  head.resize(static_cast<std::size_t>(in.gcount()));
  const std::uint64_t n = header_length(head, path.string());
  std::string text(static_cast<std::size_t>(n), '\0');
  in.read(text.data(), static_cast<std::streamsize>(n));
  if (static_cast<std::uint64_t>(in.gcount()) != n) {
    throw Error(fmt::format("{}: byte 8: the header is {} bytes but the file ends after {}", path.string(),
                            with_commas(n), with_commas(static_cast<std::uint64_t>(in.gcount()))));
  }
  return head + text;
}

std::uint64_t whole(const json& v, const std::string& where) {
  if (!v.is_number_unsigned()) {
    throw Error(fmt::format("{}: expected a non-negative integer, not {}", where, brief(v)));
  }
  return v.get<std::uint64_t>();
}

}  // namespace

void read_safetensors_header(std::string_view bytes, std::string_view name, SafetensorsWeights& into) {
  const std::uint64_t n = header_length(bytes, name);
  if (bytes.size() - 8 < n) {
    throw Error(fmt::format("{}: byte 8: the header is {} bytes but only {} follow", name, with_commas(n),
                            with_commas(bytes.size() - 8)));
  }
  const std::string text(bytes.substr(8, static_cast<std::size_t>(n)));
  if (json_depth(text) > kMaxJsonDepth) {
    throw Error(fmt::format("{}: the header's JSON is nested deeper than {} levels", name, kMaxJsonDepth));
  }
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {
    throw Error(fmt::format("{}: the header is not valid JSON: {}", name, json_error_text(e)));
  }
  if (!j.is_object()) {
    throw Error(fmt::format("{}: byte 8: the header is not a JSON object", name));
  }
  ++into.files;
  for (const auto& [key, t] : j.items()) {
    if (key == "__metadata__") {
      continue;
    }
    const std::string where = fmt::format("{}: tensor {}", name, quote_input(key));
    if (!t.is_object() || !t.contains("dtype") || !t.contains("shape") || !t.contains("data_offsets")) {
      throw Error(fmt::format("{}: needs dtype, shape and data_offsets", where));
    }
    const json& dt = t["dtype"];
    const auto* d = dt.is_string() ? std::find_if(kDtypes.begin(), kDtypes.end(),
                                                  [&](const Dtype& x) { return x.name == dt.get<std::string>(); })
                                   : kDtypes.end();
    if (d == kDtypes.end()) {
      throw Error(fmt::format("{}: dtype {} is none safetensors defines (BF16, F16, F32, F8_E4M3, I32, ...)", where,
                              brief(dt)));
    }
    const json& shape = t["shape"];
    const json& offsets = t["data_offsets"];
    if (!shape.is_array() || shape.size() > 16 || !offsets.is_array() || offsets.size() != 2) {
      throw Error(fmt::format("{}: shape must be a list of up to 16 sizes and data_offsets [BEGIN, END]", where));
    }
    std::uint64_t elements = 1;
    for (const json& s : shape) {
      const std::uint64_t dim = whole(s, where + " shape");
      if (dim != 0 && elements > (std::uint64_t{1} << 50) / dim) {
        throw Error(fmt::format("{}: more than 2^50 elements", where));
      }
      elements *= dim;
    }
    const std::uint64_t begin = whole(offsets[0], where + " data_offsets");
    const std::uint64_t end = whole(offsets[1], where + " data_offsets");
    if (end < begin) {
      throw Error(fmt::format("{}: data_offsets [{}, {}] end before they begin", where, begin, end));
    }
    // Sub-byte types pack their elements (F4: two per byte); the range must hold exactly the shape.
    const std::uint64_t expect = (elements * d->bits + 7) / 8;
    if (end - begin != expect) {
      throw Error(fmt::format("{}: data_offsets hold {} bytes, but {} {} elements are {}", where,
                              with_commas(end - begin), with_commas(elements), d->name, with_commas(expect)));
    }
    into.bytes += end - begin;
    into.bytes_by_dtype[std::string(d->name)] += end - begin;
    into.bytes_by_part[part_of(key)] += end - begin;
    ++into.tensors;
  }
}

std::optional<SafetensorsWeights> read_safetensors_folder(const std::string& folder, std::string_view where) {
  std::error_code ec;
  const fs::path dir(folder);
  if (!fs::is_directory(dir, ec)) {
    return std::nullopt;
  }
  SafetensorsWeights w;
  const fs::path index = dir / "model.safetensors.index.json";
  std::vector<fs::path> files;
  std::optional<std::size_t> listed;  // tensors the index names
  if (fs::exists(index, ec)) {
    const std::string text = read_bounded_file(index.string(), kMaxConfigBytes, "safetensors index");
    if (json_depth(text) > kMaxJsonDepth) {
      throw Error(fmt::format("{}: nested deeper than {} levels", index.string(), kMaxJsonDepth));
    }
    json j;
    try {
      j = json::parse(text);
    } catch (const json::exception& e) {
      throw Error(fmt::format("{}: not valid JSON: {}", index.string(), json_error_text(e)));
    }
    if (!j.is_object() || !j.contains("weight_map") || !j["weight_map"].is_object()) {
      throw Error(fmt::format("{}: no weight_map", index.string()));
    }
    if (j.contains("metadata") && j["metadata"].is_object() && j["metadata"].contains("total_size")) {
      w.index_total = whole(j["metadata"]["total_size"], index.string() + ": metadata.total_size");
    }
    std::set<std::string> shards;
    listed = j["weight_map"].size();
    for (const auto& [tensor, file] : j["weight_map"].items()) {
      if (!file.is_string() || file.get<std::string>().find('/') != std::string::npos ||
          file.get<std::string>().find("..") != std::string::npos) {
        throw Error(fmt::format("{}: weight_map[{}] must name a file in the folder", index.string(), quote_input(tensor)));
      }
      shards.insert(file.get<std::string>());
    }
    if (shards.size() > kMaxShards) {
      throw Error(fmt::format("{}: {} shards; kvplan reads at most {}", index.string(), shards.size(), kMaxShards));
    }
    for (const std::string& s : shards) {
      if (!fs::exists(dir / s, ec)) {
        throw Error(fmt::format("{}: the index names {}, which is not in the folder", index.string(), quote_input(s)));
      }
      files.push_back(dir / s);
    }
  } else {
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
      if (entry.path().extension() == ".safetensors") {
        files.push_back(entry.path());
        if (files.size() > kMaxShards) {
          throw Error(fmt::format("{}: more than {} safetensors files", folder, kMaxShards));
        }
      }
    }
    std::sort(files.begin(), files.end());
  }
  if (files.empty()) {
    return std::nullopt;
  }
  for (const fs::path& f : files) {
    read_safetensors_header(read_prefix(f, where), f.string(), w);
  }
  if (listed && *listed != w.tensors) {
    throw Error(fmt::format("{}: the weight_map names {} tensors but the shards' headers hold {}", index.string(),
                            with_commas(*listed), with_commas(w.tensors)));
  }
  if (w.index_total && *w.index_total != w.bytes) {
    throw Error(fmt::format("{}: metadata.total_size is {} but the shards' headers hold {} bytes of tensors",
                            index.string(), with_commas(*w.index_total), with_commas(w.bytes)));
  }
  return w;
}

}  // namespace kvplan
