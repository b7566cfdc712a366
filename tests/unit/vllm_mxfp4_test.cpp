// vLLM's MXFP4 MoE method allocates gpt-oss's experts at its kernel's padded shapes
// (vllm/model_executor/layers/quantization/mxfp4.py Mxfp4MoEMethod.create_weights; from v0.19
// fused_moe/oracle/mxfp4.py mxfp4_round_up_hidden_size_and_intermediate_size). Per layer and expert:
// w13 [2 x I, H / 2] and w2 [H, I / 2] uint8, e8m0 scales [2 x I, H / 32] and [H, I / 32], bf16 biases
// [2 x I] and [H]. gpt-oss (openai/gpt-oss-*/config.json): hidden_size 2880, intermediate_size 2880;
// 120b: 36 layers of 128 experts; 20b: 24 layers of 32 experts.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/cli_run.hpp"

using nlohmann::json;

namespace {

std::uint64_t weights(std::vector<std::string> args) {
  const kvplan::test::CliRun r = kvplan::test::run_json(std::move(args));
  INFO(r.err);
  REQUIRE(r.code != 2);
  return r.out["budget"]["weights_bytes"].get<std::uint64_t>();
}

// One layer's experts on one rank at padded sizes i (intermediate per rank) and h (hidden).
constexpr std::uint64_t padded_layer(std::uint64_t experts, std::uint64_t i, std::uint64_t h) {
  return experts * (2 * i * (h / 2) + 2 * i * (h / 32) + 2 * i * 2 + h * (i / 2) + h * (i / 32) + h * 2);
}

// kvplan's unpadded count: every expert parameter (weights and biases) at MXFP4's 17 bytes per 32.
constexpr std::uint64_t unpadded(std::uint64_t layers, std::uint64_t experts, std::uint64_t tp) {
  return layers * experts * (3 * 2880 * 2880 + 2 * 2880 + 2880) * 17 / 32 / tp;
}

}  // namespace

TEST_CASE("vLLM: MXFP4 experts take the Marlin kernel's padded shapes on an A100", "[vllm][mxfp4]") {
  // tp 4: intermediate 720 per rank rounds up to 768 (k % 128), hidden 2880 to 3072 (n % 256): 16.18 GiB of
  // experts per rank, where vLLM 0.10.1.1 logged "Model loading took 17.22 GiB" for the whole rank
  // (tests/calibration/engine_logs.jsonl, vllm-dennislee22-gptoss120b-a100-80gb-tp4-gmu08-16k-4nodes).
  const std::vector<std::string> plan{"--model", "openai/gpt-oss-120b", "--tp", "4", "--engine", "vllm@0.10.1.1",
                                      "--max-model-len", "16384", "--gpu-memory-utilization", "0.8"};
  std::vector<std::string> a100 = plan;
  a100.insert(a100.end(), {"--gpu", "A100-80GBx4"});
  std::vector<std::string> bare = plan;  // a size alone names no architecture, so no backend pads
  bare.insert(bare.end(), {"--vram", "81158MiB"});
  const std::uint64_t padded = 36 * padded_layer(128, 768, 3072);
  CHECK(padded == 17'369'137'152);
  const std::uint64_t delta = padded - unpadded(36, 128, 4);
  CHECK(weights(a100) - weights(bare) + 1 >= delta);
  CHECK(weights(a100) - weights(bare) <= delta + 1);
}

TEST_CASE("vLLM: MXFP4 experts round only the intermediate size to 64 on Hopper (triton_kernels)", "[vllm][mxfp4]") {
  // gpt-oss-20b at tp 2: intermediate 1440 per rank rounds up to 1472; the hidden size is not padded.
  const std::vector<std::string> plan{"--model", "openai/gpt-oss-20b", "--tp", "2", "--engine", "vllm@0.19",
                                      "--max-model-len", "8192"};
  std::vector<std::string> h100 = plan;
  h100.insert(h100.end(), {"--gpu", "H100x2"});
  std::vector<std::string> bare = plan;
  bare.insert(bare.end(), {"--vram", "81090MiB"});
  const std::uint64_t delta = 24 * padded_layer(32, 1472, 2880) - unpadded(24, 32, 2);
  CHECK(weights(h100) - weights(bare) + 1 >= delta);
  CHECK(weights(h100) - weights(bare) <= delta + 1);
}
