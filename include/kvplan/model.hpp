// kvplan/model.hpp: what a model fixes, as plain values. A layer's cache is a value
// (a std::variant of specs), a model is a run-length list of layer groups plus the parameter
// counts its weights need. Only the config reader builds a ModelSpec; the formula engine and
// the solver read it. Field names follow Hugging Face config.json.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace kvplan {

/// MHA / GQA / MQA: K and V for every token (vLLM FullAttentionSpec).
struct FullAttention {
  std::uint32_t num_key_value_heads = 0;
  std::uint32_t head_dim = 0;                 // K width per head
  std::optional<std::uint32_t> v_head_dim;    // V width per head when it differs from K's
  bool operator==(const FullAttention&) const = default;
};

/// Keeps only the most recent `window_tokens` tokens: the layer holds min(S, W) (vLLM SlidingWindowSpec).
struct SlidingWindow {
  FullAttention attention;
  std::uint64_t window_tokens = 0;
  bool operator==(const SlidingWindow&) const = default;
};

/// MLA (DeepSeek-V2/V3): one latent of kv_lora_rank + qk_rope_head_dim elements per token,
/// K only, one head, never split by tensor parallelism (vLLM MLAAttentionSpec).
struct LatentAttention {
  std::uint32_t kv_lora_rank = 0;
  std::uint32_t qk_rope_head_dim = 0;
  bool operator==(const LatentAttention&) const = default;
};

/// Linear attention / Mamba: a fixed-size state per sequence, independent of its length
/// (vLLM MambaSpec). Two tensors: a short-convolution state and the recurrent (SSM) state,
/// each split across tensor-parallel ranks.
struct RecurrentState {
  /// Which recurrence holds it (vLLM mamba_utils.py MambaStateShapeCalculator names each shape).
  enum class Kind : std::uint8_t { linear_attention, mamba, short_conv };
  std::uint64_t conv_elements = 0;
  std::uint32_t conv_element_bytes = 2;  // model dtype
  std::uint64_t ssm_elements = 0;
  std::uint32_t ssm_element_bytes = 4;   // fp32 (vLLM mamba_ssm_cache_dtype)
  Kind kind = Kind::linear_attention;    // Gated DeltaNet, KDA; Mamba-1/2; LFM2's short convolution
  bool operator==(const RecurrentState&) const = default;
};

/// Chunked-local attention (Llama 4's `attention_chunk_size`): a token attends only to earlier tokens
/// of its own chunk, so the layer holds at most `chunk_tokens` tokens (vLLM ChunkedLocalAttentionSpec).
struct ChunkedLocal {
  FullAttention attention;
  std::uint64_t chunk_tokens = 0;
  bool operator==(const ChunkedLocal&) const = default;
};

/// Cross-attention to an encoder's output (mllama's image tokens, Whisper's audio frames): K and V
/// of `encoder_tokens` encoder tokens per sequence, computed once, whatever the decoder's length
/// (vLLM CrossAttentionSpec). --encoder-tokens sets the count.
struct CrossAttention {
  FullAttention attention;
  std::uint64_t encoder_tokens = 0;
  bool operator==(const CrossAttention&) const = default;
};

/// A layer that reads the KV of an earlier layer and holds none of its own (Gemma-3n's
/// num_kv_shared_layers; vLLM kv_sharing_target_layer_name allocates nothing for it).
struct SharedKV {
  std::uint32_t source_layer = 0;  // the decoder layer whose cache it reads
  bool operator==(const SharedKV&) const = default;
};

/// The DeepSeek sparse-attention indexer's key cache (DeepSeek-V3.2, GLM-5): per token and layer,
/// `head_dim` fp8 elements plus a `scale_bytes` fp32 scale, in that format whatever the KV dtype;
/// one head, not split by tensor parallelism (vLLM DeepseekV32IndexerCache).
struct IndexerCache {
  std::uint32_t head_dim = 0;
  std::uint32_t scale_bytes = 0;
  bool operator==(const IndexerCache&) const = default;
};

/// A decoder layer with no attention and no state: a Nemotron-H MLP or MoE block, a Nemotron-NAS
/// block whose attention is `no_op` or a linear layer. It holds nothing.
struct NoCache {
  bool operator==(const NoCache&) const = default;
};

using LayerCacheSpec = std::variant<FullAttention, SlidingWindow, LatentAttention, RecurrentState, ChunkedLocal,
                                    CrossAttention, SharedKV, IndexerCache, NoCache>;

/// The visitor of every site that handles layer kinds: `std::visit(overloaded{...}, spec)` with one
/// lambda per kind, so that a new kind is a compile error wherever it is not handled.
template <class... Fs>
struct overloaded : Fs... {
  using Fs::operator()...;
};
template <class... Fs>
overloaded(Fs...) -> overloaded<Fs...>;

struct LayerGroup {
  std::uint32_t count = 0;
  LayerCacheSpec spec;
  bool operator==(const LayerGroup&) const = default;
};

/// One rotary position embedding as config.json describes it (rope_scaling, or transformers 5's
/// rope_parameters): engines build a cos/sin table per distinct one and hold it beside the weights, of a
/// length their own rules give (vLLM's get_rope).
struct Rope {
  std::string type = "default";             // rope_type (or type): default, llama3, linear, dynamic, yarn, ...;
                                            // "mrope" where mrope_section is given (multimodal sections)
  std::uint32_t rotary_dim = 0;             // head_dim × partial_rotary_factor
  std::uint64_t max_position = 0;           // max_position_embeddings
  std::uint64_t original_max_position = 0;  // original_max_position_embeddings (0: not given)
  double factor = 1;                        // the scaling factor (1: none)
};

/// A vision tower's profiling run as vLLM V1 runs it before it sizes the KV cache (GPUModelRunner.profile_run):
/// max-size dummy images through the encoder, their outputs then held in the encoder cache while the text model's
/// dummy run runs. Only for towers whose processor and block shapes kvplan knows (src/app/towers.cpp).
struct VisionEncoder {
  std::uint64_t hidden = 0;           // vision_config.hidden_size
  std::uint64_t intermediate = 0;     // vision_config.intermediate_size
  std::uint64_t patch_values = 0;     // pixel values per patch: in_channels x temporal_patch_size x patch_size^2
  std::uint64_t patches_per_token = 1;  // spatial_merge_size^2 patches merge into one output token
  std::uint64_t tokens_per_item = 0;  // the largest image's tokens: the processor's longest_edge / (patch x merge)^2
  std::uint64_t output_width = 0;     // out_hidden_size x (1 + deepstack layers)
  bool operator==(const VisionEncoder&) const = default;
};

/// Parameters by component; their sum is what the weights hold.
struct ParamCounts {
  std::uint64_t embedding = 0;   // token embeddings
  std::uint64_t lm_head = 0;     // 0 when tied to the embeddings
  std::uint64_t attention = 0;   // q/k/v/o (and MLA, linear-attention) projections
  std::uint64_t mlp = 0;         // dense MLPs, shared experts and routers
  std::uint64_t experts = 0;     // routed MoE experts, all resident
  std::uint64_t norms = 0;       // norms and other small tensors
  std::uint64_t vision = 0;      // a multimodal checkpoint's vision tower and projector
  /// Of `attention` and `mlp`: what a quantized checkpoint keeps in 16 bits, layer by layer (its skip
  /// list: bitsandbytes' llm_int8_skip_modules). Part of those counts, not added to them; the weights
  /// count them at 16 bits where the format is the checkpoint's own (WeightFormat::skip_list).
  std::uint64_t attention_16bit = 0;
  std::uint64_t mlp_16bit = 0;
  /// The checkpoint's own size, when the user states it (--weights SIZE): `stated_bytes` for a model
  /// of `stated_params` parameters. Weights are then that size, shared in proportion to parameters
  /// (a pipeline stage, experts), instead of parameters times bytes per weight. 0: not stated.
  std::uint64_t stated_bytes = 0;
  std::uint64_t stated_params = 0;
  std::uint64_t total() const noexcept;
};

struct ModelSpec {
  std::string name;
  std::string model_type;                 // config.json model_type
  std::vector<LayerGroup> layers;         // in order of first appearance
  /// Per cache, in layer order: its index in `layers`. A decoder layer has one cache, or two when
  /// it holds two kinds (DeepSeek-V3.2's MLA and indexer, Falcon-H1's attention and Mamba-2 side by
  /// side); `layer_decoder` names the decoder layer of each.
  std::vector<std::uint32_t> layer_group;
  std::vector<std::uint32_t> layer_decoder;
  std::uint32_t num_hidden_layers = 0;
  std::uint32_t num_attention_heads = 0;
  std::uint32_t hidden_size = 0;
  std::uint64_t vocab_size = 0;
  /// The attention geometry of one layer written out in full: what the model's KV would be
  /// with dense attention everywhere (MLA: per-head K = nope + rope dims, V = v_head_dim).
  FullAttention dense_attention;
  std::uint64_t max_position_embeddings = 0;
  ParamCounts params;
  /// Elements per token the widest MLP keeps live while it runs eagerly (all ranks): 3 x
  /// intermediate_size for a gated MLP (gate_up's output and the activation's), 2 x for a plain one,
  /// top-k x 3 x the expert width (plus shared experts) for MoE. 0 when the rules do not say.
  std::uint64_t mlp_activation_width = 0;
  /// The decoder layers (from 0) whose MLP holds routed experts, and how many matrices each expert
  /// has (3 gated: gate, up, down; 2 plain: up, down): where llama.cpp's expert tensors
  /// (blk.N.ffn_{gate,up,down}_exps) are, for -ot, --cpu-moe and --n-cpu-moe. Empty when dense.
  std::vector<std::uint32_t> moe_layers;
  std::uint32_t expert_matrices = 3;
  /// One MoE layer's routed experts as their weights are shaped: how many, the intermediate size of
  /// one (its matrices are hidden_size x expert_ffn), and whether each carries biases (gpt-oss:
  /// 2 x expert_ffn + hidden_size). For the engines that allocate experts in their kernels' own
  /// padded shapes (vLLM's MXFP4 MoE). 0 when dense.
  std::uint64_t routed_experts = 0;
  std::uint64_t expert_ffn = 0;
  bool expert_biases = false;
  std::string torch_dtype;                // "bf16", "fp16" (fp32 checkpoints load as bf16)
  std::string expert_weight_dtype;        // set when experts ship quantized (gpt-oss: mxfp4)
  std::string checkpoint_weight_dtype;    // set when all weights ship quantized (DeepSeek-V3: fp8)
  std::string attention_weight_dtype;     // set when a quantized checkpoint leaves the attention 16-bit
  /// The checkpoint's quantization method as it states it (quantization_config.quant_method: "awq",
  /// "gptq", "bitsandbytes", "fp8", "mxfp4" ...) or as a re-upload's name does; empty when none.
  std::string quant_method;
  /// The checkpoint keeps layers in 16 bits that kvplan has not read: what it is ("an Unsloth dynamic
  /// 4-bit upload"), known by its name only, whose config.json lists them
  /// (quantization_config.llm_int8_skip_modules); empty otherwise. The weights planned in its own format
  /// are then a lower bound, and plan() decides only where every layer at 16 bits gives the same verdict
  /// (Cause::weights_unknown where it does not).
  std::string skip_list_unread;
  /// Its vision encoder's profiling shape, where kvplan knows it (VisionEncoder); empty otherwise (a text model,
  /// or a tower of another family, whose profiling is then not planned).
  std::optional<VisionEncoder> vision_encoder;
  /// The distinct rotary embeddings of its attention layers (ArchRow::rope); empty where not described.
  std::vector<Rope> ropes;
  /// The weights' format as the checkpoint names it where kvplan's dtypes do not ("Q4_K_M": a GGUF's
  /// file type); empty otherwise.
  std::string weights_label;
  /// The keys config.json left out and their configuration class's defaults filled in, as
  /// "num_attention_heads 8, vocab_size 262208 (Gemma3TextConfig)"; empty when none were.
  std::string defaults_note;
  /// What the parameter count leaves out ("vision tower 'x' not counted"): the weights are then an
  /// estimate, and --weights SIZE gives the real size.
  std::string weights_source;             // where params.stated_bytes came from ("--weights", "the safetensors headers")
  bool weights_estimated = false;         // stated_bytes is an estimate (a GGUF file's name), not a measured size
  std::string weights_note;
};

/// The model with every full and sliding layer turned to `heads` KV heads (MHA/MQA what-ifs).
ModelSpec with_kv_heads(const ModelSpec& m, std::uint32_t heads);
/// The model with every layer as dense full attention (no window, no latent, no recurrence).
ModelSpec dense_equivalent(const ModelSpec& m);
/// The model with every cross-attention layer holding `tokens` encoder tokens (--encoder-tokens).
ModelSpec with_encoder_tokens(const ModelSpec& m, std::uint64_t tokens);

/// Layers per pipeline stage, as vLLM's get_pp_indices splits them: L / pp each, the remainder
/// added one layer at a time to the penultimate stage first, then the one before, never the last
/// (61 layers at pp 4 -> 15, 15, 16, 15).
std::vector<std::uint32_t> pipeline_partition(std::uint32_t layers, std::uint32_t pp);

/// The part of the model that pipeline stage `rank` of `pp` holds: its layers' caches, and its
/// share of the parameters (layer parameters in proportion to its layers, the embeddings on the
/// first stage, lm_head on the last).
ModelSpec pipeline_stage(const ModelSpec& m, std::uint32_t pp, std::uint32_t rank);

}  // namespace kvplan
