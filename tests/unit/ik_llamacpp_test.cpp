// ik_llama.cpp's cache and placement rules, each checked against what its source at 8337e4cd computes
// (docs/engines.md, "ik_llama.cpp") for models whose config.json is in models/. The real logs it was
// calibrated on are in tests/calibration/engine_logs.jsonl (docs/accuracy.md).
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
  std::string text;
};

Run run(std::vector<std::string> args, bool as_json = true) {
  if (as_json) {
    args.insert(args.end(), {"--format", "json"});
  }
  std::ostringstream out;
  std::ostringstream err;
  Run r;
  r.code = kvplan::cli::run(args, out, err);
  r.err = err.str();
  r.text = out.str();
  if (as_json && !r.text.empty()) {
    r.out = json::parse(r.text);
  }
  return r;
}

json engine(const std::string& model, const std::string& version, std::vector<std::string> extra) {
  std::vector<std::string> args{"--model", model, "--engine", "ik_llamacpp@" + version, "--vram", "80GiB"};
  args.insert(args.end(), extra.begin(), extra.end());
  const Run r = run(args);
  INFO(r.err);
  REQUIRE(r.code != 2);
  return r.out["engine"];
}

// DeepSeek-V2-Lite (config.json): 27 layers, 16 heads, qk_nope_head_dim 128 + qk_rope_head_dim 64 = 192 of
// K and v_head_dim 128 of V per head; kv_lora_rank 512 + 64 of latent. 4,096 cells (a multiple of 256), f16.
constexpr std::uint64_t kCells = 4096;

}  // namespace

TEST_CASE("ik_llama.cpp -mla: K and V per head, the latent and its transpose, or the latent only", "[ik_llamacpp]") {
  auto kv = [](const char* mla, const char* fa) {
    return engine("deepseek-v2-lite", "4840", {"--ctx-size", "4096", "--mla", mla, "--flash-attn", fa})["kv_size_bytes"]
        .get<std::uint64_t>();
  };
  CHECK(kv("0", "on") == 27 * kCells * 16 * (192 + 128) * 2);
  CHECK(kv("1", "off") == 27 * kCells * (576 + 512) * 2);  // c^KV and kv^T (needs_v_cache: mla 1 without FA)
  CHECK(kv("1", "on") == 27 * kCells * 576 * 2);
  CHECK(kv("2", "off") == 27 * kCells * 576 * 2);
  CHECK(kv("3", "on") == 27 * kCells * 576 * 2);
  // The default: 0 before build 3983 (PR #943), 3 from it.
  CHECK(engine("deepseek-v2-lite", "3982", {"--ctx-size", "4096", "--flash-attn", "on"})["mla_attn"] == 0);
  CHECK(engine("deepseek-v2-lite", "3983", {"--ctx-size", "4096"})["mla_attn"] == 3);
  // Partly on the GPU (0 < -ngl < n_layer), mode 0 becomes 3 (llm_load_tensors).
  CHECK(engine("deepseek-v2-lite", "4840", {"--ctx-size", "4096", "--mla", "0", "--gpu-layers", "10"})["mla_attn"] == 3);
}

TEST_CASE("ik_llama.cpp pads by flash attention, on by default from build 3928, and keeps sliding layers whole", "[ik_llamacpp]") {
  CHECK(engine("llama-3.1-8b", "3927", {"--ctx-size", "15000"})["n_ctx"] == 15008);  // 32 without flash attention
  CHECK(engine("llama-3.1-8b", "3928", {"--ctx-size", "15000"})["n_ctx"] == 15104);  // 256 with it (PR #863)
  // One cache for all slots: -np 4 gives each n_ctx / 4 and the same total.
  const json four = engine("llama-3.1-8b", "4840", {"--ctx-size", "16384", "--parallel", "4"});
  CHECK(four["n_ctx_slot"] == 4096);
  CHECK(four["kv_size_bytes"] == 32ull * 16384 * 2 * 8 * 128 * 2);
  // Gemma-3-27B (config.json): 62 layers, 16 KV heads x head_dim 128, five in six sliding over 1,024 tokens;
  // ik_llama.cpp allocates every layer at n_ctx.
  CHECK(engine("gemma-3-27b", "4840", {"--ctx-size", "32768"})["kv_size_bytes"] == 62ull * 32768 * 2 * 16 * 128 * 2);
  // A quantized V needs flash attention (common/common.cpp).
  const Run r = run({"--model", "llama-3.1-8b", "--engine", "ik_llamacpp", "--vram", "80GiB", "--ctx-size", "8192",
                     "--cache-type-v", "q8_0", "--flash-attn", "off"},
                    false);
  CHECK(r.code == 1);
  CHECK(r.text.find("a quantized V cache (q8_0) cannot be used without flash attention") != std::string::npos);
}

TEST_CASE("ik_llama.cpp --n-cpu-moe: the last N MoE layers on one GPU from build 4797", "[ik_llamacpp]") {
  // DeepSeek-V3 (config.json): first_k_dense_replace 3; 256 experts of gate, up and down at 7168 x 2048.
  auto host = [](const char* build) {
    const Run r = run({"--model", "deepseek-v3", "--engine", std::string("ik_llamacpp@") + build, "--vram", "80GiB",
                       "--weight-dtype", "bf16", "--ctx-size", "4096", "--n-cpu-moe", "4"});
    INFO(r.err);
    REQUIRE(r.code != 2);
    return r.out["engine"]["host_model_buffer_bytes"].get<std::uint64_t>();
  };
  const std::uint64_t embeddings = 129280ull * 7168 * 2;
  const std::uint64_t experts = 256ull * 3 * 7168 * 2048 * 2;
  CHECK(host("4796") == embeddings + 1 * experts);  // layers 0-3: only layer 3 has experts
  CHECK(host("4797") == embeddings + 4 * experts);  // PR #2262: layers 57-60
  // Over several GPUs it is shared among them (PR #1464): not modelled, and said so.
  const Run r = run({"--model", "deepseek-v3", "--engine", "ik_llamacpp", "--gpu", "H100x2", "--ctx-size", "4096",
                     "--n-cpu-moe", "4"});
  CHECK(r.code == 2);
  CHECK(r.err.find("--n-cpu-moe over several GPUs") != std::string::npos);
}

TEST_CASE("ik_llama.cpp command lines: its llama-server by path, or by --engine", "[ik_llamacpp][check]") {
  // ikawrakow/ik_llama.cpp issue #450 (cmoncure, 2025-05-23), the model path shortened.
  const std::vector<std::string> line{
      "check", "--engine", "ik_llamacpp@3703", "--model", "deepseek-v3", "--gpu", "H100", "--",
      "llama-server", "-mla", "3", "-fa", "-ctk", "q8_0", "-ctv", "q8_0", "--ctx-size", "32768", "-fmoe", "-amb",
      "512", "-b", "1024", "-ub", "1024", "-sm", "none", "--threads", "16", "--n-gpu-layers", "99",
      "--override-tensor", "exps=CPU", "--override-tensor", "attn=CUDA0", "-m", "DeepSeek-V3-0324-IQ4_K_R4.gguf"};
  Run r = run(line, false);
  INFO(r.text << r.err);
  CHECK(r.code != 2);
  CHECK(r.text.find("ik_llama.cpp 3703") != std::string::npos);
  // The same program from an ik_llama.cpp build folder needs no --engine.
  r = run({"check", "--model", "llama-3.1-8b", "--gpu", "RTX-3090", "--", "/opt/ik_llama.cpp/build/bin/llama-server",
           "-c", "8192", "-m", "model.gguf"},
          false);
  INFO(r.text << r.err);
  CHECK(r.code == 0);
  CHECK(r.text.find("ik_llama.cpp") != std::string::npos);
  // -fmoe: builds before 3928 took it; PR #863 removed it, so a later build stops at it.
  r = run({"check", "--engine", "ik_llamacpp@3927", "--model", "llama-3.1-8b", "--gpu", "RTX-3090", "--", "llama-server",
           "-fmoe", "-c", "8192", "-m", "model.gguf"},
          false);
  CHECK(r.code == 0);
  r = run({"check", "--engine", "ik_llamacpp@3928", "--model", "llama-3.1-8b", "--gpu", "RTX-3090", "--", "llama-server",
           "-fmoe", "-c", "8192", "-m", "model.gguf"},
          false);
  CHECK(r.code == 2);
  CHECK(r.err.find("ik_llama.cpp 3928 has no -fmoe") != std::string::npos);
  // ik_llama.cpp has no -sm row.
  r = run({"check", "--model", "llama-3.1-8b", "--gpu", "RTX-3090x2", "--", "/opt/ik_llama.cpp/build/bin/llama-server",
           "-c", "8192", "-sm", "row", "-m", "model.gguf"},
          false);
  CHECK(r.code == 2);
  CHECK(r.err.find("ik_llama.cpp has no row") != std::string::npos);
}
