// llama.cpp's tensor overrides: -ot PATTERN=BUFFER, --cpu-moe and --n-cpu-moe move weights between
// host memory and the GPUs; the KV stays with each layer's device. The expected bytes are the
// models' config.json arithmetic (models/*.json, each copied from its repository) under llama.cpp's
// own rules: common/common.h LLM_FFN_EXPS_REGEX "\\.ffn_(up|down|gate|gate_up)_(ch|)exps" and
// llm_ffn_exps_block_regex ("blk\\.%d" + it), src/llama-model-loader.cpp (the first override whose
// pattern std::regex_search finds in a tensor's name gives its buffer).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "kvplan/cli.hpp"

using nlohmann::json;

namespace {

struct Run {
  int code = 0;
  json out;
  std::string err;
};

Run run(std::vector<std::string> args) {
  args.insert(args.end(), {"--format", "json"});
  std::ostringstream out;
  std::ostringstream err;
  Run r;
  r.code = kvplan::cli::run(args, out, err);
  r.err = err.str();
  if (!out.str().empty()) {
    r.out = json::parse(out.str());
  }
  return r;
}

std::vector<std::string> qwen3_moe(std::vector<std::string> extra) {
  // bf16 weights: 2 bytes per parameter, so each figure is a parameter count times 2.
  std::vector<std::string> args{"--model", "qwen3-30b-a3b", "--engine", "llamacpp", "--gpu", "RTX-3090x2",
                                "--weight-dtype", "bf16", "--ctx-size", "16384", "--parallel", "1", "--fit", "off"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

// Qwen3-30B-A3B (config.json): 48 layers, every one MoE (decoder_sparse_step 1, mlp_only_layers []),
// 128 experts of gate, up and down at hidden 2048 x moe_intermediate_size 768.
constexpr std::uint64_t kExpertsPerLayer = 128ull * 3 * 2048 * 768 * 2;  // 1,207,959,552 B
constexpr std::uint64_t kEmbeddings = 151936ull * 2048 * 2;                 // token_embd: vocab x hidden
// The KV of all 48 layers at 16,384 cells: 2 (K, V) x 4 KV heads x head_dim 128 x 2 B per layer and cell.
constexpr std::uint64_t kKv = 48ull * 16384 * 2 * 4 * 128 * 2;

}  // namespace

TEST_CASE("llama.cpp --n-cpu-moe and --cpu-moe keep experts in host memory, and the KV on the GPUs", "[llamacpp]") {
  const Run base = run(qwen3_moe({}));
  REQUIRE(base.code != 2);
  const json& b = base.out["engine"];
  CHECK(b["host_model_buffer_bytes"] == kEmbeddings);

  const Run n20 = run(qwen3_moe({"--n-cpu-moe", "20"}));
  INFO(n20.err);
  REQUIRE(n20.code != 2);
  const json& e = n20.out["engine"];
  // Layers 0-19 hold CUDA0's share (24 of 48 layers each, -ts even): its experts leave it, CUDA1 keeps its own.
  CHECK(e["host_model_buffer_bytes"] == kEmbeddings + 20 * kExpertsPerLayer);
  CHECK(e["cuda0_model_buffer_bytes"].get<std::uint64_t>() ==
        b["cuda0_model_buffer_bytes"].get<std::uint64_t>() - 20 * kExpertsPerLayer);
  CHECK(e["cuda1_model_buffer_bytes"] == b["cuda1_model_buffer_bytes"]);
  CHECK(e["cuda0_kv_buffer_bytes"].get<std::uint64_t>() + e["cuda1_kv_buffer_bytes"].get<std::uint64_t>() == kKv);
  CHECK(e["host_kv_buffer_bytes"] == 0);

  const Run all = run(qwen3_moe({"--cpu-moe"}));
  REQUIRE(all.code != 2);
  CHECK(all.out["engine"]["host_model_buffer_bytes"] == kEmbeddings + 48 * kExpertsPerLayer);
  CHECK(all.out["engine"]["cuda0_kv_buffer_bytes"] == b["cuda0_kv_buffer_bytes"]);

  // The same as an -ot pattern: llm_ffn_exps_block_regex for layers 0 to 19, written as one regex.
  const Run ot = run(qwen3_moe({"--override-tensor", "blk\\.([0-9]|1[0-9])\\.ffn_(up|down|gate)_exps=CPU"}));
  REQUIRE(ot.code != 2);
  CHECK(ot.out["engine"]["host_model_buffer_bytes"] == e["host_model_buffer_bytes"]);
  CHECK(ot.out["engine"]["cuda0_model_buffer_bytes"] == e["cuda0_model_buffer_bytes"]);
}

TEST_CASE("llama.cpp -ot moves whole layers or single expert tensors, in the order given", "[llamacpp]") {
  const Run base = run(qwen3_moe({}));
  const json& b = base.out["engine"];
  // Only the down projections of every layer: a third of each layer's experts.
  const Run down = run(qwen3_moe({"--override-tensor", "ffn_down_exps=CPU"}));
  REQUIRE(down.code != 2);
  CHECK(down.out["engine"]["host_model_buffer_bytes"] == kEmbeddings + 48 * (kExpertsPerLayer / 3));
  // Layer 47 (CUDA1's) to CUDA0, whole: its weights change device, its KV does not.
  const Run moved = run(qwen3_moe({"--override-tensor", "blk\\.47\\.=CUDA0"}));
  REQUIRE(moved.code != 2);
  const json& m = moved.out["engine"];
  CHECK(m["cuda0_model_buffer_bytes"].get<std::uint64_t>() + m["cuda1_model_buffer_bytes"].get<std::uint64_t>() ==
        b["cuda0_model_buffer_bytes"].get<std::uint64_t>() + b["cuda1_model_buffer_bytes"].get<std::uint64_t>());
  CHECK(m["cuda0_model_buffer_bytes"].get<std::uint64_t>() > b["cuda0_model_buffer_bytes"].get<std::uint64_t>());
  CHECK(m["cuda1_kv_buffer_bytes"] == b["cuda1_kv_buffer_bytes"]);
  // The first pattern that matches wins: layer 0's experts stay on CUDA0, the rest go to the host.
  const Run first = run(qwen3_moe({"--override-tensor", "blk\\.0\\.ffn=CUDA0,exps=CPU"}));
  REQUIRE(first.code != 2);
  CHECK(first.out["engine"]["host_model_buffer_bytes"] == kEmbeddings + 47 * kExpertsPerLayer);
}

TEST_CASE("llama.cpp --n-cpu-moe counts layers, not MoE layers: DeepSeek-V3's first three are dense", "[llamacpp]") {
  // DeepSeek-V3 (config.json): first_k_dense_replace 3, so blk.0-2 have no ffn_*_exps tensors; layer 3 has
  // 256 experts of gate, up and down at hidden 7168 x moe_intermediate_size 2048.
  auto host = [](const char* n) {
    const Run r = run({"--model", "deepseek-v3", "--engine", "llamacpp", "--gpu", "H200x8", "--weight-dtype", "bf16",
                       "--ctx-size", "4096", "--parallel", "1", "--fit", "off", "--n-cpu-moe", n});
    REQUIRE(r.code != 2);
    return r.out["engine"]["host_model_buffer_bytes"].get<std::uint64_t>();
  };
  const std::uint64_t embeddings = 129280ull * 7168 * 2;
  CHECK(host("3") == embeddings);
  CHECK(host("4") == embeddings + 256ull * 3 * 7168 * 2048 * 2);
}

TEST_CASE("llama.cpp -ot: what kvplan cannot size is refused by name", "[llamacpp][errors]") {
  // A pattern that splits a layer's attention tensors: kvplan sizes them only together.
  Run r = run(qwen3_moe({"--override-tensor", "attn_q=CPU"}));
  CHECK(r.code == 2);
  CHECK(r.err.find("blk.0.attn_norm.weight and blk.0.attn_q.weight") != std::string::npos);
  // A device the plan does not have, and a name that is no buffer type (llama.cpp: "unknown buffer type").
  r = run(qwen3_moe({"--override-tensor", "exps=CUDA2"}));
  CHECK(r.code == 2);
  CHECK(r.err.find("the plan has 2 GPUs (CUDA0 to CUDA1)") != std::string::npos);
  r = run(qwen3_moe({"--override-tensor", "exps=GPU"}));
  CHECK(r.code == 2);
  CHECK(r.err.find("unknown buffer type 'GPU'") != std::string::npos);
  r = run(qwen3_moe({"--override-tensor", "exps"}));
  CHECK(r.code == 2);
  CHECK(r.err.find("is not PATTERN=BUFFER") != std::string::npos);
  r = run(qwen3_moe({"--override-tensor", "blk\\.(0=CPU"}));
  CHECK(r.code == 2);
  CHECK(r.err.find("is not a regular expression") != std::string::npos);
}
