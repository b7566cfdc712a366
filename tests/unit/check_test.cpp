// `kvplan check` reads engines' own command lines as their documentation writes them, and what
// `kvplan emit` prints for a plan passes `kvplan check`.
#include <catch2/catch.hpp>
#include <sstream>

#include "deployment.hpp"
#include "kvplan/cli.hpp"
#include "kvplan/error.hpp"

using namespace kvplan::cli;

namespace {

std::vector<std::string> words(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  for (std::string w; in >> w;) {
    out.push_back(w);
  }
  return out;
}

Deployment read(const std::string& line, const std::string& model = "") {
  PlanOptions base;
  base.gpu = "H100x8";
  base.model = model;
  return read_engine_command(words(line), base);
}

}  // namespace

TEST_CASE("command lines from the engines' documentation", "[check]") {
  // docs.vllm.ai, "Distributed inference and serving" and "OpenAI-compatible server".
  Deployment v = read("vllm serve meta-llama/Llama-3.1-8B-Instruct --tensor-parallel-size 4");
  CHECK(v.plan.engine == "vllm");
  CHECK(v.plan.model == "meta-llama/Llama-3.1-8B-Instruct");
  CHECK(v.plan.tp == "4");
  v = read("vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 32768 --gpu-memory-utilization=0.95 --port 8000");
  CHECK(v.plan.max_model_len == "32768");
  CHECK(v.plan.gpu_memory_utilization == "0.95");
  v = read("python -m vllm.entrypoints.openai.api_server --model facebook/opt-125m --dtype half -tp 2 -pp 2");
  CHECK(v.plan.model == "facebook/opt-125m");
  CHECK(v.plan.weight_dtype == "fp16");
  CHECK(v.plan.tp == "2");
  CHECK(v.plan.pp == "2");
  // docs.sglang.ai, "Server arguments".
  Deployment s = read("python3 -m sglang.launch_server --model-path meta-llama/Meta-Llama-3-8B-Instruct --port 30000 "
                      "--host 0.0.0.0");
  CHECK(s.plan.engine == "sglang");
  CHECK(s.plan.model == "meta-llama/Meta-Llama-3-8B-Instruct");
  s = read("python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp 8 --trust-remote-code "
           "--mem-fraction-static 0.7 --context-length 65536");
  CHECK(s.plan.tp == "8");
  CHECK(s.plan.mem_fraction_static == "0.7");
  CHECK(s.plan.max_model_len == "65536");
  // llama.cpp tools/server/README.md.
  Deployment l = read("llama-server -m models/7B/ggml-model.gguf -c 2048", "llama-2-7b");
  CHECK(l.plan.engine == "llamacpp");
  CHECK(l.plan.ctx_size == "2048");
  l = read("llama-server -m model.gguf -c 16384 -np 4 -ctk q8_0 -ctv q8_0 -fa on --port 8080", "llama-2-7b");
  CHECK(l.plan.parallel == "4");
  CHECK(l.plan.cache_type_k == "q8_0");
}

TEST_CASE("an engine flag kvplan does not know is refused, by name", "[check][errors]") {
  CHECK_THROWS_WITH(read("vllm serve x --speculative-config {}"),
                    "vllm serve x: unknown flag '--speculative-config'; kvplan ignores only flags it knows do not "
                    "affect memory");
  CHECK_THROWS_WITH(read("llama-server -m x.gguf -c 4096"),
                    "llama-server loads a GGUF file, whose architecture kvplan cannot read; name the model with kvplan "
                    "check --model NAME (or --config PATH) before the '--'");
  CHECK_THROWS_AS(read("vllm serve x --max-model-len"), kvplan::Error);
}

TEST_CASE("what emit prints, check passes", "[check][emit]") {
  for (const char* engine : {"vllm", "sglang", "trtllm"}) {
    DYNAMIC_SECTION(engine) {
      std::ostringstream out;
      std::ostringstream err;
      REQUIRE(kvplan::cli::run({"emit", "--model", "llama-3.1-70b", "--gpu", "H100x4", "--engine", engine, "--seq-len",
                                "32k", "--concurrency", "16"},
                               out, err) == 0);
      std::vector<std::string> args{"check", "--gpu", "H100x4", "--concurrency", "16", "--seq-len", "32k", "--"};
      for (const std::string& w : words(out.str())) {
        args.push_back(w);
      }
      std::ostringstream check_out;
      INFO(out.str());
      CHECK(kvplan::cli::run(args, check_out, err) == 0);
      CHECK(check_out.str().rfind("PASS ", 0) == 0);
    }
  }
  std::ostringstream out;
  std::ostringstream err;
  REQUIRE(kvplan::cli::run({"emit", "--model", "qwen3-8b", "--gpu", "RTX-4090", "--engine", "llamacpp", "--seq-len", "8k",
                            "--concurrency", "2", "--kv-dtype", "q8_0"},
                           out, err) == 0);
  std::vector<std::string> args{"check", "--gpu", "RTX-4090", "--model", "qwen3-8b", "--concurrency", "2", "--seq-len",
                                "8k", "--"};
  for (const std::string& w : words(out.str())) {
    args.push_back(w);
  }
  std::ostringstream check_out;
  INFO(out.str());
  CHECK(kvplan::cli::run(args, check_out, err) == 0);
}
