// GGUF headers (issue #10): llama.cpp's own vocabulary files (tests/configs/gguf, byte for byte
// from the llama.cpp tree, SOURCES.tsv), the ggml type table against ggml's block structs, and
// the refusals of what kvplan cannot read.
#include <catch2/catch.hpp>

#include <cstring>
#include <filesystem>
#include <string>
#include <tuple>
#include <vector>

#include "kvplan/dtype.hpp"
#include "kvplan/error.hpp"
#include "kvplan/formula.hpp"
#include "kvplan/gguf.hpp"
#include "kvplan/model_source.hpp"
#include "support/files.hpp"

using namespace kvplan;

namespace {

const std::filesystem::path kDir = std::filesystem::path(KVPLAN_SOURCE_DIR) / "tests" / "configs" / "gguf";

std::string path(const char* name) { return (kDir / name).string(); }

}  // namespace

TEST_CASE("ggml types: elements and bytes per block as ggml-common.h's static_asserts state", "[gguf]") {
  // sizeof(block_q4_0) == sizeof(ggml_half) + QK4_0 / 2: 2 + 16 = 18 B per 32 weights;
  // block_q8_0: 2 + 32 = 34; block_q4_K: 2 halves + K_SCALE_SIZE 12 + QK_K / 2 = 144 per 256;
  // block_q6_K: QK_K/2 + QK_K/4 + QK_K/16 + 2 = 210; block_iq4_xs: 2 + 2 + QK_K/64 + QK_K/2 = 136;
  // block_mxfp4: 1 + QK_MXFP4 / 2 = 17 per 32.
  struct Row {
    std::uint32_t id;
    const char* name;
    std::uint32_t elements;
    std::uint32_t bytes;
  };
  const Row rows[] = {{0, "F32", 1, 4},       {1, "F16", 1, 2},        {2, "Q4_0", 32, 18},   {8, "Q8_0", 32, 34},
                      {12, "Q4_K", 256, 144}, {14, "Q6_K", 256, 210},  {23, "IQ4_XS", 256, 136}, {30, "BF16", 1, 2},
                      {39, "MXFP4", 32, 17}};
  for (const Row& r : rows) {
    INFO(r.name);
    const GgmlType* t = ggml_type(r.id);
    REQUIRE(t != nullptr);
    CHECK(t->name == r.name);
    CHECK(t->block_elements == r.elements);
    CHECK(t->block_bytes == r.bytes);
  }
  CHECK(ggml_type(4) == nullptr);  // Q4_2: removed from ggml
  // Llama-2-7B's token embedding, 32,000 x 4,096 in Q4_K: 512,000 blocks of 144 B.
  CHECK(ggml_tensor_bytes(*ggml_type(12), 32'000ULL * 4096) == 73'728'000);
  CHECK(!ggml_tensor_bytes(*ggml_type(12), 100).has_value());  // not whole blocks
}

TEST_CASE("llama.cpp's vocabulary GGUFs: the same architecture rules as config.json", "[gguf]") {
  const DType& f16 = *find_dtype(kv_dtypes(), "fp16");
  // ggml-vocab-llama-spm.gguf: llama.block_count 32, embedding_length 4096, head_count 32,
  // head_count_kv 32, feed_forward_length 11008, vocab_size 32000 (Llama-2-7B's shape):
  // 2 * 32 * 32 * 128 * 2 B = 524,288 B per token in f16, llama.cpp's default cache type.
  const GgufModel spm = read_gguf(path("ggml-vocab-llama-spm.gguf"), "test");
  CHECK(spm.architecture == "llama");
  CHECK(spm.tensors == 0);
  CHECK(spm.spec.num_hidden_layers == 32);
  CHECK(model_kv_bytes_per_token(spm.spec, f16) == 524'288);
  CHECK(spm.spec.max_position_embeddings == 4096);
  CHECK(spm.spec.torch_dtype == "fp16");
  // The parameter count of Llama-2-7B (KerasHub's llama2_7b_en: 6,738,415,616), from the same rule.
  CHECK(spm.spec.params.total() == 6'738'415'616);
  CHECK(!spm.spec.weights_note.empty());  // no tensors: the weights are an estimate, and say so
  // ggml-vocab-phi-3.gguf: phi3.block_count 32, embedding_length 3072, head_count(_kv) 32,
  // rope.dimension_count 96, no vocab_size key: the 32,064 entries of tokenizer.ggml.tokens.
  const GgufModel phi = read_gguf(path("ggml-vocab-phi-3.gguf"), "test");
  CHECK(phi.architecture == "phi3");
  CHECK(phi.spec.vocab_size == 32'064);
  CHECK(model_kv_bytes_per_token(phi.spec, f16) == 2 * 32 * 32 * 96 * 2);
}

TEST_CASE("GGUF refusals: one line naming the file, nothing read past the header", "[gguf][errors]") {
  const std::string real = test::slurp(kDir / "ggml-vocab-llama-spm.gguf");
  CHECK_THROWS_WITH(read_gguf_bytes(real.substr(0, 100), "cut.gguf"),
                    Catch::StartsWith("cut.gguf: not a GGUF file kvplan can read: it ends inside its header"));
  CHECK_THROWS_WITH(read_gguf_bytes("{\"model_type\": \"llama\"}", "x.gguf"),
                    Catch::StartsWith("x.gguf: not a GGUF file kvplan can read: it does not begin with GGUF"));
  std::string v9 = real;
  v9[4] = 9;  // the version field
  CHECK_THROWS_WITH(read_gguf_bytes(v9, "v9.gguf"), Catch::Contains("GGUF version 9 (kvplan reads 2 and 3)"));
  // general.architecture renamed in place to one kvplan does not map ("llama" -> "llamx")
  std::string other = real;
  const std::size_t at = other.find("llama", other.find("general.architecture"));
  REQUIRE(at != std::string::npos);
  other[at + 4] = 'x';
  CHECK_THROWS_WITH(read_gguf_bytes(other, "o.gguf"),
                    Catch::StartsWith("o.gguf: general.architecture: kvplan does not map the GGUF architecture 'llamx'"));
  CHECK_THROWS_WITH(read_gguf(path("missing.gguf"), "--model"), Catch::StartsWith("--model: no GGUF file at"));
}

namespace {

// The real header with a tensor table appended and its tensor count raised: what a model file
// (not a vocabulary file) carries after its key/values.
std::string with_tensors(const std::string& real, const std::vector<std::tuple<std::string, std::vector<std::uint64_t>, std::uint32_t>>& tensors) {
  std::string out = real;
  const std::uint64_t n = tensors.size();
  std::memcpy(out.data() + 8, &n, 8);  // n_tensors follows the magic and the version
  auto put = [&](const void* p, std::size_t size) { out.append(static_cast<const char*>(p), size); };
  for (const auto& [name, dims, type] : tensors) {
    const std::uint64_t length = name.size();
    put(&length, 8);
    out += name;
    const auto n_dims = static_cast<std::uint32_t>(dims.size());
    put(&n_dims, 4);
    for (const std::uint64_t d : dims) {
      put(&d, 8);
    }
    put(&type, 4);
    const std::uint64_t offset = 0;
    put(&offset, 8);
  }
  return out;
}

}  // namespace

TEST_CASE("GGUF weights are the tensors' bytes in their ggml types, exactly", "[gguf][weights]") {
  const std::string real = test::slurp(kDir / "ggml-vocab-llama-spm.gguf");
  // token_embd 4,096 x 32,000 in Q4_K: 512,000 blocks x 144 B; output_norm 4,096 F32: 16,384 B.
  const GgufModel g = read_gguf_bytes(
      with_tensors(real, {{"token_embd.weight", {4096, 32000}, 12}, {"output_norm.weight", {4096}, 0}}), "t.gguf");
  CHECK(g.tensors == 2);
  CHECK(g.tensor_bytes == 73'728'000 + 16'384);
  CHECK(g.bytes_by_type.at("Q4_K") == 73'728'000);
  CHECK(g.spec.params.stated_bytes == 73'744'384);
  CHECK(g.spec.weights_note.empty());
  CHECK_THROWS_WITH(read_gguf_bytes(with_tensors(real, {{"x", {4096}, 4}}), "t.gguf"),
                    Catch::Contains("tensor 'x' has ggml type 4, which kvplan does not know"));
  CHECK_THROWS_WITH(read_gguf_bytes(with_tensors(real, {{"x", {100}, 12}}), "t.gguf"),
                    Catch::Contains("tensor 'x' has 100 elements, not whole Q4_K blocks of 256"));
  CHECK_THROWS_WITH(read_gguf_bytes(with_tensors(real, {{"x", {1, 1, 1, 1, 1}, 0}}), "t.gguf"),
                    Catch::Contains("tensor 'x' has 5 dimensions"));
}

namespace {

// A GGUF v3 header with no tensors: general.architecture, then u32 and f32 key/values, as gguf-py writes them.
std::string deepseek2_header(const std::vector<std::pair<std::string, std::uint32_t>>& keys) {
  std::string s = "GGUF";
  const auto u32 = [&](std::uint32_t v) { s.append(reinterpret_cast<const char*>(&v), 4); };
  const auto u64 = [&](std::uint64_t v) { s.append(reinterpret_cast<const char*>(&v), 8); };
  const auto str = [&](std::string_view v) {
    u64(v.size());
    s.append(v);
  };
  u32(3);
  u64(0);  // tensors
  u64(keys.size() + 1);
  str("general.architecture");
  u32(8);  // GGUF_TYPE_STRING
  str("deepseek2");
  for (const auto& [k, v] : keys) {
    str("deepseek2." + k);
    u32(4);  // GGUF_TYPE_UINT32
    u32(v);
  }
  return s;
}

}  // namespace

TEST_CASE("DeepSeek GGUFs (deepseek2): MLA from the keys, and the pre-MLA layout as llama.cpp caches it", "[gguf]") {
  // DeepSeek-V2-Lite's config.json (models/deepseek-v2-lite.json: 27 layers, hidden 2048, 16 heads,
  // kv_lora_rank 512, qk_nope 128, qk_rope 64, v_head 128, 64 routed experts of 1408, 2 shared, the
  // first layer dense, vocab 102400) written with the keys convert_hf_to_gguf.py's
  // DeepseekV2Model.set_gguf_parameters gives it. Since the MLA conversion: key_length = kv_lora_rank +
  // rope = 576, value_length = kv_lora_rank = 512, head_count_kv 1, and the per-head widths in
  // key_length_mla = 192 and value_length_mla = 128 (llama.cpp reads MLA from those two: src/llama-model.cpp
  // n_embd_head_k_mla, n_embd_head_v_mla).
  const std::vector<std::pair<std::string, std::uint32_t>> common{
      {"block_count", 27},          {"context_length", 163840},         {"embedding_length", 2048},
      {"feed_forward_length", 10944}, {"attention.head_count", 16},     {"expert_used_count", 6},
      {"leading_dense_block_count", 1}, {"vocab_size", 102400},         {"attention.kv_lora_rank", 512},
      {"expert_feed_forward_length", 1408}, {"expert_count", 64},       {"expert_shared_count", 2},
      {"rope.dimension_count", 64}};
  auto mla = common;
  mla.insert(mla.end(), {{"attention.head_count_kv", 1},
                         {"attention.key_length", 576},
                         {"attention.value_length", 512},
                         {"attention.key_length_mla", 192},
                         {"attention.value_length_mla", 128}});
  const DType& f16 = *find_dtype(kv_dtypes(), "fp16");
  const GgufModel latent = read_gguf_bytes(deepseek2_header(mla), "v2-lite.gguf");
  const ModelSpec preset = *load_preset("deepseek-v2-lite").spec;
  // The same architecture rules as config.json: the latent cache, 576 elements per layer.
  CHECK(model_kv_bytes_per_token(latent.spec, f16) == model_kv_bytes_per_token(preset, f16));
  CHECK(model_kv_bytes_per_token(latent.spec, f16) == 27 * 576 * 2);
  CHECK(latent.spec.params.total() == preset.params.total());
  // Before the MLA conversion the file carries the per-head widths as key_length 192 and
  // value_length 128 with head_count_kv 16, and llama.cpp caches K and V for every head:
  // 27 x 16 x (192 + 128) x 2 B = 276,480 B per token.
  auto mha = common;
  mha.insert(mha.end(), {{"attention.head_count_kv", 16}, {"attention.key_length", 192}, {"attention.value_length", 128}});
  const GgufModel expanded = read_gguf_bytes(deepseek2_header(mha), "v2-lite-old.gguf");
  CHECK(model_kv_bytes_per_token(expanded.spec, f16) == 276'480);
  CHECK(expanded.spec.defaults_note.find("converted before MLA caching") != std::string::npos);
  CHECK_THROWS_WITH(read_gguf_bytes(deepseek2_header(common), "x.gguf"),
                    Catch::Contains("deepseek2.attention.key_length: is required"));
}
