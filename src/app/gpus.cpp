// The GPU catalog. memory_bytes is the CUDA (or HIP) total, which is what vLLM and SGLang
// budget from (torch.cuda.mem_get_info); it is ~0.5 GiB below nvidia-smi's total and drifts by
// tens of MiB across drivers. docs/gpus.md gives the full source of every row.
#include "kvplan/gpus.hpp"

#include <array>
#include <cctype>
#include <fmt/format.h>
#include <vector>

#include "kvplan/error.hpp"
#include "kvplan/quantity.hpp"
#include "kvplan/text.hpp"

namespace kvplan {
namespace {

// Architectures (docs/gpus.md, "Architectures"): NVIDIA's compute capabilities from its CUDA GPUs
// list (developer.nvidia.com/cuda-gpus) and the CUDA C++ Programming Guide's feature tables (bf16
// from 8.0, FP8 tensor cores from 8.9); AMD's gfx targets and data types from ROCm's "GPU hardware
// specifications" and "Data types and precision support" (FP8 from CDNA 3); Apple's from ggml-metal's
// has_bfloat (every Apple GPU family from Apple6; no FP8 format).
constexpr GpuArch kVolta{GpuVendor::nvidia, 70, "sm_70", "Volta", false, false};
constexpr GpuArch kTuring{GpuVendor::nvidia, 75, "sm_75", "Turing", false, false};
constexpr GpuArch kAmpere{GpuVendor::nvidia, 80, "sm_80", "Ampere", true, false};
constexpr GpuArch kAmpereGa10x{GpuVendor::nvidia, 86, "sm_86", "Ampere", true, false};
constexpr GpuArch kAda{GpuVendor::nvidia, 89, "sm_89", "Ada", true, true};
constexpr GpuArch kHopper{GpuVendor::nvidia, 90, "sm_90", "Hopper", true, true};
constexpr GpuArch kBlackwell{GpuVendor::nvidia, 100, "sm_100", "Blackwell", true, true};
constexpr GpuArch kBlackwellUltra{GpuVendor::nvidia, 103, "sm_103", "Blackwell Ultra", true, true};
constexpr GpuArch kBlackwellRtx{GpuVendor::nvidia, 120, "sm_120", "Blackwell", true, true};
constexpr GpuArch kCdna2{GpuVendor::amd, 0, "gfx90a", "CDNA 2", true, false};
constexpr GpuArch kCdna3{GpuVendor::amd, 0, "gfx942", "CDNA 3", true, true};
constexpr GpuArch kCdna4{GpuVendor::amd, 0, "gfx950", "CDNA 4", true, true};
constexpr GpuArch kApple{GpuVendor::apple, 0, "Apple", "Metal", true, false};

constexpr std::array kGpus{
    GpuSpec{"H100-SXM", "h100 h100-80gb h100-sxm5", 85'029'158'912, "80 GB", 3350,
            "torch total_memory 81090 MiB; engine logs show 79.19 GiB (tests/calibration); aiconfigurator h800_sxm.yaml", "", kHopper},
    GpuSpec{"H100-PCIe", "h100-pcie-80gb", 85'029'158'912, "80 GB", 2000,
            "assumed equal to H100-SXM's CUDA total (same 80 GB part); bandwidth aiconfigurator h100_pcie.yaml", "", kHopper},
    GpuSpec{"H100-NVL", "h100nvl h100-94gb", 99'861'594'112, "94 GB", 3900,
            "deviceQuery, CUDA 12.4 (thamada/nvidia-smi H100NVLx2_deviceQuery.py)", "", kHopper},
    GpuSpec{"H800", "h800-sxm h800-80gb", 84'943'110'144, "80 GB", 3350,
            "PyTorch profiler totalGlobalMem (deepseek-ai/profile-data train.json); bandwidth aiconfigurator h800_sxm.yaml", "", kHopper},
    GpuSpec{"H20", "h20-96gb", 102'010'716'160, "96 GB", 4000,
            "torch total_memory 97285 MiB (alipay/PainlessInferenceAcceleration seg_mla.py); bandwidth aiconfigurator h20_sxm.yaml", "", kHopper},
    GpuSpec{"H200", "h200-sxm h200-141gb", 150'109'945'856, "141 GB", 4800,
            "torch total_memory 143156 MiB (MiB resolution); bandwidth aiconfigurator h200_sxm.yaml", "", kHopper},
    GpuSpec{"B200", "b200-180gb", 191'514'017'792, "180 GB", 7700,
            "torch total_memory 182642 MiB (MiB resolution); bandwidth aiconfigurator b200_sxm.yaml", "", kBlackwell},
    GpuSpec{"B300", "b300-288gb", 288'400'343'040, "288 GB", 7750,
            "nvidia-smi 275040 MiB (aiconfigurator b300_sxm.yaml); over-states CUDA's total slightly", "", kBlackwellUltra},
    GpuSpec{"GB200", "", 188733ULL << 20, "186 GB", 8000,
            "torch total 184.31 GiB, to the MiB (an inference server's OOM, docs/gpus.md); nvidia-smi 189471 MiB; bandwidth aiconfigurator gb200.yaml",
            "", kBlackwell},
    // GH200: the GPU's own HBM, which is what cudaMemGetInfo reports and vLLM budgets (deviceQuery
    // "Integrated GPU sharing Host Memory: No"); the Grace CPU's LPDDR5X is host memory.
    GpuSpec{"GH200", "gh200-96gb gh200-480gb", 102'005'473'280, "96 GB", 4000,
            "deviceQuery, CUDA 12.4, GH200 480GB (slitvinov/grace README.md); bandwidth vendor figure, not re-read", "", kHopper},
    GpuSpec{"GH200-144GB", "gh200-144g gh200-hbm3e", 145920ULL << 20, "144 GB", 4900,
            "the inference server's 'Free memory on device (74.9/142.5 GiB)' (docs/gpus.md), 0.1 GiB resolution", "", kHopper},
    GpuSpec{"A100-80GB", "a100 a100-sxm a100-sxm4-80gb a100-80gb-sxm", 85'100'068'864, "80 GB", 2039,
            "deviceQuery, CUDA 12.5 (thamada/nvidia-smi A100SXMx4_deviceQuery.py)", "", kAmpere},
    GpuSpec{"A100-40GB", "a100-sxm4-40gb a100-pcie-40gb", 42'285'334'528, "40 GB", 1555,
            "torch total_memory 40326 MiB (A100-PCIE-40GB); bandwidth llm-analysis a100-sxm-40gb.json", "", kAmpere},
    GpuSpec{"L40S", "", 47'803'596'800, "48 GB", 864, "deviceQuery, CUDA 12.4 (thamada/nvidia-smi L40S_deviceQuery.py)", "", kAda},
    GpuSpec{"L40", "", 48'305'799'168, "48 GB", 864, "nvidia-smi 46068 MiB with ECC on; over-states CUDA's total", "", kAda},
    GpuSpec{"A40", "", 47'608'692'736, "48 GB", 696, "deviceQuery, CUDA 12.4 (thamada/nvidia-smi A40x10_deviceQuery.py)", "", kAmpereGa10x},
    GpuSpec{"L4", "", 23'570'219'008, "24 GB", 300, "deviceQuery, CUDA 12.4 (thamada/nvidia-smi L4_deviceQuery.py)", "", kAda},
    GpuSpec{"A10", "a10-24gb", 23'609'475'072, "24 GB", 600, "deviceQuery, CUDA 12.2 (aalanwyr/face2cuda step2cuda/README.md)", "", kAmpereGa10x},
    GpuSpec{"A10G", "", 24'146'608'128, "24 GB", 600,
            "NVML total 23028 MiB (mayooot/detect-gpu#3, NVIDIA/DCGM#232); over-states CUDA's total", "", kAmpereGa10x},
    GpuSpec{"A30", "a30-24gb", 24094ULL << 20, "24 GB", 933,
            "torch total 23.53 GiB, floored to the MiB (google/RB-Modulation#5)", "", kAmpere},
    GpuSpec{"L20", "l20-48gb", 45598ULL << 20, "48 GB", 864,
            "torch total 44.53 GiB with ECC on, floored to the MiB (Tencent-Hunyuan/HunyuanCustom#36)", "", kAda},
    GpuSpec{"RTX-4000-Ada", "rtx4000ada rtx-4000-ada-generation", 21'125'267'456, "20 GB", 360,
            "deviceQuery, CUDA 12.4, ECC off (thamada/nvidia-smi RTX4000Ada_deviceQuery.py)", "", kAda},
    GpuSpec{"T4", "", 15'843'721'216, "16 GB", 320, "deviceQuery (15843721216 bytes)", "", kTuring},
    GpuSpec{"V100-32GB", "v100-pcie-32gb", 34'057'748'480, "32 GB", 900, "nvidia-smi 32480 MiB (V100-PCIE); over-states CUDA's total", "", kVolta},
    GpuSpec{"RTX-4090", "4090 rtx4090", 25'386'352'640, "24 GB", 1008,
            "deviceQuery, CUDA 12.4 (thamada/nvidia-smi RTX4090_deviceQuery.py)", "", kAda},
    GpuSpec{"RTX-3090", "3090 rtx3090", 25'327'697'920, "24 GB", 936,
            "deviceQuery, CUDA 12.6 (thamada/nvidia-smi RTX3090_deviceQuery.py)", "", kAmpereGa10x},
    GpuSpec{"RTX-5090", "5090 rtx5090", 33'668'857'856, "32 GB", 1792,
            "torch allocator total 33668857856 B (snafu615/lazy107 SIGNATURES.md); nvidia-smi 32607 MiB", "", kBlackwellRtx},
    GpuSpec{"RTX-5080", "5080 rtx5080", 16303ULL << 20, "16 GB", 960,
            "nvidia-smi 16303 MiB (ziwon/gpu-scheduler README.md); over-states CUDA's total", "", kBlackwellRtx},
    GpuSpec{"RTX-6000-Ada", "rtx6000ada", 51'002'867'712, "48 GB", 960,
            "deviceQuery, CUDA 12.4 (thamada/nvidia-smi RTX6000Ada_x8_deviceQuery.py)", "", kAda},
    GpuSpec{"RTX-A6000", "a6000 rtxa6000", 51'160'023'040, "48 GB", 768,
            "deviceQuery, CUDA 12.7, ECC off (hpc-community.unige.ch/t/3741)", "", kAmpereGa10x},
    GpuSpec{"RTX-A5000", "a5000 rtxa5000", 25'402'343'424, "24 GB", 768,
            "deviceQuery-style 25402343424 bytes (csinparallel/intro-parallel-book 1-gpu-device.rst); torch 24114 MiB elsewhere", "",
            kAmpereGa10x},
    GpuSpec{"RTX-A4000", "a4000 rtxa4000", 15984ULL << 20, "16 GB", 448,
            "torch total 15.61 GiB, floored to the MiB (DengKaiCQ/VGGT-Long#6); nvidia-smi 16376 MiB", "", kAmpereGa10x},
    GpuSpec{"RTX-PRO-6000", "rtx-pro-6000-server", 97249ULL << 20, "96 GB", 1792,
            "CUDA total 94.97 GiB, to the MiB (antirez/ds4#431); nvidia-smi 97887 MiB (aiconfigurator rtx_pro_6000_server.yaml)", "",
            kBlackwellRtx},
    GpuSpec{"MI300X", "mi300", 205'822'885'888, "192 GB", 5300, "rocm-smi VRAM Total Memory (B); other systems show 206141652992", "", kCdna3},
    GpuSpec{"MI325X", "mi325", 262123ULL << 20, "256 GB", 6000,
            "HIP total 255.98 GiB in a torch OOM message, floored to the MiB (docs/gpus.md)", "", kCdna3},
    GpuSpec{"MI355X", "mi355", 309'220'868'096, "288 GB", 8000, "rocminfo GPU pool 301973504 KB (ROCm/rocm-libraries#9055)", "", kCdna4},
    GpuSpec{"MI250X", "mi250", 68'702'699'520, "64 GB per GCD", 1600,
            "torch mem_get_info on one MI250 GCD (jaglinux/pytorch-notes); bandwidth is half the package's 3200", "", kCdna2},
    // Apple silicon (docs/gpus.md, "Apple silicon"): unified memory, of which Metal lets one process
    // keep recommendedMaxWorkingSetSize on the GPU (printed at start-up by Metal programs); macOS 15 and earlier.
    GpuSpec{"Mac-8GB", "apple-8gb m1-8gb m2-8gb", 5726629806, "8 GB unified", 0,
            "Metal recommendedMaxWorkingSetSize 5461.34 MiB, 2/3 of 8 GB (an Apple M1 log, docs/gpus.md)", "", kApple},
    GpuSpec{"Mac-16GB", "apple-16gb m1-16gb m2-16gb m3-16gb m4-16gb", 11453251420, "16 GB unified", 0,
            "Metal recommendedMaxWorkingSetSize 10922.67 MiB, 2/3 of 16 GB (an M1 MacBook Pro log, docs/gpus.md)", "", kApple},
    GpuSpec{"Mac-18GB", "apple-18gb m3-pro-18gb", 12883853312, "18 GB unified", 0,
            "Metal working set 12287 MiB free on an M3 Pro, 2/3 of 18 GB (docs/gpus.md)", "", kApple},
    GpuSpec{"Mac-32GB", "apple-32gb m1-max-32gb m2-max-32gb", 22906506690, "32 GB unified", 0,
            "Metal recommendedMaxWorkingSetSize 21845.34 MiB, 2/3 of 32 GB (an M1 Max log, docs/gpus.md)", "", kApple},
    GpuSpec{"Mac-64GB", "apple-64gb m1-max-64gb m2-max-64gb m3-max-64gb m4-max-64gb", 51539607552, "64 GB unified", 0,
            "Metal recommendedMaxWorkingSetSize 49152.00 MiB, 3/4 of 64 GB (an M1 Max log, docs/gpus.md)", "", kApple},
    GpuSpec{"Mac-96GB", "apple-96gb m2-max-96gb m3-max-96gb", 77309411328, "96 GB unified", 0,
            "Metal recommendedMaxWorkingSetSize 73728.00 MiB, 3/4 of 96 GB (an M2 Max log, docs/gpus.md)", "", kApple},
    // MIG instances (docs/gpus.md, "MIG instances"): the size nvidia-smi mig -lgip lists (NVML
    // memorySizeMB), the smallest seen across drivers; CUDA inside the slice reports up to ~256 MiB more.
    GpuSpec{"A100-40GB-MIG-1g.5gb", "a100-sxm4-40gb-mig-1g.5gb a100-mig-1g.5gb", 4864ULL << 20, "1g.5gb of 40 GB", 0,
            "go-nvml mock a100.go MemorySizeMB 4864; MIG guide -lgip 4.75 GiB", "A100-40GB", kAmpere},
    GpuSpec{"A100-40GB-MIG-2g.10gb", "a100-sxm4-40gb-mig-2g.10gb a100-mig-2g.10gb", 9856ULL << 20, "2g.10gb of 40 GB", 0,
            "go-nvml mock a100.go MemorySizeMB 9856; -lgip 9.62 GiB", "A100-40GB", kAmpere},
    GpuSpec{"A100-40GB-MIG-3g.20gb", "a100-sxm4-40gb-mig-3g.20gb a100-mig-3g.20gb", 19968ULL << 20, "3g.20gb of 40 GB", 0,
            "go-nvml mock a100.go MemorySizeMB 19968; -lgip 19.50 GiB", "A100-40GB", kAmpere},
    GpuSpec{"A100-40GB-MIG-4g.20gb", "a100-sxm4-40gb-mig-4g.20gb a100-mig-4g.20gb", 19968ULL << 20, "4g.20gb of 40 GB", 0,
            "MIG guide -lgip 19.50 GiB (4/8 of memory, as 3g)", "A100-40GB", kAmpere},
    GpuSpec{"A100-40GB-MIG-7g.40gb", "a100-sxm4-40gb-mig-7g.40gb a100-mig-7g.40gb", 40192ULL << 20, "7g.40gb of 40 GB", 0,
            "go-nvml mock a100.go MemorySizeMB 40192; -lgip 39.25 GiB", "A100-40GB", kAmpere},
    GpuSpec{"A100-80GB-MIG-2g.20gb", "a100-sxm4-80gb-mig-2g.20gb", 19968ULL << 20, "2g.20gb of 80 GB", 0,
            "nvidia-smi MIG device 19968MiB (XuehaiPan/nvitop PR #8)", "A100-80GB", kAmpere},
    GpuSpec{"A100-80GB-MIG-1g.10gb", "a100-sxm4-80gb-mig-1g.10gb a100-80gb-pcie-mig-1g.10gb", 9728ULL << 20,
            "1g.10gb of 80 GB", 0, "-lgip 9.50 GiB (three public A100 80GB setup notes, docs/gpus.md)", "A100-80GB", kAmpere},
    GpuSpec{"A100-80GB-MIG-3g.40gb", "a100-sxm4-80gb-mig-3g.40gb a100-80gb-pcie-mig-3g.40gb", 40192ULL << 20,
            "3g.40gb of 80 GB", 0, "-lgip 39.25 GiB (three public A100 80GB setup notes, docs/gpus.md)", "A100-80GB", kAmpere},
    GpuSpec{"A100-80GB-MIG-4g.40gb", "a100-sxm4-80gb-mig-4g.40gb a100-80gb-pcie-mig-4g.40gb", 40192ULL << 20,
            "4g.40gb of 80 GB", 0, "-lgip 39.25 GiB (three public A100 80GB setup notes, docs/gpus.md)", "A100-80GB", kAmpere},
    GpuSpec{"A100-80GB-MIG-7g.80gb", "a100-sxm4-80gb-mig-7g.80gb a100-80gb-pcie-mig-7g.80gb", 80640ULL << 20,
            "7g.80gb of 80 GB", 0, "-lgip 78.75 GiB, the smaller of two drivers' (79.00 in two notes; docs/gpus.md)",
            "A100-80GB", kAmpere},
    GpuSpec{"H100-NVL-MIG-1g.12gb", "h100-nvl-mig-1g.12gb", 11008ULL << 20, "1g.12gb of 94 GB", 0,
            "-lgip 10.75 GiB (NVIDIA/gpu-operator PR #900)", "H100-NVL", kHopper},
    GpuSpec{"H100-NVL-MIG-1g.24gb", "h100-nvl-mig-1g.24gb", 22144ULL << 20, "1g.24gb of 94 GB", 0,
            "-lgip 21.62 GiB (NVIDIA/gpu-operator PR #900)", "H100-NVL", kHopper},
    GpuSpec{"H100-NVL-MIG-2g.24gb", "h100-nvl-mig-2g.24gb", 22144ULL << 20, "2g.24gb of 94 GB", 0,
            "-lgip 21.62 GiB (NVIDIA/gpu-operator PR #900)", "H100-NVL", kHopper},
    GpuSpec{"H100-NVL-MIG-3g.47gb", "h100-nvl-mig-3g.47gb", 47488ULL << 20, "3g.47gb of 94 GB", 0,
            "-lgip 46.38 GiB (NVIDIA/mig-parted PR #101)", "H100-NVL", kHopper},
    GpuSpec{"H200-MIG-1g.18gb", "h200-mig-1g.18gb", 16384ULL << 20, "1g.18gb of 141 GB", 0,
            "-lgip 16.00 GiB (NVIDIA/mig-parted issue #120)", "H200", kHopper},
    GpuSpec{"H200-MIG-1g.35gb", "h200-mig-1g.35gb", 33024ULL << 20, "1g.35gb of 141 GB", 0,
            "-lgip 32.25 GiB (NVIDIA/mig-parted issue #120)", "H200", kHopper},
    GpuSpec{"H200-MIG-2g.35gb", "h200-mig-2g.35gb", 33024ULL << 20, "2g.35gb of 141 GB", 0,
            "-lgip 32.25 GiB (NVIDIA/mig-parted issue #120)", "H200", kHopper},
    GpuSpec{"H200-MIG-3g.71gb", "h200-mig-3g.71gb", 71168ULL << 20, "3g.71gb of 141 GB", 0,
            "-lgip 69.50 GiB (NVIDIA/mig-parted issue #120)", "H200", kHopper},
    GpuSpec{"H200-MIG-4g.71gb", "h200-mig-4g.71gb", 71168ULL << 20, "4g.71gb of 141 GB", 0,
            "-lgip 69.50 GiB (NVIDIA/mig-parted issue #120)", "H200", kHopper},
    GpuSpec{"H200-MIG-7g.141gb", "h200-mig-7g.141gb", 143104ULL << 20, "7g.141gb of 141 GB", 0,
            "-lgip 139.75 GiB (NVIDIA/mig-parted issue #120)", "H200", kHopper},
    GpuSpec{"B200-MIG-1g.23gb", "b200-mig-1g.23gb", 20992ULL << 20, "1g.23gb of 180 GB", 0,
            "-lgip 20.50 GiB, the smaller of two drivers' (NVIDIA/mig-parted PR #187; 22.00 in #166)", "B200", kBlackwell},
    GpuSpec{"B200-MIG-1g.45gb", "b200-mig-1g.45gb", 45312ULL << 20, "1g.45gb of 180 GB", 0,
            "-lgip 44.25 GiB (NVIDIA/mig-parted PR #166)", "B200", kBlackwell},
    GpuSpec{"B200-MIG-2g.45gb", "b200-mig-2g.45gb", 45312ULL << 20, "2g.45gb of 180 GB", 0,
            "-lgip 44.25 GiB (NVIDIA/mig-parted PR #166)", "B200", kBlackwell},
    GpuSpec{"GB200-MIG-1g.23gb", "gb200-mig-1g.23gb", 22528ULL << 20, "1g.23gb of 186 GB", 0,
            "-lgip 22.00 GiB, production boards (NVIDIA/mig-parted issue #227)", "GB200", kBlackwell},
    GpuSpec{"GB200-MIG-1g.24gb", "gb200-mig-1g.24gb", 20480ULL << 20, "1g.24gb of 186 GB", 0,
            "-lgip 20.00 GiB (NVIDIA/gpu-operator PR #1303)", "GB200", kBlackwell},
    GpuSpec{"GB200-MIG-2g.47gb", "gb200-mig-2g.47gb", 46592ULL << 20, "2g.47gb of 186 GB", 0,
            "-lgip 45.50 GiB (NVIDIA/gpu-operator PR #1303)", "GB200", kBlackwell},
};

std::string squash(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c != '-' && c != '_' && c != ' ') {
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
  }
  return out;
}

}  // namespace

std::span<const GpuSpec> gpu_catalog() noexcept { return kGpus; }

GpuChoice parse_gpu(std::string_view text) {
  GpuChoice choice;
  std::string name(text);
  auto find = [](const std::string& wanted) -> const GpuSpec* {
    for (const GpuSpec& g : kGpus) {
      if (squash(g.name) == wanted) {
        return &g;
      }
      for (std::string_view rest = g.aliases; !rest.empty();) {
        const std::size_t sp = rest.find(' ');
        if (squash(rest.substr(0, sp)) == wanted) {
          return &g;
        }
        rest = sp == std::string_view::npos ? std::string_view{} : rest.substr(sp + 1);
      }
    }
    return nullptr;
  };
  // A name alone: the catalog's names and aliases, a MIG profile after the GPU's name without "MIG"
  // ("A100-80GB-3g.40gb", as schedulers' profile names read: the instance A100-80GB-MIG-3g.40gb),
  // and the name the driver reports ("NVIDIA H100 80GB HBM3", "NVIDIA H200 MIG 1g.18gb": nvidia-smi,
  // torch.cuda.get_device_name), as node labels give it.
  auto lookup = [&find](const std::string& text_name) -> const GpuSpec* {
    const std::string key = squash(text_name);
    if (const GpuSpec* g = find(key)) {
      return g;
    }
    if (const std::size_t dot = key.rfind("g."); dot != std::string::npos && key.ends_with("gb")) {
      std::size_t start = dot;
      while (start > 0 && std::isdigit(static_cast<unsigned char>(key[start - 1])) != 0) {
        --start;
      }
      if (start < dot && start > 0 && !key.substr(0, start).ends_with("mig")) {
        if (const GpuSpec* g = find(key.substr(0, start) + "mig" + key.substr(start))) {
          return g;
        }
      }
    }
    return gpu_from_reported_name(text_name);
  };
  // The whole text first: "RTX 4090" and "NVIDIA GeForce RTX 4090" name one GPU, not 4,090 of "RT".
  if ((choice.gpu = lookup(name)) != nullptr) {
    return choice;
  }
  auto trim = [](std::string t) {
    while (!t.empty() && t.back() == ' ') {
      t.pop_back();
    }
    while (!t.empty() && t.front() == ' ') {
      t.erase(t.begin());
    }
    return t;
  };
  auto digits_only = [](std::string_view t) {
    return !t.empty() && t.find_first_not_of("0123456789") == std::string_view::npos;
  };
  // NAME:N (SkyPilot's accelerators), NAMExN, NAME xN, NxNAME, N x NAME: the first split whose name
  // is a GPU ("2x RTX 4090" is two, though "RTX 4090" also ends in x and digits).
  struct Split {
    std::string name, count;
  };
  std::vector<Split> splits;
  if (const std::size_t colon = name.rfind(':'); colon != std::string::npos && digits_only(trim(name.substr(colon + 1)))) {
    splits.push_back({trim(name.substr(0, colon)), trim(name.substr(colon + 1))});
  }
  if (const std::size_t x = name.find_last_of("xX"); x != std::string::npos && x > 0 && digits_only(trim(name.substr(x + 1)))) {
    splits.push_back({trim(name.substr(0, x)), trim(name.substr(x + 1))});
  }
  if (const std::size_t p = name.find_first_of("xX"); p != std::string::npos && p > 0 && digits_only(trim(name.substr(0, p)))) {
    splits.push_back({trim(name.substr(p + 1)), trim(name.substr(0, p))});
  }
  for (const Split& sp : splits) {
    if (const GpuSpec* g = lookup(sp.name)) {
      choice.gpu = g;
      choice.count = static_cast<std::uint32_t>(parse_count("--gpu", sp.count, 4096));
      choice.count_given = true;
      return choice;
    }
  }
  if (!splits.empty()) {
    name = splits.front().name;  // the name the suggestions are for
  }
  const std::string key = squash(name);
  // Suggestions from the same vendor and class as the text: an AMD Instinct for "mi...", a
  // consumer or workstation card for "rtx..."/"gtx...", a data-centre NVIDIA GPU otherwise.
  auto family = [](std::string_view squashed) {
    if (squashed.rfind("mi", 0) == 0 || squashed.rfind("amd", 0) == 0 || squashed.rfind("instinct", 0) == 0) {
      return 0;
    }
    if (squashed.rfind("rtx", 0) == 0 || squashed.rfind("gtx", 0) == 0 || squashed.rfind("geforce", 0) == 0 ||
        (!squashed.empty() && squashed.front() >= '0' && squashed.front() <= '9')) {
      return 1;
    }
    return 2;
  };
  std::vector<std::string> names;
  for (const GpuSpec& g : kGpus) {
    if (family(squash(g.name)) != family(key)) {
      continue;
    }
    names.emplace_back(g.name);
    for (std::string_view a = g.aliases; !a.empty();) {
      const std::size_t sp = a.find(' ');
      names.emplace_back(a.substr(0, sp));
      a = sp == std::string_view::npos ? std::string_view{} : a.substr(sp + 1);
    }
  }
  throw Error(fmt::format("unknown GPU {}{} (see 'kvplan gpus', or give --vram SIZE)", quote_input(name), did_you_mean(name, names)));
}

}  // namespace kvplan
