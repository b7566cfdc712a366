// Helpers shared by the engine profiles.
#include "engine_util.hpp"

#include <fmt/format.h>
#include <variant>

#include "kvplan/units.hpp"

namespace kvplan::engines {

std::string gib(std::uint64_t bytes) {
  return fmt::format("{:.2f}", static_cast<double>(bytes) / static_cast<double>(kGiB));
}

std::string mib(std::uint64_t bytes) {
  return fmt::format("{:.2f}", static_cast<double>(bytes) / static_cast<double>(kMiB));
}

std::uint64_t ceil_frac(std::uint64_t bytes, std::uint32_t ppm) {
  const std::uint64_t floor = mul_frac(bytes, ppm, 1'000'000);
  return floor + ((bytes % 1'000'000) * ppm % 1'000'000 != 0 ? 1 : 0);
}

std::vector<LayerType> layer_types(const ModelSpec& m, const DType& kv, std::uint32_t tp) {
  std::vector<LayerType> out;
  for (const LayerGroup& g : m.layers) {
    LayerType t;
    t.layers = g.count;
    t.spec = &g.spec;
    t.bytes_per_token = bytes_per_token(g.spec, kv, tp);
    t.state_bytes = fixed_bytes_per_sequence(g.spec, tp);
    if (const auto* s = std::get_if<SlidingWindow>(&g.spec)) {
      t.kind = LayerType::Kind::sliding;
      t.window = s->window_tokens;
    } else if (std::holds_alternative<RecurrentState>(g.spec)) {
      t.kind = LayerType::Kind::recurrent;
    }
    bool merged = false;
    for (LayerType& o : out) {  // same kind, window and sizes: one type (differing sizes stay apart)
      if (o.kind == t.kind && o.window == t.window && o.bytes_per_token == t.bytes_per_token &&
          o.state_bytes == t.state_bytes) {
        o.layers += t.layers;
        merged = true;
      }
    }
    if (!merged) {
      out.push_back(t);
    }
  }
  return out;
}

}  // namespace kvplan::engines
