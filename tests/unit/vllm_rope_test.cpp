// The RoPE cos/sin tables vLLM builds beside the weights (vllm/model_executor/layers/rotary_embedding: one per
// distinct rope, [positions, rotary_dim] in the model dtype), read from the real config.json files of
// tests/configs/arch and checked against what vLLM logged as "Model loading took"
// (tests/calibration/engine_logs.jsonl).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "kvplan/model_source.hpp"
#include "support/cli_run.hpp"

using nlohmann::json;

namespace {

const std::string kArch = std::string(KVPLAN_SOURCE_DIR) + "/tests/configs/arch/";

std::uint64_t vllm_weights(std::vector<std::string> args) {
  args.insert(args.end(), {"--engine", "vllm@0.19.0"});
  const kvplan::test::CliRun r = kvplan::test::run_json(std::move(args));
  INFO(r.err);
  REQUIRE(r.code != 2);
  return r.out["budget"]["weights_bytes"].get<std::uint64_t>();
}

}  // namespace

TEST_CASE("RoPE: the rotary embeddings a config.json describes", "[config][rope]") {
  // Llama-3.1-8B-Instruct: rope_type llama3, factor 8, max_position_embeddings 131072, head_dim 4096 / 32.
  const kvplan::ModelChoice llama = kvplan::load_config(kArch + "meta-llama--Llama-3.1-8B-Instruct.json", "--config");
  REQUIRE(llama.spec->ropes.size() == 1);
  CHECK(llama.spec->ropes[0].type == "llama3");
  CHECK(llama.spec->ropes[0].rotary_dim == 128);
  CHECK(llama.spec->ropes[0].max_position == 131072);
  // Qwen3.5-27B: transformers 5's rope_parameters with mrope_section and partial_rotary_factor 0.25 of head_dim 256.
  const kvplan::ModelChoice qwen = kvplan::load_config(kArch + "Qwen--Qwen3.5-27B.json", "--config");
  REQUIRE(qwen.spec->ropes.size() == 1);
  CHECK(qwen.spec->ropes[0].type == "mrope");
  CHECK(qwen.spec->ropes[0].rotary_dim == 64);
  CHECK(qwen.spec->ropes[0].max_position == 262144);
  // Gemma-3-27B: linear × 8 on its full layers, and its sliding layers' own default rope (rope_local_base_freq).
  const kvplan::ModelChoice gemma = kvplan::load_config(kArch + "google--gemma-3-27b-it.json", "--config");
  REQUIRE(gemma.spec->ropes.size() == 2);
  CHECK(gemma.spec->ropes[0].type == "linear");
  CHECK(gemma.spec->ropes[0].factor == 8.0);
  CHECK(gemma.spec->ropes[1].type == "default");
  // gpt-oss-20b: yarn, factor 32 over original_max_position_embeddings 4096, head_dim 64.
  const kvplan::ModelChoice oss = kvplan::load_config(kArch + "openai--gpt-oss-20b.json", "--config");
  REQUIRE(oss.spec->ropes.size() == 1);
  CHECK(oss.spec->ropes[0].type == "yarn");
  CHECK(oss.spec->ropes[0].original_max_position == 4096);
  // A row whose rope kvplan does not read describes none (Whisper: learned positions).
  CHECK(kvplan::load_config(kArch + "openai--whisper-tiny.json", "--config").spec->ropes.empty());
}

TEST_CASE("vLLM: \"Model loading took\" holds the RoPE tables beside the weights", "[vllm][rope]") {
  // Llama-3.1-8B-Instruct: 8,030,261,248 parameters in bf16 plus 131,072 × 128 × 2 B = 32 MiB: 16,094,076,928 B,
  // 14.99 GiB as vLLM 0.19.0 logged it on an H100 (llm-d-planner's llama31-8b runs) and 0.11.0 on an L4.
  const std::uint64_t llama =
      vllm_weights({"--config", kArch + "meta-llama--Llama-3.1-8B-Instruct.json", "--gpu", "H100"});
  CHECK(llama == 2ULL * 8'030'261'248ULL + 131072ULL * 128 * 2);
  CHECK(llama == 16'094'076'928ULL);
  // At tp 2 each rank holds the whole table: 7.51 GiB logged.
  const std::uint64_t half =
      vllm_weights({"--config", kArch + "meta-llama--Llama-3.1-8B-Instruct.json", "--gpu", "H100x2", "--tp", "2"});
  CHECK(half == 8'030'261'248ULL + 131072ULL * 128 * 2);
  // Qwen3.5-27B at tp 4: its 27,356,728,560 parameters (text and vision tower) in bf16 over 4 ranks, and the
  // 4 × 262,144 × 64 × 2 B = 128 MiB multimodal table on every rank: 12.86 GiB, against 13.01 logged by vLLM 0.19.0
  // on 4 × RTX 3090 (the 0.15 GiB left is most likely the caching allocator's rounding, docs/engines.md).
  const std::uint64_t qwen =
      vllm_weights({"--config", kArch + "Qwen--Qwen3.5-27B.json", "--gpu", "RTX-3090x4", "--tp", "4"});
  CHECK(qwen == 13'678'364'280ULL + 4ULL * 262144 * 64 * 2);
}
