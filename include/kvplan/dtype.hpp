// kvplan/dtype.hpp: storage formats for KV-cache and weight elements, as exact block sizes.
// Every format is "block_bytes per block_elems elements, plus row_scale_bytes per row", so
// fp16 is 2 B per 1, q8_0 is 34 B per 32, and vLLM's int8 KV is 1 B per element plus one
// fp32 scale per (token, head) row. Sources for every row are in docs/formulas.md.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace kvplan {

struct DType {
  std::string_view name;         // the spelling users type: "bf16", "fp8", "q8_0"
  std::uint32_t block_elems = 1;  // elements that share one block
  std::uint32_t block_bytes = 2;  // bytes of one block, scales included
  std::uint32_t row_scale_bytes = 0;  // extra bytes per row (one head's K or V for one token)
  std::string_view note;         // what the format is and where the numbers come from

  bool operator==(const DType& other) const noexcept { return name == other.name; }
};

/// KV-cache formats: fp32 fp16 bf16 fp8 fp8_e4m3 fp8_e5m2 int8 int4 q8_0 q4_0 q4_1 q5_0 q5_1 iq4_nl.
std::span<const DType> kv_dtypes() noexcept;
/// Weight formats: fp32 bf16 fp16 fp8 int8 int4 mxfp4.
std::span<const DType> weight_dtypes() noexcept;

/// Looks a name up in `table`; nullptr when absent. Accepts a few aliases (float16, half, ...).
const DType* find_dtype(std::span<const DType> table, std::string_view name) noexcept;

/// Bytes of one row of `elems` elements: ceil(elems / block_elems) * block_bytes + row_scale_bytes.
/// Example: q8_0, 128 elements -> 4 blocks * 34 B = 136 B.
std::uint64_t row_bytes(const DType& t, std::uint64_t elems) noexcept;

/// Bytes of `elems` elements stored as one flat tensor (weights): ceil(elems * block_bytes / block_elems).
std::uint64_t tensor_bytes(const DType& t, std::uint64_t elems) noexcept;

}  // namespace kvplan
