// vLLM's profiling-run sampler (vllm/v1/sample/ops/topk_topp_sampler.py): without FlashInfer's sampler it runs
// PyTorch's apply_top_k_top_p, which sorts min(max_num_seqs, max_num_batched_tokens) rows of the vocabulary. The
// figures are the two vLLM 0.10.2 Qwen3-30B-A3B logs of tests/calibration/engine_logs.jsonl (kolyangg/mlops-assignment
// logs/vllm.log: "FlashInfer is not available", "5.58 GiB for peak activation") and the sort's buffers.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "kvplan/cli.hpp"
#include "support/cli_run.hpp"

using nlohmann::json;

namespace {

json run(std::vector<std::string> args) {
  const kvplan::test::CliRun r = kvplan::test::run_json(std::move(args));
  INFO(r.err);
  REQUIRE(r.code != 2);
  return r.out;
}

const std::vector<std::string> kQwen3Moe{"--model", "Qwen/Qwen3-30B-A3B-Instruct-2507", "--gpu", "H100x1", "--max-model-len",
                                         "6144", "--gpu-memory-utilization", "0.90"};

std::uint64_t activation(const std::string& engine, std::vector<std::string> extra) {
  std::vector<std::string> a = kQwen3Moe;
  a.insert(a.end(), {"--engine", engine});
  a.insert(a.end(), extra.begin(), extra.end());
  return run(a)["budget"]["activation_peak_bytes"].get<std::uint64_t>();
}

}  // namespace

TEST_CASE("vLLM: the sorting sampler's peak is 38 B per row and vocabulary entry plus the hidden states", "[vllm][sampler]") {
  // 1,024 rows (the H100's default max_num_seqs) of the 151,936-entry vocabulary, with 8,192 batched tokens and 2 × 1,024
  // rows of the 2,048-wide hidden state in 16 bits: 5.545 GiB, where vLLM 0.10.2 logged 5.58 GiB.
  const std::uint64_t sorted = 38ULL * 1024 * 151936 + (8192ULL + 2 * 1024) * 2048 * 2;
  CHECK(activation("vllm@0.10.2", {"--flashinfer-sampler", "off"}) == sorted);
  // With FlashInfer's sampler (0.9 to 0.11.0 where it is installed) there is no sort.
  CHECK(activation("vllm@0.10.2", {}) < sorted / 2);
  // From 0.11.1 FlashInfer's sampler is off by default, so every install sorts; from 0.17 the Triton kernel does not.
  CHECK(activation("vllm@0.13", {}) == sorted);
  CHECK(activation("vllm@0.13", {"--flashinfer-sampler", "on"}) < sorted / 2);
  CHECK(activation("vllm@0.19", {}) < sorted / 2);
}

TEST_CASE("vLLM: VLLM_USE_FLASHINFER_SAMPLER on a command line is the sampler knob", "[vllm][sampler]") {
  std::ostringstream out;
  std::ostringstream err;
  const std::vector<std::string> check{"check", "--gpu", "H100", "--engine", "vllm@0.10.2", "--format", "json", "--",
                                       "VLLM_USE_FLASHINFER_SAMPLER=0", "vllm", "serve", "Qwen/Qwen3-30B-A3B-Instruct-2507",
                                       "--max-model-len", "6144"};
  kvplan::cli::run(check, out, err);
  INFO(err.str());
  const json checked = json::parse(out.str());
  std::vector<std::string> plan = kQwen3Moe;
  plan.insert(plan.end(), {"--engine", "vllm@0.10.2"});
  const auto with = [&](const char* sampler) {
    std::vector<std::string> a = plan;
    a.insert(a.end(), {"--flashinfer-sampler", sampler});
    return run(a)["budget"]["kv_budget_bytes"].get<std::uint64_t>();
  };
  CHECK(checked["results"][0]["kv_budget_bytes"] == with("off"));
  CHECK(checked["results"][0]["kv_budget_bytes"] != with("on"));
}
