// Node labels, instance types and reported names to GPUs of the catalog. Every value was seen in
// the source next to its table (docs/gpus.md, "Names in manifests", lists them with what was left
// out because no source confirmed it).
#include <algorithm>
#include <array>
#include <cctype>
#include <fmt/format.h>
#include <string>
#include <vector>

#include "kvplan/error.hpp"
#include "kvplan/gpus.hpp"
#include "kvplan/text.hpp"

namespace kvplan {
namespace {

struct ReportedName {
  std::string_view name;    // as the driver reports it
  std::string_view gpu;     // catalog name
  std::string_view source;  // a public log that prints it
};

struct NamedGpu {
  std::string_view value;
  std::string_view gpu;
};

struct KarpenterGpu {
  std::string_view name;
  std::uint32_t mib = 0;    // karpenter.k8s.aws/instance-gpu-memory
  std::string_view gpu;
};

struct InstanceType {
  std::string_view name;
  std::string_view gpu;
  std::uint32_t gpus = 0;
  std::string_view source;
};

// Reported names (nvidia-smi --query-gpu=name, torch.cuda.get_device_name, rocminfo's marketing
// name), each printed in the public output at its source.
constexpr ReportedName kReported[] = {
    {"NVIDIA H100 80GB HBM3", "H100-SXM", "https://github.com/wilicc/gpu-burn/issues/114"},
    {"NVIDIA H100 PCIe", "H100-PCIe", "https://github.com/mistralai/mistral-inference/pull/43"},
    {"NVIDIA H100 NVL", "H100-NVL", "https://github.com/NVIDIA/gpu-admin-tools/issues/4"},
    {"NVIDIA H200", "H200", "https://github.com/NVIDIA/mig-parted/issues/120"},
    {"NVIDIA B200", "B200", "https://github.com/NVIDIA/TensorRT-LLM/issues/10278"},
    {"NVIDIA B300 SXM6 AC", "B300", "https://github.com/NVIDIA/cosmos-framework/pull/114"},
    {"NVIDIA GB200", "GB200", "https://github.com/sgl-project/sglang/issues/11208"},
    {"NVIDIA A100-SXM4-80GB", "A100-80GB", "https://github.com/NVIDIA/CUDALibrarySamples/issues/104"},
    {"NVIDIA A100-SXM4-40GB", "A100-40GB", "https://github.com/bottlerocket-os/bottlerocket-core-kit/pull/834"},
    {"NVIDIA L40S", "L40S", "https://github.com/akash-network/provider-configs/pull/99"},
    {"NVIDIA A40", "A40", "https://github.com/NVIDIA/nvidia-docker/issues/1447"},
    {"NVIDIA L4", "L4", "https://github.com/GoogleCloudPlatform/pubsec-declarative-toolkit/issues/655"},
    {"NVIDIA A10G", "A10G", "https://github.com/NVIDIA/k8s-device-plugin/issues/344"},
    {"Tesla T4", "T4", "https://github.com/NVIDIA/k8s-device-plugin/issues/390"},
    {"Tesla V100-SXM2-32GB", "V100-32GB", "https://github.com/NVIDIA/nvidia-docker/issues/1076"},
    {"NVIDIA GeForce RTX 4090", "RTX-4090", "https://github.com/RLinf/RLinf/issues/255"},
    {"NVIDIA GeForce RTX 3090", "RTX-3090", "https://github.com/noonghunna/club-3090/issues/1127"},
    {"NVIDIA GeForce RTX 5090", "RTX-5090", "https://github.com/noonghunna/club-3090/issues/617"},
    {"NVIDIA GH200 480GB", "GH200", "https://github.com/slitvinov/grace/blob/0396ca71e29ae91ad3708c953c25eb0a2eb137a2/README.md"},
    {"NVIDIA GH200 144G HBM3e", "GH200-144GB",
     "https://github.com/Kelvin0110/KernelBench/blob/22774eac2d1d894a35b8298ec4e0005badd64c75/scripts_integration/new_evolving_agent/env/gh200_setup/04-driver.md"},
    {"NVIDIA RTX A5000", "RTX-A5000",
     "https://github.com/neuronflow/BraTS-Toolkit/blob/0c87d4e4f281b2f270f758dc9c0cf55fbe4fa0f3/.github/ISSUE_TEMPLATE/bug_report.md"},
    {"NVIDIA RTX A4000", "RTX-A4000",
     "https://github.com/akash-network/docs/blob/5a7a7c9747ff959bba832cacc89f6adb10213282/other-resources/experimental/testnet/provider-build-with-gpu/gpu-test-deployments.md"},
    {"NVIDIA GeForce RTX 5080", "RTX-5080", "https://github.com/ziwon/gpu-scheduler/blob/5111bbbbb21c44d9876e6d8bb821af22bfc21aa8/README.md"},
    {"NVIDIA RTX PRO 6000 Blackwell Server Edition", "RTX-PRO-6000", "https://github.com/zzc0721/torch-performance-test-data/issues/44"},
    // The driver's product names per PCI ID (NVIDIA's open-gpu-kernel-modules README, driver 595.45.04).
    {"NVIDIA H800", "H800", "https://github.com/NVIDIA/open-gpu-kernel-modules/blob/df1c9a3de2be4b130f4fc7680f7198193d8ac6ad/README.md"},
    {"NVIDIA H20", "H20", "https://github.com/NVIDIA/open-gpu-kernel-modules/blob/df1c9a3de2be4b130f4fc7680f7198193d8ac6ad/README.md"},
    {"NVIDIA L40", "L40", "https://github.com/NVIDIA/open-gpu-kernel-modules/blob/df1c9a3de2be4b130f4fc7680f7198193d8ac6ad/README.md"},
    {"NVIDIA A10", "A10", "https://github.com/NVIDIA/open-gpu-kernel-modules/blob/df1c9a3de2be4b130f4fc7680f7198193d8ac6ad/README.md"},
    {"NVIDIA RTX A6000", "RTX-A6000", "https://github.com/NVIDIA/open-gpu-kernel-modules/blob/df1c9a3de2be4b130f4fc7680f7198193d8ac6ad/README.md"},
    {"NVIDIA RTX 6000 Ada Generation", "RTX-6000-Ada", "https://github.com/NVIDIA/open-gpu-kernel-modules/blob/df1c9a3de2be4b130f4fc7680f7198193d8ac6ad/README.md"},
    {"NVIDIA A30", "A30", "https://github.com/NVIDIA/open-gpu-kernel-modules/blob/df1c9a3de2be4b130f4fc7680f7198193d8ac6ad/README.md"},
    {"NVIDIA L20", "L20", "https://github.com/NVIDIA/open-gpu-kernel-modules/blob/df1c9a3de2be4b130f4fc7680f7198193d8ac6ad/README.md"},
    {"NVIDIA RTX 4000 Ada Generation", "RTX-4000-Ada", "https://github.com/NVIDIA/open-gpu-kernel-modules/blob/df1c9a3de2be4b130f4fc7680f7198193d8ac6ad/README.md"},
    {"NVIDIA A100 80GB PCIe", "A100-80GB", "https://github.com/NVIDIA/open-gpu-kernel-modules/blob/df1c9a3de2be4b130f4fc7680f7198193d8ac6ad/README.md"},
    {"NVIDIA A100-PCIE-40GB", "A100-40GB", "https://github.com/NVIDIA/open-gpu-kernel-modules/blob/df1c9a3de2be4b130f4fc7680f7198193d8ac6ad/README.md"},
    {"AMD Instinct MI355X", "MI355X", "https://github.com/ROCm/ATOM/issues/1400"},
    {"AMD Instinct MI300X", "MI300X", "https://github.com/pytorch/pytorch/issues/180500"},
    {"AMD Instinct MI250X/MI250", "MI250X", "https://github.com/ROCm/rocm_smi_lib/issues/160"},
};

// cloud.google.com/gke-accelerator (the Compute Engine accelerator type):
// https://docs.cloud.google.com/kubernetes-engine/docs/how-to/gpus and https://cloud.google.com/compute/docs/gpus.
// nvidia-tesla-v100 is GCP's 16 GB V100, which the catalog does not have.
constexpr NamedGpu kGke[] = {
    {"nvidia-tesla-t4", "T4"},
    {"nvidia-l4", "L4"},
    {"nvidia-tesla-a100", "A100-40GB"},
    {"nvidia-a100-80gb", "A100-80GB"},
    {"nvidia-h100-80gb", "H100-SXM"},
    {"nvidia-h100-mega-80gb", "H100-SXM"},
    {"nvidia-h200-141gb", "H200"},
    {"nvidia-b200", "B200"},
    {"nvidia-gb200", "GB200"},
    {"nvidia-rtx-pro-6000", "RTX-PRO-6000"},
};

// karpenter.k8s.aws/instance-gpu-name is EC2's GPU name in lower kebab case (lowerKabobCase() in
// aws/karpenter-provider-aws pkg/providers/instancetype/types.go at 7695b3c4); instance-gpu-memory
// is MiB per GPU and tells A100 40/80 GB apart. Values: website/content/en/docs/reference/
// instance-types.md at 692ccdd0 (generated from EC2's DescribeInstanceTypes).
constexpr KarpenterGpu kKarpenter[] = {
    {"a100", 40960, "A100-40GB"},
    {"a100", 81920, "A100-80GB"},
    {"h100", 81920, "H100-SXM"},
    {"h200", 144384, "H200"},
    {"b200", 183359, "B200"},
    {"b300", 275040, "B300"},
    {"l40s", 45776, "L40S"},
    {"l4", 22888, "L4"},
    {"a10g", 22888, "A10G"},
    {"t4", 16384, "T4"},
    {"v100", 32768, "V100-32GB"},
    {"rtx-pro-server-6000", 98304, "RTX-PRO-6000"},
};

// node.kubernetes.io/instance-type (and the legacy beta.kubernetes.io/instance-type, which
// Karpenter's scheduling docs say it translates): the GPU and how many an instance has.
constexpr InstanceType kInstances[] = {
    {"g4dn.2xlarge", "T4", 1, "https://github.com/aws/karpenter-provider-aws/blob/692ccdd0629e488300821443f0fa0bc3c3e08047/website/content/en/docs/reference/instance-types.md"},
    {"g4dn.4xlarge", "T4", 1, "https://github.com/aws/karpenter-provider-aws/blob/692ccdd0629e488300821443f0fa0bc3c3e08047/website/content/en/docs/reference/instance-types.md"},
    {"g4dn.8xlarge", "T4", 1, "https://github.com/aws/karpenter-provider-aws/blob/692ccdd0629e488300821443f0fa0bc3c3e08047/website/content/en/docs/reference/instance-types.md"},
    {"g4dn.12xlarge", "T4", 4, "https://github.com/aws/karpenter-provider-aws/blob/692ccdd0629e488300821443f0fa0bc3c3e08047/website/content/en/docs/reference/instance-types.md"},
    {"g4dn.16xlarge", "T4", 1, "https://github.com/aws/karpenter-provider-aws/blob/692ccdd0629e488300821443f0fa0bc3c3e08047/website/content/en/docs/reference/instance-types.md"},
    {"g4dn.metal", "T4", 8, "https://github.com/aws/karpenter-provider-aws/blob/692ccdd0629e488300821443f0fa0bc3c3e08047/website/content/en/docs/reference/instance-types.md"},
    {"g4dn.xlarge", "T4", 1, "https://github.com/aws/karpenter-provider-aws/blob/692ccdd0629e488300821443f0fa0bc3c3e08047/website/content/en/docs/reference/instance-types.md"},
    {"g5.2xlarge", "A10G", 1, "https://github.com/aws/karpenter-provider-aws/blob/692ccdd0629e488300821443f0fa0bc3c3e08047/website/content/en/docs/reference/instance-types.md"},
    {"g5.4xlarge", "A10G", 1, "https://github.com/aws/karpenter-provider-aws/blob/692ccdd0629e488300821443f0fa0bc3c3e08047/website/content/en/docs/reference/instance-types.md"},
    {"g5.8xlarge", "A10G", 1, "https://github.com/aws/karpenter-provider-aws/blob/692ccdd0629e488300821443f0fa0bc3c3e08047/website/content/en/docs/reference/instance-types.md"},
    {"g5.12xlarge", "A10G", 4, "https://github.com/aws/karpenter-provider-aws/blob/692ccdd0629e488300821443f0fa0bc3c3e08047/website/content/en/docs/reference/instance-types.md"},
    {"g5.16xlarge", "A10G", 1, "https://github.com/aws/karpenter-provider-aws/blob/692ccdd0629e488300821443f0fa0bc3c3e08047/website/content/en/docs/reference/instance-types.md"},
    {"g5.24xlarge", "A10G", 4, "https://github.com/aws/karpenter-provider-aws/blob/692ccdd0629e488300821443f0fa0bc3c3e08047/website/content/en/docs/reference/instance-types.md"},
    {"g5.48xlarge", "A10G", 8, "https://github.com/aws/karpenter-provider-aws/blob/692ccdd0629e488300821443f0fa0bc3c3e08047/website/content/en/docs/reference/instance-types.md"},
    {"g5.xlarge", "A10G", 1, "https://github.com/aws/karpenter-provider-aws/blob/692ccdd0629e488300821443f0fa0bc3c3e08047/website/content/en/docs/reference/instance-types.md"},
    {"g6e.2xlarge", "L40S", 1, "https://github.com/aws/karpenter-provider-aws/blob/692ccdd0629e488300821443f0fa0bc3c3e08047/website/content/en/docs/reference/instance-types.md"},
    {"g6e.4xlarge", "L40S", 1, "https://github.com/aws/karpenter-provider-aws/blob/692ccdd0629e488300821443f0fa0bc3c3e08047/website/content/en/docs/reference/instance-types.md"},
    {"g6e.8xlarge", "L40S", 1, "https://github.com/aws/karpenter-provider-aws/blob/692ccdd0629e488300821443f0fa0bc3c3e08047/website/content/en/docs/reference/instance-types.md"},
    {"g6e.12xlarge", "L40S", 4, "https://github.com/aws/karpenter-provider-aws/blob/692ccdd0629e488300821443f0fa0bc3c3e08047/website/content/en/docs/reference/instance-types.md"},
    {"g6e.16xlarge", "L40S", 1, "https://github.com/aws/karpenter-provider-aws/blob/692ccdd0629e488300821443f0fa0bc3c3e08047/website/content/en/docs/reference/instance-types.md"},
    {"g6e.24xlarge", "L40S", 4, "https://github.com/aws/karpenter-provider-aws/blob/692ccdd0629e488300821443f0fa0bc3c3e08047/website/content/en/docs/reference/instance-types.md"},
    {"g6e.48xlarge", "L40S", 8, "https://github.com/aws/karpenter-provider-aws/blob/692ccdd0629e488300821443f0fa0bc3c3e08047/website/content/en/docs/reference/instance-types.md"},
    {"g6e.xlarge", "L40S", 1, "https://github.com/aws/karpenter-provider-aws/blob/692ccdd0629e488300821443f0fa0bc3c3e08047/website/content/en/docs/reference/instance-types.md"},
    {"g6.2xlarge", "L4", 1, "https://github.com/aws/karpenter-provider-aws/blob/692ccdd0629e488300821443f0fa0bc3c3e08047/website/content/en/docs/reference/instance-types.md"},
    {"g6.4xlarge", "L4", 1, "https://github.com/aws/karpenter-provider-aws/blob/692ccdd0629e488300821443f0fa0bc3c3e08047/website/content/en/docs/reference/instance-types.md"},
    {"g6.8xlarge", "L4", 1, "https://github.com/aws/karpenter-provider-aws/blob/692ccdd0629e488300821443f0fa0bc3c3e08047/website/content/en/docs/reference/instance-types.md"},
    {"g6.12xlarge", "L4", 4, "https://github.com/aws/karpenter-provider-aws/blob/692ccdd0629e488300821443f0fa0bc3c3e08047/website/content/en/docs/reference/instance-types.md"},
    {"g6.16xlarge", "L4", 1, "https://github.com/aws/karpenter-provider-aws/blob/692ccdd0629e488300821443f0fa0bc3c3e08047/website/content/en/docs/reference/instance-types.md"},
    {"g6.24xlarge", "L4", 4, "https://github.com/aws/karpenter-provider-aws/blob/692ccdd0629e488300821443f0fa0bc3c3e08047/website/content/en/docs/reference/instance-types.md"},
    {"g6.48xlarge", "L4", 8, "https://github.com/aws/karpenter-provider-aws/blob/692ccdd0629e488300821443f0fa0bc3c3e08047/website/content/en/docs/reference/instance-types.md"},
    {"g6.xlarge", "L4", 1, "https://github.com/aws/karpenter-provider-aws/blob/692ccdd0629e488300821443f0fa0bc3c3e08047/website/content/en/docs/reference/instance-types.md"},
    {"g7e.2xlarge", "RTX-PRO-6000", 1, "https://github.com/aws/karpenter-provider-aws/blob/692ccdd0629e488300821443f0fa0bc3c3e08047/website/content/en/docs/reference/instance-types.md"},
    {"g7e.4xlarge", "RTX-PRO-6000", 1, "https://github.com/aws/karpenter-provider-aws/blob/692ccdd0629e488300821443f0fa0bc3c3e08047/website/content/en/docs/reference/instance-types.md"},
    {"g7e.8xlarge", "RTX-PRO-6000", 1, "https://github.com/aws/karpenter-provider-aws/blob/692ccdd0629e488300821443f0fa0bc3c3e08047/website/content/en/docs/reference/instance-types.md"},
    {"g7e.12xlarge", "RTX-PRO-6000", 2, "https://github.com/aws/karpenter-provider-aws/blob/692ccdd0629e488300821443f0fa0bc3c3e08047/website/content/en/docs/reference/instance-types.md"},
    {"g7e.24xlarge", "RTX-PRO-6000", 4, "https://github.com/aws/karpenter-provider-aws/blob/692ccdd0629e488300821443f0fa0bc3c3e08047/website/content/en/docs/reference/instance-types.md"},
    {"g7e.48xlarge", "RTX-PRO-6000", 8, "https://github.com/aws/karpenter-provider-aws/blob/692ccdd0629e488300821443f0fa0bc3c3e08047/website/content/en/docs/reference/instance-types.md"},
    {"gr6.4xlarge", "L4", 1, "https://github.com/aws/karpenter-provider-aws/blob/692ccdd0629e488300821443f0fa0bc3c3e08047/website/content/en/docs/reference/instance-types.md"},
    {"gr6.8xlarge", "L4", 1, "https://github.com/aws/karpenter-provider-aws/blob/692ccdd0629e488300821443f0fa0bc3c3e08047/website/content/en/docs/reference/instance-types.md"},
    {"p3dn.24xlarge", "V100-32GB", 8, "https://github.com/aws/karpenter-provider-aws/blob/692ccdd0629e488300821443f0fa0bc3c3e08047/website/content/en/docs/reference/instance-types.md"},
    {"p4de.24xlarge", "A100-80GB", 8, "https://github.com/aws/karpenter-provider-aws/blob/692ccdd0629e488300821443f0fa0bc3c3e08047/website/content/en/docs/reference/instance-types.md"},
    {"p4d.24xlarge", "A100-40GB", 8, "https://github.com/aws/karpenter-provider-aws/blob/692ccdd0629e488300821443f0fa0bc3c3e08047/website/content/en/docs/reference/instance-types.md"},
    {"p5en.48xlarge", "H200", 8, "https://github.com/aws/karpenter-provider-aws/blob/692ccdd0629e488300821443f0fa0bc3c3e08047/website/content/en/docs/reference/instance-types.md"},
    {"p5e.48xlarge", "H200", 8, "https://github.com/aws/karpenter-provider-aws/blob/692ccdd0629e488300821443f0fa0bc3c3e08047/website/content/en/docs/reference/instance-types.md"},
    {"p5.4xlarge", "H100-SXM", 1, "https://github.com/aws/karpenter-provider-aws/blob/692ccdd0629e488300821443f0fa0bc3c3e08047/website/content/en/docs/reference/instance-types.md"},
    {"p5.48xlarge", "H100-SXM", 8, "https://github.com/aws/karpenter-provider-aws/blob/692ccdd0629e488300821443f0fa0bc3c3e08047/website/content/en/docs/reference/instance-types.md"},
    {"p6-b200.48xlarge", "B200", 8, "https://github.com/aws/karpenter-provider-aws/blob/692ccdd0629e488300821443f0fa0bc3c3e08047/website/content/en/docs/reference/instance-types.md"},
    {"p6-b300.48xlarge", "B300", 8, "https://github.com/aws/karpenter-provider-aws/blob/692ccdd0629e488300821443f0fa0bc3c3e08047/website/content/en/docs/reference/instance-types.md"},
    {"a3-highgpu-8g", "H100-SXM", 8, "https://github.com/AI-Hypercomputer/xpk/blob/4f782c322f25cfbd318eb44314fedd93f75c112c/src/xpk/core/system_characteristics.py"},
    {"a3-megagpu-8g", "H100-SXM", 8, "https://github.com/AI-Hypercomputer/xpk/blob/4f782c322f25cfbd318eb44314fedd93f75c112c/src/xpk/core/system_characteristics.py"},
    {"a3-ultragpu-8g", "H200", 8, "https://github.com/AI-Hypercomputer/xpk/blob/4f782c322f25cfbd318eb44314fedd93f75c112c/src/xpk/core/system_characteristics.py"},
    {"a4-highgpu-8g", "B200", 8, "https://github.com/AI-Hypercomputer/xpk/blob/4f782c322f25cfbd318eb44314fedd93f75c112c/src/xpk/core/system_characteristics.py"},
    {"a4x-highgpu-4g", "GB200", 4, "https://github.com/AI-Hypercomputer/xpk/blob/4f782c322f25cfbd318eb44314fedd93f75c112c/src/xpk/core/system_characteristics.py"},
    {"a2-highgpu-1g", "A100-40GB", 1, "https://github.com/AI-Hypercomputer/xpk/blob/4f782c322f25cfbd318eb44314fedd93f75c112c/src/xpk/core/system_characteristics.py"},
    {"a2-highgpu-2g", "A100-40GB", 2, "https://github.com/AI-Hypercomputer/xpk/blob/4f782c322f25cfbd318eb44314fedd93f75c112c/src/xpk/core/system_characteristics.py"},
    {"a2-highgpu-4g", "A100-40GB", 4, "https://github.com/AI-Hypercomputer/xpk/blob/4f782c322f25cfbd318eb44314fedd93f75c112c/src/xpk/core/system_characteristics.py"},
    {"a2-highgpu-8g", "A100-40GB", 8, "https://github.com/AI-Hypercomputer/xpk/blob/4f782c322f25cfbd318eb44314fedd93f75c112c/src/xpk/core/system_characteristics.py"},
    {"g2-standard-8", "L4", 1, "https://github.com/GoogleCloudPlatform/vertex-ai-samples/issues/3372"},
    {"g2-standard-12", "L4", 1, "https://github.com/AI-Hypercomputer/xpk/blob/4f782c322f25cfbd318eb44314fedd93f75c112c/src/xpk/core/system_characteristics.py"},
    {"g2-standard-24", "L4", 2, "https://github.com/AI-Hypercomputer/xpk/blob/4f782c322f25cfbd318eb44314fedd93f75c112c/src/xpk/core/system_characteristics.py"},
    {"g2-standard-48", "L4", 4, "https://github.com/AI-Hypercomputer/xpk/blob/4f782c322f25cfbd318eb44314fedd93f75c112c/src/xpk/core/system_characteristics.py"},
    {"g2-standard-96", "L4", 8, "https://github.com/AI-Hypercomputer/xpk/blob/4f782c322f25cfbd318eb44314fedd93f75c112c/src/xpk/core/system_characteristics.py"},
    {"g4-standard-48", "RTX-PRO-6000", 1, "https://docs.cloud.google.com/kubernetes-engine/docs/how-to/gpus"},
    {"g4-standard-384", "RTX-PRO-6000", 8, "https://docs.cloud.google.com/kubernetes-engine/docs/how-to/gpus"},
    {"Standard_ND96isr_H100_v5", "H100-SXM", 8, "https://github.com/MicrosoftDocs/azure-docs/blob/44d9173928f4fb328351cc42659a37dfae6c5dd4/articles/virtual-machines/sizes/gpu-accelerated/includes/nd-h100-v5-series-specs.md"},
    {"Standard_ND96asr_v4", "A100-40GB", 8, "https://github.com/MicrosoftDocs/azure-docs/blob/b8e87ab71e95e63b907626b3da04fe2fafc7e9e2/articles/virtual-machines/sizes/gpu-accelerated/includes/ndasra100v4-series-specs.md"},
    {"Standard_ND96amsr_A100_v4", "A100-80GB", 8, "https://github.com/MicrosoftDocs/azure-docs/blob/932b844625644cd2d11d08ec42aaf68e2d575c5b/articles/virtual-machines/sizes/gpu-accelerated/includes/ndma100v4-series-specs.md"},
    {"Standard_NC24ads_A100_v4", "A100-80GB", 1, "https://github.com/MicrosoftDocs/azure-docs/blob/dcab08d773bdc35e85e1cc5324ace584f7517884/articles/virtual-machines/sizes/gpu-accelerated/nca100v4-series.md"},
    {"Standard_NC48ads_A100_v4", "A100-80GB", 2, "https://github.com/MicrosoftDocs/azure-docs/blob/dcab08d773bdc35e85e1cc5324ace584f7517884/articles/virtual-machines/sizes/gpu-accelerated/nca100v4-series.md"},
    {"Standard_NC96ads_A100_v4", "A100-80GB", 4, "https://github.com/MicrosoftDocs/azure-docs/blob/dcab08d773bdc35e85e1cc5324ace584f7517884/articles/virtual-machines/sizes/gpu-accelerated/nca100v4-series.md"},
    {"Standard_NC40ads_H100_v5", "H100-NVL", 1, "https://github.com/MicrosoftDocs/azure-docs/blob/02affc86f41ba9094cf5cfbe0727a30b758f516e/articles/virtual-machines/sizes/gpu-accelerated/ncadsh100v5-series.md"},
    {"Standard_NC80adis_H100_v5", "H100-NVL", 2, "https://github.com/MicrosoftDocs/azure-docs/blob/02affc86f41ba9094cf5cfbe0727a30b758f516e/articles/virtual-machines/sizes/gpu-accelerated/ncadsh100v5-series.md"},
    {"Standard_NC4as_T4_v3", "T4", 1, "https://github.com/MicrosoftDocs/azure-docs/blob/dcab08d773bdc35e85e1cc5324ace584f7517884/articles/virtual-machines/sizes/gpu-accelerated/ncast4v3-series.md"},
    {"Standard_NC8as_T4_v3", "T4", 1, "https://github.com/MicrosoftDocs/azure-docs/blob/dcab08d773bdc35e85e1cc5324ace584f7517884/articles/virtual-machines/sizes/gpu-accelerated/ncast4v3-series.md"},
    {"Standard_NC16as_T4_v3", "T4", 1, "https://github.com/MicrosoftDocs/azure-docs/blob/dcab08d773bdc35e85e1cc5324ace584f7517884/articles/virtual-machines/sizes/gpu-accelerated/ncast4v3-series.md"},
    {"Standard_NC64as_T4_v3", "T4", 4, "https://github.com/MicrosoftDocs/azure-docs/blob/dcab08d773bdc35e85e1cc5324ace584f7517884/articles/virtual-machines/sizes/gpu-accelerated/ncast4v3-series.md"},
    {"Standard_ND96isr_MI300X_v5", "MI300X", 8, "https://github.com/MicrosoftDocs/azure-docs/blob/main/articles/virtual-machines/sizes/gpu-accelerated/nd-mi300x-v5-series.md"},
};

std::string squash(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (std::isalnum(static_cast<unsigned char>(c)) != 0) {
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
  }
  return out;
}

const GpuSpec* by_name(std::string_view name) {
  for (const GpuSpec& g : gpu_catalog()) {
    if (g.name == name) {
      return &g;
    }
  }
  return nullptr;
}

}  // namespace

const GpuSpec* gpu_from_reported_name(std::string_view name) {
  // GPU Feature Discovery's label is the reported name with characters outside [A-Za-z0-9-_. ]
  // removed and the words joined by '-' (sanitise() in NVIDIA/k8s-device-plugin
  // internal/lm/resource.go at 7699fe4d), with "-SHARED" or "-MIG-<profile>" appended: compare
  // letters and digits only, and drop those suffixes.
  std::string key = squash(name);
  for (const std::string_view suffix : {"shared"}) {
    if (key.size() > suffix.size() && key.substr(key.size() - suffix.size()) == suffix) {
      key.resize(key.size() - suffix.size());
    }
  }
  // A MIG instance ("NVIDIA H200 MIG 1g.18gb", GFD's "A100-SXM4-40GB-MIG-1g.5gb"): the catalog's
  // instance of that GPU and profile, or nothing (never the whole GPU: a slice holds a fraction of it).
  std::string profile;
  if (const std::size_t mig = key.find("mig"); mig != std::string::npos && mig > 0) {
    profile = key.substr(mig + 3);
    key.resize(mig);
  }
  for (const ReportedName& r : kReported) {
    const std::string want = squash(r.name);
    // Older drivers print no "NVIDIA " prefix (450.x: "A100-SXM4-80GB").
    if (key != want && "nvidia" + key != want) {
      continue;
    }
    if (profile.empty()) {
      return by_name(r.gpu);
    }
    for (const GpuSpec& g : gpu_catalog()) {
      const std::string slice = squash(g.name);
      if (g.slice_of == r.gpu && slice.size() > profile.size() && slice.substr(slice.size() - profile.size()) == profile &&
          slice.substr(0, slice.size() - profile.size()).ends_with("mig")) {
        return &g;
      }
    }
    return nullptr;
  }
  return nullptr;
}

std::optional<GpuLabel> gpu_from_label(std::string_view key, std::string_view value) {
  GpuLabel out;
  const std::string v = to_lower(value);
  if (key == "nvidia.com/gpu.product") {
    out.gpu = gpu_from_reported_name(value);
    if (out.gpu == nullptr) {
      throw Error(fmt::format("{}: {} is no GPU in kvplan's catalog (kvplan gpus lists them); give --gpu NAME", key,
                              quote_input(value)));
    }
    return out;
  }
  if (key == "cloud.google.com/gke-accelerator") {
    for (const NamedGpu& g : kGke) {
      if (g.value == v) {
        out.gpu = by_name(g.gpu);
        return out;
      }
    }
    throw Error(fmt::format("{}: {} is no accelerator kvplan knows (it reads {}); give --gpu NAME", key,
                            quote_input(value), "nvidia-l4, nvidia-h100-80gb, ..."));
  }
  if (key == "karpenter.k8s.aws/instance-gpu-name") {
    const KarpenterGpu* first = nullptr;
    std::size_t n = 0;
    for (const KarpenterGpu& g : kKarpenter) {
      if (g.name == v) {
        first = first == nullptr ? &g : (g.mib < first->mib ? &g : first);
        ++n;
      }
    }
    if (first == nullptr) {
      throw Error(fmt::format("{}: {} is no GPU kvplan knows; give --gpu NAME", key, quote_input(value)));
    }
    out.gpu = by_name(first->gpu);  // a100 without instance-gpu-memory: the smaller part
    return out;
  }
  if (key == "karpenter.k8s.aws/instance-gpu-memory") {
    return std::nullopt;  // read with instance-gpu-name (see gpu_from_labels in the manifest reader)
  }
  if (key == "node.kubernetes.io/instance-type" || key == "beta.kubernetes.io/instance-type") {
    for (const InstanceType& i : kInstances) {
      if (to_lower(i.name) == v) {
        out.gpu = by_name(i.gpu);
        out.per_node = i.gpus;
        return out;
      }
    }
    return std::nullopt;  // a CPU instance type, or one kvplan does not list: not a GPU label
  }
  return std::nullopt;
}

const GpuSpec* gpu_from_karpenter(std::string_view name, std::uint32_t mib) {
  const std::string v = to_lower(name);
  for (const KarpenterGpu& g : kKarpenter) {
    if (g.name == v && g.mib == mib) {
      return by_name(g.gpu);
    }
  }
  return nullptr;
}

const GpuSpec* gpu_from_skypilot(std::string_view name) {
  // SkyPilot's accelerator names (`sky show-gpus -a`, https://docs.skypilot.co/en/stable/compute/gpus.html):
  // "A100" and "A100-80GB" are listed apart, so "A100" is the 40 GB part; "A10" and "A10G",
  // "V100" and "V100-32GB" likewise; "H100" is the 80 GB part on the clouds that offer it.
  const std::string v = to_lower(name);
  static constexpr NamedGpu kSky[] = {
      {"a100", "A100-40GB"}, {"a100-80gb", "A100-80GB"}, {"h100", "H100-SXM"}, {"h100-mega", "H100-SXM"},
      {"h200", "H200"},      {"b200", "B200"},           {"l4", "L4"},         {"l40s", "L40S"},
      {"a10g", "A10G"},      {"a10", "A10"},            {"l40", "L40"},       {"t4", "T4"},               {"a40", "A40"},       {"mi300x", "MI300X"},
      {"rtx4090", "RTX-4090"}, {"rtx3090", "RTX-3090"},  {"gb200", "GB200"},       {"v100-32gb", "V100-32GB"},
      {"rtxpro6000", "RTX-PRO-6000"}, {"a100-80gb-sxm", "A100-80GB"}, {"b300", "B300"}, {"h100-nvl", "H100-NVL"}, {"mi250x", "MI250X"},
  };
  for (const NamedGpu& g : kSky) {
    if (g.value == v) {
      return by_name(g.gpu);
    }
  }
  return nullptr;  // V100 (16 GB), ...: not in the catalog
}

}  // namespace kvplan
