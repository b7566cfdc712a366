// Vision and audio towers: parameters from vision_config / audio_config by tower family, each a
// closed formula over every Linear, conv, embedding, norm and projector of the family's modeling
// file (transformers models/<family>/modeling_<family>.py). Checked against published whole-model
// counts in tests/unit/towers_test.cpp.
#include "towers.hpp"

#include <fmt/format.h>

#include "kvplan/text.hpp"
#include "kvplan/units.hpp"

namespace kvplan {
namespace {

constexpr std::uint64_t kMaxDim = 1 << 20;
constexpr std::uint64_t kMaxLayers = 10'000;

struct Keys {
  const HFields& v;
  std::uint64_t need(std::string_view key) const { return v.require_uint(key, 1, kMaxDim); }
  std::uint64_t get(std::string_view key, std::uint64_t fallback) const { return v.uint(key, 0, kMaxDim).value_or(fallback); }
  std::uint64_t layers(std::string_view key) const { return v.require_uint(key, 1, kMaxLayers); }
  // The first of several spellings that is present (Kimi-K2.5 writes vt_hidden_size).
  std::uint64_t either(std::string_view a, std::string_view b) const {
    if (auto x = v.uint(a, 1, kMaxDim)) {
      return *x;
    }
    return v.require_uint(b, 1, kMaxDim);
  }
};

// A pre-norm ViT encoder layer: q, k, v, o with biases, a two-matrix MLP with biases, two
// LayerNorms: 4H^2 + 2HI + 9H + I.
std::uint64_t vit_layer(std::uint64_t h, std::uint64_t i) { return 4 * h * h + 2 * h * i + 9 * h + i; }

// SiglipVisionModel (modeling_siglip.py): patch conv with bias, position table, encoder, post
// LayerNorm, and the attention-pooling head unless vision_use_head is false (absent: built).
std::uint64_t siglip(const Keys& k) {
  const std::uint64_t h = k.need("hidden_size"), i = k.need("intermediate_size"), l = k.layers("num_hidden_layers");
  const std::uint64_t p = k.need("patch_size"), img = k.need("image_size"), c = k.get("num_channels", 3);
  const bool head = k.v.boolean("vision_use_head").value_or(true);
  const std::uint64_t pool = head ? 4 * h * h + 2 * h * i + i + 7 * h : 0;
  return c * p * p * h + h + (img / p) * (img / p) * h + l * vit_layer(h, i) + 2 * h + pool;
}

// CLIPVisionModel (modeling_clip.py): class embedding, patch conv without bias, positions (+1 for
// the class token), pre- and post-LayerNorm.
std::uint64_t clip(const Keys& k) {
  const std::uint64_t h = k.need("hidden_size"), i = k.need("intermediate_size"), l = k.layers("num_hidden_layers");
  const std::uint64_t p = k.need("patch_size"), img = k.need("image_size"), c = k.get("num_channels", 3);
  return h + c * p * p * h + ((img / p) * (img / p) + 1) * h + 2 * h + l * vit_layer(h, i) + 2 * h;
}

// PixtralVisionModel (modeling_pixtral.py): patch conv without bias, ln_pre RMSNorm, layers of
// q/k/v/o without bias, a gated MLP and two RMSNorms.
std::uint64_t pixtral(const Keys& k) {
  const std::uint64_t h = k.need("hidden_size"), i = k.need("intermediate_size"), l = k.layers("num_hidden_layers");
  const std::uint64_t p = k.need("patch_size"), c = k.get("num_channels", 3);
  return c * p * p * h + h + l * (4 * h * h + 3 * h * i + 2 * h);
}

// Qwen2-VL (modeling_qwen2_vl.py): vision_config.hidden_size is the merger's output; the tower is
// embed_dim wide with mlp_ratio; 3D patch conv, LayerNorm blocks, the patch merger.
std::uint64_t qwen2_vl(const Keys& k) {
  const std::uint64_t e = k.need("embed_dim"), d = k.need("hidden_size"), l = k.layers("depth");
  const double ratio = k.v.real("mlp_ratio").value_or(4.0);
  const auto m = static_cast<std::uint64_t>(static_cast<double>(e) * ratio);
  const std::uint64_t p = k.get("patch_size", 14), t = k.get("temporal_patch_size", 2);
  const std::uint64_t c = k.v.uint("in_channels", 1, 16).value_or(k.get("in_chans", 3)), s = k.get("spatial_merge_size", 2);
  const std::uint64_t merged = s * s * e;
  return c * t * p * p * e + l * vit_layer(e, m) + 2 * e + merged * merged + merged + merged * d + d;
}

// Qwen2.5-VL (modeling_qwen2_5_vl.py): RMSNorm blocks with a gated MLP; the merger to out_hidden_size.
std::uint64_t qwen2_5_vl(const Keys& k) {
  const std::uint64_t h = k.need("hidden_size"), i = k.need("intermediate_size"), d = k.need("out_hidden_size");
  const std::uint64_t l = k.layers("depth"), p = k.get("patch_size", 14), t = k.get("temporal_patch_size", 2);
  const std::uint64_t c = k.v.uint("in_channels", 1, 16).value_or(k.get("in_chans", 3)), s = k.get("spatial_merge_size", 2);
  const std::uint64_t merged = s * s * h;
  return c * t * p * p * h + l * (4 * h * h + 3 * h * i + 7 * h + 2 * i) + h + merged * merged + merged + merged * d + d;
}

// Qwen3-VL (modeling_qwen3_vl.py): a position table, LayerNorm blocks, the merger and one more
// merger per deepstack_visual_indexes entry.
std::uint64_t qwen3_vl(const Keys& k) {
  const std::uint64_t h = k.need("hidden_size"), i = k.need("intermediate_size"), d = k.need("out_hidden_size");
  const std::uint64_t l = k.layers("depth"), p = k.get("patch_size", 16), t = k.get("temporal_patch_size", 2);
  const std::uint64_t c = k.get("in_channels", 3), s = k.get("spatial_merge_size", 2);
  const std::uint64_t positions = k.need("num_position_embeddings");
  const std::uint64_t merged = s * s * h;
  const HList* deep = k.v.list("deepstack_visual_indexes");
  const std::uint64_t deepstack = deep == nullptr ? 0 : deep->size();
  const std::uint64_t merger = merged * merged + merged + merged * d + d;
  return c * t * p * p * h + h + positions * h + l * vit_layer(h, i) + (2 * h + merger) + deepstack * (2 * merged + merger);
}

// The Qwen3-VL tower's largest image as vLLM profiles it (Qwen2VLProcessingInfo.get_image_size_with_most_features:
// the image processor's size.longest_edge pixels, in units of (patch x merge)^2 per token). The checkpoints' own
// preprocessor_config.json give {"longest_edge": 16777216, "shortest_edge": 65536} with patch 16 and merge 2 for
// Qwen3-VL, Qwen3.5 and Qwen3.6 (Qwen/Qwen3.5-2B-Base's, Qwen/Qwen3.6-35B-A3B-FP8's: docs/engines.md), a 4096 x 4096
// image of 16,384 tokens, as vLLM logs it: "Encoder cache will be initialized with a budget of 16384 tokens, and
// profiled with 1 image items of the maximum feature size".
constexpr std::uint64_t kQwen3VlLongestEdgePixels = 16'777'216;

VisionEncoder qwen3_vl_encoder(const Keys& k) {
  VisionEncoder e;
  e.hidden = k.need("hidden_size");
  e.intermediate = k.need("intermediate_size");
  const std::uint64_t p = k.get("patch_size", 16), t = k.get("temporal_patch_size", 2);
  const std::uint64_t c = k.get("in_channels", 3);
  // spatial_merge_size patches a side merge into one token: 0 merges none and is refused with its key.
  const std::uint64_t s = k.v.uint("spatial_merge_size", 1, 64).value_or(2);
  // Saturating: each key may be as large as kMaxDim, and a patch or merge size of 0 leaves no image to profile.
  e.patch_values = sat_mul(sat_mul(c, t), sat_mul(p, p));
  e.patches_per_token = sat_mul(s, s);
  const std::uint64_t pixels_per_token = sat_mul(sat_mul(p, s), sat_mul(p, s));
  e.tokens_per_item = pixels_per_token == 0 ? 0 : kQwen3VlLongestEdgePixels / pixels_per_token;
  const HList* deep = k.v.list("deepstack_visual_indexes");
  e.output_width = sat_mul(k.need("out_hidden_size"), 1 + (deep == nullptr ? 0 : deep->size()));
  return e;
}

// MoonViT (Kimi-VL moonvit, Kimi-K2.5 vt_* keys): patch conv with bias, a learned 2D position grid,
// ViT layers, a final norm, and the patch-merger projector to the text width.
std::uint64_t moonvit(const Keys& k, std::uint64_t text_hidden) {
  const std::uint64_t h = k.either("vt_hidden_size", "hidden_size"), i = k.either("vt_intermediate_size", "intermediate_size");
  const std::optional<std::uint64_t> vt_layers = k.v.uint("vt_num_hidden_layers", 1, kMaxLayers);
  const std::uint64_t l = vt_layers ? *vt_layers : k.layers("num_hidden_layers");
  const std::uint64_t p = k.get("patch_size", 14), ph = k.get("init_pos_emb_height", 64), pw = k.get("init_pos_emb_width", 64);
  std::uint64_t kh = 2, kw = 2;
  if (const HList* kernel = k.v.list("merge_kernel_size"); kernel != nullptr && kernel->size() == 2) {
    const auto* a = std::get_if<std::uint64_t>(&(*kernel)[0].v);
    const auto* b = std::get_if<std::uint64_t>(&(*kernel)[1].v);
    if (a != nullptr && b != nullptr && *a > 0 && *b > 0 && *a <= 16 && *b <= 16) {
      kh = *a;
      kw = *b;
    }
  }
  const std::uint64_t merged = h * kh * kw;
  return 3 * p * p * h + h + ph * pw * h + l * vit_layer(h, i) + 2 * h + 2 * h + merged * merged + merged +
         merged * text_hidden + text_hidden;
}

// Llama4VisionModel (modeling_llama4.py) with its pixel-shuffle adapter, and the projector.
std::uint64_t llama4_vision(const Keys& k, std::uint64_t text_hidden) {
  const std::uint64_t h = k.need("hidden_size"), i = k.need("intermediate_size"), l = k.layers("num_hidden_layers");
  const std::uint64_t p = k.need("patch_size"), img = k.need("image_size"), c = k.get("num_channels", 3);
  const std::uint64_t in = k.need("projector_input_dim"), out = k.need("projector_output_dim");
  return c * p * p * h + h + ((img / p) * (img / p) + 1) * h + 4 * h + l * vit_layer(h, i) + i * in + out * out +
         k.need("vision_output_dim") * text_hidden;
}

// MllamaVisionModel (modeling_mllama.py): local and gated global layers, tile and position
// embeddings per aspect ratio, and the projector.
std::uint64_t mllama_vision(const Keys& k, std::uint64_t text_hidden) {
  const std::uint64_t h = k.need("hidden_size"), i = k.need("intermediate_size"), l = k.layers("num_hidden_layers");
  const std::uint64_t g = k.get("num_global_layers", 8), p = k.need("patch_size"), img = k.need("image_size");
  const std::uint64_t c = k.get("num_channels", 3), tiles = k.get("max_num_tiles", 4), ratios = k.get("max_aspect_ratio_id", 8);
  const std::uint64_t patches = (img / p) * (img / p) + 1;
  const std::uint64_t layer = 4 * h * h + 2 * h * i + i + 5 * h;
  return c * p * p * h + h + (1 + patches * h + (ratios + 1) * tiles * patches * h) + 2 * ((ratios + 1) * tiles * h + 1) +
         4 * h + l * layer + g * (layer + 2) + k.need("vision_output_dim") * text_hidden + text_hidden;
}

// Gemma4VisionModel (modeling_gemma4.py): patch conv, a 2D position table, attention with its own
// heads and q/k norms, a gated MLP, four norms per layer; the embedder to the text width.
std::uint64_t gemma4_vision(const Keys& k, std::uint64_t text_hidden) {
  const std::uint64_t h = k.need("hidden_size"), i = k.need("intermediate_size"), l = k.layers("num_hidden_layers");
  const std::uint64_t heads = k.need("num_attention_heads"), kv = k.get("num_key_value_heads", heads);
  const std::uint64_t hd = k.get("head_dim", h / heads), p = k.get("patch_size", 16), positions = k.get("position_embedding_size", 10240);
  const std::uint64_t layer = h * heads * hd + 2 * h * kv * hd + heads * hd * h + 2 * hd + 3 * h * i + 4 * h;
  return 3 * p * p * h + 2 * positions * h + l * layer + h * text_hidden;
}

// WhisperEncoder (modeling_whisper.py): two convs over the mel bins, positions, pre-norm layers.
std::uint64_t whisper_encoder(const Keys& k) {
  const std::uint64_t d = k.need("d_model"), f = k.get("encoder_ffn_dim", 4 * d), l = k.layers("encoder_layers");
  const std::uint64_t mels = k.get("num_mel_bins", 80), positions = k.get("max_source_positions", 1500);
  return 3 * mels * d + d + 3 * d * d + d + positions * d + l * (4 * d * d + 2 * d * f + 8 * d + f) + 2 * d;
}

// The projectors that sit between a tower and the text model, by wrapper.
std::uint64_t projector(std::string_view wrapper, const HFields& top, std::uint64_t vision_hidden, std::uint64_t text_hidden) {
  if (wrapper == "gemma3") {
    return vision_hidden * text_hidden + vision_hidden;  // mm_input_projection, mm_soft_emb_norm
  }
  if (wrapper == "mistral3") {
    // Mistral3MultiModalProjector: norm, patch merger (s^2 H x H), linear_1, linear_2
    const std::uint64_t s = top.uint("spatial_merge_size", 1, 16).value_or(2);
    const bool bias = top.boolean("multimodal_projector_bias").value_or(false);
    return vision_hidden + s * s * vision_hidden * vision_hidden + vision_hidden * text_hidden + text_hidden * text_hidden +
           (bias ? 2 * text_hidden : 0);
  }
  if (wrapper == "llava" || wrapper == "llava_next") {
    // LlavaMultiModalProjector: linear_1 (vision -> text) and linear_2 (text -> text), with biases
    return vision_hidden * text_hidden + text_hidden * text_hidden + 2 * text_hidden;
  }
  return 0;
}

}  // namespace

TowerCount count_towers(const HFields& top, std::string_view wrapper, std::uint64_t text_hidden) {
  TowerCount out;
  if (const std::optional<HFields> vision = top.child("vision_config")) {
    const Keys k{*vision};
    const std::string type = vision->string("model_type").value_or("");
    std::optional<std::uint64_t> tower;
    std::uint64_t vision_hidden = vision->uint("hidden_size", 1, kMaxDim).value_or(0);
    if (type == "siglip_vision_model" || (type.empty() && wrapper == "gemma3")) {
      tower = siglip(k);
    } else if (type == "clip_vision_model") {
      tower = clip(k);
    } else if (type == "pixtral") {
      tower = pixtral(k);
    } else if (wrapper == "qwen2_vl" || type == "qwen2_vl") {
      tower = qwen2_vl(k);
    } else if (wrapper == "qwen2_5_vl" || type == "qwen2_5_vl") {
      tower = qwen2_5_vl(k);
    } else if (wrapper == "qwen3_vl" || wrapper == "qwen3_vl_moe" || type == "qwen3_vl" || type == "qwen3_vl_moe" ||
               type == "qwen3_5" || type == "qwen3_5_moe") {
      // Qwen3.5 and Qwen3.6 (qwen3_5, qwen3_5_moe): "the vision tower is inherited from Qwen3-VL" (transformers
      // docs/source/en/model_doc/qwen3_5_moe.md); its configs list no deepstack_visual_indexes, so one merger.
      tower = qwen3_vl(k);
      out.encoder = qwen3_vl_encoder(k);
    } else if (type == "moonvit" || vision->has("vt_hidden_size") || wrapper == "kimi_vl" || wrapper == "kimi_k25") {
      tower = moonvit(k, text_hidden);
    } else if (type == "llama4_vision_model") {
      tower = llama4_vision(k, text_hidden);
    } else if (type == "mllama_vision_model") {
      tower = mllama_vision(k, text_hidden);
    } else if (type == "gemma4_vision") {
      tower = gemma4_vision(k, text_hidden);
    }
    if (tower) {
      out.params += *tower + projector(wrapper, top, vision_hidden, text_hidden);
    } else {
      out.uncounted.push_back(fmt::format("vision tower {}", quote_input(type.empty() ? std::string(wrapper) : type)));
    }
  }
  if (wrapper == "whisper" && top.has("encoder_layers")) {
    out.params += whisper_encoder(Keys{top});  // the encoder of an encoder-decoder model
  }
  if (const std::optional<HFields> audio = top.child("audio_config")) {
    const std::string type = audio->string("model_type").value_or("");
    if (type == "whisper" || audio->has("encoder_layers")) {
      out.params += whisper_encoder(Keys{*audio});
    } else {
      out.uncounted.push_back(fmt::format("audio tower {}", quote_input(type)));
    }
  }
  return out;
}

}  // namespace kvplan
