// kvplan/budget.hpp: the memory budget of one GPU: VRAM x utilization - weights - runtime reserve.
// The reserve is an engine-neutral estimate fitted on real vLLM 0.19 logs (docs/budget.md has
// the fit, its data and its error); `--reserve` replaces it.
#pragma once

#include <cstdint>

namespace kvplan {

/// Non-KV, non-weight memory of a serving process on one GPU.
struct Reserve {
  std::uint64_t activations_bytes = 0;  // peak of the profiling forward + sampler
  std::uint64_t cuda_graphs_bytes = 0;  // captured decode graphs
  std::uint64_t framework_bytes = 0;    // CUDA context, cuBLAS workspaces, NCCL buffers
  std::uint64_t total() const noexcept;
};

/// Constants of the estimate; docs/budget.md derives each from ../shared/calibration entries.
struct ReserveModel {
  std::uint64_t activation_base_bytes = 445 * 1024 * 1024;   // fit intercept, 0.435 GiB
  std::uint64_t activation_per_vocab_bytes = 13'300;         // fit slope per vocabulary entry
  std::uint64_t cuda_graphs_bytes = 957 * 1024 * 1024;       // median of 16 measurements, 0.935 GiB
  std::uint64_t framework_tp1_bytes = 256 * 1024 * 1024;     // non-torch memory at tp 1, 0.25 GiB
  std::uint64_t framework_multi_gpu_bytes = 2120ULL * 1024 * 1024;  // with NCCL at tp > 1, 2.07 GiB
};

Reserve estimate_reserve(std::uint64_t vocab_size, std::uint32_t tp, const ReserveModel& model = {}) noexcept;

struct Budget {
  std::uint64_t vram_bytes = 0;
  std::uint32_t utilization_ppm = 900'000;  // parts per million of vram_bytes the process may use
  std::uint64_t usable_bytes = 0;           // floor(vram * utilization)
  std::uint64_t weights_bytes = 0;
  std::uint64_t reserved_bytes = 0;
  std::uint64_t kv_budget_bytes = 0;        // usable - weights - reserved, or 0
  std::uint64_t deficit_bytes = 0;          // weights + reserved - usable when that is positive
};

Budget make_budget(std::uint64_t vram_bytes, std::uint32_t utilization_ppm, std::uint64_t weights_bytes,
                   std::uint64_t reserved_bytes) noexcept;

}  // namespace kvplan
