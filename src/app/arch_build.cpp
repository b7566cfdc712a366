// Neutral hyper-parameters -> ModelSpec by the architecture row (kvplan/arch.hpp): the layer kinds
// and their geometry, and the parameter counts. Every rule names the transformers configuration
// class or engine function it follows; nothing here reads JSON.
#include <algorithm>
#include <fmt/format.h>

#include "kvplan/arch.hpp"
#include "kvplan/error.hpp"
#include "kvplan/text.hpp"
#include "kvplan/units.hpp"

namespace kvplan {
namespace {

enum class Kind { full, sliding, linear };

// Parameter arithmetic runs in 128 bits and is checked once at the end, so a hostile config
// (2^20-wide layers times 10,000 layers) is refused instead of wrapping.
__extension__ using Wide = unsigned __int128;

constexpr std::uint64_t kMaxLayers = 10'000;
constexpr std::uint64_t kMaxHeads = 16'384;
constexpr std::uint64_t kMaxDim = 1 << 20;
constexpr std::uint64_t kMaxVocab = 1 << 24;
constexpr std::uint64_t kMaxTokens = std::uint64_t{1} << 40;

// The layer_types strings of transformers' configuration classes, and the kind each one is.
std::optional<Kind> kind_of(std::string_view s, const ArchRow& row) {
  if (s == "full_attention") {
    return Kind::full;
  }
  if (s == "sliding_attention") {
    return Kind::sliding;
  }
  if (s == "linear_attention" && row.state == StateFormula::gated_delta_net) {
    return Kind::linear;
  }
  return std::nullopt;
}

std::uint64_t period(const HFields& f, const ArchRow& row) {
  if (row.layout_key.empty()) {
    return row.layout_default;
  }
  if (auto p = f.uint(row.layout_key, 1, kMaxLayers)) {
    return *p;
  }
  if (!row.layout_key_legacy.empty()) {
    if (auto p = f.uint(row.layout_key_legacy, 1, kMaxLayers)) {
      return *p;
    }
  }
  return row.layout_default;
}

// Which layers slide, recur or attend fully, in layer order.
std::vector<Kind> layer_kinds(const HFields& f, const ArchRow& row, std::uint32_t layers) {
  std::vector<Kind> kinds(layers, Kind::full);
  if (const HList* types = f.list("layer_types")) {
    if (types->size() != layers) {
      f.fail("layer_types", fmt::format("has {} entries but num_hidden_layers is {}", types->size(), layers));
    }
    for (std::uint32_t i = 0; i < layers; ++i) {
      const HValue& t = (*types)[i];
      const auto* s = std::get_if<std::string>(&t.v);
      const std::optional<Kind> k = s != nullptr ? kind_of(*s, row) : std::nullopt;
      if (!k) {
        f.fail(fmt::format("layer_types/{}", i), fmt::format("kvplan cannot size layer type {} yet", brief(t)));
      }
      kinds[i] = *k;
    }
    return kinds;
  }
  const bool has_window = f.has("sliding_window");
  switch (row.layout) {
    case Layout::uniform:
      break;
    case Layout::window_if_set:
      // a non-null sliding_window applies to every layer (Mistral-7B-v0.1: 4096)
      std::fill(kinds.begin(), kinds.end(), has_window ? Kind::sliding : Kind::full);
      break;
    case Layout::qwen2_window: {
      // transformers Qwen2Config: sliding only when use_sliding_window, and only for layers at
      // index >= max_window_layers; Qwen2.5 ships use_sliding_window=false (inert)
      const bool use = f.boolean("use_sliding_window").value_or(false);
      const std::uint64_t from = f.uint("max_window_layers", 0, kMaxLayers).value_or(layers);
      for (std::uint32_t i = 0; i < layers; ++i) {
        kinds[i] = use && has_window && i >= from ? Kind::sliding : Kind::full;
      }
      break;
    }
    case Layout::every_nth_full: {
      // Gemma2Config: sliding if (i + 1) % 2 else full; Gemma3TextConfig: the period is
      // sliding_window_pattern (default 6)
      const std::uint64_t p = period(f, row);
      for (std::uint32_t i = 0; i < layers; ++i) {
        kinds[i] = (i + 1) % p != 0 ? Kind::sliding : Kind::full;
      }
      break;
    }
    case Layout::every_nth_full_linear: {
      // Qwen3NextConfig: linear_attention if (i + 1) % full_attention_interval else full_attention
      const std::uint64_t p = period(f, row);
      for (std::uint32_t i = 0; i < layers; ++i) {
        kinds[i] = (i + 1) % p != 0 ? Kind::linear : Kind::full;
      }
      break;
    }
    case Layout::letter_pattern:
    case Layout::hybrid_pattern:
    case Layout::period_offset:
    case Layout::chunked_every_nth:
    case Layout::cross_list:
      f.fail("model_type", "this layout is not built yet");
  }
  return kinds;
}

struct Geometry {
  std::uint32_t layers = 0;
  std::uint32_t heads = 0;
  std::uint32_t kv_heads = 0;
  std::uint32_t head_dim = 0;
  std::uint64_t hidden = 0;
};

Geometry read_geometry(const HFields& f, const ArchRow& row) {
  Geometry g;
  g.layers = static_cast<std::uint32_t>(f.require_uint("num_hidden_layers", 1, kMaxLayers));
  g.heads = static_cast<std::uint32_t>(f.require_uint("num_attention_heads", 1, kMaxHeads));
  g.hidden = f.require_uint("hidden_size", 1, kMaxDim);
  switch (row.kv_heads) {
    case KvHeadsRule::falcon:
      // transformers FalconConfig: new_decoder_architecture uses num_kv_heads; otherwise
      // multi_query (default true) means one shared KV head (Falcon-7B), else MHA.
      if (f.boolean("new_decoder_architecture").value_or(false)) {
        g.kv_heads = static_cast<std::uint32_t>(f.uint("num_kv_heads", 1, kMaxHeads).value_or(g.heads));
      } else {
        g.kv_heads = f.boolean("multi_query").value_or(true) ? 1 : g.heads;
      }
      break;
    case KvHeadsRule::multi_query:
      g.kv_heads = f.boolean("multi_query").value_or(true) ? 1 : g.heads;
      break;
    case KvHeadsRule::standard:
      g.kv_heads = static_cast<std::uint32_t>(f.uint("num_key_value_heads", 1, kMaxHeads).value_or(g.heads));
      break;
  }
  if (g.kv_heads > g.heads || g.heads % g.kv_heads != 0) {
    f.fail("num_key_value_heads", fmt::format("{} does not divide num_attention_heads {}", g.kv_heads, g.heads));
  }
  if (auto hd = f.uint("head_dim", 1, kMaxDim)) {
    g.head_dim = static_cast<std::uint32_t>(*hd);  // explicit head_dim wins (Qwen3, Gemma, gpt-oss)
  } else if (g.hidden % g.heads == 0) {
    g.head_dim = static_cast<std::uint32_t>(g.hidden / g.heads);
  } else {
    f.fail("head_dim", fmt::format("is absent and hidden_size {} is not a multiple of num_attention_heads {}",
                                   g.hidden, g.heads));
  }
  return g;
}

// Parameters of one dense gated MLP (gate, up, down): 3 * hidden * intermediate.
Wide gated_mlp(Wide hidden, Wide intermediate) { return 3 * hidden * intermediate; }

struct MoeShape {
  std::uint64_t experts = 0;     // routed experts per MoE layer
  std::uint64_t expert_ffn = 0;  // intermediate size of one expert
  std::uint64_t shared_ffn = 0;  // total intermediate size of shared experts
};

std::optional<MoeShape> read_moe(const HFields& f, const MoeRule& rule) {
  if (rule.layers == MoeLayers::none || !f.has(rule.experts)) {
    return std::nullopt;
  }
  MoeShape m;
  m.experts = f.require_uint(rule.experts, 1, 65'536);
  m.expert_ffn = f.require_uint(rule.expert_ffn, 1, kMaxDim);
  if (!rule.shared.empty()) {
    m.shared_ffn = rule.shared_is_size ? f.uint(rule.shared, 0, kMaxDim).value_or(0)
                                       : sat_mul(f.uint(rule.shared, 0, 1024).value_or(0), m.expert_ffn);
  }
  return m;
}

// Whether decoder layer i uses the MoE block (the rest use a dense MLP).
bool is_moe_layer(const HFields& f, const MoeRule& rule, std::uint32_t i) {
  switch (rule.layers) {
    case MoeLayers::none:
      return false;
    case MoeLayers::all:
      return true;
    case MoeLayers::deepseek: {
      // DeepseekV3: MoE when i >= first_k_dense_replace and i % moe_layer_freq == 0
      const std::uint64_t first_dense = f.uint("first_k_dense_replace", 0, kMaxLayers).value_or(0);
      const std::uint64_t freq = f.uint("moe_layer_freq", 1, kMaxLayers).value_or(1);
      return i >= first_dense && i % freq == 0;
    }
    case MoeLayers::qwen: {
      // Qwen2MoeDecoderLayer: not in mlp_only_layers and (i + 1) % decoder_sparse_step == 0
      if (const HList* only = f.list("mlp_only_layers")) {
        for (const HValue& v : *only) {
          if (const auto* u = std::get_if<std::uint64_t>(&v.v); u != nullptr && *u == i) {
            return false;
          }
        }
      }
      const std::uint64_t step = f.uint("decoder_sparse_step", 1, kMaxLayers).value_or(1);
      return (i + 1) % step == 0;
    }
  }
  return false;
}

struct Reader {
  const HFields& f;
  const HFields& top;  // the file's top level (differs from f for text_config nesting)
  const ArchRow& row;
  Geometry g;

  bool is_mla() const { return f.has("kv_lora_rank"); }

  LatentAttention latent() const {
    return LatentAttention{static_cast<std::uint32_t>(f.require_uint("kv_lora_rank", 1, kMaxDim)),
                           static_cast<std::uint32_t>(f.require_uint("qk_rope_head_dim", 1, kMaxDim))};
  }

  // Per-head K and V widths when written out in full (MLA: nope + rope and v_head_dim).
  FullAttention dense_attention() const {
    if (is_mla()) {
      const auto nope = f.require_uint("qk_nope_head_dim", 1, kMaxDim);
      const auto rope = f.require_uint("qk_rope_head_dim", 1, kMaxDim);
      const auto v = f.require_uint("v_head_dim", 1, kMaxDim);
      return FullAttention{g.heads, static_cast<std::uint32_t>(nope + rope), static_cast<std::uint32_t>(v)};
    }
    return FullAttention{g.kv_heads, g.head_dim, std::nullopt};
  }

  // Gated DeltaNet state (vLLM mamba_utils.py gated_delta_net_state_shape):
  // conv (kernel - 1) x (2 * k_heads * k_dim + v_heads * v_dim) in the model dtype,
  // recurrent v_heads x k_dim x v_dim in fp32.
  RecurrentState linear_state() const {
    switch (row.state) {
      case StateFormula::gated_delta_net: {
        const auto k_heads = f.require_uint("linear_num_key_heads", 1, kMaxHeads);
        const auto v_heads = f.require_uint("linear_num_value_heads", 1, kMaxHeads);
        const auto k_dim = f.require_uint("linear_key_head_dim", 1, kMaxDim);
        const auto v_dim = f.require_uint("linear_value_head_dim", 1, kMaxDim);
        const auto kernel = f.require_uint("linear_conv_kernel_dim", 2, 1024);
        const std::uint64_t conv_dim = 2 * k_heads * k_dim + v_heads * v_dim;
        return RecurrentState{(kernel - 1) * conv_dim, 2, v_heads * k_dim * v_dim, 4};
      }
      case StateFormula::none:
      case StateFormula::mamba1:
      case StateFormula::mamba2:
      case StateFormula::short_conv:
        break;
    }
    f.fail("model_type", "this recurrent state is not built yet");
  }

  Wide attention_params(Kind kind) const {
    const Wide h = g.hidden;
    if (kind == Kind::linear) {
      const auto nk = f.require_uint("linear_num_key_heads", 1, kMaxHeads);
      const auto nv = f.require_uint("linear_num_value_heads", 1, kMaxHeads);
      const auto dk = f.require_uint("linear_key_head_dim", 1, kMaxDim);
      const auto dv = f.require_uint("linear_value_head_dim", 1, kMaxDim);
      const auto kernel = f.require_uint("linear_conv_kernel_dim", 2, 1024);
      const Wide conv_dim = Wide{2} * nk * dk + Wide{nv} * dv;
      // in_proj_qkvz + in_proj_ba + conv1d + dt_bias + A_log + gated norm + out_proj
      return h * (2 * nk * dk + 2 * nv * dv) + h * 2 * nv + conv_dim * kernel + 2 * nv + dv + nv * dv * h;
    }
    if (is_mla()) {
      const auto nope = f.require_uint("qk_nope_head_dim", 1, kMaxDim);
      const auto rope = f.require_uint("qk_rope_head_dim", 1, kMaxDim);
      const auto v = f.require_uint("v_head_dim", 1, kMaxDim);
      const auto rank = f.require_uint("kv_lora_rank", 1, kMaxDim);
      const Wide q_out = Wide{g.heads} * (nope + rope);
      Wide q = h * q_out;
      if (auto q_rank = f.uint("q_lora_rank", 1, kMaxDim)) {
        q = h * *q_rank + *q_rank + *q_rank * q_out;  // q_a_proj, q_a_layernorm, q_b_proj
      }
      // kv_a_proj_with_mqa, kv_a_layernorm, kv_b_proj, o_proj
      return q + h * (rank + rope) + rank + Wide{rank} * g.heads * (nope + v) + Wide{g.heads} * v * h;
    }
    const ParamRule& pr = row.params;
    const Wide q_width = Wide{g.heads} * g.head_dim;
    const Wide kv_width = Wide{g.kv_heads} * g.head_dim;
    Wide p = h * q_width * (pr.gated_q ? 2 : 1) + 2 * h * kv_width + q_width * h;
    const bool attention_bias = f.boolean("attention_bias").value_or(pr.attention_bias);
    if (pr.qkv_bias || attention_bias) {
      p += q_width + 2 * kv_width;
    }
    if (attention_bias) {
      p += h;  // o_proj bias
    }
    if (pr.qk_norm) {
      p += Wide{2} * g.head_dim;
    }
    if (pr.attention_sinks) {
      p += g.heads;  // attention sinks, one per head
    }
    return p;
  }

  ParamCounts count_params(const std::vector<Kind>& kinds) const {
    const ParamRule& pr = row.params;
    Wide embedding = 0, lm_head = 0, attention = 0, mlp = 0, experts = 0, norms = 0;
    const Wide h = g.hidden;
    const Wide vocab = f.require_uint("vocab_size", 1, kMaxVocab);
    const bool tied =
        f.boolean("tie_word_embeddings").value_or(top.boolean("tie_word_embeddings").value_or(pr.tie_default));
    embedding = vocab * h;
    lm_head = tied ? 0 : vocab * h;
    const std::optional<MoeShape> moe = read_moe(f, pr.moe);
    const Wide dense_ffn = pr.falcon ? f.uint("ffn_hidden_size", 1, kMaxDim).value_or(4 * g.hidden)
                                     : f.uint("intermediate_size", 1, kMaxDim).value_or(0);
    const bool new_decoder = f.boolean("new_decoder_architecture").value_or(false);
    for (std::uint32_t i = 0; i < g.layers; ++i) {
      attention += attention_params(kinds[i]);
      if (moe && is_moe_layer(f, pr.moe, i)) {
        experts += moe->experts * gated_mlp(h, moe->expert_ffn);
        mlp += h * moe->experts;  // router
        if (pr.moe.router_bias) {
          mlp += moe->experts;  // the router's e_score_correction_bias
        }
        if (pr.moe.biases) {
          experts += moe->experts * (2 * Wide{moe->expert_ffn} + h);
          mlp += moe->experts;
        }
        mlp += gated_mlp(h, moe->shared_ffn) + (pr.moe.shared_gate && moe->shared_ffn > 0 ? h : 0);
      } else if (pr.falcon) {
        mlp += 2 * h * dense_ffn;  // dense_h_to_4h and dense_4h_to_h, no gate
      } else {
        if (dense_ffn == 0) {
          f.fail("intermediate_size", "is required");
        }
        mlp += gated_mlp(h, dense_ffn);
      }
      // Falcon: LayerNorms carry weight and bias; Falcon-7B has one per layer shared by the parallel
      // branches, the new decoder architecture (Falcon-40B) has ln_attn and ln_mlp.
      norms += pr.falcon ? (new_decoder ? 4 : 2) * h : pr.norms_per_layer * h;
    }
    norms += pr.falcon ? 2 * h : h;  // final norm
    const Wide total = embedding + lm_head + attention + mlp + experts + norms;
    if (total > Wide{std::uint64_t{1} << 50}) {  // 10^15 parameters: no real model, and no GPU
      f.fail("num_hidden_layers", "gives more than 2^50 parameters; this is not a real model");
    }
    const auto narrow = [](Wide w) { return static_cast<std::uint64_t>(w); };
    return ParamCounts{narrow(embedding), narrow(lm_head), narrow(attention),
                       narrow(mlp),       narrow(experts), narrow(norms)};
  }
};

// One cache of decoder layer `layer`, into the group of its spec.
void add_cache(ModelSpec& m, std::uint32_t layer, const LayerCacheSpec& spec) {
  auto it = std::find_if(m.layers.begin(), m.layers.end(), [&](const LayerGroup& g) { return g.spec == spec; });
  if (it == m.layers.end()) {
    m.layers.push_back(LayerGroup{1, spec});
    it = m.layers.end() - 1;
  } else {
    ++it->count;
  }
  m.layer_group.push_back(static_cast<std::uint32_t>(it - m.layers.begin()));
  m.layer_decoder.push_back(layer);
}

HValue value_of(const ArchDefault& d) {
  switch (d.type) {
    case ArchDefault::Type::uint:
      return HValue{d.uint_value};
    case ArchDefault::Type::boolean:
      return HValue{d.bool_value};
    case ArchDefault::Type::real:
      return HValue{d.real_value};
    case ArchDefault::Type::string:
      return HValue{std::string(d.string_value)};
    case ArchDefault::Type::null:
      break;
  }
  return HValue{};
}

}  // namespace

std::vector<std::string> apply_defaults(HObject& object, const ArchRow& row) {
  for (const KeyRename& r : row.renames) {
    if (object.find(r.to) == nullptr) {
      if (const HValue* v = object.find(r.from)) {
        object.set(std::string(r.to), *v);
      }
    }
  }
  std::vector<std::string> filled;
  for (const ArchDefault& d : row.defaults) {
    if (object.find(d.key) == nullptr) {
      HValue v = value_of(d);
      if (d.type != ArchDefault::Type::boolean) {  // flags (biases, tying) are the class's semantics, not a guess
        filled.push_back(fmt::format("{} {}", d.key, brief(v)));
      }
      object.set(std::string(d.key), std::move(v));
    }
  }
  return filled;
}

ModelSpec build_model(const HFields& f, const HFields& top, const ArchRow& row, std::string_view name) {
  const Reader r{f, top, row, read_geometry(f, row)};
  const std::vector<Kind> kinds = layer_kinds(f, row, r.g.layers);
  const bool any_sliding = std::find(kinds.begin(), kinds.end(), Kind::sliding) != kinds.end();
  const std::uint64_t window = any_sliding ? f.require_uint("sliding_window", 1, kMaxTokens) : 0;

  ModelSpec m;
  m.name = std::string(name);
  m.model_type = std::string(row.model_type);
  m.num_hidden_layers = r.g.layers;
  m.num_attention_heads = r.g.heads;
  m.hidden_size = static_cast<std::uint32_t>(r.g.hidden);
  m.vocab_size = f.require_uint("vocab_size", 1, kMaxVocab);
  m.dense_attention = r.dense_attention();
  m.max_position_embeddings = f.uint("max_position_embeddings", 1, kMaxTokens).value_or(row.default_context);

  const FullAttention full{r.g.kv_heads, r.g.head_dim, std::nullopt};
  std::vector<LayerCacheSpec> specs;
  for (Kind k : kinds) {
    if (k == Kind::linear) {
      specs.emplace_back(r.linear_state());
    } else if (r.is_mla()) {
      if (k == Kind::sliding) {
        f.fail("sliding_window", "sliding-window MLA layers are not modelled");
      }
      specs.emplace_back(r.latent());
    } else if (k == Kind::sliding) {
      specs.emplace_back(SlidingWindow{full, window});
    } else {
      specs.emplace_back(full);
    }
  }
  for (std::uint32_t i = 0; i < specs.size(); ++i) {
    add_cache(m, i, specs[i]);
  }
  m.params = r.count_params(kinds);
  return m;
}

}  // namespace kvplan
