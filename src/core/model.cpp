// What-if transforms of a ModelSpec, used by the comparison tables.
#include "kvplan/model.hpp"

#include <type_traits>

#include "kvplan/units.hpp"

namespace kvplan {

std::uint64_t ParamCounts::total() const noexcept {
  std::uint64_t t = 0;
  for (std::uint64_t part : {embedding, lm_head, attention, mlp, experts, norms, vision}) {
    t = sat_add(t, part);
  }
  return t;
}

namespace {

void add_group(std::vector<LayerGroup>& groups, std::uint32_t count, const LayerCacheSpec& spec) {
  for (LayerGroup& g : groups) {
    if (g.spec == spec) {
      g.count += count;
      return;
    }
  }
  groups.push_back(LayerGroup{count, spec});
}

}  // namespace

ModelSpec with_kv_heads(const ModelSpec& m, std::uint32_t heads) {
  ModelSpec out = m;
  out.layers.clear();
  for (const LayerGroup& g : m.layers) {
    LayerCacheSpec spec = g.spec;
    if (auto* full = std::get_if<FullAttention>(&spec)) {
      full->num_key_value_heads = heads;
    } else if (auto* swa = std::get_if<SlidingWindow>(&spec)) {
      swa->attention.num_key_value_heads = heads;
    } else if (std::holds_alternative<LatentAttention>(spec)) {
      FullAttention full_mla = m.dense_attention;
      full_mla.num_key_value_heads = heads;
      spec = full_mla;
    }
    add_group(out.layers, g.count, spec);
  }
  out.dense_attention.num_key_value_heads = heads;
  return out;
}

ModelSpec dense_equivalent(const ModelSpec& m) {
  ModelSpec out = m;
  out.layers = {LayerGroup{m.num_hidden_layers, m.dense_attention}};
  return out;
}

}  // namespace kvplan
