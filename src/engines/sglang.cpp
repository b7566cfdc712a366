// SGLang: its knobs and flags; mem_fraction_static (derived per GPU size when not given) of the memory
// free at start, minus what loading consumed, in token slots; hybrid SWA and Mamba models get
// separate pools; its launch command and command lines.
// Sources (docs/engines.md section 2): server_args.py ServerArgs / _handle_gpu_memory_settings,
// pool_configurator.py / kv_cache_configurator.py _profile_available_bytes, _compute_cell_size,
// HybridSWAPoolConfigurator, _handle_max_mamba_cache; scheduler.py (log line).
#include <algorithm>
#include <array>
#include <cmath>
#include <fmt/format.h>

#include "engine_util.hpp"
#include "kvplan/engine.hpp"
#include "kvplan/error.hpp"
#include "kvplan/quantity.hpp"
#include "kvplan/units.hpp"
#include "sglang_flags.hpp"

namespace kvplan {
namespace {

using engines::LayerType;

// Version keys are minor versions of 0.x; a release is minor x 10,000 + patch x 100 + its suffix:
// rcN adds N, the release itself 50, .postN 50 + N (0.5.3rc2 is 50,302, 0.4.6.post2 is 40,652). A
// version without its patch ("0.4") is that minor's last release. The rules by release are SGLang's
// python/sglang/srt/server_args.py at each tag (docs/engines.md, "SGLang by version").
constexpr int kOldestMinor = 3;
constexpr int kTp8Fraction082Since = 30650;       // tp >= 8: 0.83 -> 0.82 (f719d9aebc, #2053)
constexpr int kTp8Fraction081Since = 40050;       // tp >= 8: 0.82 -> 0.81 (3ddb1c4679, #2325)
constexpr int kLargeGpuFractionSince = 40553;     // > 80 GiB: (mem - 13 GiB) / mem (e69a219074, #5604)
constexpr int kLargeGpuBlendSince = 40652;        // > 96 GiB: blend toward mem - 18 GiB (e4b6133b78, #5893)
constexpr int kHugeGpuFractionSince = 40750;      // > 180,000 MiB: 0.79 (f2bd3515fb, #6718)
constexpr int kReservedLadderSince = 40751;       // a reserve by memory bracket (6b12d6a8d5, #7054)
constexpr int kReservedFormulaSince = 50302;      // the reserve from chunk, graphs and tp (a17e70f5cc, #10975)
constexpr int kGraphBs24Since = 50451;            // < 35 GiB, tp < 4: cuda_graph_max_bs 16 -> 24
constexpr int kPiecewiseGraphsSince = 51000;      // piecewise CUDA graphs on by default (c64274c746, #16331)
constexpr int kChunkBracketsSince = 40751;        // chunked_prefill_size by memory bracket (6b12d6a8d5)
constexpr int kSmallChunkSince = 30552;           // 2,048-token chunks below 25 GB (v0.3.5.post2)

// "0.5.3rc2" -> 50302, "v0.4.6.post2" -> 40652, "0.4" -> 49999 (its last release).
int release_of(int minor, std::string_view text) {
  if (!text.empty() && text.front() == 'v') {
    text.remove_prefix(1);
  }
  const std::size_t dot = text.find('.', 2);
  if (dot == std::string_view::npos) {
    return minor * 10'000 + 9'999;
  }
  std::size_t end = dot + 1;
  while (end < text.size() && text[end] >= '0' && text[end] <= '9') {
    ++end;
  }
  const int patch = static_cast<int>(std::min<std::uint64_t>(to_unsigned(text.substr(dot + 1, end - dot - 1)).value_or(99), 99));
  std::string_view rest = text.substr(end);
  int suffix = 50;
  const auto number_after = [&](std::string_view tag) {
    const std::size_t at = rest.find(tag);
    std::size_t e = at + tag.size();
    while (e < rest.size() && rest[e] >= '0' && rest[e] <= '9') {
      ++e;
    }
    return static_cast<int>(std::min<std::uint64_t>(to_unsigned(rest.substr(at + tag.size(), e - at - tag.size())).value_or(0), 49));
  };
  if (rest.find("rc") != std::string_view::npos) {
    suffix = number_after("rc");
  } else if (rest.find("post") != std::string_view::npos) {
    suffix = 50 + number_after("post");
  }
  return minor * 10'000 + patch * 100 + suffix;
}

// Calibrated on the one SGLang entry (sglang-doc-qwq32b-tp4-l4, v0.4.3.post4): memory in use
// before the weights load (CUDA context) and what loading uses beyond the weights themselves.
constexpr std::uint64_t kStartupBytes = 328 * kMiB;     // 21.95 GiB total - 21.63 GiB free at start
constexpr std::uint64_t kLoadOverheadBytes = 297 * kMiB;  // 15.54 GiB "mem usage" - 15.25 GiB of weights

enum K : std::size_t {
  mem_fraction_static, max_total_tokens, max_running_requests, page_size, chunked_prefill_size, cuda_graph_max_bs,
  disable_cuda_graph, allow_longer_context, enable_hierarchical_cache, hicache_ratio, hicache_size, model_path, tp_size,
  pp_size, dp_size, context_length, kv_cache_dtype, dtype, quantization, nnodes,
  kCount
};

// --hicache-size: an int of decimal GB (HostKVCache: int(host_size * 1e9 // size_per_token)); 0 uses the ratio.
KnobValue decimal_gb(std::string_view where, std::string_view text) {
  if (text == "0") {
    return std::uint64_t{0};
  }
  return parse_size(where, std::string(text) + "GB").bytes;
}

// -1 disables chunked prefill (ServerArgs.chunked_prefill_size); kept as 0.
KnobValue chunk_size(std::string_view where, std::string_view text) {
  if (text == "-1") {
    return std::uint64_t{0};
  }
  return parse_count(where, text, std::uint64_t{1} << 30);
}

constexpr std::array<Knob, kCount> kKnobs{{
    {"mem_fraction_static", "--mem-fraction-static", KnobType::fraction, Target::own, "--mem-fraction-static",
     "SGLang: fraction of the memory free at start for weights and KV (default derived per GPU)",
     "python/sglang/srt/server_args.py ServerArgs", engines::engine_fraction},
    {"max_total_tokens", "--max-total-tokens", KnobType::count, Target::own, "--max-total-tokens",
     "SGLang: cap on the KV pool's tokens", "python/sglang/srt/server_args.py ServerArgs"},
    {"max_running_requests", "--max-running-requests", KnobType::count, Target::own, "--max-running-requests",
     "SGLang: most requests running at once (default derived from the pool)",
     "python/sglang/srt/server_args.py ServerArgs", nullptr, 1'000'000},
    {"page_size", "--page-size", KnobType::count, Target::own, "--page-size", "SGLang: tokens per page (default 1)",
     "python/sglang/srt/server_args.py ServerArgs", nullptr, 1 << 20},
    {"chunked_prefill_size", "--chunked-prefill-size", KnobType::count, Target::own, "--chunked-prefill-size",
     "SGLang: prefill chunk (default by GPU size; -1 disables)", "python/sglang/srt/server_args.py ServerArgs",
     chunk_size},
    {"cuda_graph_max_bs", "--cuda-graph-max-bs --cuda-graph-max-bs-decode", KnobType::count, Target::own, "",
     "SGLang: largest CUDA-graph batch (default by GPU size)", "python/sglang/srt/server_args.py ServerArgs"},
    {"disable_cuda_graph", "--disable-cuda-graph", KnobType::flag, Target::own, "", "SGLang: no CUDA graphs",
     "python/sglang/srt/server_args.py ServerArgs"},
    {"allow_longer_context", "", KnobType::flag, Target::own, "",
     "SGLang: SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1 lets --context-length exceed the model's own maximum",
     "python/sglang/srt/configs/model_config.py ModelConfig", engines::on_off, 0, false,
     "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN"},
    {"enable_hierarchical_cache", "--enable-hierarchical-cache", KnobType::flag, Target::own, "--enable-hierarchical-cache",
     "SGLang: a host-memory KV pool behind the GPU's (HiCache)", "python/sglang/srt/server_args.py ServerArgs"},
    {"hicache_ratio", "--hicache-ratio", KnobType::ratio, Target::own, "--hicache-ratio",
     "SGLang: the host pool's tokens as a multiple of the GPU pool's (default 2.0)",
     "python/sglang/srt/server_args.py ServerArgs; mem_cache/memory_pool_host.py HostKVCache"},
    {"hicache_size", "--hicache-size", KnobType::bytes, Target::own, "--hicache-size",
     "SGLang: the host pool per rank: 40 is decimal GB, as SGLang reads it, or a size; overrides the ratio",
     "python/sglang/srt/server_args.py ServerArgs; mem_cache/memory_pool_host.py HostKVCache", decimal_gb, 0, true},
    {"model_path", "--model-path --model", KnobType::text, Target::model, "", "the model: an HF id or a local folder",
     "python/sglang/srt/server_args.py ServerArgs"},
    {"tp_size", "--tp-size --tensor-parallel-size", KnobType::count, Target::tp, "", "tensor-parallel size (default 1)",
     "python/sglang/srt/server_args.py ServerArgs", nullptr, 4096},
    {"pp_size", "--pp-size --pipeline-parallel-size", KnobType::count, Target::pp, "", "pipeline-parallel size (default 1)",
     "python/sglang/srt/server_args.py ServerArgs", nullptr, 4096},
    {"dp_size", "--dp-size --data-parallel-size", KnobType::count, Target::dp, "", "data-parallel replicas (default 1)",
     "python/sglang/srt/server_args.py ServerArgs", nullptr, 4096},
    {"context_length", "--context-length", KnobType::count, Target::max_model_len, "",
     "the longest request (default: the model's maximum)", "python/sglang/srt/server_args.py ServerArgs"},
    {"kv_cache_dtype", "--kv-cache-dtype", KnobType::dtype, Target::kv_dtype, "--kv-cache-dtype",
     "vLLM, SGLang, TensorRT-LLM: the KV cache dtype as the engine names it (auto, fp8, ...)",
     "python/sglang/srt/server_args.py ServerArgs"},
    {"dtype", "--dtype", KnobType::text, Target::weights, "", "weights and activations dtype",
     "python/sglang/srt/server_args.py ServerArgs"},
    {"quantization", "--quantization", KnobType::text, Target::weights, "", "the checkpoint's quantization method",
     "python/sglang/srt/server_args.py ServerArgs"},
    {"nnodes", "--nnodes", KnobType::count, Target::nodes, "",
     "machines one server spans (default 1): a manifest's pods that join into it", "python/sglang/srt/server_args.py "
     "ServerArgs", nullptr, 4096},
}};

struct Defaults {
  std::uint64_t chunked_prefill = 4096;
  std::uint64_t cuda_graph_max_bs = 160;
};

// chunked_prefill_size and cuda_graph_max_bs by release and device memory in MiB
// (_handle_gpu_memory_settings from 0.5.3rc2; ServerArgs.__post_init__ before).
Defaults defaults(int release, std::uint64_t gpu_mib, std::uint32_t tp) {
  if (release < kChunkBracketsSince) {
    return {release >= kSmallChunkSince && gpu_mib < 25'000 ? 2048U : 8192U, 160};
  }
  if (release < kReservedFormulaSince) {
    return {gpu_mib < 35 * 1024 ? 2048U : gpu_mib < 160 * 1024 ? 8192U : 16384U, 160};
  }
  if (gpu_mib < 20 * 1024) {
    return {2048, 8};
  }
  if (gpu_mib < 35 * 1024) {
    return {2048, tp < 4 ? (release >= kGraphBs24Since ? 24U : 16U) : 80U};
  }
  if (gpu_mib < 60 * 1024) {
    return {4096, tp < 4 ? 32U : 160U};
  }
  if (gpu_mib < 160 * 1024) {
    return {8192, tp < 4 ? 256U : 512U};
  }
  return {16384, 512};
}

// The default fraction in parts per million, clamped to (0, 1]: on GPUs smaller than the reserve the
// formula goes negative, and SGLang would then have nothing for weights or KV.
std::uint32_t default_fraction(int release, std::uint64_t gpu_mib, std::uint32_t tp, std::uint32_t pp,
                               std::uint64_t chunked, std::uint64_t graph_bs, bool latent, bool rocm,
                               std::string* why) {
  const auto ppm = [](double f) {
    return std::clamp<std::uint32_t>(static_cast<std::uint32_t>(std::lround(f * 1e6)), 1, 1'000'000);
  };
  const double mib = static_cast<double>(gpu_mib);
  const std::uint32_t ps = release >= kLargeGpuBlendSince ? tp * pp : tp;  // the ladder counts pp from 0.4.6.post2
  const double ladder = ps >= 16 ? 0.79
                        : ps >= 8 ? (release < kTp8Fraction082Since   ? 0.83
                                     : release < kTp8Fraction081Since ? 0.82
                                                                      : 0.81)
                        : ps >= 4 ? 0.85
                        : ps >= 2 ? 0.87
                                  : 0.88;
  if (release < kReservedLadderSince) {
    // ServerArgs.__post_init__: by tensor-parallel size, then the large-GPU rules of 0.4.5.post3 to 0.4.7.
    double f = ladder;
    std::string rule = "by tp size";
    if (release >= kHugeGpuFractionSince && gpu_mib > 180'000 && !rocm) {
      f = 0.79;
      rule = "0.79 above 180,000 MiB";
    } else if (release >= kLargeGpuBlendSince && gpu_mib > 81'920) {
      f = 0.88;
      rule = "0.88 above 80 GiB";
      if (gpu_mib > 96 * 1024) {
        f = std::min(f + 48.0 * 1024 * (1 - f) / mib, (mib - 18.0 * 1024) / mib);
        rule = "min(0.88 + 48 GiB × 0.12 / gpu_mem, (gpu_mem − 18 GiB) / gpu_mem) above 96 GiB";
      }
    } else if (release >= kLargeGpuFractionSince && gpu_mib > 81'920) {
      f = (mib - 13.0 * 1024) / mib;
      rule = "(gpu_mem − 13 GiB) / gpu_mem above 80 GiB";
    }
    if (why != nullptr) {
      *why = fmt::format("default of this release: {}", rule);
    }
    return ppm(f);
  }
  double reserved = 0;
  if (release < kReservedFormulaSince) {
    // 0.4.7.post1 to 0.5.3rc1: a reserve in GiB by memory bracket.
    reserved = (gpu_mib < 35 * 1024   ? 2.8 + ps / 10.0
                : gpu_mib < 90 * 1024  ? 9.5 + ps / 2.0
                : gpu_mib < 160 * 1024 ? 12 + ps / 2.0
                                       : 32.0) *
               1024;
  } else {
    reserved = 512 + static_cast<double>(std::max<std::uint64_t>(chunked, 2048)) * 1.5 +
               static_cast<double>(graph_bs) * 2 + static_cast<double>(tp) * pp / 8 * 1024;
    if (release >= kPiecewiseGraphsSince) {
      // Piecewise CUDA graphs: MLA 1.5 GiB, else 8 MiB per capture size (58 at an 8,192-token chunk).
      reserved += latent ? 1.5 * 1024 : 58.0 * 8;
    }
    if (gpu_mib > 60 * 1024) {
      reserved = std::max(reserved, 10.0 * 1024);
    }
  }
  if (why != nullptr) {
    *why = fmt::format("(gpu_mem {} MiB − reserved {:.0f} MiB) / gpu_mem", gpu_mib, reserved);
  }
  if (mib <= reserved) {
    if (why != nullptr) {
      *why += " is not positive: the GPU is smaller than the reserve, so the pool is empty";
    }
    return 1;  // one part per million, the smallest fraction: never a wrapped or negative value
  }
  return ppm(std::round((mib - reserved) / mib * 1000) / 1000);
}

class Sglang final : public Engine {
 public:
  std::string_view name() const override { return "sglang"; }
  std::string_view display() const override { return "SGLang"; }
  std::string_view default_version() const override { return "0.5"; }
  std::string_view versions_help() const override { return "0.3 to 0.5"; }
  std::optional<int> parse_version(std::string_view text) const override;
  Capabilities capabilities() const override {
    Capabilities c;
    c.margin_ppm = 50'000;  // tokens within 5% (docs/accuracy.md)
    c.abbreviations = true;  // argparse's allow_abbrev: --tp is --tp-size (server_args.py registers no --tp)
    return c;
  }
  std::span<const Knob> knobs() const override { return kKnobs; }
  std::string_view flag_table() const override { return engines::kSglangFlags; }
  std::string_view flag_table_source() const override { return kFlagSource; }
  std::optional<std::size_t> fraction_knob() const override { return mem_fraction_static; }
  std::optional<std::size_t> cap_knob() const override { return max_running_requests; }
  EnginePrediction predict(const EngineInputs& in) const override;
  std::optional<std::string> emit(const EmitInputs& in) const override;
  std::optional<CommandForm> command_form(std::span<const std::string> argv) const override;
  std::optional<SettingsFile> settings_file(const FlagClass& row, const EngineVersion& version) const override;
  std::span<const std::string_view> command_examples() const override { return kExamples; }
  static constexpr std::array<std::string_view, 2> kExamples{"python -m sglang.launch_server ...", "python -m dynamo.sglang ..."};
  std::optional<std::string> image_version(std::string_view image) const override;

  static constexpr std::string_view kFlagSource =
      "SGLang v0.5: python/sglang/srt/server_args.py ServerArgs.add_cli_args";
};

// --config FILE (from 0.5.3, d7b20dd65, #10534): prepare_server_args hands argv to
// server_args_config_parser.py's ConfigArgumentMerger when the word '--config' is in it, which puts the file's
// flags first, so the command line wins. It refuses a name that is not .yaml/.yml (any case) and writes each
// key as '--' + key as written (dashes: the parser has no underscore spellings): a store_true flag's true as
// the switch and false as nothing, another flag's boolean as 'true'/'false' (#14085), a list item by item, a
// map as JSON (#28094; Python's str() before, 2026-06-12, a release kvplan does not know, so JSON throughout).
constexpr int kConfigFileSince = 503;

std::optional<SettingsFile> Sglang::settings_file(const FlagClass& row, const EngineVersion& version) const {
  if (row.spellings.empty() || row.spellings.front() != "--config" ||
      release_of(version.key, version.text) < kConfigFileSince) {
    return std::nullopt;
  }
  SettingsFile f;
  f.keys = SettingsFile::Keys::flags;
  f.equals_form = false;
  f.yaml_suffix = true;
  f.suffix_any_case = true;
  f.booleans = SettingsFile::Booleans::valued;
  f.source = "python/sglang/srt/server_args_config_parser.py ConfigArgumentMerger.merge_config_with_args";
  return f;
}

std::optional<int> Sglang::parse_version(std::string_view text) const {
  if (!text.empty() && text.front() == 'v') {
    text.remove_prefix(1);
  }
  if (text.rfind("0.", 0) != 0) {
    return std::nullopt;
  }
  const auto v = to_unsigned(text.substr(2, text.find('.', 2) == std::string_view::npos ? text.npos : text.find('.', 2) - 2));
  return v && *v >= kOldestMinor && *v <= 5 ? std::optional<int>(static_cast<int>(*v)) : std::nullopt;
}

EnginePrediction Sglang::predict(const EngineInputs& in) const {
  const ModelSpec& m = *in.model;
  const KnobSet& s = *in.knobs;
  EnginePrediction p;
  const std::uint64_t gpu_mib = in.gpu_memory_bytes / kMiB;
  const int release = release_of(in.version, in.version_text);
  const Defaults d = defaults(release, gpu_mib, in.tensor_parallel);
  const std::uint64_t chunked = s.number(chunked_prefill_size).value_or(d.chunked_prefill);
  bool any_latent = false;
  for (const LayerGroup& g : m.layers) {
    any_latent = any_latent || std::holds_alternative<LatentAttention>(g.spec);
  }
  std::string why = "--mem-fraction-static";
  const auto f = static_cast<std::uint32_t>(
      s.number(mem_fraction_static)
          .value_or(default_fraction(release, gpu_mib, in.tensor_parallel, in.pipeline_parallel, chunked,
                                     s.number(cuda_graph_max_bs).value_or(d.cuda_graph_max_bs), any_latent,
                                     in.gpu_arch.vendor == GpuVendor::amd, in.text && !s.has(mem_fraction_static) ? &why : nullptr)));
  const std::uint64_t page = s.number(page_size).value_or(1);
  p.max_model_len = in.max_model_len;
  p.block_tokens = page;
  if (in.max_model_len > m.max_position_embeddings && m.max_position_embeddings > 0 &&
      !s.flag(allow_longer_context).value_or(false)) {
    // python/sglang/srt/configs/model_config.py: refused unless the environment allows it.
    p.startup = Startup::refused;
    p.refusal = fmt::format("User-specified context_length ({}) is greater than the derived context_length ({}); set "
                            "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1 to override it",
                            in.max_model_len, m.max_position_embeddings);
    return p;
  }

  const std::uint64_t free_at_start = sat_sub(in.gpu_memory_bytes, kStartupBytes);
  const std::uint64_t weights = sat_add(weight_bytes_per_gpu(m.params, in.weights, in.tensor_parallel), kLoadOverheadBytes);
  const std::uint64_t after_load = sat_sub(free_at_start, weights);
  const std::uint64_t held_back = in.gpu_memory_bytes == 0 ? 0 : mul_frac(free_at_start, 1'000'000 - f, 1'000'000);
  std::uint64_t rest = sat_sub(after_load, held_back);
  p.usable_bytes = sat_sub(free_at_start, held_back);
  p.fraction_ppm = f;
  p.weights_bytes = weights;

  const std::vector<LayerType> types = engines::layer_types(m, in.kv_dtype, in.tensor_parallel);
  std::uint64_t full_cell = 0;
  std::uint64_t swa_cell = 0;
  std::uint64_t state_per_request = 0;
  bool latent = false;
  for (const LayerType& t : types) {
    latent = latent || t.latent;
    if (t.kind == LayerType::Kind::full) {
      full_cell += t.layers * t.bytes_per_token;
    } else if (t.kind == LayerType::Kind::sliding) {
      swa_cell += t.layers * t.bytes_per_token;
    } else {
      state_per_request += t.layers * t.state_bytes;
    }
  }
  std::uint64_t mamba_slots = 0;
  if (state_per_request > 0) {
    // _handle_max_mamba_cache: mamba_full_memory_ratio 0.9 -> rest * 0.9 / 1.9 for states
    const std::uint64_t budget = mul_frac(rest, 9, 19);
    mamba_slots = budget > state_per_request ? (budget - state_per_request) / state_per_request : 0;
    rest = sat_sub(rest, sat_mul(mamba_slots + 1, state_per_request));
  }
  // HybridSWAPoolConfigurator: swa_full_tokens_ratio 0.8; all-SWA models have no ratio.
  const bool hybrid_swa = full_cell > 0 && swa_cell > 0;
  const std::uint64_t cell = hybrid_swa ? full_cell + mul_frac(swa_cell, 8, 10) : full_cell + swa_cell;
  std::uint64_t tokens = cell == 0 ? 0 : engines::with_margin(rest, in.kv_margin_ppm) / cell / page * page;
  if (const auto cap = s.number(max_total_tokens)) {
    tokens = std::min(tokens, *cap / page * page);  // the pool is capped at --max-total-tokens
  }
  const std::uint64_t swa_tokens = hybrid_swa ? mul_frac(tokens, 8, 10) / page * page : 0;
  std::uint64_t running = std::min<std::uint64_t>(
      std::clamp<std::uint64_t>(p.max_model_len == 0 ? 0 : tokens * 512 / p.max_model_len, 2048, 4096), tokens / 2);
  if (mamba_slots > 0) {
    running = std::min(running, mamba_slots / 3);  // 3 state slots per request with the radix cache
  }
  running = s.number(max_running_requests).value_or(running);
  p.concurrency_cap = running;
  p.kv_budget_bytes = rest;
  p.reserved_bytes = 0;  // the held-back share lies outside what SGLang uses; weights and KV fill the rest
  p.startup = tokens == 0 ? Startup::no_kv_memory : Startup::ok;  // "Not enough memory. Please try to increase --mem-fraction-static."
  // HiCache (HostKVCache.__init__): --hicache-size GB // bytes per token, else the GPU pool's tokens
  // × --hicache-ratio; then page_num = size // page_size + 1. Each rank holds its own pool.
  const bool hicache = s.flag(enable_hierarchical_cache).value_or(false);
  const bool plain_pool = state_per_request == 0 && !hybrid_swa && cell > 0;
  std::uint64_t host_per_rank = 0;
  if (hicache && plain_pool) {
    const std::uint64_t size = s.number(hicache_size).value_or(0);
    const std::uint64_t ratio = s.number(hicache_ratio).value_or(2'000'000);
    const std::uint64_t n = size > 0 ? size / cell : mul_frac(tokens, ratio, 1'000'000);
    const std::uint64_t host_tokens = sat_mul(n / page + 1, page);
    host_per_rank = sat_mul(host_tokens, cell);
    p.host = HostTier{host_tokens, sat_mul(host_per_rank, std::uint64_t{in.tensor_parallel} * in.pipeline_parallel),
                      size > 0 ? fmt::format("--hicache-size {:g}", static_cast<double>(size) / 1e9)
                               : fmt::format("--hicache-ratio {}", knob_text(kKnobs[hicache_ratio], KnobValue{ratio}))};
  }
  const std::uint64_t shape = std::max<std::uint64_t>(in.shape_seq_len, 1);
  p.capacity_at_shape = tokens / shape;
  for (std::uint64_t len : in.frontier_lengths) {
    if (len <= p.max_model_len) {
      p.frontier.emplace_back(len, tokens / len);
    }
  }
  if (!in.text) {
    return p;
  }
  p.budget = {
      {"total_gpu_memory_bytes", "Total GPU memory", Cell::bytes(in.gpu_memory_bytes), ""},
      {"free_at_start_bytes", "Free at start", Cell::bytes(free_at_start), "before weights (CUDA context held)"},
      {"weights_bytes", "− Weights loaded", Cell::bytes(weights), "\"Load weight end ... mem usage\""},
      {"mem_fraction_static", "mem_fraction_static", Cell::number(static_cast<double>(f) / 1e6), why},
      {"held_back_bytes", "− Held back", Cell::bytes(held_back), "free at start × (1 − mem_fraction_static)"},
  };
  if (mamba_slots > 0) {
    p.budget.push_back({"mamba_state_bytes", "− Mamba state pool", Cell::bytes((mamba_slots + 1) * state_per_request),
                        fmt::format("{} slots of {}", mamba_slots, format_bytes(state_per_request))});
  }
  p.budget.push_back({"kv_pool_bytes", "= KV pool", Cell::bytes(rest), ""});
  const std::uint64_t k_bytes = tokens * (full_cell + (hybrid_swa ? 0 : swa_cell)) / 2;
  p.fields = {
      {"mem_fraction_static", "mem_fraction_static", Cell::number(static_cast<double>(f) / 1e6), why},
      {"max_total_num_tokens", "max_total_num_tokens", Cell::tokens(tokens),
       s.has(max_total_tokens) ? fmt::format("{} B per token; capped by --max-total-tokens", with_commas(cell))
                               : fmt::format("{} B per token", with_commas(cell))},
      {"max_running_requests", "max_running_requests", Cell::count(running),
       s.has(max_running_requests) ? "--max-running-requests" : ""},
      {"page_size", "page_size", Cell::tokens(page), ""},
      {"chunked_prefill_size", "chunked_prefill_size", Cell::tokens(chunked), ""},
      {"context_len", "context_len", Cell::tokens(p.max_model_len), ""},
  };
  if (hybrid_swa) {
    p.fields.push_back({"swa_tokens", "SWA pool tokens", Cell::tokens(swa_tokens), "0.8 × full pool"});
    p.log_lines.push_back(fmt::format("Use sliding window memory pool. full_layer_tokens={}, swa_layer_tokens={}",
                                      tokens, swa_tokens));
  } else if (latent) {
    p.log_lines.push_back(fmt::format("KV Cache is allocated. #tokens: {}, KV size: {} GB", tokens,
                                      engines::gib(tokens * cell)));
  } else {
    p.log_lines.push_back(fmt::format("KV Cache is allocated. #tokens: {}, K size: {} GB, V size: {} GB", tokens,
                                      engines::gib(k_bytes), engines::gib(k_bytes)));
  }
  p.log_lines.push_back(fmt::format("max_total_num_tokens={}, chunked_prefill_size={}, max_prefill_tokens=16384, "
                                    "max_running_requests={}, context_len={}",
                                    tokens, chunked, running, p.max_model_len));
  if (p.startup == Startup::no_kv_memory) {
    p.log_lines.push_back("RuntimeError: Not enough memory. Please try to increase --mem-fraction-static.");
  }
  if (p.host) {
    p.fields.push_back({"host_kv_cache_tokens", "Host KV pool", Cell::tokens(p.host->tokens),
                        fmt::format("{} per rank ({}), {} B per token", format_bytes(host_per_rank), p.host->knob,
                                    with_commas(cell))});
    p.log_lines.push_back(fmt::format("Allocating {:.2f} GB host memory for hierarchical KV cache.",
                                      static_cast<double>(host_per_rank) / 1e9));
    p.notes.push_back("Each rank checks its host pool against psutil's available memory less 10 GiB and refuses "
                      "with \"Not enough host memory available\" (HostKVCache); psutil reads the machine's memory, "
                      "not a container's limit.");
    if (s.number(hicache_size).value_or(0) == 0 && s.number(hicache_ratio).value_or(2'000'000) <= 1'000'000) {
      p.notes.push_back("A host pool no larger than the GPU pool: older SGLang asserts \"The host memory should be "
                        "larger than the device memory\"; newer versions warn.");
    }
  } else if (hicache) {
    p.notes.push_back("--enable-hierarchical-cache: kvplan sizes SGLang's host pool for plain attention pools only; "
                      "this model's hybrid or state pools are not planned.");
  }
  p.notes.push_back("Startup and load overheads are calibrated on one SGLang 0.4.3 log; treat them as uncertain.");
  return p;
}

std::optional<std::string> Sglang::emit(const EmitInputs& in) const {
  const KnobSet& k = *in.knobs;
  std::string cmd = fmt::format("python3 -m sglang.launch_server --model-path {} --tp {}", in.model_id, in.tp);
  cmd += in.pp > 1 ? fmt::format(" --pp-size {}", in.pp) : "";
  cmd += in.dp > 1 ? fmt::format(" --dp-size {}", in.dp) : "";
  cmd += fmt::format(" --context-length {}", in.max_model_len);
  for (std::size_t knob : {max_running_requests, mem_fraction_static, max_total_tokens, page_size, chunked_prefill_size}) {
    if (const KnobValue* v = k.find(knob)) {
      cmd += fmt::format(" {} {}", kKnobs[knob].flags.substr(0, kKnobs[knob].flags.find(' ')),
                         knob_text(kKnobs[knob], *v));
    }
  }
  cmd += in.kv_dtype ? fmt::format(" --kv-cache-dtype {}", in.kv_dtype->name) : "";
  cmd += in.quantization ? fmt::format(" --quantization {}", *in.quantization) : "";
  return cmd;
}

std::optional<CommandForm> Sglang::command_form(std::span<const std::string> argv) const {
  if (const auto at = engines::python_module(argv, "sglang.launch_server")) {
    return CommandForm{*at, false, {}, {}, {}};
  }
  // NVIDIA Dynamo's SGLang worker (ai-dynamo/dynamo components/src/dynamo/sglang): SGLang's ServerArgs
  // beside Dynamo's own flags.
  if (const auto at = engines::python_module(argv, "dynamo.sglang")) {
    return CommandForm{*at, false, {}, {}, {}};
  }
  if (argv.size() >= 2 && engines::program_name(argv[0]) == "sglang" && argv[1] == "serve") {
    return CommandForm{2, false, {}, {}, {}};
  }
  return std::nullopt;
}

std::optional<std::string> Sglang::image_version(std::string_view image) const {
  const engines::Image i = engines::split_image(image);
  if (i.repository != "lmsysorg/sglang") {
    return std::nullopt;
  }
  // Tags: "v0.5.4.post1-cu129", "v0.4.3.post4-cu125", "latest", "dev".
  std::string tag = i.tag.substr(0, i.tag.find('-'));
  return tag == "latest" || tag == "dev" ? std::string() : tag;
}

}  // namespace

const Engine& sglang_engine_module() noexcept {
  static const Sglang engine;
  return engine;
}

}  // namespace kvplan
