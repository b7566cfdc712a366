// `kvplan emit --engine NAME [plan flags]`: the launch command that realizes the plan, from the
// engine's own module: the settings that make it accept --concurrency requests of --seq-len tokens,
// and its memory fraction as given, else its default when that serves the shape, else the smallest
// that does. Sized with the engine's accuracy bound (docs/accuracy.md) as a margin on the KV
// budget, and the first line says so. `kvplan check` on the emitted command passes (a test keeps it so).
#include <fmt/format.h>
#include <ostream>

#include "commands.hpp"
#include "kvplan/error.hpp"
#include "kvplan/quantity.hpp"
#include "kvplan/units.hpp"

namespace kvplan::cli {

int run_emit(const PlanOptions& o, std::ostream& out) {
  if (o.seq_len.empty() || o.batch.empty()) {
    throw Error("emit: give the shape to serve with --seq-len L and --concurrency N");
  }
  PlanRequest q = plan_request(o);
  const Engine& e = q.engine_ref();
  if (&e == &raw_engine()) {
    std::string names;
    for (const Engine* x : all_engines()) {
      if (x != &raw_engine()) {
        names += (names.empty() ? "" : "|") + std::string(x->name());
      }
    }
    throw Error(fmt::format("emit: say which engine to launch with --engine {}", names));
  }
  const Capabilities caps = e.capabilities();
  const std::uint64_t len = *q.seq_len;
  const std::uint64_t n = *q.batch;
  if (!q.max_model_len) {
    q.max_model_len = len;  // the server accepts exactly the planned length
  }
  const Resolved r0 = resolve(q);
  e.serve_shape(r0.batch_per_replica, len, q.knobs);
  q.kv_margin_ppm = caps.margin_ppm;
  bool ok = serves(q);
  const auto knob = e.fraction_knob();
  if (!ok && knob && !q.knobs.has(*knob) && !(e.kv_memory_knob() && q.knobs.has(*e.kv_memory_knob()))) {
    // The smallest fraction that serves the shape with the margin, in 0.001 steps as people write it.
    std::uint64_t lo = 1'000;
    std::uint64_t hi = 1'000'000;
    auto fits = [&](std::uint64_t ppm) {
      PlanRequest alt = q;
      alt.knobs.set(*knob, ppm);
      return serves(alt);
    };
    if (fits(hi)) {
      while (lo < hi) {
        const std::uint64_t mid = lo + (hi - lo) / 2;
        if (fits(mid)) {
          hi = mid;
        } else {
          lo = mid + 1;
        }
      }
      q.knobs.set(*knob, std::min<std::uint64_t>(1'000'000, ceil_div(hi, 1000) * 1000));
      ok = true;
    }
  }
  const Resolved r = resolve(q);
  if (!ok) {
    out << fmt::format("# kvplan: nothing serves {} x {} tokens with {} on {} (with its {:g}% margin); see 'kvplan "
                       "--model {} --gpu {} --seq-len {} --concurrency {} --engine {}'\n",
                       n, len, e.display(), q.hardware.label, caps.margin_ppm / 1e4, q.model_spec().name,
                       q.hardware.label, len, n, e.name());
    return 1;
  }
  Engine::EmitInputs in;
  in.model_id = q.model.id.empty() ? q.model_spec().name : q.model.id;
  in.model_name = q.model_spec().name;
  in.tp = r.tp;
  in.pp = r.pp;
  in.dp = r.dp;
  in.cp = r.cp;
  in.max_model_len = r.max_model_len;
  if (q.kv_dtype) {
    in.kv_dtype = q.kv_dtype;
  }
  if (q.weights) {
    in.quantization = std::string(q.weights->linear.name);
  }
  in.knobs = &q.knobs;
  const std::optional<std::string> cmd = e.emit(in);
  if (!cmd) {
    throw Error(fmt::format("emit: {} has no launch command", e.display()));
  }
  out << fmt::format("# kvplan: {} {} on {}: {} × {} tokens, sized with a {:g}% margin on the KV cache ({}'s "
                     "accuracy bound, docs/accuracy.md)\n",
                     e.display(), q.version.text, q.hardware.label, with_commas(n), with_commas(len), caps.margin_ppm / 1e4,
                     e.display());
  out << *cmd << '\n';
  return 0;
}

}  // namespace kvplan::cli
