// The llama.cpp family's shared machinery (llama.cpp and its fork ik_llama.cpp): where each layer's
// weights and KV go over the GPUs and host memory, the cache sizes per layer kind, tensor overrides,
// and the log lines both print. Each engine's own module (llamacpp.cpp, ik_llamacpp.cpp) reads its
// knobs and its version's rules, and hands this code plain values.
#pragma once

#include <cstdint>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "kvplan/engine.hpp"
#include "kvplan/formula.hpp"
#include "kvplan/model.hpp"

namespace kvplan::llama {

struct Override {
  std::regex pattern;
  std::string text;  // PATTERN=BUFFER as given
  int device = -1;   // -1: host memory
};

std::optional<int> buffer_device(std::string_view name);
std::vector<Override> read_overrides(std::string_view where, std::string_view text);

/// The layer kinds a llama.cpp-family engine has no cache for ("cross-attention", "sparse-attention
/// indexer"), or nullptr when it caches every layer of `m` (an exhaustive visit: a new kind must say).
const char* missing_cache(const ModelSpec& m);

/// Refuses a KV format only vLLM-style engines have (fp8, int8, int4) as -ctk/-ctv: `types` lists the
/// engine's own (throws kvplan::Error naming `engine`).
void refuse_foreign_kv(const std::optional<DType>& d, std::string_view engine, std::string_view types);

/// "2026-01-24" -> 20260124: a build date, 2024-01-01 to 2030-12-31 (a real calendar day).
std::optional<int> build_date(std::string_view text);

// -ngl N|auto|all, and -ts 3,1 as the engines read them.
KnobValue layer_count(std::string_view where, std::string_view text);
KnobValue split_list(std::string_view where, std::string_view text);

/// What the placement needs from an engine's settings.
struct PlaceParams {
  const KnobValue* gpu_layers = nullptr;  // -ngl as read; nullptr: the build's default
  bool all_layers = true;                 // the default -ngl is every layer (else none)
  std::string split_mode = "layer";       // none, layer, row, tensor
  std::uint64_t main_gpu = 0;
  const std::string* tensor_split = nullptr;  // -ts as read by split_list
  bool kv_offload = true;                 // -nkvo: false
  const std::string* overrides = nullptr;  // -ot
  bool cpu_moe = false;
  std::uint64_t n_cpu_moe = 0;
  bool n_cpu_moe_from_last = false;       // ik_llama.cpp on one GPU: the last N MoE layers
};

struct Placement {
  std::vector<std::uint64_t> weights;  // per device
  std::vector<std::uint32_t> layers;   // repeating layers per device
  std::vector<bool> kv_here;           // the device holds its layers' KV
  std::uint64_t host_weights = 0;
  std::uint32_t host_layers = 0;
  std::uint32_t offloaded = 0;         // layers on GPUs, the output layer counted as llama.cpp counts it
  std::uint32_t n_layer = 0;
  bool kv_split_evenly = false;        // -sm tensor: every device holds a share of every layer's KV
  std::uint32_t kv_device = 0;         // -sm row: the main GPU holds all KV
  bool kv_on_main = false;
  std::uint64_t moved_to_host = 0;     // weights the overrides put in host memory
  std::uint64_t moved_to_gpus = 0;     // weights the overrides put on another GPU, or on a GPU from the host
  std::uint32_t moved_tensors = 0;
};

Placement place(const ModelSpec& m, const WeightFormat& w, const PlaceParams& s, std::uint32_t devices);

// Each device's KV: its layers' share of the cache, and the host's (-nkvo, layers left on the CPU).
std::vector<std::uint64_t> kv_per_device(const Placement& pl, std::uint64_t kv_total, std::uint64_t& host_kv);

std::string ggml_name(const DType& t);

/// Each device's model and KV buffers, the host's, and the host RAM a plan needs, as report fields (JSON:
/// engine.cuda0_kv_buffer_bytes, ..., engine.host_memory_needed_bytes); `resident`: --mlock or --no-mmap.
void device_fields(const Placement& pl, const std::vector<std::uint64_t>& device_kv, std::uint64_t host_kv,
                   std::uint64_t host_needed, bool resident, std::vector<Field>& fields);
/// What the tensor overrides moved, as a note; empty when nothing moved.
std::string moved_note(const Placement& pl);

struct Cache {
  std::uint64_t k_bytes = 0;
  std::uint64_t v_bytes = 0;
  std::uint32_t layers = 0;
  std::uint64_t cells = 0;   // per stream
};

struct Sizes {
  Cache base;
  Cache swa;
  std::uint64_t recurrent_bytes = 0;
  std::uint32_t recurrent_layers = 0;
  std::uint64_t total() const { return base.k_bytes + base.v_bytes + swa.k_bytes + swa.v_bytes + recurrent_bytes; }
};

// How a DeepSeek-style latent layer is cached: written out per head before PR #12801 (and from a GGUF
// converted before it), the latent as K and V until PR #19067, the latent as K alone since.
enum class MlaCache : std::uint8_t { expanded, latent_kv, latent_k };

Sizes sizes(const ModelSpec& m, const DType& tk, const DType& tv, std::uint64_t n_ctx_seq, std::uint64_t streams,
            std::uint64_t swa_cells, std::uint64_t n_seq, MlaCache mla_cache, bool swa_cache);

std::string size_line(const char* prefix, const Cache& c, std::uint64_t n_seq, std::uint64_t streams, const DType& tk,
                      const DType& tv);

}  // namespace kvplan::llama
