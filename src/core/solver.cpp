// The solver: max batch at a length, longest length at a batch, and the frontier between them.
#include "kvplan/solver.hpp"

#include <algorithm>

#include "kvplan/units.hpp"

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

namespace {

// kv_cache_bytes_per_gpu with each layer group's per-token bytes computed once: a bisection asks it
// for some 40 lengths, and a sweep bisects at every point.
class Probe {
 public:
  Probe(const ModelSpec& m, const Deployment& shape) noexcept : shape_(shape) {
    for (const LayerGroup& g : m.layers) {
      fixed_ = sat_add(fixed_, sat_mul(g.count, fixed_bytes_per_sequence(g.spec, shape.kv_dtype, shape.tensor_parallel)));
      const std::uint64_t per_token = sat_mul(g.count, bytes_per_token(g.spec, shape.kv_dtype, shape.tensor_parallel));
      if (per_token == 0) {
        continue;
      }
      if (terms_ == kTerms) {
        general_ = true;
        return;
      }
      // tokens_held(S) is S capped at the window (the window of a full layer is unbounded).
      terms_list_[terms_++] = Term{per_token, tokens_held(g.spec, kSaturated)};
    }
  }
  std::uint64_t bytes(const ModelSpec& m, std::uint64_t seq_len) const noexcept {
    if (general_) {
      Deployment probe = shape_;
      probe.seq_len = seq_len;
      return kv_cache_bytes_per_gpu(m, probe);
    }
    const std::uint64_t block = std::max<std::uint64_t>(shape_.block_size, 1);
    const std::uint64_t cp = std::max<std::uint32_t>(shape_.context_parallel, 1);
    std::uint64_t total = fixed_;
    for (std::size_t i = 0; i < terms_; ++i) {
      const Term& t = terms_list_[i];
      const std::uint64_t tokens = round_up(ceil_div(std::min(seq_len, t.window), cp), block);
      total = sat_add(total, sat_mul(t.per_token, tokens));
    }
    return sat_mul(shape_.batch, total);
  }

 private:
  struct Term {
    std::uint64_t per_token = 0;  // bytes per token of all the group's layers
    std::uint64_t window = 0;     // tokens it holds at most
  };
  static constexpr std::size_t kTerms = 8;
  Deployment shape_;
  std::uint64_t fixed_ = 0;
  Term terms_list_[kTerms] = {};
  std::size_t terms_ = 0;
  bool general_ = false;
};

}  // namespace

std::optional<std::uint64_t> longest_seq_len(const ModelSpec& m, const Deployment& shape,
                                             std::uint64_t kv_budget_bytes, std::uint64_t cap) noexcept {
  const Probe probe(m, shape);
  auto fits = [&](std::uint64_t seq_len) { return probe.bytes(m, seq_len) <= kv_budget_bytes; };
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
