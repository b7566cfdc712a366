// Budget arithmetic and the runtime-reserve estimate (docs/budget.md).
#include "kvplan/budget.hpp"

#include <algorithm>

#include "kvplan/units.hpp"

namespace kvplan {

std::uint64_t Reserve::total() const noexcept {
  return sat_add(sat_add(activations_bytes, cuda_graphs_bytes), framework_bytes);
}

bool large_batch_gpu(std::uint64_t gpu_memory_bytes, std::string_view gpu_name) noexcept {
  constexpr std::uint64_t kLargeGpu = 70ULL << 30;  // get_batch_defaults' 70 GiB line
  // torch reports "NVIDIA A100-SXM4-80GB" or "NVIDIA A100 80GB PCIe"; vLLM lowercases it.
  const bool a100 = gpu_name.size() >= 4 && (gpu_name.substr(0, 4) == "A100" || gpu_name.substr(0, 4) == "a100");
  return gpu_memory_bytes >= kLargeGpu && !a100;
}

ProfileShape default_profile_shape(std::uint64_t gpu_memory_bytes, std::string_view gpu_name) noexcept {
  return large_batch_gpu(gpu_memory_bytes, gpu_name) ? ProfileShape{8192, 1024} : ProfileShape{2048, 256};
}

bool nvlink_sharp(std::string_view gpu_name) noexcept {
  // NVIDIA parts without it: Ampere and older, Ada, Blackwell workstation cards, PCIe and NVL Hopper.
  constexpr std::string_view kWithout[] = {"A100", "A40", "A10", "L40", "L4", "T4", "V100", "RTX", "H100-PCIe", "H100-NVL"};
  for (const std::string_view prefix : kWithout) {
    if (gpu_name.substr(0, prefix.size()) == prefix) {
      return false;
    }
  }
  return true;
}

Reserve estimate_reserve(std::uint64_t vocab_size, std::uint32_t tp, const ProfileShape& shape,
                         std::string_view gpu_name, const ReserveModel& model) noexcept {
  // activations = 0.435 GiB + 13,300 B x vocab_size at 8,192 tokens x 1,024 rows: least-squares fit
  // of vLLM 0.19's "torch peak increase" on 15 H100 runs (vocab 32K..262K); the sampler's fp32
  // logits over max_num_seqs rows dominate it, so it scales with the vocabulary and the rows.
  Reserve r;
  const std::uint64_t rows = std::min(shape.rows, shape.batched_tokens);
  r.activations_bytes = sat_add(mul_frac(model.activation_base_bytes, shape.batched_tokens, 8192),
                                mul_frac(sat_mul(vocab_size, model.activation_per_vocab_bytes), rows, 1024));
  r.cuda_graphs_bytes = model.cuda_graphs_bytes;
  r.framework_bytes = tp == 1                  ? model.framework_tp1_bytes
                      : nvlink_sharp(gpu_name) ? model.framework_multi_gpu_bytes
                                               : model.framework_multi_gpu_plain_bytes;
  return r;
}

Budget make_budget(std::uint64_t vram_bytes, std::uint32_t utilization_ppm, std::uint64_t weights_bytes,
                   std::uint64_t reserved_bytes) noexcept {
  Budget b;
  b.vram_bytes = vram_bytes;
  b.utilization_ppm = utilization_ppm;
  b.usable_bytes = mul_frac(vram_bytes, utilization_ppm, 1'000'000);
  b.weights_bytes = weights_bytes;
  b.reserved_bytes = reserved_bytes;
  const std::uint64_t needed = sat_add(weights_bytes, reserved_bytes);
  b.kv_budget_bytes = sat_sub(b.usable_bytes, needed);
  b.deficit_bytes = sat_sub(needed, b.usable_bytes);
  return b;
}

}  // namespace kvplan
