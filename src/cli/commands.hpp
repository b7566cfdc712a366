// The subcommands, one file each: typed options, set-up on a CLI11 app, and a run function that
// returns an exit code (CLI11's subcom_in_files pattern). Private to src/cli.
#pragma once

#include <CLI/CLI.hpp>
#include <iosfwd>
#include <string>
#include <vector>

#include "kvplan/plan.hpp"

namespace kvplan::cli {

struct PlanOptions {
  std::string model, config, gpu, vram, utilization, reserve, tp, pp, cp, kv_dtype = "auto", weight_dtype = "auto";
  std::string seq_len, batch, block_size, max_model_len, format = "table";
  bool explain = false;
  // --engine and the engines' own knobs, under their own names
  std::string engine = "raw";
  std::string gpu_memory_utilization, kv_cache_memory, max_num_seqs, max_num_batched_tokens, kv_cache_dtype;  // vLLM
  std::string mem_fraction_static, page_size, chunked_prefill_size;                                     // SGLang
  std::string free_gpu_memory_fraction, tokens_per_block, max_num_tokens;                               // TRT-LLM
  std::string ctx_size, parallel, cache_type_k, cache_type_v, fit, ubatch_size;                         // llama.cpp
  bool kv_unified = false, swa_full = false;
  std::string activation_memory, non_torch_memory, cuda_graph_memory;  // measured non-KV memory
};
void setup_plan(CLI::App& app, PlanOptions& o);
/// Validates the flags once into typed inputs (throws kvplan::Error naming the flag).
PlanInputs plan_inputs(const PlanOptions& o);
/// The engine's own flags into in.engine_settings (engine_flags.cpp); in.engine is already parsed.
void load_engine(const PlanOptions& o, PlanInputs& in);
int run_plan(const PlanOptions& o, std::ostream& out, std::ostream& err);

struct ModelsOptions {
  std::string show;    // `kvplan models show NAME`
  std::string format = "table";
};
void setup_models(CLI::App& app, ModelsOptions& o);
int run_models(const ModelsOptions& o, std::ostream& out);

/// `kvplan emit`: the engine's launch command for the plan (plan flags; --engine required).
int run_emit(const PlanOptions& o, std::ostream& out);
/// llama.cpp's spelling of a cache type: f16, bf16, f32, q8_0, ...
std::string ggml_cache_name(const DType& t);

struct CheckOptions {
  std::vector<std::string> files;
  std::vector<std::string> command;  // everything after "--": an engine's own command line
  std::string gpu, vram, model, config, concurrency, seq_len, margin, format = "text";
};
void setup_check(CLI::App& app, CheckOptions& o);
int run_check(const CheckOptions& o, std::ostream& out);

struct SweepOptions {
  std::vector<std::string> models, gpus, counts, kv_dtypes, pps, seq_lens, where;
  std::string batch, engine, best, format = "csv";
  bool force = false;
};
void setup_sweep(CLI::App& app, SweepOptions& o);
int run_sweep(const SweepOptions& o, std::ostream& out);

struct SimulateOptions {
  PlanOptions plan;
  std::string workload, trace, requests, rate, seed, blocks, shared_prefix, n, beam;
};
void setup_simulate(CLI::App& app, SimulateOptions& o);
int run_simulate(const SimulateOptions& o, std::ostream& out);

struct GpusOptions {
  std::string format = "table";
};
void setup_gpus(CLI::App& app, GpusOptions& o);
int run_gpus(const GpusOptions& o, std::ostream& out);

/// `kvplan generate man|bash|zsh|fish`, from the app's own definitions (hidden from --help).
struct GenerateOptions {
  std::string what, output;
};
void setup_generate(CLI::App& app, GenerateOptions& o);
int run_generate(const CLI::App& root, const GenerateOptions& o, std::ostream& out);

/// "0.1.0"
const char* version();

}  // namespace kvplan::cli
