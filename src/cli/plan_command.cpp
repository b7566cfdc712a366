// The main job: `kvplan --model M --vram V [...]`. Flags are read as text and validated here,
// once, into PlanInputs (ripgrep's LowArgs -> HiArgs); the plan itself is computed in src/app.
#include <fmt/format.h>
#include <fstream>
#include <sstream>

#include "commands.hpp"
#include "kvplan/catalog.hpp"
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
  in.tensor_parallel = o.tp.empty() ? in.gpu_count : static_cast<std::uint32_t>(parse_count("--tp", o.tp, 1024));
  if (!o.gpu.empty() && in.gpu_count % in.tensor_parallel != 0) {
    throw Error(fmt::format("--tp {} does not divide the {} GPUs of --gpu {}", in.tensor_parallel, in.gpu_count, o.gpu));
  }
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
  in.block_size = parse_count("--block-size", o.block_size, 1'048'576);
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
  app.add_option("--tp", o.tp, "Tensor-parallel size: splits weights and KV heads (default: the --gpu count, or 1)");
  app.add_option("--kv-dtype", o.kv_dtype, "KV element format: auto (the model's), bf16, fp16, fp8, int8, int4, "
                                           "q8_0, q4_0, ... (default auto)");
  app.add_option("--weight-dtype", o.weight_dtype,
                 "Weight format: auto (the checkpoint's), bf16, fp16, fp8, int8, int4, mxfp4 (default auto)");
  app.add_option("--seq-len,-s", o.seq_len, "Tokens per sequence for the shape and comparisons (default 8192, or the model's maximum if shorter)");
  app.add_option("--batch,-b", o.batch, "Concurrent sequences; with --seq-len, answers 'does this fit?'");
  app.add_option("--block-size", o.block_size, "Paged-allocation block in tokens (default 16, vLLM's); 1 = exact");
  app.add_option("--max-model-len", o.max_model_len,
                 "Longest sequence the server accepts (default: the model's max_position_embeddings)");
  app.add_option("--format,-f", o.format, "Output: table, json, csv or markdown (default table)");
  app.add_flag("--explain", o.explain, "Show every step of the arithmetic");
}

int run_plan(const PlanOptions& o, std::ostream& out, std::ostream& err) {
  const Format format = parse_format(o.format);
  PlanInputs in;
  in.version = version();
  load_model(o, in);
  load_memory(o, in);
  load_parallelism(o, in);
  load_dtypes(o, in);
  load_shape(o, in);
  in.utilization_ppm = parse_fraction_ppm("--utilization", o.utilization);
  if (o.reserve == "0") {
    in.reserve_bytes = 0;
  } else if (!o.reserve.empty()) {
    in.reserve_bytes = parse_size("--reserve", o.reserve).bytes;
  }
  in.explain = o.explain;
  const PlanOutcome plan = build_plan(in);
  render(plan.doc, format, out);
  if (format == Format::csv || format == Format::json) {
    for (const std::string& line : plan.doc.advice) {  // machine formats keep stdout parseable
      err << line << '\n';
    }
  }
  return plan.exit_code;
}

}  // namespace kvplan::cli
