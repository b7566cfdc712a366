// The inverse questions (vllm#22291, vllm#33263, llmfit#140): for --batch N sequences of --seq-len L,
// the smallest setting of the engine's memory fraction that serves them on this GPU, and the fewest
// GPUs of this type (replicas × TP × PP, and context parallelism where the engine has it and it
// saves memory) that do. Every answer is a search over plan() itself, engine profiles included, and
// keeps the engine's accuracy bound (docs/accuracy.md) as a safety margin on the KV budget.
#include <fmt/format.h>
#include <functional>

#include "kvplan/units.hpp"
#include "plan_sections.hpp"

namespace kvplan {
namespace {

constexpr std::uint32_t kMaxGpus = 64;

// Fewest GPUs first; within a count, more replicas (smaller tensor-parallel groups) first, then
// pipeline, then context parallelism.
void fewest_gpus(const PlanRequest& q, Inverse& inv) {
  const Engine& engine = q.engine_ref();
  const Capabilities caps = engine.capabilities();
  if (!caps.splits_heads || q.hardware.gpu == nullptr) {
    return;
  }
  inv.searched_gpus = true;
  const bool ring = caps.context == ContextParallel::ring;
  const bool dcp = caps.context == ContextParallel::decode_in_tp;
  for (std::uint32_t gpus = 1; gpus <= kMaxGpus; ++gpus) {
    // Most replicas first (they add throughput without communication), then tensor before pipeline
    // parallelism, then context parallelism.
    for (std::uint32_t dp = gpus; dp >= 1; --dp) {
      if (gpus % dp != 0 || (!caps.data_parallel && dp > 1)) {
        continue;
      }
      const std::uint32_t group = gpus / dp;
      for (std::uint32_t pp = 1; pp <= group; pp *= 2) {
        if (!caps.pipeline && pp > 1) {
          break;
        }
        for (std::uint32_t cp = 1; cp <= (ring || dcp ? group : 1); cp *= 2) {
          const std::uint32_t tp_gpus = ring ? cp * pp : pp;
          if (group % tp_gpus != 0) {
            continue;
          }
          const std::uint32_t tp = group / tp_gpus;
          if (dcp && (cp > tp || tp % cp != 0)) {
            continue;
          }
          PlanRequest alt = q;
          alt.hardware.count = gpus;
          alt.tp = tp;
          alt.pp = pp;
          alt.cp = cp;
          alt.dp = dp;
          if (split_problem(alt, resolve(alt))) {
            continue;
          }
          if (serves(alt)) {
            inv.fewest_gpus = gpus;
            inv.tp = tp;
            inv.pp = pp;
            inv.cp = cp;
            inv.dp = dp;
            return;
          }
        }
      }
    }
  }
}

}  // namespace

std::optional<std::uint64_t> smallest(const PlanRequest& q, std::uint64_t lo, std::uint64_t hi,
                                      const std::function<Change(std::uint64_t)>& change) {
  auto ok = [&](std::uint64_t v) { return serves(apply(q, change(v))); };
  if (!ok(hi)) {
    return std::nullopt;
  }
  while (lo < hi) {  // the knob is monotone: more memory never serves less
    const std::uint64_t mid = lo + (hi - lo) / 2;
    if (ok(mid)) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return hi;
}

Inverse find_inverse(const PlanRequest& request, const Resolved& r) {
  const Engine& engine = request.engine_ref();
  Inverse inv;
  inv.margin_ppm = engine.capabilities().margin_ppm;
  PlanRequest q = request;
  q.kv_margin_ppm = inv.margin_ppm;
  if (const auto knob = engine.fraction_knob()) {
    PlanRequest base = q;
    if (const auto kv = engine.kv_memory_knob()) {
      base.knobs.erase(*kv);
    }
    if (const auto ppm = smallest(base, 1'000, 1'000'000, [&](std::uint64_t v) { return Change::set(*knob, v); })) {
      inv.min_fraction_ppm = static_cast<std::uint32_t>(std::min<std::uint64_t>(1'000'000, ceil_div(*ppm, 1000) * 1000));
    }
  }
  if (const auto kv = engine.kv_memory_knob()) {
    inv.has_kv_memory_knob = true;
    PlanRequest base = q;
    if (const auto f = engine.fraction_knob()) {
      base.knobs.erase(*f);
    }
    const std::uint64_t weights = weight_bytes_per_gpu(request.model_spec().params, r.weights, r.tp * r.pp);
    const std::uint64_t room = std::max<std::uint64_t>(1, sat_sub(request.hardware.vram_bytes, weights));
    inv.min_kv_memory_bytes = smallest(base, 1, room, [&](std::uint64_t v) { return Change::set(*kv, v); });
  }
  if (!engine.fraction_knob() && !engine.kv_memory_knob()) {
    // Engines sized by their own slots (llama.cpp): the settings that give every sequence its length.
    KnobSet k = q.knobs;
    engine.serve_shape(r.batch, r.seq_len, k);
    PlanRequest alt = q;
    alt.knobs = k;
    for (const auto& [index, value] : k.values()) {
      Change c = Change::set(index, 0);
      if (const auto* n = std::get_if<std::uint64_t>(&value)) {
        c.value = *n;
      } else if (const auto* b = std::get_if<bool>(&value)) {
        c.value = *b ? 1 : 0;
      } else if (const auto* d = std::get_if<DType>(&value)) {
        c.dtype = *d;
      }
      inv.slots.push_back(c);
    }
    inv.slots_fit = serves(alt);
  }
  fewest_gpus(q, inv);
  return inv;
}

}  // namespace kvplan
