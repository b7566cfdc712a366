// safetensors headers, written here by a small writer: the header JSON of each file (names, dtypes,
// shapes and contiguous data_offsets, as transformers' save_pretrained writes them) and no tensor
// data after it, which the reader must never need. The shapes come from a model's real config.json,
// and the byte sum is checked against the size its real checkpoint states.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>

#include "kvplan/error.hpp"
#include "kvplan/model_source.hpp"
#include "kvplan/safetensors.hpp"
#include "support/files.hpp"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct Tensor {
  std::string name;
  std::string dtype;
  std::vector<std::uint64_t> shape;
};

std::uint64_t bytes_of(const Tensor& t) {
  std::uint64_t n = 1;
  for (std::uint64_t d : t.shape) {
    n *= d;
  }
  const std::uint64_t bits = t.dtype == "BF16" || t.dtype == "F16" ? 16 : t.dtype == "F32" || t.dtype == "I32" ? 32
                             : t.dtype == "F4"                      ? 4
                                                                    : 8;
  return (n * bits + 7) / 8;
}

std::string header_bytes(const std::string& header) {
  std::string out(8, '\0');
  std::uint64_t n = header.size();
  for (int i = 0; i < 8; ++i) {
    out[static_cast<std::size_t>(i)] = static_cast<char>(n & 0xff);
    n >>= 8;
  }
  return out + header;
}

// One shard: the 8-byte length, the header, and no data.
void write_shard(const fs::path& path, const std::vector<Tensor>& tensors) {
  nlohmann::ordered_json h;
  h["__metadata__"] = {{"format", "pt"}};
  std::uint64_t at = 0;
  for (const Tensor& t : tensors) {
    h[t.name] = {{"dtype", t.dtype}, {"shape", t.shape}, {"data_offsets", {at, at + bytes_of(t)}}};
    at += bytes_of(t);
  }
  std::ofstream(path, std::ios::binary) << header_bytes(h.dump());
}

fs::path temp_dir(const std::string& tag) {
  std::random_device seed;
  const fs::path dir = fs::temp_directory_path() / fmt::format("kvplan-st-{}-{:08x}", tag, seed());
  fs::create_directories(dir);
  return dir;
}

// Llama-3.1-8B-Instruct's tensors as transformers' LlamaForCausalLM names them, with the sizes of
// its config.json (tests/configs/arch, verbatim from the model's repository).
std::vector<Tensor> llama_tensors(const json& c) {
  const std::uint64_t h = c["hidden_size"], i = c["intermediate_size"], v = c["vocab_size"];
  const std::uint64_t heads = c["num_attention_heads"], kv = c["num_key_value_heads"];
  const std::uint64_t d = h / heads;
  std::vector<Tensor> t{{"model.embed_tokens.weight", "BF16", {v, h}}};
  for (int l = 0; l < c["num_hidden_layers"].get<int>(); ++l) {
    const std::string p = "model.layers." + std::to_string(l) + ".";
    t.push_back({p + "input_layernorm.weight", "BF16", {h}});
    t.push_back({p + "self_attn.q_proj.weight", "BF16", {heads * d, h}});
    t.push_back({p + "self_attn.k_proj.weight", "BF16", {kv * d, h}});
    t.push_back({p + "self_attn.v_proj.weight", "BF16", {kv * d, h}});
    t.push_back({p + "self_attn.o_proj.weight", "BF16", {h, heads * d}});
    t.push_back({p + "post_attention_layernorm.weight", "BF16", {h}});
    t.push_back({p + "mlp.gate_proj.weight", "BF16", {i, h}});
    t.push_back({p + "mlp.up_proj.weight", "BF16", {i, h}});
    t.push_back({p + "mlp.down_proj.weight", "BF16", {h, i}});
  }
  t.push_back({"model.norm.weight", "BF16", {h}});
  t.push_back({"lm_head.weight", "BF16", {v, h}});  // tie_word_embeddings: false
  return t;
}

}  // namespace

TEST_CASE("safetensors: a sharded checkpoint's weights are the sum of its headers", "[safetensors]") {
  const fs::path src = fs::path(KVPLAN_SOURCE_DIR) / "tests/configs/arch/meta-llama--Llama-3.1-8B-Instruct.json";
  const json config = json::parse(kvplan::test::slurp(src));
  const std::vector<Tensor> all = llama_tensors(config);
  REQUIRE(all.size() == 291);  // the weight_map of the real index lists 291 tensors
  const fs::path dir = temp_dir("llama");
  fs::copy_file(src, dir / "config.json");
  // Four shards, as save_pretrained's 5 GB max_shard_size splits it.
  nlohmann::ordered_json index;
  // huggingface.co/meta-llama/Llama-3.1-8B-Instruct, model.safetensors.index.json: metadata.total_size.
  index["metadata"]["total_size"] = 16'060'522'496ULL;
  const std::size_t per = (all.size() + 3) / 4;
  for (std::size_t s = 0; s < 4; ++s) {
    const std::string file = fmt::format("model-0000{}-of-00004.safetensors", s + 1);
    std::vector<Tensor> part(all.begin() + static_cast<std::ptrdiff_t>(s * per),
                             all.begin() + static_cast<std::ptrdiff_t>(std::min(all.size(), (s + 1) * per)));
    write_shard(dir / file, part);
    for (const Tensor& t : part) {
      index["weight_map"][t.name] = file;
    }
  }
  std::ofstream(dir / "model.safetensors.index.json") << index.dump(2);
  const auto w = kvplan::read_safetensors_folder(dir.string(), "test");
  REQUIRE(w);
  CHECK(w->files == 4);
  CHECK(w->tensors == 291);
  CHECK(w->bytes == 16'060'522'496ULL);  // equals the real checkpoint's total_size
  CHECK(w->bytes_by_dtype.at("BF16") == 16'060'522'496ULL);
  CHECK(w->bytes_by_part.at("embeddings") == 128'256ULL * 4096 * 2);
  CHECK(w->bytes_by_part.at("lm_head") == 128'256ULL * 4096 * 2);
  // --config DIR: the headers replace the estimate.
  const kvplan::ModelChoice m = kvplan::load_config(dir.string(), "--config");
  CHECK(m.spec->params.stated_bytes == 16'060'522'496ULL);
  CHECK(m.spec->weights_source.rfind("the safetensors headers (4 files, 291 tensors: BF16 14.96 GiB", 0) == 0);
  // The index and the shards must agree.
  index["metadata"]["total_size"] = 16'060'522'497ULL;
  std::ofstream(dir / "model.safetensors.index.json") << index.dump(2);
  CHECK_THROWS_WITH(kvplan::read_safetensors_folder(dir.string(), "test"),
                    Catch::Contains("metadata.total_size is 16,060,522,497 but the shards' headers hold 16,060,522,496"));
  fs::remove(dir / "model-00003-of-00004.safetensors");
  CHECK_THROWS_WITH(kvplan::read_safetensors_folder(dir.string(), "test"),
                    Catch::Contains("the index names 'model-00003-of-00004.safetensors', which is not in the folder"));
  fs::remove_all(dir);
}

TEST_CASE("safetensors: packed and 8-bit dtypes, and a 100 GB file read to its header only", "[safetensors]") {
  const fs::path dir = temp_dir("dtypes");
  // safetensors/src/tensor.rs bitsize: F4 is 4 bits (two per byte); AWQ/GPTQ pack eight int4 in an I32.
  write_shard(dir / "model.safetensors", {{"model.layers.0.mlp.experts.0.w1.weight", "F4", {4096, 4096}},
                                          {"model.layers.0.self_attn.q_proj.qweight", "I32", {4096, 512}},
                                          {"model.layers.0.self_attn.q_proj.weight", "F8_E4M3", {4096, 4096}},
                                          {"model.layers.0.self_attn.q_proj.weight_scale", "F32", {1}},
                                          {"vision_tower.patch_embed.weight", "BF16", {1152, 588}}});
  // Sparse: 100 GB of tensor data the reader never touches.
  fs::resize_file(dir / "model.safetensors", 100'000'000'000ULL);
  const auto w = kvplan::read_safetensors_folder(dir.string(), "test");
  REQUIRE(w);
  CHECK(w->bytes_by_dtype.at("F4") == 8'388'608);
  CHECK(w->bytes_by_dtype.at("I32") == 8'388'608);
  CHECK(w->bytes_by_dtype.at("F8_E4M3") == 16'777'216);
  CHECK(w->bytes_by_dtype.at("F32") == 4);
  CHECK(w->bytes_by_part.at("experts") == 8'388'608);
  CHECK(w->bytes_by_part.at("vision") == 1152 * 588 * 2);
  CHECK(w->bytes_by_part.at("layers") == 8'388'608 + 16'777'216 + 4);
  fs::remove_all(dir);
}

TEST_CASE("safetensors: broken headers are one error with the file and the byte or tensor", "[safetensors][hostile]") {
  kvplan::SafetensorsWeights w;
  using kvplan::read_safetensors_header;
  // A header length of 2^63.
  std::string huge(8, '\0');
  huge[7] = static_cast<char>(0x80);
  CHECK_THROWS_WITH(read_safetensors_header(huge, "a.safetensors", w), Catch::Contains("a.safetensors: byte 0: a header of"));
  CHECK_THROWS_WITH(read_safetensors_header("abc", "b.safetensors", w), Catch::Contains("less than the 8-byte"));
  CHECK_THROWS_WITH(read_safetensors_header(header_bytes("{\"x\": 1}").substr(0, 12), "c.safetensors", w),
                    Catch::Contains("byte 8: the header is 8 bytes but only 4 follow"));
  CHECK_THROWS_WITH(
      read_safetensors_header(header_bytes(R"({"t": {"dtype": "Q4_K", "shape": [2], "data_offsets": [0, 1]}})"), "d", w),
      Catch::Contains("tensor 't': dtype 'Q4_K' is none safetensors defines"));
  CHECK_THROWS_WITH(
      read_safetensors_header(header_bytes(R"({"t": {"dtype": "BF16", "shape": [4], "data_offsets": [0, 7]}})"), "e", w),
      Catch::Contains("tensor 't': data_offsets hold 7 bytes, but 4 BF16 elements are 8"));
  CHECK_THROWS_WITH(read_safetensors_header(
                        header_bytes(R"({"t": {"dtype": "U8", "shape": [1099511627776, 1099511627776], "data_offsets": [0, 1]}})"),
                        "f", w),
                    Catch::Contains("more than 2^50 elements"));
  CHECK_THROWS_WITH(read_safetensors_header(header_bytes("[1, 2]"), "g", w), Catch::Contains("not a JSON object"));
  CHECK_THROWS_WITH(read_safetensors_header(header_bytes(std::string(100, '[')), "h", w),
                    Catch::Contains("nested deeper than 64 levels"));
}
