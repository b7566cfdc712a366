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

/// ArchRow::rope.
enum class RopeRule : std::uint8_t { none, shared, local_for_sliding };

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
  pattern_list,       // layout_key lists one number per layer: 0 full, 1 sliding (MiMo-V2 hybrid_layer_pattern)
  exaone,             // sliding_window_pattern: an integer period, or letters ("LLLG": L sliding, G full)
  hybrid_pattern,     // hybrid_override_pattern: M state, * attention, - and E no cache (Nemotron-H)
  period_offset,      // attention when i % attn_layer_period == attn_layer_offset, else state (Jamba)
  chunked_every_nth,  // chunked unless no_rope_layers[i] == 0; without the list, (i + 1) % N (Llama 4)
  cross_list,         // the layers in cross_attention_layers attend to encoder tokens (mllama)
  full_index_list,    // layout_key lists the full-attention layers (0-based, LFM2 full_attn_idxs); the rest hold state
  kda_lists,          // linear_attn_config.kda_layers (1-based) hold state, the rest MLA (Kimi Linear)
  block_configs,      // block_configs[i].attention: n_heads_in_group, or no_op (Nemotron-NAS / DeciLM)
  parallel_hybrid,    // every layer full attention and state side by side (Falcon-H1)
  encoder_decoder,    // every decoder layer self-attention and cross-attention to the encoder (Whisper)
};

/// Which formula gives a recurrent layer's state (vLLM mamba_utils.py MambaStateShapeCalculator).
enum class StateFormula : std::uint8_t {
  none,
  gated_delta_net,  // Qwen3-Next, Qwen3.5: linear_num_*_heads, linear_*_head_dim, linear_conv_kernel_dim
  mamba1,           // Jamba: mamba_d_state, mamba_d_conv, mamba_expand
  mamba2,           // Nemotron-H, Falcon-H1, Granite-4.0-H: heads, head dim, state, groups, kernel (Mamba2Keys)
  short_conv,       // LFM2: conv_L_cache over conv_dim (hidden_size)
  kda,              // Kimi Linear: linear_attn_config num_heads, head_dim, short_conv_kernel_size
};

/// The keys of a Mamba-2 mixer, which families spell differently.
struct Mamba2Keys {
  std::string_view heads;         // "mamba_num_heads" (Nemotron-H), "mamba_n_heads"
  std::string_view head_dim;      // "mamba_head_dim", "mamba_d_head"
  std::string_view state;         // "ssm_state_size", "mamba_d_state"
  std::string_view groups;        // "n_groups", "mamba_n_groups"
  std::string_view kernel;        // "conv_kernel", "mamba_d_conv"
  std::string_view intermediate;  // "mamba_d_ssm" when set; else heads x head_dim
};

/// Keys that give one layer kind's geometry, where it differs from the model's own.
struct KindKeys {
  std::string_view kv_heads;       // e.g. "swa_num_key_value_heads" (MiMo-V2), "num_global_key_value_heads"
  std::string_view kv_heads_when;  // a boolean key that must be true for kv_heads to apply ("attention_k_eq_v")
  std::string_view head_dim;       // e.g. "swa_head_dim", "global_head_dim" (Gemma 4)
  std::string_view v_head_dim;     // e.g. "swa_v_head_dim", "v_head_dim"; empty: V is as wide as K
};

/// How the number of KV heads is read.
enum class KvHeadsRule : std::uint8_t {
  standard,     // num_key_value_heads, default num_attention_heads
  falcon,       // new_decoder_architecture ? num_kv_heads : (multi_query ? 1 : heads)
  multi_query,  // multi_query (GPT-BigCode): 1 when true, else num_attention_heads
};

/// Which layers are MoE.
enum class MoeLayers : std::uint8_t {
  none,
  all,             // every layer (Mixtral, gpt-oss, MiniMax, PhiMoE, GraniteMoE)
  qwen,            // not in mlp_only_layers and (i + 1) % decoder_sparse_step == 0
  deepseek,        // i >= first_k_dense_replace and i % moe_layer_freq == 0 (a list: moe_layer_freq[i] != 0)
  interleave,      // (i + 1) % interleave_moe_layer_step == 0 (Llama 4)
  ernie,           // moe_layer_start_index <= i <= moe_layer_end_index and (i + 1) % moe_layer_interval == 0
  period_offset,   // i % expert_layer_period == expert_layer_offset (Jamba)
  pattern_e,       // the hybrid_override_pattern's E blocks (Nemotron-H)
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

/// How the attention's q/k norms are shaped.
enum class QkNorm : std::uint8_t {
  none,
  per_head,      // RMSNorm over head_dim on q and k (Qwen3, Gemma 3)
  full_width,    // RMSNorm over heads x head_dim on q and over kv_heads x head_dim on k (OLMo 2, MiniMax-M2)
  if_flag,       // per_head when the config's use_qk_norm (or qk_layernorm) is true
};

/// How the parameters are counted (transformers modeling_<type>.py, every Linear and Embedding).
struct ParamRule {
  bool qkv_bias = false;          // q/k/v projections carry biases whatever the config says (Qwen2)
  bool attention_bias = false;    // default of the attention-bias key (o_proj bias too)
  std::string_view bias_key = "attention_bias";  // the key that turns the attention biases on
  bool o_bias = true;             // the attention-bias key covers o_proj too (GLM-4: q/k/v only)
  QkNorm qk_norm = QkNorm::none;
  bool tie_default = false;       // default of tie_word_embeddings
  std::uint32_t norms_per_layer = 2;  // hidden-sized norms per decoder layer
  std::uint32_t norm_width = 1;   // parameters per hidden unit of a norm: 1 RMSNorm, 2 LayerNorm with bias
  bool plain_mlp = false;         // two matrices (fc1, fc2), no gate (GPT-2, GPT-NeoX, Starcoder2, Phi)
  bool mlp_bias = false;          // MLP projections carry biases (or the config's mlp_bias)
  bool learned_positions = false; // a position table of max_position_embeddings x hidden (GPT-2)
  bool gated_q = false;           // q_proj doubled for an output gate (Qwen3-Next, Qwen3.5)
  bool attention_sinks = false;   // one learned sink per head (gpt-oss)
  bool falcon = false;            // Falcon's MLP (ffn_hidden_size, no gate) and LayerNorms with biases
  std::string_view dense_ffn = "intermediate_size";  // the dense MLP's width ("intermediate_size_mlp": Llama 4)
  bool ffn_4h = false;            // the dense width defaults to 4 x hidden when absent (GPT-2's n_inner null)
  bool lfm2_ffn = false;          // LFM2: block_ff_dim, auto-adjusted to 2/3 and rounded to block_multiple_of
  bool per_layer_inputs = false;  // Gemma-3n / Gemma 4: vocab_size_per_layer_input x layers x hidden_size_per_layer_input
  bool moe_with_dense = false;    // the MoE block sits beside the dense MLP, not instead of it (Gemma 4, Granite-4.0-H)
  MoeRule moe;
};

struct ArchRow {
  std::string_view model_type;
  std::string_view config_class;  // "Gemma3TextConfig (transformers models/gemma3/configuration_gemma3.py)"
  /// A wrapper's text backbone when its text_config names no model_type (Gemma3Config's text_config
  /// is a Gemma3TextConfig); a wrapper row has no layers of its own.
  std::string_view text_type;
  std::span<const ArchDefault> defaults;
  /// Defaults the generated table cannot hold: kwargs-only keys its class pops with a default.
  std::span<const ArchDefault> extra_defaults;
  std::span<const KeyRename> renames;
  Layout layout = Layout::uniform;
  std::string_view layout_key;         // the key that sets the period or pattern ("sliding_window_pattern")
  std::string_view layout_key_legacy;  // an older spelling of it ("_sliding_window_pattern")
  std::uint32_t layout_default = 0;    // the period when the key is absent
  KvHeadsRule kv_heads = KvHeadsRule::standard;
  KindKeys full;                       // geometry of full-attention layers, where it has its own keys
  KindKeys sliding;                    // geometry of sliding layers, where it has its own keys
  StateFormula state = StateFormula::none;
  Mamba2Keys mamba2;                   // with StateFormula::mamba2
  bool indexer = false;                // MLA layers also hold the sparse-attention indexer (index_head_dim)
  bool kv_sharing = false;             // the last num_kv_shared_layers layers read earlier layers' KV
  bool head_dim_forced = false;        // head_dim is always hidden_size / heads, whatever config.json says
  std::uint64_t default_context = 0;   // max_position_embeddings when the class has no such key (Falcon 2048)
  /// vLLM names its decoder linears model.layers.N.self_attn.{qkv_proj,o_proj} and
  /// model.layers.N.mlp.{gate_up_proj,down_proj} (vllm/model_executor/models/llama.py and the models built on it),
  /// so a bitsandbytes skip list can be placed on its layers (bnb_kept_params).
  bool llama_modules = false;
  /// How its attention layers rotate positions, where the modeling file is known to use RoPE: one rope
  /// for every layer (config.json's rope_scaling or rope_parameters, partial_rotary_factor), or that one
  /// for full-attention layers and a default rope of its own for sliding ones (Gemma 3's
  /// rope_local_base_freq). ModelSpec::ropes; none: not described (learned positions, ALiBi, or a row
  /// whose rope is not read).
  RopeRule rope = RopeRule::none;
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
