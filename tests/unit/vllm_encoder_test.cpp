// The vision encoder's share of vLLM V1's profiling peak (GPUModelRunner.profile_run; docs/engines.md, "The vision
// encoder's profiling"): its shape read from real config.json files (tests/configs/arch), the image count by vLLM's
// encoder budget, and the peak as the larger of the tower's forward and the text run plus what it holds.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "kvplan/model_source.hpp"
#include "support/cli_run.hpp"

namespace {

const std::string kArch = std::string(KVPLAN_SOURCE_DIR) + "/tests/configs/arch/";

std::uint64_t activation(std::vector<std::string> args) {
  const kvplan::test::CliRun r = kvplan::test::run_json(std::move(args));
  INFO(r.err);
  REQUIRE(r.code != 2);
  return r.out["budget"]["activation_peak_bytes"].get<std::uint64_t>();
}

}  // namespace

TEST_CASE("Vision encoder: the Qwen3-VL tower's profiling shape from config.json", "[config][vision]") {
  // Qwen/Qwen3.5-27B's vision_config: hidden_size 1152, intermediate_size 4304, patch_size 16, temporal_patch_size 2,
  // in_channels 3, spatial_merge_size 2, out_hidden_size 5120, no deepstack_visual_indexes; the processor's
  // longest_edge 16,777,216 pixels gives 16,384 tokens per image.
  const kvplan::ModelChoice qwen = kvplan::load_config(kArch + "Qwen--Qwen3.5-27B.json", "--config");
  REQUIRE(qwen.spec->vision_encoder.has_value());
  const kvplan::VisionEncoder& v = *qwen.spec->vision_encoder;
  CHECK(v.hidden == 1152);
  CHECK(v.intermediate == 4304);
  CHECK(v.patch_values == 3 * 2 * 16 * 16);
  CHECK(v.patches_per_token == 4);
  CHECK(v.tokens_per_item == 16384);
  CHECK(v.output_width == 5120);
  // Qwen3-VL-32B-Instruct keeps three deepstack layers (deepstack_visual_indexes [8, 16, 24]): four outputs per token.
  const kvplan::ModelChoice vl = kvplan::load_config(kArch + "Qwen--Qwen3-VL-32B-Instruct.json", "--config");
  REQUIRE(vl.spec->vision_encoder.has_value());
  CHECK(vl.spec->vision_encoder->output_width == 4 * 5120);
  // A text model has none.
  CHECK_FALSE(kvplan::load_config(kArch + "Qwen--Qwen3-32B.json", "--config").spec->vision_encoder.has_value());
}

TEST_CASE("vLLM: the vision encoder's profiling peak", "[vllm][vision]") {
  // Qwen3.5-27B at tp 4 on RTX 3090s, --max-num-seqs 1, as the 0.19.0 calibration run: one image of 65,536 patches,
  // whose forward (per patch: 4 x 1152 whole, 8 x 1152 / 4 split, 1,536 pixel values; 16-bit) outweighs the text run
  // and what it holds, so the profiled peak is the tower's forward whatever the text run needs.
  const std::vector<std::string> base = {"--config", kArch + "Qwen--Qwen3.5-27B.json", "--gpu", "RTX-3090x4", "--tp", "4",
                                         "--engine", "vllm@0.19.0", "--max-model-len", "50000", "--enforce-eager",
                                         "--max-num-seqs", "1"};
  CHECK(activation(base) == 65536ULL * 2 * (4 * 1152 + 8 * 1152 / 4 + 1536));
  std::vector<std::string> skipped = base;
  skipped.emplace_back("--skip-mm-profiling");
  CHECK(activation(skipped) < activation(base));

  // Qwen3-VL at 32,768 batched tokens, 8 sequences of 65,536 tokens: vLLM logs "Encoder cache will be initialized
  // with a budget of 32768 tokens, and profiled with 2 image items of the maximum feature size" (a public
  // Qwen3-VL-8B-Instruct run with those flags; the same processor as 32B's). Here the text run is the larger, and it
  // holds the two images' pixel values and their outputs with the three deepstack copies.
  const std::vector<std::string> vl = {"--config", kArch + "Qwen--Qwen3-VL-32B-Instruct.json", "--gpu", "H100x2",
                                       "--tp", "2", "--engine", "vllm@0.19.0", "--max-model-len", "65536",
                                       "--max-num-batched-tokens", "32768", "--max-num-seqs", "8"};
  std::vector<std::string> vl_skipped = vl;
  vl_skipped.emplace_back("--skip-mm-profiling");
  CHECK(activation(vl) - activation(vl_skipped) == 2 * (65536ULL * 1536 * 2 + 16384ULL * 4 * 5120 * 2));
}
