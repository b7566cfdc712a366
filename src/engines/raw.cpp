// The engine-neutral plan ("--engine raw", the default): kvplan's own formula, an engine like the
// others. Budget: VRAM × utilization − weights − a runtime reserve estimated from causes fitted on
// real vLLM 0.19 logs (docs/budget.md); paged blocks of --block-size tokens; sliding layers hold
// exactly min(S, window) tokens; ring attention splits each sequence over --cp more GPUs.
#include <array>
#include <cmath>
#include <fmt/format.h>

#include "engine_util.hpp"
#include "kvplan/budget.hpp"
#include "kvplan/engine.hpp"
#include "kvplan/error.hpp"
#include "kvplan/quantity.hpp"
#include "kvplan/solver.hpp"
#include "kvplan/units.hpp"

namespace kvplan {

const Engine& vllm_engine_module() noexcept;

namespace {

enum K : std::size_t { utilization, reserve, block_size, activation_memory, non_torch_memory, cuda_graph_memory, kCount };

constexpr std::uint32_t kDefaultUtilizationPpm = 900'000;  // vLLM's gpu_memory_utilization default before v0.21
constexpr std::uint64_t kDefaultBlock = 16;                // vLLM's default block size (CacheConfig.block_size)

constexpr std::array<Knob, kCount> kKnobs{{
    {"utilization", "", KnobType::fraction, Target::own, "--utilization -u",
     "Fraction of VRAM the server may use (default 0.9, vLLM's gpu_memory_utilization before v0.20.2); with "
     "--engine, that engine's own memory fraction",
     "kvplan (docs/budget.md)"},
    {"reserve", "", KnobType::bytes, Target::own, "--reserve",
     "Non-KV runtime memory per GPU (activations, CUDA graphs, framework); replaces kvplan's estimate",
     "kvplan (docs/budget.md)", nullptr, 0, true},
    {"block_size", "", KnobType::count, Target::own, "--block-size",
     "Paged-allocation block in tokens (default 16, vLLM's); 1 = exact", "kvplan", nullptr, 1'048'576},
    {"activation_memory", "", KnobType::bytes, Target::own, "--activation-memory",
     "Measured activation peak per GPU (vLLM's \"torch peak increase\"), replacing kvplan's estimate",
     "kvplan (docs/budget.md)", nullptr, 0, true},
    {"non_torch_memory", "", KnobType::bytes, Target::own, "--non-torch-memory",
     "Measured non-torch memory per GPU (CUDA context, NCCL)", "kvplan (docs/budget.md)", nullptr, 0, true},
    {"cuda_graph_memory", "", KnobType::bytes, Target::own, "--cuda-graph-memory", "Measured CUDA-graph memory per GPU",
     "kvplan (docs/budget.md)", nullptr, 0, true},
}};

class Raw final : public Engine {
 public:
  std::string_view name() const override { return "raw"; }
  std::string_view display() const override { return "engine-neutral"; }
  std::string_view default_version() const override { return ""; }
  std::string_view versions_help() const override { return "none: it is kvplan's own formula"; }
  std::optional<int> parse_version(std::string_view text) const override {
    return text.empty() ? std::optional<int>(0) : std::nullopt;
  }
  Capabilities capabilities() const override {
    Capabilities c;
    c.context = ContextParallel::ring;
    c.metal = true;  // the formula holds on any device
    c.margin_ppm = 30'000;  // the budget is fitted to vLLM: its 3% bound (docs/accuracy.md)
    return c;
  }
  std::span<const Knob> knobs() const override { return kKnobs; }
  std::optional<std::size_t> fraction_knob() const override { return utilization; }
  void validate(const KnobSet& k) const override;
  EnginePrediction predict(const EngineInputs& in) const override;
};

void Raw::validate(const KnobSet& k) const {
  const bool measured = k.has(activation_memory) || k.has(non_torch_memory) || k.has(cuda_graph_memory);
  if (measured && k.has(reserve)) {
    throw Error("--reserve replaces the whole runtime reserve; give it or --activation-memory/--non-torch-memory/"
                "--cuda-graph-memory, not both");
  }
}

EnginePrediction Raw::predict(const EngineInputs& in) const {
  const ModelSpec& m = *in.model;
  const KnobSet& k = *in.knobs;
  EnginePrediction p;
  // The profiling shape follows the GPU's class, as the engines' defaults do (issue #12: the H100
  // shape on a 24 GB card over-states the reserve about 2.5×).
  const ProfileShape profile = default_profile_shape(in.gpu_memory_bytes, in.gpu_name);
  Reserve r = estimate_reserve(m.vocab_size, in.tensor_parallel, profile, in.gpu_name);
  r.activations_bytes = k.number(activation_memory).value_or(r.activations_bytes);
  r.framework_bytes = k.number(non_torch_memory).value_or(r.framework_bytes);
  r.cuda_graphs_bytes = k.number(cuda_graph_memory).value_or(r.cuda_graphs_bytes);
  const std::uint64_t reserved = k.number(reserve).value_or(r.total());
  const auto util = static_cast<std::uint32_t>(k.number(utilization).value_or(kDefaultUtilizationPpm));
  const Budget b = make_budget(in.gpu_memory_bytes, util,
                               weight_bytes_per_gpu(m.params, in.weights, in.tensor_parallel), reserved);
  p.usable_bytes = b.usable_bytes;
  p.fraction_ppm = util;
  p.weights_bytes = b.weights_bytes;
  p.kv_budget_bytes = b.kv_budget_bytes;
  p.reserved_bytes = reserved;
  p.max_model_len = in.max_model_len;
  p.block_tokens = k.number(block_size).value_or(kDefaultBlock);
  p.startup = b.deficit_bytes > 0 || b.kv_budget_bytes == 0 ? Startup::no_kv_memory : Startup::ok;
  Deployment shape;
  shape.seq_len = in.shape_seq_len;
  shape.kv_dtype = in.kv_dtype;
  shape.tensor_parallel = in.tensor_parallel;
  shape.context_parallel = in.context_parallel;
  shape.block_size = p.block_tokens;
  const std::uint64_t usable_kv = engines::with_margin(p.kv_budget_bytes, in.kv_margin_ppm);
  p.capacity_at_shape = max_batch(m, shape, usable_kv);
  for (std::uint64_t len : in.frontier_lengths) {
    Deployment probe = shape;
    probe.seq_len = len;
    p.frontier.emplace_back(len, max_batch(m, probe, usable_kv));
  }
  if (!in.text) {
    return p;
  }
  p.budget.push_back({"vram_bytes", "VRAM", Cell::bytes(in.gpu_memory_bytes), std::string(in.memory_detail)});
  p.budget.push_back({"utilization", "Usable fraction", Cell::number(static_cast<double>(util) / 1e6),
                      k.has(utilization) ? "--utilization"
                                         : "default 0.9: vLLM's gpu_memory_utilization before v0.20.2"});
  p.budget.push_back({"usable_bytes", "Usable", Cell::bytes(b.usable_bytes), "VRAM × usable fraction"});
  std::string formats(in.weights.linear.name);
  if (m.params.experts > 0 && !(in.weights.experts == in.weights.linear)) {
    formats += fmt::format(", experts in {}", in.weights.experts.name);
  }
  if (!(in.weights.embeddings == in.weights.linear)) {
    formats += fmt::format(", embeddings and norms in {}", in.weights.embeddings.name);
  }
  p.budget.push_back({"weights_bytes", "− Weights", Cell::bytes(b.weights_bytes),
                      m.params.stated_bytes > 0
                          ? fmt::format("{} {} for {:.2f}B params, this GPU's share / tp {}",
                                        m.weights_source.empty() ? "--weights" : "the checkpoint's",
                                        format_bytes(m.params.stated_bytes),
                                        static_cast<double>(m.params.total()) / 1e9, in.tensor_parallel)
                          : fmt::format("{:.2f}B params in {} / tp {}", static_cast<double>(m.params.total()) / 1e9,
                                        formats, in.tensor_parallel)});
  if (k.has(reserve)) {
    p.budget.push_back({"reserved_bytes", "− Runtime reserve", Cell::bytes(reserved), "--reserve"});
  } else {
    p.budget.push_back({"reserved_bytes", "− Runtime reserve", Cell::bytes(reserved),
                        "sum of the three estimates below (docs/budget.md)"});
    p.budget.push_back({"activations_bytes", "    activations", Cell::bytes(r.activations_bytes),
                        k.has(activation_memory)
                            ? std::string("--activation-memory")
                        : profile.batched_tokens == 8192
                            ? fmt::format("0.435 GiB + 13,300 B × vocab {} (fit to vLLM 0.19 profiling peaks)",
                                          with_commas(m.vocab_size))
                            : fmt::format("the fit (0.435 GiB + 13,300 B × vocab {}, at 8,192 tokens × 1,024 rows) "
                                          "scaled to {} tokens × {} rows, vLLM's default below 70 GiB",
                                          with_commas(m.vocab_size), with_commas(profile.batched_tokens), profile.rows)});
    p.budget.push_back({"cuda_graphs_bytes", "    CUDA graphs", Cell::bytes(r.cuda_graphs_bytes),
                        k.has(cuda_graph_memory)
                            ? "--cuda-graph-memory"
                            : "median of 16 vLLM 0.19 CUDA-graph estimates, 0.935 GiB (range 0.65-1.79)"});
    p.budget.push_back({"framework_bytes", "    framework", Cell::bytes(r.framework_bytes),
                        k.has(non_torch_memory)       ? "--non-torch-memory"
                        : in.tensor_parallel == 1     ? "CUDA context, cuBLAS (vLLM 0.19 non-torch at tp 1)"
                        : nvlink_sharp(in.gpu_name) ? "CUDA context + NCCL with NVLink SHARP (vLLM 0.19 at tp 2, H100)"
                                                      : "CUDA context + NCCL without NVLink SHARP (docs/budget.md)"});
  }
  if (b.deficit_bytes > 0) {
    p.budget.push_back({"kv_budget_bytes", "= KV cache budget", Cell::bytes(0),
                        fmt::format("short by {}: weights and reserve exceed what is usable",
                                    format_bytes(b.deficit_bytes))});
  } else {
    p.budget.push_back({"kv_budget_bytes", "= KV cache budget", Cell::bytes(b.kv_budget_bytes),
                        "what is left for the KV cache"});
  }
  // How far this budget is from vLLM's own at its defaults (issue #12): the reserve is fitted to vLLM,
  // so the report says what vLLM itself would leave for the KV cache here.
  const Engine& vllm = vllm_engine_module();
  const bool metal_only = in.gpu_arch.vendor == GpuVendor::apple && !vllm.capabilities().metal;
  if (const auto version = vllm.parse_version(vllm.default_version());
      version && !metal_only && !k.has(reserve) && !k.has(utilization)) {
    const KnobSet defaults;
    EngineInputs vi = in;
    vi.knobs = &defaults;
    vi.version = *version;
    vi.version_text = vllm.default_version();
    vi.text = false;
    vi.frontier_lengths = {};
    vi.kv_margin_ppm = 0;
    if (m.max_position_embeddings > 0) {
      vi.max_model_len = std::min(in.max_model_len, m.max_position_embeddings);  // vLLM refuses longer
    }
    const EnginePrediction v = vllm.predict(vi);
    if (v.startup != Startup::refused && v.kv_budget_bytes > 0 && b.kv_budget_bytes > 0) {
      const double delta = 100.0 * (static_cast<double>(b.kv_budget_bytes) - static_cast<double>(v.kv_budget_bytes)) /
                           static_cast<double>(v.kv_budget_bytes);
      p.budget.push_back({"", fmt::format("vLLM {}'s own KV budget", vllm.default_version()),
                          Cell::bytes(v.kv_budget_bytes),
                          fmt::format("at its defaults; the budget above is {:.1f}% {} (--engine vllm plans with "
                                      "vLLM's rules)",
                                      std::abs(delta), delta < 0 ? "below it" : "above it")});
    }
  }
  return p;
}

}  // namespace

const Engine& raw_engine_module() noexcept {
  static const Raw engine;
  return engine;
}

}  // namespace kvplan
