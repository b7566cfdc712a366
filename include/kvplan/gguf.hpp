// kvplan/gguf.hpp: llama.cpp's GGUF model files, read from their header only: the metadata
// key/values and the tensor table, never the tensor data. The hyper-parameter keys
// ("llama.block_count", "<arch>.attention.head_count_kv") are renamed to config.json's and go
// through the same architecture rules (kvplan/arch.hpp); the weights are the exact sum of the
// tensors' bytes in their ggml types.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kvplan/model.hpp"

namespace kvplan {

/// One ggml tensor type: elements per block and bytes per block (ggml/src/ggml.c type_traits,
/// the block structs and static_asserts of ggml/src/ggml-common.h).
struct GgmlType {
  std::uint32_t id = 0;
  std::string_view name;
  std::uint32_t block_elements = 1;
  std::uint32_t block_bytes = 0;
};

/// The ggml type of an id, or nullptr for an id kvplan does not know.
const GgmlType* ggml_type(std::uint32_t id) noexcept;

/// Bytes of `elements` elements of `type` (whole blocks), or nullopt when `elements` is not a
/// whole number of blocks.
std::optional<std::uint64_t> ggml_tensor_bytes(const GgmlType& type, std::uint64_t elements) noexcept;

struct GgufModel {
  ModelSpec spec;
  std::string architecture;                        // general.architecture
  std::uint64_t tensors = 0;                       // across every shard
  std::uint64_t tensor_bytes = 0;                  // the weights, exact
  std::uint32_t shards = 1;
  std::map<std::string, std::uint64_t> bytes_by_type;  // "Q4_K" -> bytes
  std::vector<std::pair<std::string, std::string>> metadata;  // key, brief value (tokenizer arrays by size)
};

/// Reads a .gguf file (the first shard of a split model finds the others beside it). `where`
/// prefixes errors ("--model"). Throws kvplan::Error for what it cannot read or size.
GgufModel read_gguf(const std::string& path, std::string_view where);

/// Reads GGUF bytes already in memory (the fuzz target; no shards). `origin` names them.
GgufModel read_gguf_bytes(std::string_view bytes, std::string_view origin);

/// Whether a path names a GGUF file by its extension.
bool is_gguf_path(std::string_view path) noexcept;

/// A llama.cpp file type as GGUF file names carry it (llama-quantize's type names: Q4_K_M,
/// IQ4_XS, Q8_0, BF16 ...), with its bits per weight: stated in llama-quantize's table, or derived
/// from the size it states for its reference model. For a file that is not on this machine.
struct GgufFileType {
  std::string name;                  // as llama-quantize spells it: "Q4_K_M"
  std::uint32_t millibits = 0;       // bits per weight × 1000
  std::string basis;                 // "4.58 GiB for Llama-3-8B (8.03B parameters)"
};

/// A llama.cpp file type by its name as llama-quantize or an Ollama tag spells it ("Q4_K_M",
/// "q8_0", "fp16"), case-insensitive; nullopt for a name that is none.
std::optional<GgufFileType> gguf_file_type(std::string_view name);

/// The file type a GGUF file name ends with ("gemma-3-27b-it-Q4_K_M.gguf", "llama-2-7b.Q5_K_S.gguf",
/// "...-UD-Q4_K_XL-00001-of-00002.gguf"), and the model name before it; nullopt when it names none.
std::optional<std::pair<std::string, GgufFileType>> gguf_name_type(std::string_view file_name);

}  // namespace kvplan
