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

// The same on triton_kernels' Hopper path: fp32 biases, and each scale tensor held again as
// _swizzle_mxfp4's HopperMXScaleLayout copy (rows padded to 256, columns to 2; mxfp4.py's TRITON branch
// deletes the original weights, not the original scales).
constexpr std::uint64_t round_up(std::uint64_t v, std::uint64_t to) { return (v + to - 1) / to * to; }
constexpr std::uint64_t triton_layer(std::uint64_t experts, std::uint64_t i, std::uint64_t h) {
  return experts * (2 * i * (h / 2) + 2 * i * (h / 32) + 2 * i * 4 + h * (i / 2) + h * (i / 32) + h * 4 +
                    round_up(2 * i, 256) * round_up(h / 32, 2) + round_up(h, 256) * round_up(i / 32, 2));
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

TEST_CASE("vLLM: MXFP4 experts on Hopper take Marlin's shapes before 0.11.1 and triton_kernels' after", "[vllm][mxfp4]") {
  // gpt-oss-20b at tp 2 on H100s. Before 0.11.1 vLLM did not install triton_kernels (#27370), so Hopper ran Marlin: the
  // intermediate size per rank 1440 rounds up to 1536 and the hidden size to 3072. From 0.11.1 triton_kernels rounds
  // only the intermediate size, to 64 (1472), and holds the scales twice; --moe-backend marlin asks for Marlin again.
  const auto plan = [](const char* engine, std::vector<std::string> extra) {
    std::vector<std::string> a{"--model", "openai/gpt-oss-20b", "--tp", "2", "--engine", engine, "--max-model-len", "8192"};
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  };
  const std::uint64_t unpadded_bytes = unpadded(24, 32, 2);
  const std::uint64_t marlin = 24 * padded_layer(32, 1536, 3072) - unpadded_bytes;
  const std::uint64_t rounded = 24 * triton_layer(32, 1472, 2880) - unpadded_bytes;
  const auto delta = [&](const char* engine, std::vector<std::string> extra) {
    std::vector<std::string> h100 = extra;
    h100.insert(h100.end(), {"--gpu", "H100x2"});
    return weights(plan(engine, h100)) - weights(plan(engine, {"--vram", "81090MiB"}));
  };
  for (const std::uint64_t d : {delta("vllm@0.10.2", {}), delta("vllm@0.19", {"--moe-backend", "marlin"})}) {
    CHECK(d + 1 >= marlin);
    CHECK(d <= marlin + 1);
  }
  for (const std::uint64_t d : {delta("vllm@0.19", {}), delta("vllm@0.10.2", {"--moe-backend", "triton"})}) {
    CHECK(d + 1 >= rounded);
    CHECK(d <= rounded + 1);
  }
  // On Blackwell (sm_100) FlashInfer's TRT-LLM kernel is the default, both sizes to 256: at tp 1 the intermediate size
  // 2880 becomes 3072, against Marlin's 2944 (--moe-backend marlin, or VLLM_MXFP4_USE_MARLIN=1 on a command line).
  const std::vector<std::string> b200{"--model", "openai/gpt-oss-20b", "--gpu", "B200", "--engine", "vllm@0.19",
                                      "--max-model-len", "8192"};
  std::vector<std::string> b200_marlin = b200;
  b200_marlin.insert(b200_marlin.end(), {"--moe-backend", "marlin"});
  CHECK(weights(b200) - weights(b200_marlin) == 24 * (padded_layer(32, 3072, 3072) - padded_layer(32, 2944, 3072)));
}

TEST_CASE("vLLM: a MoE backend vLLM's MXFP4 method does not know is refused by name", "[vllm][mxfp4]") {
  const kvplan::test::CliRun r = kvplan::test::run_json({"--model", "openai/gpt-oss-20b", "--gpu", "H100", "--engine",
                                                         "vllm@0.19", "--moe-backend", "deep_gemm"});
  CHECK(r.code == 2);
  CHECK(r.err.find("moe_backend='deep_gemm' is not supported for MXFP4 MoE") != std::string::npos);
}
