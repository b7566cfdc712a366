// Engines' own command lines for `kvplan check -- ...`: each flag maps to the plan's flag, or is
// known not to affect memory and is ignored; any other flag is an error, because a flag kvplan does
// not know might change what the engine allocates.
#include <algorithm>
#include <fmt/format.h>

#include "deployment.hpp"
#include "kvplan/error.hpp"
#include "kvplan/text.hpp"

namespace kvplan::cli {
namespace {

struct Flag {
  std::vector<const char*> names;          // every spelling the engine accepts
  std::string PlanOptions::*field;         // nullptr: known not to affect memory
  bool takes_value = true;
};

// vLLM: vllm/engine/arg_utils.py (EngineArgs.add_cli_args) and the OpenAI server's frontend flags.
const std::vector<Flag> kVllm{
    {{"--model"}, &PlanOptions::model},
    {{"--tensor-parallel-size", "-tp"}, &PlanOptions::tp},
    {{"--pipeline-parallel-size", "-pp"}, &PlanOptions::pp},
    {{"--max-model-len"}, &PlanOptions::max_model_len},
    {{"--gpu-memory-utilization"}, &PlanOptions::gpu_memory_utilization},
    {{"--kv-cache-memory", "--kv-cache-memory-bytes"}, &PlanOptions::kv_cache_memory},
    {{"--max-num-seqs"}, &PlanOptions::max_num_seqs},
    {{"--max-num-batched-tokens"}, &PlanOptions::max_num_batched_tokens},
    {{"--block-size"}, &PlanOptions::block_size},
    {{"--kv-cache-dtype"}, &PlanOptions::kv_cache_dtype},
    {{"--dtype"}, &PlanOptions::weight_dtype},
    {{"--quantization", "-q"}, &PlanOptions::weight_dtype},
    {{"--host", "--port", "--served-model-name", "--api-key", "--tokenizer", "--revision", "--chat-template",
      "--tool-call-parser", "--download-dir", "--seed", "--uvicorn-log-level", "--root-path", "--reasoning-parser"},
     nullptr},
    {{"--trust-remote-code", "--disable-log-requests", "--disable-log-stats", "--enable-auto-tool-choice",
      "--enable-prefix-caching", "--no-enable-prefix-caching", "--enable-chunked-prefill"},
     nullptr, false},
};

// SGLang: python/sglang/srt/server_args.py (ServerArgs.add_cli_args).
const std::vector<Flag> kSglang{
    {{"--model-path", "--model"}, &PlanOptions::model},
    {{"--tp-size", "--tp"}, &PlanOptions::tp},
    {{"--pp-size", "--pp"}, &PlanOptions::pp},
    {{"--context-length"}, &PlanOptions::max_model_len},
    {{"--mem-fraction-static"}, &PlanOptions::mem_fraction_static},
    {{"--page-size"}, &PlanOptions::page_size},
    {{"--chunked-prefill-size"}, &PlanOptions::chunked_prefill_size},
    {{"--kv-cache-dtype"}, &PlanOptions::kv_cache_dtype},
    {{"--dtype"}, &PlanOptions::weight_dtype},
    {{"--quantization"}, &PlanOptions::weight_dtype},
    {{"--host", "--port", "--served-model-name", "--api-key", "--tokenizer-path", "--revision", "--log-level",
      "--chat-template", "--max-running-requests"},
     nullptr},
    {{"--trust-remote-code", "--enable-metrics", "--disable-radix-cache"}, nullptr, false},
};

// TensorRT-LLM: trtllm-serve (tensorrt_llm/commands/serve.py).
const std::vector<Flag> kTrtllm{
    {{"--tp_size"}, &PlanOptions::tp},
    {{"--pp_size"}, &PlanOptions::pp},
    {{"--max_seq_len"}, &PlanOptions::max_model_len},
    {{"--kv_cache_free_gpu_memory_fraction"}, &PlanOptions::free_gpu_memory_fraction},
    {{"--max_num_tokens"}, &PlanOptions::max_num_tokens},
    {{"--max_batch_size", "--host", "--port", "--backend", "--tokenizer", "--log_level"}, nullptr},
    {{"--trust_remote_code"}, nullptr, false},
};

// llama.cpp: tools/server (common/arg.cpp).
const std::vector<Flag> kLlamaServer{
    {{"-c", "--ctx-size"}, &PlanOptions::ctx_size},
    {{"-np", "--parallel"}, &PlanOptions::parallel},
    {{"-ctk", "--cache-type-k"}, &PlanOptions::cache_type_k},
    {{"-ctv", "--cache-type-v"}, &PlanOptions::cache_type_v},
    {{"-ub", "--ubatch-size"}, &PlanOptions::ubatch_size},
    {{"--fit"}, &PlanOptions::fit},
    {{"-m", "--model", "-b", "--batch-size", "--host", "--port", "-t", "--threads", "-ngl", "--n-gpu-layers",
      "--gpu-layers", "-fa", "--flash-attn", "-a", "--alias", "--api-key", "--chat-template", "--temp", "--seed"},
     nullptr},
    {{"--jinja", "--no-mmap", "--mlock", "--metrics", "--cont-batching"}, nullptr, false},
};

const Flag* find_flag(const std::vector<Flag>& flags, const std::string& name) {
  for (const Flag& f : flags) {
    if (std::find_if(f.names.begin(), f.names.end(), [&](const char* n) { return name == n; }) != f.names.end()) {
      return &f;
    }
  }
  return nullptr;
}

// vLLM/SGLang spell dtypes their way; map to kvplan's weight formats.
std::string weight_name(const std::string& v) {
  if (v == "bfloat16" || v == "auto") {
    return v == "auto" ? "auto" : "bf16";
  }
  if (v == "float16" || v == "half") {
    return "fp16";
  }
  if (v == "awq" || v == "gptq" || v == "awq_marlin" || v == "gptq_marlin") {
    return "int4";
  }
  return v;
}

}  // namespace

Deployment read_engine_command(const std::vector<std::string>& command, const PlanOptions& base) {
  Deployment d;
  d.plan = base;
  std::size_t i = 0;
  const std::vector<Flag>* flags = nullptr;
  auto at = [&](std::size_t k) { return k < command.size() ? command[k] : std::string(); };
  if (at(0) == "vllm" && at(1) == "serve") {
    flags = &kVllm;
    d.plan.engine = base.engine == "raw" ? "vllm" : base.engine;
    i = 2;
    if (!at(2).empty() && at(2).front() != '-') {
      d.plan.model = at(2);
      i = 3;
    }
  } else if (at(0).find("python") != std::string::npos && at(1) == "-m" &&
             (at(2) == "vllm.entrypoints.openai.api_server" || at(2) == "sglang.launch_server")) {
    flags = at(2) == "sglang.launch_server" ? &kSglang : &kVllm;
    d.plan.engine = base.engine == "raw" ? (flags == &kSglang ? "sglang" : "vllm") : base.engine;
    i = 3;
  } else if (at(0) == "trtllm-serve") {
    flags = &kTrtllm;
    d.plan.engine = base.engine == "raw" ? "trtllm" : base.engine;
    i = 1;
    if (!at(1).empty() && at(1).front() != '-') {
      d.plan.model = at(1);
      i = 2;
    }
  } else if (at(0) == "llama-server" || at(0).ends_with("/llama-server")) {
    flags = &kLlamaServer;
    d.plan.engine = base.engine == "raw" ? "llamacpp" : base.engine;
    i = 1;
    if (base.model.empty() && base.config.empty()) {
      throw Error("llama-server loads a GGUF file, whose architecture kvplan cannot read; name the model with "
                  "kvplan check --model NAME (or --config PATH) before the '--'");
    }
  } else {
    throw Error(fmt::format("cannot read the command '{}': kvplan reads 'vllm serve MODEL ...', 'python -m "
                            "vllm.entrypoints.openai.api_server ...', 'python -m sglang.launch_server ...', "
                            "'trtllm-serve MODEL ...' and 'llama-server ...'",
                            at(0)));
  }
  for (std::size_t k = 0; k < i; ++k) {  // the command itself, as annotations and messages name it
    d.origin += (k == 0 ? "" : " ") + command[k];
  }
  std::vector<std::string> names;
  for (const Flag& f : *flags) {
    names.insert(names.end(), f.names.begin(), f.names.end());
  }
  for (; i < command.size(); ++i) {
    std::string flag = command[i];
    std::optional<std::string> value;
    if (const std::size_t eq = flag.find('='); eq != std::string::npos && flag.rfind("--", 0) == 0) {
      value = flag.substr(eq + 1);
      flag = flag.substr(0, eq);
    }
    const Flag* f = find_flag(*flags, flag);
    if (f == nullptr) {
      throw Error(fmt::format("{}: unknown flag '{}'{}; kvplan ignores only flags it knows do not affect memory",
                              d.origin, flag, did_you_mean(flag, names)));
    }
    if (f->takes_value && !value) {
      if (i + 1 >= command.size()) {
        throw Error(fmt::format("{}: flag '{}' needs a value", d.origin, flag));
      }
      value = command[++i];
    }
    if (f->field != nullptr && value) {
      const bool weights = f->field == &PlanOptions::weight_dtype;
      d.plan.*(f->field) = weights ? weight_name(*value) : *value;
    }
  }
  if (d.plan.model.empty() && d.plan.config.empty()) {
    throw Error(fmt::format("{}: no model on the command line", d.origin));
  }
  if (!base.config.empty()) {
    d.plan.model.clear();  // --config given to kvplan check names the architecture
  }
  return d;
}

}  // namespace kvplan::cli
