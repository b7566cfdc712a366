// llama.cpp (llama-server): its knobs and flags; exactly n_ctx cells, padded to 256; SWA layers in a
// second cache of pad256(n_swa * n_seq + n_ubatch) cells; MLA K-only since b7832; recurrent
// state in f32; what older builds do (a table of changes by build number); tensor overrides; its
// launch command and command lines.
// Sources (docs/engines.md): src/llama-context.cpp (n_ctx padding), src/llama-kv-cache.cpp
// (allocation and its log line), src/llama-kv-cache-iswa.cpp (SWA size), src/llama-hparams.cpp
// (n_embd_k_gqa, n_embd_r/s), PR #19067 (V-less cache for MLA), common/arg.cpp (flags, --fit).
#include <algorithm>
#include <array>
#include <fmt/format.h>
#include <numeric>
#include <tuple>
#include <variant>

#include "engine_util.hpp"
#include "kvplan/engine.hpp"
#include "kvplan/error.hpp"
#include "kvplan/quantity.hpp"
#include "kvplan/units.hpp"
#include "kvplan/text.hpp"
#include "llama_family.hpp"
#include "llamacpp_flags.hpp"

namespace kvplan {
namespace {

using llama::build_date;
using llama::Cache;
using llama::ggml_name;
using llama::kv_per_device;
using llama::layer_count;
using llama::MlaCache;
using llama::Placement;
using llama::read_overrides;
using llama::size_line;
using llama::sizes;
using llama::Sizes;
using llama::split_list;

// Versions: a build number (bNNNN: the release tag, `git rev-list --count` of its master commit) or a
// build date (YYYYMMDD). Keys below kDateKeys are build numbers. Each behaviour change kvplan models is
// one row: the first build that has it and the day its PR merged (docs/engines.md, "llama.cpp by
// build"; ggml-org/llama.cpp's master history, github.com/ggml-org/llama.cpp/releases/tag/bNNNN).
constexpr int kDateKeys = 10'000'000;
struct Change {
  int build;
  int date;
  std::string_view what;  // the PR, for messages
};
constexpr Change kPadByFa{2871, 20240513, "PR #7257"};        // KV padding 256 with flash attention, 32 without
constexpr Change kOverrides{5028, 20250402, "PR #11397"};     // -ot / --override-tensor
constexpr Change kMla{5137, 20250415, "PR #12801"};           // DeepSeek's latent cache (else MHA-expanded K/V)
constexpr Change kSwaCache{5429, 20250520, "PR #13194"};      // sliding layers in their own cache; --swa-full
constexpr Change kSwaUbatch{5554, 20250531, "PR #13833"};     // that cache: n_swa + n_ubatch cells (was n_batch)
constexpr Change kStreams{5913, 20250716, "PR #14363"};       // per-sequence streams, --kv-unified
constexpr Change kSetRows{6071, 20250802, "PR #14959"};       // streams on (before: "forcing unified KV cache")
constexpr Change kCpuMoe{6051, 20250731, "PR #14992"};        // --cpu-moe
constexpr Change kNCpuMoe{6089, 20250805, "PR #15077"};       // --n-cpu-moe
constexpr Change kAllLayers{6325, 20250830, "PR #15434"};     // -ngl default all (was 0), -fa default auto
constexpr Change kNoPad{6868, 20251028, "PR #16812"};         // no KV size padding
constexpr Change kServerSlots{6925, 20251102, "PR #16736"};   // llama-server: 4 slots and a unified cache
constexpr Change kPad256{6975, 20251107, "PR #17046"};        // n_ctx, n_ctx_seq and the SWA cache padded to 256
constexpr Change kFit{7407, 20251215, "PR #16653"};           // --fit (on), and -c default 0 (was 4096)
constexpr Change kAutoSlots{7433, 20251216, "PR #17997"};     // -np -1 (auto) by default: an explicit -np 1 is kept
constexpr Change kVless{7832, 20260125, "PR #19067"};         // MLA: K only, no V
constexpr bool has(const Change& c, int version) noexcept {
  return version < kDateKeys ? version >= c.build : version >= c.date;
}
std::string version_name(int version) {
  return version < kDateKeys ? fmt::format("b{}", version)
                             : fmt::format("{:04}-{:02}-{:02}", version / 10000, version / 100 % 100, version % 100);
}
constexpr std::uint64_t kPad = 256;         // GGML_PAD(n_ctx, 256), PR #17046; SWA cache padding, issue #17037
constexpr std::uint64_t kOldContext = 4096;  // common_params.n_ctx before PR #16653 (since PR #10136, b4014)
constexpr std::uint64_t kBatch = 2048;       // common_params.n_batch: the SWA cache's margin in b5429-b5553
constexpr std::uint64_t kFitTargetMiB = 1024;  // --fit leaves fit_params_target = 1024 MiB free (common.h)
constexpr std::uint64_t kFitMinContext = 4096;  // fit_params_min_ctx (common.h; -fitc)

enum K : std::size_t {
  ctx_size, parallel, cache_type_k, cache_type_v, kv_unified, swa_full, fit, fit_target, fit_ctx, ubatch_size,
  flash_attn, model, gpu_layers, kv_offload, split_mode, tensor_split, main_gpu, mlock, mmap, host_memory,
  override_tensor, cpu_moe, n_cpu_moe, kCount
};

// The check a command line gets when it is read; predict() reads the list again.
KnobValue override_list(std::string_view where, std::string_view text) {
  (void)read_overrides(where, text);
  return std::string(text);
}

// -sm none|layer|row|tensor (common/arg.cpp; llama.h enum llama_split_mode).
KnobValue split_name(std::string_view where, std::string_view text) {
  if (text == "none" || text == "layer" || text == "row" || text == "tensor") {
    return std::string(text);
  }
  throw Error(fmt::format("{}: split mode {} is none of none, layer, row, tensor", where, quote_input(text)));
}

// -np -1 is "auto" (4 slots with a unified cache in llama-server).
KnobValue slots(std::string_view where, std::string_view text) {
  if (text == "-1") {
    return std::string("auto");
  }
  return parse_count(where, text, 4096);
}

// -fitt takes one value per device ("1024,2048"); kvplan plans one device, so the first.
KnobValue first_count(std::string_view where, std::string_view text) {
  return parse_count(where, text.substr(0, text.find(',')), 1 << 20);
}

// -c N: llama-server reads an int (common/arg.cpp common_params_parse_ex: handler_int(params,
// std::stoi(value))), so above INT_MAX it stops with "error while handling argument".
KnobValue context_cells(std::string_view where, std::string_view text) {
  if (text == "0") {
    return std::uint64_t{0};
  }
  return parse_count(where, text, 2'147'483'647);
}

constexpr std::array<Knob, kCount> kKnobs{{
    {"ctx_size", "-c --ctx-size", KnobType::tokens, Target::own, "--ctx-size -c",
     "llama.cpp: context cells (0 = the model's n_ctx_train; default 0)", "common/arg.cpp common_params.n_ctx",
     context_cells, 0, true},
    {"parallel", "-np --parallel", KnobType::count, Target::own, "--parallel --np",
     "llama.cpp: slots (-np; default auto: 4 with a unified cache)", "common/arg.cpp common_params.n_parallel", slots,
     4096},
    {"cache_type_k", "-ctk --cache-type-k", KnobType::dtype, Target::own, "--cache-type-k --ctk",
     "llama.cpp: K cache type (f16, q8_0, q4_0, ...)", "common/arg.cpp common_params.cache_type_k"},
    {"cache_type_v", "-ctv --cache-type-v", KnobType::dtype, Target::own, "--cache-type-v --ctv",
     "llama.cpp: V cache type (f16, q8_0, q4_0, ...)", "common/arg.cpp common_params.cache_type_v"},
    {"kv_unified", "-kvu --kv-unified", KnobType::flag, Target::own, "--kv-unified",
     "llama.cpp: one cache shared by all slots", "common/arg.cpp common_params.kv_unified"},
    {"swa_full", "--swa-full", KnobType::flag, Target::own, "--swa-full",
     "llama.cpp: full-size cache for sliding-window layers", "common/arg.cpp common_params.swa_full"},
    {"fit", "--fit", KnobType::flag, Target::own, "--fit",
     "llama.cpp: on|off, shrink n_ctx to leave 1024 MiB free (default on)", "common/arg.cpp common_params.fit_params",
     engines::on_off},
    {"fit_target", "-fitt --fit-target", KnobType::count, Target::own, "",
     "llama.cpp: MiB --fit keeps free per device (default 1024)", "common/arg.cpp common_params.fit_params_target",
     first_count, 1 << 20, true},
    {"fit_ctx", "-fitc --fit-ctx", KnobType::count, Target::own, "",
     "llama.cpp: the smallest n_ctx --fit may choose (default 4096)", "common/arg.cpp common_params.fit_params_min_ctx",
     nullptr, 0, true},
    {"ubatch_size", "-ub --ubatch-size", KnobType::count, Target::own, "--ubatch-size",
     "llama.cpp: physical batch (default 512)", "common/arg.cpp common_params.n_ubatch", nullptr, 1 << 20},
    {"flash_attn", "-fa --flash-attn", KnobType::text, Target::own, "--flash-attn",
     "llama.cpp: flash attention on|off|auto (default auto; off before b6325); a quantized V cache needs it",
     "common/arg.cpp common_params.flash_attn_type"},
    {"model", "-m --model", KnobType::text, Target::model, "", "the model: a GGUF file",
     "common/arg.cpp common_params.model"},
    {"gpu_layers", "-ngl --gpu-layers --n-gpu-layers", KnobType::text, Target::own, "--gpu-layers --ngl",
     "llama.cpp: layers on the GPUs, the last N (default all); the rest and their KV stay in host memory",
     "common/arg.cpp common_params.n_gpu_layers; src/llama-model.cpp load_tensors (i_gpu_start)", layer_count},
    {"kv_offload", "-kvo --kv-offload", KnobType::flag, Target::own, "",
     "llama.cpp: KV of offloaded layers on their GPU (default on; -nkvo keeps all KV in host memory)",
     "common/arg.cpp common_params.no_kv_offload"},
    {"split_mode", "-sm --split-mode", KnobType::text, Target::own, "--split-mode",
     "llama.cpp: none, layer (default: whole layers per GPU), row or tensor", "common/arg.cpp common_params.split_mode",
     split_name},
    {"tensor_split", "-ts --tensor-split", KnobType::text, Target::own, "--tensor-split",
     "llama.cpp: each GPU's share of the layers, e.g. 3,1 (default: in proportion to free memory)",
     "common/arg.cpp common_params.tensor_split", split_list},
    {"main_gpu", "-mg --main-gpu", KnobType::count, Target::own, "--main-gpu",
     "llama.cpp: the GPU for -sm none, and for the KV with -sm row (default 0)", "common/arg.cpp common_params.main_gpu",
     nullptr, 64, true},
    {"mlock", "--mlock", KnobType::flag, Target::own, "--mlock",
     "llama.cpp: lock the model's pages in host RAM: the host-side weights must fit --host-memory",
     "common/arg.cpp common_params.use_mlock"},
    {"mmap", "--mmap", KnobType::flag, Target::own, "",
     "llama.cpp: map the GGUF (default); --no-mmap copies the host-side weights into RAM",
     "common/arg.cpp common_params.use_mmap"},
    {"host_memory", "", KnobType::bytes, Target::own, "--host-memory",
     "llama.cpp: host RAM for the layers and KV kept off the GPUs (a budget of its own, e.g. 64GB)", "kvplan"},
    {"override_tensor", "-ot --override-tensor", KnobType::text, Target::own, "--override-tensor",
     "llama.cpp: PATTERN=BUFFER,...: tensors whose name matches go to that buffer (exps=CPU: experts in host RAM)",
     "common/arg.cpp common_params.tensor_buft_overrides", override_list, 0, false, {}, true},
    {"cpu_moe", "-cmoe --cpu-moe", KnobType::flag, Target::own, "--cpu-moe",
     "llama.cpp: every layer's expert weights in host RAM (the layers' KV stays on their GPU)",
     "common/arg.cpp, common/common.h LLM_FFN_EXPS_REGEX"},
    {"n_cpu_moe", "-ncmoe --n-cpu-moe", KnobType::count, Target::own, "--n-cpu-moe",
     "llama.cpp: the expert weights of the first N layers in host RAM", "common/arg.cpp, llm_ffn_exps_block_regex",
     nullptr, 1 << 20, true},
}};

// The knobs a build may lack, and the change that added each.
constexpr std::array<std::pair<std::size_t, Change>, 8> kKnobSince{{{override_tensor, kOverrides},
                                                                    {cpu_moe, kCpuMoe},
                                                                    {n_cpu_moe, kNCpuMoe},
                                                                    {kv_unified, kStreams},
                                                                    {swa_full, kSwaCache},
                                                                    {fit, kFit},
                                                                    {fit_target, kFit},
                                                                    {fit_ctx, kFit}}};

// "b6089" (or "6089", as a log's "build: 6089 (ec428b02)" prints it) -> 6089; "2026-01-24" -> 20260124.
std::optional<int> build_version(std::string_view text) {
  const std::string_view digits = !text.empty() && (text[0] == 'b' || text[0] == 'B') ? text.substr(1) : text;
  if (!digits.empty() && digits.size() <= 6 && std::all_of(digits.begin(), digits.end(), [](char c) {
        return c >= '0' && c <= '9';
      })) {
    const auto n = to_unsigned(digits);
    if (n && *n >= static_cast<std::uint64_t>(kPadByFa.build) && *n < 1'000'000) {
      return static_cast<int>(*n);
    }
    return std::nullopt;
  }
  return build_date(text);
}


class Llamacpp final : public Engine {
 public:
  std::string_view name() const override { return "llamacpp"; }
  std::string_view display() const override { return "llama.cpp"; }
  std::span<const std::string_view> aliases() const override { return kAliases; }
  std::string_view default_version() const override { return "2026-11-30"; }
  std::string_view versions_help() const override {
    return "a build number b2871 or later (bNNNN, the release tag), or a build date, 2024-01-01 to 2030-12-31";
  }
  std::optional<int> parse_version(std::string_view t) const override { return build_version(t); }
  Capabilities capabilities() const override {
    Capabilities c;
    c.splits_heads = false;  // --split-mode layer: whole layers per GPU
    c.data_parallel = false;
    c.pipeline = false;
    c.layers_over_devices = true;  // every visible device, layers split by -ts (src/llama-model.cpp)
    c.metal = true;                // ggml's Metal backend (ggml/src/ggml-metal)
    c.margin_ppm = 0;  // KV size exact to 0.01 MiB (docs/accuracy.md)
    return c;
  }
  std::span<const Knob> knobs() const override { return kKnobs; }
  std::string_view flag_table() const override { return engines::kLlamacppFlags; }
  std::string_view flag_table_source() const override { return "llama.cpp common/arg.cpp (llama-server)"; }
  std::optional<std::size_t> cap_knob() const override { return parallel; }
  std::optional<std::size_t> expert_offload_knob() const override { return n_cpu_moe; }
  bool has_knob(std::size_t knob, int version) const override {
    const auto* it = std::find_if(kKnobSince.begin(), kKnobSince.end(), [&](const auto& k) { return k.first == knob; });
    return it == kKnobSince.end() || has(it->second, version);
  }
  void validate(const KnobSet& k) const override {
    for (std::size_t t : {cache_type_k, cache_type_v}) {
      llama::refuse_foreign_kv(k.dtype(t), "llama.cpp", "f32, f16, bf16, q8_0, q4_0, q4_1, iq4_nl, q5_0 or q5_1");
    }
  }
  std::optional<std::string> split_problem(const ModelSpec& m, std::uint32_t tp, std::uint32_t pp,
                                           std::uint32_t cp) const override {
    (void)pp, (void)cp;
    if (tp > 1) {
      return "llama.cpp splits layers across GPUs (--split-mode layer), not KV heads; plan it with --tp 1";
    }
    // Layer kinds llama.cpp has no cache for: it does not run these architectures.
    if (const char* missing = llama::missing_cache(m)) {
      return fmt::format("llama.cpp has no {} cache (llama-kv-cache.cpp); plan {} with another engine", missing, m.name);
    }
    return std::nullopt;
  }
  EnginePrediction predict(const EngineInputs& in) const override;
  void serve_shape(std::uint64_t batch, std::uint64_t len, KnobSet& k) const override {
    k.set(ctx_size, sat_mul(batch, len));  // one slot of len cells per sequence (-np N splits -c evenly)
    k.set(parallel, batch);
  }
  std::optional<std::string> emit(const EmitInputs& in) const override;
  std::optional<CommandForm> command_form(std::span<const std::string> argv) const override {
    // (A llama-server under an ik_llama.cpp path is the fork's: ik_llamacpp.cpp.)
    if (argv.empty() || engines::program_name(argv[0]) != "llama-server" || argv[0].find("ik_llama") != std::string::npos) {
      return std::nullopt;
    }
    return CommandForm{1, false, {}, {}, {}};
  }
  std::optional<std::string> image_version(std::string_view image) const override {
    const engines::Image i = engines::split_image(image);
    if (i.repository != "ggml-org/llama.cpp" && i.repository != "ggerganov/llama.cpp") {
      return std::nullopt;
    }
    // Tags name a build: "server-cuda-b6000", "full-b5429"; "server-cuda" alone is the latest.
    const std::size_t b = i.tag.rfind("-b");
    if (b != std::string::npos && build_version(std::string_view(i.tag).substr(b + 1))) {
      return i.tag.substr(b + 1);
    }
    return std::string();
  }
  std::vector<std::string> image_entrypoint(std::string_view image) const override {
    // .devops/cuda.Dockerfile, the server stage: ENTRYPOINT [ "/app/llama-server" ]
    return engines::split_image(image).tag.find("server") != std::string::npos ? std::vector<std::string>{"llama-server"}
                                                                               : std::vector<std::string>{};
  }

  std::span<const std::string_view> command_examples() const override { return kExamples; }

 private:
  static constexpr std::array<std::string_view, 2> kAliases{"llama.cpp", "llama-cpp"};
  static constexpr std::array<std::string_view, 1> kExamples{"llama-server ..."};
};

EnginePrediction Llamacpp::predict(const EngineInputs& in) const {
  const ModelSpec& m = *in.model;
  const KnobSet& s = *in.knobs;
  EnginePrediction p;
  // src/llama.cpp llama_max_devices(): GGML_CUDA_MAX_DEVICES, 16, for CUDA builds (ik_llama.cpp at 8337e4cd keeps
  // the same function); a model is not split over more.
  constexpr std::uint32_t kMaxDevices = 16;
  if (in.devices > kMaxDevices) {
    p.startup = Startup::refused;
    p.refusal = fmt::format("llama.cpp uses at most {} devices (llama_max_devices()), not {}", kMaxDevices, in.devices);
    p.usable_bytes = in.gpu_memory_bytes;
    return p;
  }
  // --kv-dtype (or the plan's KV dtype) sets both, as -ctk and -ctv would; -ctv is independent of -ctk.
  const DType base = in.kv_dtype.name == "bf16" || in.kv_dtype.name == "fp16" ? *find_dtype(kv_dtypes(), "fp16")
                                                                              : in.kv_dtype;
  const DType tk = s.dtype(cache_type_k).value_or(base);
  const DType tv = s.dtype(cache_type_v).value_or(base);
  const int v = in.version;
  // Flags a build does not have: llama.cpp stops at them ("error: invalid argument").
  for (const auto& [knob, change] : kKnobSince) {
    // (A switch given as off asks for what the build does anyway: --fit off on a build before --fit.)
    const bool asks = kKnobs[knob].type == KnobType::flag ? s.flag(knob).value_or(false) : s.has(knob);
    if (asks && !has(change, v)) {
      const std::string_view flags = kKnobs[knob].flags;
      throw Error(fmt::format("llama.cpp {} has no {}: it came in b{} ({}); plan a newer build with --engine llamacpp@bNNNN",
                              version_name(v), flags.substr(flags.find(' ') + 1), change.build, change.what));
    }
  }
  // Slots (llama-server): -np auto means 4 slots with a unified cache (PR #17997); from PR #16736 to it,
  // -np 1 without -kvu (the default) became 4 slots and a unified cache; before, the default was 1 slot.
  // Per-sequence streams exist from PR #14363, and took effect from PR #14959 (before: one unified cache).
  bool auto_slots = !s.number(parallel).has_value();
  std::uint64_t n_seq = s.number(parallel).value_or(has(kAutoSlots, v) ? 4 : 1);
  bool unified = s.flag(kv_unified).value_or(auto_slots && has(kAutoSlots, v));
  bool forced_slots = false;
  if (!has(kAutoSlots, v) && has(kServerSlots, v) && n_seq == 1 && !unified) {
    n_seq = 4;  // tools/server/server.cpp: "setting n_parallel = 4 and kv_unified = true"
    unified = true;
    auto_slots = true;
    forced_slots = true;
  }
  auto_slots = auto_slots && has(kServerSlots, v);
  if (!has(kSetRows, v)) {
    unified = true;
  }
  // -c: 0 means n_ctx_train; without -c, 4096 before PR #16653.
  const std::optional<std::uint64_t> c_given = s.number(ctx_size);
  const std::uint64_t asked = c_given.value_or(has(kFit, v) ? 0 : kOldContext) == 0
                                  ? m.max_position_embeddings
                                  : c_given.value_or(kOldContext);
  const std::uint64_t ubatch = s.number(ubatch_size).value_or(512);
  // Flash attention: -fa on|off|auto (auto, taken as on, from PR #15434); before, a bare -fa turned it on.
  const KnobValue* fa_v = s.find(flash_attn);
  const std::string fa_text = fa_v != nullptr ? std::get<std::string>(*fa_v) : has(kAllLayers, v) ? "auto" : "off";
  const bool fa_on = fa_text != "off" && fa_text != "0" && fa_text != "false";
  // The cache's padding: 256 since PR #17046; none from PR #16812; before, 256 with flash attention and 32 without.
  const std::uint64_t pad = has(kPad256, v) ? kPad : has(kNoPad, v) ? 1 : fa_on ? 256 : 32;
  // (A GGUF converted before PR #12801 is read as dense attention already: src/app/gguf.cpp.)
  const MlaCache mla_cache = !has(kMla, v)    ? MlaCache::expanded
                             : has(kVless, v) ? MlaCache::latent_k
                                              : MlaCache::latent_kv;
  std::uint64_t swa_window = 0;
  for (const LayerGroup& g : m.layers) {
    std::visit(overloaded{
                   [](const FullAttention&) {},
                   [&](const SlidingWindow& w) { swa_window = std::max(swa_window, w.window_tokens); },
                   [](const LatentAttention&) {},
                   [](const RecurrentState&) {},
                   [&](const ChunkedLocal& c) { swa_window = std::max(swa_window, c.chunk_tokens); },
                   [](const CrossAttention&) {},
                   [](const SharedKV&) {},
                   [](const IndexerCache&) {},
                   [](const NoCache&) {},
               },
               g.spec);
  }

  auto layout = [&](std::uint64_t n_ctx_request) {
    std::uint64_t n_ctx = 0;
    std::uint64_t n_ctx_seq = 0;
    std::uint64_t swa_cells = 0;
    const std::uint64_t streams = unified ? 1 : n_seq;
    // The SWA cache's margin: n_swa * n_seq (unified: every sequence's window) + n_ubatch; n_batch and every
    // sequence's window before PR #13833 and PR #14363.
    const std::uint64_t swa_want = sat_add(sat_mul(swa_window, unified || !has(kStreams, v) ? n_seq : 1),
                                           has(kSwaUbatch, v) ? ubatch : kBatch);
    if (has(kPad256, v)) {  // src/llama-context.cpp: GGML_PAD(n_ctx, 256), then n_ctx_seq = GGML_PAD(n_ctx / n_seq, 256)
      n_ctx = round_up(n_ctx_request, kPad);
      n_ctx_seq = unified ? n_ctx : round_up(n_ctx / n_seq, kPad);
      swa_cells = round_up(std::min(n_ctx_seq, swa_want), kPad);
    } else {  // src/llama-model.cpp create_memory: n_ctx_per_stream = GGML_PAD(ceil(n_ctx / n_seq), padding)
      n_ctx_seq = round_up(unified ? n_ctx_request : (n_ctx_request + n_seq - 1) / n_seq, pad);
      swa_cells = std::min(n_ctx_seq, round_up(swa_want, pad));
    }
    n_ctx = n_ctx_seq * streams;
    if (s.flag(swa_full).value_or(false) || !has(kSwaCache, v)) {
      swa_cells = n_ctx_seq;
    }
    return std::make_tuple(n_ctx, n_ctx_seq, streams,
                           sizes(m, tk, tv, n_ctx_seq, streams, swa_cells, n_seq, mla_cache, has(kSwaCache, v)));
  };
  auto [n_ctx, n_ctx_seq, streams, sz] = layout(asked);

  const bool fits_on = has(kFit, v) && s.flag(fit).value_or(true);
  const std::uint64_t fit_free = s.number(fit_target).value_or(kFitTargetMiB) * kMiB;
  // -c 0 given explicitly also sets fit_params_min_ctx to UINT32_MAX: --fit never shrinks it (common/arg.cpp).
  const std::uint64_t fit_floor = s.number(ctx_size) == 0u ? kSaturated : s.number(fit_ctx).value_or(kFitMinContext);
  // -ngl: every layer by default from PR #15434 (Metal builds already did); none before.
  const bool all_layers = has(kAllLayers, v) || in.gpu_arch.vendor == GpuVendor::apple;
  llama::PlaceParams pp;
  pp.gpu_layers = s.find(gpu_layers);
  pp.all_layers = all_layers;
  if (const KnobValue* sm = s.find(split_mode)) {
    pp.split_mode = std::get<std::string>(*sm);
  }
  pp.main_gpu = s.number(main_gpu).value_or(0);
  pp.tensor_split = s.find(tensor_split) != nullptr ? &std::get<std::string>(*s.find(tensor_split)) : nullptr;
  pp.kv_offload = s.flag(kv_offload).value_or(true);
  pp.overrides = s.find(override_tensor) != nullptr ? &std::get<std::string>(*s.find(override_tensor)) : nullptr;
  pp.cpu_moe = s.flag(cpu_moe).value_or(false);
  pp.n_cpu_moe = s.number(n_cpu_moe).value_or(0);
  const Placement pl = llama::place(m, in.weights, pp, in.devices);
  // The most any one device holds, weights and KV, for a KV cache of `kv_total` bytes.
  auto peak = [&](std::uint64_t kv_total) {
    std::uint64_t host = 0;
    const std::vector<std::uint64_t> kv = kv_per_device(pl, kv_total, host);
    std::uint64_t most = 0;
    for (std::size_t d = 0; d < kv.size(); ++d) {
      most = std::max(most, sat_add(pl.weights[d], kv[d]));
    }
    return most;
  };
  std::uint64_t fitted_from = 0;
  if (fits_on && in.gpu_memory_bytes > 0 && sat_add(peak(sz.total()), fit_free) > in.gpu_memory_bytes) {
    // --fit shrinks n_ctx (in steps of 256 cells) until the device keeps 1024 MiB free, down to a
    // floor of kFitMinContext. The KV size is monotone in n_ctx, so the largest fitting n_ctx is
    // found by bisection over multiples of 256 (never a walk: -c 2^40 must not take minutes).
    fitted_from = round_up(asked, kPad);
    auto fits_at = [&](std::uint64_t ctx) {
      const auto cand = layout(ctx);
      return sat_add(peak(std::get<3>(cand).total()), fit_free) <= in.gpu_memory_bytes;
    };
    std::uint64_t lo = std::min(fit_floor, round_up(asked, kPad)) / kPad;  // in units of 256 cells; the floor is taken even if it does not fit
    std::uint64_t hi = fitted_from / kPad;
    if (hi <= lo) {
      lo = hi;
    } else if (!fits_at(lo * kPad)) {
      hi = lo;
    } else {
      while (hi - lo > 1) {
        const std::uint64_t mid = lo + (hi - lo) / 2;
        (fits_at(mid * kPad) ? lo : hi) = mid;
      }
    }
    std::tie(n_ctx, n_ctx_seq, streams, sz) = layout(lo * kPad);
  }
  p.configured_len = std::get<1>(layout(asked));  // the slot the settings ask for, before --fit
  std::uint64_t host_kv = 0;
  const std::vector<std::uint64_t> device_kv = kv_per_device(pl, sz.total(), host_kv);
  std::size_t busiest = 0;  // the bottleneck device
  for (std::size_t d = 1; d < device_kv.size(); ++d) {
    if (sat_add(pl.weights[d], device_kv[d]) > sat_add(pl.weights[busiest], device_kv[busiest])) {
      busiest = d;
    }
  }
  const std::uint64_t weights = pl.weights[busiest];
  p.usable_bytes = in.gpu_memory_bytes;
  p.weights_bytes = weights;
  // The cache as a whole: n_ctx cells of every layer, wherever each layer is (the budget lines
  // show the fullest device's share).
  p.kv_budget_bytes = sz.total();
  p.max_model_len = n_ctx_seq;
  p.block_tokens = 1;
  p.concurrency_cap = n_seq;
  p.kv_dtype = tk;  // the plan's engine-neutral figures follow -ctk (f16 by default: common/common.h cache_type_k)
  const bool quantized_v = tv.name != "fp16" && tv.name != "bf16" && tv.name != "fp32";
  if (quantized_v && !fa_on) {
    // src/llama-context.cpp: "V cache quantization requires flash_attn"
    p.startup = Startup::refused;
    p.refusal = fmt::format("a quantized V cache ({}) requires flash attention, and -fa is off{}", ggml_name(tv),
                            has(kAllLayers, v) ? "" : " (the default before b6325: give -fa)");
  }
  if (p.startup == Startup::ok && in.gpu_memory_bytes > 0 && peak(sz.total()) > in.gpu_memory_bytes) {
    p.startup = Startup::no_kv_memory;  // cudaMalloc failed: out of memory
  }
  // Host memory (src/llama-model-loader.cpp): the CPU KV buffer is allocated in RAM; the host-side
  // weights are a file mapping the OS may page out, unless --mlock pins them or --no-mmap copies them.
  const bool resident = s.flag(mlock).value_or(false) || !s.flag(mmap).value_or(true);
  const std::uint64_t host_needed = sat_add(host_kv, resident ? pl.host_weights : 0);
  if (const auto ram = s.number(host_memory); ram && p.startup == Startup::ok && host_needed > *ram) {
    p.startup = Startup::refused;
    p.refusal = fmt::format("the host needs {} of RAM ({} of KV{}) but --host-memory gives {}", format_bytes(host_needed),
                            format_bytes(host_kv),
                            resident ? fmt::format(" and {} of weights, {}", format_bytes(pl.host_weights),
                                                   s.flag(mlock).value_or(false) ? "locked by --mlock" : "copied by --no-mmap")
                                     : std::string(),
                            format_bytes(*ram));
  }
  const std::uint64_t shape = std::max<std::uint64_t>(in.shape_seq_len, 1);
  p.capacity_at_shape = shape > n_ctx_seq ? 0 : unified ? n_ctx / shape : n_seq;
  for (std::uint64_t len : in.frontier_lengths) {
    if (len <= n_ctx_seq) {
      p.frontier.emplace_back(len, unified ? n_ctx / len : n_seq);
    }
  }
  if (!in.text) {
    return p;
  }
  if (mla_cache == MlaCache::expanded && std::any_of(m.layers.begin(), m.layers.end(), [](const LayerGroup& g) {
        return std::holds_alternative<LatentAttention>(g.spec);
      })) {
    p.notes.push_back(fmt::format("llama.cpp {} caches MLA expanded, as {} heads of K ({}) and V ({}) per layer: the "
                                  "latent cache came in b5137 (PR #12801)",
                                  version_name(v), m.dense_attention.num_key_value_heads, m.dense_attention.head_dim,
                                  m.dense_attention.v_head_dim.value_or(m.dense_attention.head_dim)));
  }
  if (forced_slots) {
    p.log_lines.push_back("main: setting n_parallel = 4 and kv_unified = true");
  }
  if (fitted_from > 0 && n_ctx < fitted_from) {
    p.notes.push_back(fmt::format("--fit shrank n_ctx from {} to {} so that {} MiB stay free on the device",
                                  with_commas(fitted_from), with_commas(n_ctx), fit_free / kMiB));
  }
  const bool split = pl.weights.size() > 1 || pl.host_layers > 0 || host_kv > 0 || pl.moved_tensors > 0;
  if (in.gpu_memory_bytes > 0) {
    const std::string device = pl.weights.size() > 1 ? fmt::format(" (CUDA{}, the fullest)", busiest) : "";
    p.budget = {
        {"total_gpu_memory_bytes", "Device memory", Cell::bytes(in.gpu_memory_bytes), ""},
        {"weights_bytes", "− Model weights", Cell::bytes(weights),
         split ? fmt::format("this device's layers{}; the token embeddings stay in host memory", device)
               : std::string("as --weight-dtype describes the GGUF; the token embeddings stay in host memory")},
        {"kv_size_bytes", "− KV cache", Cell::bytes(device_kv[busiest]),
         split ? fmt::format("its layers' share of n_ctx cells{}", device) : std::string("n_ctx cells, allocated up front")},
        {"free_bytes", "= Left free",
         Cell::bytes(sat_sub(in.gpu_memory_bytes, sat_add(weights, device_kv[busiest]))),
         fits_on ? fmt::format("--fit keeps {} MiB free (compute buffers are not modelled)", fit_free / kMiB)
                 : std::string("--fit off: nothing is shrunk")},
    };
  }
  if (split) {
    p.log_lines.push_back(fmt::format("load_tensors: offloaded {}/{} layers to GPU", pl.offloaded, pl.n_layer + 1));
    for (std::size_t d = 0; d < pl.weights.size(); ++d) {
      p.log_lines.push_back(fmt::format("load_tensors: {:>12} model buffer size = {:8.2f} MiB", fmt::format("CUDA{}", d),
                                        static_cast<double>(pl.weights[d]) / static_cast<double>(kMiB)));
    }
    p.log_lines.push_back(fmt::format("load_tensors: {:>12} model buffer size = {:8.2f} MiB", "CPU_Mapped",
                                      static_cast<double>(pl.host_weights) / static_cast<double>(kMiB)));
    for (std::size_t d = 0; d < device_kv.size(); ++d) {
      if (device_kv[d] > 0) {
        p.log_lines.push_back(fmt::format("llama_kv_cache: {:>10} KV buffer size = {:8.2f} MiB", fmt::format("CUDA{}", d),
                                          static_cast<double>(device_kv[d]) / static_cast<double>(kMiB)));
      }
    }
    if (host_kv > 0) {
      p.log_lines.push_back(fmt::format("llama_kv_cache: {:>10} KV buffer size = {:8.2f} MiB", "CPU",
                                        static_cast<double>(host_kv) / static_cast<double>(kMiB)));
    }
    if (const std::string moved = llama::moved_note(pl); !moved.empty()) {
      p.notes.push_back(moved);
    }
    if (pl.host_layers > 0 || host_kv > 0) {
      p.notes.push_back(fmt::format("{} of {} layers and {} of KV are in host memory: they run on the CPU (the host "
                                    "must hold {} of weights and KV)",
                                    pl.host_layers, pl.n_layer, format_bytes(host_kv),
                                    format_bytes(sat_add(pl.host_weights, host_kv))));
    }
  }
  p.fields = {
      {"n_ctx", "n_ctx", Cell::tokens(n_ctx),
       pad > 1 ? fmt::format("-c {} padded to a multiple of {}", asked, pad) : fmt::format("-c {}, not padded", asked)},
      {"n_ctx_seq", "n_ctx_seq", Cell::tokens(n_ctx_seq), unified ? "unified cache: every slot shares n_ctx" : "per slot"},
      {"n_seq_max", "n_seq_max", Cell::count(n_seq),
       auto_slots ? (has(kAutoSlots, v) ? "-np auto: 4 slots" : "-np 1 without -kvu: 4 slots (b6925 to b7432)") : "-np"},
      {"kv_unified", "kv_unified", Cell::flag(unified), ""},
      {"cells", "cells", Cell::tokens(sz.base.cells), "per stream"},
      {"kv_size_bytes", "KV size", Cell::bytes(sz.total()), ""},
      {"k_bytes", "K", Cell::bytes(sz.base.k_bytes + sz.swa.k_bytes), ggml_name(tk)},
      {"v_bytes", "V", Cell::bytes(sz.base.v_bytes + sz.swa.v_bytes), ggml_name(tv)},
  };
  if (split) {
    // Each device's buffers, as llama.cpp logs them (JSON: engine.cuda0_kv_buffer_bytes, ...).
    llama::device_fields(pl, device_kv, host_kv, host_needed, resident, p.fields);
  }
  if (sz.swa.layers > 0) {
    p.fields.push_back({"swa_cells", "SWA cells", Cell::tokens(sz.swa.cells), "pad256(min(n_ctx_seq, n_swa·n_seq + n_ubatch))"});
    p.log_lines.push_back(fmt::format("llama_kv_cache_iswa: creating non-SWA KV cache, size = {} cells", sz.base.cells));
    p.log_lines.push_back(size_line("llama_kv_cache", sz.base, n_seq, streams, tk, tv));
    p.log_lines.push_back(fmt::format("llama_kv_cache_iswa: creating     SWA KV cache, size = {} cells", sz.swa.cells));
    p.log_lines.push_back(size_line("llama_kv_cache", sz.swa, n_seq, streams, tk, tv));
  } else if (sz.base.layers > 0) {
    p.log_lines.push_back(size_line("llama_kv_cache", sz.base, n_seq, streams, tk, tv));
  }
  if (sz.recurrent_layers > 0) {
    p.fields.push_back({"recurrent_bytes", "Recurrent state", Cell::bytes(sz.recurrent_bytes), "R and S in f32"});
    p.log_lines.push_back(fmt::format("llama_memory_recurrent: size = {} MiB ({} cells, {} layers, {} seqs)",
                                      engines::mib(sz.recurrent_bytes), std::max<std::uint64_t>(1, n_seq),
                                      sz.recurrent_layers, n_seq));
  }
  if (n_ctx_seq < m.max_position_embeddings) {
    p.log_lines.push_back(fmt::format("llama_context: n_ctx_seq ({}) < n_ctx_train ({}) -- the full capacity of the "
                                      "model will not be utilized",
                                      n_ctx_seq, m.max_position_embeddings));
  }
  if (quantized_v) {
    p.notes.push_back("A quantized V cache needs flash attention (-fa on or auto).");
  }
  return p;
}

std::optional<std::string> Llamacpp::emit(const EmitInputs& in) const {
  const KnobSet& k = *in.knobs;
  const DType base = in.kv_dtype.value_or(*find_dtype(kv_dtypes(), "fp16"));
  const std::string ctk = ggml_name(k.dtype(cache_type_k).value_or(base));
  const std::string ctv = ggml_name(k.dtype(cache_type_v).value_or(base));
  return fmt::format("llama-server -m {}.gguf -c {} -np {} -ctk {} -ctv {} -fa on", in.model_name,
                     k.number(ctx_size).value_or(0), k.number(parallel).value_or(1), ctk, ctv);
}

}  // namespace

const Engine& llamacpp_engine_module() noexcept {
  static const Llamacpp engine;
  return engine;
}

}  // namespace kvplan
