// TensorRT-LLM's KV pools (tensorrt_llm/_torch/pyexecutor/resource_manager.py KVCacheManager.calculate_max_num_blocks
// at 001541bad83b): the secondary (host) pool holds host_cache_size // (bytes per token × tokens_per_block) blocks on
// every rank, and 0.20 to 1.1 round the primary pool up to whole blocks (math.ceil), as the 1.1.0rc3 and 0.20.0 logs in
// tests/calibration/engine_logs.jsonl show.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/cli_run.hpp"

using nlohmann::json;

namespace {

json engine_of(std::vector<std::string> args) {
  const kvplan::test::CliRun r = kvplan::test::run_json(std::move(args));
  INFO(r.err);
  REQUIRE(r.code != 2);
  return r.out["engine"];
}

}  // namespace

TEST_CASE("TensorRT-LLM: host_cache_size sizes the secondary pool in whole blocks", "[trtllm]") {
  // Llama-3.1-8B (config.json): 32 layers × 8 KV heads × 128 × 2 (K, V) × 2 B = 131,072 B per token; 32 tokens a block.
  const json e = engine_of({"--model", "llama3.1-8b", "--gpu", "H100", "--engine", "trtllm@1.3", "--host-cache-size",
                            "64GiB"});
  CHECK(e["kv_bytes_per_token"] == 131072);
  CHECK(e["tokens_per_block"] == 32);
  CHECK(e["blocks_in_secondary_pool"] == (64ULL << 30) / (131072ULL * 32));  // 16,384
  // A size that is not a whole block count floors; none gives no secondary pool.
  CHECK(engine_of({"--model", "llama3.1-8b", "--gpu", "H100", "--engine", "trtllm@1.3", "--host-cache-size",
                   "10000000000"})["blocks_in_secondary_pool"] == 10'000'000'000ULL / (131072ULL * 32));
  CHECK(engine_of({"--model", "llama3.1-8b", "--gpu", "H100", "--engine", "trtllm@1.3"})["blocks_in_secondary_pool"] == 0);
}

TEST_CASE("TensorRT-LLM: 0.20 to 1.1 round the primary pool up, the current source down", "[trtllm]") {
  const std::vector<std::string> base{"--model", "gpt-oss-120b", "--vram", "119.70GiB", "--weights", "63.52GiB",
                                      "--activation-memory", "0.29GiB", "--non-torch-memory", "49.28GiB",
                                      "--cuda-graph-memory", "0"};
  auto at = [&](const char* engine) {
    std::vector<std::string> a = base;
    a.insert(a.end(), {"--engine", engine});
    return engine_of(a);
  };
  const json old = at("trtllm@1.1");
  const json now = at("trtllm@1.3");
  const auto tokens = old["max_tokens"].get<std::uint64_t>();
  CHECK(tokens % 32 != 0);
  CHECK(old["blocks_in_primary_pool"] == (tokens + 31) / 32);
  CHECK(now["blocks_in_primary_pool"] == tokens / 32);
}

TEST_CASE("TensorRT-LLM: the pool's log lines are the release's own", "[trtllm]") {
  auto lines = [](const char* engine) {
    // 32 tokens a block, as the PyTorch backend has them (0.20.0's log, run with --backend pytorch).
    const json e = engine_of({"--model", "llama3.1-8b", "--gpu", "H100", "--engine", engine, "--max-model-len", "2048",
                              "--tokens-per-block", "32"});
    std::string all;
    for (const json& n : e["notes"]) {
      all += n.get<std::string>() + "\n";
    }
    return all;
  };
  // lmontigny/lm7 docs/tensorrt-llm.md (1.2.1, --max_seq_len 2048): "Max KV cache blocks per sequence: 65 [window
  // size=2049], tokens per block=32, primary blocks=13189, ..."; the counts before "primary" depend on the length alone.
  CHECK(lines("trtllm@1.2").find("Max KV cache blocks per sequence: 65 [window size=2049], tokens per block=32, "
                                 "primary blocks=") != std::string::npos);
  // NVIDIA/TensorRT-LLM#6294 (0.20.0): "Max KV cache pages per sequence: 5 [window size=157]", then the block size.
  CHECK(lines("trtllm@0.20").find("Max KV cache pages per sequence: 64 [window size=2048]") != std::string::npos);
  CHECK(lines("trtllm@0.19").find("Number of blocks in KV cache primary pool: ") != std::string::npos);
}
