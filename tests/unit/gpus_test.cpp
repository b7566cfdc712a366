// The GPU catalog's architectures (docs/gpus.md, "Architectures") and the warnings a plan gives
// where the GPU lacks the arithmetic of a planned dtype (issue #12).
#include <algorithm>
#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <string>

#include "kvplan/cli.hpp"
#include "kvplan/command_line.hpp"
#include "kvplan/gpus.hpp"
#include "kvplan/model_source.hpp"
#include "kvplan/plan.hpp"

using kvplan::GpuSpec;
using kvplan::GpuVendor;

namespace {

const GpuSpec& gpu(std::string_view name) {
  const auto catalog = kvplan::gpu_catalog();
  const auto it = std::find_if(catalog.begin(), catalog.end(), [&](const GpuSpec& g) { return g.name == name; });
  REQUIRE(it != catalog.end());
  return *it;
}

std::vector<std::string> warnings_of(const std::string& gpu_text, const std::string& line) {
  kvplan::CommandContext ctx;
  ctx.hardware = gpu_text.ends_with("GB") ? kvplan::hardware_from_vram(gpu_text) : kvplan::hardware_from_gpu(gpu_text);
  ctx.model = kvplan::load_preset("llama3.1-8b");
  const kvplan::PlanResult r = kvplan::plan(kvplan::read_command_line(kvplan::shell_words(line), ctx));
  return r.request.warnings;
}

bool mentions(const std::vector<std::string>& warnings, std::string_view text) {
  return std::any_of(warnings.begin(), warnings.end(), [&](const std::string& w) { return w.find(text) != w.npos; });
}

}  // namespace

TEST_CASE("catalog GPUs have the compute capability NVIDIA lists for them", "[gpus]") {
  // developer.nvidia.com/cuda-gpus: Hopper 9.0, Ada 8.9, A100 8.0, GA10x 8.6, Turing 7.5, Volta 7.0,
  // B200 10.0, B300 10.3, GeForce RTX 50 and RTX PRO Blackwell 12.0.
  const std::pair<const char*, int> listed[] = {{"H100-SXM", 90}, {"H200", 90},      {"H20", 90},     {"L4", 89},
                                                {"L40S", 89},     {"RTX-4090", 89},  {"A100-80GB", 80}, {"A10", 86},
                                                {"RTX-3090", 86}, {"RTX-A6000", 86}, {"T4", 75},      {"V100-32GB", 70},
                                                {"B200", 100},    {"B300", 103},     {"RTX-5090", 120}, {"RTX-PRO-6000", 120},
                                                {"A30", 80},      {"L20", 89},       {"RTX-4000-Ada", 89},
                                                {"GH200", 90},    {"GH200-144GB", 90}, {"RTX-A5000", 86}, {"RTX-A4000", 86},
                                                {"RTX-5080", 120}};
  for (const auto& [name, cc] : listed) {
    INFO(name);
    CHECK(gpu(name).arch.vendor == GpuVendor::nvidia);
    CHECK(gpu(name).arch.compute_capability == cc);
  }
  CHECK(gpu("MI300X").arch.vendor == GpuVendor::amd);
  CHECK(gpu("Mac-16GB").arch.vendor == GpuVendor::apple);
}

TEST_CASE("bf16 and FP8 arithmetic follow the architecture's feature tables", "[gpus]") {
  for (const GpuSpec& g : kvplan::gpu_catalog()) {
    INFO(g.name);
    if (!g.slice_of.empty()) {
      // A MIG instance is a slice of its GPU's own streaming multiprocessors.
      CHECK(g.arch.target == gpu(g.slice_of).arch.target);
      continue;
    }
    if (g.arch.vendor == GpuVendor::nvidia) {
      // CUDA C++ Programming Guide: bf16 tensor cores from 8.0, FP8 (e4m3/e5m2) from 8.9.
      CHECK(g.arch.bf16 == (g.arch.compute_capability >= 80));
      CHECK(g.arch.fp8 == (g.arch.compute_capability >= 89));
    }
  }
  // ROCm "Data types and precision support": FP8 on CDNA 3 (MI300) and CDNA 4 (MI355X), not CDNA 2.
  CHECK(gpu("MI300X").arch.fp8);
  CHECK(gpu("MI325X").arch.target == "gfx942");
  CHECK(gpu("MI355X").arch.fp8);
  CHECK_FALSE(gpu("MI250X").arch.fp8);
  CHECK(gpu("MI250X").arch.bf16);
}

TEST_CASE("a plan warns where the GPU has no arithmetic for a dtype it plans", "[gpus][warnings]") {
  const std::string fp8 = "vllm serve meta-llama/Llama-3.1-8B-Instruct --kv-cache-dtype fp8";
  CHECK(mentions(warnings_of("RTX-3090", fp8), "RTX-3090 is sm_86 (Ampere) and has no FP8 arithmetic"));
  CHECK(mentions(warnings_of("A100", fp8), "the fp8 KV cache at one byte per element"));
  CHECK_FALSE(mentions(warnings_of("RTX-4090", fp8), "FP8 arithmetic"));
  CHECK_FALSE(mentions(warnings_of("H100", fp8), "FP8 arithmetic"));
  // Llama-3.1-8B's config.json: torch_dtype bfloat16.
  const std::string plain = "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 4096";
  CHECK(mentions(warnings_of("T4", plain), "T4 is sm_75 (Turing) and has no bfloat16 arithmetic"));
  CHECK_FALSE(mentions(warnings_of("L4", plain), "bfloat16"));
  CHECK(warnings_of("24GB", fp8).empty());  // a size alone: nothing is assumed missing
}

TEST_CASE("the GPU names people and drivers write resolve", "[gpus]") {
  using kvplan::parse_gpu;
  // Marketing names with a space and a trailing number are one GPU, not a count ("RTX 4090" is
  // not 4,090 of "RT"); counts go before or after the name.
  CHECK(parse_gpu("RTX 4090").gpu->name == "RTX-4090");
  CHECK_FALSE(parse_gpu("RTX 4090").count_given);
  CHECK(parse_gpu("2x RTX 4090").gpu->name == "RTX-4090");
  CHECK(parse_gpu("2x RTX 4090").count == 2);
  CHECK(parse_gpu("RTX 4090x2").count == 2);
  CHECK(parse_gpu("MI300Xx8").count == 8);
  // nvidia-smi --query-gpu=name (the names docs/gpus.md cites): whole GPUs and MIG instances.
  CHECK(parse_gpu("NVIDIA GeForce RTX 4090").gpu->name == "RTX-4090");
  CHECK(parse_gpu("NVIDIA H100 80GB HBM3").gpu->name == "H100-SXM");
  CHECK(parse_gpu("NVIDIA H200 MIG 1g.18gb").gpu->name == "H200-MIG-1g.18gb");
  CHECK(parse_gpu("NVIDIA A100-SXM4-80GB MIG 3g.40gb").gpu->name == "A100-80GB-MIG-3g.40gb");
  // A profile after the GPU's name without "MIG" (issue #12's A100-80GB-3g.40gb).
  CHECK(parse_gpu("A100-80GB-3g.40gb").gpu->name == "A100-80GB-MIG-3g.40gb");
  CHECK(parse_gpu("A100-80GB-3g.40gb").gpu->memory_bytes == 40192ULL << 20);  // -lgip 39.25 GiB
}

TEST_CASE("a --vram size: every size is taken, and names the GPU sold at that size", "[gpus]") {
  // Every whole decimal size from 1 to 2,000 GB is a plain memory size; the catalog's "sold as" texts
  // ("64 GB per GCD", "16 GB unified") are only compared, never in the way.
  for (std::uint64_t gb = 1; gb <= 2000; ++gb) {
    INFO(gb);
    const kvplan::Hardware h = kvplan::hardware_from_vram(fmt::format("{}GB", gb));
    CHECK(h.vram_bytes == gb * 1'000'000'000);
  }
  // An H100 is sold as 80 GB and exposes 79.19 GiB (docs/gpus.md).
  CHECK(kvplan::hardware_from_vram("80GB").detail.find("a GPU sold as \"80 GB\" (H100-SXM) exposes 79.19 GiB") !=
        std::string::npos);
  CHECK(kvplan::hardware_from_vram("100GB").detail.find("sold as") == std::string::npos);
  CHECK(kvplan::hardware_from_vram("8GB").detail.find("Mac") == std::string::npos);
}
