// kvplan/solver.hpp: the batch-versus-length trade-off under a KV budget. Searches probe copies
// of a Deployment and never mutate shared state; "nothing fits" is a value (0 or nullopt).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "kvplan/formula.hpp"
#include "kvplan/model.hpp"

namespace kvplan {

/// Most sequences of `shape.seq_len` tokens whose KV fits in `kv_budget_bytes` on one GPU.
std::uint64_t max_batch(const ModelSpec& m, const Deployment& shape, std::uint64_t kv_budget_bytes) noexcept;

/// Longest seq_len in [1, cap] at which `shape.batch` sequences fit; nullopt if not even 1 token does.
/// Binary search over a monotone predicate, like vLLM's estimate_max_model_len.
std::optional<std::uint64_t> longest_seq_len(const ModelSpec& m, const Deployment& shape,
                                             std::uint64_t kv_budget_bytes, std::uint64_t cap) noexcept;

struct FrontierPoint {
  std::uint64_t seq_len = 0;
  std::uint64_t max_batch = 0;
};

/// Context lengths to report: powers of two from 1,024 up to `max_len`, plus `max_len` itself and
/// `extra` when given (sorted, unique, none above max_len unless `extra` is).
std::vector<std::uint64_t> frontier_lengths(std::uint64_t max_len, std::optional<std::uint64_t> extra);

std::vector<FrontierPoint> frontier(const ModelSpec& m, const Deployment& shape, std::uint64_t kv_budget_bytes,
                                    const std::vector<std::uint64_t>& lengths);

}  // namespace kvplan
