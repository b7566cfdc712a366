// The continuous-batching simulation: one pass per allocator over the same request stream.
#include "kvplan/simulate.hpp"

#include <algorithm>
#include <deque>
#include <functional>
#include <queue>

#include "kvplan/units.hpp"

namespace kvplan {
namespace {

struct Pending {
  SimRequest request;
  std::uint64_t done = 0;  // output tokens generated before a preemption (recomputed as prompt)
};

// A running request of `samples` sequences (parallel sampling or beams). Its size is a function of the
// step, so a decode step costs nothing per request: at step s each sequence holds
// sample_base + (s - admit_step) tokens, and the request shared_part + samples x that.
struct Active {
  Pending pending;
  std::uint64_t admit_step = 0;
  std::uint64_t samples = 1;
  std::uint64_t shared_part = 0;      // prompt blocks its sequences share (the sharing allocator)
  std::uint64_t sample_base = 0;      // tokens of one sequence at admission, its first output included
  std::uint64_t sample_reserved = 0;  // slots allocated to one sequence
  std::uint64_t finish_step = 0;
  std::uint64_t reserved() const { return shared_part + samples * sample_reserved; }
};

struct Event {
  std::uint64_t seq = 0;   // admission sequence number: a preempted request's old events match nothing
  std::uint32_t slot = 0;  // where the request lives in RunningSet
  bool finish = false;     // else: it needs its next block at this step
  std::uint64_t step = 0;  // when it is due (a bucket holds the steps of several laps of the wheel)
};

// The running requests in slots (constant-time lookup by slot and sequence number) and in admission
// order (the newest is preempted first). Finished slots are reused and the order list is compacted,
// so memory follows the running requests, not the finished ones.
class RunningSet {
 public:
  std::size_t size() const { return m_live; }
  bool empty() const { return m_live == 0; }

  bool contains(std::uint64_t seq, std::uint32_t slot) const { return slot < m_seq.size() && m_seq[slot] == seq; }
  Active& at(std::uint32_t slot) { return m_slots[slot]; }  // for a slot that contains() confirmed

  std::uint32_t insert(std::uint64_t seq, const Active& a) {
    std::uint32_t slot = 0;
    if (m_free.empty()) {
      slot = static_cast<std::uint32_t>(m_slots.size());
      m_slots.push_back(a);
      m_seq.push_back(seq);
    } else {
      slot = m_free.back();
      m_free.pop_back();
      m_slots[slot] = a;
      m_seq[slot] = seq;
    }
    m_order.emplace_back(seq, slot);
    ++m_live;
    return slot;
  }

  void erase(std::uint64_t seq, std::uint32_t slot) {
    if (!contains(seq, slot)) {
      return;
    }
    m_seq[slot] = kNone;
    m_free.push_back(slot);
    --m_live;
    if (m_order.size() > 2 * m_live + 64) {
      std::erase_if(m_order, [&](const auto& o) { return m_seq[o.second] != o.first; });
    }
  }

  // The most recently admitted running request (the set must not be empty).
  std::pair<std::uint64_t, std::uint32_t> newest() {
    while (m_seq[m_order.back().second] != m_order.back().first) {
      m_order.pop_back();
    }
    return m_order.back();
  }

 private:
  static constexpr std::uint64_t kNone = ~std::uint64_t{0};
  std::vector<Active> m_slots;
  std::vector<std::uint64_t> m_seq;  // per slot: the sequence number living there, or kNone
  std::vector<std::uint32_t> m_free;
  std::vector<std::pair<std::uint64_t, std::uint32_t>> m_order;
  std::size_t m_live = 0;
};

class Simulator {
 public:
  Simulator(const AllocatorSpec& a, const SimConfig& c) : m_a(a), m_c(c) {
    m_paged = a.kind == AllocatorKind::paged || a.kind == AllocatorKind::paged_shared;
    m_block = m_paged ? std::max<std::uint64_t>(a.block_tokens, 1) : 1;
    m_shares = a.kind == AllocatorKind::paged_shared;
    m_prefix_reserved = m_shares ? round_up(c.shared_prefix_tokens, m_block) : 0;
    // A power of two (the bucket of a step is a mask), at most kMaxWheel buckets however long the
    // requests may be: a bucket holds the events of every lap, each with its own step, so memory does
    // not grow with max_model_len. Block events are at most one block ahead, so the scan for the next
    // one never needs more than a lap.
    constexpr std::uint64_t kMaxWheel = std::uint64_t{1} << 16;
    std::uint64_t horizon = 1;
    while (horizon < c.max_model_len + m_block + 2 && horizon < kMaxWheel) {
      horizon *= 2;
    }
    m_wheel.resize(horizon);
    m_mask = horizon - 1;
  }

  // Prompt tokens a request's sequences share: whole prompt blocks, when the allocator shares (the
  // last, partial block is copied on write by each sequence, as vLLM's block manager does).
  std::uint64_t shared_part(const Pending& p) const {
    return m_shares ? p.request.prompt_tokens / m_block * m_block : 0;
  }

  // Tokens of one sequence at admission: its part of the prompt (the system prompt too, when not
  // shared), what it generated before a preemption (recomputed), and its first output token.
  std::uint64_t sample_base(const Pending& p) const {
    const std::uint64_t prompt = m_shares ? p.request.prompt_tokens - shared_part(p)
                                          : m_c.shared_prefix_tokens + p.request.prompt_tokens;
    return prompt + p.done + 1;
  }

  // Slots one sequence needs to start, and at most.
  std::uint64_t sample_initial(const Pending& p) const {
    switch (m_a.kind) {
      case AllocatorKind::contiguous_max:
        return m_c.max_model_len;
      case AllocatorKind::contiguous_oracle:
        return m_c.shared_prefix_tokens + p.request.prompt_tokens + p.request.output_tokens;
      case AllocatorKind::paged:
      case AllocatorKind::paged_shared:
        break;
    }
    return round_up(sample_base(p), m_block);
  }
  std::uint64_t sample_peak(const Pending& p) const {
    if (m_a.kind == AllocatorKind::contiguous_max || m_a.kind == AllocatorKind::contiguous_oracle) {
      return sample_initial(p);
    }
    return round_up(sample_base(p) - p.done - 1 + p.request.output_tokens, m_block);
  }

  // Token slots a request needs to start, and the most it ever holds (to reject what never fits).
  std::uint64_t initial(const Pending& p) const { return shared_part(p) + m_c.samples * sample_initial(p); }
  std::uint64_t peak(const Pending& p) const {
    return shared_part(p) + m_c.samples * sample_peak(p) + m_prefix_reserved;
  }

  SimStats run(const std::function<std::optional<SimRequest>()>& next) {
    m_next = &next;
    m_upcoming = next();
    std::optional<SimRequest>& upcoming = m_upcoming;
    std::uint64_t step = upcoming ? upcoming->arrival_step : 0;
    const std::uint64_t first_step = step;
    std::uint64_t stride = 1;
    while (upcoming || !m_waiting.empty() || !m_running.empty()) {
      if (m_waiting.empty() && m_running.empty() && upcoming && upcoming->arrival_step > step) {
        step = upcoming->arrival_step;  // idle: jump to the next arrival
      }
      arrive(step);
      m_used += m_growth;  // every running sequence adds a token
      const std::uint64_t preempted_before = m_stats.preemptions;
      grow(step);
      if (m_stats.preemptions == preempted_before) {
        admit(step);  // as vLLM's scheduler: no new prefills in a step that had to preempt
      }
      record(step, stride);
      finish(step);
      step = skip_quiet_steps(step, upcoming, stride) + 1;
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
  std::uint64_t shared_reserved() const { return m_shares && !m_running.empty() ? m_prefix_reserved : 0; }
  std::uint64_t free_slots() const { return m_c.capacity_tokens - m_reserved - shared_reserved(); }
  std::vector<Event>& bucket(std::uint64_t step) { return m_wheel[step & m_mask]; }
  // The events due at `step`, moved out of the wheel into a reused buffer (no allocation per step).
  std::vector<Event>& take(std::uint64_t step) {
    std::vector<Event>& b = bucket(step);
    m_due.clear();
    std::size_t kept = 0;
    for (const Event& e : b) {
      if (e.step == step) {
        m_due.push_back(e);
        m_pending_blocks -= e.finish ? 0 : 1;
      } else {
        b[kept++] = e;  // a later lap's
      }
    }
    b.resize(kept);
    return m_due;
  }

  bool due_at(std::uint64_t step) {
    const std::vector<Event>& b = bucket(step);
    return std::any_of(b.begin(), b.end(), [step](const Event& e) { return e.step == step; });
  }

  void add_event(std::uint64_t step, Event e) {
    e.step = step;
    bucket(step).push_back(e);
    if (e.finish) {
      m_finish_steps.push(step);
    } else {
      ++m_pending_blocks;
    }
  }

  // The next step after `step` with an event: the earliest finish (a heap, one entry per admission),
  // or an earlier block event, found by scanning the wheel up to it (only while any is pending).
  std::optional<std::uint64_t> next_event_step(std::uint64_t step) {
    while (!m_finish_steps.empty() && m_finish_steps.top() <= step) {
      m_finish_steps.pop();
    }
    std::optional<std::uint64_t> next;
    if (!m_finish_steps.empty()) {
      next = m_finish_steps.top();
    }
    if (m_pending_blocks > 0) {
      const std::uint64_t limit = next ? *next : step + m_wheel.size();
      for (std::uint64_t u = step + 1; u < limit; ++u) {
        if (due_at(u)) {
          return u;
        }
      }
    }
    return next;
  }

  // Until the next event nothing can change but the running requests' lengths: the head of the queue
  // stays blocked, or (queue empty) nothing arrives before `upcoming`. Account for those steps in
  // closed form and return the last of them (or `step` when the next step has work).
  std::uint64_t skip_quiet_steps(std::uint64_t step, const std::optional<SimRequest>& upcoming, std::uint64_t& stride) {
    if (m_running.empty() || head_can_start()) {
      return step;  // the next step has work: completions at this step may have made room
    }
    const std::optional<std::uint64_t> next_event = next_event_step(step);
    if (!next_event) {
      return step;
    }
    std::uint64_t until = *next_event;
    if (m_waiting.empty() && upcoming) {
      until = std::min(until, upcoming->arrival_step);
    }
    if (until <= step + 1) {
      return step;
    }
    const std::uint64_t quiet = until - step - 1;
    const std::uint64_t n = m_running.size();
    const std::uint64_t growth = m_growth;  // tokens added per step
    const std::uint64_t prefix = m_shares ? m_c.shared_prefix_tokens : 0;
    const double base = static_cast<double>(m_used + prefix);
    const double k = static_cast<double>(quiet);
    m_sum_used += k * base + static_cast<double>(growth) * k * (k + 1) / 2;
    m_sum_reserved += k * static_cast<double>(m_reserved + shared_reserved());
    m_sum_running += k * static_cast<double>(n);
    for (std::uint64_t u = (step / stride + 1) * stride; u < until; u = (u / stride + 1) * stride) {
      m_stats.series.push_back(SimSample{u, m_used + prefix + (u - step) * growth, m_reserved + shared_reserved(), n});
      thin_series(stride);
    }
    m_used += quiet * growth;
    return until - 1;
  }

  // Whether the next admission attempt would change anything: admit, or reject, the head.
  bool head_can_start() const {
    if (m_waiting.empty()) {
      return false;
    }
    const Pending& p = m_waiting.front();
    const std::uint64_t total = m_c.shared_prefix_tokens + p.request.prompt_tokens + p.request.output_tokens;
    if (total > m_c.max_model_len || peak(p) > m_c.capacity_tokens) {
      return true;
    }
    return initial(p) + (m_shares && m_running.empty() ? m_prefix_reserved : 0) <= free_slots();
  }

  void thin_series(std::uint64_t& stride) {
    if (m_stats.series.size() >= 2 * std::max<std::uint64_t>(m_c.series_points, 1)) {
      std::vector<SimSample> kept;  // halve the resolution: memory stays bounded however long the run
      for (std::size_t i = 0; i < m_stats.series.size(); i += 2) {
        kept.push_back(m_stats.series[i]);
      }
      m_stats.series = std::move(kept);
      stride *= 2;
    }
  }
  std::uint64_t tokens_at(const Active& a, std::uint64_t step) const {
    return a.shared_part + a.samples * (a.sample_base + (step - a.admit_step));
  }

  // Paged requests whose tokens cross a block edge now take a block, preempting the most recently
  // admitted request (vLLM's recompute policy) while none is free.
  void grow(std::uint64_t step) {
    std::vector<Event>& due = take(step);
    // In admission order, as a scheduler walks its running queue.
    std::sort(due.begin(), due.end(), [](const Event& x, const Event& y) { return x.seq < y.seq; });
    for (const Event& e : due) {
      if (e.finish) {
        bucket(step).push_back(e);  // finishes are handled after the step is recorded
        continue;
      }
      if (!m_running.contains(e.seq, e.slot)) {
        continue;  // preempted since
      }
      while (free_slots() < m_c.samples * m_block) {  // every sequence of it crosses the edge at once
        const auto [victim, victim_slot] = m_running.newest();
        preempt(victim, victim_slot, step);
        if (victim == e.seq) {
          break;
        }
      }
      if (!m_running.contains(e.seq, e.slot)) {
        continue;  // it was the newest and preempted itself
      }
      Active& a = m_running.at(e.slot);
      a.sample_reserved += m_block;
      m_reserved += a.samples * m_block;
      schedule_block(e.seq, e.slot, a, step);
    }
  }

  void schedule_block(std::uint64_t seq, std::uint32_t slot, const Active& a, std::uint64_t step) {
    // The step at which each sequence holds sample_reserved + 1 tokens.
    const std::uint64_t at = a.admit_step + (a.sample_reserved + 1 - a.sample_base);
    if (m_paged && at <= a.finish_step && at > step) {
      add_event(at, Event{seq, slot, false, at});
    }
  }

  void preempt(std::uint64_t seq, std::uint32_t slot, std::uint64_t step) {
    const Active& a = m_running.at(slot);
    m_used -= tokens_at(a, step);
    m_reserved -= a.reserved();
    m_growth -= a.samples;
    Pending p = a.pending;
    p.done += step - a.admit_step;  // the token of this step is not produced: it is preempted first
    m_waiting.push_front(p);
    m_running.erase(seq, slot);
    ++m_stats.preemptions;
  }

  // Requests that have arrived by `step` join the back of the queue, up to kQueued of them at a time:
  // the rest have arrived too and wait behind them in the stream, in order, so that a burst of 10^8
  // requests at step 0 does not hold 10^8 requests in memory.
  void arrive(std::uint64_t step) {
    constexpr std::size_t kQueued = 1 << 16;
    while (m_upcoming && m_upcoming->arrival_step <= step && m_waiting.size() < kQueued) {
      m_waiting.push_back(Pending{*m_upcoming, 0});
      ++m_stats.requests;
      m_upcoming = (*m_next)();
    }
  }

  void admit(std::uint64_t step) {
    while (!m_waiting.empty() || (m_upcoming && m_upcoming->arrival_step <= step)) {
      if (m_waiting.empty()) {
        arrive(step);
      }
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
      a.admit_step = step;
      a.samples = m_c.samples;
      a.shared_part = shared_part(p);
      a.sample_base = sample_base(p);
      a.sample_reserved = sample_initial(p);
      a.finish_step = step + (p.request.output_tokens - std::min(p.request.output_tokens, p.done + 1));
      m_reserved += a.reserved();
      m_used += tokens_at(a, step);
      m_growth += a.samples;
      const std::uint64_t seq = m_next_seq++;
      const std::uint32_t slot = m_running.insert(seq, a);
      add_event(a.finish_step, Event{seq, slot, true, a.finish_step});
      schedule_block(seq, slot, a, step);
      m_waiting.pop_front();
    }
  }

  void record(std::uint64_t step, std::uint64_t& stride) {
    const std::uint64_t used = m_used + (m_shares && !m_running.empty() ? m_c.shared_prefix_tokens : 0);
    const std::uint64_t reserved = m_reserved + shared_reserved();
    m_sum_used += static_cast<double>(used);
    m_sum_reserved += static_cast<double>(reserved);
    m_sum_running += static_cast<double>(m_running.size());
    m_stats.peak_running = std::max<std::uint64_t>(m_stats.peak_running, m_running.size());
    if (step % stride == 0) {
      m_stats.series.push_back(SimSample{step, used, reserved, m_running.size()});
      thin_series(stride);
    }
  }

  void finish(std::uint64_t step) {
    std::vector<Event>& due = take(step);
    for (const Event& e : due) {
      if (!e.finish || !m_running.contains(e.seq, e.slot)) {
        continue;
      }
      const Active& a = m_running.at(e.slot);
      m_used -= tokens_at(a, step);
      m_reserved -= a.reserved();
      m_growth -= a.samples;
      m_running.erase(e.seq, e.slot);
      ++m_stats.completed;
    }
  }

  AllocatorSpec m_a;
  SimConfig m_c;
  bool m_paged = false;
  std::uint64_t m_block = 1;
  bool m_shares = false;
  std::uint64_t m_prefix_reserved = 0;
  std::deque<Pending> m_waiting;
  const std::function<std::optional<SimRequest>()>* m_next = nullptr;
  std::optional<SimRequest> m_upcoming;  // the next request of the stream not yet in m_waiting
  RunningSet m_running;
  std::vector<Event> m_due;
  std::vector<std::vector<Event>> m_wheel;    // events by step, modulo the longest horizon
  std::uint64_t m_mask = 0;
  std::priority_queue<std::uint64_t, std::vector<std::uint64_t>, std::greater<>> m_finish_steps;
  std::uint64_t m_pending_blocks = 0;  // block events in the wheel
  std::uint64_t m_next_seq = 0;
  std::uint64_t m_reserved = 0;
  std::uint64_t m_used = 0;                   // token states held, the shared prefix aside
  std::uint64_t m_growth = 0;                 // running sequences: tokens added per step
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
  return "paged, block " + std::to_string(block_tokens) + ", sharing";
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
