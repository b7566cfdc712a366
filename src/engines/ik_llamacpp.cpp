// ik_llama.cpp (ikawrakow/ik_llama.cpp, llama-server): the llama.cpp fork people run big MoE and
// DeepSeek/Kimi GGUFs with. What differs from llama.cpp, each read at 8337e4cd (build 4840,
// 2026-08-15; docs/engines.md, "ik_llama.cpp"):
// - one cache of n_ctx cells for every slot (src/llama.cpp llama_init_from_model: kv_size = n_ctx;
//   each server slot gets n_ctx / -np, examples/server/server-context.cpp), padded to 256 with flash
//   attention and 32 without (src/llama-context.h get_padding);
// - sliding-window layers keep all n_ctx cells (no iSWA cache; --swa-compress covers three archs);
// - MLA's -mla 0|1|2|3 (common/common.h mla_attn, default 3 since PR #943): 0 caches K and V per head,
//   1 without flash attention the latent (576) and its transposed V (512), otherwise the latent only
//   (src/llama.cpp llama_kv_cache_init);
// - -ot overrides first, then --cpu-moe / --n-cpu-moe, which on one GPU take the last N MoE layers
//   since PR #2262 (src/llama-load-tensors.cpp create_tensors_helper);
// - its own log lines (llama_kv_cache_init, "KV self size  = ..., c^KV (f16): ...").
#include <algorithm>
#include <array>
#include <fmt/format.h>
#include <string>
#include <variant>

#include "engine_util.hpp"
#include "ik_llamacpp_flags.hpp"
#include "kvplan/engine.hpp"
#include "kvplan/error.hpp"
#include "kvplan/quantity.hpp"
#include "kvplan/text.hpp"
#include "kvplan/units.hpp"
#include "llama_family.hpp"

namespace kvplan {
namespace {

// Versions: ik's own build numbers (`git rev-list --count` of its commit, printed as "build = 3703
// (a2b5057a)" and "build info | build=3703"), or build dates. They are not mainline's numbers.
constexpr int kDateKeys = 10'000'000;
struct Change {
  int build;
  int date;
  std::string_view what;
};
constexpr Change kFaOn{3928, 20251025, "PR #863"};         // flash attention (and fused MoE) on by default
constexpr Change kMla3{3983, 20251112, "PR #943"};         // -mla 3 by default (was 0)
constexpr Change kNewPrefix{4192, 20260213, "PR #1261"};   // "llama_init_from_model:" (was llama_new_context_with_model)
constexpr Change kNcmoeShared{4325, 20260319, "PR #1464"};  // --n-cpu-moe over several GPUs: shared among them
constexpr Change kLayerBytes{4327, 20260320, "PR #1466"};   // -sm layer places layers by bytes, not by count
constexpr Change kAllLayers{4761, 20260730, "PR #2209"};   // -ngl -1 (the default) is every layer when a GPU exists
constexpr Change kLastMoe{4797, 20260807, "PR #2262"};     // --n-cpu-moe on one GPU: the last N MoE layers
constexpr int kFirstBuild = 3571;  // the oldest build kvplan plans: -mla exists (issue #230's log, 2025-02-24)
constexpr bool has(const Change& c, int version) noexcept {
  return version < kDateKeys ? version >= c.build : version >= c.date;
}

std::optional<int> ik_version(std::string_view text) {
  const std::string_view digits = !text.empty() && (text[0] == 'b' || text[0] == 'B') ? text.substr(1) : text;
  if (!digits.empty() && digits.size() <= 6 &&
      std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    const auto n = to_unsigned(digits);
    return n && *n >= static_cast<std::uint64_t>(kFirstBuild) && *n < 1'000'000 ? std::optional<int>(static_cast<int>(*n))
                                                                                 : std::nullopt;
  }
  const std::optional<int> d = llama::build_date(text);
  return d && *d >= 20250224 ? d : std::nullopt;
}

enum K : std::size_t {
  ctx_size, parallel, cache_type_k, cache_type_v, flash_attn, no_flash_attn, mla, model, gpu_layers, no_kv_offload,
  split_mode, tensor_split, main_gpu, mlock, no_mmap, host_memory, override_tensor, cpu_moe, n_cpu_moe, fused_moe, kCount
};

// -sm none|layer|attn|graph (common/common.cpp; ik has no "row").
KnobValue split_name(std::string_view where, std::string_view text) {
  if (text == "none" || text == "layer" || text == "attn" || text == "graph") {
    return std::string(text);
  }
  throw Error(fmt::format("{}: split mode {} is none of none, layer, attn, graph (ik_llama.cpp has no row)", where,
                          quote_input(text)));
}

// -mla 0|1|2|3.
KnobValue mla_mode(std::string_view where, std::string_view text) {
  if (text.size() == 1 && text[0] >= '0' && text[0] <= '3') {
    return std::uint64_t(text[0] - '0');
  }
  throw Error(fmt::format("{}: MLA mode {} is none of 0, 1, 2, 3", where, quote_input(text)));
}

// -fa on|off|auto|1|0; a bare -fa (older builds) is on.
KnobValue fa_mode(std::string_view where, std::string_view text) {
  if (text.empty() || text == "on" || text == "1" || text == "auto") {
    return std::string("on");
  }
  if (text == "off" || text == "0") {
    return std::string("off");
  }
  throw Error(fmt::format("{}: flash attention {} is none of on, off, auto, 1, 0", where, quote_input(text)));
}

KnobValue override_list(std::string_view where, std::string_view text) {
  (void)llama::read_overrides(where, text);
  return std::string(text);
}

constexpr std::array<Knob, kCount> kKnobs{{
    {"ctx_size", "-c --ctx-size", KnobType::tokens, Target::own, "--ctx-size",
     "ik_llama.cpp: context cells shared by every slot (0 = the model's n_ctx_train; default 0)",
     "common/common.h gpt_params.n_ctx", nullptr, 2'147'483'647, true},
    {"parallel", "-np --parallel", KnobType::count, Target::own, "--parallel",
     "ik_llama.cpp: server slots, each n_ctx / N tokens (default 1)", "common/common.h gpt_params.n_parallel", nullptr,
     4096},
    {"cache_type_k", "-ctk --cache-type-k", KnobType::dtype, Target::own, "--cache-type-k",
     "ik_llama.cpp: K cache type", "common/common.h gpt_params.cache_type_k"},
    {"cache_type_v", "-ctv --cache-type-v", KnobType::dtype, Target::own, "--cache-type-v",
     "ik_llama.cpp: V cache type", "common/common.h gpt_params.cache_type_v"},
    {"flash_attn", "-fa --flash-attn", KnobType::text, Target::own, "--flash-attn",
     "ik_llama.cpp: flash attention on|off (default on from build 3928)", "common/common.h gpt_params.flash_attn",
     fa_mode},
    {"no_flash_attn", "-no-fa --no-flash-attn", KnobType::flag, Target::own, "", "ik_llama.cpp: flash attention off",
     "common/common.cpp gpt_params_find_arg"},
    {"mla", "-mla --mla-use", KnobType::count, Target::own, "--mla",
     "ik_llama.cpp: MLA cache 0 (K and V per head), 1 (latent, and V^T without -fa), 2 or 3 (latent only; default 3)",
     "common/common.h gpt_params.mla_attn", mla_mode, 3, true},
    {"model", "-m --model", KnobType::text, Target::model, "", "the model: a GGUF file", "common/common.h gpt_params.model"},
    {"gpu_layers", "-ngl --gpu-layers --n-gpu-layers", KnobType::text, Target::own, "--gpu-layers",
     "ik_llama.cpp: layers on the GPUs, the last N (default all from build 4761, none before)",
     "common/common.h gpt_params.n_gpu_layers; src/llama.cpp llm_load_tensors", llama::layer_count},
    {"no_kv_offload", "-nkvo --no-kv-offload", KnobType::flag, Target::own, "",
     "ik_llama.cpp: every layer's KV in host memory", "common/common.h gpt_params.no_kv_offload"},
    {"split_mode", "-sm --split-mode", KnobType::text, Target::own, "--split-mode",
     "ik_llama.cpp: none, layer (default), attn or graph", "common/common.h gpt_params.split_mode", split_name},
    {"tensor_split", "-ts --tensor-split", KnobType::text, Target::own, "--tensor-split",
     "ik_llama.cpp: each GPU's share, e.g. 1,4", "common/common.h gpt_params.tensor_split", llama::split_list},
    {"main_gpu", "-mg --main-gpu", KnobType::count, Target::own, "--main-gpu", "ik_llama.cpp: the GPU for -sm none",
     "common/common.h gpt_params.main_gpu", nullptr, 64, true},
    {"mlock", "--mlock", KnobType::flag, Target::own, "--mlock",
     "ik_llama.cpp: lock the host-side weights in RAM (they must fit --host-memory)", "common/common.h gpt_params.use_mlock"},
    {"no_mmap", "--no-mmap", KnobType::flag, Target::own, "",
     "ik_llama.cpp: copy the host-side weights into RAM", "common/common.h gpt_params.use_mmap"},
    {"host_memory", "", KnobType::bytes, Target::own, "--host-memory",
     "ik_llama.cpp: host RAM for the layers, experts and KV kept off the GPUs", "kvplan"},
    {"override_tensor", "-ot --override-tensor", KnobType::text, Target::own, "--override-tensor",
     "ik_llama.cpp: PATTERN=BUFFER,...: tensors whose name matches go to that buffer",
     "common/common.cpp parse_buft_overrides", override_list, 0, false, {}, true},
    {"cpu_moe", "-cmoe --cpu-moe", KnobType::flag, Target::own, "--cpu-moe",
     "ik_llama.cpp: every MoE layer's experts in host RAM", "common/common.cpp (ncmoe = 999)"},
    {"n_cpu_moe", "-ncmoe --n-cpu-moe", KnobType::count, Target::own, "--n-cpu-moe",
     "ik_llama.cpp: the experts of N MoE layers in host RAM (one GPU: the last N, from build 4797)",
     "src/llama-load-tensors.cpp create_tensors_helper", nullptr, 1 << 20, true},
    {"fused_moe", "-fmoe --fused-moe", KnobType::flag, Target::own, "",
     "ik_llama.cpp: fused MoE (no memory of its own); builds from 3928 have no such flag",
     "common/common.cpp before PR #863"},
}};

bool has_latent(const ModelSpec& m) {
  for (const LayerGroup& g : m.layers) {
    if (std::holds_alternative<LatentAttention>(g.spec)) {
      return true;
    }
  }
  return false;
}

class IkLlamacpp final : public Engine {
 public:
  std::string_view name() const override { return "ik_llamacpp"; }
  std::string_view display() const override { return "ik_llama.cpp"; }
  std::span<const std::string_view> aliases() const override { return kAliases; }
  std::string_view default_version() const override { return "4840"; }
  std::string_view versions_help() const override {
    return "an ik_llama.cpp build number from 3571 (bNNNN; 4840 is 8337e4cd, 2026-08-15), or a build date from "
           "2025-02-24";
  }
  std::optional<int> parse_version(std::string_view t) const override { return ik_version(t); }
  Capabilities capabilities() const override {
    Capabilities c;
    c.splits_heads = false;
    c.data_parallel = false;
    c.pipeline = false;
    c.layers_over_devices = true;
    c.metal = true;
    c.margin_ppm = 0;
    return c;
  }
  std::span<const Knob> knobs() const override { return kKnobs; }
  std::string_view flag_table() const override { return engines::kIkLlamacppFlags; }
  std::string_view flag_table_source() const override {
    return "ik_llama.cpp common/common.cpp gpt_params_find_arg at 8337e4cd (llama-server)";
  }
  std::optional<std::size_t> cap_knob() const override { return parallel; }
  std::optional<std::size_t> expert_offload_knob() const override { return n_cpu_moe; }
  void validate(const KnobSet& k) const override {
    for (std::size_t t : {cache_type_k, cache_type_v}) {
      llama::refuse_foreign_kv(k.dtype(t), "ik_llama.cpp",
                               "f32, f16, bf16, q8_0, q4_0, q4_1, iq4_nl, q5_0, q5_1 or q6_0 "
                               "(common/common.cpp kv_cache_type_from_str)");
    }
  }
  std::optional<std::string> split_problem(const ModelSpec& m, std::uint32_t tp, std::uint32_t pp,
                                           std::uint32_t cp) const override {
    (void)pp, (void)cp;
    if (tp > 1) {
      return "ik_llama.cpp splits layers across GPUs (-sm layer), not KV heads; plan it with --tp 1";
    }
    // (ik's indexer cache for GLM-DSA, "KV self indexer size", is not sized by kvplan.)
    if (const char* missing = llama::missing_cache(m)) {
      return fmt::format("kvplan does not size ik_llama.cpp's {} cache; plan {} with another engine", missing, m.name);
    }
    return std::nullopt;
  }
  EnginePrediction predict(const EngineInputs& in) const override;
  void serve_shape(std::uint64_t batch, std::uint64_t len, KnobSet& k) const override {
    k.set(ctx_size, sat_mul(batch, len));  // each slot gets n_ctx / -np
    k.set(parallel, batch);
  }
  std::optional<std::string> emit(const EmitInputs& in) const override {
    const KnobSet& k = *in.knobs;
    const DType base = in.kv_dtype.value_or(*find_dtype(kv_dtypes(), "fp16"));
    return fmt::format("llama-server -m {}.gguf -c {} -np {} -ctk {} -ctv {} -fa on", in.model_name,
                       k.number(ctx_size).value_or(0), k.number(parallel).value_or(1),
                       llama::ggml_name(k.dtype(cache_type_k).value_or(base)),
                       llama::ggml_name(k.dtype(cache_type_v).value_or(base)));
  }
  // A llama-server run from an ik_llama.cpp checkout or install (".../ik_llama.cpp/build/bin/llama-server").
  std::optional<CommandForm> command_form(std::span<const std::string> argv) const override {
    if (argv.empty() || engines::program_name(argv[0]) != "llama-server" ||
        argv[0].find("ik_llama") == std::string::npos) {
      return std::nullopt;
    }
    return CommandForm{1, false, {}, {}, {}};
  }
  // Any llama-server, when --engine ik_llamacpp says which one it is.
  std::optional<CommandForm> named_command_form(std::span<const std::string> argv) const override {
    if (argv.empty() || engines::program_name(argv[0]) != "llama-server") {
      return std::nullopt;
    }
    return CommandForm{1, false, {}, {}, {}};
  }
  std::span<const std::string_view> command_examples() const override { return kExamples; }

 private:
  static constexpr std::array<std::string_view, 3> kAliases{"ik_llama.cpp", "ik-llama.cpp", "ik_llama"};
  static constexpr std::array<std::string_view, 1> kExamples{".../ik_llama.cpp/.../llama-server ..."};
};

EnginePrediction IkLlamacpp::predict(const EngineInputs& in) const {
  const ModelSpec& m = *in.model;
  const KnobSet& s = *in.knobs;
  const int v = in.version;
  EnginePrediction p;
  p.usable_bytes = in.gpu_memory_bytes;
  if (s.flag(fused_moe).value_or(false) && has(kFaOn, v)) {
    throw Error(fmt::format("ik_llama.cpp {} has no -fmoe: fused MoE is on by default since build 3928 (PR #863), "
                            "which removed the flag (\"error: unknown argument: -fmoe\"); drop it from the command line",
                            v < kDateKeys ? std::to_string(v) : std::string(in.version_text)));
  }
  const DType base = in.kv_dtype.name == "bf16" || in.kv_dtype.name == "fp16" ? *find_dtype(kv_dtypes(), "fp16")
                                                                              : in.kv_dtype;
  const DType tk = s.dtype(cache_type_k).value_or(base);
  const DType tv = s.dtype(cache_type_v).value_or(base);
  const std::uint64_t n_seq = s.number(parallel).value_or(1);
  const bool fa = !s.flag(no_flash_attn).value_or(false) &&
                  (s.find(flash_attn) != nullptr ? std::get<std::string>(*s.find(flash_attn)) == "on" : has(kFaOn, v));
  const std::uint64_t pad = fa ? 256 : 32;  // src/llama-context.h get_padding
  const std::uint64_t asked = s.number(ctx_size).value_or(0) == 0 ? m.max_position_embeddings : *s.number(ctx_size);
  const std::uint64_t n_ctx = round_up(asked, pad);
  const std::string mode = s.find(split_mode) != nullptr ? std::get<std::string>(*s.find(split_mode)) : "layer";
  if (mode == "attn" || (mode == "graph" && in.devices > 1 && has_latent(m))) {
    throw Error(fmt::format("kvplan does not model ik_llama.cpp's -sm {}{}: plan -sm layer or none", mode,
                            mode == "graph" ? " for MLA models (the latent cache is copied to every GPU)" : ""));
  }
  // -ngl: every layer by default from PR #2209; none before (a Metal build offloads all).
  const bool all_layers = has(kAllLayers, v) || in.gpu_arch.vendor == GpuVendor::apple;
  const KnobValue* ngl = s.find(gpu_layers);
  const std::uint64_t n_layer = m.num_hidden_layers;
  const std::uint64_t offloaded = ngl == nullptr ? (all_layers ? n_layer + 1 : 0)
                                  : std::holds_alternative<std::string>(*ngl) ? n_layer + 1
                                                                              : std::get<std::uint64_t>(*ngl);
  // MLA mode: 3 by default from PR #943 (0 before); a model partly on the GPUs runs mode 3
  // (llm_load_tensors: "MLA models with ngl < n_layer ... => changing mla to 3").
  const bool latent = has_latent(m);
  std::uint64_t mla_mode_used = s.number(mla).value_or(has(kMla3, v) ? 3 : 0);
  const bool forced3 = latent && offloaded > 0 && offloaded < n_layer && mla_mode_used != 3;
  if (forced3) {
    mla_mode_used = 3;
  }
  const llama::MlaCache mla_cache = !latent || mla_mode_used == 0           ? llama::MlaCache::expanded
                                    : mla_mode_used == 1 && !fa            ? llama::MlaCache::latent_kv
                                                                           : llama::MlaCache::latent_k;
  // Modes 2 and 3 without flash attention store the latent in -ctv's type (primary_kv_type).
  const DType latent_type = latent && !fa && mla_mode_used >= 2 ? tv : tk;
  const llama::Sizes sz =
      llama::sizes(m, latent ? latent_type : tk, tv, n_ctx, 1, n_ctx, n_seq, mla_cache, /*swa_cache=*/false);
  if (s.flag(cpu_moe).value_or(false) == false && s.number(n_cpu_moe).value_or(0) > 0 && in.devices > 1 &&
      has(kNcmoeShared, v) && mode == "layer") {
    throw Error("kvplan does not model ik_llama.cpp's --n-cpu-moe over several GPUs (PR #1464 shares the layers among "
                "them); give the layers with -ot, e.g. -ot 'blk\\.(5[0-9])\\.ffn_.*_exps=CPU'");
  }
  llama::PlaceParams pp;
  pp.gpu_layers = ngl;
  pp.all_layers = all_layers;
  pp.split_mode = mode == "graph" ? "tensor" : mode;  // graph: weights and KV heads over the GPUs
  pp.main_gpu = s.number(main_gpu).value_or(0);
  pp.tensor_split = s.find(tensor_split) != nullptr ? &std::get<std::string>(*s.find(tensor_split)) : nullptr;
  pp.kv_offload = !s.flag(no_kv_offload).value_or(false);
  pp.overrides = s.find(override_tensor) != nullptr ? &std::get<std::string>(*s.find(override_tensor)) : nullptr;
  pp.cpu_moe = s.flag(cpu_moe).value_or(false);
  pp.n_cpu_moe = s.number(n_cpu_moe).value_or(0);
  pp.n_cpu_moe_from_last = has(kLastMoe, v);
  const llama::Placement pl = llama::place(m, in.weights, pp, in.devices);
  std::uint64_t host_kv = 0;
  const std::vector<std::uint64_t> device_kv = llama::kv_per_device(pl, sz.total(), host_kv);
  std::size_t busiest = 0;
  for (std::size_t d = 1; d < device_kv.size(); ++d) {
    if (sat_add(pl.weights[d], device_kv[d]) > sat_add(pl.weights[busiest], device_kv[busiest])) {
      busiest = d;
    }
  }
  const std::uint64_t weights = pl.weights[busiest];
  p.weights_bytes = weights;
  p.kv_budget_bytes = sz.total();
  const std::uint64_t slot = n_ctx / std::max<std::uint64_t>(n_seq, 1);  // n_ctx_slot = n_ctx / n_parallel
  p.max_model_len = slot;
  p.configured_len = slot;
  p.block_tokens = 1;
  p.concurrency_cap = n_seq;
  p.kv_dtype = latent ? latent_type : tk;
  const bool quantized_v = tv.name != "fp16" && tv.name != "bf16" && tv.name != "fp32";
  if (quantized_v && !fa) {
    p.startup = Startup::refused;  // common/common.cpp common_context_params: "Quantized V cache cannot be used without flash attention"
    p.refusal = fmt::format("a quantized V cache ({}) cannot be used without flash attention", llama::ggml_name(tv));
  }
  if (p.startup == Startup::ok && in.gpu_memory_bytes > 0 && sat_add(weights, device_kv[busiest]) > in.gpu_memory_bytes) {
    p.startup = Startup::no_kv_memory;
  }
  const bool resident = s.flag(mlock).value_or(false) || s.flag(no_mmap).value_or(false);
  const std::uint64_t host_needed = sat_add(host_kv, resident ? pl.host_weights : 0);
  if (const auto ram = s.number(host_memory); ram && p.startup == Startup::ok && host_needed > *ram) {
    p.startup = Startup::refused;
    p.refusal = fmt::format("the host needs {} of RAM but --host-memory gives {}", format_bytes(host_needed),
                            format_bytes(*ram));
  }
  const std::uint64_t shape = std::max<std::uint64_t>(in.shape_seq_len, 1);
  p.capacity_at_shape = shape > slot ? 0 : n_seq;
  for (std::uint64_t len : in.frontier_lengths) {
    if (len <= slot) {
      p.frontier.emplace_back(len, n_seq);
    }
  }
  if (!in.text) {
    return p;
  }
  if (in.gpu_memory_bytes > 0) {
    p.budget = {
        {"total_gpu_memory_bytes", "Device memory", Cell::bytes(in.gpu_memory_bytes), ""},
        {"weights_bytes", "− Model weights", Cell::bytes(weights),
         pl.weights.size() > 1 ? fmt::format("CUDA{}'s layers, the fullest", busiest) : std::string("this device's layers")},
        {"kv_size_bytes", "− KV cache", Cell::bytes(device_kv[busiest]), "its layers' share of n_ctx cells"},
        {"free_bytes", "= Left free", Cell::bytes(sat_sub(in.gpu_memory_bytes, sat_add(weights, device_kv[busiest]))),
         "compute buffers (-amb, -ub) are not modelled"},
    };
  }
  const bool split = pl.weights.size() > 1 || pl.host_layers > 0 || host_kv > 0 || pl.moved_tensors > 0;
  auto mib = [](std::uint64_t b) { return static_cast<double>(b) / static_cast<double>(kMiB); };
  if (split) {
    p.log_lines.push_back(fmt::format("llm_load_tensors: offloaded {}/{} layers to GPU", pl.offloaded, pl.n_layer + 1));
    p.log_lines.push_back(fmt::format("llm_load_tensors: {:>10} buffer size = {:8.2f} MiB", "CPU", mib(pl.host_weights)));
    for (std::size_t d = 0; d < pl.weights.size(); ++d) {
      p.log_lines.push_back(
          fmt::format("llm_load_tensors: {:>10} buffer size = {:8.2f} MiB", fmt::format("CUDA{}", d), mib(pl.weights[d])));
    }
  }
  for (std::size_t d = 0; d < device_kv.size(); ++d) {
    if (device_kv[d] > 0) {
      p.log_lines.push_back(fmt::format("llama_kv_cache_init: {:>10} KV buffer size = {:8.2f} MiB",
                                        fmt::format("CUDA{}", d), mib(device_kv[d])));
    }
  }
  if (host_kv > 0) {
    p.log_lines.push_back(fmt::format("llama_kv_cache_init: {:>10} KV buffer size = {:8.2f} MiB", "CPU", mib(host_kv)));
  }
  const char* prefix = has(kNewPrefix, v) ? "llama_init_from_model" : "llama_new_context_with_model";
  const std::uint64_t k_bytes = sz.base.k_bytes;
  const std::uint64_t v_bytes = sz.base.v_bytes;
  const std::string k_name = llama::ggml_name(tk);  // the log names -ctk's type even where -ctv's is used
  if (latent && mla_mode_used != 0 && fa) {
    p.log_lines.push_back(fmt::format("{}: KV self size  = {:7.2f} MiB, c^KV ({}): {:7.2f} MiB, kv^T: not used", prefix,
                                      mib(sz.total()), k_name, mib(k_bytes)));
  } else if (latent && mla_mode_used != 0) {
    p.log_lines.push_back(fmt::format("{}: KV self size  = {:7.2f} MiB, c^KV ({}): {:7.2f} MiB, kv^T ({}): {:7.2f} MiB",
                                      prefix, mib(sz.total()), k_name, mib(k_bytes), llama::ggml_name(tv), mib(v_bytes)));
  } else {
    p.log_lines.push_back(fmt::format("{}: KV self size  = {:7.2f} MiB, K ({}): {:7.2f} MiB, V ({}): {:7.2f} MiB", prefix,
                                      mib(sz.total()), k_name, mib(k_bytes), llama::ggml_name(tv), mib(v_bytes)));
  }
  if (forced3) {
    p.notes.push_back("MLA models with ngl < n_layer run -mla 3: ik_llama.cpp changes the mode (llm_load_tensors)");
  }
  if (const std::string moved = llama::moved_note(pl); !moved.empty()) {
    p.notes.push_back(moved);
  }
  if (pl.weights.size() > 1 && mode == "layer" && has(kLayerBytes, v)) {
    p.notes.push_back("From build 4327 (PR #1466) -sm layer gives each GPU layers by their bytes and a compute estimate; "
                      "kvplan splits them by count, as builds before did, so a GPU may hold a layer more or less");
  }
  p.fields = {
      {"n_ctx", "n_ctx", Cell::tokens(n_ctx), fmt::format("-c {} padded to a multiple of {}", asked, pad)},
      {"n_ctx_slot", "n_ctx_slot", Cell::tokens(slot), "n_ctx / -np: each slot's context"},
      {"n_seq_max", "n_parallel", Cell::count(n_seq), "-np"},
      {"flash_attn", "flash_attn", Cell::flag(fa), has(kFaOn, v) ? "on by default" : "off unless -fa"},
      {"kv_size_bytes", "KV self size", Cell::bytes(sz.total()), ""},
      {"k_bytes", latent && mla_mode_used != 0 ? "c^KV" : "K", Cell::bytes(k_bytes), llama::ggml_name(latent ? latent_type : tk)},
      {"v_bytes", latent && mla_mode_used != 0 ? "kv^T" : "V", Cell::bytes(v_bytes), llama::ggml_name(tv)},
  };
  if (latent) {
    p.fields.push_back({"mla_attn", "mla_attn", Cell::count(mla_mode_used),
                        mla_mode_used == 0 ? "K and V per head" : mla_cache == llama::MlaCache::latent_kv
                                                                      ? "the latent and its transpose"
                                                                      : "the latent only"});
  }
  if (sz.recurrent_layers > 0) {
    p.fields.push_back({"recurrent_bytes", "Recurrent state", Cell::bytes(sz.recurrent_bytes), "R and S in f32"});
  }
  if (split) {
    llama::device_fields(pl, device_kv, host_kv, host_needed, resident, p.fields);
  }
  return p;
}

}  // namespace

const Engine& ik_llamacpp_engine_module() noexcept {
  static const IkLlamacpp engine;
  return engine;
}

}  // namespace kvplan
