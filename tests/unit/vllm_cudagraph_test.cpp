// vLLM's CUDA-graph estimate, subtracted from the KV budget since v0.21 (gpu_worker.py
// determine_available_memory; gpu_model_runner.py profile_cudagraph_memory). kvplan counts the capture
// sizes as vLLM does (config/vllm.py _set_cudagraph_sizes) and models each graph's cost per layer
// (docs/budget.md). The counts are the ones vLLM's logs print ("Profiling CUDA graph memory: PIECEWISE=..,
// FULL=.."), for the settings of those logs (tests/calibration/engine_logs.jsonl).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/cli_run.hpp"

namespace {

std::uint64_t graph_bytes(std::vector<std::string> args) {
  const kvplan::test::CliRun r = kvplan::test::run_json(std::move(args));
  INFO(r.err);
  REQUIRE(r.code != 2);
  return r.out["budget"]["cuda_graph_bytes"].get<std::uint64_t>();
}

// 32 MiB for the first capture, 0.22 MiB per layer for each further graph of each mode.
constexpr std::uint64_t model(std::uint64_t layers, std::uint64_t piecewise, std::uint64_t full) {
  return (32ULL << 20) + layers * ((piecewise - 1) + (full - 1)) * 230'686;
}

}  // namespace

TEST_CASE("vLLM: the CUDA-graph estimate counts vLLM's capture sizes", "[vllm][cudagraph]") {
  // vllm-0.22.1-nnamdiodozi-qwen3-30b-a3b-fp8-h100-8k: --max-num-seqs 64 logged "PIECEWISE=19 (largest=128),
  // FULL=11 (largest=64)"; Qwen3-30B-A3B has 48 layers (its config.json).
  const std::vector<std::string> qwen{"--model", "Qwen/Qwen3-30B-A3B-Instruct-2507", "--gpu", "H100", "--engine",
                                      "vllm@0.22.1", "--max-model-len", "8192", "--weight-dtype", "fp8",
                                      "--max-num-seqs", "64", "--max-num-batched-tokens", "8192"};
  CHECK(graph_bytes(qwen) == model(48, 19, 11));
  // vllm-0.19.1-localai-phi3-mini-4k-rtx3090-wsl-gmu085: 256 sequences (a 24 GB card's default) logged
  // "PIECEWISE=51 (largest=512), FULL=35 (largest=256)"; Phi-3-mini has 32 layers. 0.19 logs the estimate and
  // does not subtract it, so the request asks for a release that does.
  CHECK(graph_bytes({"--model", "microsoft/Phi-3-mini-4k-instruct", "--gpu", "RTX-3090", "--engine", "vllm@0.22",
                     "--max-model-len", "4096"}) == model(32, 51, 35));
  // vllm-0.18.0-runpodbench-qwen3-8b-h100-8128-baseline: 1,024 sequences on an H100 logged "PIECEWISE=51
  // (largest=512), FULL=51 (largest=512)": every size is a decode size. Qwen3-8B has 36 layers.
  CHECK(graph_bytes({"--model", "Qwen/Qwen3-8B", "--gpu", "H100", "--engine", "vllm@0.22", "--max-model-len",
                     "8128"}) == model(36, 51, 51));
  // Pipeline parallelism captures each stage's layers; --enforce-eager and releases before 0.21 subtract none.
  CHECK(graph_bytes({"--model", "Qwen/Qwen3-8B", "--gpu", "H100x2", "--pp", "2", "--engine", "vllm@0.22",
                     "--max-model-len", "8128"}) == model(18, 51, 51));
  CHECK(graph_bytes({"--model", "Qwen/Qwen3-8B", "--gpu", "H100", "--engine", "vllm@0.22", "--max-model-len", "8128",
                     "--enforce-eager"}) == 0u);
  CHECK(graph_bytes({"--model", "Qwen/Qwen3-8B", "--gpu", "H100", "--engine", "vllm@0.19", "--max-model-len",
                     "8128"}) == 0u);
}
