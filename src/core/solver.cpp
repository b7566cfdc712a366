// The solver: max batch at a length, longest length at a batch, and the frontier between them.
#include "kvplan/solver.hpp"

#include <algorithm>

namespace kvplan {

std::uint64_t max_batch(const ModelSpec& m, const Deployment& shape, std::uint64_t kv_budget_bytes) noexcept {
  Deployment one = shape;
  one.batch = 1;
  const std::uint64_t per_sequence = kv_bytes_per_sequence(m, one);
  if (per_sequence == 0) {
    return 0;  // a model with no cache is rejected by the loader; never divide by zero here
  }
  return kv_budget_bytes / per_sequence;
}

std::optional<std::uint64_t> longest_seq_len(const ModelSpec& m, const Deployment& shape,
                                             std::uint64_t kv_budget_bytes, std::uint64_t cap) noexcept {
  auto fits = [&](std::uint64_t seq_len) {
    Deployment probe = shape;
    probe.seq_len = seq_len;
    return kv_cache_bytes_per_gpu(m, probe) <= kv_budget_bytes;
  };
  if (cap == 0 || !fits(1)) {
    return std::nullopt;
  }
  std::uint64_t lo = 1;  // fits
  std::uint64_t hi = cap;
  if (fits(hi)) {
    return hi;
  }
  while (hi - lo > 1) {  // invariant: fits(lo) && !fits(hi)
    const std::uint64_t mid = lo + (hi - lo) / 2;
    (fits(mid) ? lo : hi) = mid;
  }
  return lo;
}

std::vector<std::uint64_t> frontier_lengths(std::uint64_t max_len, std::optional<std::uint64_t> extra) {
  std::vector<std::uint64_t> out;
  for (std::uint64_t s = 1024; s <= max_len; s *= 2) {
    out.push_back(s);
    if (s > max_len / 2) {
      break;  // the next power would pass max_len (and must not wrap)
    }
  }
  if (max_len > 0) {
    out.push_back(max_len);
  }
  if (extra) {
    out.push_back(*extra);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<FrontierPoint> frontier(const ModelSpec& m, const Deployment& shape, std::uint64_t kv_budget_bytes,
                                    const std::vector<std::uint64_t>& lengths) {
  std::vector<FrontierPoint> out;
  out.reserve(lengths.size());
  for (std::uint64_t s : lengths) {
    Deployment probe = shape;
    probe.seq_len = s;
    out.push_back(FrontierPoint{s, max_batch(m, probe, kv_budget_bytes)});
  }
  return out;
}

}  // namespace kvplan
