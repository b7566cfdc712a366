// The inverse questions (vllm#22291, vllm#33263, llmfit#140): for --batch N sequences of
// --seq-len L, the smallest engine knob that serves them on this GPU, and the fewest GPUs of this
// type (and their TP x PP split) that do. Every answer is a search over evaluate(), so it uses
// exactly the arithmetic of the plan itself, engine profiles included.
#include <fmt/format.h>

#include "kvplan/catalog.hpp"
#include "kvplan/quantity.hpp"
#include "kvplan/units.hpp"
#include "plan_sections.hpp"

namespace kvplan {
namespace {

std::string fraction_text(std::uint64_t ppm) {
  return fmt::format("{:.3f}", static_cast<double>(ceil_div(ppm, 1000)) / 1000);
}

void knob_fields(const PlanInputs& in, Section& s) {
  const std::string engine = in.engine.profile == nullptr ? "raw" : std::string(in.engine.profile->name);
  auto fraction_field = [&](const char* key, const char* flag, auto set) {
    const auto ppm = smallest_serving(in, 1'000, 1'000'000, set);
    s.fields.push_back({key, fmt::format("Smallest {}", flag),
                        ppm ? Cell::number(static_cast<double>(ceil_div(*ppm, 1000)) / 1000) : Cell::none(),
                        ppm ? fmt::format("{} {} serves it", flag, fraction_text(*ppm))
                            : "nothing serves it on this GPU: even 1.0 is too little"});
  };
  if (engine == "raw") {
    fraction_field("min_utilization", "--utilization", [](PlanInputs& a, std::uint64_t v) {
      a.utilization_ppm = static_cast<std::uint32_t>(v);
    });
  } else if (engine == "vllm") {
    fraction_field("min_gpu_memory_utilization", "--gpu-memory-utilization", [](PlanInputs& a, std::uint64_t v) {
      a.engine_settings.kv_cache_memory_bytes.reset();
      a.engine_settings.gpu_memory_utilization_ppm = static_cast<std::uint32_t>(v);
    });
    // What the GPU has beside the weights bounds the KV cache (vLLM would fail to allocate more).
    const std::uint64_t weights =
        weight_bytes_per_gpu(in.model.params, in.weights, in.tensor_parallel * in.pipeline_parallel);
    const auto bytes = smallest_serving(in, 1, std::max<std::uint64_t>(1, sat_sub(in.vram_bytes, weights)), [](PlanInputs& a, std::uint64_t v) {
      a.engine_settings.gpu_memory_utilization_ppm.reset();
      a.engine_settings.kv_cache_memory_bytes = v;
    });
    s.fields.push_back({"min_kv_cache_memory_bytes", "Smallest --kv-cache-memory",
                        bytes ? Cell::bytes(*bytes) : Cell::none(),
                        bytes ? fmt::format("--kv-cache-memory {}B", *bytes) : "more than the whole GPU"});
  } else if (engine == "sglang") {
    fraction_field("min_mem_fraction_static", "--mem-fraction-static", [](PlanInputs& a, std::uint64_t v) {
      a.engine_settings.mem_fraction_static_ppm = static_cast<std::uint32_t>(v);
    });
  } else if (engine == "trtllm") {
    fraction_field("min_free_gpu_memory_fraction", "--free-gpu-memory-fraction", [](PlanInputs& a, std::uint64_t v) {
      a.engine_settings.free_gpu_memory_fraction_ppm = static_cast<std::uint32_t>(v);
    });
  } else {  // llama.cpp: every slot needs its own L cells
    const std::uint64_t cells = sat_mul(*in.batch, *in.seq_len);
    PlanInputs alt = in;
    alt.engine_settings.ctx_size = cells;
    alt.engine_settings.parallel = *in.batch;
    alt.engine_settings.kv_unified = false;
    alt.engine_settings.fit = false;
    s.fields.push_back({"ctx_size", "llama.cpp settings", Cell::str(fmt::format("-c {} -np {}", cells, *in.batch)),
                        serves(alt) ? "fits: one slot of L tokens per sequence" : "does not fit on this GPU"});
  }
}

// Smallest power-of-two GPU count first; within it, tensor parallelism before pipeline before context
// parallelism (ring attention adds GPUs; vLLM's decode CP splits the TP group; other engines: none).
void fewest_gpus(const PlanInputs& in, Section& s) {
  const std::string engine = in.engine.profile == nullptr ? "raw" : std::string(in.engine.profile->name);
  for (std::uint32_t gpus = 1; gpus <= 64; gpus *= 2) {
    for (std::uint32_t cp = 1; cp <= gpus; cp *= 2) {
      if (cp > 1 && engine != "raw" && engine != "vllm") {
        break;
      }
      for (std::uint32_t pp = 1; pp * (engine == "raw" ? cp : 1) <= gpus; pp *= 2) {
        const std::uint32_t tp = gpus / (pp * (engine == "raw" ? cp : 1));
        if (tp_problem(in.model, tp) || pp > in.model.num_hidden_layers || (engine == "vllm" && tp % cp != 0)) {
          continue;
        }
        PlanInputs alt = in;
        alt.gpu_count = gpus;
        alt.tensor_parallel = tp;
        alt.pipeline_parallel = pp;
        alt.context_parallel = cp;
        alt.replicas = 1;
        alt.stage = 0;
        if (serves(alt)) {
          s.fields.push_back({"fewest_gpus", "Fewest GPUs", Cell::count(gpus),
                              fmt::format("--gpu {}x{} --tp {} --pp {}{}", in.gpu->name, gpus, tp, pp,
                                          cp > 1 ? fmt::format(" --cp {}", cp) : "")});
          s.fields.push_back({"tp", "", Cell::count(tp), ""});
          s.fields.push_back({"pp", "", Cell::count(pp), ""});
          s.fields.push_back({"cp", "", Cell::count(cp), ""});
          return;
        }
      }
    }
  }
  s.fields.push_back({"fewest_gpus", "Fewest GPUs", Cell::none(),
                      fmt::format("more than 64 {} (tensor, pipeline and context parallel, powers of two)",
                                  in.gpu->name)});
}

}  // namespace

bool serves(const PlanInputs& in) {
  if (in.pipeline_parallel <= 1) {
    return evaluate(in).fits;
  }
  for (std::uint32_t r = 0; r < in.pipeline_parallel; ++r) {  // every pipeline stage must hold the shape
    PlanInputs stage = in;
    stage.model = pipeline_stage(in.model, in.pipeline_parallel, r);
    stage.stage = r;
    if (!evaluate(stage).fits) {
      return false;
    }
  }
  return true;
}

std::optional<std::uint64_t> smallest_serving(const PlanInputs& in, std::uint64_t lo, std::uint64_t hi,
                                              const std::function<void(PlanInputs&, std::uint64_t)>& set) {
  auto ok = [&](std::uint64_t v) {
    PlanInputs alt = in;
    set(alt, v);
    return serves(alt);
  };
  if (!ok(hi)) {
    return std::nullopt;
  }
  while (lo < hi) {  // the knob is monotone: more memory never serves less
    const std::uint64_t mid = lo + (hi - lo) / 2;
    if (ok(mid)) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return hi;
}

Section inverse_section(const PlanInputs& in) {
  Section s;
  s.key = "inverse";
  s.title = fmt::format("What serves {} × {} tokens", with_commas(*in.batch), with_commas(*in.seq_len));
  knob_fields(in, s);
  const bool llamacpp = in.engine.profile != nullptr && in.engine.profile->name == "llamacpp";
  if (in.gpu != nullptr && !llamacpp) {  // llama.cpp splits layers, not heads: not searched
    fewest_gpus(in, s);
  }
  return s;
}

}  // namespace kvplan
