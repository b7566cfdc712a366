// `kvplan check` reads engines' own command lines as their documentation writes them, typed once,
// and what `kvplan emit` prints for a plan passes `kvplan check`.
#include <algorithm>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <sstream>

#include "kvplan/cli.hpp"
#include "kvplan/command_line.hpp"
#include "kvplan/error.hpp"
#include "kvplan/model_source.hpp"
#include "kvplan/plan.hpp"

using kvplan::CommandContext;
using kvplan::PlanRequest;

namespace {

PlanRequest read(const std::string& line, const std::string& model = "") {
  CommandContext ctx;
  ctx.hardware = kvplan::hardware_from_gpu("H100x8");
  if (!model.empty()) {
    ctx.model = kvplan::load_preset(model);
  }
  const std::vector<std::string> words = kvplan::shell_words(line);
  return kvplan::read_command_line(words, ctx);
}

std::optional<std::uint64_t> knob(const PlanRequest& q, std::string_view key) {
  const auto index = q.engine_ref().knob_index(key);
  REQUIRE(index);
  return q.knobs.number(*index);
}

std::vector<std::string> command_of(const std::string& emitted) {
  std::vector<std::string> out;
  std::istringstream in(emitted);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.front() != '#') {
      for (const std::string& w : kvplan::shell_words(line)) {
        out.push_back(w);
      }
    }
  }
  return out;
}

}  // namespace

TEST_CASE("command lines from the engines' documentation", "[check]") {
  // docs.vllm.ai, "Distributed inference and serving" and "OpenAI-compatible server".
  PlanRequest v = read("vllm serve meta-llama/Llama-3.1-8B-Instruct --tensor-parallel-size 4");
  CHECK(v.engine_ref().name() == "vllm");
  CHECK(v.model_spec().name == "llama-3.1-8b");
  CHECK(v.tp == 4u);
  v = read("vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 32768 --gpu-memory-utilization=0.95 --port 8000");
  CHECK(v.max_model_len == 32768u);
  CHECK(knob(v, "gpu_memory_utilization") == 950'000u);
  v = read("python -m vllm.entrypoints.openai.api_server --model facebook/opt-125m --dtype half -tp 2 -pp 2",
           "llama-3.1-8b");
  CHECK(v.weights->linear.name == "fp16");
  CHECK(v.tp == 2u);
  CHECK(v.pp == 2u);
  // vLLM reads --snake_case as --kebab-case (FlexibleArgumentParser) and human_readable_int values.
  v = read("vllm serve meta-llama/Llama-3.1-8B-Instruct --max_model_len 32K --kv-cache-memory-bytes 21474836480");
  CHECK(v.max_model_len == 32768u);
  CHECK(knob(v, "kv_cache_memory_bytes") == 21'474'836'480u);
  // docs.sglang.ai, "Server arguments".
  PlanRequest s = read("python3 -m sglang.launch_server --model-path meta-llama/Meta-Llama-3-8B-Instruct --port 30000 "
                       "--host 0.0.0.0");
  CHECK(s.engine_ref().name() == "sglang");
  CHECK(s.model_spec().name == "llama-3-8b");
  s = read("python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp 8 --trust-remote-code "
           "--mem-fraction-static 0.7 --context-length 65536");
  CHECK(s.tp == 8u);  // --tp is argparse's unique prefix of --tp-size
  CHECK(knob(s, "mem_fraction_static") == 700'000u);
  CHECK(s.max_model_len == 65536u);
  // llama.cpp tools/server/README.md.
  PlanRequest l = read("llama-server -m models/7B/ggml-model.gguf -c 2048", "llama-2-7b");
  CHECK(l.engine_ref().name() == "llamacpp");
  CHECK(knob(l, "ctx_size") == 2048u);
  l = read("llama-server -m model.gguf -c 16384 -np 4 -ctk q8_0 -ctv q8_0 -fa on --port 8080", "llama-2-7b");
  CHECK(knob(l, "parallel") == 4u);
}

TEST_CASE("environment prefixes and docker run name the GPUs and the engine version", "[check]") {
  PlanRequest v = read("CUDA_VISIBLE_DEVICES=0,1 vllm serve meta-llama/Llama-3.1-8B-Instruct -tp 2");
  CHECK(v.hardware.count == 2u);
  // docs.vllm.ai "Using Docker": the image's ENTRYPOINT is `vllm serve`.
  v = read("docker run --runtime nvidia --gpus all -v ~/.cache/huggingface:/root/.cache/huggingface "
           "--env \"HF_TOKEN=$HF_TOKEN\" -p 8000:8000 --ipc=host vllm/vllm-openai:v0.11.0 --model "
           "meta-llama/Llama-3.1-8B-Instruct");
  CHECK(v.engine_ref().name() == "vllm");
  CHECK(v.version.text == "v0.11.0");
  CHECK(v.version.key == 11);
  v = read("docker run --gpus '\"device=0,1\"' vllm/vllm-openai:latest meta-llama/Llama-3.1-8B-Instruct");
  CHECK(v.hardware.count == 2u);
  CHECK(v.version.is_default);
  CHECK(!v.warnings.empty());
  PlanRequest s = read("docker run --gpus all --shm-size 32g -p 30000:30000 --ipc=host lmsysorg/sglang:v0.5.4.post1 "
                       "python3 -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct --host 0.0.0.0");
  CHECK(s.engine_ref().name() == "sglang");
  CHECK(s.version.key == 5);
}

TEST_CASE("unknown and unmodelled flags are warnings; --strict makes unknown ones errors", "[check][errors]") {
  PlanRequest v = read("vllm serve meta-llama/Llama-3.1-8B-Instruct --max-modl-len 1000");
  REQUIRE(v.warnings.size() == 1);
  CHECK(v.warnings.front().find("did you mean '--max-model-len'") != std::string::npos);
  v = read("vllm serve meta-llama/Llama-3.1-8B-Instruct --speculative-config '{\"model\": \"x\", "
           "\"num_speculative_tokens\": 5}'");
  CHECK(v.uncertain);
  CommandContext strict;
  strict.hardware = kvplan::hardware_from_gpu("H100");
  strict.strict = true;
  const std::vector<std::string> words = kvplan::shell_words("vllm serve meta-llama/Llama-3.1-8B-Instruct --bogus 1");
  CHECK_THROWS_AS(kvplan::read_command_line(words, strict), kvplan::Error);
  CHECK_THROWS_AS(read("vllm serve x --max-model-len"), kvplan::Error);
  // SGLang's --pp is ambiguous for argparse (--pp-size, --pp-max-micro-batch-size, ...): it refuses to start.
  PlanRequest s = read("python3 -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct --pp 2");
  CHECK(s.refusal.has_value());
}

TEST_CASE("what emit prints, check passes", "[check][emit]") {
  for (const char* engine : {"vllm", "sglang", "trtllm"}) {
    DYNAMIC_SECTION(engine) {
      std::ostringstream out;
      std::ostringstream err;
      REQUIRE(kvplan::cli::run({"emit", "--model", "llama-3.1-70b", "--gpu", "H100x4", "--engine", engine, "--seq-len",
                                "32k", "--concurrency", "12"},
                               out, err) == 0);
      std::vector<std::string> args{"check", "--gpu", "H100x4", "--concurrency", "12", "--seq-len", "32k", "--"};
      for (const std::string& w : command_of(out.str())) {
        args.push_back(w);
      }
      std::ostringstream check_out;
      INFO(out.str());
      CHECK(kvplan::cli::run(args, check_out, err) == 0);
      INFO(check_out.str());
      CHECK(check_out.str().find("PASS ") != std::string::npos);
    }
  }
  std::ostringstream out;
  std::ostringstream err;
  REQUIRE(kvplan::cli::run({"emit", "--model", "qwen3-8b", "--gpu", "RTX-4090", "--engine", "llamacpp", "--seq-len", "8k",
                            "--concurrency", "2", "--kv-dtype", "q8_0"},
                           out, err) == 0);
  std::vector<std::string> args{"check", "--gpu", "RTX-4090", "--model", "qwen3-8b", "--concurrency", "2", "--seq-len",
                                "8k", "--"};
  for (const std::string& w : command_of(out.str())) {
    args.push_back(w);
  }
  std::ostringstream check_out;
  INFO(out.str());
  CHECK(kvplan::cli::run(args, check_out, err) == 0);
}

TEST_CASE("host-memory KV tiers: vLLM's CPU offloading and SGLang's hierarchical cache", "[check][host]") {
  // vLLM: --kv-offloading-size is GiB over all ranks (vllm/config/cache.py CacheConfig), and vLLM's
  // own test of _post_init_kv_transfer_config gives 8 GiB at tp 2 × pp 2 as cpu_bytes_to_use 8 × 2^30.
  // CPUOffloadingSpec: blocks of page 32,768 B (16 tokens × 4 KV heads × 128 × 2 × 2 B) × 16 layers
  // per stage × world 4 = 2 MiB, so 4,096 CPU blocks of 16 tokens.
  PlanRequest v = read("vllm serve meta-llama/Llama-3.1-8B-Instruct -tp 2 -pp 2 --kv-offloading-size 8");
  CHECK(knob(v, "kv_offloading_size") == 8ull << 30);
  const kvplan::PlanResult pv = kvplan::plan(v);
  REQUIRE(pv.engine.host);
  CHECK(pv.engine.host->tokens == 4096u * 16u);
  CHECK(pv.engine.host->bytes == 8ull << 30);
  CHECK(pv.engine.host->knob == "--kv-offloading-size 8");
  // Without the flag there is no tier.
  CHECK_FALSE(kvplan::plan(read("vllm serve meta-llama/Llama-3.1-8B-Instruct -tp 2")).engine.host);
  // SGLang (mem_cache/memory_pool_host.py HostKVCache): --hicache-size is decimal GB per rank, and
  // the pool is size // bytes per token, plus one page; SGLang then logs the bytes in GB, as the
  // "Requesting 40.00 GB" of sgl-project/sglang#8102 shows for 40.
  PlanRequest s = read("python3 -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct "
                       "--enable-hierarchical-cache --hicache-size 40");
  const kvplan::PlanResult ps = kvplan::plan(s);
  REQUIRE(ps.engine.host);
  CHECK(ps.engine.host->tokens == 40'000'000'000ull / 131'072 + 1);  // 131,072 B per token at tp 1
  const auto& logs = ps.engine.log_lines;
  CHECK(std::find(logs.begin(), logs.end(), "Allocating 40.00 GB host memory for hierarchical KV cache.") != logs.end());
  // The ratio (default 2.0) multiplies the GPU pool's tokens.
  PlanRequest r = read("python3 -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct "
                       "--enable-hierarchical-cache --tp 2");
  const kvplan::PlanResult pr = kvplan::plan(r);
  REQUIRE(pr.engine.host);
  std::uint64_t pool = 0;
  for (const kvplan::Field& f : pr.engine.fields) {
    pool = f.key == "max_total_num_tokens" ? f.value.n : pool;
  }
  CHECK(pr.engine.host->tokens == 2 * pool + 1);
  CHECK(pr.engine.host->bytes == pr.engine.host->tokens * 65'536 * 2);  // 65,536 B per token per rank, 2 ranks
  // A ratio that is not a positive number is one error naming the flag.
  CHECK_THROWS_WITH(read("python3 -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct "
                         "--enable-hierarchical-cache --hicache-ratio -1"),
                    Catch::Contains("--hicache-ratio"));
}

TEST_CASE("host-memory KV tiers: LMCache's CPU pool per TP rank", "[check][host]") {
  // LMCache (LMCacheConnectorV1) pins LMCACHE_MAX_LOCAL_CPU_SIZE GiB per TP rank (local_cpu_backend.py
  // initialize_allocator: int(size * 1024**3)) and stores 256-token chunks of [2, layers, 256, kv heads x head
  // size] in the cache dtype, each rounded up to 4096 B. LMCache#2901: 50 GiB holds 409,600 tokens of a
  // Llama-3-8B rank (131,072 B per token), which is 1,600 chunks of 32 MiB.
  // The command line is moyiii-ai/vllm srs_test/server_dp1.sh's, with its 100 GiB halved to the 50.
  PlanRequest q = read("LMCACHE_CHUNK_SIZE=256 LMCACHE_LOCAL_CPU=True LMCACHE_MAX_LOCAL_CPU_SIZE=50.0 "
                       "vllm serve meta-llama/Llama-3.1-8B --no-enable-prefix-caching --port 8001 "
                       "--kv-transfer-config '{\"kv_connector\":\"LMCacheConnectorV1\", \"kv_role\":\"kv_both\"}'");
  const kvplan::PlanResult p = kvplan::plan(q);
  REQUIRE(p.engine.host);
  CHECK(p.engine.host->tokens == 409'600u);
  CHECK(p.engine.host->bytes == 50ull << 30);
  // LMCache-Ascend PR #184 logs kv_shape=(36, 2, 256, 4, 128) in bf16 for Qwen3-8B at tp 2: 18,874,368 B a
  // chunk, so the default 5 GiB per rank holds 284 chunks, 72,704 tokens; both ranks pin 10 GiB.
  const kvplan::PlanResult d = kvplan::plan(read(
      "vllm serve Qwen/Qwen3-8B -tp 2 --kv-transfer-config '{\"kv_connector\":\"LMCacheConnectorV1\",\"kv_role\":\"kv_both\"}'"));
  REQUIRE(d.engine.host);
  CHECK(d.engine.host->tokens == 284u * 256u);
  CHECK(d.engine.host->bytes == 10ull << 30);
  // Another connector adds no host tier kvplan plans, and a config that is not JSON is an error naming the flag.
  CHECK_FALSE(kvplan::plan(read("vllm serve Qwen/Qwen3-8B --kv-transfer-config "
                                "'{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\"}'"))
                  .engine.host);
  CHECK_THROWS_WITH(read("vllm serve Qwen/Qwen3-8B --kv-transfer-config nope"), Catch::Contains("--kv-transfer-config"));
  // --kv-offloading-backend lmcache hands --kv-offloading-size to LMCache (a separate server since vLLM PR #42865):
  // not vLLM's own CPU tier, so no tier is planned.
  CHECK_FALSE(kvplan::plan(read("vllm serve meta-llama/Llama-3.1-8B-Instruct -tp 2 --kv-offloading-size 8 "
                                "--kv-offloading-backend lmcache"))
                  .engine.host);
}

TEST_CASE("check: NVIDIA Dynamo's vLLM and SGLang workers are read with their engine's flags", "[check]") {
  // ai-dynamo/dynamo README.md at 0016912c, "Run Dynamo": the workers take their engine's own arguments
  // (vLLM's --model, SGLang's --model-path) beside Dynamo's, such as --discovery-backend. Qwen3-0.6B is not
  // in the catalog, so the architecture is given (kvplan check --model).
  const PlanRequest s = read("python3 -m dynamo.sglang --model-path Qwen/Qwen3-0.6B --discovery-backend file", "qwen3-8b");
  CHECK(s.engine_ref().name() == std::string_view("sglang"));
  const PlanRequest v = read(
      "python3 -m dynamo.vllm --model Qwen/Qwen3-0.6B --discovery-backend file "
      "--kv-events-config '{\"enable_kv_cache_events\": false}'",
      "qwen3-8b");
  CHECK(v.engine_ref().name() == std::string_view("vllm"));
  for (const PlanRequest* q : {&s, &v}) {
    // Dynamo's own flag is not the engine's: a warning that names it, not a silent guess.
    CHECK(std::any_of(q->warnings.begin(), q->warnings.end(),
                      [](const std::string& w) { return w.find("--discovery-backend") != std::string::npos; }));
  }
  // The TensorRT-LLM worker's flags are Dynamo's own, not trtllm-serve's: read with its own table, where
  // --discovery-backend is a flag it has (tests/unit/settings_file_test.cpp reads its settings files).
  const PlanRequest t = read("python3 -m dynamo.trtllm --model-path Qwen/Qwen3-0.6B --discovery-backend file", "qwen3-8b");
  CHECK(t.engine_ref().display() == std::string_view("TensorRT-LLM"));
  CHECK(t.warnings.empty());
}

// Flags of earlier vLLM releases (src/engines/flags/vllm_removed.tsv): a command line is read at the release it
// names, so vLLM 0.8.5's --enable-reasoning and --device (vllm-project/vllm#14452, JiapengLi's command line) are
// flags of that release, while a release without them rejects them as argparse does.
TEST_CASE("check: a flag vLLM removed is read at the releases that have it and refused after", "[check]") {
  const std::vector<std::string> line{"--", "python3", "-m", "vllm.entrypoints.openai.api_server", "--model",
                                      "Qwen/Qwen2.5-7B-Instruct", "--max-model-len", "8192", "--enable-reasoning",
                                      "--reasoning-parser", "deepseek_r1", "--device", "cuda"};
  auto check = [&](const std::string& engine) {
    std::vector<std::string> args{"check", "--format", "json", "--gpu", "H100"};
    if (!engine.empty()) {
      args.insert(args.end(), {"--engine", engine});
    }
    args.insert(args.end(), line.begin(), line.end());
    std::ostringstream out;
    std::ostringstream err;
    const int code = kvplan::cli::run(args, out, err);
    INFO(err.str());
    REQUIRE(code != 2);
    return nlohmann::json::parse(out.str()).at("results").at(0);
  };
  auto mentions = [](const nlohmann::json& result, std::string_view text) {
    for (const auto& w : result.at("warnings")) {
      if (w.get<std::string>().find(text) != std::string::npos) {
        return true;
      }
    }
    return false;
  };
  // 0.8.5 has both (--enable-reasoning from 0.7.1, --device until 0.10.0): no unknown flag; --device, whose
  // value may move the model off the GPU, warns as a setting kvplan does not model.
  const nlohmann::json old = check("vllm@0.8.5");
  CHECK(old.at("pass").get<bool>());
  CHECK_FALSE(mentions(old, "unknown flag"));
  CHECK(mentions(old, "--device changes memory"));
  CHECK_FALSE(mentions(old, "--enable-reasoning"));
  // 0.6.3 predates --enable-reasoning (0.7.1): an unknown flag there.
  CHECK(mentions(check("vllm@0.6.3"), "unknown flag '--enable-reasoning'"));
  // vLLM 0.19 named: argparse stops the server, so the check fails, naming the release that removed it.
  const nlohmann::json now = check("vllm@0.19");
  CHECK_FALSE(now.at("pass").get<bool>());
  CHECK(now.at("cause") == "refused");
  CHECK(now.at("summary").get<std::string>().find("was removed in 0.10.0") != std::string::npos);
  // No release named: kvplan's default rejects it, and the command may be older; a warning, and uncertain.
  const nlohmann::json unstated = check("");
  CHECK(unstated.at("uncertain").get<bool>());
  CHECK(mentions(unstated, "was removed in 0.10.0"));
}
