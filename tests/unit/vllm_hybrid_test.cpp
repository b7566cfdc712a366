// vLLM's Mamba states per request on hybrid models (Gated DeltaNet / Mamba layers beside attention):
// MambaSpec.max_memory_usage_bytes by mamba_cache_mode ("none" 1, "align" 2, "all" one per block), chosen in
// vllm/model_executor/models/config.py MambaModelConfig.verify_and_update_config (5206e5e28c25, #30877), and the
// "GPU KV cache size" of _report_kv_cache_config, int(max concurrency × max_model_len) from #41069.
// The figures are vLLM 0.24.0's own logs of Qwen3.6-35B-A3B on an RTX 5090 (noonghunna/club-3090#612 and
// #652, in tests/calibration/engine_logs.jsonl) and the same arithmetic without prefix caching.
#include <catch2/catch.hpp>
#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "kvplan/cli.hpp"
#include "support/cli_run.hpp"

using nlohmann::json;

namespace {

using Run = kvplan::test::CliRun;
Run run(std::vector<std::string> args) { return kvplan::test::run_json(std::move(args)); }

// Qwen3.6-35B-A3B (config.json): 10 full-attention layers (2 KV heads of 256) and 30 Gated DeltaNet layers,
// fp8 KV; 5.985 GiB is the top of the logged "Available KV cache memory: 5.98 GiB".
std::vector<std::string> qwen36(const std::string& engine, std::vector<std::string> extra) {
  std::vector<std::string> args{"--model", "qwen3.6-35b-a3b", "--gpu", "RTX-5090", "--engine", engine,
                                "--max-model-len", "131072", "--kv-cache-dtype", "fp8", "--weight-dtype", "nvfp4",
                                "--kv-cache-memory", "5.985GiB"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

}  // namespace

TEST_CASE("vLLM: prefix caching on a Gated DeltaNet hybrid keeps two states per request (align)", "[vllm][hybrid]") {
  // One attention page holds a GDN state: block 2,096 tokens (16 × cdiv(2,146,304 B, 16 × 1,024 B)), 299 blocks
  // of 10 layers; a 131,072-token request needs cdiv(131072, 2096) = 63 attention blocks plus 2 per GDN group.
  const Run on = run(qwen36("vllm@0.24", {"--enable-prefix-caching"}));
  REQUIRE(on.code != 2);
  const json& e = on.out["engine"];
  CHECK(e["block_size"] == 2096);
  CHECK(e["num_gpu_blocks"] == 299);
  CHECK(e["num_kv_cache_groups"] == 4);
  CHECK(e["max_concurrency"].get<double>() == Approx(299.0 / 69));  // logged 4.33x
  CHECK(e["gpu_kv_cache_tokens"] == 567978);                        // logged 567,978 tokens
  // Without it (0.24's default for hybrids), one state per GDN group: 63 + 3 blocks.
  const Run off = run(qwen36("vllm@0.24", {}));
  CHECK(off.out["engine"]["max_concurrency"].get<double>() == Approx(299.0 / 66));
  CHECK(off.out["engine"]["gpu_kv_cache_tokens"] == 593795);
  // From 0.27 (#50991) prefix caching is a hybrid's default, and align with it.
  const Run later = run(qwen36("vllm@0.27", {}));
  CHECK(later.out["engine"]["max_concurrency"].get<double>() == Approx(299.0 / 69));
  // A command line's --no-enable-prefix-caching turns it off again: one state per GDN group, more requests.
  auto concurrency = [](std::vector<std::string> extra) {
    std::vector<std::string> a{"check", "--gpu", "H200", "--engine", "vllm@0.27", "--format", "json", "--", "vllm",
                               "serve", "Qwen/Qwen3.6-35B-A3B", "--max-model-len", "131072", "--kv-cache-dtype", "fp8"};
    a.insert(a.end(), extra.begin(), extra.end());
    std::ostringstream out;
    std::ostringstream err;
    kvplan::cli::run(a, out, err);
    INFO(err.str());
    return json::parse(out.str())["results"][0]["max_concurrency"].get<std::uint64_t>();
  };
  const std::uint64_t align = concurrency({});
  const std::uint64_t none = concurrency({"--no-enable-prefix-caching"});
  CHECK(none > align);
  CHECK(none == Approx(static_cast<double>(align) * 69 / 66).margin(1.0));  // 63 + 3 × 2 blocks against 63 + 3
  // Before #41069 the token figure was blocks // groups × block size.
  const Run older = run(qwen36("vllm@0.19", {"--enable-prefix-caching"}));
  CHECK(older.out["engine"]["gpu_kv_cache_tokens"] == 299 / 4 * 2096);
}

TEST_CASE("vLLM: a Mamba-2 hybrid with prefix caching keeps a state per block (all) before 0.27", "[vllm][hybrid]") {
  const std::vector<std::string> base{"--model", "nemotron-h-56b", "--gpu", "H100x4", "--tp", "4", "--max-model-len", "8192"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> a = base;
    a.insert(a.end(), extra.begin(), extra.end());
    return run(a);
  };
  const Run none = with({"--engine", "vllm@0.24"});
  const Run all = with({"--engine", "vllm@0.24", "--enable-prefix-caching"});
  const Run align = with({"--engine", "vllm@0.27"});
  REQUIRE(none.code != 2);
  const std::uint64_t block = none.out["engine"]["block_size"].get<std::uint64_t>();
  const std::uint64_t attention = (8192 + block - 1) / block;
  // Blocks one request needs: num_gpu_blocks / max concurrency. Attention groups need cdiv(8192, block) in
  // every mode; each of the M Mamba groups 1 (none), cdiv(8192, block) (all) or 2 (align).
  auto need = [](const Run& r) {
    return r.out["engine"]["num_gpu_blocks"].get<double>() / r.out["engine"]["max_concurrency"].get<double>();
  };
  const double mamba_groups = need(align) - need(none);
  CHECK(mamba_groups >= 1);
  CHECK(mamba_groups == Approx(std::round(mamba_groups)).margin(1e-6));
  CHECK(need(all) - need(none) == Approx(mamba_groups * static_cast<double>(attention - 1)).margin(1e-6));
  CHECK(all.out["engine"]["block_size"] == block);
  CHECK(all.out.dump().find("mamba_cache_mode all") != std::string::npos);
}

TEST_CASE("vLLM: --mamba-cache-mode is read from vLLM command lines, from 0.15", "[vllm][hybrid]") {
  std::ostringstream out;
  std::ostringstream err;
  const std::vector<std::string> check{"check", "--gpu", "RTX-5090", "--", "vllm", "serve", "Qwen/Qwen3.6-35B-A3B",
                                       "--max-model-len", "131072", "--kv-cache-dtype", "fp8", "--mamba-cache-mode",
                                       "bogus"};
  CHECK(kvplan::cli::run(check, out, err) == 2);
  CHECK(err.str().find("expected none, align or all") != std::string::npos);
}
