// The architecture table: one row per config.json model_type (kvplan/arch.hpp). Each row cites the
// transformers configuration class whose defaults it fills in and the modeling file whose layers
// it counts; docs/architecture.md ("A new architecture") says how to add one.
#include <array>

#include "kvplan/arch.hpp"

namespace kvplan {
namespace {

#include "arch_defaults.inc"

// MoE rules shared by families.
constexpr MoeRule kMixtralMoe{MoeLayers::all, "num_local_experts", "intermediate_size", {}, false, false, false, false};
constexpr MoeRule kGptOssMoe{MoeLayers::all, "num_local_experts", "intermediate_size", {}, false, false, true, false};
constexpr MoeRule kQwenMoe{MoeLayers::qwen, "num_experts", "moe_intermediate_size", "shared_expert_intermediate_size",
                           true, true, false, false};
constexpr MoeRule kDeepseekV2Moe{MoeLayers::deepseek, "n_routed_experts", "moe_intermediate_size", "n_shared_experts",
                                 false, false, false, false};
constexpr MoeRule kDeepseekV3Moe{MoeLayers::deepseek, "n_routed_experts", "moe_intermediate_size", "n_shared_experts",
                                 false, false, false, true};

constexpr ParamRule plain(std::uint32_t norms = 2) {
  ParamRule p;
  p.norms_per_layer = norms;
  return p;
}

constexpr ArchRow row(std::string_view type, std::string_view config_class) {
  ArchRow r;
  r.model_type = type;
  r.config_class = config_class;
  return r;
}

constexpr std::array kRows = [] {
  std::array<ArchRow, 17> rows{};
  std::size_t n = 0;

  // Llama 2/3/3.1/3.2/3.3 (LlamaConfig, models/llama/configuration_llama.py): full attention, GQA.
  ArchRow llama = row("llama", "LlamaConfig (transformers models/llama/configuration_llama.py)");
  llama.defaults = kLlamaDefaults;
  rows[n++] = llama;

  // Mistral (MistralConfig): every layer slides when sliding_window is set (Mistral-7B-v0.1: 4096).
  ArchRow mistral = row("mistral", "MistralConfig (transformers models/mistral/configuration_mistral.py)");
  mistral.layout = Layout::window_if_set;
  mistral.defaults = kMistralDefaults;
  rows[n++] = mistral;

  ArchRow mixtral = row("mixtral", "MixtralConfig (transformers models/mixtral/configuration_mixtral.py)");
  mixtral.layout = Layout::window_if_set;
  mixtral.params.moe = kMixtralMoe;
  mixtral.defaults = kMixtralDefaults;
  rows[n++] = mixtral;

  // Qwen2 / Qwen2.5 (Qwen2Config): q/k/v biases; sliding only with use_sliding_window.
  ArchRow qwen2 = row("qwen2", "Qwen2Config (transformers models/qwen2/configuration_qwen2.py)");
  qwen2.layout = Layout::qwen2_window;
  qwen2.params.qkv_bias = true;
  qwen2.defaults = kQwen2Defaults;
  rows[n++] = qwen2;

  ArchRow qwen2_moe = row("qwen2_moe", "Qwen2MoeConfig (transformers models/qwen2_moe/configuration_qwen2_moe.py)");
  qwen2_moe.layout = Layout::qwen2_window;
  qwen2_moe.params.qkv_bias = true;
  qwen2_moe.params.moe = kQwenMoe;
  qwen2_moe.defaults = kQwen2MoeDefaults;
  rows[n++] = qwen2_moe;

  // Qwen3 (Qwen3Config): no biases, per-head q/k RMSNorm.
  ArchRow qwen3 = row("qwen3", "Qwen3Config (transformers models/qwen3/configuration_qwen3.py)");
  qwen3.layout = Layout::qwen2_window;
  qwen3.params.qk_norm = true;
  qwen3.defaults = kQwen3Defaults;
  rows[n++] = qwen3;

  ArchRow qwen3_moe = row("qwen3_moe", "Qwen3MoeConfig (transformers models/qwen3_moe/configuration_qwen3_moe.py)");
  qwen3_moe.layout = Layout::qwen2_window;
  qwen3_moe.params.qk_norm = true;
  qwen3_moe.params.moe = kQwenMoe;
  qwen3_moe.defaults = kQwen3MoeDefaults;
  rows[n++] = qwen3_moe;

  // Qwen3-Next (Qwen3NextConfig): Gated DeltaNet layers, full attention every
  // full_attention_interval-th layer (default 4); q_proj doubled for the output gate.
  ArchRow qwen3_next = row("qwen3_next", "Qwen3NextConfig (transformers models/qwen3_next/configuration_qwen3_next.py)");
  qwen3_next.layout = Layout::every_nth_full_linear;
  qwen3_next.layout_key = "full_attention_interval";
  qwen3_next.layout_default = 4;
  qwen3_next.state = StateFormula::gated_delta_net;
  qwen3_next.params.qk_norm = true;
  qwen3_next.params.gated_q = true;
  qwen3_next.params.moe = kQwenMoe;
  qwen3_next.defaults = kQwen3NextDefaults;
  rows[n++] = qwen3_next;

  // DeepSeek-V2 / V3 (DeepseekV2Config, DeepseekV3Config): MLA when kv_lora_rank is set.
  ArchRow deepseek_v2 = row("deepseek_v2", "DeepseekV2Config (transformers models/deepseek_v2/configuration_deepseek_v2.py)");
  deepseek_v2.params.moe = kDeepseekV2Moe;
  deepseek_v2.defaults = kDeepseekV2Defaults;
  rows[n++] = deepseek_v2;

  ArchRow deepseek_v3 = row("deepseek_v3", "DeepseekV3Config (transformers models/deepseek_v3/configuration_deepseek_v3.py)");
  deepseek_v3.params.moe = kDeepseekV3Moe;
  deepseek_v3.defaults = kDeepseekV3Defaults;
  rows[n++] = deepseek_v3;

  // Gemma (GemmaConfig): tied embeddings.
  ArchRow gemma = row("gemma", "GemmaConfig (transformers models/gemma/configuration_gemma.py)");
  gemma.params.tie_default = true;
  rows[n++] = gemma;

  // Gemma 2 (Gemma2Config): sliding if (i + 1) % 2 else full; four norms per layer.
  ArchRow gemma2 = row("gemma2", "Gemma2Config (transformers models/gemma2/configuration_gemma2.py)");
  gemma2.layout = Layout::every_nth_full;
  gemma2.layout_default = 2;
  gemma2.params = plain(4);
  gemma2.params.tie_default = true;
  rows[n++] = gemma2;

  // Gemma 3 (Gemma3TextConfig): sliding unless (i + 1) % sliding_window_pattern == 0 (default 6).
  ArchRow gemma3 = row("gemma3", "Gemma3TextConfig (transformers models/gemma3/configuration_gemma3.py)");
  gemma3.layout = Layout::every_nth_full;
  gemma3.layout_key = "sliding_window_pattern";
  gemma3.layout_key_legacy = "_sliding_window_pattern";
  gemma3.layout_default = 6;
  gemma3.params = plain(4);
  gemma3.params.qk_norm = true;
  gemma3.params.tie_default = true;
  gemma3.defaults = kGemma3TextDefaults;
  rows[n++] = gemma3;
  ArchRow gemma3_text = gemma3;
  gemma3_text.model_type = "gemma3_text";
  rows[n++] = gemma3_text;

  // gpt-oss (GptOssConfig): layer_types alternate sliding and full; attention biases and sinks.
  ArchRow gpt_oss = row("gpt_oss", "GptOssConfig (transformers models/gpt_oss/configuration_gpt_oss.py)");
  gpt_oss.params.attention_bias = true;
  gpt_oss.params.attention_sinks = true;
  gpt_oss.params.moe = kGptOssMoe;
  gpt_oss.defaults = kGptOssDefaults;
  rows[n++] = gpt_oss;

  // Phi-3 / Phi-3.5 (Phi3Config): every layer slides when sliding_window is set.
  ArchRow phi3 = row("phi3", "Phi3Config (transformers models/phi3/configuration_phi3.py)");
  phi3.layout = Layout::window_if_set;
  phi3.defaults = kPhi3Defaults;
  rows[n++] = phi3;

  // Falcon (FalconConfig): multi-query or num_kv_heads, ungated MLP, LayerNorms with biases.
  ArchRow falcon = row("falcon", "FalconConfig (transformers models/falcon/configuration_falcon.py)");
  falcon.kv_heads = KvHeadsRule::falcon;
  falcon.default_context = 2048;  // FalconConfig has no max_position_embeddings; Falcon uses 2048
  falcon.params.falcon = true;
  falcon.params.tie_default = true;
  falcon.defaults = kFalconDefaults;
  rows[n++] = falcon;

  return rows;
}();

}  // namespace

std::span<const ArchRow> arch_rows() noexcept { return kRows; }

const ArchRow* find_arch(std::string_view model_type) noexcept {
  for (const ArchRow& r : kRows) {
    if (r.model_type == model_type) {
      return &r;
    }
  }
  return nullptr;
}

}  // namespace kvplan
