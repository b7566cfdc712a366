// TensorRT-LLM: its knobs and trtllm-serve flags; free_gpu_memory_fraction (0.9) of what is free
// after its profiling run, in blocks of tokens_per_block (32), with KV heads per rank ceil(n_kv / tp)
// and MLA K-only; its launch command and command lines.
// Sources (docs/engines.md section 3): tensorrt_llm/_torch/pyexecutor/_util.py KvCacheCreator
// (configure_kv_cache_capacity), resource_manager.py get_cache_bytes_per_token and
// calculate_max_num_blocks, llmapi/llm_args.py KvCacheConfig; cpp kvCacheManager.cpp
// calculateMaxNumBlocks (TRT-engine path); tensorrt_llm/commands/serve.py (trtllm-serve).
#include <algorithm>
#include <array>
#include <cctype>
#include <fmt/format.h>
#include <variant>

#include "engine_util.hpp"
#include "kvplan/budget.hpp"
#include "kvplan/engine.hpp"
#include "kvplan/quantity.hpp"
#include "kvplan/units.hpp"
#include "dynamo_trtllm_flags.hpp"
#include "trtllm_flags.hpp"
#include "trtllm_options_flags.hpp"

namespace kvplan {
namespace {

// Version keys are major * 100 + minor: 0.5 -> 5, 1.3 -> 103.
constexpr int kPytorchBackendSince = 100;  // 1.0: the PyTorch backend and LLM API defaults
// 0.8's release notes: "Increase default freeGpuMemoryFraction parameter from 0.85 to 0.9" (the C++
// KvCacheConfig's kDefaultGpuMemFraction; docs/source/release-notes.md).
constexpr int kFraction090Since = 8;
// calculate_max_num_blocks rounded the primary pool up (math.ceil(max_tokens / tokens_per_block)) in 0.20 to 1.1,
// as two logs show (1.1.0rc3: 86,711 tokens -> 2,710 blocks of 32; 0.20.0: 860,308 -> 26,885); the current
// source floors (int(max_tokens // tokens_per_block)), and kvplan floors from 1.2, where no log tells.
constexpr int kBlocksRoundUpSince = 20;
constexpr int kBlocksRoundUpUntil = 101;
constexpr int kPoolLinePerWindowSince = 20;    // 0.20: "Max KV cache pages per sequence: P [window size=L]"
constexpr int kPoolLinePerSequenceSince = 102;  // 1.2: "Max KV cache blocks per sequence: ..., primary blocks=P, ..."

enum K : std::size_t {
  free_gpu_memory_fraction, tokens_per_block, max_num_tokens, max_batch_size, activation_memory, non_torch_memory,
  cuda_graph_memory, backend, kv_cache_dtype, model, tp_size, pp_size, max_seq_len, host_cache_size, max_tokens,
  kCount
};

constexpr std::array<Knob, kCount> kKnobs{{
    {"free_gpu_memory_fraction", "--kv_cache_free_gpu_memory_fraction --free_gpu_memory_fraction", KnobType::fraction, Target::own,
     "--free-gpu-memory-fraction", "TensorRT-LLM: fraction of the memory free after profiling (default 0.9)",
     "tensorrt_llm/llmapi/llm_args.py KvCacheConfig.free_gpu_memory_fraction", engines::engine_fraction},
    {"tokens_per_block", "", KnobType::count, Target::own, "--tokens-per-block",
     "TensorRT-LLM: tokens per KV block (default 32; kv_cache_config.tokens_per_block)",
     "tensorrt_llm/llmapi/llm_args.py KvCacheConfig.tokens_per_block", nullptr, 1 << 20},
    {"max_num_tokens", "--max_num_tokens", KnobType::count, Target::own, "--max-num-tokens",
     "TensorRT-LLM: tokens per batch (default 8192)", "tensorrt_llm/commands/serve.py"},
    {"max_batch_size", "--max_batch_size", KnobType::count, Target::own, "",
     "TensorRT-LLM: most requests in a batch (default 2048)", "tensorrt_llm/commands/serve.py", nullptr, 1'000'000},
    {"activation_memory", "", KnobType::bytes, Target::own, "--activation-memory",
     "Measured activation peak per GPU, replacing kvplan's estimate", "kvplan", nullptr, 0, true},
    {"non_torch_memory", "", KnobType::bytes, Target::own, "--non-torch-memory",
     "Measured non-torch memory per GPU (CUDA context, NCCL)", "kvplan", nullptr, 0, true},
    {"cuda_graph_memory", "", KnobType::bytes, Target::own, "--cuda-graph-memory", "Measured CUDA-graph memory per GPU",
     "kvplan", nullptr, 0, true},
    {"backend", "--backend", KnobType::text, Target::own, "",
     "TensorRT-LLM: pytorch (default, modelled), trt (a prebuilt engine), _autodeploy", "tensorrt_llm/commands/serve.py"},
    {"kv_cache_dtype", "", KnobType::dtype, Target::kv_dtype, "--kv-cache-dtype",
     "vLLM, SGLang, TensorRT-LLM: the KV cache dtype as the engine names it (auto, fp8, ...)",
     "tensorrt_llm/llmapi/llm_args.py KvCacheConfig.dtype (kv_cache_config.dtype in the YAML)"},
    {"model", "", KnobType::text, Target::model, "", "the model (the positional MODEL): an HF id or a local folder",
     "tensorrt_llm/commands/serve.py"},
    {"tp_size", "--tp_size --tensor_parallel_size", KnobType::count, Target::tp, "", "tensor-parallel size (default 1)",
     "tensorrt_llm/commands/serve.py", nullptr, 4096},
    {"pp_size", "--pp_size --pipeline_parallel_size", KnobType::count, Target::pp, "", "pipeline-parallel size (default 1)",
     "tensorrt_llm/commands/serve.py", nullptr, 4096},
    {"max_seq_len", "--max_seq_len", KnobType::count, Target::max_model_len, "",
     "the longest request (default: the model's maximum)", "tensorrt_llm/commands/serve.py"},
    {"host_cache_size", "", KnobType::bytes, Target::own, "--host-cache-size",
     "TensorRT-LLM: host memory per GPU for KV blocks offloaded for reuse (kv_cache_config.host_cache_size; a size or "
     "bytes)",
     "tensorrt_llm/llmapi/llm_args.py KvCacheConfig.host_cache_size; _torch/pyexecutor/resource_manager.py "
     "calculate_max_num_blocks"},
    {"max_tokens", "", KnobType::tokens, Target::own, "--kv-cache-max-tokens",
     "TensorRT-LLM: caps the KV pool's tokens per GPU (kv_cache_config.max_tokens; with the fraction, the smaller)",
     "tensorrt_llm/llmapi/llm_args.py KvCacheConfig.max_tokens (\"If both max_tokens and free_gpu_memory_fraction "
     "are specified, memory corresponding to the minimum will be used\")"},
}};

// get_cache_bytes_per_token: kv_factor (2, or 1 for MLA) x sum of ceil(n_kv / tp) x head_dim x bytes.
std::uint64_t bytes_per_token(const ModelSpec& m, const DType& kv, std::uint32_t tp) {
  auto full = [&](const FullAttention& a) {
    return ceil_div(a.num_key_value_heads, tp) *
           (row_bytes(kv, a.head_dim) + row_bytes(kv, a.v_head_dim.value_or(a.head_dim)));
  };
  std::uint64_t total = 0;
  for (const LayerGroup& g : m.layers) {
    const std::uint64_t per_layer = std::visit(
        overloaded{
            [&](const FullAttention& a) { return full(a); },
            [&](const SlidingWindow& s) { return full(s.attention); },
            [&](const LatentAttention& l) {
              return row_bytes(kv, std::uint64_t{l.kv_lora_rank} + l.qk_rope_head_dim);
            },
            [](const RecurrentState&) { return std::uint64_t{0}; },
            [&](const ChunkedLocal& c) { return full(c.attention); },  // sized per token like full layers
            [](const CrossAttention&) { return std::uint64_t{0}; },     // a separate cross-attention pool
            [](const SharedKV&) { return std::uint64_t{0}; },
            [](const IndexerCache& i) { return std::uint64_t{i.head_dim} + i.scale_bytes; },
            [](const NoCache&) { return std::uint64_t{0}; },
        },
        g.spec);
    total += g.count * per_layer;
  }
  return total;
}

// "1.3", "1.3.0rc10", "v0.5" -> major * 100 + minor, for 0.5 .. 1.3.
std::optional<int> trtllm_version(std::string_view text) {
  if (!text.empty() && text.front() == 'v') {
    text.remove_prefix(1);
  }
  const std::size_t dot = text.find('.');
  if (dot == std::string_view::npos) {
    return std::nullopt;
  }
  const auto major = to_unsigned(text.substr(0, dot));
  std::string_view rest = text.substr(dot + 1);
  std::size_t digits = 0;
  while (digits < rest.size() && std::isdigit(static_cast<unsigned char>(rest[digits])) != 0) {
    ++digits;
  }
  const auto minor = to_unsigned(rest.substr(0, digits));
  if (!major || !minor || *major > 1 || (*major == 0 && *minor < 5) || (*major == 1 && *minor > 3)) {
    return std::nullopt;
  }
  return static_cast<int>(*major * 100 + *minor);
}

class Trtllm final : public Engine {
 public:
  std::string_view name() const override { return "trtllm"; }
  std::string_view display() const override { return "TensorRT-LLM"; }
  std::span<const std::string_view> aliases() const override { return kAliases; }
  std::string_view default_version() const override { return "1.3"; }
  std::string_view versions_help() const override { return "0.5 to 1.3"; }
  std::optional<int> parse_version(std::string_view t) const override { return trtllm_version(t); }
  Capabilities capabilities() const override {
    Capabilities c;
    c.margin_ppm = 50'000;  // tokens within 5% (docs/accuracy.md)
    return c;
  }
  std::span<const Knob> knobs() const override { return kKnobs; }
  std::string_view flag_table() const override { return engines::kTrtllmFlags; }
  std::string_view flag_table_source() const override { return "TensorRT-LLM v1.3: tensorrt_llm/commands/serve.py"; }
  std::optional<std::size_t> fraction_knob() const override { return free_gpu_memory_fraction; }
  std::optional<std::size_t> cap_knob() const override { return max_batch_size; }
  // --config / --extra_llm_api_options FILE: a YAML of LLM API options (llm_args.py fields, nested), read with
  // yaml.safe_load and merged over the options the command line built (serve.py serve ->
  // update_llm_args_with_extra_options), so the file wins, as the flag's help says ("overwrites the parameters
  // specified by trtllm-serve"). Main from 0004396 lets a flag the command line gives explicitly win instead.
  std::optional<SettingsFile> settings_file(const FlagClass& row, const EngineVersion& version) const override {
    (void)version;
    if (row.spellings.empty()) {
      return std::nullopt;
    }
    SettingsFile f;
    f.keys = SettingsFile::Keys::options;
    f.file_wins = true;
    if (row.spellings.front() == "--config") {
      f.source = "tensorrt_llm/commands/serve.py serve; tensorrt_llm/llmapi/llm_args.py "
                 "update_llm_args_with_extra_options";
      return f;
    }
    // Dynamo's worker (python -m dynamo.trtllm): --extra-engine-args FILE is merged over the arg_map its flags
    // built (update_llm_args_with_extra_options), and --override-engine-args JSON deep-merged over both
    // (deep_update); components/src/dynamo/trtllm/workers/llm_worker.py init_llm_worker.
    if (row.spellings.front() == "--extra-engine-args") {
      f.source = "ai-dynamo/dynamo components/src/dynamo/trtllm/workers/llm_worker.py init_llm_worker";
      return f;
    }
    if (row.spellings.front() == "--override-engine-args") {
      f.inline_text = true;
      f.applies_last = true;
      f.source = "ai-dynamo/dynamo components/src/dynamo/trtllm/workers/llm_worker.py init_llm_worker (deep_update)";
      return f;
    }
    return std::nullopt;
  }
  std::string_view option_table() const override { return engines::kTrtllmOptions; }
  EnginePrediction predict(const EngineInputs& in) const override;
  std::optional<std::string> emit(const EmitInputs& in) const override;
  std::optional<CommandForm> command_form(std::span<const std::string> argv) const override {
    if (const auto at = engines::python_module(argv, "dynamo.trtllm")) {
      // NVIDIA Dynamo's TensorRT-LLM worker: Dynamo's own flags (its table), which build TensorRT-LLM's LLM API
      // arguments, and --trtllm.PATH VALUE for any option (components/src/dynamo/trtllm/args.py parse_args,
      // dynamic_flags.py), merged last like --override-engine-args.
      return CommandForm{*at, false, {}, engines::kDynamoTrtllmFlags, "--trtllm."};
    }
    if (argv.empty() || engines::program_name(argv[0]) != "trtllm-serve") {
      return std::nullopt;
    }
    const bool sub = argv.size() > 1 && argv[1] == "serve";  // trtllm-serve serve MODEL (the click subcommand)
    return CommandForm{sub ? 2U : 1U, true, {}, {}, {}};
  }
  std::optional<std::string> image_version(std::string_view image) const override {
    const engines::Image i = engines::split_image(image);
    if (i.repository != "nvidia/tensorrt-llm/release" && i.repository != "nvidia/tensorrt-llm") {
      return std::nullopt;
    }
    return i.tag == "latest" ? std::string() : i.tag;
  }

  std::span<const std::string_view> command_examples() const override { return kExamples; }

 private:
  static constexpr std::array<std::string_view, 2> kAliases{"tensorrt-llm", "tensorrt_llm"};
  static constexpr std::array<std::string_view, 2> kExamples{"trtllm-serve MODEL ...", "python -m dynamo.trtllm ..."};
};

EnginePrediction Trtllm::predict(const EngineInputs& in) const {
  const ModelSpec& m = *in.model;
  const KnobSet& s = *in.knobs;
  EnginePrediction p;
  const auto fraction = static_cast<std::uint32_t>(
      s.number(free_gpu_memory_fraction).value_or(in.version >= kFraction090Since ? 900'000 : 850'000));
  // KvCacheConfig.tokens_per_block is 32 on the PyTorch backend (the default from 1.0, or --backend pytorch before);
  // a TRT engine built before 1.0 defaults to 64 (trtllm-build --tokens_per_block).
  const KnobValue* chosen = s.find(backend);
  const bool pytorch = chosen != nullptr ? std::get<std::string>(*chosen) == "pytorch" : in.version >= kPytorchBackendSince;
  const std::uint64_t tpb = s.number(tokens_per_block).value_or(pytorch ? 32 : 64);
  const std::uint64_t batch_tokens = s.number(max_num_tokens).value_or(8192);
  p.max_model_len = in.max_model_len;
  p.block_tokens = tpb;
  p.concurrency_cap = s.number(max_batch_size).value_or(2048);  // trtllm-serve --max_batch_size default

  const std::uint64_t weights = weight_bytes_per_gpu(m.params, in.weights, in.tensor_parallel);
  // The profiling peak: kvplan's engine-neutral reserve (activations of a max_num_tokens batch,
  // CUDA graphs, NCCL). No TensorRT-LLM profiling log is in the calibration set to refine it.
  Reserve reserve = estimate_reserve(m.vocab_size, in.tensor_parallel, {}, in.gpu_name);
  reserve.activations_bytes = s.number(activation_memory).value_or(reserve.activations_bytes);
  reserve.framework_bytes = s.number(non_torch_memory).value_or(reserve.framework_bytes);
  reserve.cuda_graphs_bytes = s.number(cuda_graph_memory).value_or(reserve.cuda_graphs_bytes);
  const std::uint64_t peak = sat_add(weights, reserve.total());
  const std::uint64_t free_after = sat_sub(in.gpu_memory_bytes, peak);
  const std::uint64_t available = mul_frac(free_after, fraction, 1'000'000);
  const std::uint64_t per_token = bytes_per_token(m, in.kv_dtype, in.tensor_parallel);
  const std::uint64_t by_memory = per_token == 0 ? 0 : engines::with_margin(available, in.kv_margin_ppm) / per_token;
  const std::uint64_t max_tokens = std::min(by_memory, s.number(K::max_tokens).value_or(by_memory));
  const bool round_up = in.version >= kBlocksRoundUpSince && in.version <= kBlocksRoundUpUntil;
  const std::uint64_t blocks = round_up ? ceil_div(max_tokens, tpb) : max_tokens / tpb;
  // The secondary pool: host_cache_size // (bytes per token × tokens per block) on every rank; it holds blocks
  // offloaded for reuse and adds no room for running requests (calculate_max_num_blocks).
  std::uint64_t host_blocks = 0;
  if (const auto host = s.number(host_cache_size); host && *host > 0 && per_token > 0) {
    host_blocks = *host / sat_mul(per_token, tpb);
    const std::uint64_t world = std::uint64_t{in.tensor_parallel} * in.pipeline_parallel;
    p.host = HostTier{sat_mul(host_blocks, tpb), sat_mul(*host, world),
                      fmt::format("kv_cache_config.host_cache_size {}", format_bytes(*host))};
  }
  p.usable_bytes = in.gpu_memory_bytes;
  p.fraction_ppm = fraction;
  p.weights_bytes = weights;
  p.kv_budget_bytes = available;
  p.reserved_bytes = sat_sub(in.gpu_memory_bytes, sat_add(weights, available));
  p.configured_len = in.max_model_len;
  p.startup = blocks == 0 ? Startup::no_kv_memory : Startup::ok;
  // A max_seq_len beyond the pool is reduced, not refused ("maxAttentionWindow and maxSequenceLen are
  // too large ... they are reduced to"): the engine starts and accepts fewer tokens per request.
  if (blocks > 0 && blocks * tpb < p.max_model_len) {
    p.max_model_len = blocks * tpb;
  }
  p.capacity_at_shape = blocks / ceil_div(std::max<std::uint64_t>(in.shape_seq_len, 1), tpb);
  for (std::uint64_t len : in.frontier_lengths) {
    if (len <= p.max_model_len) {
      p.frontier.emplace_back(len, blocks / ceil_div(len, tpb));
    }
  }
  if (!in.text) {
    return p;
  }
  p.budget = {
      {"total_gpu_memory_bytes", "Device total memory", Cell::bytes(in.gpu_memory_bytes), ""},
      {"weights_bytes", "− Weights", Cell::bytes(weights), ""},
      {"peak_non_weight_bytes", "− Profiling peak beyond weights", Cell::bytes(reserve.total()),
       fmt::format("kvplan's engine-neutral estimate, not yet scaled by max_num_tokens {}", with_commas(batch_tokens))},
      {"free_gpu_memory_fraction", "free_gpu_memory_fraction", Cell::number(static_cast<double>(fraction) / 1e6),
       s.has(free_gpu_memory_fraction) ? "--free-gpu-memory-fraction"
       : in.version >= kFraction090Since ? "KvCacheConfig default"
                                         : "KvCacheConfig default before 0.8 (0.9 from 0.8)"},
      {"available_kv_bytes", "= Available KV cache memory", Cell::bytes(available), "(total − peak) × fraction"},
  };
  p.fields = {
      {"kv_bytes_per_token", "kv size per token", Cell::bytes(per_token), "KV heads per rank: ceil(n_kv / tp)"},
      {"max_tokens", "max tokens", Cell::tokens(max_tokens),
       max_tokens < by_memory ? fmt::format("kv_cache_config.max_tokens (the fraction gives {})", with_commas(by_memory))
                              : ""},
      {"tokens_per_block", "tokens per block", Cell::tokens(tpb), ""},
      {"blocks_in_primary_pool", "blocks in primary pool", Cell::count(blocks),
       round_up ? "ceil(max_tokens / tokens_per_block), as 0.20 to 1.1 round" : "max_tokens // tokens_per_block"},
      {"blocks_in_secondary_pool", "blocks in secondary pool", Cell::count(host_blocks),
       host_blocks > 0 ? "host_cache_size // (kv size per token × tokens per block)" : "no host_cache_size"},
  };
  // The pool's log lines by release: the C++ KVCacheManager's own before 0.20; the PyTorch backend's per-window
  // line from 0.20 (0.20.0's "Max KV cache pages per sequence: 5 [window size=157]") and, from 1.2, with both
  // pools and a window of max_seq_len + 1 (1.2.1's "... [window size=2049], tokens per block=32, primary
  // blocks=13189, secondary blocks=0, max sequence length=2049"); the allocation counts the pool's tokens.
  const std::uint64_t pool_tokens = sat_mul(blocks, tpb);
  const bool reduced = blocks > 0 && pool_tokens < in.max_model_len;
  if (in.version >= kPoolLinePerSequenceSince) {
    const std::uint64_t window = p.max_model_len + 1;
    p.log_lines.push_back(fmt::format("Max KV cache blocks per sequence: {} [window size={}], tokens per block={}, "
                                      "primary blocks={}, secondary blocks={}, max sequence length={}",
                                      ceil_div(window, tpb), window, tpb, blocks, host_blocks, window));
  } else if (in.version >= kPoolLinePerWindowSince) {
    p.log_lines.push_back(fmt::format("Max KV cache pages per sequence: {} [window size={}]",
                                      ceil_div(p.max_model_len, tpb), p.max_model_len));
    p.log_lines.push_back(fmt::format("Number of tokens per block: {}.", tpb));
  } else {
    p.log_lines.push_back(fmt::format("Number of blocks in KV cache primary pool: {}", blocks));
    p.log_lines.push_back(fmt::format("Number of blocks in KV cache secondary pool: {}", host_blocks));
    p.log_lines.push_back(fmt::format("Number of tokens per block: {}.", tpb));
  }
  p.log_lines.push_back(fmt::format("[MemUsageChange] Allocated {} GiB for max tokens in paged KV cache ({}).",
                                    engines::gib(sat_mul(pool_tokens, per_token)), pool_tokens));
  if (reduced && in.version >= kPoolLinePerWindowSince) {
    // 1.1.0rc3: "Attention window size 131072 exceeds upper bound 86720 for available blocks. Reducing to 86720."
    p.log_lines.push_back(fmt::format("Attention window size {} exceeds upper bound {} for available blocks. Reducing to {}.",
                                      in.max_model_len, pool_tokens, pool_tokens));
    p.log_lines.push_back(fmt::format("Adjusted max_seq_len to {}", pool_tokens));
  } else if (reduced) {
    p.log_lines.push_back(fmt::format("maxAttentionWindow and maxSequenceLen are too large for at least one sequence to "
                                      "fit in kvCache. they are reduced to {}",
                                      pool_tokens));
  }
  if (const KnobValue* b = s.find(backend); b != nullptr && std::get<std::string>(*b) != "pytorch") {
    p.notes.push_back(fmt::format("--backend {}: kvplan models the PyTorch backend's KV-cache estimation; a prebuilt "
                                  "TRT engine sizes its buffers at build time",
                                  std::get<std::string>(*b)));
  }
  p.notes.push_back("TensorRT-LLM's profiling peak is kvplan's engine-neutral estimate, not fitted to its logs (one "
                    "held-out PyTorch-backend log, 0.20 on an H100 PCIe, is +2.9%: docs/accuracy.md); give the "
                    "measured figure with --activation-memory when you have one.");
  return p;
}

std::optional<std::string> Trtllm::emit(const EmitInputs& in) const {
  const KnobSet& k = *in.knobs;
  std::string cmd = fmt::format("trtllm-serve {} --tp_size {}", in.model_id, in.tp);
  cmd += in.pp > 1 ? fmt::format(" --pp_size {}", in.pp) : "";
  cmd += fmt::format(" --max_seq_len {}", in.max_model_len);
  for (std::size_t knob : {max_batch_size, max_num_tokens, free_gpu_memory_fraction}) {
    if (const KnobValue* v = k.find(knob)) {
      cmd += fmt::format(" {} {}", kKnobs[knob].flags.substr(0, kKnobs[knob].flags.find(' ')),
                         knob_text(kKnobs[knob], *v));
    }
  }
  return cmd;
}

}  // namespace

const Engine& trtllm_engine_module() noexcept {
  static const Trtllm engine;
  return engine;
}

}  // namespace kvplan
