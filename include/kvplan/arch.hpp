// kvplan/arch.hpp: architecture rules as data. One ArchRow per config.json model_type says which
// defaults its transformers configuration class fills in, how its decoder layers are laid out
// (full, sliding, chunked, cross-attention, MLA, recurrent state, ...), which keys give each
// layer kind's geometry, and how its parameters are counted. build_model() turns neutral
// hyper-parameters (kvplan/hparams.hpp) into a ModelSpec by the row; it reads no JSON, so the
// config.json and GGUF readers share every rule. A new model_type is one row in
// src/app/arch_table.cpp (docs/architecture.md, "A new architecture").
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "kvplan/hparams.hpp"
#include "kvplan/model.hpp"

namespace kvplan {

/// A default of the configuration class, filled in when config.json omits the key.
struct ArchDefault {
  enum class Type : std::uint8_t { uint, boolean, real, string, null };
  std::string_view key;
  Type type = Type::uint;
  std::uint64_t uint_value = 0;
  bool bool_value = false;
  double real_value = 0;
  std::string_view string_value;
};
constexpr ArchDefault default_uint(std::string_view key, std::uint64_t v) {
  return {key, ArchDefault::Type::uint, v, false, 0, {}};
}
constexpr ArchDefault default_bool(std::string_view key, bool v) { return {key, ArchDefault::Type::boolean, 0, v, 0, {}}; }
constexpr ArchDefault default_real(std::string_view key, double v) { return {key, ArchDefault::Type::real, 0, false, v, {}}; }
constexpr ArchDefault default_string(std::string_view key, std::string_view v) {
  return {key, ArchDefault::Type::string, 0, false, 0, v};
}

/// A key the configuration class spells differently (its attribute_map): GPT-2's n_layer is
/// num_hidden_layers.
struct KeyRename {
  std::string_view from;
  std::string_view to;
};

/// How the decoder layers' kinds are laid out when config.json has no layer_types list (with one,
/// the list wins, whatever the row says).
enum class Layout : std::uint8_t {
  uniform,            // every layer full attention (MLA when kv_lora_rank is set)
  window_if_set,      // every layer slides when sliding_window is set (Mistral, Phi-3, Starcoder2)
  qwen2_window,       // sliding when use_sliding_window and i >= max_window_layers (Qwen2Config)
  every_nth_full,     // sliding unless (i + 1) % N == 0; N from layout_key, else layout_default
  every_nth_full_linear,  // recurrent state unless (i + 1) % N == 0 (Qwen3-Next full_attention_interval)
  letter_pattern,     // layout_key is a string with one letter per layer, repeated ("LLLG": L sliding, G full)
  hybrid_pattern,     // hybrid_override_pattern: M Mamba-2, * attention, - and E no cache (Nemotron-H)
  period_offset,      // attention when i % attn_layer_period == attn_layer_offset, else Mamba (Jamba)
  chunked_every_nth,  // chunked-local unless (i + 1) % N == 0, or by no_rope_layers (Llama 4)
  cross_list,         // the layers in cross_attention_layers hold encoder tokens (mllama)
};

/// Which formula gives a recurrent layer's state (vLLM mamba_utils.py MambaStateShapeCalculator).
enum class StateFormula : std::uint8_t {
  none,
  gated_delta_net,  // Qwen3-Next, Qwen3.5: linear_num_*_heads, linear_*_head_dim, linear_conv_kernel_dim
  mamba1,           // Jamba: mamba_d_state, mamba_d_conv, mamba_expand
  mamba2,           // Nemotron-H, Falcon-H1, Granite-4.0-H, Bamba: mamba_n_heads, mamba_d_head, ...
  short_conv,       // LFM2: conv_L_cache over hidden_size
};

/// Keys that give one layer kind's geometry, where it differs from the model's own.
struct KindKeys {
  std::string_view kv_heads;    // e.g. "swa_num_key_value_heads" (MiMo-V2), "num_global_key_value_heads"
  std::string_view head_dim;    // e.g. "swa_head_dim", "global_head_dim" (Gemma 4)
  std::string_view v_head_dim;  // e.g. "swa_v_head_dim"; empty: V is as wide as K
};

/// How the number of KV heads is read.
enum class KvHeadsRule : std::uint8_t {
  standard,     // num_key_value_heads, default num_attention_heads
  falcon,       // new_decoder_architecture ? num_kv_heads : (multi_query ? 1 : heads)
  multi_query,  // multi_query (GPT-BigCode): 1 when true, else num_attention_heads
};

/// MoE keys and which layers are MoE.
enum class MoeLayers : std::uint8_t {
  none,
  all,             // every layer (Mixtral, gpt-oss, MiniMax, PhiMoE, GraniteMoE)
  qwen,            // not in mlp_only_layers and (i + 1) % decoder_sparse_step == 0
  deepseek,        // i >= first_k_dense_replace and i % moe_layer_freq == 0
};

struct MoeRule {
  MoeLayers layers = MoeLayers::none;
  std::string_view experts;     // "num_local_experts", "num_experts", "n_routed_experts"
  std::string_view expert_ffn;  // "intermediate_size", "moe_intermediate_size"
  std::string_view shared;      // "n_shared_experts" (a count of expert_ffn-wide experts) or
  bool shared_is_size = false;  // ... "shared_expert_intermediate_size" (a width), when true
  bool shared_gate = false;     // Qwen's sigmoid gate on the shared expert (hidden x 1)
  bool biases = false;          // gpt-oss: experts and router carry biases
  bool router_bias = false;     // DeepSeek-V3's e_score_correction_bias (one per expert)
};

/// How the parameters are counted (transformers modeling_<type>.py, every Linear and Embedding).
struct ParamRule {
  bool qkv_bias = false;          // q/k/v projections carry biases (Qwen2 family)
  bool attention_bias = false;    // default of config "attention_bias" (o_proj bias too)
  bool qk_norm = false;           // per-head RMSNorm on q and k (Qwen3, Gemma 3)
  bool tie_default = false;       // default of tie_word_embeddings
  std::uint32_t norms_per_layer = 2;  // hidden-sized norms per decoder layer
  bool gated_q = false;           // q_proj doubled for an output gate (Qwen3-Next)
  bool attention_sinks = false;   // one learned sink per head (gpt-oss)
  bool falcon = false;            // Falcon's MLP (ffn_hidden_size, no gate) and LayerNorms with biases
  MoeRule moe;
};

struct ArchRow {
  std::string_view model_type;
  std::string_view config_class;  // "Gemma3TextConfig (transformers models/gemma3/configuration_gemma3.py)"
  std::span<const ArchDefault> defaults;
  std::span<const KeyRename> renames;
  Layout layout = Layout::uniform;
  std::string_view layout_key;         // the key that sets the period or pattern ("sliding_window_pattern")
  std::string_view layout_key_legacy;  // an older spelling of it ("_sliding_window_pattern")
  std::uint32_t layout_default = 0;    // the period when the key is absent
  KvHeadsRule kv_heads = KvHeadsRule::standard;
  KindKeys full;                       // geometry of full-attention layers, where it has its own keys
  KindKeys sliding;                    // geometry of sliding layers, where it has its own keys
  StateFormula state = StateFormula::none;
  std::uint64_t default_context = 0;   // max_position_embeddings when the class has no such key (Falcon 2048)
  ParamRule params;
};

/// Every row, in the order `supported_model_types()` lists them.
std::span<const ArchRow> arch_rows() noexcept;

/// The row of a model_type, or nullptr.
const ArchRow* find_arch(std::string_view model_type) noexcept;

/// The model's layers and parameters by its row. `text` holds the text backbone's hyper-parameters
/// (the config's top level, or its text_config), `top` the file's top level (tie_word_embeddings,
/// torch_dtype and quantization_config may sit there). Defaults must already be filled in
/// (apply_defaults). Throws kvplan::Error naming the key's path for what it cannot size.
ModelSpec build_model(const HFields& text, const HFields& top, const ArchRow& row, std::string_view name);

/// Fills in the row's defaults for every key `object` lacks (a null stays null: it means "none" to
/// the configuration class too, as Qwen2.5's "sliding_window": null), and renames keys
/// by its attribute map. Returns the numbers and names it filled ("num_attention_heads 8"), for the
/// report; flags (biases, tying) are filled without a word, as the class's own semantics.
std::vector<std::string> apply_defaults(HObject& object, const ArchRow& row);

}  // namespace kvplan
