// `kvplan emit --engine vllm|sglang|trtllm|llamacpp [plan flags]`: the launch command that realizes
// the plan, with every memory knob pinned (parallelism, context, concurrency, the memory fraction,
// the cache dtype), so that what kvplan planned is what the engine does. `kvplan check` on the
// emitted command passes (a test keeps it so).
#include <fmt/format.h>
#include <ostream>

#include "commands.hpp"
#include "kvplan/catalog.hpp"
#include "kvplan/error.hpp"
#include "kvplan/quantity.hpp"

namespace kvplan::cli {
namespace {

// The engine's fraction knob: as given; else unset (the engine's default) when that serves the shape;
// else the smallest value that does. `serves` is false when nothing does.
struct Knob {
  bool serves = true;
  std::optional<std::uint32_t> ppm;  // nullopt: leave the engine's default
};

Knob fraction_to_emit(PlanInputs& in, std::optional<std::uint32_t> EngineSettings::*knob) {
  if (in.engine_settings.*knob || serves(in)) {
    return Knob{true, in.engine_settings.*knob};
  }
  const auto ppm = smallest_serving(in, 1'000, 1'000'000, [knob](PlanInputs& alt, std::uint64_t v) {
    alt.engine_settings.*knob = static_cast<std::uint32_t>(v);
  });
  if (!ppm) {
    return Knob{false, std::nullopt};
  }
  const auto rounded = static_cast<std::uint32_t>(std::min<std::uint64_t>(1'000'000, (*ppm + 999) / 1000 * 1000));
  in.engine_settings.*knob = rounded;  // 0.001 steps, as people write it
  return Knob{true, rounded};
}

std::string fraction_text(std::uint32_t ppm) {
  std::string s = fmt::format("{:.3f}", static_cast<double>(ppm) / 1e6);
  while (s.back() == '0') {
    s.pop_back();
  }
  return s.back() == '.' ? s + "0" : s;
}

std::string model_id(const PlanInputs& in, const PlanOptions& o) {
  if (o.model.find('/') != std::string::npos) {
    return o.model;  // the Hugging Face id as the user gave it (an -Instruct variant, say)
  }
  if (in.preset != nullptr && !in.preset->hf_id.empty()) {
    return in.preset->hf_id;
  }
  return o.config.empty() ? in.model.name : std::filesystem::path(o.config).parent_path().string();
}

}  // namespace

int run_emit(const PlanOptions& o, std::ostream& out) {
  if (o.engine == "raw" || o.engine.empty()) {
    throw Error("emit: say which engine to launch with --engine vllm|sglang|trtllm|llamacpp");
  }
  if (o.seq_len.empty() || o.batch.empty()) {
    throw Error("emit: give the shape to serve with --seq-len L and --concurrency N");
  }
  PlanInputs in = plan_inputs(o);
  const std::string engine(in.engine.profile->name);
  const std::uint64_t len = *in.seq_len;
  const std::uint64_t n = *in.batch;
  if (engine != "llamacpp" && !in.max_model_len_given) {
    in.max_model_len = len;  // the server accepts exactly the planned length
    in.max_model_len_given = true;
  }
  std::string cmd;
  const std::string kv = o.kv_dtype != "auto" || !o.kv_cache_dtype.empty() ? std::string(in.kv_dtype.name) : "";
  const std::string weights = o.weight_dtype != "auto" ? std::string(in.weights.linear.name) : "";
  Knob fraction;
  if (engine == "vllm") {
    in.engine_settings.max_num_seqs = n;
    fraction = fraction_to_emit(in, &EngineSettings::gpu_memory_utilization_ppm);
    cmd = fmt::format("vllm serve {} --tensor-parallel-size {}", model_id(in, o), in.tensor_parallel);
    cmd += in.pipeline_parallel > 1 ? fmt::format(" --pipeline-parallel-size {}", in.pipeline_parallel) : "";
    cmd += fmt::format(" --max-model-len {} --max-num-seqs {}", in.max_model_len, n);
    cmd += fraction.ppm ? fmt::format(" --gpu-memory-utilization {}", fraction_text(*fraction.ppm)) : "";
    cmd += kv.empty() ? "" : fmt::format(" --kv-cache-dtype {}", kv);
    cmd += weights.empty() ? "" : fmt::format(" --quantization {}", weights);
  } else if (engine == "sglang") {
    fraction = fraction_to_emit(in, &EngineSettings::mem_fraction_static_ppm);
    cmd = fmt::format("python3 -m sglang.launch_server --model-path {} --tp {}", model_id(in, o), in.tensor_parallel);
    cmd += in.pipeline_parallel > 1 ? fmt::format(" --pp-size {}", in.pipeline_parallel) : "";
    cmd += fmt::format(" --context-length {} --max-running-requests {}", in.max_model_len, n);
    cmd += fraction.ppm ? fmt::format(" --mem-fraction-static {}", fraction_text(*fraction.ppm)) : "";
    cmd += kv.empty() ? "" : fmt::format(" --kv-cache-dtype {}", kv);
  } else if (engine == "trtllm") {
    fraction = fraction_to_emit(in, &EngineSettings::free_gpu_memory_fraction_ppm);
    cmd = fmt::format("trtllm-serve {} --tp_size {}", model_id(in, o), in.tensor_parallel);
    cmd += in.pipeline_parallel > 1 ? fmt::format(" --pp_size {}", in.pipeline_parallel) : "";
    cmd += fmt::format(" --max_seq_len {} --max_batch_size {}", in.max_model_len, n);
    cmd += fraction.ppm ? fmt::format(" --kv_cache_free_gpu_memory_fraction {}", fraction_text(*fraction.ppm)) : "";
  } else {  // llama.cpp: one slot of L cells per sequence
    in.engine_settings.ctx_size = n * len;
    in.engine_settings.parallel = n;
    const std::string ctk = ggml_cache_name(in.engine_settings.cache_type_k.value_or(in.kv_dtype));
    const std::string ctv = ggml_cache_name(in.engine_settings.cache_type_v.value_or(in.kv_dtype));
    cmd = fmt::format("llama-server -m {}.gguf -c {} -np {} -ctk {} -ctv {} -fa on", in.model.name, n * len, n, ctk, ctv);
  }
  if (!fraction.serves || !serves(in)) {
    out << fmt::format("# kvplan: nothing serves {} x {} tokens with {} on {}; see 'kvplan --model {} --gpu {} --seq-len {} "
                       "--concurrency {} --engine {}'\n",
                       n, len, in.engine.profile->display, in.vram_label, in.model.name, in.vram_label, len, n, engine);
    return 1;
  }
  out << cmd << '\n';
  return 0;
}

std::string ggml_cache_name(const DType& t) {
  if (t.name == "fp16" || t.name == "bf16" || t.name == "fp32") {
    return t.name == "fp32" ? "f32" : t.name == "fp16" ? "f16" : "bf16";
  }
  return std::string(t.name);
}

}  // namespace kvplan::cli
