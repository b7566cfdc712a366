// vLLM, 0.6 to 0.30: its knobs and flags, which engine runs (V0 before 0.8 and where 0.8 to 0.10 fall
// back to it, V1 otherwise), its budget, KV cache groups and blocks, the start-up check, the lines it
// logs, its launch command and command lines. The version table and its sources are in docs/engines.md
// ("vLLM by version"): vllm/worker/worker.py determine_num_available_blocks and
// vllm/worker/model_runner.py profile_run (V0), vllm/engine/arg_utils.py _is_v1_supported_oracle,
// vllm/v1/worker/gpu_worker.py determine_available_memory,
// vllm/v1/core/kv_cache_utils.py get_kv_cache_configs / _check_enough_kv_cache_memory /
// _report_kv_cache_config, vllm/v1/kv_cache_interface.py, vllm/engine/arg_utils.py
// get_batch_defaults / add_cli_args, vllm/platforms/interface.py _align_hybrid_block_size.
#include <algorithm>
#include <array>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "engine_util.hpp"
#include "kvplan/budget.hpp"
#include "kvplan/error.hpp"
#include "kvplan/engine.hpp"
#include "kvplan/quantity.hpp"
#include "kvplan/text.hpp"
#include "kvplan/units.hpp"
#include "vllm_flags.hpp"
#include "vllm_removed_flags.hpp"

namespace kvplan {
namespace {

using engines::LayerType;

// Version keys are minor versions of 0.x; a release is minor x 100 + patch (0.8.5 is 805; a version
// without its patch, "0.8", is that minor's last release).
constexpr int kOldestMinor = 6;
constexpr int kV1DefaultSince = 8;            // VLLM_USE_V1 defaults to 1 (d4d93db2c, #13726, in 0.8.0)
constexpr int kV0RemovedSince = 11;           // c99db8c8d "[V0 Deprecation] Remove V0 core" (#25321)
constexpr int kV0ChunkOf2048Since = 605;      // chunked prefill's default 512 -> 2048 tokens (02a43f82a, #10544)
constexpr int kV0LatentCacheSince = 701;      // cache_engine.py: MLA caches the latent alone (use_mla)
constexpr int kV0QkHeadDimSince = 700;        // deepseek_v2.py: K and V per head at qk_head_dim, no longer 256
constexpr int kV1SeqsBySizeSince = 804;       // max_num_seqs 256 below the large tier (66d433b94, #16158)
constexpr int kV1TierByMemorySince = 805;     // the large tier by device memory >= 70 GiB (46e678bcf, #17073)
constexpr int kV1A100ExcludedSince = 900;     // ... and not an A100 (911215528, #17885)
constexpr int kV1ProfilingSince = 901;        // memory_profiling(init_snapshot) in V1 (cc867be19, #19312)
// The profiling run's sampler sorts the whole vocabulary (apply_top_k_top_p's logits.sort()) in 0.8.x (FlashInfer
// >= 0.2.3 disabled), and again from 0.11.1, where FlashInfer's sampler is off by default (e66d787bc, #26859),
// until the in-place Triton top-k/top-p kernel (c656ba3b4, #33538, merged 2026-02-17: taken as 0.17; 0.16 not
// read). In 0.9 to 0.11.0 it sorts only where FlashInfer is not installed, which a command line does not say.
constexpr int kV1SortingSamplerUntil = 900;
constexpr int kV1SortingAgainSince = 1101;
constexpr int kV1TritonSamplerSince = 1700;
// _is_v1_supported_oracle, release by release (docs/engines.md, "vLLM by version"):
constexpr int kV1PipelineSince = 803;         // PP on V1, with the ray backend (0.8.3); any backend from 0.9.0.1
constexpr int kV1PipelineAnyBackendSince = 900;
constexpr int kV1Fp8KvSince = 802;            // fp8 KV on V1 where FlashAttention takes it (FA3, Hopper)
constexpr int kV1Fp8KvAnyGpuSince = 1000;     // current_platform.is_kv_cache_dtype_supported (0.10.0)
constexpr int kV1BelowSm80Since = 1002;       // the compute-capability < 8.0 fallback removed (0.10.2)
constexpr int kV1CpuOffloadSince = 803;       // --cpu-offload-gb no longer forces V0 (0.8.3)
constexpr int kV1BitsAndBytesSince = 803;     // bitsandbytes leaves V1_UNSUPPORTED_QUANT (726efc6a3, #15611)
constexpr int kV1GgufSince = 900;             // GGUF on V1 (1f1b1bc03, #18646, in 0.9.0.1; 0.9.0 has the same key)
constexpr int kSeqsCappedByTokensSince = 1001;  // max_num_seqs = min(default, max_num_batched_tokens)
constexpr int kTritonKernelsBundledSince = 1101;  // triton_kernels a dependency (#27370): MXFP4 MoE on Triton on Hopper
constexpr int kBf16FallbackSince = 900;       // auto dtype: bf16 falls back to fp16 below sm80 (5c4c08f6f, #17265)
// One commit turns the CUDA-graph estimate on (VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=1) and raises
// CacheConfig.gpu_memory_utilization's default from 0.9 to 0.92 to make up for it (96a85c57501f, #38284, merged
// 2026-04-21); vLLM's own log line says "default since v0.21.0", but a 0.20.2 log already prints it and subtracts
// its estimate (Michal1337/clinician-co-pilot vllm.log: "version 0.20.2", "Estimated CUDA graph memory: 0.88 GiB
// total", "CUDA graph memory profiling is enabled"). Releases (minor x 100 + patch): 0.20.0 and 0.20.1 were not read.
constexpr int kCudaGraphEstimateSince = 2002;
constexpr int kUtilization092Since = kCudaGraphEstimateSince;
// num_tokens = int(max_concurrency * max_model_len) in _report_kv_cache_config (e68fa1b90a7b, #41069, merged
// 2026-04-28); the same 0.20.2 log prints 984,297 tokens at 30.04x of 32,768, no whole number of blocks.
constexpr int kTokensFromConcurrencySince = 2002;
// Model Runner V2 (vllm/v1/worker/gpu/model_runner.py) is the default for the configurations it supports from v0.29.0
// (commit 4aab2b0; VLLM_USE_V2_MODEL_RUNNER=1 selects it before). Its profile_run samples a dummy batch that registers
// no sampling parameters, so the sampler exits before its fp32 upcast, top-k/top-p, penalties and logit bias
// (vllm-project/vllm#57926, open 2026-09-21: "the fp32 logits upcast ... never enters the profiled peak"): the
// profiled sampler is the model-dtype logits, 2 B per row and vocabulary entry.
constexpr int kV2ModelRunnerSince = 2900;
constexpr std::uint64_t kV2SamplerBytes = 2;
// The non-torch memory of tp > 1 on NVSwitch GPUs (docs/engines.md, "non-torch"): the 2.07 GiB of the 0.19 tp-2 fit
// runs is multicast memory that something at two ranks allocates. NCCL puts NVLink SHARP (NVLS) buffers on a
// communicator of more than two GPUs only until 2.28.7 (src/transport/nvls.cc ncclNvlsInit, "gpuCount <= 2" until
// ae7aed19, 2025-10-17; vLLM's wheels ship NCCL 2.27.x through 0.19), so at tp 2 it is FlashInfer's all-reduce + RMSNorm
// fusion workspace, on by default at -O2 for tp > 1 on Hopper and Blackwell from #34299 (merged 2026-02-12: taken as
// 0.16), with pipeline and data parallelism excluded (#34392) until #41458 (merged 2026-05-01: taken as 0.21). Before
// it a tp-2 run pays the plain figure: a 0.12.0 run on two H100 SXM logs 'fuse_allreduce_rms': False and leaves
// 0.7 GiB beside its activations.
constexpr int kArRmsFusionSince = 1600;
constexpr int kArRmsFusionWithPpDpSince = 2100;
// Mamba state per request (MambaSpec.max_memory_usage_bytes, mamba_cache_mode): "align" keeps 2 states, "none"
// 1, "all" one per block (5206e5e28c25, #30877, merged 2026-01-23, taken as 0.15); before it a hybrid kept 1
// state, or for Mamba-2 models with prefix caching one per block (ea507c3a93fe, #25752, 0.11.1).
constexpr int kMambaAlignSince = 15;
constexpr int kMambaPrefixCachingSince = 12;  // #25752 (2025-10-04): after 0.11.0, so from 0.11.1; read as 0.12
// Hybrid models get prefix caching by default, and "align" is every Mamba model's default mode
// (f9c74b4b9c25, #50991, merged 2026-08-04: 0.27). Before it a hybrid needs --enable-prefix-caching
// (ModelConfig.is_prefix_caching_supported is False for attn_type "hybrid").
constexpr int kHybridPrefixCachingSince = 27;
constexpr int kLargeGpuTierSince = 28;        // >= 160 GiB devices get max_num_batched_tokens 16384

enum K : std::size_t {
  gpu_memory_utilization, kv_cache_memory_bytes, max_num_seqs, max_num_batched_tokens, block_size, enforce_eager,
  cpu_offload_gb, kv_offloading_size, num_gpu_blocks_override, optimization_level, enable_expert_parallel,
  allow_long_max_model_len, use_v1, enable_chunked_prefill, distributed_executor_backend,
  activation_memory, non_torch_memory, cuda_graph_memory,
  model, tensor_parallel_size, pipeline_parallel_size, data_parallel_size, decode_context_parallel_size,
  max_model_len, kv_cache_dtype, dtype, quantization, nnodes, kv_transfer_config, lmcache_cpu_size, lmcache_chunk_size,
  kv_offloading_backend, enable_prefix_caching, mamba_cache_mode, use_flashinfer_sampler, moe_backend, mxfp4_use_marlin,
  use_v2_model_runner, skip_mm_profiling, kCount
};

// --kv-transfer-config '{"kv_connector":"LMCacheConnectorV1",...}': the connector it names, read once here.
KnobValue connector_name(std::string_view where, std::string_view text) {
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    throw Error(fmt::format("{}: {} is not a JSON object (vLLM's KVTransferConfig)", where, quote_input(text)));
  }
  const auto it = j.find("kv_connector");
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// --mamba-cache-mode: CacheConfig.mamba_cache_mode's values.
KnobValue mamba_mode(std::string_view where, std::string_view text) {
  if (text != "none" && text != "align" && text != "all") {
    throw Error(fmt::format("{}: expected none, align or all (got {})", where, quote_input(text)));
  }
  return std::string(text);
}

// --moe-backend: KernelConfig.moe_backend, a lower-case kernel name ("auto", "marlin", "flashinfer_trtllm").
KnobValue moe_backend_name(std::string_view where, std::string_view text) {
  const bool word = !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
  if (!word) {
    throw Error(fmt::format("{}: expected a MoE backend such as auto, marlin, triton or flashinfer_trtllm (got {})",
                            where, quote_input(text)));
  }
  return std::string(text);
}

// LMCache's chunk size, from LMCACHE_CHUNK_SIZE (lmcache/v1/config.py chunk_size: an int, default 256).
KnobValue chunk_tokens(std::string_view where, std::string_view text) { return parse_count(where, text, 1 << 20); }

// LMCACHE_MAX_LOCAL_CPU_SIZE: a float of GiB (local_cpu_backend.py initialize_allocator: int(size * 1024**3)).
KnobValue lmcache_gib(std::string_view where, std::string_view text) { return engines::decimal_gib(where, text); }

constexpr std::array<Knob, kCount> kKnobs{{
    {"gpu_memory_utilization", "--gpu-memory-utilization", KnobType::fraction, Target::own, "--gpu-memory-utilization",
     "vLLM: fraction of total GPU memory (default 0.9; 0.92 from v0.21)", "vllm/config/cache.py CacheConfig",
     engines::engine_fraction},
    {"kv_cache_memory_bytes", "--kv-cache-memory-bytes", KnobType::bytes, Target::own,
     "--kv-cache-memory", "vLLM: KV cache size per GPU, replacing the utilization (20GiB, or plain bytes)",
     "vllm/config/cache.py CacheConfig", engines::human_readable_int},
    {"max_num_seqs", "--max-num-seqs", KnobType::count, Target::own, "--max-num-seqs",
     "vLLM: most sequences per step (default 1024 on >= 70 GiB GPUs but the A100, else 256)",
     "vllm/config/scheduler.py SchedulerConfig; arg_utils.py get_batch_defaults", nullptr, 1'000'000},
    {"max_num_batched_tokens", "--max-num-batched-tokens", KnobType::tokens, Target::own, "--max-num-batched-tokens",
     "vLLM: tokens per step (default 8192 on >= 70 GiB GPUs but the A100, else 2048)",
     "vllm/config/scheduler.py SchedulerConfig; arg_utils.py get_batch_defaults", engines::human_readable_int},
    {"block_size", "--block-size", KnobType::count, Target::own, "--block-size",
     "vLLM: tokens per KV block (default 16)", "vllm/config/cache.py CacheConfig", nullptr, 1'048'576},
    {"enforce_eager", "--enforce-eager", KnobType::flag, Target::own, "--enforce-eager",
     "vLLM: no CUDA graphs, so no CUDA-graph memory", "vllm/config/model.py ModelConfig"},
    {"cpu_offload_gb", "--cpu-offload-gb", KnobType::bytes, Target::own, "",
     "vLLM: GiB of weights per GPU kept in host memory", "vllm/config/cache.py CacheConfig",
     engines::decimal_gib, 0, true},
    {"kv_offloading_size", "--kv-offloading-size", KnobType::bytes, Target::own, "--kv-offloading-size",
     "vLLM: host memory for KV blocks the GPU evicts, all ranks together (CPU offloading): 64 is GiB, as vLLM "
     "reads it, or a size (64GiB)",
     "vllm/config/cache.py CacheConfig.kv_offloading_size; vllm/v1/kv_offload/cpu/spec.py CPUOffloadingSpec",
     engines::decimal_gib},
    {"num_gpu_blocks_override", "--num-gpu-blocks-override", KnobType::count, Target::own, "",
     "vLLM: this many KV blocks, whatever the memory", "vllm/config/cache.py CacheConfig"},
    {"optimization_level", "--optimization-level -O", KnobType::count, Target::own, "",
     "vLLM: 0 compiles nothing and captures no CUDA graphs; 1-3 capture them (default 2)",
     "vllm/config/vllm.py OptimizationLevel; argparse_utils.py rewrites -O3 to --optimization-level 3", nullptr, 3,
     true},
    {"enable_expert_parallel", "--enable-expert-parallel -ep", KnobType::flag, Target::own, "--enable-expert-parallel",
     "vLLM: MoE experts sharded over tp × dp GPUs instead of tp", "vllm/config/parallel.py ParallelConfig"},
    {"allow_long_max_model_len", "", KnobType::flag, Target::own, "",
     "vLLM: VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 lets max_model_len exceed the model's own maximum",
     "vllm/config/model.py _get_and_verify_max_len; vllm/envs.py", engines::on_off, 0, false,
     "VLLM_ALLOW_LONG_MAX_MODEL_LEN"},
    {"use_v1", "", KnobType::flag, Target::own, "",
     "vLLM 0.8 to 0.10: VLLM_USE_V1=0 runs the V0 engine (the default is V1 where it supports the settings)",
     "vllm/envs.py VLLM_USE_V1; vllm/engine/arg_utils.py create_engine_config", engines::on_off, 0, false,
     "VLLM_USE_V1"},
    {"enable_chunked_prefill", "--enable-chunked-prefill", KnobType::flag, Target::own, "",
     "vLLM: off, max_num_batched_tokens defaults to max(max_model_len, 2048), and so does the profiling run",
     "vllm/config/scheduler.py SchedulerConfig; V0: arg_utils.py _set_default_args_v0"},
    {"distributed_executor_backend", "--distributed-executor-backend", KnobType::text, Target::own, "",
     "vLLM: the process launcher; in 0.8.3 to 0.8.5 pipeline parallelism stays on V1 only with ray",
     "vllm/config/parallel.py ParallelConfig; arg_utils.py _is_v1_supported_oracle"},
    {"activation_memory", "", KnobType::bytes, Target::own, "--activation-memory",
     "Measured activation peak per GPU (vLLM's \"torch peak increase\"), replacing kvplan's estimate", "kvplan",
     nullptr, 0, true},
    {"non_torch_memory", "", KnobType::bytes, Target::own, "--non-torch-memory",
     "Measured non-torch memory per GPU (CUDA context, NCCL)", "kvplan", nullptr, 0, true},
    {"cuda_graph_memory", "", KnobType::bytes, Target::own, "--cuda-graph-memory", "Measured CUDA-graph memory per GPU",
     "kvplan", nullptr, 0, true},
    {"model", "--model", KnobType::text, Target::model, "", "the model: an HF id or a local folder",
     "vllm/config/model.py ModelConfig"},
    {"tensor_parallel_size", "--tensor-parallel-size -tp", KnobType::count, Target::tp, "",
     "tensor-parallel size (default 1)", "vllm/config/parallel.py ParallelConfig", nullptr, 4096},
    {"pipeline_parallel_size", "--pipeline-parallel-size -pp", KnobType::count, Target::pp, "",
     "pipeline-parallel size (default 1)", "vllm/config/parallel.py ParallelConfig", nullptr, 4096},
    {"data_parallel_size", "--data-parallel-size -dp", KnobType::count, Target::dp, "",
     "data-parallel replicas (default 1)", "vllm/config/parallel.py ParallelConfig", nullptr, 4096},
    {"decode_context_parallel_size", "--decode-context-parallel-size -dcp", KnobType::count, Target::cp, "",
     "decode context parallelism inside the TP group (default 1)", "vllm/config/parallel.py ParallelConfig",
     nullptr, 4096},
    {"max_model_len", "--max-model-len", KnobType::tokens, Target::max_model_len, "",
     "the longest request (default: the model's maximum)", "vllm/config/model.py ModelConfig",
     engines::human_readable_int},
    {"kv_cache_dtype", "--kv-cache-dtype", KnobType::dtype, Target::kv_dtype, "--kv-cache-dtype",
     "vLLM, SGLang, TensorRT-LLM: the KV cache dtype as the engine names it (auto, fp8, ...)",
     "vllm/config/cache.py CacheConfig"},
    {"dtype", "--dtype", KnobType::text, Target::weights, "", "weights and activations dtype",
     "vllm/config/model.py ModelConfig"},
    {"quantization", "--quantization -q", KnobType::text, Target::weights, "",
     "the checkpoint's quantization method", "vllm/config/model.py ModelConfig"},
    {"nnodes", "--nnodes -n", KnobType::count, Target::nodes, "",
     "machines one server spans (default 1): a manifest's pods that join into it", "vllm/config/parallel.py "
     "ParallelConfig", nullptr, 4096},
    {"kv_transfer_config", "--kv-transfer-config", KnobType::text, Target::own, "--kv-transfer-config",
     "vLLM: a KV connector as JSON; LMCacheConnectorV1 adds LMCache's host tier", "vllm/config/vllm.py "
     "VllmConfig.kv_transfer_config (KVTransferConfig.kv_connector)", connector_name},
    {"lmcache_cpu_size", "", KnobType::bytes, Target::own, "--lmcache-max-local-cpu-size",
     "LMCache: GiB of pinned host memory per TP rank for KV chunks (LMCACHE_MAX_LOCAL_CPU_SIZE; default 5.0)",
     "lmcache/v1/config.py max_local_cpu_size; local_cpu_backend.py initialize_allocator", lmcache_gib, 0, true,
     "LMCACHE_MAX_LOCAL_CPU_SIZE"},
    {"lmcache_chunk_size", "", KnobType::count, Target::own, "",
     "LMCache: tokens per KV chunk (LMCACHE_CHUNK_SIZE; default 256)", "lmcache/v1/config.py chunk_size",
     chunk_tokens, 1 << 20, false, "LMCACHE_CHUNK_SIZE"},
    {"kv_offloading_backend", "--kv-offloading-backend", KnobType::text, Target::own, "",
     "vLLM: native (default) or lmcache, the tier --kv-offloading-size sizes", "vllm/config/cache.py "
     "CacheConfig.kv_offloading_backend"},
    {"enable_prefix_caching", "--enable-prefix-caching", KnobType::flag, Target::own, "--enable-prefix-caching",
     "vLLM: prefix caching; on a hybrid (Mamba, Gated DeltaNet) model it keeps more states per request "
     "(default on, for hybrids from v0.27)",
     "vllm/config/cache.py CacheConfig.enable_prefix_caching; vllm/model_executor/models/config.py "
     "MambaModelConfig.verify_and_update_config"},
    {"mamba_cache_mode", "--mamba-cache-mode", KnobType::text, Target::own, "",
     "vLLM: Mamba states kept per request with prefix caching: none (1), align (2) or all (one per block)",
     "vllm/config/cache.py CacheConfig.mamba_cache_mode; vllm/v1/kv_cache_interface.py MambaSpec", mamba_mode},
    {"use_flashinfer_sampler", "", KnobType::flag, Target::own, "--flashinfer-sampler",
     "vLLM: on, FlashInfer's top-k/top-p sampler (no sort); off, PyTorch's, which sorts the vocabulary in the "
     "profiling run before v0.17 (off means FlashInfer is not installed, too; default: by version)",
     "vllm/envs.py VLLM_USE_FLASHINFER_SAMPLER; vllm/v1/sample/ops/topk_topp_sampler.py TopKTopPSampler",
     engines::on_off, 0, false, "VLLM_USE_FLASHINFER_SAMPLER"},
    {"moe_backend", "--moe-backend", KnobType::text, Target::own, "--moe-backend",
     "vLLM: the MoE kernels (auto, marlin, triton, flashinfer_trtllm, flashinfer_cutlass, ...); for MXFP4 experts "
     "(gpt-oss) they decide the padded shapes the weights are allocated in",
     "vllm/config/kernel.py KernelConfig.moe_backend; fused_moe/oracle/mxfp4.py map_mxfp4_backend", moe_backend_name},
    {"mxfp4_use_marlin", "", KnobType::flag, Target::own, "",
     "vLLM: VLLM_MXFP4_USE_MARLIN=1 runs MXFP4 experts on the Marlin kernel", "vllm/envs.py VLLM_MXFP4_USE_MARLIN",
     engines::on_off, 0, false, "VLLM_MXFP4_USE_MARLIN"},
    {"use_v2_model_runner", "", KnobType::flag, Target::own, "--model-runner-v2",
     "vLLM: on, Model Runner V2 (VLLM_USE_V2_MODEL_RUNNER=1), whose profiling run samples with no sampling parameters, "
     "so its sampler costs only the logits (default: by version, on from v0.29)",
     "vllm/envs.py VLLM_USE_V2_MODEL_RUNNER; vllm/v1/worker/gpu/model_runner.py profile_run",
     engines::on_off, 0, false, "VLLM_USE_V2_MODEL_RUNNER"},
    {"skip_mm_profiling", "--skip-mm-profiling", KnobType::flag, Target::own, "--skip-mm-profiling",
     "vLLM: the profiling run skips the vision encoder's max-size images and their encoder cache: more KV memory, "
     "with the encoder's peak left out of the budget",
     "vllm/config/multimodal.py MultiModalConfig.skip_mm_profiling; vllm/v1/worker/gpu_model_runner.py profile_run"},
}};

// Each enumerator of K names the row of kKnobs at its position: a row added out of order is a compile error.
constexpr bool knobs_in_enum_order() {
  constexpr std::string_view kOrder[] = {
      "gpu_memory_utilization", "kv_cache_memory_bytes", "max_num_seqs", "max_num_batched_tokens", "block_size",
      "enforce_eager", "cpu_offload_gb", "kv_offloading_size", "num_gpu_blocks_override", "optimization_level",
      "enable_expert_parallel", "allow_long_max_model_len", "use_v1", "enable_chunked_prefill",
      "distributed_executor_backend", "activation_memory", "non_torch_memory", "cuda_graph_memory", "model",
      "tensor_parallel_size", "pipeline_parallel_size", "data_parallel_size", "decode_context_parallel_size",
      "max_model_len", "kv_cache_dtype", "dtype", "quantization", "nnodes", "kv_transfer_config", "lmcache_cpu_size",
      "lmcache_chunk_size", "kv_offloading_backend", "enable_prefix_caching", "mamba_cache_mode",
      "use_flashinfer_sampler", "moe_backend", "mxfp4_use_marlin", "use_v2_model_runner", "skip_mm_profiling"};
  static_assert(std::size(kOrder) == kCount);
  for (std::size_t k = 0; k < kCount; ++k) {
    if (kKnobs[k].key != kOrder[k]) {
      return false;
    }
  }
  return kKnobs[use_v2_model_runner].key == "use_v2_model_runner" && kKnobs[skip_mm_profiling].key == "skip_mm_profiling";
}
static_assert(knobs_in_enum_order(), "kKnobs rows must follow enum K");

// Activation peak of the profiling run, calibrated on 15 vLLM 0.19.0 H100 runs at the API-server
// defaults max_num_batched_tokens 8192 and max_num_seqs 1024 (docs/budget.md): 445 MiB for the
// forward, scaled by the batched tokens, plus ~13 B per vocabulary entry per sampled row (the
// sampler's fp32 logits and their copies).
constexpr std::uint64_t kFittedBytesPerVocabRow = 13;

// Non-torch memory where vLLM counts all of it, not its growth (V0 0.6.4, V1 before 0.9.1): the CUDA
// context, 0.35 GiB in the V0 0.6.4 "Memory profiling results" line of issue #10517 (RTX 3090, tp 1).
constexpr std::uint64_t kCudaContextBytes = 358ULL << 20;
// NCCL's growth at tp > 1 without NVLink SHARP (ReserveModel::framework_multi_gpu_plain_bytes).
constexpr std::uint64_t kPcieNcclBytes = ReserveModel{}.framework_multi_gpu_plain_bytes;
// Non-torch growth at tp 1 in V0 0.6.5+: 0.03 and 0.09 GiB in two V0 logs (RTX 4060, issue #13882;
// A100, datawhalechina/self-llm); their mean.
constexpr std::uint64_t kV0Tp1NonTorchBytes = 61ULL << 20;  // the fit's 13,300 B per vocab entry / 1,024 rows

// What the native top-k/top-p sampler keeps per row and vocabulary entry at its peak (V0's
// _apply_top_k_top_p, V1's apply_top_k_top_p: the profiling run samples with top_k = vocab - 1 and
// top_p < 1, so it sorts): the model-dtype logits (2 B), their fp32 copy (4), the sorted values (4)
// and their int64 indices (8), the top-k mask (1), the softmax of the sorted values (4) and its cumsum
// (4), the top-p mask (1), the inverse permutation (8, int64) and the logits gathered back (4).
constexpr std::uint64_t kSortingSamplerBytes = 40;

// V1's sorting sampler at its peak, per row and vocabulary entry (PyTorch's segmented sort for many rows,
// SortStable.cu, over CUB's segmented radix sort): the model-dtype logits (2 B), their fp32 copy (4), the sorted
// values (4), their int64 indices (8), the int64 index array the segmented sort allocates (8), and CUB's spare
// key and value buffers (4 + 8). With the hidden states still held (max_num_batched_tokens and 2 × rows of
// hidden, 16-bit), 5.55 GiB for Qwen3-30B-A3B at 1,024 rows, where vLLM 0.10.2 logged a 5.58 GiB peak.
constexpr std::uint64_t kV1SortBytes = 38;

// The profiling forward's share of the fitted peak (docs/budget.md): 445 MiB at 8,192 batched tokens, scaled.
std::uint64_t fitted_forward_bytes(std::uint64_t batched_tokens) {
  return mul_frac(ReserveModel{}.activation_base_bytes, batched_tokens, 8192);
}

// The profiling peak when V1's sampler sorts: the forward and the sampler run one after the other.
std::uint64_t v1_sorting_activation_bytes(const ModelSpec& m, std::uint64_t batched, std::uint64_t max_seqs,
                                          bool samples) {
  const std::uint64_t forward = fitted_forward_bytes(batched);
  if (!samples) {
    return forward;
  }
  const std::uint64_t rows = std::min(max_seqs, batched);
  const std::uint64_t hidden = sat_mul(sat_add(batched, 2 * rows), sat_mul(m.hidden_size, 2));
  return std::max(forward, sat_add(sat_mul(sat_mul(rows, m.vocab_size), kV1SortBytes), hidden));
}

// The vision encoder's part in V1's profiling run (GPUModelRunner.profile_run): N max-size dummy images go through
// the tower in one eager call, and their pixel values and encoder outputs stay allocated while the text model's
// dummy run and the sampler run, so the profiled peak is the larger of the tower's forward and the text run plus
// what it holds. N (MultiModalBudget, vllm/multimodal/encoder_budget.py) = max(1, min(B / T, max_num_seqs x
// max(1, max_model_len / T))), with T the tokens of one image and B = max(max_num_batched_tokens, T).
// The tower's forward, per patch, at its widest (a Qwen3-VL vision block; docs/engines.md): the residual stream,
// the norm's output, the attention projection's output and the position embeddings, whole on every rank (4 x
// hidden), beside either the attention's qkv, q and k made contiguous, q and k rotated and its output (8 x hidden)
// or the MLP's fc1 output and activation (2 x intermediate), both split over tp (vLLM's QKVParallelLinear,
// ColumnParallelLinear), and the pixel values, in the model's 16-bit dtype. An estimate from the block's code, not a
// measurement: docs/accuracy.md gives its error on the logs that show it.
struct EncoderProfile {
  std::uint64_t items = 0;    // N images
  std::uint64_t tokens = 0;   // T per image
  std::uint64_t forward = 0;  // the tower's forward at its peak, per GPU
  std::uint64_t held = 0;     // pixel values and outputs kept through the text model's run
};

std::optional<EncoderProfile> encoder_profile(const ModelSpec& m, std::uint32_t tp, std::uint64_t batched,
                                              std::uint64_t max_seqs, std::uint64_t max_model_len) {
  if (!m.vision_encoder || m.vision_encoder->tokens_per_item == 0) {
    return std::nullopt;
  }
  const VisionEncoder& v = *m.vision_encoder;
  EncoderProfile e;
  e.tokens = v.tokens_per_item;
  const std::uint64_t budget = std::max(batched, e.tokens);
  const std::uint64_t per_request = std::max<std::uint64_t>(1, max_model_len / e.tokens);
  e.items = std::max<std::uint64_t>(1, std::min(budget / e.tokens, sat_mul(max_seqs, per_request)));
  const std::uint64_t patches = sat_mul(sat_mul(e.items, e.tokens), v.patches_per_token);
  const std::uint64_t ranks = std::max<std::uint32_t>(tp, 1);
  const std::uint64_t whole = 4 * v.hidden;
  const std::uint64_t split = std::max(ceil_div(8 * v.hidden, ranks), ceil_div(2 * v.intermediate, ranks));
  e.forward = sat_mul(sat_mul(patches, 2), sat_add(sat_add(whole, split), v.patch_values));
  e.held = sat_add(sat_mul(sat_mul(patches, v.patch_values), 2),
                   sat_mul(sat_mul(sat_mul(e.items, e.tokens), v.output_width), 2));
  return e;
}

std::uint64_t activation_bytes(std::uint64_t vocab, std::uint64_t batched_tokens, std::uint64_t max_seqs,
                               bool samples, std::uint64_t bytes_per_vocab_row = kFittedBytesPerVocabRow) {
  const std::uint64_t forward = fitted_forward_bytes(batched_tokens);
  const std::uint64_t rows = samples ? std::min(max_seqs, batched_tokens) : 0;  // only the last PP stage samples
  return sat_add(forward, sat_mul(sat_mul(vocab, bytes_per_vocab_row), rows));
}

// vLLM's CUDA-graph sizes (vllm/config/vllm.py _set_cudagraph_sizes; CompilationConfig.cudagraph_capture_sizes):
// 1, 2, 4, then every 8 below 256 and every 16 from 256, up to max_cudagraph_capture_size = min(2 x
// max_num_seqs, 512), at most max_num_batched_tokens. PIECEWISE graphs are captured at every size; FULL ones
// (FULL_AND_PIECEWISE, the default) at the uniform-decode sizes, those up to max_num_seqs. The logs bear the
// counts out: 51 and 35 at 256 sequences, 51 and 51 at 1,024, 19 and 11 at 64 ("Profiling CUDA graph memory:
// PIECEWISE=19 (largest=128), FULL=11 (largest=64)", docs/budget.md).
struct GraphSizes {
  std::uint64_t piecewise = 0;
  std::uint64_t full = 0;
};

GraphSizes cuda_graph_sizes(std::uint64_t max_seqs, std::uint64_t batched) {
  const std::uint64_t largest = std::min({sat_mul(max_seqs, 2), std::uint64_t{512}, batched});
  GraphSizes g;
  auto count = [&](std::uint64_t size) {
    if (size <= largest) {
      ++g.piecewise;
      g.full += size <= max_seqs ? 1 : 0;
    }
  };
  for (const std::uint64_t size : {std::uint64_t{1}, std::uint64_t{2}, std::uint64_t{4}}) {
    count(size);
  }
  for (std::uint64_t size = 8; size < 256; size += 8) {
    count(size);
  }
  for (std::uint64_t size = 256; size <= 512; size += 16) {
    count(size);
  }
  return g;
}

// The estimate vLLM subtracts from 0.21 (gpu_model_runner.py profile_cudagraph_memory): it captures each
// mode's two largest sizes and counts the first capture once, then the second's growth of free memory
// once per further size of each mode. kvplan models that as a fixed first capture and a cost per layer
// and graph (each graph holds about one node group per layer): 32 MiB + 0.22 MiB x layers x ((PIECEWISE - 1)
// + (FULL - 1)), the median of nine logged estimates of dense and hybrid models (0.10 to 0.29 MiB per layer
// and graph; docs/budget.md).
constexpr std::uint64_t kGraphFirstCaptureBytes = 32ULL << 20;
constexpr std::uint64_t kGraphBytesPerLayerGraph = 230'686;  // 0.22 MiB

std::uint64_t cuda_graph_estimate_bytes(std::uint64_t layers, const GraphSizes& g) {
  const std::uint64_t graphs = (g.piecewise > 0 ? g.piecewise - 1 : 0) + (g.full > 0 ? g.full - 1 : 0);
  return sat_add(kGraphFirstCaptureBytes, sat_mul(sat_mul(layers, graphs), kGraphBytesPerLayerGraph));
}

// V0's profiling peak (model_runner.py profile_run): an eager forward of `batched` prompt tokens,
// whose widest moment is an MLP's (its live activations, plus the hidden state, the residual and the
// MLP's output: 3 x hidden), then the sampler over one row per sequence. The two do not overlap, so
// the peak is the larger. Activations are 16-bit.
std::uint64_t v0_activation_bytes(const ModelSpec& m, std::uint32_t tp, std::uint64_t batched, std::uint64_t rows,
                                  bool samples) {
  const std::uint64_t per_token = sat_add(ceil_div(m.mlp_activation_width, tp), 3ULL * m.hidden_size);
  const std::uint64_t forward = sat_mul(sat_mul(batched, per_token), 2);
  const std::uint64_t sampler = samples ? sat_mul(sat_mul(rows, m.vocab_size), kSortingSamplerBytes) : 0;
  return std::max(forward, sampler);
}

// "0.8.5", "v0.8.5.post1", "0.8.5rc1" -> 805 for minor 8; "0.8" -> 899, the minor's last release.
int release_of(int minor, std::string_view text) {
  if (!text.empty() && text.front() == 'v') {
    text.remove_prefix(1);
  }
  const std::size_t dot = text.find('.', 2);
  if (dot == std::string_view::npos) {
    return minor * 100 + 99;
  }
  std::size_t digits = dot + 1;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') {
    ++digits;
  }
  const auto patch = to_unsigned(text.substr(dot + 1, digits - dot - 1));
  return minor * 100 + static_cast<int>(std::min<std::uint64_t>(patch.value_or(99), 99));
}

// The catalog's Hopper parts whose torch device names contain "h100" or "h200" (0.7 to 0.8.4 gave
// them the large batch defaults by name: arg_utils.py _set_default_args_v1).
bool h100_or_h200(std::string_view gpu) { return gpu.rfind("H100", 0) == 0 || gpu.rfind("H200", 0) == 0; }

// GPUs of compute capability 9.0, where FlashAttention 3 takes an fp8 KV cache
// (vllm/attention/utils/fa_utils.py flash_attn_supports_fp8).
bool hopper(const GpuArch& a) { return a.vendor == GpuVendor::nvidia && a.compute_capability == 90; }

// GPUs below compute capability 8.0 (Turing, Volta), which V1 did not run before 0.10.2
// (_is_v1_supported_oracle: current_platform.get_device_capability().major < 8).
bool below_sm80(const GpuArch& a) { return a.vendor == GpuVendor::nvidia && a.compute_capability < 80; }

// vLLM's MXFP4 MoE method allocates each layer's routed experts at the shapes its kernel needs
// (quantization/mxfp4.py Mxfp4MoEMethod.create_weights, v0.10.1.1 to v0.18; from v0.19
// fused_moe/oracle/mxfp4.py mxfp4_round_up_hidden_size_and_intermediate_size, unchanged at main
// 001eda31): the intermediate size per rank and the hidden size rounded up, by backend.
struct Mxfp4Padding {
  std::uint64_t intermediate = 1;
  std::uint64_t hidden = 1;
  std::string_view backend;
  // triton_kernels on Hopper (process_weights_after_loading's TRITON branch): the biases become fp32, and
  // _swizzle_mxfp4 writes each scale tensor again in HopperMXScaleLayout (rows padded to 2 x num_warps x 2 x 8
  // = 256 with 8 warps, columns to 2) while layer.w13_weight_scale and w2_weight_scale stay registered: the
  // weights are replaced (del layer.w13_weight), the scales are held twice.
  bool hopper_swizzle = false;
};

// The backend: --moe-backend as map_mxfp4_backend reads it, VLLM_MXFP4_USE_MARLIN=1, else by the GPU
// (get_mxfp4_backend; select_mxfp4_moe_backend from v0.19). On Hopper the triton_kernels path needs
// the triton_kernels package, which vLLM installs only from 0.11.1 (#27370, merged 2025-10-22): before
// it Hopper runs Marlin (the 0.10.1 H100 log of issue #23278 warns "leveraging the Marlin kernel" and
// loads Marlin's 65.97 GiB), after it Triton (0.14.1, issue #33155: "Using Triton backend").
// nullopt: no GPU architecture to go by.
std::optional<Mxfp4Padding> mxfp4_padding(const GpuArch& a, const KnobSet& s, int release) {
  const KnobValue* named = s.find(moe_backend);
  const std::string name = named != nullptr ? std::get<std::string>(*named) : "auto";
  if (name == "marlin" || (name == "auto" && s.flag(mxfp4_use_marlin) == true)) {
    return Mxfp4Padding{128, 256, "Marlin"};  // "n % 256 == 0 and k % 128 == 0"
  }
  if (name == "triton") {
    return Mxfp4Padding{64, 1, "Triton", a.vendor == GpuVendor::nvidia && a.compute_capability == 90};
  }
  if (name == "flashinfer_trtllm" || name == "flashinfer_trtllm_afp8") {
    return Mxfp4Padding{256, 256, "FlashInfer TRT-LLM"};
  }
  if (name == "flashinfer_cutlass" || name == "flashinfer_cutlass_afp8") {
    return Mxfp4Padding{128, 128, "FlashInfer CUTLASS"};
  }
  if (name == "ck") {
    return Mxfp4Padding{256, 256, "ROCm CK"};
  }
  if (name == "xpu") {
    return Mxfp4Padding{128, 128, "XPU"};
  }
  if (name != "auto") {
    throw Error(fmt::format("--moe-backend {}: moe_backend='{}' is not supported for MXFP4 MoE (vLLM's "
                            "map_mxfp4_backend); use auto, marlin, triton, flashinfer_trtllm, flashinfer_cutlass, ck "
                            "or xpu",
                            name, name));
  }
  if (a.vendor == GpuVendor::amd) {
    // ROCm: mxfp4_utils.get_padding_alignment, 256 on gfx950 (MI355X), 128 elsewhere.
    const std::uint64_t align = a.target == "gfx950" ? 256 : 128;
    return Mxfp4Padding{align, align, "ROCm Triton"};
  }
  if (a.vendor != GpuVendor::nvidia) {
    return std::nullopt;
  }
  if (a.compute_capability == 100 || a.compute_capability == 103) {
    return Mxfp4Padding{256, 256, "FlashInfer TRT-LLM"};  // SM100_FI_MXFP4_BF16, FlashInfer installed
  }
  if (a.compute_capability == 90 && release >= kTritonKernelsBundledSince) {
    return Mxfp4Padding{64, 1, "Triton", true};  // "(9, 0) <= capability < (11, 0)"
  }
  return Mxfp4Padding{128, 256, "Marlin"};
}

// The cos/sin tables vLLM's get_rope builds, one per distinct rope (its _ROPE_DICT cache, shared by every
// layer), registered as buffers in the model dtype while the model is built, so "Model loading took"
// counts them beside the weights, on every rank (rotary_embedding/base.py RotaryEmbedding: cache.to(dtype),
// [positions, rotary_dim]). Positions by type: max_position_embeddings (default; llama3,
// Llama3RotaryEmbedding), 4 × that where mrope_section is given (mrope.py MRotaryEmbedding:
// cache_max_position_num = max_position_embeddings * 4), × the factor (linear:
// LinearScalingRotaryEmbedding; dynamic: DynamicNTKScalingRotaryEmbedding), original_max_position_embeddings
// × the factor (yarn: YaRNScalingRotaryEmbedding). Other types are not described: 0. Llama-3.1-8B's
// 131,072 × 128 × 2 B = 32 MiB is what its logs hold beyond its parameters (14.99 GiB, 14.96 of them).
std::uint64_t rope_cache_bytes(const ModelSpec& m) {
  std::uint64_t total = 0;
  for (const Rope& r : m.ropes) {
    std::uint64_t positions = 0;
    if (r.type == "default" || r.type == "llama3") {
      positions = r.max_position;
    } else if (r.type == "mrope") {
      positions = 4 * r.max_position;
    } else if (r.type == "linear" || r.type == "dynamic") {
      positions = static_cast<std::uint64_t>(static_cast<double>(r.max_position) * r.factor);  // Python's int()
    } else if (r.type == "yarn" && r.original_max_position > 0) {
      positions = static_cast<std::uint64_t>(static_cast<double>(r.original_max_position) * r.factor);
    }
    total = sat_add(total, sat_mul(sat_mul(positions, r.rotary_dim), 2));
  }
  return total;
}

// The routed experts' bytes on one GPU as vLLM's MXFP4 method allocates them: per layer and local
// expert, w13 [2 x I, H / 2] and w2 [H, I / 2] uint8 (two fp4 values a byte), their e8m0 scales
// [2 x I, H / 32] and [H, I / 32], and the bf16 biases w13_bias [2 x I] and w2_bias [H], the last
// whole on every rank (I: the padded intermediate size per rank, H: the padded hidden size).
// `local_experts` and `intermediate` are one rank's before padding; nullopt where vLLM does not pad
// (not MXFP4 experts, no GPU architecture, the weights' size stated).
struct PaddedExperts {
  std::uint64_t bytes = 0;
  std::string_view backend;
};

std::optional<PaddedExperts> mxfp4_expert_bytes(const ModelSpec& m, const EngineInputs& in, int release,
                                                std::uint64_t local_experts, std::uint64_t intermediate) {
  if (in.weights.experts.name != "mxfp4" || m.routed_experts == 0 || m.expert_ffn == 0 || m.hidden_size == 0 ||
      m.expert_matrices != 3 || m.params.stated_bytes > 0 || m.params.experts == 0) {
    return std::nullopt;
  }
  const std::optional<Mxfp4Padding> pad = mxfp4_padding(in.gpu_arch, *in.knobs, release);
  if (!pad) {
    return std::nullopt;
  }
  const std::uint64_t h = m.hidden_size;
  const std::uint64_t per_layer =
      sat_mul(m.routed_experts, sat_add(sat_mul(3 * h, m.expert_ffn), m.expert_biases ? 2 * m.expert_ffn + h : 0));
  const std::uint64_t layers = (m.params.experts + per_layer / 2) / per_layer;  // this stage's MoE layers
  const std::uint64_t i = round_up(intermediate, pad->intermediate);
  const std::uint64_t hp = round_up(h, pad->hidden);
  const std::uint64_t bias_bytes = pad->hopper_swizzle ? 4 : 2;
  std::uint64_t w13 = sat_add(sat_mul(2 * i, hp / 2 + hp / 32), 2 * i * bias_bytes);
  std::uint64_t w2 = sat_add(sat_mul(hp, i / 2 + i / 32), hp * bias_bytes);
  if (pad->hopper_swizzle) {
    w13 = sat_add(w13, sat_mul(round_up(2 * i, 256), round_up(hp / 32, 2)));  // the swizzled copies of the scales
    w2 = sat_add(w2, sat_mul(round_up(hp, 256), round_up(i / 32, 2)));
  }
  return PaddedExperts{sat_mul(sat_mul(layers, local_experts), sat_add(w13, w2)), pad->backend};
}

// How torch names those GPUs and their compute capability, for vLLM's own messages.
std::pair<std::string, std::string> torch_device(const EngineInputs& in) {
  const std::string device = in.gpu_name == "T4"                  ? "Tesla T4"
                             : in.gpu_name.rfind("V100", 0) == 0 ? "Tesla V100"
                                                                   : std::string(in.gpu_name);
  return {device, fmt::format("{}.{}", in.gpu_arch.compute_capability / 10, in.gpu_arch.compute_capability % 10)};
}

// vLLM 0.9+ loads a bf16 checkpoint as fp16 where the GPU has no bf16 (config/model.py
// _resolve_auto_dtype, PR #17265); the same bytes, and the warning it logs.
void note_bf16_fallback(const EngineInputs& in, EnginePrediction& p) {
  if (in.text && below_sm80(in.gpu_arch) && in.weights.embeddings.name == "bf16") {
    const auto [device, capability] = torch_device(in);
    p.log_lines.push_back(fmt::format("Your device '{}' (with compute capability {}) doesn't support torch.bfloat16. "
                                      "Falling back to torch.float16 for compatibility.",
                                      device, capability));
  }
}

// Why vLLM 0.8 to 0.10 runs the V0 engine for these settings (_is_v1_supported_oracle, at the
// releases docs/engines.md names), or nullopt when it runs V1.
std::optional<std::string> v0_fallback(const EngineInputs& in, int release) {
  const KnobSet& s = *in.knobs;
  if (s.flag(use_v1) == false) {
    return std::string("VLLM_USE_V1=0");
  }
  if (in.pipeline_parallel > 1 && release < kV1PipelineSince) {
    return std::string("pipeline parallelism is experimental on V1 before 0.8.3");
  }
  if (in.pipeline_parallel > 1 && release < kV1PipelineAnyBackendSince) {
    // ParallelConfig picks ray itself when the world outgrows one machine (a multi-node server).
    const KnobValue* backend = s.find(distributed_executor_backend);
    const bool ray = backend != nullptr ? std::get<std::string>(*backend) == "ray" : in.nodes > 1;
    if (!ray) {
      return std::string("pipeline parallelism runs on V1 only with --distributed-executor-backend ray in 0.8.3 to 0.8.5");
    }
  }
  if (in.kv_dtype.block_bytes < 2 * in.kv_dtype.block_elems && release < kV1Fp8KvSince) {
    return std::string("an fp8 KV cache is not supported by V1 before 0.8.2");
  }
  if (in.kv_dtype.block_bytes < 2 * in.kv_dtype.block_elems && release < kV1Fp8KvAnyGpuSince && !hopper(in.gpu_arch)) {
    return std::string("an fp8 KV cache runs on V1 only where FlashAttention 3 takes it (Hopper) before 0.10");
  }
  if (below_sm80(in.gpu_arch) && release < kV1BelowSm80Since) {
    return fmt::format("the {} is below compute capability 8.0, which V1 runs from 0.10.2", in.gpu_name);
  }
  // V1_UNSUPPORTED_QUANT: model_config.quantization, the --quantization flag or the checkpoint's
  // quant_method ("gguf" for a .gguf file).
  if (in.model->quant_method == "bitsandbytes" && release < kV1BitsAndBytesSince) {
    return std::string("bitsandbytes quantization runs on V1 from 0.8.3");
  }
  if (in.model->quant_method == "gguf" && release < kV1GgufSince) {
    return std::string("a GGUF checkpoint runs on V1 from 0.9.0.1");
  }
  if (s.number(cpu_offload_gb).value_or(0) > 0 && release < kV1CpuOffloadSince) {
    return std::string("--cpu-offload-gb is not supported by V1 before 0.8.3");
  }
  return std::nullopt;
}

struct Layout {
  std::uint64_t block_size = 16;
  std::uint64_t page_bytes = 0;        // one block of one layer, per rank
  std::uint64_t group_size = 0;        // layers per group (tensors shared across groups)
  std::vector<LayerType> group_kinds;  // one entry per KV cache group
  // Per group, its block size in tokens: vLLM gives attention layers whose page is smaller than the largest a block
  // size that many times larger (unify_kv_cache_spec_page_size), so one block of any group holds the same bytes.
  std::vector<std::uint64_t> group_block;
  std::string note;
  // Mamba states one request holds per recurrent group (mamba_cache_mode): 1 ("none"), 2 ("align"), or
  // 0 for one per block of its tokens ("all"; prefix caching on Mamba-2 models).
  std::uint64_t states_per_request = 1;
};

Layout layout(const std::vector<LayerType>& types, std::uint64_t block) {
  Layout l;
  l.block_size = block;
  std::uint64_t attention_ppt = 0;
  std::uint64_t state = 0;
  for (const LayerType& t : types) {
    if (t.kind == LayerType::Kind::recurrent) {
      state = std::max(state, t.state_bytes);
    } else {
      attention_ppt = std::max(attention_ppt, t.bytes_per_token);
    }
  }
  if (state > 0 && attention_ppt > 0 && block * attention_ppt < state) {
    // _align_hybrid_block_size: raise the attention block until its page holds a Mamba state.
    const std::uint64_t align = std::max<std::uint64_t>(16, block);
    l.block_size = align * ceil_div(state, align * attention_ppt);
    l.note = fmt::format("Setting attention block size to {} tokens to ensure that attention page size is >= mamba "
                         "page size.",
                         l.block_size);
  }
  l.page_bytes = attention_ppt > 0 ? l.block_size * attention_ppt : state;
  // unify_kv_cache_spec_page_size (vllm/v1/core/kv_cache_utils.py): an attention layer of a smaller page gets
  // block_size x (largest page / its page) tokens per block, where the largest is a whole multiple of it (vLLM
  // refuses the model otherwise; kvplan then keeps the common block size).
  const auto block_of = [&](const LayerType& t) {
    if (t.kind == LayerType::Kind::recurrent || t.bytes_per_token == 0 || t.bytes_per_token >= attention_ppt ||
        attention_ppt % t.bytes_per_token != 0) {
      return l.block_size;
    }
    return sat_mul(l.block_size, attention_ppt / t.bytes_per_token);
  };
  if (types.size() == 1) {
    l.group_size = types.front().layers;
    l.group_kinds = types;
    l.group_block = {l.block_size};
    return l;
  }
  // _get_kv_cache_groups_uniform_page_size: group_size = min layers per type, or the max when
  // max < 1.5 * min; each type is split into cdiv(n, group_size) groups (padding layers fill gaps).
  std::uint64_t lo = kSaturated;
  std::uint64_t hi = 0;
  for (const LayerType& t : types) {
    lo = std::min<std::uint64_t>(lo, t.layers);
    hi = std::max<std::uint64_t>(hi, t.layers);
  }
  l.group_size = 2 * hi < 3 * lo ? hi : lo;
  for (const LayerType& t : types) {
    for (std::uint64_t g = 0; g < ceil_div(t.layers, l.group_size); ++g) {
      l.group_kinds.push_back(t);
      l.group_block.push_back(block_of(t));
    }
  }
  return l;
}

// kv_cache_interface.py max_memory_usage_bytes, in blocks, for one request of `len` tokens.
// Decode context parallelism (dcp > 1) gives each rank cdiv(len, dcp) of a request's tokens
// (FullAttentionSpec.max_memory_usage_bytes); Mamba state stays whole on every rank.
std::uint64_t blocks_per_request(const Layout& l, std::uint64_t len, std::uint64_t batched_tokens, std::uint64_t dcp) {
  std::uint64_t blocks = 0;
  for (std::size_t i = 0; i < l.group_kinds.size(); ++i) {
    const LayerType& g = l.group_kinds[i];
    const std::uint64_t block = i < l.group_block.size() ? l.group_block[i] : l.block_size;
    switch (g.kind) {
      case LayerType::Kind::full:
        blocks += ceil_div(ceil_div(len, dcp), block);
        break;
      case LayerType::Kind::sliding:  // SlidingWindowSpec: the window may not start at a block edge
        blocks += ceil_div(std::min(g.window - 1 + batched_tokens, len), block) + 1;
        break;
      case LayerType::Kind::recurrent:  // MambaSpec.max_memory_usage_bytes, by mamba_cache_mode
        blocks += l.states_per_request == 0 ? ceil_div(len, block) : l.states_per_request;
        break;
      case LayerType::Kind::chunked:  // ChunkedLocalAttentionSpec: the current chunk plus the tokens in flight
        blocks += ceil_div(std::min(g.window + batched_tokens, len), block) + 1;
        break;
      case LayerType::Kind::encoder:  // CrossAttentionSpec: the encoder's tokens, once per request
        blocks += ceil_div(g.window, block);
        break;
    }
  }
  return blocks;
}

// The largest length whose blocks fit in `num_blocks` (estimate_max_model_len's bisection).
std::uint64_t longest_fitting(const Layout& l, std::uint64_t upper, std::uint64_t batched, std::uint64_t dcp,
                              std::uint64_t num_blocks) {
  std::uint64_t lo = 0;
  std::uint64_t hi = upper;
  while (hi - lo > 1) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    (blocks_per_request(l, mid, batched, dcp) <= num_blocks ? lo : hi) = mid;
  }
  return lo;
}

// MambaModelConfig.verify_and_update_config: with prefix caching, a model that implements
// SupportsMambaPrefixCaching (the Mamba-2 family: mamba, mamba2, jamba, falcon_h1, granitemoehybrid,
// nemotron_h, zamba2) keeps a state per block ("all"), the others (Gated DeltaNet, KDA, short
// convolution) the current and the previous one ("align"); without it, one ("none").
void mamba_states(Layout& l, const std::vector<LayerType>& types, const KnobSet& s, int minor,
                  std::vector<std::string>* notes) {
  const auto recurrent = std::find_if(types.begin(), types.end(),
                                      [](const LayerType& t) { return t.kind == LayerType::Kind::recurrent; });
  if (recurrent == types.end()) {
    return;
  }
  const bool mamba2 = recurrent->recurrence == RecurrentState::Kind::mamba;
  const bool prefix = s.flag(enable_prefix_caching).value_or(minor >= kHybridPrefixCachingSince);
  std::string mode = "none";
  if (const KnobValue* given = s.find(mamba_cache_mode); given != nullptr) {
    if (minor < kMambaAlignSince) {
      throw Error("vLLM: --mamba-cache-mode is a flag of v0.15 and later (#30877); drop it, or plan a later version");
    }
    mode = std::get<std::string>(*given);
  } else if (prefix && minor >= kMambaAlignSince) {
    mode = mamba2 && minor < kHybridPrefixCachingSince ? "all" : "align";
  } else if (prefix && mamba2 && minor >= kMambaPrefixCachingSince) {
    mode = "all";  // #25752: cdiv(max_model_len, block_size) states, GDN models had prefix caching turned off
  }
  l.states_per_request = mode == "align" ? 2 : mode == "all" ? 0 : 1;
  if (notes == nullptr) {
    return;
  }
  if (mode == "all") {
    notes->push_back("mamba_cache_mode all: a Mamba state per block of each request's tokens; vLLM also aligns "
                    "the block size to the model's chunk size, which kvplan does not model");
  } else if (mode == "align") {
    notes->push_back("mamba_cache_mode align (prefix caching on a hybrid model): 2 Mamba states per request");
  }
}

// "v0.19.0", "0.19", "0.19.1rc1" -> 19, for 0.6 .. 0.30.
std::optional<int> minor_of_zero(std::string_view text, int lo, int hi) {
  if (!text.empty() && text.front() == 'v') {
    text.remove_prefix(1);
  }
  if (text.rfind("0.", 0) != 0) {
    return std::nullopt;
  }
  text.remove_prefix(2);
  std::size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') {
    ++digits;
  }
  const auto v = to_unsigned(text.substr(0, digits));
  if (!v || *v < static_cast<std::uint64_t>(lo) || *v > static_cast<std::uint64_t>(hi)) {
    return std::nullopt;
  }
  return static_cast<int>(*v);
}


// vllm/config/model.py _get_and_verify_max_len: a max_model_len beyond the model's is refused at
// start-up, before any GPU work, unless VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 (every release kvplan models).
bool refuse_long_max_model_len(const EngineInputs& in, EnginePrediction& p) {
  const ModelSpec& m = *in.model;
  if (in.max_model_len <= m.max_position_embeddings || m.max_position_embeddings == 0 ||
      in.knobs->flag(allow_long_max_model_len).value_or(false)) {
    return false;
  }
  p.startup = Startup::refused;
  p.refusal = fmt::format("User-specified max_model_len ({}) is greater than the derived max_model_len "
                          "(max_position_embeddings={}); set VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 to override it",
                          in.max_model_len, m.max_position_embeddings);
  return true;
}

// The V0 engine (vllm/worker/worker.py determine_num_available_blocks, vllm/worker/model_runner.py
// profile_run, vllm/worker/cache_engine.py get_cache_block_size, vllm/config.py SchedulerConfig):
// every attention layer holds every token in blocks of block_size; the budget is total x
// utilization less the weights, the profiling peak and non-torch memory. `why` says why 0.8 to 0.10
// fall back to it (empty before 0.8, where V0 is the engine).
EnginePrediction predict_v0(const EngineInputs& in, int release, const std::string& why) {
  const ModelSpec& m = *in.model;
  const KnobSet& s = *in.knobs;
  EnginePrediction p;
  const std::string engine = fmt::format("vLLM {} (V0 engine{})", in.version_text, why.empty() ? "" : ": " + why);
  const std::vector<LayerType> types = engines::layer_types(m, in.kv_dtype, in.tensor_parallel);
  std::uint64_t bytes_per_token = 0;  // one token in every layer of this rank
  bool sliding = false;
  bool latent = false;
  bool expanded = false;  // MLA cached as per-head K and V (before 0.7.1)
  for (const LayerType& t : types) {
    switch (t.kind) {
      case LayerType::Kind::full:
        latent = latent || t.latent;
        if (t.latent && release < kV0LatentCacheSince) {
          // deepseek_v2.py before MLA: Attention(num_local_heads, head size, num_kv_heads=num_local_heads) with
          // K and V padded to 256 per head (0.6.x), to qk_head_dim = nope + rope from 0.7.0.
          const std::uint64_t width = release < kV0QkHeadDimSince ? 256 : m.dense_attention.head_dim;
          const std::uint64_t heads = ceil_div(m.num_attention_heads, in.tensor_parallel);
          bytes_per_token = sat_add(bytes_per_token, ceil_div(sat_mul(sat_mul(2ULL * t.layers, heads),
                                                                      sat_mul(width, in.kv_dtype.block_bytes)),
                                                              in.kv_dtype.block_elems));
          expanded = true;
          continue;
        }
        break;
      case LayerType::Kind::sliding:
        sliding = true;
        break;
      case LayerType::Kind::recurrent:
        throw Error(fmt::format("{}: kvplan does not model V0's Mamba cache (a state per max_num_seqs slot beside "
                                "the KV blocks); plan this model with vLLM 0.10 or later",
                                engine));
      case LayerType::Kind::chunked:
        throw Error(fmt::format("{}: kvplan does not model chunked-local attention (attention_chunk_size) on V0; "
                                "plan this model with vLLM 0.10 or later",
                                engine));
      case LayerType::Kind::encoder:
        throw Error(fmt::format("{}: kvplan does not model V0's cross-attention blocks (encoder-decoder models); "
                                "plan this model with vLLM 0.10 or later",
                                engine));
    }
    bytes_per_token = sat_add(bytes_per_token, sat_mul(t.bytes_per_token, t.layers));
  }
  p.max_model_len = in.max_model_len;
  if (refuse_long_max_model_len(in, p)) {
    return p;
  }
  // SchedulerConfig and _set_default_args_v0: chunked prefill turns itself on past 32K tokens, for
  // models without sliding windows or MLA; on, a step holds 512 tokens (2,048 from 0.6.5); off, a
  // whole prompt: max(max_model_len, 2048).
  const bool chunked = s.flag(enable_chunked_prefill)
                           .value_or(in.max_model_len > 32'768 && !sliding && !(latent && release >= kV0LatentCacheSince));
  const std::uint64_t batched = s.number(max_num_batched_tokens)
                                    .value_or(chunked ? (release < kV0ChunkOf2048Since ? 512 : 2048)
                                                      : std::max<std::uint64_t>(in.max_model_len, 2048));
  const std::uint64_t max_seqs = s.number(max_num_seqs).value_or(256);
  const std::uint64_t rows = std::min(max_seqs, batched);
  const std::uint64_t block = s.number(block_size).value_or(16);
  p.concurrency_cap = max_seqs;
  p.block_tokens = block;
  const std::uint64_t offloaded = s.number(cpu_offload_gb).value_or(0);
  const std::uint64_t weights =
      sat_add(sat_sub(weight_bytes_per_gpu(m.params, in.weights, in.tensor_parallel), offloaded), rope_cache_bytes(m));
  p.weights_bytes = weights;
  std::uint64_t available = 0;
  std::uint32_t util = 900'000;  // EngineArgs.gpu_memory_utilization = 0.90 in every V0 release
  std::uint64_t activations = 0;
  std::uint64_t non_torch = 0;
  if (const auto given = s.number(kv_cache_memory_bytes)) {
    available = *given;  // the KV memory as measured: kvplan's figure (V0 has no such flag)
    p.usable_bytes = in.gpu_memory_bytes;
  } else {
    util = static_cast<std::uint32_t>(s.number(gpu_memory_utilization).value_or(900'000));
    const std::uint64_t usable = mul_frac(in.gpu_memory_bytes, util, 1'000'000);
    p.usable_bytes = usable;
    p.fraction_ppm = util;
    activations = s.number(activation_memory)
                      .value_or(v0_activation_bytes(m, in.tensor_parallel, batched, rows, in.last_stage));
    // 0.6.4 counted all non-torch memory (the CUDA context too); the others, its growth.
    non_torch = s.number(non_torch_memory)
                    .value_or(release / 100 == 6 && release % 100 == 4
                                  ? sat_add(kCudaContextBytes, in.tensor_parallel > 1 ? kPcieNcclBytes : 0)
                              : in.tensor_parallel > 1 ? kPcieNcclBytes
                                                       : kV0Tp1NonTorchBytes);
    available = sat_sub(usable, sat_add(weights, sat_add(activations, non_torch)));
    p.reserved_bytes = sat_add(activations, non_torch);
  }
  p.kv_budget_bytes = available;
  const std::uint64_t block_bytes = sat_mul(block, bytes_per_token);
  const std::uint64_t usable_kv = engines::with_margin(available, in.kv_margin_ppm);
  std::uint64_t num_blocks = block_bytes == 0 ? 0 : usable_kv / block_bytes;
  if (const auto forced = s.number(num_gpu_blocks_override)) {
    num_blocks = sat_mul(*forced, block_bytes) > usable_kv ? 0 : *forced;
  }
  const std::uint64_t cpu_blocks = block_bytes == 0 ? 0 : (4ULL << 30) / block_bytes;  // swap_space 4 GiB
  // Pipeline parallelism: a worker's blocks are split over one CacheEngine per virtual engine
  // (CacheEngine.__init__: num_gpu_blocks //= pipeline_parallel_size; the Scheduler likewise), and a request
  // lives in one of them, so raise_if_cache_size_invalid checks block_size × (num_gpu_blocks // pp).
  const std::uint64_t engines = std::max<std::uint32_t>(in.pipeline_parallel, 1);
  const std::uint64_t per_engine = num_blocks / engines;
  const std::uint64_t max_tokens = sat_mul(per_engine, block);
  if (num_blocks == 0) {
    p.startup = Startup::no_kv_memory;
  } else if (in.max_model_len > max_tokens) {
    // raise_if_cache_size_invalid: max_model_len against block_size x num_gpu_blocks.
    p.startup = Startup::too_long;
    p.startup_needed_bytes = sat_mul(ceil_div(in.max_model_len, block), block_bytes);
    p.startup_max_len = max_tokens;
  }
  const auto per_request = [&](std::uint64_t len) { return ceil_div(std::max<std::uint64_t>(len, 1), block); };
  p.capacity_at_shape = engines * (per_engine / per_request(in.shape_seq_len));
  for (std::uint64_t len : in.frontier_lengths) {
    if (len <= p.max_model_len) {
      p.frontier.emplace_back(len, engines * (per_engine / per_request(len)));
    }
  }
  if (!in.text) {
    return p;
  }
  // executor_base.initialize_cache: num_gpu_blocks × block_size / max_model_len, over all virtual engines.
  const std::uint64_t total_tokens = sat_mul(num_blocks, block);
  const double concurrency =
      static_cast<double>(total_tokens) / static_cast<double>(std::max<std::uint64_t>(in.max_model_len, 1));
  p.budget = {
      {"total_gpu_memory_bytes", "Total GPU memory", Cell::bytes(in.gpu_memory_bytes), "cudaMemGetInfo total"},
      {"gpu_memory_utilization", "gpu_memory_utilization", Cell::number(static_cast<double>(util) / 1e6),
       s.has(gpu_memory_utilization) ? "--gpu-memory-utilization" : "default in V0"},
      {"weights_bytes", "− Model weights", Cell::bytes(weights), "\"Loading model weights took\""},
      {"activation_peak_bytes", "− PyTorch activation peak", Cell::bytes(activations),
       s.has(activation_memory) ? std::string("--activation-memory")
                                : fmt::format("eager forward of {} tokens or the sorting sampler over {} rows, the larger",
                                              with_commas(batched), with_commas(rows))},
      {"non_torch_bytes", "− Non-torch memory", Cell::bytes(non_torch),
       release / 100 == 6 && release % 100 == 4 ? "all non-torch memory in 0.6.4: the CUDA context too"
       : in.tensor_parallel > 1                 ? "its growth while profiling: NCCL"
                                                : "its growth while profiling"},
      {"available_kv_cache_bytes", "= KV cache", Cell::bytes(available),
       s.has(kv_cache_memory_bytes) ? "given (--kv-cache-memory)" : ""},
  };
  p.fields = {
      {"engine_generation", "Generation", Cell::str("V0"), why.empty() ? "vLLM before 0.8" : why},
      {"available_kv_cache_bytes", "KV cache memory", Cell::bytes(available), ""},
      {"num_gpu_blocks", "GPU blocks", Cell::count(num_blocks),
       fmt::format("{} B per block: {} tokens × {} B per token", with_commas(block_bytes), block,
                   with_commas(bytes_per_token))},
      {"num_cpu_blocks", "CPU blocks", Cell::count(cpu_blocks), "swap_space 4 GiB"},
      {"block_size", "Block size", Cell::tokens(block), "tokens"},
      {"gpu_kv_cache_tokens", "KV cache tokens", Cell::tokens(total_tokens), "GPU blocks × block size"},
      {"max_concurrency", "Maximum concurrency", Cell::number(concurrency),
       fmt::format("{} tokens / {}-token requests", with_commas(total_tokens), with_commas(in.max_model_len))},
      {"max_model_len", "max_model_len", Cell::tokens(in.max_model_len), ""},
      {"max_num_batched_tokens", "max_num_batched_tokens", Cell::tokens(batched),
       s.has(max_num_batched_tokens) ? "--max-num-batched-tokens"
       : chunked                     ? "chunked prefill"
                                     : "max(max_model_len, 2048): chunked prefill off"},
      {"max_num_seqs", "max_num_seqs", Cell::count(max_seqs), s.has(max_num_seqs) ? "--max-num-seqs" : "default"},
  };
  if (engines > 1) {
    p.fields.push_back({"tokens_per_virtual_engine", "Tokens per virtual engine", Cell::tokens(max_tokens),
                        fmt::format("GPU blocks // pipeline_parallel_size {} × block size: one request's most", engines)});
  }
  if (!s.has(kv_cache_memory_bytes) && release >= kV0ChunkOf2048Since) {
    p.log_lines.push_back(fmt::format(
        "the current vLLM instance can use total_gpu_memory ({} GiB) x gpu_memory_utilization ({:.2f}) = {} GiB",
        engines::gib(in.gpu_memory_bytes), static_cast<double>(util) / 1e6, engines::gib(p.usable_bytes)));
    p.log_lines.push_back(fmt::format("model weights take {}GiB; non_torch_memory takes {}GiB; PyTorch activation peak "
                                      "memory takes {}GiB; the rest of the memory reserved for KV Cache is {}GiB.",
                                      engines::gib(weights), engines::gib(non_torch), engines::gib(activations),
                                      engines::gib(available)));
  }
  // executor's initialize_cache: "# GPU blocks" (0.6), "# CUDA blocks" (0.7.0-0.7.2), "# cuda blocks" (0.7.3+).
  const std::string_view device = release < 700 ? "GPU" : release < 703 ? "CUDA" : "cuda";
  p.log_lines.push_back(fmt::format("# {} blocks: {}, # CPU blocks: {}", device, num_blocks, cpu_blocks));
  if (release >= 603) {
    p.log_lines.push_back(
        fmt::format("Maximum concurrency for {} tokens per request: {:.2f}x", in.max_model_len, concurrency));
  }
  if (p.startup == Startup::no_kv_memory) {
    p.log_lines.push_back("ValueError: No available memory for the cache blocks. Try increasing "
                          "`gpu_memory_utilization` when initializing the engine.");
  } else if (p.startup == Startup::too_long) {
    p.log_lines.push_back(fmt::format("ValueError: The model's max seq len ({}) is larger than the maximum number of "
                                      "tokens that can be stored in KV cache ({}). Try increasing "
                                      "`gpu_memory_utilization` or decreasing `max_model_len` when initializing the "
                                      "engine.",
                                      in.max_model_len, max_tokens));
  }
  note_bf16_fallback(in, p);
  if (expanded) {
    std::uint64_t latent_elements = 0;
    for (const LayerGroup& g : m.layers) {
      if (const auto* l = std::get_if<LatentAttention>(&g.spec)) {
        latent_elements = std::uint64_t{l->kv_lora_rank} + l->qk_rope_head_dim;
      }
    }
    p.notes.push_back(fmt::format("vLLM {} caches MLA expanded, as multi-head K and V: {} heads × {} elements each per "
                                  "layer, not the {}-element latent it caches from 0.7.1 (deepseek_v2.py).",
                                  in.version_text, m.num_attention_heads,
                                  release < kV0QkHeadDimSince ? std::string("256 (padded)")
                                                              : std::to_string(m.dense_attention.head_dim),
                                  latent_elements));
  }
  p.notes.push_back(fmt::format("{}: every attention layer keeps every token of a request in its blocks{}; the "
                                "profiling peak is modelled from its causes (docs/engines.md, \"vLLM by version\").",
                                engine, sliding ? " (V0 allocates sliding-window layers in full too)" : ""));
  return p;
}

constexpr std::string_view kFlagSource =
    "vLLM v0.19.0: vllm/engine/arg_utils.py EngineArgs.add_cli_args, vllm/entrypoints/openai/cli_args.py";

class Vllm final : public Engine {
 public:
  std::string_view name() const override { return "vllm"; }
  std::string_view display() const override { return "vLLM"; }
  std::string_view default_version() const override { return "0.19"; }
  std::string_view versions_help() const override { return "0.6 to 0.30"; }
  std::optional<int> parse_version(std::string_view t) const override {
    return minor_of_zero(t, kOldestMinor, 30);
  }
  Capabilities capabilities() const override {
    Capabilities c;
    c.context = ContextParallel::decode_in_tp;
    c.context_with_sliding_window = false;  // kv_cache_interface.py asserts DCP off for SWA
    c.margin_ppm = 30'000;                  // available KV memory within 3% (docs/accuracy.md)
    c.abbreviations = true;                 // argparse's allow_abbrev is left on (FlexibleArgumentParser)
    return c;
  }
  // vllm/utils/argparse_utils.py FlexibleArgumentParser.parse_args: --snake_case becomes --kebab-case up to
  // the first '.', --compilation-config.mode X is a key of --compilation-config, -O3 is --optimization-level 3.
  std::string normalize_flag(std::string_view flag) const override {
    if (flag.size() > 2 && flag.rfind("-O", 0) == 0 && flag[2] != '-') {
      std::string_view level = flag.substr(2);
      if (!level.empty() && level.front() == '=') {
        level.remove_prefix(1);
      }
      return "--optimization-level " + std::string(level);
    }
    if (flag.rfind("--", 0) != 0) {
      return std::string(flag);
    }
    std::string out(flag.substr(0, flag.find('.')));
    std::replace(out.begin(), out.end(), '_', '-');
    return out;
  }
  std::span<const Knob> knobs() const override { return kKnobs; }
  std::string_view flag_table() const override { return engines::kVllmFlags; }
  std::string_view flag_table_source() const override { return kFlagSource; }
  std::string_view removed_flag_table() const override { return engines::kVllmRemovedFlags; }
  std::optional<int> release_rank(std::string_view text) const override {
    const std::optional<int> minor = parse_version(text);
    return minor ? std::optional<int>(release_of(*minor, text)) : std::nullopt;
  }
  std::optional<std::size_t> fraction_knob() const override { return gpu_memory_utilization; }
  std::optional<std::size_t> cap_knob() const override { return max_num_seqs; }
  std::optional<std::size_t> kv_memory_knob() const override { return kv_cache_memory_bytes; }
  void validate(const KnobSet& k) const override {
    if (k.has(kv_cache_memory_bytes) && k.has(gpu_memory_utilization)) {
      throw Error("--kv-cache-memory-bytes and --gpu-memory-utilization contradict each other: vLLM ignores "
                  "gpu_memory_utilization when kv_cache_memory_bytes is set; give one of them");
    }
  }
  std::optional<std::string> split_problem(const ModelSpec& m, std::uint32_t tp, std::uint32_t pp,
                                           std::uint32_t cp) const override;
  EnginePrediction predict(const EngineInputs& in) const override;
  std::optional<std::string> emit(const EmitInputs& in) const override;
  std::optional<CommandForm> command_form(std::span<const std::string> argv) const override;
  std::optional<SettingsFile> settings_file(const FlagClass& row, const EngineVersion& version) const override;
  std::span<const std::string_view> command_examples() const override { return kExamples; }
  static constexpr std::array<std::string_view, 3> kExamples{"vllm serve MODEL ...",
                                                             "python -m vllm.entrypoints.openai.api_server ...",
                                                             "python -m dynamo.vllm ..."};
  std::optional<std::string> image_version(std::string_view image) const override;
  std::vector<std::string> image_entrypoint(std::string_view image) const override;
  std::optional<ChartValues> chart_values() const override;
};

std::optional<std::string> Vllm::split_problem(const ModelSpec& m, std::uint32_t tp, std::uint32_t pp,
                                               std::uint32_t cp) const {
  (void)pp;
  if (cp <= 1) {
    return std::nullopt;
  }
  if (tp % cp != 0) {
    return fmt::format("decode context parallel size {} must divide the tensor parallel size {}: it splits the "
                       "tensor-parallel group (--decode-context-parallel-size)",
                       cp, tp);
  }
  std::uint32_t kv_heads = 1;  // MLA caches one latent head
  bool sliding = false;
  for (const LayerGroup& g : m.layers) {
    std::visit(overloaded{
                   [&](const FullAttention& f) { kv_heads = std::max(kv_heads, f.num_key_value_heads); },
                   [&](const SlidingWindow& s) {
                     sliding = true;
                     kv_heads = std::max(kv_heads, s.attention.num_key_value_heads);
                   },
                   [](const LatentAttention&) {},
                   [](const RecurrentState&) {},
                   [&](const ChunkedLocal& c) {
                     sliding = true;  // ChunkedLocalAttentionSpec is a sliding kind to the DCP check too
                     kv_heads = std::max(kv_heads, c.attention.num_key_value_heads);
                   },
                   [&](const CrossAttention& c) { kv_heads = std::max(kv_heads, c.attention.num_key_value_heads); },
                   [](const SharedKV&) {},
                   [](const IndexerCache&) {},
                   [](const NoCache&) {},
               },
               g.spec);
  }
  if (sliding) {
    return "vLLM does not support decode context parallelism with sliding-window layers (kv_cache_interface.py "
           "asserts it off)";
  }
  const std::uint32_t replication = tp >= kv_heads ? tp / kv_heads : 1;
  if (cp > replication) {
    return fmt::format("decode context parallel size {} is more than tp {} / {} KV heads = {}: DCP only splits KV "
                       "that tensor parallelism replicates, so its size lies in [1, tp_size / H] "
                       "(docs/serving/context_parallel_deployment.md)",
                       cp, tp, kv_heads, replication);
  }
  return std::nullopt;
}

EnginePrediction Vllm::predict(const EngineInputs& in) const {
  const ModelSpec& m = *in.model;
  const KnobSet& s = *in.knobs;
  const int release = release_of(in.version, in.version_text);
  if (in.version < kV1DefaultSince && s.flag(use_v1) == true) {
    throw Error(fmt::format("vLLM {}: VLLM_USE_V1=1 runs the V1 engine's alpha (opt-in before 0.8), which kvplan does "
                            "not model; plan it as V0 (drop VLLM_USE_V1) or with vLLM 0.8 or later",
                            in.version_text));
  }
  if (below_sm80(in.gpu_arch) && in.weights.embeddings.name == "bf16") {
    const auto [device, capability] = torch_device(in);
    if (release < kBf16FallbackSince) {
      // vllm/worker/worker.py _check_if_gpu_supports_dtype (V0), vllm/platforms/cuda.py check_if_supports_dtype.
      EnginePrediction refused;
      refused.max_model_len = in.max_model_len;
      refused.startup = Startup::refused;
      refused.refusal = fmt::format("Bfloat16 is only supported on GPUs with compute capability of at least 8.0. Your "
                                    "{} GPU has compute capability {}. You can use float16 instead by explicitly "
                                    "setting the `dtype` flag in CLI, for example: --dtype=half",
                                    device, capability);
      return refused;
    }
  }
  if (in.version < kV1DefaultSince) {
    return predict_v0(in, release, "");
  }
  if (in.version < kV0RemovedSince) {
    if (const auto why = v0_fallback(in, release)) {
      return predict_v0(in, release, *why);
    }
  }
  EnginePrediction p;
  // Batch defaults (arg_utils.py _set_default_args_v1, later get_batch_defaults): the large tier by
  // the device's name (H100, H200) before 0.8.5, by its memory from 0.8.5, the A100 excepted from 0.9.
  const bool large = release < kV1TierByMemorySince  ? h100_or_h200(in.gpu_name)
                     : release < kV1A100ExcludedSince ? in.gpu_memory_bytes >= 70 * kGiB
                                                      : large_batch_gpu(in.gpu_memory_bytes, in.gpu_name);
  const bool huge = in.version >= kLargeGpuTierSince && in.gpu_memory_bytes >= 160 * kGiB;
  std::uint64_t batched = s.number(max_num_batched_tokens).value_or(huge ? 16384 : large ? 8192 : 2048);
  if (s.flag(enable_chunked_prefill) == false && !s.has(max_num_batched_tokens)) {
    batched = std::max(batched, in.max_model_len);  // SchedulerConfig: a whole prompt in one step
  }
  std::uint64_t max_seqs = s.number(max_num_seqs).value_or(large || release < kV1SeqsBySizeSince ? 1024 : 256);
  if (!s.has(max_num_seqs) && release >= kSeqsCappedByTokensSince) {
    max_seqs = std::min(max_seqs, batched);
  }
  p.max_model_len = in.max_model_len;
  p.concurrency_cap = max_seqs;
  if (refuse_long_max_model_len(in, p)) {
    return p;
  }

  const std::uint64_t offload = s.number(cpu_offload_gb).value_or(0);
  std::uint64_t sharded = weight_bytes_per_gpu(m.params, in.weights, in.tensor_parallel);
  std::optional<PaddedExperts> padded_experts;
  if (m.params.experts > 0) {
    ParamCounts experts;
    experts.experts = m.params.experts;
    experts.stated_bytes = m.params.stated_bytes;
    experts.stated_params = m.params.stated_params;
    const std::uint64_t expert_bytes = weight_bytes_per_gpu(experts, in.weights, in.tensor_parallel);
    if (s.flag(enable_expert_parallel).value_or(false) && in.data_parallel > 1) {
      // Expert parallelism spreads the routed experts over every GPU of tp × dp (vLLM's EP group),
      // each whole: its intermediate size is not split.
      const std::uint64_t ep = std::uint64_t{in.tensor_parallel} * in.data_parallel;
      padded_experts = mxfp4_expert_bytes(m, in, release, ceil_div(m.routed_experts, ep), m.expert_ffn);
      sharded = sat_add(sat_sub(sharded, expert_bytes),
                        padded_experts ? padded_experts->bytes : ceil_div(expert_bytes, in.data_parallel));
    } else {
      padded_experts = mxfp4_expert_bytes(m, in, release, m.routed_experts, ceil_div(m.expert_ffn, in.tensor_parallel));
      if (padded_experts) {
        sharded = sat_add(sat_sub(sharded, expert_bytes), padded_experts->bytes);
      }
    }
  }
  const std::uint64_t rope_bytes = rope_cache_bytes(m);
  const std::uint64_t weights = sat_add(sat_sub(sharded, offload), rope_bytes);
  p.weights_bytes = weights;
  std::uint64_t available = 0;
  if (const auto given = s.number(kv_cache_memory_bytes)) {
    available = *given;
    p.usable_bytes = in.gpu_memory_bytes;
    if (sat_add(weights, available) > in.gpu_memory_bytes) {
      // The weights and the given KV size together do not fit: allocating the cache fails.
      p.refusal = fmt::format("the weights ({}) and --kv-cache-memory-bytes ({}) need more than the GPU's {}: "
                              "allocating the KV cache runs out of memory",
                              format_bytes(weights), format_bytes(available), format_bytes(in.gpu_memory_bytes));
      available = 0;
    }
    if (in.text) {
      p.budget.push_back({"kv_cache_memory_bytes", "--kv-cache-memory", Cell::bytes(*given),
                          "given: profiling still runs, utilization is ignored"});
    }
  } else {
    const auto util = static_cast<std::uint32_t>(
        s.number(gpu_memory_utilization).value_or(release >= kUtilization092Since ? 920'000 : 900'000));
    const std::uint64_t requested = engines::ceil_frac(in.gpu_memory_bytes, util);
    p.usable_bytes = requested;
    p.fraction_ppm = util;
    // 0.8.x: the sum of the forward and 40 B per row and vocabulary entry (kSortingSamplerBytes, as V0's sort),
    // which its logs bear out (tests/check/command_lines.jsonl); 0.11.1 on: the sort's own peak.
    // FlashInfer's sampler: on where FlashInfer is installed in 0.9 to 0.11.0, off by default from 0.11.1
    // (VLLM_USE_FLASHINFER_SAMPLER; --flashinfer-sampler off also stands for an install without FlashInfer).
    const bool sorting_08 = release < kV1SortingSamplerUntil;
    const std::optional<bool> flashinfer = s.flag(use_flashinfer_sampler);
    const bool sorting = sorting_08 || (release < kV1TritonSamplerSince && !flashinfer.value_or(release < kV1SortingAgainSince));
    const bool v2_runner = s.flag(use_v2_model_runner).value_or(release >= kV2ModelRunnerSince);
    const std::uint64_t text_activations =
        v2_runner    ? activation_bytes(m.vocab_size, batched, max_seqs, in.last_stage, kV2SamplerBytes)
        : sorting_08 ? activation_bytes(m.vocab_size, batched, max_seqs, in.last_stage, kSortingSamplerBytes)
        : sorting    ? v1_sorting_activation_bytes(m, batched, max_seqs, in.last_stage)
                     : activation_bytes(m.vocab_size, batched, max_seqs, in.last_stage);
    const std::optional<EncoderProfile> encoder =
        s.flag(skip_mm_profiling).value_or(false) ? std::nullopt
                                                  : encoder_profile(m, in.tensor_parallel, batched, max_seqs, in.max_model_len);
    const bool encoder_peak = encoder && encoder->forward > sat_add(text_activations, encoder->held);
    const std::uint64_t activations = s.number(activation_memory)
                                          .value_or(!encoder      ? text_activations
                                                    : encoder_peak ? encoder->forward
                                                                   : sat_add(text_activations, encoder->held));
    const ReserveModel fit;
    // Before 0.9.1, V1 counted everything on the device that torch had not allocated (the CUDA
    // context and NCCL's buffers included); from 0.9.1 only what grew while profiling.
    const bool eager = s.flag(enforce_eager).value_or(false) || s.number(optimization_level) == 0u;
    const bool fusion = release >= kArRmsFusionSince && !eager && s.number(optimization_level).value_or(2) >= 2 &&
                        (release >= kArRmsFusionWithPpDpSince || (in.pipeline_parallel == 1 && in.data_parallel == 1));
    const bool multicast = nvlink_sharp(in.gpu_name) && (in.tensor_parallel > 2 || fusion);
    const std::uint64_t non_torch =
        s.number(non_torch_memory)
            .value_or(release < kV1ProfilingSince
                          ? sat_add(kCudaContextBytes, in.tensor_parallel > 1 ? kPcieNcclBytes : 0)
                          : in.tensor_parallel == 1 ? fit.framework_tp1_bytes
                          : multicast               ? fit.framework_multi_gpu_bytes
                                                    : fit.framework_multi_gpu_plain_bytes);
    const GraphSizes graph_sizes = cuda_graph_sizes(max_seqs, batched);
    const std::uint64_t stage_layers = m.num_hidden_layers;  // the model of this pipeline stage: its own layers
    const std::uint64_t graphs =
        release >= kCudaGraphEstimateSince && !eager
            ? s.number(cuda_graph_memory).value_or(cuda_graph_estimate_bytes(stage_layers, graph_sizes))
            : 0;
    available = sat_sub(requested, sat_add(sat_add(weights, activations), sat_add(non_torch, graphs)));
    p.reserved_bytes = sat_add(activations, sat_add(non_torch, graphs));
    if (in.text) {
      p.budget = {
          {"total_gpu_memory_bytes", "Total GPU memory", Cell::bytes(in.gpu_memory_bytes), "cudaMemGetInfo total"},
          {"gpu_memory_utilization", "gpu_memory_utilization", Cell::number(static_cast<double>(util) / 1e6),
           s.has(gpu_memory_utilization) ? "--gpu-memory-utilization" : fmt::format("default in vLLM 0.{}", in.version)},
          {"requested_memory_bytes", "Requested memory", Cell::bytes(requested), "ceil(total × utilization)"},
          {"weights_bytes", "− Model weights", Cell::bytes(weights),
           fmt::format("\"Model loading took\"{}{}{}",
                       padded_experts ? fmt::format(", MXFP4 experts padded for {}", padded_experts->backend)
                                      : "",
                       offload > 0 ? fmt::format(", less --cpu-offload-gb {}", format_bytes(offload)) : "",
                       rope_bytes > 0 ? fmt::format(", with {} of RoPE cos/sin tables", format_bytes(rope_bytes))
                                      : "")},
          {"activation_peak_bytes", "− Torch peak increase", Cell::bytes(activations),
           s.has(activation_memory)
               ? std::string("--activation-memory")
               : encoder_peak
                   ? fmt::format("the vision encoder's profiling of {} image{} of {} tokens (text run: {})",
                                 encoder->items, encoder->items == 1 ? "" : "s", with_commas(encoder->tokens),
                                 format_bytes(sat_add(text_activations, encoder->held)))
                   : fmt::format("profiling run of {} tokens, {}sampler over {} rows{}", with_commas(batched),
                                 v2_runner ? "Model Runner V2's logits-only " : sorting ? "sorting " : "",
                                 with_commas(std::min(max_seqs, batched)),
                                 encoder ? fmt::format(", with {} image{}' encoder outputs held", encoder->items,
                                                       encoder->items == 1 ? "" : "s")
                                 : m.params.vision > 0 && !s.flag(skip_mm_profiling).value_or(false)
                                     ? "; the vision tower's own profiling is not modelled for this family"
                                     : "")},
          {"non_torch_bytes", "− Non-torch memory", Cell::bytes(non_torch),
           release < kV1ProfilingSince ? (in.tensor_parallel > 1 ? "CUDA context + NCCL (all non-torch memory before 0.9.1)"
                                                                 : "CUDA context (all non-torch memory before 0.9.1)")
           : in.tensor_parallel > 1    ? (multicast ? (in.tensor_parallel > 2 ? "CUDA context + NCCL with NVLink SHARP"
                                                                           : "CUDA context + NCCL + FlashInfer's all-reduce fusion workspace")
                                                    : "CUDA context + NCCL")
                                       : "CUDA context"},
          {"cuda_graph_bytes", "− CUDA graph estimate", Cell::bytes(graphs),
           eager                          ? "--enforce-eager or -O0: no CUDA graphs"
           : s.has(cuda_graph_memory)     ? std::string("--cuda-graph-memory")
           : graphs > 0 ? fmt::format("vLLM's estimate, subtracted since v0.20.2: {} PIECEWISE and {} FULL sizes over "
                                      "{} layers (kvplan's model of it)",
                                      graph_sizes.piecewise, graph_sizes.full, stage_layers)
                                          : "not subtracted before v0.20.2 (graphs live in the headroom)"},
      };
    }
  }
  p.kv_budget_bytes = available;

  const std::vector<LayerType> types = engines::layer_types(m, in.kv_dtype, in.tensor_parallel);
  Layout l = layout(types, s.number(block_size).value_or(16));
  mamba_states(l, types, s, in.version, in.text ? &p.notes : nullptr);
  p.block_tokens = l.block_size;
  const std::uint64_t dcp = std::max<std::uint32_t>(in.context_parallel, 1);
  const std::uint64_t bytes_per_block = sat_mul(l.page_bytes, l.group_size);
  const std::uint64_t usable_kv = engines::with_margin(available, in.kv_margin_ppm);
  std::uint64_t num_blocks = bytes_per_block == 0 ? 0 : usable_kv / bytes_per_block;
  if (const auto forced = s.number(num_gpu_blocks_override)) {
    if (sat_mul(*forced, bytes_per_block) > usable_kv) {
      available = 0;  // the forced blocks do not fit what is left: allocation fails
    }
    num_blocks = available == 0 ? 0 : *forced;
  }
  const std::uint64_t per_request = blocks_per_request(l, p.max_model_len, batched, dcp);
  if (available == 0 || num_blocks == 0) {
    p.startup = Startup::no_kv_memory;
  } else if (per_request > num_blocks) {
    p.startup = Startup::too_long;
    p.startup_needed_bytes = sat_mul(per_request, bytes_per_block);
    p.startup_max_len = longest_fitting(l, p.max_model_len, batched, dcp, num_blocks);
  }
  const std::uint64_t at_shape = blocks_per_request(l, std::max<std::uint64_t>(in.shape_seq_len, 1), batched, dcp);
  p.capacity_at_shape = at_shape == 0 ? 0 : num_blocks / at_shape;
  for (std::uint64_t len : in.frontier_lengths) {
    if (len <= p.max_model_len) {
      p.frontier.emplace_back(len, num_blocks / blocks_per_request(l, len, batched, dcp));
    }
  }
  // CPU offloading (CPUOffloadingSpec): kv_offloading_size × 2^30 B over all ranks, in blocks of
  // page × KV tensors × world size; each CPU block holds block_size tokens on every rank.
  std::uint64_t host_blocks = 0;
  const KnobValue* backend = s.find(kv_offloading_backend);
  const bool native = backend == nullptr || std::get<std::string>(*backend) == "native";
  if (const auto host = s.number(kv_offloading_size); host && *host > 0 && l.group_kinds.size() == 1 && native) {
    const std::uint64_t world = std::uint64_t{in.tensor_parallel} * in.pipeline_parallel;
    const std::uint64_t per_block = sat_mul(bytes_per_block, world);
    host_blocks = per_block == 0 ? 0 : *host / per_block;
    p.host = HostTier{sat_mul(host_blocks, l.block_size), sat_mul(host_blocks, per_block),
                      fmt::format("--kv-offloading-size {:g}", static_cast<double>(*host) / static_cast<double>(kGiB))};
  }
  // LMCache (LMCacheConnectorV1): every TP rank allocates max_local_cpu_size GiB of pinned host memory up
  // front and stores chunks of chunk_size tokens of its share of the KV, [2 (1 for MLA), layers, chunk,
  // kv heads x head size] in the cache dtype (lmcache/integration/vllm/utils.py create_lmcache_metadata),
  // each rounded up to 4096 B (TensorMemoryAllocator, AddressManager.ALIGN_BYTES). LMCache#2901: 50 GiB
  // per rank holds 409,600 tokens of Llama-3-8B.
  const KnobValue* connector = s.find(kv_transfer_config);
  const bool lmcache = connector != nullptr && std::get<std::string>(*connector).rfind("LMCacheConnector", 0) == 0;
  std::uint64_t lmcache_chunks = 0;
  if (lmcache && l.group_kinds.size() == 1 && !p.host) {
    constexpr std::uint64_t kAlign = 4096;
    const std::uint64_t pool = s.number(lmcache_cpu_size).value_or(5 * kGiB);  // max_local_cpu_size 5.0
    const std::uint64_t chunk = s.number(lmcache_chunk_size).value_or(256);
    const std::uint64_t chunk_bytes = round_up(sat_mul(bytes_per_block / std::max<std::uint64_t>(l.block_size, 1), chunk), kAlign);
    lmcache_chunks = chunk_bytes == 0 ? 0 : pool / chunk_bytes;
    const std::uint64_t world = std::uint64_t{in.tensor_parallel} * in.pipeline_parallel;
    p.host = HostTier{sat_mul(lmcache_chunks, chunk), sat_mul(pool, world),
                      fmt::format("LMCache max_local_cpu_size {:g} GiB per rank",
                                  static_cast<double>(pool) / static_cast<double>(kGiB))};
  }
  if (!in.text) {
    return p;
  }
  p.budget.push_back({"available_kv_cache_bytes", "= Available KV cache memory", Cell::bytes(available), ""});
  const double concurrency = per_request == 0 ? 0 : static_cast<double>(num_blocks) / static_cast<double>(per_request);
  const std::uint64_t groups = l.group_kinds.size();
  const std::uint64_t tokens = release >= kTokensFromConcurrencySince
                                   ? static_cast<std::uint64_t>(concurrency * static_cast<double>(p.max_model_len))
                                   : num_blocks / groups * l.block_size * dcp;  // "Multiplying ... by the cp_world_size"
  p.fields = {
      {"available_kv_cache_bytes", "Available KV cache memory", Cell::bytes(available), ""},
      {"num_gpu_blocks", "KV cache blocks", Cell::count(num_blocks),
       s.has(num_gpu_blocks_override)
           ? std::string("--num-gpu-blocks-override")
           : fmt::format("{} B per block: {} layers per group × {} B page", with_commas(bytes_per_block), l.group_size,
                         with_commas(l.page_bytes))},
      {"block_size", "Block size", Cell::tokens(l.block_size), "tokens"},
      {"num_kv_cache_groups", "KV cache groups", Cell::count(groups), ""},
      {"gpu_kv_cache_tokens", "GPU KV cache size", Cell::tokens(tokens),
       release >= kTokensFromConcurrencySince ? "int(max concurrency × max_model_len)"
                                                 : "blocks // groups × block size"},
      {"max_concurrency", "Maximum concurrency", Cell::number(concurrency),
       fmt::format("{} blocks / {} blocks per {}-token request", with_commas(num_blocks), with_commas(per_request),
                   with_commas(p.max_model_len))},
      {"max_model_len", "max_model_len", Cell::tokens(p.max_model_len), ""},
      {"max_num_batched_tokens", "max_num_batched_tokens", Cell::tokens(batched), ""},
      {"max_num_seqs", "max_num_seqs", Cell::count(max_seqs), s.has(max_num_seqs) ? "--max-num-seqs" : "default"},
  };
  if (dcp > 1) {
    p.fields.push_back({"decode_context_parallel_size", "decode_context_parallel_size", Cell::count(dcp),
                        "each rank holds cdiv(tokens, dcp) of every request"});
    p.log_lines.push_back(fmt::format("Multiplying the GPU KV cache size by the cp_world_size {} "
                                      "(pcp_world_size 1 * dcp_world_size {}).",
                                      dcp, dcp));
  }
  if (!l.note.empty()) {
    p.log_lines.push_back(l.note);
  }
  if (release >= kV1ProfilingSince) {  // first logged in 0.9.1
    p.log_lines.push_back(fmt::format("Available KV cache memory: {} GiB", engines::gib(available)));
  }
  p.log_lines.push_back(fmt::format("GPU KV cache size: {} tokens", with_commas(tokens)));
  p.log_lines.push_back(fmt::format("Maximum concurrency for {} tokens per request: {:.2f}x", with_commas(p.max_model_len),
                                    concurrency));
  if (s.has(kv_cache_memory_bytes) && available == 0) {
    p.notes.push_back("The weights and --kv-cache-memory together exceed the GPU's memory: allocation would fail.");
  }
  if (p.startup == Startup::no_kv_memory) {
    p.log_lines.push_back("ValueError: No available memory for the cache blocks. Try increasing "
                          "`gpu_memory_utilization` when initializing the engine.");
  } else if (p.startup == Startup::too_long) {
    p.log_lines.push_back(fmt::format(
        "ValueError: To serve at least one request with the models's max seq len ({}), ({} GiB KV cache is needed, "
        "which is larger than the available KV cache memory ({} GiB). Based on the available memory, the estimated "
        "maximum model length is {}. Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when "
        "initializing the engine.",
        p.max_model_len, engines::gib(p.startup_needed_bytes), engines::gib(available), p.startup_max_len));
  }
  if (p.host && lmcache_chunks > 0) {
    p.fields.push_back({"host_kv_cache_tokens", "Host KV tier", Cell::tokens(p.host->tokens),
                        fmt::format("{} LMCache chunks of {} tokens per rank ({})", with_commas(lmcache_chunks),
                                    s.number(lmcache_chunk_size).value_or(256), p.host->knob)});
    p.notes.push_back(
        "LMCache allocates its whole CPU pool per TP rank at start, pinned (LMCache#2901: \"each TP rank allocates "
        "LMCACHE_MAX_LOCAL_CPU_SIZE independently\"), and keeps chunks the GPU's prefix cache evicted for requests "
        "that share a prefix; LMCACHE_CONFIG_FILE, when set, replaces the LMCACHE_* variables, and kvplan does not "
        "read it.");
  } else if (p.host) {
    p.fields.push_back({"host_kv_cache_tokens", "Host KV tier", Cell::tokens(p.host->tokens),
                        fmt::format("{} CPU blocks of {} tokens in {} of host memory ({})", with_commas(host_blocks),
                                    l.block_size, format_bytes(p.host->bytes), p.host->knob)});
    p.notes.push_back(
        "--kv-offloading-size is the host memory of all ranks together (CacheConfig: \"the total buffer size summed "
        "across all TP ranks\"); each rank holds its share of every CPU block. Before vLLM moved the buffer to one "
        "/dev/shm file (mid-2026, PR #50094), each rank's pinned tensors were rounded up to a power of two, up to "
        "twice the size (issue #53042); after it, a container's /dev/shm must hold the whole buffer.");
  } else if (lmcache && l.group_kinds.size() != 1) {
    p.notes.push_back("LMCache: kvplan sizes its CPU tier for models with one KV cache group only; this model has "
                      "several, so the tier is not planned.");
  } else if (s.has(kv_offloading_size) && !native) {
    p.notes.push_back(fmt::format("--kv-offloading-backend {}: the size goes to that backend (LMCache: since PR #42865 "
                                  "a separate LMCache server), whose tier kvplan does not plan.",
                                  std::get<std::string>(*backend)));
  } else if (s.has(kv_offloading_size)) {
    p.notes.push_back("--kv-offloading-size: kvplan sizes vLLM's CPU tier for models with one KV cache group only "
                      "(CPUOffloadingSpec needs one page size); this model has several, so the tier is not planned.");
  }
  if (offload > 0) {
    p.notes.push_back(fmt::format("--cpu-offload-gb keeps {} of weights per GPU in host memory; every forward pass "
                                  "streams them over PCIe.",
                                  format_bytes(offload)));
  }
  note_bf16_fallback(in, p);
  p.notes.push_back("Block 0 is vLLM's null block; the logged figures count it, as vLLM does.");
  return p;
}

std::optional<std::string> Vllm::emit(const EmitInputs& in) const {
  const KnobSet& k = *in.knobs;
  std::string cmd = fmt::format("vllm serve {} --tensor-parallel-size {}", in.model_id, in.tp);
  cmd += in.pp > 1 ? fmt::format(" --pipeline-parallel-size {}", in.pp) : "";
  cmd += in.dp > 1 ? fmt::format(" --data-parallel-size {}", in.dp) : "";
  cmd += in.cp > 1 ? fmt::format(" --decode-context-parallel-size {}", in.cp) : "";
  cmd += fmt::format(" --max-model-len {}", in.max_model_len);
  for (std::size_t knob : {max_num_seqs, gpu_memory_utilization, kv_cache_memory_bytes, max_num_batched_tokens,
                           block_size}) {
    if (const KnobValue* v = k.find(knob)) {
      cmd += fmt::format(" {} {}", kKnobs[knob].flags.substr(0, kKnobs[knob].flags.find(' ')),
                         knob_text(kKnobs[knob], *v));
    }
  }
  if (k.flag(enforce_eager).value_or(false)) {
    cmd += " --enforce-eager";
  }
  cmd += in.kv_dtype ? fmt::format(" --kv-cache-dtype {}", in.kv_dtype->name) : "";
  cmd += in.quantization ? fmt::format(" --quantization {}", *in.quantization) : "";
  return cmd;
}

// --config FILE (from 0.6.0, #7737): FlexibleArgumentParser._pull_args_from_config puts the file's flags after
// the subcommand (and a positional model), before the command line's own, so the command line wins; only the
// word '--config' is looked for. load_config_file (vllm/utils.py; vllm/utils/argparse_utils.py from 0.11.2)
// refuses a name that is not .yaml/.yml and writes each key as '--' + key: booleans as 'True'/'False' until
// 0.6.4 (#9533), then true as the switch and false as nothing; lists as one str() until 0.10.2 (#23528), then
// item by item; maps as Python's str() until 0.16.0 (#33193), then as JSON. main after v0.20.0 writes false
// as --no-KEY where the parser has it; kvplan takes that from 0.21, the first release after it was read.
constexpr int kConfigBoolSwitchSince = 604;
constexpr int kConfigListWordsSince = 1002;
constexpr int kConfigJsonMapsSince = 16;
constexpr int kConfigNegatesSince = 21;

std::optional<SettingsFile> Vllm::settings_file(const FlagClass& row, const EngineVersion& version) const {
  if (row.spellings.empty() || row.spellings.front() != "--config") {
    return std::nullopt;
  }
  const int release = release_of(version.key, version.text);
  SettingsFile f;
  f.keys = SettingsFile::Keys::flags;
  f.equals_form = false;
  f.yaml_suffix = true;
  f.booleans = release < kConfigBoolSwitchSince   ? SettingsFile::Booleans::as_text
               : version.key >= kConfigNegatesSince ? SettingsFile::Booleans::negating
                                                    : SettingsFile::Booleans::switches;
  f.lists_as_words = release >= kConfigListWordsSince;
  f.maps_as_json = version.key >= kConfigJsonMapsSince;
  f.source = "vllm/utils/argparse_utils.py FlexibleArgumentParser._pull_args_from_config, load_config_file";
  return f;
}

std::optional<CommandForm> Vllm::command_form(std::span<const std::string> argv) const {
  if (argv.size() >= 2 && engines::program_name(argv[0]) == "vllm" && argv[1] == "serve") {
    return CommandForm{2, true, {}, {}, {}};
  }
  if (const auto at = engines::python_module(argv, "vllm.entrypoints.openai.api_server")) {
    return CommandForm{*at, false, {}, {}, {}};
  }
  // NVIDIA Dynamo's vLLM worker (ai-dynamo/dynamo components/src/dynamo/vllm): vLLM's own engine
  // arguments (AsyncEngineArgs.add_cli_args) beside Dynamo's, the model as --model.
  if (const auto at = engines::python_module(argv, "dynamo.vllm")) {
    return CommandForm{*at, false, {}, {}, {}};
  }
  return std::nullopt;
}

std::optional<std::string> Vllm::image_version(std::string_view image) const {
  const engines::Image i = engines::split_image(image);
  // Images that run vLLM but whose tag is not vLLM's version: LMCache's build (the production-stack
  // chart's default, lmcache/vllm-openai), KServe's huggingface runtime (kserve/huggingfaceserver,
  // config/runtimes/kserve-huggingfaceserver.yaml; its server runs vLLM's engine with vLLM's flags).
  if (i.repository == "lmcache/vllm-openai" || i.repository == "kserve/huggingfaceserver") {
    return std::string();
  }
  // vLLM's own images, and rebuilds named after them (quay.io/rh-aiservices-bu/vllm-openai-ubi9:0.4.0),
  // whose tags follow vLLM's versions.
  const std::string_view repo(i.repository);
  const std::string_view last = repo.substr(repo.find_last_of('/') == std::string_view::npos ? 0 : repo.find_last_of('/') + 1);
  if (repo != "vllm/vllm-openai" && repo != "vllm/vllm-openai-rocm" && repo != "rocm/vllm" &&
      last.substr(0, 11) != "vllm-openai") {
    return std::nullopt;
  }
  return i.tag == "latest" || i.tag == "nightly" || i.tag.empty() ? std::string() : i.tag;
}

std::optional<ChartValues> Vllm::chart_values() const {
  // vllm-project/production-stack helm/templates/deployment-vllm-multi.yaml (at f1f98227): each
  // servingEngineSpec.modelSpec[] becomes a Deployment running `vllm serve MODELURL` with these
  // vllmConfig keys as flags (then vllmConfig.extraArgs as written).
  static constexpr std::pair<std::string_view, std::string_view> kFlags[] = {
      {"maxModelLen", "--max-model-len"},
      {"dtype", "--dtype"},
      {"tensorParallelSize", "--tensor-parallel-size"},
      {"maxNumSeqs", "--max-num-seqs"},
      {"gpuMemoryUtilization", "--gpu_memory_utilization"},
      {"maxLoras", "--max_loras"},
  };
  return ChartValues{"servingEngineSpec", "modelSpec", "vllmConfig", kFlags,
                     "vllm-project/production-stack helm/templates/deployment-vllm-multi.yaml at f1f98227"};
}

std::vector<std::string> Vllm::image_entrypoint(std::string_view image) const {
  (void)image;
  // docker/Dockerfile, the vllm-openai stage: ENTRYPOINT ["vllm", "serve"] (earlier images ran
  // python3 -m vllm.entrypoints.openai.api_server, which reads the same flags).
  return {"vllm", "serve"};
}

}  // namespace

const Engine& vllm_engine_module() noexcept {
  static const Vllm engine;
  return engine;
}

}  // namespace kvplan
