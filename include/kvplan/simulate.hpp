// kvplan/simulate.hpp: a discrete-step simulation of continuous batching, to compare KV-cache
// allocators on one request stream (issue #5, after Kwon et al., SOSP 2023, "Efficient Memory
// Management for Large Language Model Serving with PagedAttention"). Pure: requests come from a
// caller's generator, one at a time, so memory does not grow with the requests already finished.
//
// Model of a step: waiting requests are admitted in arrival order while their allocation fits; a
// request admitted at step t holds its prompt and its first output token at t, and every later step
// adds one token; it finishes when its output is complete and frees everything. Capacity and sizes
// are in token slots (the KV of one token of one sequence on one GPU).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace kvplan {

struct SimRequest {
  std::uint64_t arrival_step = 0;
  std::uint64_t prompt_tokens = 1;
  std::uint64_t output_tokens = 1;
};

enum class AllocatorKind {
  contiguous_max,     // reserves max_model_len per request (FasterTransformer / Orca "max")
  contiguous_oracle,  // reserves exactly prompt + output (Orca "oracle")
  paged,              // blocks of `block_tokens`, allocated as tokens arrive (vLLM)
  paged_shared,       // paged, with a shared system prompt stored once (vLLM prefix caching)
};

struct AllocatorSpec {
  AllocatorKind kind = AllocatorKind::paged;
  std::uint64_t block_tokens = 16;
  std::string label() const;
};

struct SimConfig {
  std::uint64_t capacity_tokens = 0;       // KV token slots on the GPU
  std::uint64_t max_model_len = 0;         // longest request (prompt + output) the server accepts
  std::uint64_t shared_prefix_tokens = 0;  // a system prompt every request starts with
  std::uint64_t series_points = 60;        // samples kept for the time series
  std::uint64_t samples = 1;               // sequences per request: parallel samples (n) or beams
};

struct SimSample {
  std::uint64_t step = 0;
  std::uint64_t used_tokens = 0;      // slots holding token states
  std::uint64_t reserved_tokens = 0;  // slots allocated (used + internal fragmentation)
  std::uint64_t running = 0;
};

struct SimStats {
  std::uint64_t requests = 0;
  std::uint64_t completed = 0;
  std::uint64_t rejected = 0;        // longer than max_model_len, or larger than the whole cache
  std::uint64_t preemptions = 0;     // paged: a running request evicted for recompute
  std::uint64_t steps = 0;           // decode steps from the first arrival to the last completion
  std::uint64_t peak_running = 0;
  double mean_running = 0;           // time average of running requests (the batch size)
  double mean_used = 0;              // time averages, in token slots
  double mean_reserved = 0;
  std::vector<SimSample> series;
  double used_fraction() const;      // mean_used / capacity
  double reserved_fraction() const;  // mean_reserved / capacity
  double waste_fraction() const;     // (reserved - used) / reserved
  std::uint64_t capacity = 0;
};

/// Runs one allocator over the requests `next()` yields (in arrival order) until all finish.
SimStats simulate(const AllocatorSpec& allocator, const SimConfig& config,
                  const std::function<std::optional<SimRequest>()>& next);

}  // namespace kvplan
