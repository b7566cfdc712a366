// The architecture table: one row per config.json model_type (kvplan/arch.hpp). Each row names the
// transformers configuration class whose defaults it fills in (arch_defaults.inc, transformers
// decba1d2) and follows its modeling file for the layers and parameters; docs/architecture.md
// ("A new architecture") says how to add one.
#include <array>

#include "kvplan/arch.hpp"

namespace kvplan {
namespace {

#include "arch_defaults.inc"

// Defaults the generated table cannot hold: kwargs-only keys read with a default in __post_init__.
// Gemma4TextConfig: global_head_dim = kwargs.pop("global_head_dim", 512).
constexpr std::array<ArchDefault, 1> kGemma4Extra{{default_uint("global_head_dim", 512)}};

// attribute_map renames (the configuration classes' own spelling -> the one kvplan reads).
constexpr std::array kGpt2Renames{KeyRename{"n_layer", "num_hidden_layers"}, KeyRename{"n_head", "num_attention_heads"},
                                  KeyRename{"n_embd", "hidden_size"}, KeyRename{"n_positions", "max_position_embeddings"},
                                  KeyRename{"n_inner", "intermediate_size"}};
constexpr std::array kBlockTypeRenames{KeyRename{"layers_block_type", "layer_types"}};
constexpr std::array kMinimaxRenames{KeyRename{"num_experts", "num_local_experts"}};
constexpr std::array kHunyuanRenames{KeyRename{"attention_head_dim", "head_dim"}};
constexpr std::array kWhisperRenames{KeyRename{"decoder_layers", "num_hidden_layers"},
                                     KeyRename{"decoder_attention_heads", "num_attention_heads"},
                                     KeyRename{"d_model", "hidden_size"},
                                     KeyRename{"max_target_positions", "max_position_embeddings"},
                                     KeyRename{"decoder_ffn_dim", "intermediate_size"}};

// MoE rules shared by families.
constexpr MoeRule kMixtralMoe{MoeLayers::all, "num_local_experts", "intermediate_size", {}, false, false, false, false};
constexpr MoeRule kGptOssMoe{MoeLayers::all, "num_local_experts", "intermediate_size", {}, false, false, true, false};
constexpr MoeRule kQwenMoe{MoeLayers::qwen, "num_experts", "moe_intermediate_size", "shared_expert_intermediate_size",
                           true, true, false, false};
constexpr MoeRule kQwen35Moe{MoeLayers::all, "num_experts", "moe_intermediate_size", "shared_expert_intermediate_size",
                             true, true, false, false};
constexpr MoeRule kDeepseekV2Moe{MoeLayers::deepseek, "n_routed_experts", "moe_intermediate_size", "n_shared_experts",
                                 false, false, false, false};
constexpr MoeRule kDeepseekV3Moe{MoeLayers::deepseek, "n_routed_experts", "moe_intermediate_size", "n_shared_experts",
                                 false, false, false, true};
constexpr MoeRule kLlama4Moe{MoeLayers::interleave, "num_local_experts", "intermediate_size", "intermediate_size",
                             true, false, false, false};
constexpr MoeRule kErnieMoe{MoeLayers::ernie, "moe_num_experts", "moe_intermediate_size", "moe_num_shared_experts",
                            false, false, false, false};
constexpr MoeRule kHunyuanMoe{MoeLayers::all, "num_experts", "intermediate_size", "intermediate_size", true, false, false,
                              false};
constexpr MoeRule kJambaMoe{MoeLayers::period_offset, "num_experts", "intermediate_size", {}, false, false, false, false};
constexpr MoeRule kNemotronHMoe{MoeLayers::pattern_e, "n_routed_experts", "moe_intermediate_size",
                                "moe_shared_expert_intermediate_size", true, false, false, true};
constexpr MoeRule kGraniteHybridMoe{MoeLayers::all, "num_local_experts", "intermediate_size", {}, false, false, false,
                                    false};
constexpr MoeRule kKimiLinearMoe{MoeLayers::deepseek, "num_experts", "moe_intermediate_size", "num_shared_experts", false,
                                 false, false, true};

constexpr Mamba2Keys kNemotronMamba{"mamba_num_heads", "mamba_head_dim", "ssm_state_size", "n_groups", "conv_kernel", ""};
constexpr Mamba2Keys kFalconMamba{"mamba_n_heads", "mamba_d_head", "mamba_d_state", "mamba_n_groups", "mamba_d_conv",
                                  "mamba_d_ssm"};

constexpr ArchRow row(std::string_view type, std::string_view config_class) {
  ArchRow r;
  r.model_type = type;
  r.config_class = config_class;
  return r;
}

// A wrapper (multimodal) config whose text_config holds the backbone.
constexpr ArchRow wrapper(std::string_view type, std::string_view config_class, std::string_view text_type,
                          std::span<const ArchDefault> defaults) {
  ArchRow r = row(type, config_class);
  r.text_type = text_type;
  r.defaults = defaults;
  return r;
}

constexpr ArchRow renamed(ArchRow r, std::string_view type) {
  r.model_type = type;
  return r;
}

constexpr std::size_t kRowCount = 87;

constexpr std::array<ArchRow, kRowCount> kRows = [] {
  std::array<ArchRow, kRowCount> rows{};
  std::size_t n = 0;

  // ---- Llama, Mistral and their direct descendants --------------------------------------------
  // Llama 2/3/3.1/3.2/3.3 (LlamaConfig, models/llama/configuration_llama.py): full attention, GQA.
  ArchRow llama = row("llama", "LlamaConfig (transformers models/llama/configuration_llama.py)");
  llama.rope = RopeRule::shared;
  llama.llama_modules = true;
  llama.defaults = kLlamaDefaults;
  llama.params.mlp_bias = false;
  rows[n++] = llama;

  // Mistral (MistralConfig): every layer slides when sliding_window is set (Mistral-7B-v0.1: 4096).
  ArchRow mistral = row("mistral", "MistralConfig (transformers models/mistral/configuration_mistral.py)");
  mistral.rope = RopeRule::shared;
  mistral.llama_modules = true;
  mistral.layout = Layout::window_if_set;
  mistral.defaults = kMistralDefaults;
  rows[n++] = mistral;

  // Ministral (MinistralConfig): layer_types, or every layer sliding when sliding_window is set.
  ArchRow ministral = row("ministral", "MinistralConfig (transformers models/ministral/configuration_ministral.py)");
  ministral.layout = Layout::window_if_set;
  ministral.defaults = kMinistralDefaults;
  rows[n++] = ministral;

  // Ministral 3 / Devstral 2 text (Ministral3Config): full attention (sliding_window default None).
  ArchRow ministral3 = row("ministral3", "Ministral3Config (transformers models/ministral3/configuration_ministral3.py)");
  ministral3.layout = Layout::window_if_set;
  ministral3.defaults = kMinistral3Defaults;
  rows[n++] = ministral3;

  ArchRow mixtral = row("mixtral", "MixtralConfig (transformers models/mixtral/configuration_mixtral.py)");
  mixtral.rope = RopeRule::shared;
  mixtral.layout = Layout::window_if_set;
  mixtral.params.moe = kMixtralMoe;
  mixtral.defaults = kMixtralDefaults;
  rows[n++] = mixtral;

  // Nemotron-NAS / DeciLM (Llama-3.3-Nemotron-Super-49B): per-block attention (n_heads_in_group, no_op)
  // and MLP width (ffn_mult), vLLM nemotron_nas.py; remote code, Llama's defaults.
  ArchRow nas = row("nemotron-nas", "DeciLMConfig (remote code configuration_decilm.py; LlamaConfig defaults)");
  nas.layout = Layout::block_configs;
  nas.defaults = kLlamaDefaults;
  rows[n++] = nas;

  // Granite 3.x (GraniteConfig): Llama's layout; multipliers change no sizes.
  ArchRow granite = row("granite", "GraniteConfig (transformers models/granite/configuration_granite.py)");
  granite.defaults = kGraniteDefaults;
  rows[n++] = granite;

  ArchRow granitemoe = row("granitemoe", "GraniteMoeConfig (transformers models/granitemoe/configuration_granitemoe.py)");
  granitemoe.defaults = kGranitemoeDefaults;
  granitemoe.params.moe = kMixtralMoe;
  rows[n++] = granitemoe;

  // SmolLM3 (SmolLM3Config): NoPE every 4th layer; sliding only with use_sliding_window (off).
  ArchRow smollm3 = row("smollm3", "SmolLM3Config (transformers models/smollm3/configuration_smollm3.py)");
  smollm3.defaults = kSmollm3Defaults;
  rows[n++] = smollm3;

  // InternLM 2 / 2.5 (remote code configuration_internlm2.py): Llama's layout with a fused wqkv.
  ArchRow internlm2 = row("internlm2", "InternLM2Config (remote code, OpenGVLab/InternVL configuration_internlm2.py)");
  internlm2.defaults = kInternlm2Defaults;
  internlm2.params.bias_key = "bias";
  rows[n++] = internlm2;
  rows[n++] = renamed(internlm2, "internlm3");

  // Seed-OSS (SeedOssConfig): q/k/v biases (attention_bias True), o_proj bias apart (attention_out_bias).
  ArchRow seed = row("seed_oss", "SeedOssConfig (transformers models/seed_oss/configuration_seed_oss.py)");
  seed.defaults = kSeedOssDefaults;
  seed.params.o_bias = false;
  rows[n++] = seed;

  // ---- Qwen ----------------------------------------------------------------------------------------
  // Qwen2 / Qwen2.5 (Qwen2Config): q/k/v biases; sliding only with use_sliding_window.
  ArchRow qwen2 = row("qwen2", "Qwen2Config (transformers models/qwen2/configuration_qwen2.py)");
  qwen2.rope = RopeRule::shared;
  qwen2.llama_modules = true;
  qwen2.layout = Layout::qwen2_window;
  qwen2.params.qkv_bias = true;
  qwen2.defaults = kQwen2Defaults;
  rows[n++] = qwen2;
  // MiMo (XiaomiMiMo/MiMo, remote MiMoConfig(Qwen2Config)): Qwen2's layout and defaults.
  rows[n++] = renamed(qwen2, "mimo");

  ArchRow qwen2_moe = row("qwen2_moe", "Qwen2MoeConfig (transformers models/qwen2_moe/configuration_qwen2_moe.py)");
  qwen2_moe.rope = RopeRule::shared;
  qwen2_moe.layout = Layout::qwen2_window;
  qwen2_moe.params.qkv_bias = true;
  qwen2_moe.params.moe = kQwenMoe;
  qwen2_moe.defaults = kQwen2MoeDefaults;
  rows[n++] = qwen2_moe;

  // Qwen2-VL / Qwen2.5-VL text (Qwen2_5_VLTextConfig): Qwen2's layout, head_dim hidden / heads always.
  ArchRow qwen25vl = row("qwen2_5_vl_text", "Qwen2_5_VLTextConfig (transformers models/qwen2_5_vl/configuration_qwen2_5_vl.py)");
  qwen25vl.layout = Layout::qwen2_window;
  qwen25vl.params.qkv_bias = true;
  qwen25vl.head_dim_forced = true;
  qwen25vl.defaults = kQwen25VlTextDefaults;
  rows[n++] = qwen25vl;
  rows[n++] = renamed(qwen25vl, "qwen2_vl_text");
  // Older Qwen2.5-VL configs keep the text keys at the top level (no text_config).
  ArchRow qwen25vl_top = renamed(qwen25vl, "qwen2_5_vl");
  qwen25vl_top.defaults = kQwen25VlTextDefaults;
  qwen25vl_top.params.tie_default = false;  // Qwen2_5_VLConfig.tie_word_embeddings
  rows[n++] = qwen25vl_top;
  rows[n++] = renamed(qwen25vl_top, "qwen2_vl");

  // Qwen3 (Qwen3Config): no biases, per-head q/k RMSNorm.
  ArchRow qwen3 = row("qwen3", "Qwen3Config (transformers models/qwen3/configuration_qwen3.py)");
  qwen3.rope = RopeRule::shared;
  qwen3.llama_modules = true;
  qwen3.layout = Layout::qwen2_window;
  qwen3.params.qk_norm = QkNorm::per_head;
  qwen3.defaults = kQwen3Defaults;
  rows[n++] = qwen3;

  ArchRow qwen3_moe = row("qwen3_moe", "Qwen3MoeConfig (transformers models/qwen3_moe/configuration_qwen3_moe.py)");
  qwen3_moe.rope = RopeRule::shared;
  qwen3_moe.layout = Layout::qwen2_window;
  qwen3_moe.params.qk_norm = QkNorm::per_head;
  qwen3_moe.params.moe = kQwenMoe;
  qwen3_moe.defaults = kQwen3MoeDefaults;
  rows[n++] = qwen3_moe;

  ArchRow qwen3vl = row("qwen3_vl_text", "Qwen3VLTextConfig (transformers models/qwen3_vl/configuration_qwen3_vl.py)");
  qwen3vl.params.qk_norm = QkNorm::per_head;
  qwen3vl.defaults = kQwen3VlTextDefaults;
  rows[n++] = qwen3vl;

  ArchRow qwen3vlmoe =
      row("qwen3_vl_moe_text", "Qwen3VLMoeTextConfig (transformers models/qwen3_vl_moe/configuration_qwen3_vl_moe.py)");
  qwen3vlmoe.params.qk_norm = QkNorm::per_head;
  qwen3vlmoe.params.moe = kQwenMoe;
  qwen3vlmoe.defaults = kQwen3VlMoeTextDefaults;
  rows[n++] = qwen3vlmoe;

  // Qwen3-Next (Qwen3NextConfig): Gated DeltaNet layers, full attention every
  // full_attention_interval-th layer (default 4); q_proj doubled for the output gate.
  ArchRow qwen3_next = row("qwen3_next", "Qwen3NextConfig (transformers models/qwen3_next/configuration_qwen3_next.py)");
  qwen3_next.rope = RopeRule::shared;
  qwen3_next.layout = Layout::every_nth_full_linear;
  qwen3_next.layout_key = "full_attention_interval";
  qwen3_next.layout_default = 4;
  qwen3_next.state = StateFormula::gated_delta_net;
  qwen3_next.params.qk_norm = QkNorm::per_head;
  qwen3_next.params.gated_q = true;
  qwen3_next.params.moe = kQwenMoe;
  qwen3_next.defaults = kQwen3NextDefaults;
  rows[n++] = qwen3_next;

  // Qwen3.5 (Qwen3_5TextConfig): Qwen3-Next's layout; dense, or every layer MoE (Qwen3_5MoeTextConfig).
  ArchRow qwen35 = qwen3_next;
  qwen35.model_type = "qwen3_5_text";
  qwen35.config_class = "Qwen3_5TextConfig (transformers models/qwen3_5/configuration_qwen3_5.py)";
  qwen35.params.moe = MoeRule{};
  qwen35.defaults = kQwen35TextDefaults;
  rows[n++] = qwen35;
  ArchRow qwen35moe = qwen3_next;
  qwen35moe.model_type = "qwen3_5_moe_text";
  qwen35moe.config_class = "Qwen3_5MoeTextConfig (transformers models/qwen3_5_moe/configuration_qwen3_5_moe.py)";
  qwen35moe.params.moe = kQwen35Moe;
  qwen35moe.defaults = kQwen35MoeTextDefaults;
  rows[n++] = qwen35moe;

  // ---- DeepSeek and MLA models --------------------------------------------------------------------
  // DeepSeek-V2 / V3 (DeepseekV2Config, DeepseekV3Config): MLA when kv_lora_rank is set.
  ArchRow deepseek_v2 = row("deepseek_v2", "DeepseekV2Config (transformers models/deepseek_v2/configuration_deepseek_v2.py)");
  deepseek_v2.params.moe = kDeepseekV2Moe;
  deepseek_v2.defaults = kDeepseekV2Defaults;
  rows[n++] = deepseek_v2;

  ArchRow deepseek_v3 = row("deepseek_v3", "DeepseekV3Config (transformers models/deepseek_v3/configuration_deepseek_v3.py)");
  deepseek_v3.params.moe = kDeepseekV3Moe;
  deepseek_v3.defaults = kDeepseekV3Defaults;
  rows[n++] = deepseek_v3;
  // Kimi-K2 (remote DeepseekV3Config with model_type kimi_k2; Kimi_K25Config maps it to deepseek_v3).
  rows[n++] = renamed(deepseek_v3, "kimi_k2");
  // GLM-4.7-Flash and friends (Glm4MoeLiteConfig): DeepSeek-V3's MLA.
  ArchRow glm_lite = renamed(deepseek_v3, "glm4_moe_lite");
  glm_lite.config_class = "Glm4MoeLiteConfig (transformers models/glm4_moe_lite/configuration_glm4_moe_lite.py)";
  glm_lite.defaults = kGlm4MoeLiteDefaults;
  rows[n++] = glm_lite;

  // DeepSeek-V3.2 (DeepseekV32Config): MLA plus the sparse-attention indexer on every layer; GLM-5
  // (glm_moe_dsa) is the same model in vLLM (GlmMoeDsaForCausalLM(DeepseekV2ForCausalLM)).
  ArchRow deepseek_v32 = row("deepseek_v32", "DeepseekV32Config (transformers models/deepseek_v32/configuration_deepseek_v32.py)");
  deepseek_v32.params.moe = kDeepseekV3Moe;
  deepseek_v32.indexer = true;
  deepseek_v32.defaults = kDeepseekV32Defaults;
  rows[n++] = deepseek_v32;
  rows[n++] = renamed(deepseek_v32, "glm_moe_dsa");

  // Kimi Linear / Kimi-K3 text (vLLM transformers_utils/configs/kimi_linear.py): KDA layers listed
  // in linear_attn_config.kda_layers, MLA elsewhere.
  ArchRow kimi_linear = row("kimi_linear", "KimiLinearConfig (transformers_utils/configs/kimi_linear.py of the serving engine that defines it)");
  kimi_linear.layout = Layout::kda_lists;
  kimi_linear.state = StateFormula::kda;
  kimi_linear.params.moe = kKimiLinearMoe;
  rows[n++] = kimi_linear;

  // ---- Gemma ------------------------------------------------------------------------------------
  ArchRow gemma = row("gemma", "GemmaConfig (transformers models/gemma/configuration_gemma.py)");
  gemma.rope = RopeRule::shared;
  gemma.llama_modules = true;
  gemma.params.tie_default = true;
  rows[n++] = gemma;

  // Gemma 2 (Gemma2Config): sliding if (i + 1) % 2 else full; four norms per layer.
  ArchRow gemma2 = row("gemma2", "Gemma2Config (transformers models/gemma2/configuration_gemma2.py)");
  gemma2.rope = RopeRule::shared;
  gemma2.llama_modules = true;
  gemma2.layout = Layout::every_nth_full;
  gemma2.layout_default = 2;
  gemma2.params.norms_per_layer = 4;
  gemma2.params.tie_default = true;
  rows[n++] = gemma2;

  // Gemma 3 (Gemma3TextConfig): sliding unless (i + 1) % sliding_window_pattern == 0 (default 6).
  ArchRow gemma3 = row("gemma3_text", "Gemma3TextConfig (transformers models/gemma3/configuration_gemma3.py)");
  gemma3.rope = RopeRule::local_for_sliding;  // modeling_gemma3.py: sliding layers rotate at rope_local_base_freq
  gemma3.llama_modules = true;
  gemma3.layout = Layout::every_nth_full;
  gemma3.layout_key = "sliding_window_pattern";
  gemma3.layout_key_legacy = "_sliding_window_pattern";
  gemma3.layout_default = 6;
  gemma3.params.norms_per_layer = 4;
  gemma3.params.qk_norm = QkNorm::per_head;
  gemma3.params.tie_default = true;
  gemma3.defaults = kGemma3TextDefaults;
  rows[n++] = gemma3;
  // A Gemma 3 config with the text keys at the top level that says gemma3 there; with a text_config
  // it is the wrapper Gemma3Config, whose backbone is a Gemma3TextConfig.
  ArchRow gemma3_top = renamed(gemma3, "gemma3");
  gemma3_top.config_class = "Gemma3Config (transformers models/gemma3/configuration_gemma3.py)";
  gemma3_top.text_type = "gemma3_text";

  // Gemma-3n (Gemma3nTextConfig): full every 5th layer; the last num_kv_shared_layers layers share KV.
  ArchRow gemma3n = row("gemma3n_text", "Gemma3nTextConfig (transformers models/gemma3n/configuration_gemma3n.py)");
  gemma3n.layout = Layout::every_nth_full;
  gemma3n.layout_default = 5;
  gemma3n.kv_sharing = true;
  gemma3n.params.norms_per_layer = 4;
  gemma3n.params.qk_norm = QkNorm::per_head;
  gemma3n.params.tie_default = true;
  gemma3n.params.per_layer_inputs = true;
  gemma3n.defaults = kGemma3nTextDefaults;
  rows[n++] = gemma3n;

  // Gemma 4 (Gemma4TextConfig): sliding with full every 6th; full layers have global_head_dim and,
  // with attention_k_eq_v, num_global_key_value_heads; MoE beside the MLP with enable_moe_block.
  ArchRow gemma4 = row("gemma4_text", "Gemma4TextConfig (transformers models/gemma4/configuration_gemma4.py)");
  gemma4.layout = Layout::every_nth_full;
  gemma4.layout_default = 6;
  gemma4.kv_sharing = true;
  gemma4.full = KindKeys{"num_global_key_value_heads", "attention_k_eq_v", "global_head_dim", ""};
  gemma4.params.norms_per_layer = 4;
  gemma4.params.qk_norm = QkNorm::per_head;
  gemma4.params.tie_default = true;
  gemma4.params.per_layer_inputs = true;
  gemma4.params.moe_with_dense = true;
  gemma4.params.moe = MoeRule{MoeLayers::all, "num_experts", "moe_intermediate_size", {}, false, false, false, false};
  gemma4.defaults = kGemma4TextDefaults;
  gemma4.extra_defaults = kGemma4Extra;
  rows[n++] = gemma4;

  // ---- Other dense families ----------------------------------------------------------------------
  // gpt-oss (GptOssConfig): layer_types alternate sliding and full; attention biases and sinks.
  ArchRow gpt_oss = row("gpt_oss", "GptOssConfig (transformers models/gpt_oss/configuration_gpt_oss.py)");
  gpt_oss.rope = RopeRule::shared;
  gpt_oss.params.attention_bias = true;
  gpt_oss.params.attention_sinks = true;
  gpt_oss.params.moe = kGptOssMoe;
  gpt_oss.defaults = kGptOssDefaults;
  rows[n++] = gpt_oss;

  // Phi-3 / Phi-3.5 / Phi-4 (Phi3Config): every layer slides when sliding_window is set.
  ArchRow phi3 = row("phi3", "Phi3Config (transformers models/phi3/configuration_phi3.py)");
  phi3.rope = RopeRule::shared;
  phi3.llama_modules = true;
  phi3.layout = Layout::window_if_set;
  phi3.defaults = kPhi3Defaults;
  rows[n++] = phi3;

  // Phi-1.5 / Phi-2 (PhiConfig): q/k/v and dense biases, fc1/fc2 with biases, one LayerNorm per layer.
  ArchRow phi = row("phi", "PhiConfig (transformers models/phi/configuration_phi.py)");
  phi.params.qkv_bias = true;
  phi.params.attention_bias = true;
  phi.params.plain_mlp = true;
  phi.params.mlp_bias = true;
  phi.params.norms_per_layer = 1;
  phi.params.norm_width = 2;
  phi.defaults = kPhiDefaults;
  rows[n++] = phi;

  ArchRow phimoe = row("phimoe", "PhimoeConfig (transformers models/phimoe/configuration_phimoe.py)");
  phimoe.layout = Layout::window_if_set;
  phimoe.params.norm_width = 2;
  phimoe.params.moe = kMixtralMoe;
  phimoe.defaults = kPhimoeDefaults;
  rows[n++] = phimoe;

  // Falcon (FalconConfig): multi-query or num_kv_heads, ungated MLP, LayerNorms with biases.
  ArchRow falcon = row("falcon", "FalconConfig (transformers models/falcon/configuration_falcon.py)");
  falcon.kv_heads = KvHeadsRule::falcon;
  falcon.default_context = 2048;  // FalconConfig has no max_position_embeddings; Falcon uses 2048
  falcon.params.falcon = true;
  falcon.params.tie_default = true;
  falcon.defaults = kFalconDefaults;
  rows[n++] = falcon;

  // GLM-4 (Glm4Config): q/k/v biases (attention_bias, default True), not o_proj; sandwich norms.
  ArchRow glm4 = row("glm4", "Glm4Config (transformers models/glm4/configuration_glm4.py)");
  glm4.params.o_bias = false;
  glm4.params.norms_per_layer = 4;
  glm4.defaults = kGlm4Defaults;
  rows[n++] = glm4;

  // GLM-4.5 / 4.6 / 4.7 (Glm4MoeConfig): DeepSeek-V3's MoE layout (first_k_dense_replace), GQA.
  ArchRow glm4_moe = row("glm4_moe", "Glm4MoeConfig (transformers models/glm4_moe/configuration_glm4_moe.py)");
  glm4_moe.params.o_bias = false;
  glm4_moe.params.qk_norm = QkNorm::if_flag;
  glm4_moe.params.moe = kDeepseekV3Moe;
  glm4_moe.defaults = kGlm4MoeDefaults;
  rows[n++] = glm4_moe;

  // Command-R (CohereConfig): parallel attention and MLP after one LayerNorm (no bias).
  ArchRow cohere = row("cohere", "CohereConfig (transformers models/cohere/configuration_cohere.py)");
  cohere.params.norms_per_layer = 1;
  cohere.params.qk_norm = QkNorm::if_flag;
  cohere.params.tie_default = true;
  cohere.defaults = kCohereDefaults;
  rows[n++] = cohere;

  // Command-R7B / Command-A (Cohere2Config): sliding unless (i + 1) % sliding_window_pattern == 0
  // (default 4); head_dim always hidden / heads.
  ArchRow cohere2 = row("cohere2", "Cohere2Config (transformers models/cohere2/configuration_cohere2.py)");
  cohere2.layout = Layout::every_nth_full;
  cohere2.layout_key = "sliding_window_pattern";
  cohere2.layout_default = 4;
  cohere2.head_dim_forced = true;
  cohere2.params.norms_per_layer = 1;
  cohere2.params.tie_default = true;
  cohere2.defaults = kCohere2Defaults;
  rows[n++] = cohere2;

  // OLMo 2 (Olmo2Config): q/k RMSNorm over the whole projection; post-norms.
  ArchRow olmo2 = row("olmo2", "Olmo2Config (transformers models/olmo2/configuration_olmo2.py)");
  olmo2.params.qk_norm = QkNorm::full_width;
  olmo2.defaults = kOlmo2Defaults;
  rows[n++] = olmo2;

  // OLMo 3 (Olmo3Config): sliding with full every 4th layer.
  ArchRow olmo3 = olmo2;
  olmo3.model_type = "olmo3";
  olmo3.config_class = "Olmo3Config (transformers models/olmo3/configuration_olmo3.py)";
  olmo3.layout = Layout::every_nth_full;
  olmo3.layout_default = 4;
  olmo3.defaults = kOlmo3Defaults;
  rows[n++] = olmo3;

  // EXAONE 4 (Exaone4Config): sliding_window_pattern (a period, or letters "LLLG"); q/k norms.
  ArchRow exaone4 = row("exaone4", "Exaone4Config (transformers models/exaone4/configuration_exaone4.py)");
  exaone4.layout = Layout::exaone;
  exaone4.params.qk_norm = QkNorm::per_head;
  exaone4.defaults = kExaone4Defaults;
  rows[n++] = exaone4;

  // MiniMax-M2 (MiniMaxM2Config): every layer MoE, q/k norms over the whole projection.
  ArchRow minimax_m2 = row("minimax_m2", "MiniMaxM2Config (transformers models/minimax_m2/configuration_minimax_m2.py)");
  minimax_m2.renames = kMinimaxRenames;
  minimax_m2.params.qk_norm = QkNorm::full_width;
  minimax_m2.params.moe = kMixtralMoe;
  minimax_m2.defaults = kMinimaxM2Defaults;
  rows[n++] = minimax_m2;

  // MiMo-V2-Flash (MiMoV2FlashConfig): hybrid_layer_pattern (1 sliding); sliding layers with their
  // own KV heads and head sizes (swa_*), K 192 / V 128 wide; MoE after the first dense layer.
  ArchRow mimo_v2 = row("mimo_v2_flash", "MiMoV2FlashConfig (transformers models/mimo_v2_flash/configuration_mimo_v2_flash.py)");
  mimo_v2.layout = Layout::pattern_list;
  mimo_v2.layout_key = "hybrid_layer_pattern";
  mimo_v2.full = KindKeys{"", "", "", "v_head_dim"};
  mimo_v2.sliding = KindKeys{"swa_num_key_value_heads", "", "swa_head_dim", "swa_v_head_dim"};
  mimo_v2.params.moe = kDeepseekV2Moe;
  mimo_v2.defaults = kMimoV2FlashDefaults;
  rows[n++] = mimo_v2;

  // Hunyuan (HunYuanDenseV1Config, HunYuanMoEV1Config): per-head q/k norms; MoE with one shared MLP.
  ArchRow hunyuan = row("hunyuan_v1_dense", "HunYuanDenseV1Config (transformers models/hunyuan_v1_dense/configuration_hunyuan_v1_dense.py)");
  hunyuan.params.qk_norm = QkNorm::per_head;
  hunyuan.defaults = kHunyuanV1DenseDefaults;
  rows[n++] = hunyuan;
  ArchRow hunyuan_moe = hunyuan;
  hunyuan_moe.model_type = "hunyuan_v1_moe";
  hunyuan_moe.config_class = "HunYuanMoEV1Config (transformers models/hunyuan_v1_moe/configuration_hunyuan_v1_moe.py)";
  hunyuan_moe.params.moe = kHunyuanMoe;
  hunyuan_moe.defaults = kHunyuanV1MoeDefaults;
  rows[n++] = hunyuan_moe;
  // Hunyuan-A13B as released (remote code, model_type hunyuan): attention_head_dim for head_dim.
  ArchRow hunyuan_remote = renamed(hunyuan_moe, "hunyuan");
  hunyuan_remote.config_class = "HunYuanConfig (remote code, tencent/Hunyuan-A13B configuration_hunyuan.py)";
  hunyuan_remote.renames = kHunyuanRenames;
  rows[n++] = hunyuan_remote;

  // ERNIE 4.5 (Ernie4_5Config, Ernie4_5_MoeConfig): biases by use_bias; MoE every moe_layer_interval-th.
  ArchRow ernie = row("ernie4_5", "Ernie4_5Config (transformers models/ernie4_5/configuration_ernie4_5.py)");
  ernie.params.bias_key = "use_bias";
  ernie.defaults = kErnie45Defaults;
  rows[n++] = ernie;
  ArchRow ernie_moe = ernie;
  ernie_moe.model_type = "ernie4_5_moe";
  ernie_moe.config_class = "Ernie4_5_MoeConfig (transformers models/ernie4_5_moe/configuration_ernie4_5_moe.py)";
  ernie_moe.params.moe = kErnieMoe;
  ernie_moe.defaults = kErnie45MoeDefaults;
  rows[n++] = ernie_moe;

  // StableLM 2 (StableLmConfig): LayerNorms with bias, q/k/v biases by use_qkv_bias, head_dim hidden / heads.
  ArchRow stablelm = row("stablelm", "StableLmConfig (transformers models/stablelm/configuration_stablelm.py)");
  stablelm.head_dim_forced = true;
  stablelm.params.bias_key = "use_qkv_bias";
  stablelm.params.o_bias = false;
  stablelm.params.norm_width = 2;
  stablelm.defaults = kStablelmDefaults;
  rows[n++] = stablelm;

  // Starcoder2 (Starcoder2Config): sliding when set, LayerNorms, c_fc/c_proj MLP, biases (use_bias).
  ArchRow starcoder2 = row("starcoder2", "Starcoder2Config (transformers models/starcoder2/configuration_starcoder2.py)");
  starcoder2.layout = Layout::window_if_set;
  starcoder2.params.bias_key = "use_bias";
  starcoder2.params.attention_bias = true;
  starcoder2.params.plain_mlp = true;
  starcoder2.params.mlp_bias = true;
  starcoder2.params.norm_width = 2;
  starcoder2.defaults = kStarcoder2Defaults;
  rows[n++] = starcoder2;

  // GPT-NeoX / Pythia (GPTNeoXConfig): MHA, fused qkv and dense with biases, ungated MLP with biases.
  ArchRow neox = row("gpt_neox", "GPTNeoXConfig (transformers models/gpt_neox/configuration_gpt_neox.py)");
  neox.params.qkv_bias = true;
  neox.params.attention_bias = true;
  neox.params.plain_mlp = true;
  neox.params.mlp_bias = true;
  neox.params.norm_width = 2;
  neox.defaults = kGptNeoxDefaults;
  rows[n++] = neox;

  // GPT-2 (GPT2Config): n_layer, n_head, n_embd; learned positions; everything biased; n_inner 4h.
  ArchRow gpt2 = row("gpt2", "GPT2Config (transformers models/gpt2/configuration_gpt2.py)");
  gpt2.renames = kGpt2Renames;
  gpt2.params.qkv_bias = true;
  gpt2.params.attention_bias = true;
  gpt2.params.plain_mlp = true;
  gpt2.params.mlp_bias = true;
  gpt2.params.norm_width = 2;
  gpt2.params.learned_positions = true;
  gpt2.params.ffn_4h = true;
  gpt2.params.tie_default = true;
  gpt2.defaults = kGpt2Defaults;
  rows[n++] = gpt2;

  // GPT-BigCode / SantaCoder / StarCoder (GPTBigCodeConfig): GPT-2 with multi-query attention.
  ArchRow bigcode = gpt2;
  bigcode.model_type = "gpt_bigcode";
  bigcode.config_class = "GPTBigCodeConfig (transformers models/gpt_bigcode/configuration_gpt_bigcode.py)";
  bigcode.kv_heads = KvHeadsRule::multi_query;
  bigcode.defaults = kGptBigcodeDefaults;
  rows[n++] = bigcode;

  // ---- Llama 4 and encoder-attending models ---------------------------------------------------------
  // Llama 4 (Llama4TextConfig): chunked-local attention on RoPE layers (attention_chunk_size), full
  // on every 4th (NoPE); MoE every interleave_moe_layer_step-th layer with one shared expert; dense
  // layers use intermediate_size_mlp.
  ArchRow llama4 = row("llama4_text", "Llama4TextConfig (transformers models/llama4/configuration_llama4.py)");
  llama4.layout = Layout::chunked_every_nth;
  llama4.params.dense_ffn = "intermediate_size_mlp";
  llama4.params.moe = kLlama4Moe;
  llama4.defaults = kLlama4TextDefaults;
  rows[n++] = llama4;

  // Llama-3.2-Vision (MllamaTextConfig): cross-attention layers over the image tokens.
  ArchRow mllama = row("mllama_text_model", "MllamaTextConfig (transformers models/mllama/configuration_mllama.py)");
  mllama.layout = Layout::cross_list;
  mllama.defaults = kMllamaTextModelDefaults;
  rows[n++] = mllama;

  // ---- Hybrids with recurrent state -----------------------------------------------------------------
  // LFM2 (Lfm2Config): full_attn_idxs attend, the rest are short convolutions of conv_L_cache.
  ArchRow lfm2 = row("lfm2", "Lfm2Config (transformers models/lfm2/configuration_lfm2.py)");
  lfm2.layout = Layout::full_index_list;
  lfm2.layout_key = "full_attn_idxs";
  lfm2.state = StateFormula::short_conv;
  lfm2.params.qk_norm = QkNorm::per_head;
  lfm2.params.lfm2_ffn = true;
  lfm2.params.tie_default = true;
  lfm2.defaults = kLfm2Defaults;
  rows[n++] = lfm2;
  ArchRow lfm2_moe = lfm2;
  lfm2_moe.model_type = "lfm2_moe";
  lfm2_moe.config_class = "Lfm2MoeConfig (transformers models/lfm2_moe/configuration_lfm2_moe.py)";
  lfm2_moe.params.lfm2_ffn = false;
  lfm2_moe.params.moe = kDeepseekV2Moe;
  lfm2_moe.params.moe.experts = "num_experts";
  lfm2_moe.defaults = kLfm2MoeDefaults;
  rows[n++] = lfm2_moe;

  // Nemotron-H (NemotronHConfig): hybrid_override_pattern of Mamba-2 (M), attention (*), MLP (-)
  // and MoE (E) blocks; relu2 MLPs, one norm per block.
  ArchRow nemotron_h = row("nemotron_h", "NemotronHConfig (transformers models/nemotron_h/configuration_nemotron_h.py)");
  nemotron_h.layout = Layout::hybrid_pattern;
  nemotron_h.state = StateFormula::mamba2;
  nemotron_h.mamba2 = kNemotronMamba;
  nemotron_h.params.plain_mlp = true;
  nemotron_h.params.norms_per_layer = 1;
  nemotron_h.params.moe = kNemotronHMoe;
  nemotron_h.defaults = kNemotronHDefaults;
  nemotron_h.renames = kBlockTypeRenames;  // newer configs list layers_block_type (mamba, moe, attention)
  rows[n++] = nemotron_h;

  // Falcon-H1 (FalconH1Config): attention and Mamba-2 side by side in every layer.
  ArchRow falcon_h1 = row("falcon_h1", "FalconH1Config (transformers models/falcon_h1/configuration_falcon_h1.py)");
  falcon_h1.layout = Layout::parallel_hybrid;
  falcon_h1.state = StateFormula::mamba2;
  falcon_h1.mamba2 = kFalconMamba;
  falcon_h1.defaults = kFalconH1Defaults;
  rows[n++] = falcon_h1;

  // Granite-4.0-H (GraniteMoeHybridConfig): layer_types (layers_block_type) of Mamba-2 and attention;
  // a shared MLP on every layer, routed experts beside it when num_local_experts > 0.
  ArchRow granite_h = row("granitemoehybrid", "GraniteMoeHybridConfig (transformers models/granitemoehybrid/configuration_granitemoehybrid.py)");
  granite_h.renames = kBlockTypeRenames;
  granite_h.state = StateFormula::mamba2;
  granite_h.mamba2 = kFalconMamba;
  granite_h.params.dense_ffn = "shared_intermediate_size";
  granite_h.params.moe_with_dense = true;
  granite_h.params.moe = kGraniteHybridMoe;
  granite_h.defaults = kGranitemoehybridDefaults;
  rows[n++] = granite_h;

  // Bamba (BambaConfig): Granite-4.0-H's mixers without experts (vLLM dropped it after 0.23).
  ArchRow bamba = row("bamba", "BambaConfig (transformers models/bamba/configuration_bamba.py)");
  bamba.renames = kBlockTypeRenames;
  bamba.state = StateFormula::mamba2;
  bamba.mamba2 = kFalconMamba;
  bamba.defaults = kBambaDefaults;
  rows[n++] = bamba;

  // Jamba (JambaConfig): attention where i % attn_layer_period == attn_layer_offset, Mamba-1
  // elsewhere; experts where i % expert_layer_period == expert_layer_offset.
  ArchRow jamba = row("jamba", "JambaConfig (transformers models/jamba/configuration_jamba.py)");
  jamba.layout = Layout::period_offset;
  jamba.state = StateFormula::mamba1;
  jamba.params.moe = kJambaMoe;
  jamba.defaults = kJambaDefaults;
  rows[n++] = jamba;

  // Whisper (WhisperConfig): the decoder's self-attention grows per token, its cross-attention holds
  // the encoder's max_source_positions frames; the encoder is counted as the audio tower.
  ArchRow whisper = row("whisper", "WhisperConfig (transformers models/whisper/configuration_whisper.py)");
  whisper.layout = Layout::encoder_decoder;
  whisper.renames = kWhisperRenames;
  whisper.params.qkv_bias = true;
  whisper.params.attention_bias = true;
  whisper.params.plain_mlp = true;
  whisper.params.mlp_bias = true;
  whisper.params.norms_per_layer = 3;
  whisper.params.norm_width = 2;
  whisper.params.learned_positions = true;
  whisper.params.tie_default = true;
  rows[n++] = whisper;

  // ---- Wrappers: multimodal configs whose text_config holds the backbone -------------------------
  rows[n++] = gemma3_top;
  rows[n++] = wrapper("gemma3n", "Gemma3nConfig (transformers models/gemma3n/configuration_gemma3n.py)", "gemma3n_text",
                      kGemma3nDefaults);
  rows[n++] = wrapper("gemma4", "Gemma4Config (transformers models/gemma4/configuration_gemma4.py)", "gemma4_text",
                      kGemma4Defaults);
  rows[n++] = wrapper("llama4", "Llama4Config (transformers models/llama4/configuration_llama4.py)", "llama4_text",
                      kLlama4Defaults);
  rows[n++] = wrapper("mllama", "MllamaConfig (transformers models/mllama/configuration_mllama.py)", "mllama_text_model",
                      {});
  rows[n++] = wrapper("mistral3", "Mistral3Config (transformers models/mistral3/configuration_mistral3.py)", "mistral",
                      kMistral3Defaults);
  rows[n++] = wrapper("qwen3_vl", "Qwen3VLConfig (transformers models/qwen3_vl/configuration_qwen3_vl.py)", "qwen3_vl_text",
                      kQwen3VlDefaults);
  rows[n++] = wrapper("qwen3_vl_moe", "Qwen3VLMoeConfig (transformers models/qwen3_vl_moe/configuration_qwen3_vl_moe.py)",
                      "qwen3_vl_moe_text", kQwen3VlMoeDefaults);
  rows[n++] = wrapper("qwen3_5", "Qwen3_5Config (transformers models/qwen3_5/configuration_qwen3_5.py)", "qwen3_5_text",
                      kQwen35Defaults);
  rows[n++] = wrapper("qwen3_5_moe", "Qwen3_5MoeConfig (transformers models/qwen3_5_moe/configuration_qwen3_5_moe.py)",
                      "qwen3_5_moe_text", kQwen35MoeDefaults);
  rows[n++] = wrapper("kimi_k25", "Kimi_K25Config (transformers models/kimi_k25/configuration_kimi_k25.py)",
                      "deepseek_v3", kKimiK25Defaults);
  rows[n++] = wrapper("kimi_vl", "KimiVLConfig (remote code; its text_config is a DeepseekV3Config)", "deepseek_v3", {});
  rows[n++] = wrapper("kimi_k3", "Kimi-K3 (remote code; its text_config is a Kimi Linear config)", "kimi_linear", {});
  rows[n++] = wrapper("llava", "LlavaConfig (transformers models/llava/configuration_llava.py)", "llama", {});
  rows[n++] = wrapper("llava_next", "LlavaNextConfig (transformers models/llava_next/configuration_llava_next.py)",
                      "llama", {});

  if (n != rows.size()) {
    throw "kRowCount must be the number of rows";  // a compile error: the table is built at compile time
  }
  return rows;
}();

}  // namespace

std::span<const ArchRow> arch_rows() noexcept { return {kRows.data(), kRows.size()}; }

const ArchRow* find_arch(std::string_view model_type) noexcept {
  for (const ArchRow& r : kRows) {
    if (r.model_type == model_type) {
      return &r;
    }
  }
  return nullptr;
}

}  // namespace kvplan
