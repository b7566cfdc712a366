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

// What a decoder layer holds, before its geometry is read.
enum class Kind { full, sliding, chunked, cross, state, none, hybrid, self_and_cross };

// Parameter arithmetic runs in 128 bits and is checked once at the end, so a hostile config
// (2^20-wide layers times 10,000 layers) is refused instead of wrapping.
__extension__ using Wide = unsigned __int128;

constexpr std::uint64_t kMaxLayers = 10'000;
constexpr std::uint64_t kMaxHeads = 16'384;
constexpr std::uint64_t kMaxDim = 1 << 20;
constexpr std::uint64_t kMaxVocab = 1 << 24;
constexpr std::uint64_t kMaxTokens = std::uint64_t{1} << 40;

// The layer_types strings of transformers' configuration classes (cache_utils.py lists them; the
// legacy "mamba", "attention" and "conv" are remapped there too), and the kind each one is.
std::optional<Kind> kind_of(std::string_view s, const ArchRow& row) {
  if (s == "full_attention" || s == "attention" || s == "deepseek_sparse_attention") {
    return Kind::full;
  }
  if (s == "sliding_attention") {
    return Kind::sliding;
  }
  if (s == "chunked_attention") {
    return Kind::chunked;
  }
  if ((s == "linear_attention" || s == "mamba" || s == "conv") && row.state != StateFormula::none) {
    return Kind::state;
  }
  if (s == "hybrid" && row.state != StateFormula::none) {
    return Kind::hybrid;
  }
  if (s == "moe" || s == "mlp") {
    return Kind::none;
  }
  return std::nullopt;
}

std::uint64_t period(const HFields& f, const ArchRow& row) {
  if (!row.layout_key.empty()) {
    if (auto p = f.uint(row.layout_key, 1, kMaxLayers)) {
      return *p;
    }
  }
  if (!row.layout_key_legacy.empty()) {
    if (auto p = f.uint(row.layout_key_legacy, 1, kMaxLayers)) {
      return *p;
    }
  }
  return row.layout_default;
}

// The unsigned integers of a list key, each checked against `max`.
std::vector<std::uint64_t> uint_list(const HFields& f, std::string_view key, std::uint64_t max) {
  std::vector<std::uint64_t> out;
  if (const HList* list = f.list(key)) {
    for (std::size_t i = 0; i < list->size(); ++i) {
      const auto* u = std::get_if<std::uint64_t>(&(*list)[i].v);
      if (u == nullptr || *u > max) {
        f.fail(fmt::format("{}/{}", key, i), fmt::format("must be an integer in [0, {}] (got {})", max, brief((*list)[i])));
      }
      out.push_back(*u);
    }
  }
  return out;
}

// Which layers attend fully, slide, hold state or nothing, in layer order.
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
      // sliding_window_pattern (default 6); Cohere2Config (4); OLMo-3 (4)
      const std::uint64_t p = period(f, row);
      for (std::uint32_t i = 0; i < layers; ++i) {
        kinds[i] = (i + 1) % p != 0 ? Kind::sliding : Kind::full;
      }
      break;
    }
    case Layout::every_nth_full_linear: {
      // Qwen3NextConfig, Qwen3_5TextConfig: linear_attention if (i + 1) % full_attention_interval else full
      const std::uint64_t p = period(f, row);
      for (std::uint32_t i = 0; i < layers; ++i) {
        kinds[i] = (i + 1) % p != 0 ? Kind::state : Kind::full;
      }
      break;
    }
    case Layout::pattern_list: {
      // MiMo-V2-Flash hybrid_layer_pattern: 1 sliding, 0 full, one entry per layer
      const std::vector<std::uint64_t> pattern = uint_list(f, row.layout_key, 1);
      if (pattern.empty()) {
        break;
      }
      if (pattern.size() != layers) {
        f.fail(row.layout_key, fmt::format("has {} entries but num_hidden_layers is {}", pattern.size(), layers));
      }
      for (std::uint32_t i = 0; i < layers; ++i) {
        kinds[i] = pattern[i] == 1 ? Kind::sliding : Kind::full;
      }
      break;
    }
    case Layout::exaone: {
      // Exaone4Config: no sliding window, all full; an integer pattern is a period; the letters of
      // "LLLG" (L local sliding, G global) repeat over the layers
      if (!has_window) {
        break;
      }
      if (const HValue* v = f.raw("sliding_window_pattern")) {
        if (const auto* letters = std::get_if<std::string>(&v->v)) {
          if (letters->empty() || letters->find_first_not_of("LG") != std::string::npos) {
            f.fail("sliding_window_pattern", fmt::format("must be letters L (sliding) and G (full), got {}", brief(*v)));
          }
          for (std::uint32_t i = 0; i < layers; ++i) {
            kinds[i] = (*letters)[i % letters->size()] == 'L' ? Kind::sliding : Kind::full;
          }
          break;
        }
      }
      const std::uint64_t p = f.uint("sliding_window_pattern", 1, kMaxLayers).value_or(4);
      for (std::uint32_t i = 0; i < layers; ++i) {
        kinds[i] = (i + 1) % p != 0 ? Kind::sliding : Kind::full;
      }
      break;
    }
    case Layout::hybrid_pattern: {
      // NemotronHConfig: hybrid_override_pattern, one letter per layer (its length is the layer count)
      const std::string pattern = f.string("hybrid_override_pattern").value_or("");
      if (pattern.size() != layers) {
        f.fail("hybrid_override_pattern",
               fmt::format("has {} letters but num_hidden_layers is {}", pattern.size(), layers));
      }
      for (std::uint32_t i = 0; i < layers; ++i) {
        switch (pattern[i]) {
          case 'M':
            kinds[i] = Kind::state;
            break;
          case '*':
            kinds[i] = Kind::full;
            break;
          case '-':
          case 'E':
            kinds[i] = Kind::none;
            break;
          default:
            f.fail("hybrid_override_pattern", fmt::format("letter {} of {} is not M, *, - or E", i,
                                                          quote_input(pattern.substr(i, 1))));
        }
      }
      break;
    }
    case Layout::period_offset: {
      // JambaConfig.layers_block_type: attention if i % attn_layer_period == attn_layer_offset else mamba
      const std::uint64_t p = f.require_uint("attn_layer_period", 1, kMaxLayers);
      const std::uint64_t offset = f.uint("attn_layer_offset", 0, kMaxLayers).value_or(0);
      if (offset >= p) {
        f.fail("attn_layer_offset", fmt::format("{} is not less than attn_layer_period {}", offset, p));
      }
      for (std::uint32_t i = 0; i < layers; ++i) {
        kinds[i] = i % p == offset ? Kind::full : Kind::state;
      }
      break;
    }
    case Layout::chunked_every_nth: {
      // vLLM llama4.py Llama4Attention: chunked-local unless the layer is NoPE (no_rope_layers[i] == 0);
      // Llama4TextConfig fills an empty list with (i + 1) % no_rope_layer_interval != 0. Without
      // attention_chunk_size every layer is full.
      if (!f.has("attention_chunk_size")) {
        break;
      }
      const std::vector<std::uint64_t> rope = uint_list(f, "no_rope_layers", 1);
      if (!rope.empty() && rope.size() != layers) {
        f.fail("no_rope_layers", fmt::format("has {} entries but num_hidden_layers is {}", rope.size(), layers));
      }
      const std::uint64_t p = f.uint("no_rope_layer_interval", 1, kMaxLayers).value_or(4);
      for (std::uint32_t i = 0; i < layers; ++i) {
        const bool uses_rope = rope.empty() ? (i + 1) % p != 0 : rope[i] == 1;
        kinds[i] = uses_rope ? Kind::chunked : Kind::full;
      }
      break;
    }
    case Layout::cross_list: {
      // MllamaTextConfig.cross_attention_layers: indices within num_hidden_layers
      for (const std::uint64_t i : uint_list(f, "cross_attention_layers", layers - 1)) {
        kinds[i] = Kind::cross;
      }
      break;
    }
    case Layout::full_index_list: {
      // Lfm2Config: full_attn_idxs (0-based) attend, the rest are short convolutions; without the
      // list every layer attends
      const std::vector<std::uint64_t> full = uint_list(f, row.layout_key, layers - 1);
      if (full.empty() && !f.has(row.layout_key)) {
        break;
      }
      std::fill(kinds.begin(), kinds.end(), Kind::state);
      for (const std::uint64_t i : full) {
        kinds[i] = Kind::full;
      }
      break;
    }
    case Layout::kda_lists: {
      // vLLM KimiLinearConfig.is_kda_layer(i) = (i + 1) in linear_attn_config["kda_layers"] (1-based)
      const std::optional<HFields> lin = f.child("linear_attn_config");
      if (!lin) {
        break;
      }
      for (const std::uint64_t one_based : uint_list(*lin, "kda_layers", layers)) {
        if (one_based == 0) {
          lin->fail("kda_layers", "counts layers from 1; 0 is not a layer");
        }
        kinds[one_based - 1] = Kind::state;
      }
      break;
    }
    case Layout::block_configs: {
      // DeciLM / Nemotron-NAS: block_configs[i].attention.no_op means no attention (vLLM
      // nemotron_nas.py; replace_with_linear is not honoured there, so such a layer attends)
      if (const HList* blocks = f.list("block_configs")) {
        if (blocks->size() != layers) {
          f.fail("block_configs", fmt::format("has {} entries but num_hidden_layers is {}", blocks->size(), layers));
        }
        for (std::uint32_t i = 0; i < layers; ++i) {
          const auto* block = std::get_if<HObject>(&(*blocks)[i].v);
          if (block == nullptr) {
            f.fail(fmt::format("block_configs/{}", i), "must be an object");
          }
          const HFields bf(*block, f.origin(), fmt::format("{}/block_configs/{}", f.pointer(), i));
          const std::optional<HFields> attn = bf.child("attention");
          if (!attn) {
            bf.fail("attention", "is required");
          }
          kinds[i] = attn->boolean("no_op").value_or(false) ? Kind::none : Kind::full;
        }
      }
      break;
    }
    case Layout::parallel_hybrid:
      // FalconH1Config.layers_block_type: every layer "hybrid", attention and Mamba-2 in parallel
      std::fill(kinds.begin(), kinds.end(), Kind::hybrid);
      break;
    case Layout::encoder_decoder:
      // WhisperDecoderLayer: self_attn and encoder_attn (vLLM whisper.py: a FullAttentionSpec and a
      // CrossAttentionSpec per decoder layer)
      std::fill(kinds.begin(), kinds.end(), Kind::self_and_cross);
      break;
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
  if (const HList* types = f.list("layer_types"); row.layout == Layout::hybrid_pattern && types != nullptr) {
    // NemotronHConfig.num_hidden_layers is len(layers_block_type), whatever config.json says (and
    // newer configs, Nemotron-3-Ultra, omit it)
    if (types->empty() || types->size() > kMaxLayers) {
      f.fail("layer_types", fmt::format("must have 1 to {} entries (got {})", kMaxLayers, types->size()));
    }
    g.layers = static_cast<std::uint32_t>(types->size());
  } else if (row.layout == Layout::hybrid_pattern && f.has("hybrid_override_pattern")) {
    // the same, from the legacy letter pattern NemotronHConfig converts to layers_block_type
    const std::string pattern = f.string("hybrid_override_pattern").value_or("");
    if (pattern.empty() || pattern.size() > kMaxLayers) {
      f.fail("hybrid_override_pattern", fmt::format("must have 1 to {} letters (got {})", kMaxLayers, pattern.size()));
    }
    g.layers = static_cast<std::uint32_t>(pattern.size());
  } else {
    g.layers = static_cast<std::uint32_t>(f.require_uint("num_hidden_layers", 1, kMaxLayers));
  }
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
  std::optional<std::uint64_t> explicit_dim = row.head_dim_forced ? std::nullopt : f.uint("head_dim", 1, kMaxDim);
  if (!explicit_dim && f.has("kv_lora_rank")) {
    explicit_dim = f.uint("qk_rope_head_dim", 1, kMaxDim);  // DeepseekV3Config: head_dim = qk_rope_head_dim
  }
  if (explicit_dim) {
    g.head_dim = static_cast<std::uint32_t>(*explicit_dim);  // explicit head_dim wins (Qwen3, Gemma, gpt-oss)
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
  m.experts = f.require_uint(rule.experts, 0, 65'536);
  if (m.experts == 0) {
    return std::nullopt;  // Granite-4.0-H dense sizes: num_local_experts 0
  }
  m.expert_ffn = f.require_uint(rule.expert_ffn, 1, kMaxDim);
  if (!rule.shared.empty()) {
    m.shared_ffn = rule.shared_is_size ? f.uint(rule.shared, 0, kMaxDim).value_or(0)
                                       : sat_mul(f.uint(rule.shared, 0, 1024).value_or(0), m.expert_ffn);
  }
  return m;
}

// Whether decoder layer i uses the MoE block (the rest use a dense MLP).
bool is_moe_layer(const HFields& f, const MoeRule& rule, std::uint32_t i, const std::string& pattern) {
  switch (rule.layers) {
    case MoeLayers::none:
      return false;
    case MoeLayers::all:
      return true;
    case MoeLayers::deepseek: {
      // DeepseekV3: MoE when i >= first_k_dense_replace and i % moe_layer_freq == 0; MiMo-V2 writes
      // moe_layer_freq as a list, one 0 or 1 per layer
      const std::uint64_t first_dense = f.uint("first_k_dense_replace", 0, kMaxLayers).value_or(0);
      if (const HValue* freq = f.raw("moe_layer_freq"); freq != nullptr && std::holds_alternative<HList>(freq->v)) {
        const std::vector<std::uint64_t> list = uint_list(f, "moe_layer_freq", 1);
        return i >= first_dense && i < list.size() && list[i] != 0;
      }
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
    case MoeLayers::interleave: {
      // Llama4TextConfig.moe_layers: every interleave_moe_layer_step-th layer
      const std::uint64_t step = f.uint("interleave_moe_layer_step", 1, kMaxLayers).value_or(1);
      return (i + 1) % step == 0;
    }
    case MoeLayers::ernie: {
      // Ernie4_5_MoeDecoderLayer: (i + 1) % moe_layer_interval == 0 and start <= i <= end (end -1:
      // the last layer)
      const std::uint64_t start = f.uint("moe_layer_start_index", 0, kMaxLayers).value_or(0);
      std::uint64_t end = kMaxLayers;
      if (const HValue* e = f.raw("moe_layer_end_index"); e != nullptr && std::holds_alternative<std::uint64_t>(e->v)) {
        end = std::get<std::uint64_t>(e->v);
      }
      const std::uint64_t interval = f.uint("moe_layer_interval", 1, kMaxLayers).value_or(1);
      return i >= start && i <= end && (i + 1) % interval == 0;
    }
    case MoeLayers::period_offset: {
      // JambaConfig.layers_num_experts: num_experts where i % expert_layer_period == expert_layer_offset
      const std::uint64_t p = f.uint("expert_layer_period", 1, kMaxLayers).value_or(1);
      const std::uint64_t offset = f.uint("expert_layer_offset", 0, kMaxLayers).value_or(0);
      return i % p == offset;
    }
    case MoeLayers::pattern_e:
      return i < pattern.size() && pattern[i] == 'E';
  }
  return false;
}

// Nemotron-H's layers as hybrid_override_pattern letters (M Mamba, * attention, - MLP, E MoE), from
// layers_block_type (read as layer_types) where the config lists it, as NemotronHConfig does.
std::string hybrid_letters(const HFields& f) {
  const HList* types = f.list("layer_types");
  if (types == nullptr) {
    return f.string("hybrid_override_pattern").value_or("");
  }
  std::string letters;
  for (const HValue& t : *types) {
    const auto* s = std::get_if<std::string>(&t.v);
    const std::string_view name = s != nullptr ? std::string_view(*s) : std::string_view();
    letters += name == "mamba" || name == "linear_attention" ? 'M'
               : name == "attention" || name == "full_attention" ? '*'
               : name == "moe"                                  ? 'E'
                                                                : '-';
  }
  return letters;
}

struct Reader {
  const HFields& f;
  const HFields& top;  // the file's top level (differs from f for text_config nesting)
  const ArchRow& row;
  Geometry g;
  std::uint32_t model_dtype_bytes = 2;
  mutable Wide widest_mlp = 0;  // count_params: the widest MLP activation per token (ModelSpec::mlp_activation_width)
  mutable std::vector<std::uint32_t> moe_layers;  // count_params: the layers with routed experts (ModelSpec::moe_layers)
  mutable MoeShape moe_shape;  // count_params: one MoE layer's routed experts (ModelSpec::routed_experts, expert_ffn)

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
    return attention(row.full);
  }

  // One attention kind's geometry: the model's, with the kind's own keys where the row has them.
  FullAttention attention(const KindKeys& k) const {
    FullAttention a{g.kv_heads, g.head_dim, std::nullopt};
    if (!k.kv_heads.empty() && (k.kv_heads_when.empty() || f.boolean(k.kv_heads_when).value_or(false))) {
      if (auto heads = f.uint(k.kv_heads, 1, kMaxHeads)) {
        a.num_key_value_heads = static_cast<std::uint32_t>(*heads);
        if (a.num_key_value_heads > g.heads) {
          f.fail(k.kv_heads, fmt::format("{} is more than num_attention_heads {}", *heads, g.heads));
        }
      }
    }
    if (!k.head_dim.empty()) {
      if (auto d = f.uint(k.head_dim, 1, kMaxDim)) {
        a.head_dim = static_cast<std::uint32_t>(*d);
      }
    }
    if (!k.v_head_dim.empty()) {
      if (auto v = f.uint(k.v_head_dim, 1, kMaxDim); v && *v != a.head_dim) {
        a.v_head_dim = static_cast<std::uint32_t>(*v);
      }
    }
    return a;
  }

  std::uint64_t mamba_intermediate() const {
    const Mamba2Keys& k = row.mamba2;
    if (!k.intermediate.empty()) {
      if (auto d = f.uint(k.intermediate, 1, kMaxDim)) {
        return *d;
      }
    }
    if (auto expand = f.uint("mamba_expand", 1, 64); expand && k.heads != "mamba_num_heads") {
      return *expand * g.hidden;  // Falcon-H1 and Granite-4.0-H: mamba_expand x hidden_size
    }
    return f.require_uint(k.heads, 1, kMaxHeads) * f.require_uint(k.head_dim, 1, kMaxDim);
  }

  // The recurrent state of one layer (vLLM mamba_utils.py MambaStateShapeCalculator and
  // *_state_dtype). Conv states are in the model dtype; the SSM / temporal state in
  // mamba_ssm_cache_dtype, fp32 (../shared/docs/engines.md 1.1) unless config.json says otherwise
  // (mamba_ssm_cache_dtype, or Qwen3.5's mamba_ssm_dtype).
  std::uint32_t ssm_bytes() const {
    for (const char* key : {"mamba_ssm_cache_dtype", "mamba_ssm_dtype"}) {
      const std::string t = f.string(key).value_or("");
      if (t == "bfloat16" || t == "float16") {
        return 2;
      }
    }
    return 4;
  }

  RecurrentState state() const {
    const std::uint32_t b = model_dtype_bytes;
    switch (row.state) {
      case StateFormula::gated_delta_net: {
        // gated_delta_net_state_shape: conv (kernel - 1) x (2 k_heads k_dim + v_heads v_dim),
        // recurrent v_heads x v_dim x k_dim
        const auto k_heads = f.require_uint("linear_num_key_heads", 1, kMaxHeads);
        const auto v_heads = f.require_uint("linear_num_value_heads", 1, kMaxHeads);
        const auto k_dim = f.require_uint("linear_key_head_dim", 1, kMaxDim);
        const auto v_dim = f.require_uint("linear_value_head_dim", 1, kMaxDim);
        const auto kernel = f.require_uint("linear_conv_kernel_dim", 2, 1024);
        const std::uint64_t conv_dim = 2 * k_heads * k_dim + v_heads * v_dim;
        return RecurrentState{(kernel - 1) * conv_dim, b, v_heads * k_dim * v_dim, ssm_bytes(),
                              RecurrentState::Kind::linear_attention};
      }
      case StateFormula::mamba1: {
        // mamba1_state_shape: conv (d_conv - 1) x intermediate, ssm intermediate x d_state
        const auto intermediate = f.require_uint("mamba_expand", 1, 64) * g.hidden;
        const auto state = f.require_uint("mamba_d_state", 1, kMaxDim);
        const auto kernel = f.require_uint("mamba_d_conv", 2, 1024);
        return RecurrentState{(kernel - 1) * intermediate, b, intermediate * state, ssm_bytes(), RecurrentState::Kind::mamba};
      }
      case StateFormula::mamba2: {
        // mamba2_state_shape: conv (kernel - 1) x (intermediate + 2 n_groups d_state), ssm heads x
        // head_dim x d_state
        const Mamba2Keys& k = row.mamba2;
        const auto heads = f.require_uint(k.heads, 1, kMaxHeads);
        const auto head_dim = f.uint(k.head_dim, 1, kMaxDim).value_or(mamba_intermediate() / heads);
        const auto state = f.require_uint(k.state, 1, kMaxDim);
        const auto groups = f.uint(k.groups, 1, kMaxHeads).value_or(1);
        const auto kernel = f.require_uint(k.kernel, 2, 1024);
        return RecurrentState{(kernel - 1) * (mamba_intermediate() + 2 * groups * state), b, heads * head_dim * state,
                              ssm_bytes(), RecurrentState::Kind::mamba};
      }
      case StateFormula::short_conv: {
        // short_conv_state_shape: (conv_L_cache - 1) x conv_dim (hidden_size), the model dtype
        const auto width = f.uint("conv_dim", 1, kMaxDim).value_or(g.hidden);
        const auto kernel = f.require_uint("conv_L_cache", 2, 1024);
        return RecurrentState{(kernel - 1) * width, b, 0, 4, RecurrentState::Kind::short_conv};
      }
      case StateFormula::kda: {
        // kda_state_shape: conv (kernel - 1) x 3 heads head_dim, recurrent heads x head_dim x
        // head_dim in fp32 (kda_state_dtype)
        const std::optional<HFields> lin = f.child("linear_attn_config");
        if (!lin) {
          f.fail("linear_attn_config", "is required for KDA layers");
        }
        const auto heads = lin->require_uint("num_heads", 1, kMaxHeads);
        const auto head_dim = lin->require_uint("head_dim", 1, kMaxDim);
        const auto kernel = lin->uint("short_conv_kernel_size", 2, 1024).value_or(4);
        return RecurrentState{(kernel - 1) * 3 * heads * head_dim, b, heads * head_dim * head_dim, 4,
                              RecurrentState::Kind::linear_attention};
      }
      case StateFormula::none:
        break;
    }
    f.fail("model_type", "its recurrent layers have no state formula");
  }

  IndexerCache indexer() const {
    // vLLM deepseek_v2.py Indexer: DeepseekV32IndexerCache of index_head_dim fp8 + index_head_dim /
    // 128 x 4 B fp32 scales per token (132 B for 128)
    const auto dim = f.require_uint("index_head_dim", 1, kMaxDim);
    return IndexerCache{static_cast<std::uint32_t>(dim), static_cast<std::uint32_t>(dim / 128 * 4)};
  }

  // Mamba-2 mixer parameters (transformers modeling_nemotron_h / falcon_h1 Mamba2Mixer): in_proj to
  // 2 x intermediate + 2 x groups x state + heads, conv1d with bias, dt_bias, A_log, D, the gated
  // norm and out_proj.
  Wide mamba2_params() const {
    const Mamba2Keys& k = row.mamba2;
    const Wide h = g.hidden;
    const Wide heads = f.require_uint(k.heads, 1, kMaxHeads);
    const Wide inter = mamba_intermediate();
    const Wide state = f.require_uint(k.state, 1, kMaxDim);
    const Wide groups = f.uint(k.groups, 1, kMaxHeads).value_or(1);
    const Wide kernel = f.require_uint(k.kernel, 2, 1024);
    const Wide conv_dim = inter + 2 * groups * state;
    return h * (2 * inter + 2 * groups * state + heads) + conv_dim * kernel + conv_dim + 3 * heads + inter + inter * h;
  }

  Wide attention_params(Kind kind, std::uint32_t layer) const {
    const Wide h = g.hidden;
    if (kind == Kind::none) {
      return 0;
    }
    if (kind == Kind::state || kind == Kind::hybrid) {
      Wide p = 0;
      switch (row.state) {
        case StateFormula::gated_delta_net: {
          const auto nk = f.require_uint("linear_num_key_heads", 1, kMaxHeads);
          const auto nv = f.require_uint("linear_num_value_heads", 1, kMaxHeads);
          const auto dk = f.require_uint("linear_key_head_dim", 1, kMaxDim);
          const auto dv = f.require_uint("linear_value_head_dim", 1, kMaxDim);
          const auto kernel = f.require_uint("linear_conv_kernel_dim", 2, 1024);
          const Wide conv_dim = Wide{2} * nk * dk + Wide{nv} * dv;
          // in_proj_qkvz + in_proj_ba + conv1d + dt_bias + A_log + gated norm + out_proj
          p = h * (2 * nk * dk + 2 * nv * dv) + h * 2 * nv + conv_dim * kernel + 2 * nv + dv + nv * dv * h;
          break;
        }
        case StateFormula::mamba2:
          p = mamba2_params();
          break;
        case StateFormula::mamba1: {
          // Jamba's MambaMixer: in_proj, conv1d (+bias), x_proj, dt_proj (+bias), A_log, D, out_proj
          const Wide inter = Wide{f.require_uint("mamba_expand", 1, 64)} * h;
          const Wide state = f.require_uint("mamba_d_state", 1, kMaxDim);
          const Wide kernel = f.require_uint("mamba_d_conv", 2, 1024);
          const Wide rank = f.uint("mamba_dt_rank", 1, kMaxDim).value_or((g.hidden + 15) / 16);
          p = h * 2 * inter + inter * kernel + inter + inter * (rank + 2 * state) + rank * inter + inter +
              inter * state + inter + inter * h;
          break;
        }
        case StateFormula::short_conv: {
          // Lfm2ShortConv: in_proj hidden -> 3 hidden, depthwise conv of conv_L_cache, out_proj
          const Wide kernel = f.require_uint("conv_L_cache", 2, 1024);
          p = h * 3 * h + h * kernel + h * h;
          break;
        }
        case StateFormula::kda: {
          // KimiDeltaAttention: q, k, v, g and o projections of heads x head_dim, short convs on q, k, v
          const std::optional<HFields> lin = f.child("linear_attn_config");
          const Wide width = Wide{lin->require_uint("num_heads", 1, kMaxHeads)} * lin->require_uint("head_dim", 1, kMaxDim);
          const Wide kernel = lin->uint("short_conv_kernel_size", 2, 1024).value_or(4);
          p = 5 * h * width + 3 * width * kernel;
          break;
        }
        case StateFormula::none:
          break;
      }
      if (kind == Kind::state) {
        return p;
      }
      return p + full_attention_params(layer);  // Falcon-H1: both mixers
    }
    if (kind == Kind::self_and_cross) {
      return 2 * full_attention_params(layer);
    }
    if (is_mla()) {
      const auto nope = f.require_uint("qk_nope_head_dim", 1, kMaxDim);
      const auto rope = f.require_uint("qk_rope_head_dim", 1, kMaxDim);
      const auto v = f.require_uint("v_head_dim", 1, kMaxDim);
      const auto rank = f.require_uint("kv_lora_rank", 1, kMaxDim);
      const Wide q_out = Wide{g.heads} * (nope + rope);
      Wide q = h * q_out;
      const std::optional<std::uint64_t> q_rank = f.uint("q_lora_rank", 1, kMaxDim);
      if (q_rank) {
        q = h * *q_rank + *q_rank + *q_rank * q_out;  // q_a_proj, q_a_layernorm, q_b_proj
      }
      // kv_a_proj_with_mqa, kv_a_layernorm, kv_b_proj, o_proj
      Wide p = q + h * (rank + rope) + rank + Wide{rank} * g.heads * (nope + v) + Wide{g.heads} * v * h;
      if (row.indexer && f.has("index_head_dim")) {
        // DeepseekV32 Indexer: wq_b (q_lora_rank -> n_heads x head_dim), wk, k_norm (LayerNorm), weights_proj
        const Wide dim = f.require_uint("index_head_dim", 1, kMaxDim);
        const Wide heads = f.require_uint("index_n_heads", 1, kMaxHeads);
        p += Wide{q_rank.value_or(g.hidden)} * heads * dim + h * dim + 2 * dim + h * heads;
      }
      return p;
    }
    return full_attention_params(layer);
  }

  // q, k, v and o of one attention layer, with the row's biases and norms.
  Wide full_attention_params(std::uint32_t layer) const {
    const ParamRule& pr = row.params;
    const Wide h = g.hidden;
    std::uint32_t kv_heads = g.kv_heads;
    if (row.layout == Layout::block_configs) {
      kv_heads = nas_kv_heads(layer);
    }
    const Wide q_width = Wide{g.heads} * g.head_dim;
    const Wide kv_width = Wide{kv_heads} * g.head_dim;
    Wide p = h * q_width * (pr.gated_q ? 2 : 1) + 2 * h * kv_width + q_width * h;
    const bool attention_bias = f.boolean(pr.bias_key).value_or(pr.attention_bias);
    if (pr.qkv_bias || attention_bias) {
      p += q_width + 2 * kv_width;
    }
    if (attention_bias && pr.o_bias) {
      p += h;  // o_proj bias
    }
    switch (pr.qk_norm) {
      case QkNorm::none:
        break;
      case QkNorm::per_head:
        p += Wide{2} * g.head_dim;
        break;
      case QkNorm::full_width:
        p += q_width + kv_width;
        break;
      case QkNorm::if_flag:
        if (f.boolean("use_qk_norm").value_or(false) || f.boolean("qk_layernorm").value_or(false)) {
          p += Wide{2} * g.head_dim;
        }
        break;
    }
    if (pr.attention_sinks) {
      p += g.heads;  // attention sinks, one per head
    }
    return p;
  }

  // Nemotron-NAS: KV heads of layer i from block_configs[i].attention.n_heads_in_group.
  std::uint32_t nas_kv_heads(std::uint32_t layer) const {
    const HList* blocks = f.list("block_configs");
    if (blocks == nullptr || layer >= blocks->size()) {
      return g.kv_heads;
    }
    const auto* block = std::get_if<HObject>(&(*blocks)[layer].v);
    const HFields bf(*block, f.origin(), fmt::format("{}/block_configs/{}", f.pointer(), layer));
    const std::optional<HFields> attn = bf.child("attention");
    const std::uint64_t group = attn->require_uint("n_heads_in_group", 1, kMaxHeads);  // vLLM divides by it
    if (g.heads % group != 0) {
      attn->fail("n_heads_in_group", fmt::format("{} does not divide num_attention_heads {}", group, g.heads));
    }
    return static_cast<std::uint32_t>(g.heads / group);
  }

  // Nemotron-NAS: the MLP width of layer i, from block_configs[i].ffn.ffn_mult (DeciLM
  // _ffn_mult_to_intermediate_size: 2/3 x mult x hidden, rounded up to a multiple of 256).
  std::optional<Wide> nas_ffn(std::uint32_t layer) const {
    const HList* blocks = f.list("block_configs");
    if (blocks == nullptr || layer >= blocks->size()) {
      return std::nullopt;
    }
    const auto* block = std::get_if<HObject>(&(*blocks)[layer].v);
    const HFields bf(*block, f.origin(), fmt::format("{}/block_configs/{}", f.pointer(), layer));
    const std::optional<HFields> ffn = bf.child("ffn");
    if (!ffn || ffn->boolean("no_op").value_or(false)) {
      return Wide{0};
    }
    const double mult = ffn->real("ffn_mult").value_or(0);
    if (!(mult > 0) || mult > 64) {
      ffn->fail("ffn_mult", "must be a positive number up to 64");
    }
    const auto width = static_cast<std::uint64_t>(2.0 * mult * static_cast<double>(g.hidden) / 3.0);
    return Wide{(width + 255) / 256 * 256};
  }

  ParamCounts count_params(const std::vector<Kind>& kinds) const {
    const ParamRule& pr = row.params;
    Wide embedding = 0, lm_head = 0, attention = 0, mlp = 0, experts = 0, norms = 0;
    const Wide h = g.hidden;
    const Wide vocab = f.require_uint("vocab_size", 1, kMaxVocab);
    const bool tied =
        f.boolean("tie_word_embeddings").value_or(top.boolean("tie_word_embeddings").value_or(pr.tie_default));
    embedding = vocab * h;
    if (pr.learned_positions) {
      embedding += Wide{f.uint("max_position_embeddings", 1, kMaxTokens).value_or(0)} * h;
    }
    lm_head = tied ? 0 : vocab * h;
    const std::optional<MoeShape> moe = read_moe(f, pr.moe);
    Wide dense_ffn = pr.falcon ? f.uint("ffn_hidden_size", 1, kMaxDim).value_or(4 * g.hidden) : 0;
    std::vector<std::uint64_t> ffn_per_layer;  // Gemma-3n writes intermediate_size as one width per layer
    if (!pr.falcon) {
      if (const HValue* v = f.raw(pr.dense_ffn); v != nullptr && std::holds_alternative<HList>(v->v)) {
        ffn_per_layer = uint_list(f, pr.dense_ffn, kMaxDim);
        if (ffn_per_layer.size() != g.layers) {
          f.fail(pr.dense_ffn, fmt::format("has {} entries but num_hidden_layers is {}", ffn_per_layer.size(), g.layers));
        }
      } else {
        dense_ffn = f.uint(pr.dense_ffn, 1, kMaxDim).value_or(pr.ffn_4h ? 4 * g.hidden : 0);
      }
    }
    if (pr.lfm2_ffn) {
      // Lfm2MLP: ff = block_ff_dim; auto-adjusted: int(2 ff / 3), times block_ffn_dim_multiplier,
      // rounded up to block_multiple_of
      Wide ff = f.uint("block_ff_dim", 1, kMaxDim).value_or(static_cast<std::uint64_t>(dense_ffn));
      if (f.boolean("block_auto_adjust_ff_dim").value_or(false)) {
        ff = 2 * ff / 3;
        const double mult = f.real("block_ffn_dim_multiplier").value_or(1.0);
        if (mult > 0 && mult <= 64) {
          ff = static_cast<Wide>(static_cast<double>(static_cast<std::uint64_t>(ff)) * mult);
        }
        const Wide multiple = f.uint("block_multiple_of", 1, kMaxDim).value_or(256);
        ff = (ff + multiple - 1) / multiple * multiple;
      }
      dense_ffn = ff;
    }
    if (pr.per_layer_inputs) {
      embedding += Wide{f.uint("vocab_size_per_layer_input", 0, kMaxVocab).value_or(0)} * g.layers *
                   f.uint("hidden_size_per_layer_input", 0, kMaxDim).value_or(0);
    }
    const bool new_decoder = f.boolean("new_decoder_architecture").value_or(false);
    const bool mlp_bias = f.boolean("mlp_bias").value_or(pr.mlp_bias);
    const std::string pattern = row.layout == Layout::hybrid_pattern ? hybrid_letters(f) : "";
    // Nemotron-3 latent MoE (vLLM nemotron_h.py NemotronHMoE): routed experts work at moe_latent_size,
    // between fc1_latent_proj (hidden -> latent) and fc2_latent_proj (latent -> hidden)
    const std::optional<std::uint64_t> latent =
        row.layout == Layout::hybrid_pattern ? f.uint("moe_latent_size", 1, kMaxDim) : std::nullopt;
    const Wide expert_width = latent ? Wide{*latent} : h;
    // Experts each token is routed to (fused_moe's intermediate caches hold top-k rows per token).
    const Wide top_k = moe ? Wide{f.uint("num_experts_per_tok", 1, 65'536)
                                      .value_or(f.uint("experts_per_token", 1, 65'536).value_or(0))}
                           : 0;
    // What one MLP keeps per token while it runs eagerly: gate_up's output (2 x width) and the
    // activation's (1 x width) of a gated MLP, fc1's and the activation's (2 x width) of a plain one.
    const auto live = [&](Wide width) { return (pr.plain_mlp || pr.falcon ? 2 : 3) * width; };
    widest_mlp = 0;
    moe_layers.clear();
    moe_shape = moe.value_or(MoeShape{});
    for (std::uint32_t i = 0; i < g.layers; ++i) {
      attention += attention_params(kinds[i], i);
      if (!ffn_per_layer.empty()) {
        dense_ffn = ffn_per_layer[i];
      }
      const bool moe_here = moe && is_moe_layer(f, pr.moe, i, pattern);
      if (moe_here && pr.moe_with_dense) {
        mlp += pr.plain_mlp ? 2 * h * dense_ffn : gated_mlp(h, dense_ffn);  // the dense MLP beside the experts
      }
      if (moe_here) {
        widest_mlp = std::max(widest_mlp, top_k * live(moe->expert_ffn) + live(moe->shared_ffn) +
                                              (pr.moe_with_dense ? live(dense_ffn) : 0));
      } else {
        widest_mlp = std::max(widest_mlp, live(row.layout == Layout::block_configs ? nas_ffn(i).value_or(dense_ffn)
                                                                                   : dense_ffn));
      }
      if (moe_here) {
        moe_layers.push_back(i);
        experts += moe->experts * (pr.plain_mlp ? 2 * expert_width * moe->expert_ffn
                                                : gated_mlp(expert_width, moe->expert_ffn));
        if (latent) {
          mlp += 2 * h * expert_width + (mlp_bias ? expert_width + h : 0);  // fc1 and fc2_latent_proj
        }
        mlp += h * moe->experts;  // router
        if (pr.moe.router_bias) {
          mlp += moe->experts;  // the router's e_score_correction_bias
        }
        if (pr.moe.biases) {
          experts += moe->experts * (2 * Wide{moe->expert_ffn} + h);
          mlp += moe->experts;
        }
        mlp += (pr.plain_mlp ? 2 * h * moe->shared_ffn : gated_mlp(h, moe->shared_ffn)) +
               (pr.moe.shared_gate && moe->shared_ffn > 0 ? h : 0);
      } else if (pr.falcon) {
        mlp += 2 * h * dense_ffn;  // dense_h_to_4h and dense_4h_to_h, no gate
      } else if (kinds[i] == Kind::none && row.layout == Layout::hybrid_pattern) {
        mlp += 2 * h * dense_ffn;  // Nemotron-H '-' block: up and down, no gate (relu2)
      } else if (row.layout == Layout::block_configs) {
        const std::optional<Wide> ffn = nas_ffn(i);
        mlp += gated_mlp(h, ffn.value_or(dense_ffn));
      } else if (row.layout == Layout::hybrid_pattern) {
        // Nemotron-H: attention and Mamba blocks carry no MLP of their own
      } else {
        if (dense_ffn == 0) {
          f.fail(pr.dense_ffn, "is required");
        }
        if (pr.plain_mlp) {
          mlp += 2 * h * dense_ffn + (mlp_bias ? dense_ffn + h : 0);
        } else {
          mlp += gated_mlp(h, dense_ffn) + (mlp_bias ? 2 * dense_ffn + h : 0);
        }
      }
      // Falcon: LayerNorms carry weight and bias; Falcon-7B has one per layer shared by the parallel
      // branches, the new decoder architecture (Falcon-40B) has ln_attn and ln_mlp.
      norms += pr.falcon ? (new_decoder ? 4 : 2) * h : Wide{pr.norms_per_layer} * pr.norm_width * h;
    }
    norms += pr.falcon ? 2 * h : pr.norm_width * h;  // final norm
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

// Encoder tokens a cross-attention layer holds by default: mllama's image tokens (vLLM's last V0
// mllama.py: max_num_tiles x ((image_size / 14)^2 + 1), the class token included).
std::uint64_t default_encoder_tokens(const HFields& top) {
  // Whisper: vLLM WhisperProcessingInfo.get_num_audio_tokens = max_source_positions (1500 frames)
  if (auto frames = top.uint("max_source_positions", 1, kMaxTokens)) {
    return *frames;
  }
  if (const std::optional<HFields> vision = top.child("vision_config")) {
    const std::uint64_t image = vision->uint("image_size", 1, 1 << 16).value_or(560);
    const std::uint64_t patch = vision->uint("patch_size", 1, 1024).value_or(14);
    const std::uint64_t tiles = vision->uint("max_num_tiles", 1, 64).value_or(4);
    return tiles * ((image / patch) * (image / patch) + 1);
  }
  return 0;
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
  for (const std::span<const ArchDefault> defaults : {row.defaults, row.extra_defaults}) {
    for (const ArchDefault& d : defaults) {
      if (object.find(d.key) == nullptr) {
        HValue v = value_of(d);
        if (d.type != ArchDefault::Type::boolean) {  // flags (biases, tying) are the class's semantics, not a guess
          filled.push_back(fmt::format("{} {}", d.key, brief(v)));
        }
        object.set(std::string(d.key), std::move(v));
      }
    }
  }
  return filled;
}

// The rotary embeddings the row's layers use (ArchRow::rope), from rope_scaling or transformers 5's
// rope_parameters (Qwen3.5): type, factor and original_max_position_embeddings; a partial_rotary_factor
// at the top level or in that object rotates part of each head (Qwen3-Next, Qwen3.5: a quarter).
std::vector<Rope> read_ropes(const HFields& f, const ArchRow& row, std::uint32_t head_dim, std::uint64_t max_position,
                             bool any_sliding) {
  std::vector<Rope> out;
  if (row.rope == RopeRule::none) {
    return out;
  }
  // Read leniently: a rope kvplan cannot read is left undescribed (a few MiB beside the weights), never
  // a reason to refuse the model.
  auto number = [](const HObject& o, std::string_view key) -> std::optional<double> {
    const HValue* v = o.find(key);
    return v != nullptr ? number_of(*v) : std::nullopt;
  };
  auto text = [](const HObject& o, std::string_view key) -> std::optional<std::string> {
    const HValue* v = o.find(key);
    const auto* s = v != nullptr ? std::get_if<std::string>(&v->v) : nullptr;
    return s != nullptr ? std::optional<std::string>(*s) : std::nullopt;
  };
  auto object = [&f](std::string_view key) -> const HObject* {
    const HValue* v = f.raw(key);
    return v != nullptr ? std::get_if<HObject>(&v->v) : nullptr;
  };
  Rope rope;
  rope.max_position = max_position;
  double partial = number(f.object(), "partial_rotary_factor").value_or(1.0);
  const HObject* scaling = object("rope_scaling");
  if (scaling == nullptr) {
    scaling = object("rope_parameters");
  }
  if (scaling != nullptr) {
    rope.type = text(*scaling, "rope_type").value_or(text(*scaling, "type").value_or("default"));
    if (scaling->find("mrope_section") != nullptr) {
      rope.type = "mrope";  // vLLM's get_rope: MRotaryEmbedding whenever mrope_section is given
    }
    rope.factor = number(*scaling, "factor").value_or(1.0);
    const double original = number(*scaling, "original_max_position_embeddings").value_or(0);
    rope.original_max_position = original >= 1 && original <= static_cast<double>(kMaxTokens)
                                     ? static_cast<std::uint64_t>(original)
                                     : 0;
    partial = number(*scaling, "partial_rotary_factor").value_or(partial);
  }
  if (!(partial > 0 && partial <= 1) || !(rope.factor >= 1 && rope.factor <= 1024)) {
    return out;  // outside what any published config holds: not described
  }
  rope.rotary_dim = static_cast<std::uint32_t>(head_dim * partial);
  out.push_back(rope);
  if (row.rope == RopeRule::local_for_sliding && any_sliding) {
    Rope local;  // Gemma 3's sliding layers: rope_type default at rope_local_base_freq (modeling_gemma3.py)
    local.rotary_dim = head_dim;
    local.max_position = max_position;
    out.push_back(local);
  }
  return out;
}

ModelSpec build_model(const HFields& f, const HFields& top, const ArchRow& row, std::string_view name) {
  Reader r{f, top, row, read_geometry(f, row), 2, 0, {}, {}};
  // Conv states are in the model dtype; engines load fp32 checkpoints in 16 bits too (vLLM dtype auto).
  r.model_dtype_bytes = 2;
  const std::vector<Kind> kinds = layer_kinds(f, row, r.g.layers);
  const bool any_sliding = std::find(kinds.begin(), kinds.end(), Kind::sliding) != kinds.end();
  const std::uint64_t window = any_sliding ? f.require_uint("sliding_window", 1, kMaxTokens) : 0;
  const bool any_chunked = std::find(kinds.begin(), kinds.end(), Kind::chunked) != kinds.end();
  const std::uint64_t chunk = any_chunked ? f.require_uint("attention_chunk_size", 1, kMaxTokens) : 0;

  ModelSpec m;
  m.name = std::string(name);
  m.model_type = std::string(row.model_type);
  m.num_hidden_layers = r.g.layers;
  m.num_attention_heads = r.g.heads;
  m.hidden_size = static_cast<std::uint32_t>(r.g.hidden);
  m.vocab_size = f.require_uint("vocab_size", 1, kMaxVocab);
  m.dense_attention = r.dense_attention();
  m.max_position_embeddings = f.uint("max_position_embeddings", 1, kMaxTokens).value_or(row.default_context);

  // Gemma-3n / Gemma 4: the last num_kv_shared_layers layers read the KV of the last earlier layer
  // of their own kind (modeling_gemma3n.py kv_shared_layer_index) and hold none.
  std::uint32_t first_shared = r.g.layers;
  if (row.kv_sharing) {
    const std::uint64_t shared = f.uint("num_kv_shared_layers", 0, r.g.layers - 1).value_or(0);
    first_shared = r.g.layers - static_cast<std::uint32_t>(shared);
  }
  const std::uint64_t encoder_tokens = default_encoder_tokens(top);
  for (std::uint32_t i = 0; i < r.g.layers; ++i) {
    const Kind k = kinds[i];
    if (i >= first_shared) {
      std::uint32_t source = first_shared - 1;
      for (std::uint32_t j = first_shared; j-- > 0;) {
        if (kinds[j] == k) {
          source = j;
          break;
        }
      }
      add_cache(m, i, SharedKV{source});
      continue;
    }
    switch (k) {
      case Kind::state:
        add_cache(m, i, r.state());
        break;
      case Kind::none:
        add_cache(m, i, NoCache{});
        break;
      case Kind::hybrid:
        add_cache(m, i, r.attention(row.full));
        add_cache(m, i, r.state());
        break;
      case Kind::cross:
        add_cache(m, i, CrossAttention{r.attention(row.full), encoder_tokens});
        break;
      case Kind::self_and_cross:
        add_cache(m, i, r.attention(row.full));
        add_cache(m, i, CrossAttention{r.attention(row.full), encoder_tokens});
        break;
      case Kind::chunked:
        add_cache(m, i, ChunkedLocal{r.attention(row.full), chunk});
        break;
      case Kind::sliding:
        if (r.is_mla()) {
          f.fail("sliding_window", "sliding-window MLA layers are not modelled");
        }
        add_cache(m, i, SlidingWindow{r.attention(row.sliding), window});
        break;
      case Kind::full:
        if (r.is_mla()) {
          add_cache(m, i, r.latent());
          if (row.indexer && f.has("index_head_dim")) {
            add_cache(m, i, r.indexer());
          }
        } else if (row.layout == Layout::block_configs) {
          add_cache(m, i, FullAttention{r.nas_kv_heads(i), r.g.head_dim, std::nullopt});
        } else {
          add_cache(m, i, r.attention(row.full));
        }
        break;
    }
  }
  m.params = r.count_params(kinds);
  m.ropes = read_ropes(f, row, r.g.head_dim, m.max_position_embeddings, any_sliding);
  m.mlp_activation_width = static_cast<std::uint64_t>(r.widest_mlp);
  m.moe_layers = std::move(r.moe_layers);
  m.expert_matrices = row.params.plain_mlp ? 2 : 3;
  if (!m.moe_layers.empty() && r.moe_shape.experts > 0) {
    m.routed_experts = r.moe_shape.experts;
    m.expert_ffn = r.moe_shape.expert_ffn;
    m.expert_biases = row.params.moe.biases;
  }
  return m;
}

}  // namespace kvplan
