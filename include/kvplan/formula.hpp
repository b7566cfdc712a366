// kvplan/formula.hpp: the formula engine. Pure, total functions from (model, deployment) to
// exact bytes per GPU. Every equation, with a worked example and its source, is in
// docs/formulas.md; the code comments name the engine function each one mirrors.
#pragma once

#include <cstdint>
#include <optional>

#include "kvplan/dtype.hpp"
#include "kvplan/model.hpp"

namespace kvplan {

/// What the operator chooses for the KV cache.
struct Deployment {
  std::uint64_t batch = 1;             // concurrent sequences
  std::uint64_t seq_len = 1;           // tokens per sequence (prompt + output)
  DType kv_dtype;                      // element format of K and V
  std::uint32_t tensor_parallel = 1;   // ranks that split the KV heads and the weights
  std::uint32_t context_parallel = 1;  // ranks that split each sequence's tokens (ring attention)
  std::uint64_t block_size = 16;       // paged-allocation granule in tokens; 1 = exact
};

/// KV heads one rank holds: max(1, n_kv / tp); replicated when tp > n_kv
/// (vLLM config/model.py get_num_kv_heads).
std::uint32_t kv_heads_per_rank(std::uint32_t num_kv_heads, std::uint32_t tp) noexcept;

/// Bytes one token adds to one layer on one rank (0 for recurrent layers).
///  full / sliding: heads_per_rank * (row(head_dim) + row(v_head_dim));  MLA: row(rank + rope).
std::uint64_t bytes_per_token(const LayerCacheSpec& layer, const DType& kv, std::uint32_t tp) noexcept;

/// Tokens a layer keeps for a sequence of `seq_len` tokens: S, or min(S, W) for a window, 0 for state.
std::uint64_t tokens_held(const LayerCacheSpec& layer, std::uint64_t seq_len) noexcept;

/// Bytes a layer holds per sequence whatever its length (recurrent state; cross-attention's encoder
/// tokens, in `kv`), on one rank.
std::uint64_t fixed_bytes_per_sequence(const LayerCacheSpec& layer, const DType& kv, std::uint32_t tp) noexcept;

/// One layer, one sequence, one rank:
/// bytes_per_token * round_up(ceil(tokens_held / cp), block) + fixed (recurrent state is not split by CP).
std::uint64_t layer_bytes_per_sequence(const LayerCacheSpec& layer, const Deployment& d) noexcept;

/// All layers, one sequence, one rank.
std::uint64_t kv_bytes_per_sequence(const ModelSpec& m, const Deployment& d) noexcept;

/// All layers, `d.batch` sequences, one rank (the number a GPU must hold).
std::uint64_t kv_cache_bytes_per_gpu(const ModelSpec& m, const Deployment& d) noexcept;

/// All ranks together: per-GPU bytes * tp * cp (replicated heads are counted on every rank).
std::uint64_t kv_cache_bytes_total(const ModelSpec& m, const Deployment& d) noexcept;

/// Bytes per token of the whole model for one sequence at tp 1, counting only layers whose cache
/// grows with length (full, MLA, and sliding layers until their window fills).
std::uint64_t model_kv_bytes_per_token(const ModelSpec& m, const DType& kv) noexcept;

/// Bytes each further token adds once every sliding window and attention chunk is full: full
/// attention, MLA and the indexer only (what a long context costs per token).
std::uint64_t model_kv_bytes_per_token_past_windows(const ModelSpec& m, const DType& kv) noexcept;

/// Bytes per sequence that do not depend on its length (recurrent state), whole model, tp 1.
std::uint64_t model_fixed_bytes_per_sequence(const ModelSpec& m, const DType& kv) noexcept;

/// How the weights are stored. Quantized checkpoints quantize the linear layers; embeddings,
/// lm_head and norms stay in the 16-bit dtype (the layout of FP8, GPTQ/AWQ and MXFP4 checkpoints,
/// whose quantization configs leave lm_head and embeddings out). MoE experts may differ (gpt-oss).
struct WeightFormat {
  DType embeddings;  // embeddings, lm_head, norms, vision tower
  DType linear;      // dense MLP projections (and attention, unless `attention` says otherwise)
  DType experts;     // routed MoE experts
  std::optional<DType> attention;  // attention projections, when a checkpoint leaves them unquantized
  bool skip_list = false;  // the checkpoint's own format: ParamCounts' *_16bit parameters stay in `embeddings`' dtype
};

/// Weight bytes on one GPU: ceil(sum of params * bytes per weight / tp).
std::uint64_t weight_bytes_per_gpu(const ParamCounts& p, const WeightFormat& w, std::uint32_t tp) noexcept;

}  // namespace kvplan
