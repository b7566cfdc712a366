// The main job: `kvplan --model M --vram V [...]`. Flags are read as text and validated here,
// once, into PlanInputs (ripgrep's LowArgs -> HiArgs); the plan itself is computed in src/app.
#include <fmt/format.h>
#include <fstream>
#include <sstream>

#include "commands.hpp"
#include "kvplan/catalog.hpp"
#include "kvplan/engine.hpp"
#include "kvplan/config_reader.hpp"
#include "kvplan/error.hpp"
#include "kvplan/plan.hpp"
#include "kvplan/quantity.hpp"
#include "kvplan/text.hpp"

namespace kvplan::cli {
namespace {

std::string read_config_file(const std::string& path_text) {
  namespace fs = std::filesystem;
  fs::path path(path_text);
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    path /= "config.json";  // a Hugging Face model folder
  }
  if (!fs::is_regular_file(path, ec)) {
    throw Error(fmt::format("--config: no config.json at '{}'", path.string()));
  }
  if (fs::file_size(path, ec) > 16 * 1024 * 1024) {
    throw Error(fmt::format("--config: '{}' is larger than 16 MiB; a config.json is a few KiB", path.string()));
  }
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in.good() && !in.eof()) {
    throw Error(fmt::format("--config: cannot read '{}'", path.string()));
  }
  return text.str();
}

void load_model(const PlanOptions& o, PlanInputs& in) {
  if (!o.model.empty() && !o.config.empty()) {
    throw Error("give --model NAME or --config PATH, not both");
  }
  if (!o.config.empty()) {
    in.model = read_hf_config_text(read_config_file(o.config), std::filesystem::path(o.config).filename().string(),
                                   o.config);
    in.model_source = fmt::format("config {}", o.config);
    return;
  }
  if (o.model.empty()) {
    throw Error("--model NAME or --config PATH is required (see 'kvplan models' for the built-in names)");
  }
  const Preset& p = find_preset(o.model);
  in.model = p.spec;
  in.preset = &p;
  in.model_source = fmt::format("{} ({})", p.hf_id, p.path);
}

void load_memory(const PlanOptions& o, PlanInputs& in) {
  if (!o.gpu.empty() && !o.vram.empty()) {
    throw Error("give --gpu NAME or --vram SIZE, not both");
  }
  if (!o.gpu.empty()) {
    const GpuChoice g = parse_gpu(o.gpu);
    in.gpu = g.gpu;
    in.gpu_count = g.count;
    in.vram_bytes = g.gpu->memory_bytes;
    in.vram_label = g.count > 1 ? fmt::format("{}x{}", g.gpu->name, g.count) : std::string(g.gpu->name);
    in.vram_detail = fmt::format("{}: {} B as CUDA reports it (sold as {})", g.gpu->name, with_commas(g.gpu->memory_bytes),
                                 g.gpu->marketed);
    return;
  }
  if (o.vram.empty()) {
    throw Error("--vram SIZE or --gpu NAME is required (e.g. --vram 80GB, --gpu H100; see 'kvplan gpus')");
  }
  const ParsedSize size = parse_size("--vram", o.vram);
  in.vram_bytes = size.bytes;
  in.vram_label = o.vram;
  in.vram_detail = fmt::format("'{}' read as {} B ({})", o.vram, with_commas(size.bytes),
                               size.decimal ? "decimal: GB = 10^9 B" : "binary: GiB = 2^30 B");
  if (size.decimal) {
    for (const GpuSpec& g : gpu_catalog()) {
      if (g.marketed.find("per") == std::string_view::npos && parse_size("", g.marketed).bytes == size.bytes) {
        in.vram_detail += fmt::format("; a GPU sold as \"{}\" ({}) exposes {}: try --gpu {}", g.marketed, g.name,
                                      format_bytes(g.memory_bytes), g.name);
        break;
      }
    }
  }
}

void load_parallelism(const PlanOptions& o, PlanInputs& in) {
  in.pipeline_parallel = o.pp.empty() ? 1 : static_cast<std::uint32_t>(parse_count("--pp", o.pp, 1024));
  if (in.pipeline_parallel > in.model.num_hidden_layers) {
    throw Error(fmt::format("--pp {} is more than the model's {} layers; every pipeline stage needs at least one layer",
                            in.pipeline_parallel, in.model.num_hidden_layers));
  }
  in.context_parallel = o.cp.empty() ? 1 : static_cast<std::uint32_t>(parse_count("--cp", o.cp, 1024));
  // Ring attention adds its own GPUs; vLLM's decode context parallelism splits the TP group instead.
  const bool dcp = in.engine.profile != nullptr && in.engine.profile->name == "vllm";
  const std::uint32_t cp_gpus = dcp ? 1 : in.context_parallel;
  if (o.tp.empty()) {
    in.tensor_parallel = std::max<std::uint32_t>(1, in.gpu_count / (in.pipeline_parallel * cp_gpus));
  } else {
    in.tensor_parallel = static_cast<std::uint32_t>(parse_count("--tp", o.tp, 1024));
  }
  if (dcp && in.tensor_parallel % in.context_parallel != 0) {
    throw Error(fmt::format("--cp {} must divide --tp {}: vLLM's decode context parallelism "
                            "(--decode-context-parallel-size) splits the tensor-parallel group",
                            in.context_parallel, in.tensor_parallel));
  }
  const std::uint32_t group = in.tensor_parallel * in.pipeline_parallel * cp_gpus;
  if (!o.gpu.empty() && in.gpu_count % group != 0) {
    throw Error(fmt::format("--tp {} × --pp {} × --cp {} = {} GPUs does not divide the {} GPUs of --gpu {}",
                            in.tensor_parallel, in.pipeline_parallel, in.context_parallel, group, in.gpu_count, o.gpu));
  }
  in.replicas = o.gpu.empty() ? 1 : in.gpu_count / group;
  if (auto problem = tp_problem(in.model, in.tensor_parallel)) {
    throw Error(fmt::format("--tp {}: {}", in.tensor_parallel, *problem));
  }
}

void load_dtypes(const PlanOptions& o, PlanInputs& in) {
  in.kv_dtype = require_dtype(kv_dtypes(), "--kv-dtype", o.kv_dtype == "auto" ? in.model.torch_dtype : o.kv_dtype);
  in.weights = weight_format(in.model, o.weight_dtype);
}

void load_shape(const PlanOptions& o, PlanInputs& in) {
  if (!o.max_model_len.empty()) {
    in.max_model_len = parse_tokens("--max-model-len", o.max_model_len);
  } else if (in.model.max_position_embeddings == 0) {
    throw Error("the config has no max_position_embeddings; give the context length with --max-model-len");
  } else {
    in.max_model_len = in.model.max_position_embeddings;
  }
  if (!o.seq_len.empty()) {
    in.seq_len = parse_tokens("--seq-len", o.seq_len);
    if (*in.seq_len > in.max_model_len) {
      throw Error(fmt::format("--seq-len {} is longer than the maximum context {} ({}); raise --max-model-len to plan "
                              "beyond it",
                              with_commas(*in.seq_len), with_commas(in.max_model_len),
                              o.max_model_len.empty() ? "max_position_embeddings" : "--max-model-len"));
    }
  }
  if (!o.batch.empty()) {
    in.batch = parse_count("--batch", o.batch, 10'000'000);
  }
  in.block_size = o.block_size.empty() ? 16 : parse_count("--block-size", o.block_size, 1'048'576);
  in.max_model_len_given = !o.max_model_len.empty();
}

}  // namespace

void setup_plan(CLI::App& app, PlanOptions& o) {
  app.add_option("--model,-m", o.model, "Built-in model: name, alias or Hugging Face id (see 'kvplan models')");
  app.add_option("--config", o.config, "A model's config.json, or a folder holding one, instead of --model");
  app.add_option("--gpu,-g", o.gpu, "GPU from the catalog, optionally xCOUNT: H100, H200x8 (see 'kvplan gpus')");
  app.add_option("--vram", o.vram, "Memory per GPU instead of --gpu: 80GB (10^9), 80GiB (2^30), 81920MiB");
  app.add_option("--utilization,-u", o.utilization,
                 "Fraction of VRAM the server may use, like vLLM's --gpu-memory-utilization (default 0.9)");
  app.add_option("--reserve", o.reserve, "Non-KV runtime memory per GPU (activations, CUDA graphs, framework); "
                                         "replaces kvplan's estimate");
  app.add_option("--pp", o.pp, "Pipeline-parallel size: splits the layers into stages, one GPU group each (default 1)");
  app.add_option("--cp", o.cp, "Context-parallel size (ring attention): each sequence's tokens split over N GPUs, so "
                              "the longest context grows N-fold (engine-neutral plans only; default 1)");
  app.add_option("--tp", o.tp, "Tensor-parallel size: splits weights and KV heads (default: the --gpu count, or 1)");
  app.add_option("--kv-dtype", o.kv_dtype, "KV element format: auto (the model's), bf16, fp16, fp8, int8, int4, "
                                           "q8_0, q4_0, ... (default auto)");
  app.add_option("--weight-dtype", o.weight_dtype,
                 "Weight format: auto (the checkpoint's), bf16, fp16, fp8, int8, int4, mxfp4 (default auto)");
  app.add_option("--seq-len,-s", o.seq_len, "Tokens per sequence for the shape and comparisons (default 8192, or the model's maximum if shorter)");
  app.add_option("--batch,-b,--concurrency", o.batch,
                 "Concurrent sequences; with --seq-len, answers 'does this fit?', the smallest engine knob that serves "
                 "it, and the fewest GPUs of --gpu's type that do");
  app.add_option("--block-size", o.block_size, "Paged-allocation block in tokens (default 16, vLLM's); 1 = exact");
  app.add_option("--max-model-len", o.max_model_len,
                 "Longest sequence the server accepts (default: the model's max_position_embeddings)");
  app.add_option("--format,-f", o.format, "Output: table, json, csv or markdown (default table)");
  app.add_flag("--explain", o.explain, "Show every step of the arithmetic");
  app.add_option("--engine,-e", o.engine,
                 "Predict what an engine allocates: raw (engine-neutral), vllm, sglang, trtllm, llamacpp; "
                 "NAME@VERSION picks a version (vllm@0.19, sglang@0.5, trtllm@1.3, llamacpp@2026-01-24)");
  app.add_option("--gpu-memory-utilization", o.gpu_memory_utilization, "vLLM: fraction of total GPU memory (default "
                                                                       "0.9; 0.92 from v0.25)");
  app.add_option("--kv-cache-memory", o.kv_cache_memory, "vLLM: KV cache size per GPU, replacing the utilization");
  app.add_option("--max-num-seqs", o.max_num_seqs, "vLLM: concurrent sequences (default 1024 on >= 70 GiB GPUs, else 256)");
  app.add_option("--max-num-batched-tokens", o.max_num_batched_tokens,
                 "vLLM: tokens per step (default 8192 on >= 70 GiB GPUs, else 2048)");
  app.add_option("--kv-cache-dtype", o.kv_cache_dtype, "vLLM/SGLang/TRT-LLM: KV cache dtype (auto, fp8, ...)");
  app.add_option("--mem-fraction-static", o.mem_fraction_static,
                 "SGLang: fraction of the memory free at start for weights and KV (default derived per GPU)");
  app.add_option("--page-size", o.page_size, "SGLang: tokens per page (default 1)");
  app.add_option("--chunked-prefill-size", o.chunked_prefill_size, "SGLang: prefill chunk (default by GPU size)");
  app.add_option("--free-gpu-memory-fraction", o.free_gpu_memory_fraction,
                 "TensorRT-LLM: fraction of the memory free after profiling (default 0.9)");
  app.add_option("--tokens-per-block", o.tokens_per_block, "TensorRT-LLM: tokens per KV block (default 32)");
  app.add_option("--max-num-tokens", o.max_num_tokens, "TensorRT-LLM: tokens per batch (default 8192)");
  app.add_option("--ctx-size,-c", o.ctx_size, "llama.cpp: context cells (0 = the model's n_ctx_train; default 0)");
  app.add_option("--parallel,--np", o.parallel, "llama.cpp: slots (-np; default auto: 4 with a unified cache)");
  app.add_option("--cache-type-k,--ctk", o.cache_type_k, "llama.cpp: K cache type (f16, q8_0, q4_0, ...)");
  app.add_option("--cache-type-v,--ctv", o.cache_type_v, "llama.cpp: V cache type (f16, q8_0, q4_0, ...)");
  app.add_flag("--kv-unified", o.kv_unified, "llama.cpp: one cache shared by all slots");
  app.add_flag("--swa-full", o.swa_full, "llama.cpp: full-size cache for sliding-window layers");
  app.add_option("--fit", o.fit, "llama.cpp: on|off, shrink n_ctx to leave 1024 MiB free (default on)");
  app.add_option("--ubatch-size", o.ubatch_size, "llama.cpp: physical batch (default 512)");
  app.add_option("--activation-memory", o.activation_memory,
                 "Measured activation peak per GPU (vLLM's \"torch peak increase\"), replacing kvplan's estimate");
  app.add_option("--non-torch-memory", o.non_torch_memory, "Measured non-torch memory per GPU (CUDA context, NCCL)");
  app.add_option("--cuda-graph-memory", o.cuda_graph_memory, "Measured CUDA-graph memory per GPU");
}

PlanInputs plan_inputs(const PlanOptions& o) {
  PlanInputs in;
  in.version = version();
  in.engine = parse_engine(o.engine);  // parallelism depends on it (vLLM's DCP lives inside TP)
  load_model(o, in);
  load_memory(o, in);
  load_parallelism(o, in);
  load_dtypes(o, in);
  load_shape(o, in);
  in.utilization_ppm = o.utilization.empty() ? 900'000 : parse_fraction_ppm("--utilization", o.utilization);
  if (o.reserve == "0") {
    in.reserve_bytes = 0;
  } else if (!o.reserve.empty()) {
    in.reserve_bytes = parse_size("--reserve", o.reserve).bytes;
  }
  in.explain = o.explain;
  load_engine(o, in);
  return in;
}

int run_plan(const PlanOptions& o, std::ostream& out, std::ostream& err) {
  const Format format = parse_format(o.format);
  const PlanOutcome plan = build_plan(plan_inputs(o));
  render(plan.doc, format, out);
  if (format == Format::csv || format == Format::json) {
    for (const std::string& line : plan.doc.advice) {  // machine formats keep stdout parseable
      err << line << '\n';
    }
  }
  return plan.exit_code;
}

}  // namespace kvplan::cli
