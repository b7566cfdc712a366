// The fixes: for a plan that does not serve its shape, the changes that would, each applied to the
// request and planned again, and kept only when the fixed plan fits. The first fix answers the
// cause (vLLM's own --max-model-len for its start-up check, the cap for a concurrency cap); the
// others are the usual knobs. Nothing here is the user's own value: every change moves a setting.
#include <algorithm>
#include <fmt/format.h>

#include "kvplan/catalog.hpp"
#include "kvplan/quantity.hpp"
#include "kvplan/units.hpp"
#include "plan_sections.hpp"

namespace kvplan {
namespace {

constexpr std::size_t kMaxFixes = 4;
constexpr std::uint32_t kMaxGpus = 64;

bool is_amd(const GpuSpec& g) { return g.arch.vendor == GpuVendor::amd; }
bool is_apple(const GpuSpec& g) { return g.arch.vendor == GpuVendor::apple; }
bool is_consumer(const GpuSpec& g) { return g.name.rfind("RTX", 0) == 0; }

// The engine's knob with this target, or nullopt.
std::optional<std::size_t> knob_for(const Engine& e, Target t) {
  const std::span<const Knob> all = e.knobs();
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (all[i].target == t && !all[i].flags.empty()) {
      return i;
    }
  }
  return std::nullopt;
}

class Search {
 public:
  explicit Search(const PlanResult& result)
      : q_(result.request), r_(result.r), engine_(result.request.engine_ref()), base_(result) {}

  // Plans `changes` applied together; keeps them as a fix when the plan then fits. When the fixed
  // plan only misses the engine's concurrency cap, the cap joins the fix.
  bool attempt(std::vector<Change> changes) {
    if (fixes_.size() >= kMaxFixes) {
      return false;
    }
    PlanRequest alt = q_;
    for (const Change& c : changes) {
      alt = apply(alt, c);
    }
    PlanResult x = plan(alt, Depth::verdict);
    // A change that leaves only the engine's own shape settings binding (its concurrency cap, or a
    // llama.cpp slot too short) takes the settings that serve the shape along.
    if (!x.verdict.fits && (x.verdict.cause == Cause::concurrency_cap || x.verdict.cause == Cause::too_long)) {
      std::vector<Change> shape = shape_changes(alt, x.r);
      for (const Change& c : shape) {
        alt = apply(alt, c);
      }
      changes.insert(changes.end(), shape.begin(), shape.end());
      x = plan(alt, Depth::verdict);
    }
    if (!x.verdict.fits) {
      return false;
    }
    fixes_.push_back(Fix{std::move(changes), x.engine.kv_budget_bytes, x.total_concurrency, x.r.gpus_used, x.r.seq_len});
    return true;
  }

  // The changes of the engine's serve_shape for the request's shape, against `q`'s own knobs; with a
  // max_model_len setting too short for the shape, that setting as well.
  std::vector<Change> shape_changes(const PlanRequest& q, const Resolved& r) const {
    std::vector<Change> out;
    if (r.seq_len > r.max_model_len && (knob_for(engine_, Target::max_model_len) || q.origin == Origin::flags)) {
      out.push_back(Change::of(Change::Kind::max_model_len, r.seq_len));
    }
    KnobSet k = q.knobs;
    engine_.serve_shape(r.batch_per_replica, r.seq_len, k);
    for (const auto& [index, value] : k.values()) {
      const KnobValue* old = q.knobs.find(index);
      if (old != nullptr && *old == value) {
        continue;
      }
      Change c = Change::set(index, 0);
      if (const auto* n = std::get_if<std::uint64_t>(&value)) {
        c.value = *n;
      } else if (const auto* b = std::get_if<bool>(&value)) {
        c.value = *b ? 1 : 0;
      }
      out.push_back(c);
    }
    return out;
  }

  // The smallest value of the engine's fraction knob above the current one that fits.
  void fraction() {
    const auto knob = engine_.fraction_knob();
    if (!knob || (engine_.kv_memory_knob() && q_.knobs.has(*engine_.kv_memory_knob()))) {
      return;
    }
    auto fits = [&](std::uint64_t ppm) {
      return plan(apply(q_, Change::set(*knob, ppm)), Depth::verdict).verdict.fits;
    };
    std::uint64_t lo = 1'000;
    std::uint64_t hi = 1'000'000;
    if (!fits(hi)) {
      return;
    }
    while (lo < hi) {  // more memory never serves less
      const std::uint64_t mid = lo + (hi - lo) / 2;
      if (fits(mid)) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    const std::uint64_t rounded = std::min<std::uint64_t>(1'000'000, ceil_div(hi, 1000) * 1000);
    attempt({Change::set(*knob, rounded)});
  }

  // The fewest MoE layers whose experts stay in host memory (llama.cpp's --n-cpu-moe) for the rest to fit:
  // more layers off the GPU never need more GPU memory, so a bisection over the layer count.
  void expert_offload() {
    const auto knob = engine_.expert_offload_knob();
    if (!knob || q_.model_spec().moe_layers.empty() || q_.knobs.has(*knob) ||
        !engine_.has_knob(*knob, q_.version.key)) {
      return;
    }
    const std::size_t index = *knob;
    const std::optional<std::uint64_t> n =
        smallest(q_, 1, q_.model_spec().num_hidden_layers, [&](std::uint64_t v) { return Change::set(index, v); });
    if (n) {
      attempt({Change::set(index, *n)});
    }
  }

  void tensor_parallel() {
    if (!engine_.capabilities().splits_heads) {
      return;
    }
    for (std::uint32_t tp = r_.tp * 2; tp <= kMaxGpus; tp *= 2) {
      if (tp_problem(q_.model_spec(), tp)) {
        continue;
      }
      if (attempt({Change::of(Change::Kind::tp, tp)})) {
        return;
      }
    }
  }

  void replicas() {
    if (!engine_.capabilities().data_parallel) {
      return;
    }
    const std::uint32_t group = r_.gpus_used / r_.dp;
    for (std::uint32_t dp = r_.dp + 1; dp * group <= kMaxGpus; ++dp) {
      if (attempt({Change::of(Change::Kind::gpus, dp)})) {
        return;
      }
    }
  }

  void weights() {
    for (const char* w : {"fp8", "int4"}) {
      const DType& dt = *find_dtype(weight_dtypes(), w);
      const DType& now = r_.weights.linear;
      if (dt.block_bytes * now.block_elems >= now.block_bytes * dt.block_elems) {
        continue;  // not smaller than what is loaded now
      }
      if (attempt({Change::format(Change::Kind::weights, dt)})) {
        return;
      }
    }
  }

  void kv_fp8() {
    if (r_.kv_dtype.block_bytes <= r_.kv_dtype.block_elems) {
      return;  // already 8 bits or fewer per element
    }
    // Engines that name the KV dtype get --kv-cache-dtype fp8; llama.cpp gets q8_0 for K and V.
    if (knob_for(engine_, Target::kv_dtype) || q_.origin == Origin::flags) {
      const char* name = engine_.capabilities().splits_heads ? "fp8" : "q8_0";
      attempt({Change::format(Change::Kind::kv_dtype, *find_dtype(kv_dtypes(), name))});
      return;
    }
    std::vector<Change> changes;
    const std::span<const Knob> all = engine_.knobs();
    for (std::size_t i = 0; i < all.size(); ++i) {
      if (all[i].type == KnobType::dtype && all[i].target == Target::own) {
        changes.push_back(Change::set(i, *find_dtype(kv_dtypes(), "q8_0")));
      }
    }
    if (!changes.empty()) {
      attempt(changes);
    }
  }

  void bigger_gpu() {
    if (q_.hardware.gpu == nullptr && q_.origin != Origin::flags) {
      return;
    }
    const GpuSpec* now = q_.hardware.gpu;
    const GpuSpec* best = nullptr;
    // The smallest bigger GPU that fits: of the user's vendor and class first (a 4090 user gets a 5090,
    // not a data-centre part), then of the vendor.
    for (const bool same_class : {true, false}) {
      for (const GpuSpec& g : gpu_catalog()) {
        if (!g.slice_of.empty() || g.memory_bytes <= q_.hardware.vram_bytes ||
            (best != nullptr && g.memory_bytes >= best->memory_bytes)) {
          continue;
        }
        if ((is_apple(g) && !q_.engine_ref().capabilities().metal) ||
            (now != nullptr && (is_amd(g) != is_amd(*now) || is_apple(g) != is_apple(*now) ||
                                (same_class && is_consumer(g) != is_consumer(*now))))) {
          continue;
        }
        PlanRequest alt = apply(q_, Change::to_gpu(g));
        if (plan(alt, Depth::verdict).verdict.fits) {
          best = &g;
        }
      }
      if (best != nullptr) {
        break;
      }
    }
    if (best != nullptr) {
      attempt({Change::to_gpu(*best)});
    }
  }

  void max_model_len(std::uint64_t len) {
    if (len == 0 || len == r_.max_model_len) {
      return;
    }
    if (knob_for(engine_, Target::max_model_len) || q_.origin == Origin::flags) {
      attempt({Change::of(Change::Kind::max_model_len, len)});
      return;
    }
    // Engines without a max_model_len setting (llama.cpp) size the request through their own knobs.
    Resolved r = r_;
    r.seq_len = len;
    attempt(shape_changes(q_, r));
  }

  void cap() { attempt(shape_changes(q_, r_)); }

  void gpu_count() {
    attempt({Change::of(Change::Kind::gpu_count, r_.gpus_used)});
  }

  void shape() {
    if (q_.origin != Origin::flags) {
      return;  // a deployment's required shape is not the user's to shrink
    }
    if (r_.batch_given && base_.total_concurrency > 0 && base_.total_concurrency < r_.batch) {
      attempt({Change::of(Change::Kind::batch, base_.total_concurrency)});  // the batch is the limit
    } else if (r_.seq_len_given && base_.longest_at_batch_1 && *base_.longest_at_batch_1 < r_.seq_len) {
      attempt({Change::of(Change::Kind::seq_len, *base_.longest_at_batch_1)});
    }
  }

  std::vector<Fix> take() { return std::move(fixes_); }

 private:
  const PlanRequest& q_;
  const Resolved& r_;
  const Engine& engine_;
  const PlanResult& base_;
  std::vector<Fix> fixes_;
};

}  // namespace

PlanRequest apply(const PlanRequest& q, const Change& c) {
  PlanRequest a = q;
  const Resolved r = resolve(q);
  const std::uint32_t cp_gpus = q.engine_ref().capabilities().context == ContextParallel::ring ? r.cp : 1;
  auto need = [&](std::uint32_t gpus) {
    if (a.hardware.count && *a.hardware.count < gpus) {
      a.hardware.count = gpus;
    }
  };
  switch (c.kind) {
    case Change::Kind::max_model_len:
      a.max_model_len = c.value;
      break;
    case Change::Kind::tp:
      a.tp = static_cast<std::uint32_t>(c.value);
      a.dp = r.dp;
      need(static_cast<std::uint32_t>(c.value) * r.pp * cp_gpus * r.dp);
      break;
    case Change::Kind::gpus:
      a.tp = r.tp;
      a.dp = static_cast<std::uint32_t>(c.value);
      need(r.tp * r.pp * cp_gpus * static_cast<std::uint32_t>(c.value));
      break;
    case Change::Kind::gpu_count:
      a.hardware.count = static_cast<std::uint32_t>(c.value);
      a.tp = r.tp;
      a.dp = r.dp;
      break;
    case Change::Kind::weights:
      a.weights = weight_format(q.model_spec(), c.dtype->name);
      a.weights_label = std::string(c.dtype->name);
      break;
    case Change::Kind::kv_dtype:
      a.kv_dtype = c.dtype;
      break;
    case Change::Kind::gpu:
      a.hardware.gpu = c.gpu;
      a.hardware.vram_bytes = c.gpu->memory_bytes;
      a.hardware.label = std::string(c.gpu->name);
      a.tp = r.tp;
      a.dp = r.dp;
      break;
    case Change::Kind::knob: {
      const Knob& k = q.engine_ref().knobs()[c.knob];
      if (c.dtype) {
        a.knobs.set(c.knob, *c.dtype);
      } else if (k.type == KnobType::flag) {
        a.knobs.set(c.knob, c.value != 0);
      } else {
        a.knobs.set(c.knob, c.value);
      }
      if (const auto kv = q.engine_ref().kv_memory_knob(); kv && c.knob == q.engine_ref().fraction_knob()) {
        a.knobs.erase(*kv);  // a fraction replaces an explicit KV size
      }
      break;
    }
    case Change::Kind::batch:
      a.batch = c.value;
      break;
    case Change::Kind::seq_len:
      a.seq_len = c.value;
      break;
  }
  return a;
}

std::vector<Fix> find_fixes(const PlanResult& result) {
  Search s(result);
  const Resolved& r = result.r;
  switch (result.verdict.cause) {
    case Cause::fits:
    case Cause::refused:
      break;
    case Cause::gpus:
      s.gpu_count();
      break;
    case Cause::startup_too_long:
      // vLLM's own advice first: a max_model_len that fits (when the shape does not need more).
      if (!r.seq_len_given || r.seq_len <= result.verdict.limit) {
        s.max_model_len(result.verdict.limit);
      }
      s.fraction();
      s.kv_fp8();
      s.tensor_parallel();
      s.bigger_gpu();
      break;
    case Cause::weights:
    case Cause::no_kv_memory:
      s.expert_offload();
      s.tensor_parallel();
      s.weights();
      s.fraction();
      s.bigger_gpu();
      break;
    case Cause::too_long:
      s.max_model_len(r.seq_len);
      break;
    case Cause::capacity:
      s.fraction();
      s.kv_fp8();
      s.cap();  // a llama.cpp cache split into slots: the slots that serve the shape
      s.weights();
      s.tensor_parallel();
      s.replicas();
      s.bigger_gpu();
      s.shape();
      break;
    case Cause::concurrency_cap:
      s.cap();
      s.replicas();
      s.shape();
      break;
    case Cause::weights_unknown:
      // What fits even with every layer at 16 bits (plan() checks both bounds of each fix).
      s.tensor_parallel();
      s.fraction();
      s.bigger_gpu();
      break;
  }
  return s.take();
}

}  // namespace kvplan
