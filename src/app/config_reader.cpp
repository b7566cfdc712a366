// Hugging Face config.json -> ModelSpec: layer kinds per architecture, and parameter counts.
// Each rule names the transformers configuration class or engine function it follows.
#include "kvplan/config_reader.hpp"

#include <algorithm>
#include <array>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "json_fields.hpp"
#include "kvplan/error.hpp"
#include "kvplan/units.hpp"
#include "kvplan/text.hpp"

namespace kvplan {
namespace {

using nlohmann::json;

// What a model_type implies beyond its config keys (transformers modeling_<type>.py).
struct ArchRule {
  std::string_view model_type;
  bool qkv_bias;         // q/k/v projections carry biases (Qwen2 family)
  bool attention_bias;   // default of config "attention_bias" (o_proj bias too)
  bool qk_norm;          // per-head RMSNorm on q and k (Qwen3, Gemma 3)
  bool tie_default;      // default of tie_word_embeddings in the config class
  std::uint32_t norms_per_layer;  // hidden-sized norms per decoder layer
};

constexpr std::array kArchRules{
    ArchRule{"llama", false, false, false, false, 2},
    ArchRule{"mistral", false, false, false, false, 2},
    ArchRule{"mixtral", false, false, false, false, 2},
    ArchRule{"qwen2", true, false, false, false, 2},
    ArchRule{"qwen2_moe", true, false, false, false, 2},
    ArchRule{"qwen3", false, false, true, false, 2},
    ArchRule{"qwen3_moe", false, false, true, false, 2},
    ArchRule{"qwen3_next", false, false, true, false, 2},
    ArchRule{"deepseek_v2", false, false, false, false, 2},
    ArchRule{"deepseek_v3", false, false, false, false, 2},
    ArchRule{"gemma", false, false, false, true, 2},
    ArchRule{"gemma2", false, false, false, true, 4},
    ArchRule{"gemma3", false, false, true, true, 4},
    ArchRule{"gemma3_text", false, false, true, true, 4},
    ArchRule{"gpt_oss", false, true, false, false, 2},
    ArchRule{"phi3", false, false, false, false, 2},
    ArchRule{"falcon", false, false, false, true, 2},
};

enum class Kind { full, sliding, linear };

// Parameter arithmetic runs in 128 bits and is checked once at the end, so a hostile config
// (2^20-wide layers times 10,000 layers) is refused instead of wrapping.
__extension__ using Wide = unsigned __int128;

constexpr std::uint64_t kMaxLayers = 10'000;
constexpr std::uint64_t kMaxHeads = 16'384;
constexpr std::uint64_t kMaxDim = 1 << 20;
constexpr std::uint64_t kMaxVocab = 1 << 24;
constexpr std::uint64_t kMaxTokens = std::uint64_t{1} << 40;

const ArchRule& find_rule(const JsonFields& f, const std::string& model_type) {
  for (const ArchRule& r : kArchRules) {
    if (r.model_type == model_type) {
      return r;
    }
  }
  std::string arch;
  if (const json* a = f.array("architectures"); a != nullptr && !a->empty() && a->front().is_string()) {
    arch = fmt::format(" ({})", a->front().get<std::string>());
  }
  throw Error(fmt::format("{}: kvplan cannot size model_type {}{}: its cache layout is not modelled "
                          "(supported: {}); nothing is guessed",
                          f.where("model_type"), quote_input(model_type), arch, supported_model_types()));
}

// Which layers slide, recur or attend fully, in layer order.
std::vector<Kind> layer_kinds(const JsonFields& f, const std::string& type, std::uint32_t layers) {
  std::vector<Kind> kinds(layers, Kind::full);
  if (const json* types = f.array("layer_types")) {
    if (types->size() != layers) {
      f.fail("layer_types", fmt::format("has {} entries but num_hidden_layers is {}", types->size(), layers));
    }
    for (std::uint32_t i = 0; i < layers; ++i) {
      const json& t = (*types)[i];
      const std::string s = t.is_string() ? t.get<std::string>() : std::string();
      if (s == "full_attention") {
        kinds[i] = Kind::full;
      } else if (s == "sliding_attention") {
        kinds[i] = Kind::sliding;
      } else if (s == "linear_attention" && type == "qwen3_next") {
        kinds[i] = Kind::linear;
      } else {
        f.fail(fmt::format("layer_types/{}", i), fmt::format("kvplan cannot size layer type {} yet", brief(t)));
      }
    }
    return kinds;
  }
  const bool has_window = f.has("sliding_window");
  for (std::uint32_t i = 0; i < layers; ++i) {
    if (type == "gemma2") {
      // transformers Gemma2Config: "sliding_attention" if (i + 1) % 2 else "full_attention"
      kinds[i] = (i + 1) % 2 != 0 ? Kind::sliding : Kind::full;
    } else if (type == "gemma3" || type == "gemma3_text") {
      // transformers Gemma3TextConfig: sliding unless (i + 1) % sliding_window_pattern == 0 (default 6)
      const std::uint64_t pattern = f.uint("sliding_window_pattern", 1, kMaxLayers)
                                        .value_or(f.uint("_sliding_window_pattern", 1, kMaxLayers).value_or(6));
      kinds[i] = (i + 1) % pattern != 0 ? Kind::sliding : Kind::full;
    } else if (type == "qwen3_next") {
      // transformers Qwen3NextConfig: "linear_attention" if (i + 1) % full_attention_interval else "full_attention"
      const std::uint64_t interval = f.uint("full_attention_interval", 1, kMaxLayers).value_or(4);
      kinds[i] = (i + 1) % interval != 0 ? Kind::linear : Kind::full;
    } else if (type == "mistral" || type == "mixtral" || type == "phi3") {
      // a non-null sliding_window applies to every layer (Mistral-7B-v0.1: 4096)
      kinds[i] = has_window ? Kind::sliding : Kind::full;
    } else if (type.rfind("qwen", 0) == 0) {
      // transformers Qwen2Config: sliding only when use_sliding_window, and only for
      // layers at index >= max_window_layers; Qwen2.5 ships use_sliding_window=false (inert)
      const bool use = f.boolean("use_sliding_window").value_or(false);
      const std::uint64_t from = f.uint("max_window_layers", 0, kMaxLayers).value_or(layers);
      kinds[i] = use && has_window && i >= from ? Kind::sliding : Kind::full;
    }
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

Geometry read_geometry(const JsonFields& f, const std::string& type) {
  Geometry g;
  g.layers = static_cast<std::uint32_t>(f.require_uint("num_hidden_layers", 1, kMaxLayers));
  g.heads = static_cast<std::uint32_t>(f.require_uint("num_attention_heads", 1, kMaxHeads));
  g.hidden = f.require_uint("hidden_size", 1, kMaxDim);
  if (type == "falcon") {
    // transformers FalconConfig: new_decoder_architecture uses num_kv_heads; otherwise
    // multi_query (default true) means one shared KV head (Falcon-7B), else MHA.
    if (f.boolean("new_decoder_architecture").value_or(false)) {
      g.kv_heads = static_cast<std::uint32_t>(f.uint("num_kv_heads", 1, kMaxHeads).value_or(g.heads));
    } else {
      g.kv_heads = f.boolean("multi_query").value_or(true) ? 1 : g.heads;
    }
  } else {
    g.kv_heads = static_cast<std::uint32_t>(f.uint("num_key_value_heads", 1, kMaxHeads).value_or(g.heads));
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
  std::uint64_t experts = 0;       // routed experts per MoE layer
  std::uint64_t expert_ffn = 0;    // intermediate size of one expert
  std::uint64_t shared_ffn = 0;    // total intermediate size of shared experts
  bool shared_gate = false;        // Qwen's sigmoid gate on the shared expert (hidden x 1)
  bool biases = false;             // gpt-oss experts and router carry biases
};

std::optional<MoeShape> read_moe(const JsonFields& f, const std::string& type) {
  MoeShape m;
  if (type == "mixtral" || type == "gpt_oss") {
    m.experts = f.require_uint("num_local_experts", 1, 65'536);
    m.expert_ffn = f.require_uint("intermediate_size", 1, kMaxDim);
    m.biases = type == "gpt_oss";
    return m;
  }
  if (type == "qwen2_moe" || type == "qwen3_moe" || type == "qwen3_next") {
    m.experts = f.require_uint("num_experts", 1, 65'536);
    m.expert_ffn = f.require_uint("moe_intermediate_size", 1, kMaxDim);
    m.shared_ffn = f.uint("shared_expert_intermediate_size", 0, kMaxDim).value_or(0);
    m.shared_gate = m.shared_ffn > 0;
    return m;
  }
  if ((type == "deepseek_v2" || type == "deepseek_v3") && f.has("n_routed_experts")) {
    m.experts = f.require_uint("n_routed_experts", 1, 65'536);
    m.expert_ffn = f.require_uint("moe_intermediate_size", 1, kMaxDim);
    m.shared_ffn = sat_mul(f.uint("n_shared_experts", 0, 1024).value_or(0), m.expert_ffn);
    return m;
  }
  return std::nullopt;
}

// Whether decoder layer i uses the MoE block (the rest use a dense MLP).
bool is_moe_layer(const JsonFields& f, const std::string& type, std::uint32_t i) {
  if (type == "deepseek_v2" || type == "deepseek_v3") {
    // DeepseekV3: MoE when i >= first_k_dense_replace and i % moe_layer_freq == 0
    const std::uint64_t first_dense = f.uint("first_k_dense_replace", 0, kMaxLayers).value_or(0);
    const std::uint64_t freq = f.uint("moe_layer_freq", 1, kMaxLayers).value_or(1);
    return i >= first_dense && i % freq == 0;
  }
  if (type == "qwen2_moe" || type == "qwen3_moe" || type == "qwen3_next") {
    // Qwen2MoeDecoderLayer: not in mlp_only_layers and (i + 1) % decoder_sparse_step == 0
    if (const json* only = f.array("mlp_only_layers")) {
      for (const json& v : *only) {
        if (v.is_number_unsigned() && v.get<std::uint64_t>() == i) {
          return false;
        }
      }
    }
    const std::uint64_t step = f.uint("decoder_sparse_step", 1, kMaxLayers).value_or(1);
    return (i + 1) % step == 0;
  }
  return true;
}

struct Counted {
  std::vector<Kind> kinds;
  ParamCounts params;
};

}  // namespace

std::string supported_model_types() {
  std::string out;
  for (const ArchRule& r : kArchRules) {
    out += out.empty() ? "" : ", ";
    out += r.model_type;
  }
  return out;
}

namespace {

struct Reader {
  const JsonFields& f;
  const JsonFields& top;  // the file's top level (differs from f for text_config nesting)
  const ArchRule& rule;
  std::string type;
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
    const auto k_heads = f.require_uint("linear_num_key_heads", 1, kMaxHeads);
    const auto v_heads = f.require_uint("linear_num_value_heads", 1, kMaxHeads);
    const auto k_dim = f.require_uint("linear_key_head_dim", 1, kMaxDim);
    const auto v_dim = f.require_uint("linear_value_head_dim", 1, kMaxDim);
    const auto kernel = f.require_uint("linear_conv_kernel_dim", 2, 1024);
    const std::uint64_t conv_dim = 2 * k_heads * k_dim + v_heads * v_dim;
    return RecurrentState{(kernel - 1) * conv_dim, 2, v_heads * k_dim * v_dim, 4};
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
    const Wide q_width = Wide{g.heads} * g.head_dim;
    const Wide kv_width = Wide{g.kv_heads} * g.head_dim;
    const bool gated_q = type == "qwen3_next";  // Qwen3-Next doubles q_proj for its output gate
    Wide p = h * q_width * (gated_q ? 2 : 1) + 2 * h * kv_width + q_width * h;
    const bool attention_bias = f.boolean("attention_bias").value_or(rule.attention_bias);
    if (rule.qkv_bias || attention_bias) {
      p += q_width + 2 * kv_width;
    }
    if (attention_bias) {
      p += h;  // o_proj bias
    }
    if (rule.qk_norm) {
      p += Wide{2} * g.head_dim;
    }
    if (type == "gpt_oss") {
      p += g.heads;  // attention sinks, one per head
    }
    return p;
  }

  ParamCounts count_params(const std::vector<Kind>& kinds) const {
    Wide embedding = 0, lm_head = 0, attention = 0, mlp = 0, experts = 0, norms = 0;
    const Wide h = g.hidden;
    const Wide vocab = f.require_uint("vocab_size", 1, kMaxVocab);
    const bool tied = f.boolean("tie_word_embeddings").value_or(top.boolean("tie_word_embeddings").value_or(rule.tie_default));
    embedding = vocab * h;
    lm_head = tied ? 0 : vocab * h;
    const std::optional<MoeShape> moe = read_moe(f, type);
    const Wide dense_ffn = type == "falcon" ? f.uint("ffn_hidden_size", 1, kMaxDim).value_or(4 * g.hidden)
                                            : f.uint("intermediate_size", 1, kMaxDim).value_or(0);
    for (std::uint32_t i = 0; i < g.layers; ++i) {
      attention += attention_params(kinds[i]);
      if (moe && is_moe_layer(f, type, i)) {
        experts += moe->experts * gated_mlp(h, moe->expert_ffn);
        mlp += h * moe->experts;  // router
        if (type == "deepseek_v3") {
          mlp += moe->experts;  // the router's e_score_correction_bias
        }
        if (moe->biases) {
          experts += moe->experts * (2 * Wide{moe->expert_ffn} + h);
          mlp += moe->experts;
        }
        mlp += gated_mlp(h, moe->shared_ffn) + (moe->shared_gate ? h : 0);
      } else if (type == "falcon") {
        mlp += 2 * h * dense_ffn;  // dense_h_to_4h and dense_4h_to_h, no gate
      } else {
        if (dense_ffn == 0) {
          f.fail("intermediate_size", "is required");
        }
        mlp += gated_mlp(h, dense_ffn);
      }
      // Falcon: LayerNorms carry weight and bias; Falcon-7B has one per layer shared by the parallel
      // branches, the new decoder architecture (Falcon-40B) has ln_attn and ln_mlp.
      const bool new_decoder = f.boolean("new_decoder_architecture").value_or(false);
      norms += type == "falcon" ? (new_decoder ? 4 : 2) * h : rule.norms_per_layer * h;
    }
    norms += type == "falcon" ? 2 * h : h;  // final norm
    const Wide total = embedding + lm_head + attention + mlp + experts + norms;
    if (total > Wide{std::uint64_t{1} << 50}) {  // 10^15 parameters: no real model, and no GPU
      f.fail("num_hidden_layers", "gives more than 2^50 parameters; this is not a real model");
    }
    const auto narrow = [](Wide w) { return static_cast<std::uint64_t>(w); };
    return ParamCounts{narrow(embedding), narrow(lm_head), narrow(attention),
                       narrow(mlp),       narrow(experts), narrow(norms)};
  }
};

// A SigLIP vision tower (transformers SiglipVisionModel, no pooling head) and Gemma 3's projector:
// patch conv + position table + layers of attention (4 square projections with biases), MLP
// (two projections with biases) and two LayerNorms, then a post LayerNorm; the projector maps
// vision hidden to text hidden (mm_input_projection) after an RMSNorm (mm_soft_emb_norm).
std::uint64_t vision_params(const JsonFields& top, std::uint64_t text_hidden) {
  const nlohmann::json* v = top.object("vision_config");
  if (v == nullptr) {
    return 0;
  }
  const JsonFields vf(*v, top.origin(), "/vision_config");
  const std::string type = vf.string("model_type").value_or("");
  if (type != "siglip_vision_model") {
    vf.fail("model_type", fmt::format("kvplan cannot count the parameters of vision tower {}", quote_input(type)));
  }
  if (vf.boolean("vision_use_head").value_or(true)) {
    vf.fail("vision_use_head", "a SigLIP pooling head is not modelled");
  }
  const std::uint64_t h = vf.require_uint("hidden_size", 1, kMaxDim);
  const std::uint64_t ffn = vf.require_uint("intermediate_size", 1, kMaxDim);
  const std::uint64_t layers = vf.require_uint("num_hidden_layers", 1, kMaxLayers);
  const std::uint64_t patch = vf.require_uint("patch_size", 1, 1024);
  const std::uint64_t image = vf.require_uint("image_size", patch, 1 << 16);
  const std::uint64_t channels = vf.uint("num_channels", 1, 16).value_or(3);
  const std::uint64_t positions = (image / patch) * (image / patch);
  const std::uint64_t per_layer = 4 * (h * h + h) + (h * ffn + ffn) + (ffn * h + h) + 2 * 2 * h;
  return channels * patch * patch * h + h + positions * h + layers * per_layer + 2 * h + h * text_hidden + h;
}

std::string weight_dtype_name(const JsonFields& f, const JsonFields& top) {
  const std::string t = f.string("torch_dtype").value_or(top.string("torch_dtype").value_or(
      f.string("dtype").value_or(top.string("dtype").value_or("bfloat16"))));
  if (t == "float16") {
    return "fp16";
  }
  if (t == "bfloat16" || t == "float32") {  // engines load fp32 checkpoints in bf16 (vLLM dtype "auto")
    return "bf16";
  }
  f.fail("torch_dtype", fmt::format("unknown dtype {} (expected bfloat16, float16 or float32)", quote_input(t)));
}

}  // namespace

ModelSpec read_hf_config(const json& config, std::string_view name, std::string_view origin) {
  const JsonFields top(config, std::string(origin), "");
  const json* text = top.object("text_config");
  const bool nested = text != nullptr && !top.has("num_hidden_layers");
  const JsonFields f = nested ? JsonFields(*text, std::string(origin), "/text_config") : top;

  std::string type = f.string("model_type").value_or(top.string("model_type").value_or(""));
  if (type.empty()) {
    top.fail("model_type", "is required to know how the layers are laid out");
  }
  if (nested && type == "gemma3") {
    type = "gemma3_text";
  }
  const ArchRule& rule = find_rule(nested ? f : top, type);
  const Reader r{f, top, rule, type, read_geometry(f, type)};

  const std::vector<Kind> kinds = layer_kinds(f, type, r.g.layers);
  const bool any_sliding = std::find(kinds.begin(), kinds.end(), Kind::sliding) != kinds.end();
  const std::uint64_t window = any_sliding ? f.require_uint("sliding_window", 1, kMaxTokens) : 0;

  ModelSpec m;
  m.name = std::string(name);
  m.model_type = type;
  m.num_hidden_layers = r.g.layers;
  m.num_attention_heads = r.g.heads;
  m.hidden_size = static_cast<std::uint32_t>(r.g.hidden);
  m.vocab_size = f.require_uint("vocab_size", 1, kMaxVocab);
  m.dense_attention = r.dense_attention();
  const std::uint64_t default_context = type == "falcon" ? 2048 : 0;  // FalconConfig has no such key
  m.max_position_embeddings = f.uint("max_position_embeddings", 1, kMaxTokens).value_or(default_context);

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
  for (const LayerCacheSpec& s : specs) {
    auto it = std::find_if(m.layers.begin(), m.layers.end(), [&](const LayerGroup& g) { return g.spec == s; });
    if (it == m.layers.end()) {
      m.layers.push_back(LayerGroup{1, s});
      it = m.layers.end() - 1;
    } else {
      ++it->count;
    }
    m.layer_group.push_back(static_cast<std::uint32_t>(it - m.layers.begin()));
  }
  m.params = r.count_params(kinds);
  m.params.vision = nested ? vision_params(top, r.g.hidden) : 0;
  m.torch_dtype = weight_dtype_name(f, top);
  if (const json* q = top.object("quantization_config")) {
    const JsonFields qf(*q, std::string(origin), "/quantization_config");
    const std::string method = qf.string("quant_method").value_or("");
    if (method == "fp8") {
      m.checkpoint_weight_dtype = "fp8";  // DeepSeek-V3 ships e4m3 weights with 128x128 block scales
    } else if (method == "mxfp4") {
      m.expert_weight_dtype = "mxfp4";    // gpt-oss: MoE experts in MXFP4, the rest in bf16
    } else if ((method == "gptq" || method == "awq") && qf.uint("bits", 1, 16).value_or(0) == 4) {
      m.checkpoint_weight_dtype = "int4";
    } else {
      m.checkpoint_weight_dtype = "unknown:" + method;
    }
  }
  return m;
}

ModelSpec read_hf_config_text(std::string_view text, std::string_view name, std::string_view origin) {
  return read_hf_config(parse_json_text(text, origin), name, origin);
}

}  // namespace kvplan
