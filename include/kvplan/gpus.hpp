// kvplan/gpus.hpp: the GPU catalog: the memory each device reports to CUDA/HIP (what engines
// budget from), its marketed size and its memory bandwidth. Sources: docs/gpus.md.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "kvplan/hardware.hpp"

namespace kvplan {

struct GpuSpec {
  std::string_view name;             // canonical: "H100-SXM"
  std::string_view aliases;          // space-separated extra names: "h100 h100-80gb"
  std::uint64_t memory_bytes = 0;    // total as cudaMemGetInfo / torch total_memory reports it
  std::string_view marketed;         // "80 GB"
  std::uint32_t bandwidth_gb_s = 0;  // peak memory bandwidth, GB/s (0 = not recorded)
  std::string_view source;           // short citation; the full one is in docs/gpus.md
  std::string_view slice_of;         // a MIG instance: the GPU it is cut from (empty: a whole GPU)
  GpuArch arch;                      // the architecture: compute capability, bf16 and FP8 arithmetic
};

std::span<const GpuSpec> gpu_catalog() noexcept;

struct GpuChoice {
  const GpuSpec* gpu = nullptr;
  std::uint32_t count = 1;
  bool count_given = false;  // the text named a count ("H100x1" too)
};

/// "H100", "h100-sxm", "H200x8", "8xH200", "4 x A100-80GB", "H100:8", "RTX 4090": throws
/// kvplan::Error with "did you mean", drawn from GPUs of the same vendor and class as the text.
GpuChoice parse_gpu(std::string_view text);

}  // namespace kvplan

namespace kvplan {

/// A GPU named by a Kubernetes node label or a cloud instance type (docs/ci.md lists the keys and
/// docs/gpus.md the sources of every value).
struct GpuLabel {
  const GpuSpec* gpu = nullptr;
  std::uint32_t per_node = 0;        // GPUs per node, where an instance type says it (0: unknown)
};

/// The GPU of a node label: nvidia.com/gpu.product (GPU Feature Discovery: the name nvidia-smi
/// prints, spaces as dashes), cloud.google.com/gke-accelerator, karpenter.k8s.aws/instance-gpu-name,
/// node.kubernetes.io/instance-type (and its beta. form). nullopt when `key` is not one of them;
/// kvplan::Error naming the key when the value is none kvplan knows.
std::optional<GpuLabel> gpu_from_label(std::string_view key, std::string_view value);

/// Karpenter's pair of labels: karpenter.k8s.aws/instance-gpu-name with instance-gpu-memory (MiB per
/// GPU), which tells an A100 40 GB from an 80 GB one; nullptr when no catalog GPU has both.
const GpuSpec* gpu_from_karpenter(std::string_view name, std::uint32_t mib);

/// A SkyPilot accelerator name ("H100", "A100-80GB", "L4"; SkyPilot's "A100" is the 40 GB part).
const GpuSpec* gpu_from_skypilot(std::string_view name);

/// The GPU a driver reports by name (nvidia-smi --query-gpu=name, torch.cuda.get_device_name):
/// "NVIDIA H100 80GB HBM3", "Tesla T4"; nullptr when unknown.
const GpuSpec* gpu_from_reported_name(std::string_view name);

}  // namespace kvplan
