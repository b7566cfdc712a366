// llama.cpp's tensor overrides: -ot PATTERN=BUFFER, --cpu-moe and --n-cpu-moe move weights between
// host memory and the GPUs; the KV stays with each layer's device. The expected bytes are the
// models' config.json arithmetic (models/*.json, each copied from its repository) under llama.cpp's
// own rules: common/common.h LLM_FFN_EXPS_REGEX "\\.ffn_(up|down|gate|gate_up)_(ch|)exps" and
// llm_ffn_exps_block_regex ("blk\\.%d" + it), src/llama-model-loader.cpp (the first override whose
// pattern std::regex_search finds in a tensor's name gives its buffer).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "kvplan/cli.hpp"
#include "support/cli_run.hpp"

using nlohmann::json;

namespace {

using Run = kvplan::test::CliRun;
Run run(std::vector<std::string> args) { return kvplan::test::run_json(std::move(args)); }

std::vector<std::string> qwen3_moe(std::vector<std::string> extra, const std::string& engine = "llamacpp") {
  // bf16 weights: 2 bytes per parameter, so each figure is a parameter count times 2.
  std::vector<std::string> args{"--model", "qwen3-30b-a3b", "--engine", engine, "--gpu", "RTX-3090x2",
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

namespace {

json engine_at(const std::string& build, std::vector<std::string> extra) {
  std::vector<std::string> args{"--model", "llama-3.1-8b", "--engine", "llamacpp@" + build, "--vram", "24GiB"};
  args.insert(args.end(), extra.begin(), extra.end());
  const Run r = run(args);
  INFO(r.err);
  REQUIRE(r.code != 2);
  return r.out["engine"];
}

}  // namespace

TEST_CASE("llama.cpp by build: padding, streams and slots as each build's code sizes them", "[llamacpp][versions]") {
  const std::vector<std::string> four{"--ctx-size", "15000", "--parallel", "4"};
  auto shape = [&](const std::string& build, const char* fa) {
    std::vector<std::string> a = four;
    a.insert(a.end(), {"--flash-attn", fa});
    const json e = engine_at(build, a);
    return std::tuple{e["n_ctx"].get<std::uint64_t>(), e["n_ctx_seq"].get<std::uint64_t>(), e["kv_unified"].get<bool>()};
  };
  // b2871-b6867 (PR #7257, llama_kv_cache_unified::get_padding): 256 with flash attention, 32 without;
  // before b6071 (PR #14959) one unified stream whatever -np says ("forcing unified KV cache").
  CHECK(shape("b5000", "on") == std::tuple{15104u, 15104u, true});
  CHECK(shape("b6000", "off") == std::tuple{15008u, 15008u, true});
  // b6071: one stream per slot of GGML_PAD(ceil(15000 / 4), padding) cells (src/llama-model.cpp create_memory).
  CHECK(shape("b6071", "on") == std::tuple{15360u, 3840u, false});
  CHECK(shape("b6071", "off") == std::tuple{15104u, 3776u, false});
  // b6868-b6974 (PR #16812): no padding at all.
  CHECK(shape("b6900", "off") == std::tuple{15000u, 3750u, false});
  // From b6975 (PR #17046): n_ctx = GGML_PAD(15000, 256) = 15104, n_ctx_seq = GGML_PAD(15104 / 4, 256).
  CHECK(shape("b7000", "off") == std::tuple{15360u, 3840u, false});
  // llama-server b6925-b7432 (PR #16736): -np 1 without -kvu became 4 slots sharing a unified cache.
  const json e = engine_at("b7000", {"--ctx-size", "8192", "--parallel", "1"});
  CHECK(e["n_seq_max"] == 4);
  CHECK(e["kv_unified"] == true);
  CHECK(engine_at("b7433", {"--ctx-size", "8192", "--parallel", "1"})["n_seq_max"] == 1);
  // -c left out: 4096 before b7407 (common_params.n_ctx), the model's n_ctx_train after (PR #16653).
  CHECK(engine_at("b7000", {"--parallel", "1", "--flash-attn", "on"})["n_ctx"] == 4096);
  CHECK(engine_at("b7407", {"--parallel", "1", "--fit", "off"})["n_ctx"] == 131072);
}

TEST_CASE("llama.cpp by build: DeepSeek's cache per head before MLA, the latent as K and V, then K alone", "[llamacpp][versions]") {
  // DeepSeek-V2-Lite (config.json): 27 layers, 16 heads, qk_nope_head_dim 128 + qk_rope_head_dim 64 = 192 of K
  // and v_head_dim 128 of V per head; kv_lora_rank 512 + 64 of latent. 4,096 cells of f16.
  auto kv = [](const char* build) {
    const Run r = run({"--model", "deepseek-v2-lite", "--engine", std::string("llamacpp@") + build, "--vram", "48GiB",
                       "--ctx-size", "4096", "--parallel", "1", "--flash-attn", "on"});
    INFO(r.err);
    REQUIRE(r.code != 2);
    return r.out["engine"]["kv_size_bytes"].get<std::uint64_t>();
  };
  CHECK(kv("b5136") == 27ull * 4096 * 16 * (192 + 128) * 2);  // before PR #12801
  CHECK(kv("b5137") == 27ull * 4096 * (576 + 512) * 2);        // PR #12801: the latent as K and V
  CHECK(kv("b7831") == 27ull * 4096 * (576 + 512) * 2);
  CHECK(kv("b7832") == 27ull * 4096 * 576 * 2);                // PR #19067: V-less
}

TEST_CASE("llama.cpp by build: a flag before the build that added it is an error naming that build", "[llamacpp][versions][errors]") {
  Run r = run(qwen3_moe({"--n-cpu-moe", "4"}, "llamacpp@b6088"));
  CHECK(r.code == 2);
  CHECK(r.err.find("llama.cpp b6088 has no --n-cpu-moe: it came in b6089 (PR #15077)") != std::string::npos);
  r = run(qwen3_moe({"--override-tensor", "exps=CPU"}, "llamacpp@2025-04-01"));
  CHECK(r.code == 2);
  CHECK(r.err.find("llama.cpp 2025-04-01 has no --override-tensor: it came in b5028 (PR #11397)") != std::string::npos);
  // --fit off on a build without --fit asks for what that build does: accepted.
  CHECK(run(qwen3_moe({}, "llamacpp@b5000")).code != 2);
  // Before b2871 the padding rule kvplan knows did not exist yet.
  r = run({"--model", "llama-3.1-8b", "--engine", "llamacpp@b2870", "--vram", "24GiB"});
  CHECK(r.code == 2);
  CHECK(r.err.find("a build number b2871 or later") != std::string::npos);
}

TEST_CASE("llama.cpp by build: an image tag names the build", "[llamacpp][versions]") {
  // .devops images are tagged server-cuda-bNNNN (ghcr.io/ggml-org/llama.cpp).
  const Run r = run({"check", "--gpu", "RTX-3090", "--", "docker", "run", "--gpus", "all",
                     "ghcr.io/ggml-org/llama.cpp:server-cuda-b5000", "-m", "/models/Qwen3-30B-A3B-Q8_0.gguf", "-c", "8192",
                     "--n-cpu-moe", "10"});
  CHECK(r.code == 2);
  CHECK(r.err.find("llama.cpp b5000 has no --n-cpu-moe") != std::string::npos);
}

TEST_CASE("llama.cpp: weights that do not fit get the fewest --n-cpu-moe layers that make them fit", "[llamacpp][fixes]") {
  auto plan = [](std::vector<std::string> extra) {
    std::vector<std::string> args{"--model", "qwen3-235b-a22b", "--engine", "llamacpp", "--gpu", "RTX-4090",
                                  "--weight-dtype", "int4", "--ctx-size", "32768", "--parallel", "1"};
    args.insert(args.end(), extra.begin(), extra.end());
    return run(args);
  };
  const Run r = plan({});
  REQUIRE(r.code == 1);
  REQUIRE(r.out["answer"]["fix"].is_string());
  const std::string first = r.out["answer"]["fix"].get<std::string>();
  INFO(first);
  REQUIRE(first.rfind("--n-cpu-moe ", 0) == 0);
  const std::string n = first.substr(12);
  CHECK(plan({"--n-cpu-moe", n}).code == 0);
  CHECK(plan({"--n-cpu-moe", std::to_string(std::stoul(n) - 1)}).code == 1);
}
