// kvplan/budget.hpp: the memory budget of one GPU: VRAM x utilization - weights - runtime reserve.
// The reserve is an engine-neutral estimate fitted on real vLLM 0.19 logs (docs/budget.md has
// the fit, its data and its error); `--reserve` replaces it.
#pragma once

#include <cstdint>
#include <string_view>

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
  std::uint64_t framework_multi_gpu_bytes = 2120ULL * 1024 * 1024;  // with NCCL at tp > 1, 2.07 GiB (H100 SXM)
  /// NCCL at tp > 1 on NVIDIA GPUs without NVLink SHARP: 0.30 GiB (vLLM V0 0.7.1 on 2 L40S, issue #15815;
  /// 2 A100 80GB at vLLM 0.10.1.1 leave 0.1 to 0.4 GiB beside the activations, dennislee22/vLLM-benchmarking).
  std::uint64_t framework_multi_gpu_plain_bytes = 307ULL * 1024 * 1024;
};

/// The profiling run's shape: tokens in its one batch and rows the sampler scores. The activation fit
/// was measured at 8,192 × 1,024, vLLM's API-server defaults on GPUs of 70 GiB or more; below 70 GiB
/// they are 2,048 × 256 (vllm/engine/arg_utils.py get_batch_defaults).
struct ProfileShape {
  std::uint64_t batched_tokens = 8192;
  std::uint64_t rows = 1024;
};
/// The shape an engine-neutral plan assumes on a GPU of `gpu_memory_bytes` named `gpu_name` (the
/// catalog's name, or empty): the engines' defaults follow the GPU's class, and so does the reserve.
ProfileShape default_profile_shape(std::uint64_t gpu_memory_bytes, std::string_view gpu_name) noexcept;

/// vLLM's larger batch defaults (get_batch_defaults): GPUs of 70 GiB or more whose device name does
/// not contain "a100" (PR #17885: large batches cost the A100 throughput).
bool large_batch_gpu(std::uint64_t gpu_memory_bytes, std::string_view gpu_name) noexcept;

/// Whether NCCL can use NVLink SHARP (NVLS) on this GPU: Hopper and later parts on third-generation
/// NVSwitch (HGX H100/H200/H800/H20, B200/B300, GB200; NCCL_NVLS_ENABLE in NCCL's environment
/// variables). Its buffers are most of the 2.07 GiB kvplan measured at tp 2 on H100 SXM; PCIe parts,
/// NVLink bridges (H100 NVL) and Ampere do without. An unnamed GPU (--vram) and AMD's keep the H100 figure.
bool nvlink_sharp(std::string_view gpu_name) noexcept;

/// The runtime reserve. Activations scale with the shape as the fit's causes do: the forward's
/// intercept with the batched tokens, the sampler's logits with the rows; NCCL's share at tp > 1
/// with whether the GPU has NVLink SHARP (`gpu_name`, the catalog's name, or empty).
Reserve estimate_reserve(std::uint64_t vocab_size, std::uint32_t tp, const ProfileShape& shape = {},
                         std::string_view gpu_name = {}, const ReserveModel& model = {}) noexcept;

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
