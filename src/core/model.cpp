// What-if transforms of a ModelSpec, used by the comparison tables.
#include "kvplan/model.hpp"

#include <algorithm>
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

std::uint32_t add_group(std::vector<LayerGroup>& groups, std::uint32_t count, const LayerCacheSpec& spec) {
  for (std::size_t i = 0; i < groups.size(); ++i) {
    if (groups[i].spec == spec) {
      groups[i].count += count;
      return static_cast<std::uint32_t>(i);
    }
  }
  groups.push_back(LayerGroup{count, spec});
  return static_cast<std::uint32_t>(groups.size() - 1);
}

}  // namespace

ModelSpec with_kv_heads(const ModelSpec& m, std::uint32_t heads) {
  ModelSpec out = m;
  out.layers.clear();
  std::vector<std::uint32_t> remap;
  for (const LayerGroup& g : m.layers) {
    auto set = [&](FullAttention a) {
      a.num_key_value_heads = heads;
      return a;
    };
    // Attention layers take the new head count; MLA is written out as its dense attention; layers
    // without per-head KV (state, shared, indexer, none) stay as they are.
    const LayerCacheSpec spec = std::visit(
        overloaded{
            [&](const FullAttention& a) -> LayerCacheSpec { return set(a); },
            [&](const SlidingWindow& w) -> LayerCacheSpec { return SlidingWindow{set(w.attention), w.window_tokens}; },
            [&](const LatentAttention&) -> LayerCacheSpec { return set(m.dense_attention); },
            [&](const RecurrentState& r) -> LayerCacheSpec { return r; },
            [&](const ChunkedLocal& c) -> LayerCacheSpec { return ChunkedLocal{set(c.attention), c.chunk_tokens}; },
            [&](const CrossAttention& c) -> LayerCacheSpec { return CrossAttention{set(c.attention), c.encoder_tokens}; },
            [&](const SharedKV& s) -> LayerCacheSpec { return s; },
            [&](const IndexerCache& i) -> LayerCacheSpec { return i; },
            [&](const NoCache& n) -> LayerCacheSpec { return n; },
        },
        g.spec);
    remap.push_back(add_group(out.layers, g.count, spec));
  }
  for (std::uint32_t& index : out.layer_group) {
    index = remap[index];
  }
  out.dense_attention.num_key_value_heads = heads;
  return out;
}

ModelSpec dense_equivalent(const ModelSpec& m) {
  ModelSpec out = m;
  out.layers = {LayerGroup{m.num_hidden_layers, m.dense_attention}};
  out.layer_group.assign(m.num_hidden_layers, 0);
  out.layer_decoder.resize(m.num_hidden_layers);
  for (std::uint32_t i = 0; i < m.num_hidden_layers; ++i) {
    out.layer_decoder[i] = i;
  }
  return out;
}

ModelSpec with_encoder_tokens(const ModelSpec& m, std::uint64_t tokens) {
  ModelSpec out = m;
  for (LayerGroup& g : out.layers) {
    std::visit(overloaded{
                   [](FullAttention&) {},
                   [](SlidingWindow&) {},
                   [](LatentAttention&) {},
                   [](RecurrentState&) {},
                   [](ChunkedLocal&) {},
                   [&](CrossAttention& c) { c.encoder_tokens = tokens; },
                   [](SharedKV&) {},
                   [](IndexerCache&) {},
                   [](NoCache&) {},
               },
               g.spec);
  }
  return out;
}

std::vector<std::uint32_t> pipeline_partition(std::uint32_t layers, std::uint32_t pp) {
  std::vector<std::uint32_t> parts(pp, pp == 0 ? 0 : layers / pp);
  const std::uint32_t remainder = pp == 0 ? 0 : layers % pp;
  for (std::uint32_t i = 0; i < remainder; ++i) {
    ++parts[pp - 2 - i];  // remainder < pp, so this never reaches the last stage or wraps
  }
  return parts;
}

ModelSpec pipeline_stage(const ModelSpec& m, std::uint32_t pp, std::uint32_t rank) {
  const std::vector<std::uint32_t> parts = pipeline_partition(m.num_hidden_layers, pp);
  std::uint32_t first = 0;
  for (std::uint32_t r = 0; r < rank; ++r) {
    first += parts[r];
  }
  const std::uint32_t count = parts[rank];
  ModelSpec out = m;
  out.layers.clear();
  out.layer_group.clear();
  out.layer_decoder.clear();
  for (std::size_t c = 0; c < m.layer_group.size() && c < m.layer_decoder.size(); ++c) {
    const std::uint32_t layer = m.layer_decoder[c];
    if (layer >= first && layer < first + count) {
      out.layer_group.push_back(add_group(out.layers, 1, m.layers[m.layer_group[c]].spec));
      out.layer_decoder.push_back(layer - first);
    }
  }
  out.num_hidden_layers = count;
  const std::uint64_t total = std::max<std::uint32_t>(m.num_hidden_layers, 1);
  auto share = [&](std::uint64_t p) { return mul_frac(p, count, total); };
  out.params.attention = share(m.params.attention);
  out.params.mlp = share(m.params.mlp);
  out.params.experts = share(m.params.experts);
  out.params.norms = share(m.params.norms);
  out.params.attention_16bit = share(m.params.attention_16bit);  // in proportion too: a stage's own layers may differ
  out.params.mlp_16bit = share(m.params.mlp_16bit);
  out.params.embedding = rank == 0 ? m.params.embedding : 0;
  out.params.vision = rank == 0 ? m.params.vision : 0;
  if (rank != 0) {
    out.vision_encoder.reset();  // the first stage runs the vision tower, and profiles it
  }
  // The last stage computes the logits: its own lm_head, or a copy of tied embeddings.
  out.params.lm_head = rank + 1 == pp ? (m.params.lm_head > 0 ? m.params.lm_head : (pp > 1 ? m.params.embedding : 0)) : 0;
  return out;
}

}  // namespace kvplan
