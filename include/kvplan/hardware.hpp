// kvplan/hardware.hpp: what a GPU computes natively, from its architecture: which number formats
// its arithmetic units take. The memory a dtype needs is the same everywhere; what the hardware
// lacks it converts (FP8 to 16-bit for attention, bf16 to fp16), or the engine refuses it.
// docs/gpus.md, "Architectures", cites every row of the catalog.
#pragma once

#include <cstdint>
#include <string_view>

namespace kvplan {

enum class GpuVendor : std::uint8_t { unknown, nvidia, amd, apple };

struct GpuArch {
  GpuVendor vendor = GpuVendor::unknown;
  std::uint16_t compute_capability = 0;  // NVIDIA: major × 10 + minor (sm_89 is 89); 0 elsewhere
  std::string_view target;               // what compilers target: "sm_90", "gfx942"; "Apple" for Metal GPUs
  std::string_view family;               // "Hopper", "CDNA 3", "Metal"
  bool bf16 = true;                      // bfloat16 arithmetic: NVIDIA from sm_80, AMD from CDNA 2
  bool fp8 = true;                       // FP8 tensor arithmetic: NVIDIA from sm_89, AMD from CDNA 3
};

// A GPU known only by its memory (--vram): nothing is assumed missing, so nothing is warned about.
inline constexpr GpuArch kUnknownArch{};

}  // namespace kvplan
