// The subcommands, one file each: their text options (what was typed, CLI11's side), set-up on a
// CLI11 app, and a run function that returns an exit code (CLI11's subcom_in_files pattern). Text
// exists only here: every value is typed once into a PlanRequest (request_flags.cpp) before any
// work. Private to src/cli.
#pragma once

#include <CLI/CLI.hpp>
#include <iosfwd>
#include <map>
#include <span>
#include <string_view>
#include <utility>
#include <string>
#include <vector>

#include "kvplan/plan.hpp"

namespace kvplan::cli {

/// The plan flags shared by every subcommand that plans, as typed.
struct PlanOptions {
  std::string model, config, gpu, vram, tp, pp, cp, dp, kv_dtype = "auto", weight_dtype = "auto";
  std::string seq_len, batch, max_model_len, format = "table";
  std::string weights;         // --weights SIZE: the checkpoint's size, instead of the estimate
  std::string encoder_tokens;  // --encoder-tokens N: encoder tokens per sequence of cross-attention layers
  bool explain = false;
  bool brief = false;
  std::string chart;  // --chart
  View view;  // --width, --color and the terminal (run.cpp)
  std::string engine = "raw";
  /// The engines' knobs offered as kvplan flags, by their first spelling ("--gpu-memory-utilization").
  std::map<std::string, std::string> knob_values;
  std::map<std::string, bool> knob_switches;  // flag-type knobs given bare ("--kv-unified")
  std::map<std::string, const CLI::Option*> knob_options;  // to tell "given empty" from "not given"
};
/// The plan's options. With `only_named`, only the engines' knob flags those arguments spell are
/// registered (a plan need not pay for 28 options it does not use; run() sets every option up and
/// parses again when the lean parse meets one it does not know, so help and typos read the same).
void setup_plan(CLI::App& app, PlanOptions& o, const std::vector<std::string>* only_named = nullptr);
/// Every flag typed once into a request (throws kvplan::Error naming the flag).
PlanRequest plan_request(const PlanOptions& o);
int run_plan(const PlanOptions& o, std::ostream& out, std::ostream& err);

struct ModelsOptions {
  std::string show;    // `kvplan models show NAME`
  std::string format = "table";
  View view;
  bool types = false;  // kvplan models types
};
void setup_models(CLI::App& app, ModelsOptions& o);
int run_models(const ModelsOptions& o, std::ostream& out);

/// `kvplan emit`: the engine's launch command for the plan (plan flags; --engine required).
int run_emit(const PlanOptions& o, std::ostream& out);

struct CheckOptions {
  std::vector<std::string> files;
  std::vector<std::string> command;  // everything after "--": an engine's own command line
  std::string gpu, vram, model, config, concurrency, seq_len, margin, format = "text";
  std::string weight_dtype, kv_dtype;  // what a command line leaves unsaid (a checkpoint's format)
  std::string engine;                  // the engine version a command line runs, when no image tag says it
  bool strict = false;
  std::istream* input = nullptr;       // what "-" reads (standard input)
  View view;
};
void setup_check(CLI::App& app, CheckOptions& o);
int run_check(const CheckOptions& o, std::ostream& out, std::ostream& err);

struct SweepOptions {
  std::vector<std::string> models, configs, gpus, vrams, counts, tps, kv_dtypes, weight_dtypes, pps, dps, seq_lens, where;
  std::string batch, engine, best, utilization, max_model_len, format = "csv";
  bool force = false;
  View view;
};
void setup_sweep(CLI::App& app, SweepOptions& o);
int run_sweep(const SweepOptions& o, std::ostream& out);

struct SimulateOptions {
  PlanOptions plan;
  std::string workload, trace, requests, rate, seed, blocks, shared_prefix, n, beam;
};
void setup_simulate(CLI::App& app, SimulateOptions& o);
int run_simulate(const SimulateOptions& o, std::ostream& out);

/// The terminal view with the chart --format svg draws: --chart, else `default_chart`; --chart
/// with another format is refused.
View chart_view(const PlanOptions& o, Format format, std::string_view default_chart = "memory");

struct GpusOptions {
  std::string format = "table";
  View view;
};
void setup_gpus(CLI::App& app, GpusOptions& o);
int run_gpus(const GpusOptions& o, std::ostream& out);

/// The values `option` (its long name) takes under `command` ("" for the plan), for shell completion:
/// the catalogs' names, the dtypes, the formats that command's parser accepts; empty for free values.
std::vector<std::string> option_values(std::string_view command, std::string_view option);

/// The examples --help's footer and the man page's EXAMPLES show: a command line, what it answers.
std::vector<std::pair<std::string, std::string>> examples();

/// `kvplan generate man|bash|zsh|fish`, from the app's own definitions (hidden from --help).
struct GenerateOptions {
  std::string what, output;
};
void setup_generate(CLI::App& app, GenerateOptions& o);
int run_generate(const CLI::App& root, const GenerateOptions& o, std::ostream& out);

/// "0.1.0"
const char* version();

}  // namespace kvplan::cli
