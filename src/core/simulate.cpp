// The continuous-batching simulation: one pass per allocator over the same request stream.
#include "kvplan/simulate.hpp"

#include <algorithm>
#include <deque>

#include "kvplan/units.hpp"

namespace kvplan {
namespace {

struct Pending {
  SimRequest request;
  std::uint64_t done = 0;  // output tokens generated before a preemption (recomputed as prompt)
};

struct Active {
  Pending pending;
  std::uint64_t own_tokens = 0;  // tokens this request holds (the shared prefix aside when sharing)
  std::uint64_t reserved = 0;    // token slots allocated to it
  std::uint64_t generated = 0;   // output tokens so far, `done` included
};

class Simulator {
 public:
  Simulator(const AllocatorSpec& a, const SimConfig& c) : m_a(a), m_c(c) {
    m_block = a.kind == AllocatorKind::paged || a.kind == AllocatorKind::paged_shared ? std::max<std::uint64_t>(a.block_tokens, 1) : 1;
    m_shares = a.kind == AllocatorKind::paged_shared;
    m_prefix_reserved = m_shares ? round_up(c.shared_prefix_tokens, m_block) : 0;
  }

  // Token slots a request needs to start: its prompt and first output token.
  std::uint64_t initial(const Pending& p) const {
    const std::uint64_t prompt = p.request.prompt_tokens + p.done;
    const std::uint64_t total = p.request.prompt_tokens + p.request.output_tokens;
    switch (m_a.kind) {
      case AllocatorKind::contiguous_max:
        return m_c.max_model_len;
      case AllocatorKind::contiguous_oracle:
        return m_c.shared_prefix_tokens + total;
      case AllocatorKind::paged:
        return round_up(m_c.shared_prefix_tokens + prompt + 1, m_block);
      case AllocatorKind::paged_shared:
        break;
    }
    return round_up(prompt + 1, m_block);
  }

  // The most a request ever holds at once (to reject what can never fit).
  std::uint64_t peak(const Pending& p) const {
    const std::uint64_t total = p.request.prompt_tokens + p.request.output_tokens;
    switch (m_a.kind) {
      case AllocatorKind::contiguous_max:
        return m_c.max_model_len;
      case AllocatorKind::contiguous_oracle:
        return m_c.shared_prefix_tokens + total;
      case AllocatorKind::paged:
        return round_up(m_c.shared_prefix_tokens + total, m_block);
      case AllocatorKind::paged_shared:
        break;
    }
    return round_up(total, m_block) + m_prefix_reserved;
  }

  SimStats run(const std::function<std::optional<SimRequest>()>& next) {
    std::optional<SimRequest> upcoming = next();
    std::uint64_t step = upcoming ? upcoming->arrival_step : 0;
    const std::uint64_t first_step = step;
    std::uint64_t stride = 1;
    while (upcoming || !m_waiting.empty() || !m_running.empty()) {
      if (m_waiting.empty() && m_running.empty() && upcoming && upcoming->arrival_step > step) {
        step = upcoming->arrival_step;  // idle: jump to the next arrival
      }
      while (upcoming && upcoming->arrival_step <= step) {
        m_waiting.push_back(Pending{*upcoming, 0});
        ++m_stats.requests;
        upcoming = next();
      }
      decode();
      admit();
      record(step, stride);
      finish();
      ++step;
    }
    m_stats.steps = step - first_step;
    m_stats.capacity = m_c.capacity_tokens;
    const double steps = static_cast<double>(std::max<std::uint64_t>(m_stats.steps, 1));
    m_stats.mean_running = m_sum_running / steps;
    m_stats.mean_used = m_sum_used / steps;
    m_stats.mean_reserved = m_sum_reserved / steps;
    return m_stats;
  }

 private:
  std::uint64_t free_slots() const { return m_c.capacity_tokens - m_reserved - shared_reserved(); }
  std::uint64_t shared_reserved() const { return m_shares && !m_running.empty() ? m_prefix_reserved : 0; }

  // Every running request adds a token; a paged one takes a new block when it crosses a block edge,
  // preempting the most recently admitted request (vLLM's recompute policy) when none is free.
  void decode() {
    for (std::size_t i = 0; i < m_running.size(); ++i) {
      Active& a = m_running[i];
      ++a.own_tokens;
      ++a.generated;
      if (a.own_tokens <= a.reserved) {
        continue;  // contiguous reservations never run out; a paged request within its last block
      }
      while (free_slots() < m_block && !m_running.empty()) {
        const std::size_t victim = m_running.size() - 1;
        preempt(victim);
        if (victim == i) {
          break;
        }
      }
      if (i < m_running.size() && &m_running[i] == &a && free_slots() >= m_block) {
        a.reserved += m_block;
        m_reserved += m_block;
      }
    }
  }

  void preempt(std::size_t index) {
    Active a = m_running[index];
    m_reserved -= a.reserved;
    m_running.erase(m_running.begin() + static_cast<std::ptrdiff_t>(index));
    Pending p = a.pending;
    p.done = a.generated;
    m_waiting.push_front(p);
    ++m_stats.preemptions;
  }

  void admit() {
    while (!m_waiting.empty()) {
      const Pending& p = m_waiting.front();
      const std::uint64_t total = m_c.shared_prefix_tokens + p.request.prompt_tokens + p.request.output_tokens;
      if (total > m_c.max_model_len || peak(p) > m_c.capacity_tokens) {
        ++m_stats.rejected;
        m_waiting.pop_front();
        continue;
      }
      const std::uint64_t need = initial(p) + (m_shares && m_running.empty() ? m_prefix_reserved : 0);
      if (need > free_slots()) {
        return;  // first come, first served: the head waits
      }
      Active a;
      a.pending = p;
      a.generated = p.done + 1;
      a.own_tokens = (m_shares ? 0 : m_c.shared_prefix_tokens) + p.request.prompt_tokens + a.generated;
      a.reserved = initial(p);
      m_reserved += a.reserved;
      m_waiting.pop_front();
      m_running.push_back(a);
    }
  }

  void record(std::uint64_t step, std::uint64_t& stride) {
    std::uint64_t used = m_running.empty() || !m_shares ? 0 : m_c.shared_prefix_tokens;
    for (const Active& a : m_running) {
      used += a.own_tokens;
    }
    const std::uint64_t reserved = m_reserved + shared_reserved();
    m_sum_used += static_cast<double>(used);
    m_sum_reserved += static_cast<double>(reserved);
    m_sum_running += static_cast<double>(m_running.size());
    m_stats.peak_running = std::max<std::uint64_t>(m_stats.peak_running, m_running.size());
    if (step % stride == 0) {
      m_stats.series.push_back(SimSample{step, used, reserved, m_running.size()});
      if (m_stats.series.size() >= 2 * std::max<std::uint64_t>(m_c.series_points, 1)) {
        std::vector<SimSample> kept;  // halve the resolution: memory stays bounded however long the run
        for (std::size_t i = 0; i < m_stats.series.size(); i += 2) {
          kept.push_back(m_stats.series[i]);
        }
        m_stats.series = std::move(kept);
        stride *= 2;
      }
    }
  }

  void finish() {
    auto done = [&](const Active& a) { return a.generated >= a.pending.request.output_tokens; };
    for (const Active& a : m_running) {
      if (done(a)) {
        m_reserved -= a.reserved;
        ++m_stats.completed;
      }
    }
    m_running.erase(std::remove_if(m_running.begin(), m_running.end(), done), m_running.end());
  }

  AllocatorSpec m_a;
  SimConfig m_c;
  std::uint64_t m_block = 1;
  bool m_shares = false;
  std::uint64_t m_prefix_reserved = 0;
  std::deque<Pending> m_waiting;
  std::vector<Active> m_running;
  std::uint64_t m_reserved = 0;
  double m_sum_used = 0;
  double m_sum_reserved = 0;
  double m_sum_running = 0;
  SimStats m_stats;
};

}  // namespace

std::string AllocatorSpec::label() const {
  switch (kind) {
    case AllocatorKind::contiguous_max:
      return "contiguous, max length";
    case AllocatorKind::contiguous_oracle:
      return "contiguous, oracle length";
    case AllocatorKind::paged:
      return "paged, block " + std::to_string(block_tokens);
    case AllocatorKind::paged_shared:
      break;
  }
  return "paged, block " + std::to_string(block_tokens) + ", shared prefix";
}

double SimStats::used_fraction() const { return capacity == 0 ? 0 : mean_used / static_cast<double>(capacity); }
double SimStats::reserved_fraction() const {
  return capacity == 0 ? 0 : mean_reserved / static_cast<double>(capacity);
}
double SimStats::waste_fraction() const { return mean_reserved <= 0 ? 0 : 1.0 - mean_used / mean_reserved; }

SimStats simulate(const AllocatorSpec& allocator, const SimConfig& config,
                  const std::function<std::optional<SimRequest>()>& next) {
  return Simulator(allocator, config).run(next);
}

}  // namespace kvplan
