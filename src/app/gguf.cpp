// GGUF headers (kvplan/gguf.hpp). The format: ggml/docs/gguf.md and gguf-py/gguf/constants.py of
// llama.cpp: magic "GGUF", version (2 or 3), tensor count and key/value count as uint64, the
// key/values (a string key, a uint32 value type, the value), then per tensor its name, n_dims,
// n_dims uint64 sizes, a uint32 ggml type and a uint64 offset. Every count and length is checked
// against the bounds below before anything is allocated, and nothing past the tensor table is read.
#include "kvplan/gguf.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <memory>

#include "kvplan/config_reader.hpp"
#include "kvplan/error.hpp"
#include "kvplan/files.hpp"
#include "kvplan/hparams.hpp"
#include "kvplan/model.hpp"
#include "kvplan/quantity.hpp"
#include "kvplan/text.hpp"

namespace kvplan {
namespace {

// ggml type traits (ggml/src/ggml.c type_traits: blck_size, type_size; the block structs of
// ggml/src/ggml-common.h with their static_asserts, QK_K = 256). Ids 4, 5 (Q4_2, Q4_3) and 31-33,
// 36-38 (repacked layouts) are gone from files; ids are those of ggml/include/ggml.h.
constexpr std::array<GgmlType, 33> kTypes{{
    {0, "F32", 1, 4},        {1, "F16", 1, 2},        {2, "Q4_0", 32, 18},      {3, "Q4_1", 32, 20},
    {6, "Q5_0", 32, 22},     {7, "Q5_1", 32, 24},     {8, "Q8_0", 32, 34},      {9, "Q8_1", 32, 36},
    {10, "Q2_K", 256, 84},   {11, "Q3_K", 256, 110},  {12, "Q4_K", 256, 144},   {13, "Q5_K", 256, 176},
    {14, "Q6_K", 256, 210},  {15, "Q8_K", 256, 292},  {16, "IQ2_XXS", 256, 66}, {17, "IQ2_XS", 256, 74},
    {18, "IQ3_XXS", 256, 98}, {19, "IQ1_S", 256, 50}, {20, "IQ4_NL", 32, 18},   {21, "IQ3_S", 256, 110},
    {22, "IQ2_S", 256, 82},  {23, "IQ4_XS", 256, 136}, {24, "I8", 1, 1},        {25, "I16", 1, 2},
    {26, "I32", 1, 4},       {27, "I64", 1, 8},       {28, "F64", 1, 8},        {29, "IQ1_M", 256, 56},
    {30, "BF16", 1, 2},      {34, "TQ1_0", 256, 54},  {35, "TQ2_0", 256, 66},   {39, "MXFP4", 32, 17},
    {41, "Q1_0_G128", 128, 18},
}};

// Bounds (docs/limits.md): a real header is a few MiB (a 256k-entry vocabulary and its merges).
constexpr std::uint64_t kMaxKeyValues = 1 << 16;
constexpr std::uint64_t kMaxTensors = 1 << 20;
constexpr std::uint64_t kMaxString = 16 << 20;       // one string: a chat template, a token
constexpr std::uint64_t kMaxArray = 1 << 24;         // one array: a vocabulary
constexpr std::uint64_t kMaxHeader = 1ULL << 30;     // all metadata and the tensor table
constexpr std::uint32_t kMaxDims = 4;                // GGML_MAX_DIMS
constexpr std::uint32_t kMaxShards = 1024;

// Value types (gguf.md GGUFValueType).
enum : std::uint32_t {
  kU8 = 0, kI8 = 1, kU16 = 2, kI16 = 3, kU32 = 4, kI32 = 5, kF32 = 6, kBool = 7, kString = 8, kArray = 9,
  kU64 = 10, kI64 = 11, kF64 = 12,
};

std::uint64_t scalar_size(std::uint32_t t) {
  switch (t) {
    case kU8: case kI8: case kBool: return 1;
    case kU16: case kI16: return 2;
    case kU32: case kI32: case kF32: return 4;
    case kU64: case kI64: case kF64: return 8;
    default: return 0;
  }
}

// Sequential reads from a file or from memory, bounded by kMaxHeader.
class Cursor {
 public:
  Cursor(std::string_view bytes, std::string origin) : m_bytes(bytes), m_origin(std::move(origin)) {}
  Cursor(const std::string& path, std::string origin) : m_file(std::make_unique<std::ifstream>(path, std::ios::binary)),
                                                        m_origin(std::move(origin)) {
    std::error_code ec;
    m_size = std::filesystem::file_size(path, ec);
    if (!*m_file || ec) {
      throw Error(fmt::format("{}: cannot be read", m_origin));
    }
  }
  [[noreturn]] void fail(std::string_view what) const {
    throw Error(fmt::format("{}: not a GGUF file kvplan can read: {} (at byte {})", m_origin, what, m_pos));
  }
  void read(void* out, std::uint64_t n) {
    check(n);
    if (m_file) {
      m_file->read(static_cast<char*>(out), static_cast<std::streamsize>(n));
      if (static_cast<std::uint64_t>(m_file->gcount()) != n) {
        fail("it ends inside its header");
      }
    } else {
      if (m_pos + n > m_bytes.size()) {
        fail("it ends inside its header");
      }
      std::memcpy(out, m_bytes.data() + m_pos, n);
    }
    m_pos += n;
  }
  void skip(std::uint64_t n) {
    check(n);
    if (m_file) {
      m_file->seekg(static_cast<std::streamoff>(n), std::ios::cur);
      if (!*m_file) {
        fail("it ends inside its header");
      }
    }
    m_pos += n;
  }
  template <class T>
  T get() {
    T v{};
    read(&v, sizeof v);  // GGUF is little-endian, as every machine kvplan builds for
    return v;
  }
  std::string string(std::uint64_t max = kMaxString) {
    const auto n = get<std::uint64_t>();
    if (n > max) {
      fail(fmt::format("a string of {} bytes", n));
    }
    std::string s(n, '\0');
    read(s.data(), n);
    return s;
  }
  const std::string& origin() const { return m_origin; }

 private:
  void check(std::uint64_t n) const {
    if (n > kMaxHeader || m_pos + n > kMaxHeader) {
      fail("the header is larger than 1 GiB");
    }
    if (m_pos + n > (m_file ? m_size : m_bytes.size())) {
      fail("it ends inside its header");
    }
  }
  std::uint64_t m_size = 0;
  std::string_view m_bytes;
  std::unique_ptr<std::ifstream> m_file;
  std::uint64_t m_pos = 0;
  std::string m_origin;
};

// One metadata value: a scalar or a string, or an array by its length (and, for a list of at most
// 65,536 numbers such as per-layer values, its elements).
struct Meta {
  HValue value;
  std::uint64_t array_length = 0;
  bool is_array = false;
};

HValue scalar(Cursor& c, std::uint32_t t) {
  switch (t) {
    case kU8: return HValue{std::uint64_t{c.get<std::uint8_t>()}};
    case kI8: return HValue{std::int64_t{c.get<std::int8_t>()}};
    case kU16: return HValue{std::uint64_t{c.get<std::uint16_t>()}};
    case kI16: return HValue{std::int64_t{c.get<std::int16_t>()}};
    case kU32: return HValue{std::uint64_t{c.get<std::uint32_t>()}};
    case kI32: return HValue{std::int64_t{c.get<std::int32_t>()}};
    case kF32: return HValue{static_cast<double>(c.get<float>())};
    case kBool: return HValue{c.get<std::uint8_t>() != 0};
    case kU64: return HValue{c.get<std::uint64_t>()};
    case kI64: return HValue{c.get<std::int64_t>()};
    case kF64: return HValue{c.get<double>()};
    case kString: return HValue{c.string()};
    default: c.fail(fmt::format("value type {}", t));
  }
}

// Non-negative integers read as unsigned, so HFields' range checks apply to either signedness.
HValue normalized(HValue v) {
  if (const auto* i = std::get_if<std::int64_t>(&v.v); i != nullptr && *i >= 0) {
    return HValue{static_cast<std::uint64_t>(*i)};
  }
  return v;
}

Meta value(Cursor& c, std::uint32_t t) {
  if (t != kArray) {
    return Meta{normalized(scalar(c, t)), 0, false};
  }
  const auto element = c.get<std::uint32_t>();
  const auto n = c.get<std::uint64_t>();
  if (n > kMaxArray) {
    c.fail(fmt::format("an array of {} entries", n));
  }
  Meta m{HValue{}, n, true};
  if (element == kString) {
    for (std::uint64_t i = 0; i < n; ++i) {
      const auto length = c.get<std::uint64_t>();
      if (length > kMaxString) {
        c.fail(fmt::format("a string of {} bytes", length));
      }
      c.skip(length);  // a vocabulary's tokens: only their count is used
    }
    return m;
  }
  const std::uint64_t size = scalar_size(element);
  if (size == 0) {
    c.fail(fmt::format("an array of value type {}", element));
  }
  if (n > 65'536) {  // per-layer values are a few hundred; longer numeric arrays are not read
    c.skip(n * size);
    return m;
  }
  HList list;
  list.reserve(n);
  for (std::uint64_t i = 0; i < n; ++i) {
    list.push_back(normalized(scalar(c, element)));
  }
  m.value = HValue{std::move(list)};
  return m;
}

// llama.cpp's architecture names (general.architecture, src/llama-arch.cpp LLM_ARCH_NAMES) and the
// config.json model_type whose row sizes them. Mixtral is "llama" with experts.
struct ArchName {
  std::string_view gguf;
  std::string_view model_type;
};
constexpr std::array<ArchName, 22> kArchNames{{
    {"llama", "llama"},         {"qwen2", "qwen2"},         {"qwen3", "qwen3"},        {"qwen3moe", "qwen3_moe"},
    {"qwen2moe", "qwen2_moe"},  {"gemma", "gemma"},         {"gemma2", "gemma2"},      {"gemma3", "gemma3_text"},
    {"phi3", "phi3"},           {"command-r", "cohere"},    {"cohere2", "cohere2"},    {"starcoder2", "starcoder2"},
    {"granite", "granite"},     {"granitemoe", "granitemoe"}, {"olmo2", "olmo2"},      {"exaone", "exaone"},
    {"exaone4", "exaone4"},     {"gpt-oss", "gpt_oss"},     {"internlm2", "internlm2"}, {"stablelm", "stablelm"},
    {"smollm3", "smollm3"},     {"deepseek2", "deepseek_v2"},
}};

// GGUF hyper-parameter keys (gguf-py constants.py Keys.LLM / Keys.Attention, "{arch}." prefixed)
// and the config.json keys they are.
struct KeyName {
  std::string_view gguf;
  std::string_view config;
};
constexpr std::array<KeyName, 13> kKeys{{
    {"block_count", "num_hidden_layers"},
    {"context_length", "max_position_embeddings"},
    {"embedding_length", "hidden_size"},
    {"feed_forward_length", "intermediate_size"},
    {"attention.head_count", "num_attention_heads"},
    {"attention.head_count_kv", "num_key_value_heads"},
    {"attention.key_length", "head_dim"},
    {"attention.sliding_window", "sliding_window"},
    {"vocab_size", "vocab_size"},
    {"expert_count", "num_local_experts"},
    {"expert_used_count", "num_experts_per_tok"},
    {"expert_feed_forward_length", "moe_intermediate_size"},
    {"rope.freq_base", "rope_theta"},
}};

struct Header {
  std::map<std::string, Meta> meta;
  std::vector<std::pair<std::string, std::string>> brief;
  std::uint64_t tensors = 0;
  std::uint64_t tensor_bytes = 0;
  std::map<std::string, std::uint64_t> bytes_by_type;
};

void read_header(Cursor& c, Header& h, bool keep_metadata) {
  char magic[4];
  c.read(magic, 4);
  if (std::memcmp(magic, "GGUF", 4) != 0) {
    c.fail("it does not begin with GGUF");
  }
  const auto version = c.get<std::uint32_t>();
  if (version != 2 && version != 3) {
    c.fail(fmt::format("GGUF version {} (kvplan reads 2 and 3)", version));
  }
  const auto n_tensors = c.get<std::uint64_t>();
  const auto n_kv = c.get<std::uint64_t>();
  if (n_tensors > kMaxTensors || n_kv > kMaxKeyValues) {
    c.fail(fmt::format("{} tensors and {} key/values", n_tensors, n_kv));
  }
  for (std::uint64_t i = 0; i < n_kv; ++i) {
    std::string key = c.string(65'536);
    const auto type = c.get<std::uint32_t>();
    Meta m = value(c, type);
    if (keep_metadata) {
      h.brief.emplace_back(key, m.is_array ? fmt::format("array of {}", m.array_length) : brief(m.value));
      h.meta.insert_or_assign(std::move(key), std::move(m));
    }
  }
  for (std::uint64_t i = 0; i < n_tensors; ++i) {
    const std::string name = c.string(65'536);
    const auto dims = c.get<std::uint32_t>();
    if (dims == 0 || dims > kMaxDims) {
      c.fail(fmt::format("tensor {} has {} dimensions", quote_input(name), dims));
    }
    std::uint64_t elements = 1;
    for (std::uint32_t d = 0; d < dims; ++d) {
      const auto n = c.get<std::uint64_t>();
      if (n != 0 && elements > (std::uint64_t{1} << 50) / n) {
        c.fail(fmt::format("tensor {} has more than 2^50 elements", quote_input(name)));
      }
      elements *= n;
    }
    const auto type_id = c.get<std::uint32_t>();
    (void)c.get<std::uint64_t>();  // offset into the data section, not read
    const GgmlType* type = ggml_type(type_id);
    if (type == nullptr) {
      c.fail(fmt::format("tensor {} has ggml type {}, which kvplan does not know", quote_input(name), type_id));
    }
    const std::optional<std::uint64_t> bytes = ggml_tensor_bytes(*type, elements);
    if (!bytes) {
      c.fail(fmt::format("tensor {} has {} elements, not whole {} blocks of {}", quote_input(name), elements, type->name,
                         type->block_elements));
    }
    h.tensor_bytes += *bytes;
    h.bytes_by_type[std::string(type->name)] += *bytes;
    ++h.tensors;
  }
}

const Meta* find_meta(const Header& h, const std::string& key) {
  const auto it = h.meta.find(key);
  return it == h.meta.end() ? nullptr : &it->second;
}

GgufModel build(Header& h, std::string_view origin, std::string_view name_of_model) {
  const Meta* arch_meta = find_meta(h, "general.architecture");
  const auto* arch = arch_meta != nullptr ? std::get_if<std::string>(&arch_meta->value.v) : nullptr;
  if (arch == nullptr) {
    throw Error(fmt::format("{}: general.architecture: is required to know how the layers are laid out", origin));
  }
  const auto name = std::find_if(kArchNames.begin(), kArchNames.end(), [&](const ArchName& a) { return a.gguf == *arch; });
  if (name == kArchNames.end()) {
    throw Error(fmt::format("{}: general.architecture: kvplan does not map the GGUF architecture {} onto its "
                            "rules yet; nothing is guessed (give --config with the model's config.json)",
                            origin, quote_input(*arch)));
  }
  HObject top;
  std::string type(name->model_type);
  for (const KeyName& k : kKeys) {
    const std::string key = fmt::format("{}.{}", *arch, k.gguf);
    const Meta* m = find_meta(h, key);
    if (m == nullptr) {
      continue;
    }
    HValue v = m->value;
    if (const auto* list = std::get_if<HList>(&v.v)) {
      // A per-layer array (head_count_kv of OpenELM, Jamba's zeros): one value when all agree.
      if (list->empty() || !std::all_of(list->begin(), list->end(), [&](const HValue& x) { return brief(x) == brief(list->front()); })) {
        throw Error(fmt::format("{}: {}: per-layer values that differ; kvplan reads this key per layer only from "
                                "config.json (give --config)",
                                origin, key));
      }
      v = list->front();
    } else if (m->is_array) {
      throw Error(fmt::format("{}: {}: an array of {} entries where one value goes", origin, key, m->array_length));
    }
    top.set(std::string(k.config), std::move(v));
  }
  if (top.find("vocab_size") == nullptr) {
    if (const Meta* tokens = find_meta(h, "tokenizer.ggml.tokens"); tokens != nullptr && tokens->is_array) {
      top.set("vocab_size", HValue{tokens->array_length});
    }
  }
  bool mha_expanded = false;
  if (*arch == "deepseek2") {
    // convert_hf_to_gguf.py DeepseekV2Model.set_gguf_parameters: the MLA keys, and since llama.cpp's
    // MLA conversion (2025) the attention written as MQA over the latent (key_length = kv_lora_rank +
    // rope, value_length = kv_lora_rank, head_count_kv 1) with the per-head widths in *_mla. A file
    // without *_mla was converted before: llama.cpp caches it as multi-head K and V.
    const auto u = [&](const char* key) -> std::optional<std::uint64_t> {
      const Meta* m = find_meta(h, fmt::format("deepseek2.{}", key));
      const auto* v = m != nullptr ? std::get_if<std::uint64_t>(&m->value.v) : nullptr;
      return v != nullptr ? std::optional(*v) : std::nullopt;
    };
    const auto need = [&](const char* key) {
      const auto v = u(key);
      if (!v) {
        throw Error(fmt::format("{}: deepseek2.{}: is required to size DeepSeek's MLA cache", origin, key));
      }
      return *v;
    };
    const std::uint64_t rope = need("rope.dimension_count");
    const bool mla_layout = u("attention.key_length_mla").has_value();
    const std::uint64_t qk_head = mla_layout ? need("attention.key_length_mla") : need("attention.key_length");
    const std::uint64_t v_head = mla_layout ? need("attention.value_length_mla") : need("attention.value_length");
    if (qk_head <= rope) {
      throw Error(fmt::format("{}: deepseek2.attention.key_length{}: {} is not more than the rope dimension {}", origin,
                              mla_layout ? "_mla" : "", qk_head, rope));
    }
    top.set("kv_lora_rank", HValue{need("attention.kv_lora_rank")});
    top.set("q_lora_rank", u("attention.q_lora_rank") ? HValue{*u("attention.q_lora_rank")} : HValue{});
    top.set("qk_rope_head_dim", HValue{rope});
    top.set("qk_nope_head_dim", HValue{qk_head - rope});
    top.set("v_head_dim", HValue{v_head});
    top.set("head_dim", HValue{qk_head});
    if (const HValue* heads = top.find("num_attention_heads")) {
      top.set("num_key_value_heads", *heads);  // DeepSeek's config: one KV head per query head
    }
    for (const auto& [gguf_key, config_key] : {std::pair{"expert_count", "n_routed_experts"},
                                               {"expert_shared_count", "n_shared_experts"},
                                               {"leading_dense_block_count", "first_k_dense_replace"}}) {
      if (const auto v = u(gguf_key)) {
        top.set(config_key, HValue{*v});
      }
    }
    // expert_gating_func 2 is sigmoid routing with a correction bias: DeepSeek-V3's (LLM_EXPERT_GATING_FUNC_TYPE_SIGMOID).
    if (u("expert_gating_func") == 2u) {
      type = "deepseek_v3";
    }
    mha_expanded = !mla_layout;
  }
  if (type == "llama" && top.find("num_local_experts") != nullptr) {
    type = "mixtral";  // llama.cpp writes Mixtral as llama with expert_count
  }
  if (type == "qwen3_moe" || type == "qwen2_moe") {
    if (const HValue* e = top.find("num_local_experts")) {
      top.set("num_experts", *e);
    }
  }
  top.set("model_type", HValue{type});
  top.set("torch_dtype", HValue{std::string("float16")});  // llama.cpp's KV cache default is f16
  ModelSpec spec = read_hparams(std::move(top), name_of_model, origin);
  if (mha_expanded) {
    spec = dense_equivalent(spec);
    spec.defaults_note += std::string(spec.defaults_note.empty() ? "" : "; ") +
                          "converted before MLA caching (no deepseek2.attention.key_length_mla): K and V are cached "
                          "per head, not the latent";
  }
  spec.quant_method = "gguf";  // as vLLM names a .gguf checkpoint's quantization (check_gguf_file)
  GgufModel g;
  g.architecture = *arch;
  g.tensors = h.tensors;
  g.tensor_bytes = h.tensor_bytes;
  g.bytes_by_type = h.bytes_by_type;
  g.metadata = std::move(h.brief);
  if (h.tensors > 0) {
    spec.params.stated_bytes = h.tensor_bytes;
    spec.weights_source = "the GGUF's tensor table";
    spec.params.stated_params = std::max<std::uint64_t>(spec.params.total(), 1);
    spec.weights_note.clear();
  } else {
    spec.weights_note = "the GGUF holds no tensors (a vocabulary-only file): weights estimated from the architecture";
  }
  g.spec = std::move(spec);
  return g;
}

}  // namespace

const GgmlType* ggml_type(std::uint32_t id) noexcept {
  const auto it = std::find_if(kTypes.begin(), kTypes.end(), [&](const GgmlType& t) { return t.id == id; });
  return it == kTypes.end() ? nullptr : &*it;
}

std::optional<std::uint64_t> ggml_tensor_bytes(const GgmlType& type, std::uint64_t elements) noexcept {
  if (elements % type.block_elements != 0) {
    return std::nullopt;
  }
  return elements / type.block_elements * type.block_bytes;
}

namespace {

struct QuantOption {
  std::string_view name;
  std::uint32_t centi = 0;           // the size it states, in hundredths of GiB ("4.58G"), or
  std::uint64_t params = 0;          //   for this model's parameter count; or, with params 0,
                                     //   bits per weight × 100 ("2.06 bpw")
  std::string_view model;
};

constexpr std::uint64_t kLlama3_8B = 8'030'261'248;   // meta-llama/Meta-Llama-3-8B: 8.03B (its config)
constexpr std::uint64_t kMistral7B = 7'241'732'096;   // mistralai/Mistral-7B-v0.1: 7.24B

// ggml-org/llama.cpp tools/quantize/quantize.cpp at 42ea59bc, QUANT_OPTIONS: each type's size for
// Llama-3-8B (the "G" there is GiB: Q8_0's 7.96 G is 8.5 bits per weight only in GiB), or its bits
// per weight. Unsloth's dynamic quants (UD-Q4_K_XL ...) are mixes of these and no llama.cpp type.
constexpr QuantOption kQuantOptions[] = {
    {"Q4_0", 434, kLlama3_8B, "Llama-3-8B"},   {"Q4_1", 478, kLlama3_8B, "Llama-3-8B"},
    {"Q5_0", 521, kLlama3_8B, "Llama-3-8B"},   {"Q5_1", 565, kLlama3_8B, "Llama-3-8B"},
    {"IQ2_XXS", 206, 0, ""},                    {"IQ2_XS", 231, 0, ""},
    {"IQ2_S", 250, 0, ""},                      {"IQ2_M", 270, 0, ""},
    {"IQ1_S", 156, 0, ""},                      {"IQ1_M", 175, 0, ""},
    {"TQ1_0", 169, 0, ""},                      {"TQ2_0", 206, 0, ""},
    {"Q2_K", 296, kLlama3_8B, "Llama-3-8B"},   {"Q2_K_S", 296, kLlama3_8B, "Llama-3-8B"},
    {"IQ3_XXS", 306, 0, ""},                    {"IQ3_S", 344, 0, ""},
    {"IQ3_M", 366, 0, ""},                      {"IQ3_XS", 330, 0, ""},
    {"Q3_K_S", 341, kLlama3_8B, "Llama-3-8B"}, {"Q3_K_M", 374, kLlama3_8B, "Llama-3-8B"},
    {"Q3_K_L", 403, kLlama3_8B, "Llama-3-8B"}, {"IQ4_NL", 450, 0, ""},
    {"IQ4_XS", 425, 0, ""},                     {"Q4_K_S", 437, kLlama3_8B, "Llama-3-8B"},
    {"Q4_K_M", 458, kLlama3_8B, "Llama-3-8B"}, {"Q5_K_S", 521, kLlama3_8B, "Llama-3-8B"},
    {"Q5_K_M", 533, kLlama3_8B, "Llama-3-8B"}, {"Q6_K", 614, kLlama3_8B, "Llama-3-8B"},
    {"Q8_0", 796, kLlama3_8B, "Llama-3-8B"},   {"F16", 1400, kMistral7B, "Mistral-7B"},
    {"BF16", 1400, kMistral7B, "Mistral-7B"},  {"F32", 3200, 0, ""},
    {"MXFP4", 425, 0, ""},  // not in the table: ggml-common.h block_mxfp4, 32 4-bit values and an 8-bit scale in 17 bytes
};

// "Q4_K" is llama-quantize's alias for Q4_K_M (and Q3_K, Q5_K likewise); gpt-oss files say "mxfp4".
std::string_view canonical(std::string_view t) {
  if (t == "Q3_K") return "Q3_K_M";
  if (t == "Q4_K") return "Q4_K_M";
  if (t == "Q5_K") return "Q5_K_M";
  if (t == "MXFP4_MOE") return "MXFP4";
  return t;
}

std::optional<GgufFileType> file_type(std::string_view token) {
  std::string up;
  for (char c : token) {
    up += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  const std::string_view t = canonical(up);
  for (const QuantOption& q : kQuantOptions) {
    if (q.name != t) {
      continue;
    }
    GgufFileType f;
    f.name = std::string(q.name);
    if (q.name == "MXFP4") {
      f.millibits = q.centi * 10;
      f.basis = "ggml's block_mxfp4: 32 weights in 17 bytes; gpt-oss keeps attention in bf16, so the file is larger";
    } else if (q.params == 0) {
      f.millibits = q.centi * 10;
      f.basis = fmt::format("{}.{:02} bits per weight in llama-quantize's table", q.centi / 100, q.centi % 100);
    } else {
      // size × 2^30 bytes × 8 bits / parameters, in thousandths
      f.millibits = static_cast<std::uint32_t>((static_cast<std::uint64_t>(q.centi) * (1ULL << 30) * 8 * 1000 / 100 +
                                                q.params / 2) / q.params);
      f.basis = fmt::format("{}.{:02} GiB for {} in llama-quantize's table", q.centi / 100, q.centi % 100, q.model);
    }
    return f;
  }
  return std::nullopt;
}

}  // namespace

std::optional<GgufFileType> gguf_file_type(std::string_view name) {
  // Ollama's tags say fp16 where llama-quantize says F16.
  const std::string lower = to_lower(name);
  return file_type(lower == "fp16" ? std::string_view("F16") : lower == "fp32" ? std::string_view("F32") : name);
}

std::optional<std::pair<std::string, GgufFileType>> gguf_name_type(std::string_view file_name) {
  std::string stem(file_name.substr(file_name.find_last_of('/') == std::string_view::npos ? 0
                                                                                          : file_name.find_last_of('/') + 1));
  if (stem.size() > 5 && to_lower(stem.substr(stem.size() - 5)) == ".gguf") {
    stem.resize(stem.size() - 5);
  }
  // A split model's shard suffix: -00001-of-00003.
  if (const std::size_t of = stem.rfind("-of-"); of != std::string::npos && of >= 6 && stem[of - 6] == '-') {
    stem.resize(of - 6);
  }
  const std::size_t cut = stem.find_last_of("-.");
  if (cut == std::string::npos || cut == 0) {
    return std::nullopt;
  }
  std::string token = stem.substr(cut + 1);
  std::string model = stem.substr(0, cut);
  std::optional<GgufFileType> t = file_type(token);
  std::string note;
  if (!t) {
    // Unsloth's dynamic quants: UD-Q4_K_XL, UD-IQ2_M: a mix around that type; XL is no llama.cpp suffix.
    const std::size_t xl = to_lower(token).rfind("_xl");
    if (xl == std::string::npos || xl + 3 != token.size()) {
      return std::nullopt;
    }
    t = file_type(token.substr(0, xl) + "_M");  // Q4_K_XL: around Q4_K_M
    if (!t) {
      t = file_type(token.substr(0, xl));       // Q2_K_XL: around Q2_K
    }
    if (!t) {
      return std::nullopt;
    }
    note = fmt::format("{} is a mix, not a type llama-quantize makes; estimated as {}: ", token, t->name);
  }
  if (model.size() > 3 && to_lower(model.substr(model.size() - 3)) == "-ud") {
    model.resize(model.size() - 3);
    note = fmt::format("Unsloth's dynamic {} mixes types; estimated as {}: ", token, t->name);
  }
  if (!note.empty()) {
    t->basis = note + t->basis;
  }
  if (model.empty()) {
    return std::nullopt;
  }
  return std::make_pair(model, *t);
}

bool is_gguf_path(std::string_view path) noexcept {
  return path.size() > 5 && to_lower(path.substr(path.size() - 5)) == ".gguf";
}

GgufModel read_gguf_bytes(std::string_view bytes, std::string_view origin) {
  Cursor c(bytes, std::string(origin));
  Header h;
  read_header(c, h, true);
  return build(h, origin, origin);
}

GgufModel read_gguf(const std::string& path, std::string_view where) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    throw Error(fmt::format("{}: no GGUF file at {}", where, quote_input(path)));
  }
  const std::string origin = path;
  Header h;
  {
    Cursor c(path, origin);
    read_header(c, h, true);
  }
  // A split model, "<name>-00001-of-00003.gguf": the other shards hold more tensors.
  std::uint32_t shards = 1;
  const std::string file = std::filesystem::path(path).filename().string();
  const std::size_t of = file.rfind("-of-");
  if (of != std::string::npos && of >= 6 && file.size() == of + 4 + 5 + 5 && file.compare(of - 6, 7, "-00001-") == 0) {
    const std::string total_text = file.substr(of + 4, 5);
    if (std::all_of(total_text.begin(), total_text.end(), [](char ch) { return ch >= '0' && ch <= '9'; })) {
      shards = static_cast<std::uint32_t>(std::stoul(total_text));
      if (shards == 0 || shards > kMaxShards) {
        throw Error(fmt::format("{}: {} shards; a split GGUF has 1 to {}", origin, shards, kMaxShards));
      }
      const std::string stem = path.substr(0, path.size() - file.size()) + file.substr(0, of - 6);
      for (std::uint32_t i = 2; i <= shards; ++i) {
        const std::string shard = fmt::format("{}-{:05}-of-{}.gguf", stem, i, total_text);
        if (!std::filesystem::is_regular_file(shard, ec)) {
          throw Error(fmt::format("{}: shard {} of {} is missing: {}", origin, i, shards, quote_input(shard)));
        }
        Cursor c(shard, shard);
        read_header(c, h, false);
      }
    }
  }
  GgufModel g = build(h, origin, file);
  g.shards = shards;
  return g;
}

}  // namespace kvplan
