// kvplan/safetensors.hpp: a Hugging Face checkpoint's weights, read from the safetensors headers
// only (the first 8 bytes give the JSON header's length; the tensor data is never read): exact
// bytes per dtype, per component (embeddings, the LM head, experts, vision and audio towers, the
// rest), over every shard a model.safetensors.index.json names.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace kvplan {

struct SafetensorsWeights {
  std::uint32_t files = 0;
  std::uint64_t tensors = 0;
  std::uint64_t bytes = 0;                                 // exact: the sum of the tensors' byte ranges
  std::map<std::string, std::uint64_t> bytes_by_dtype;     // "BF16", "F8_E4M3", "I32" (packed int4) ...
  std::map<std::string, std::uint64_t> bytes_by_part;      // "embeddings", "lm_head", "experts", "vision", "audio", "layers"
  std::optional<std::uint64_t> index_total;                // the index's metadata.total_size, when it has one
};

/// One file's header from its first bytes (at least 8 + the header's length); `name` names it in
/// errors, which give the byte offset or the tensor. Adds to `into`.
void read_safetensors_header(std::string_view bytes, std::string_view name, SafetensorsWeights& into);

/// The checkpoint in `folder`: the shards its model.safetensors.index.json names (all of them must be
/// there, and agree with the index), else every *.safetensors file in it; nullopt when it has none.
/// Reads at most 8 bytes plus the header of each file.
std::optional<SafetensorsWeights> read_safetensors_folder(const std::string& folder, std::string_view where);

}  // namespace kvplan
