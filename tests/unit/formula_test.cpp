// Formula tests as tables of published facts: each row can be checked against a config.json,
// an engine's log or a paper.
#include <catch2/catch.hpp>

#include "kvplan/catalog.hpp"
#include "kvplan/dtype.hpp"
#include "kvplan/formula.hpp"
#include "kvplan/units.hpp"

using namespace kvplan;

namespace {

const DType& kv(const char* name) { return *find_dtype(kv_dtypes(), name); }

Deployment shape(std::uint64_t seq_len, const char* dtype = "bf16", std::uint32_t tp = 1, std::uint64_t block = 1) {
  Deployment d;
  d.seq_len = seq_len;
  d.kv_dtype = kv(dtype);
  d.tensor_parallel = tp;
  d.block_size = block;
  return d;
}

}  // namespace

TEST_CASE("bytes per token match published figures", "[formula]") {
  struct Row {
    const char* model;
    std::uint64_t bytes_per_token;  // bf16, one sequence, tp 1
  };
  const Row rows[] = {
      {"llama-3.1-8b", 131'072},   // 32 layers * 2 * 8 KV heads * 128 * 2 B (design.md, engines.md 4.1)
      {"llama-3-70b", 327'680},    // 80 * 2 * 8 * 128 * 2 (the brief)
      {"deepseek-v3", 70'272},     // 61 * (512 + 64) * 2 (vLLM MLAAttentionSpec)
      {"falcon-7b", 8'192},        // MQA: 32 * 2 * 1 * 64 * 2 (multi_query = true)
      {"qwen3-30b-a3b", 98'304},   // explicit head_dim 128, not 2048 / 32 = 64
      {"gpt-oss-20b", 49'152},     // explicit head_dim 64, not 2880 / 64 = 45
  };
  for (const Row& row : rows) {
    DYNAMIC_SECTION(row.model) {
      CHECK(model_kv_bytes_per_token(find_preset(row.model).spec, kv("bf16")) == row.bytes_per_token);
    }
  }
}

TEST_CASE("Llama-3-70B needs 40 GiB of fp16 KV at 128K, its MHA twin 20 GiB at 8K", "[formula]") {
  const ModelSpec& m = find_preset("llama-3-70b").spec;
  CHECK(kv_bytes_per_sequence(m, shape(131'072, "fp16")) == 40 * kGiB);
  CHECK(kv_bytes_per_sequence(with_kv_heads(m, 64), shape(8192, "fp16")) == 20 * kGiB);
}

TEST_CASE("llama.cpp's quantized cache sizes", "[formula][dtype]") {
  // engines.md 4.1: Llama-3-8B, 1024-wide K and V per layer: f16 131,072 B/token, q8_0 69,632, q4_0 36,864.
  const ModelSpec& m = find_preset("llama-3-8b").spec;
  CHECK(model_kv_bytes_per_token(m, kv("fp16")) == 131'072);
  CHECK(model_kv_bytes_per_token(m, kv("q8_0")) == 69'632);
  CHECK(model_kv_bytes_per_token(m, kv("q4_0")) == 36'864);
  // Calibration llamacpp-llama31-8b-f16-16k-vulkan: 16,384 cells of f16 = 2048.00 MiB.
  CHECK(kv_bytes_per_sequence(find_preset("llama-3.1-8b").spec, shape(16'384, "fp16")) == 2048 * kMiB);
  // Calibration llamacpp-issue11200-qwen25-coder-32b-q8_0-32k: 32,768 cells of q8_0 = 4352.00 MiB.
  CHECK(kv_bytes_per_sequence(find_preset("qwen2.5-32b").spec, shape(32'768, "q8_0")) == 4352 * kMiB);
}

TEST_CASE("vLLM's FP8 cache holds twice the tokens of bf16", "[formula][dtype]") {
  // Calibration vllm-0.19.0-llmd-llama31-8b-kvfp8: same 58.11 GiB, 952,032 tokens vs 476,016.
  const ModelSpec& m = find_preset("llama-3.1-8b").spec;
  CHECK(2 * model_kv_bytes_per_token(m, kv("fp8")) == model_kv_bytes_per_token(m, kv("bf16")));
}

TEST_CASE("KV heads split across TP ranks until tp > n_kv, then replicate", "[formula][tp]") {
  const FullAttention gqa{8, 128, {}};
  CHECK(kv_heads_per_rank(8, 1) == 8);
  CHECK(kv_heads_per_rank(8, 4) == 2);
  CHECK(kv_heads_per_rank(8, 8) == 1);
  CHECK(kv_heads_per_rank(8, 16) == 1);  // replicated (vLLM get_num_kv_heads)
  CHECK(bytes_per_token(gqa, kv("bf16"), 2) == 2 * 4 * 128 * 2);
  const LatentAttention mla{512, 64};
  CHECK(bytes_per_token(mla, kv("bf16"), 8) == bytes_per_token(mla, kv("bf16"), 1));  // never split
}

TEST_CASE("sliding windows hold min(S, W) tokens", "[formula][swa]") {
  const SlidingWindow swa{{8, 128, {}}, 4096};
  CHECK(tokens_held(swa, 1000) == 1000);
  CHECK(tokens_held(swa, 100'000) == 4096);
  // Mistral-7B-v0.1: every layer slides at 4,096, so 32K costs what 4K does.
  const ModelSpec& m = find_preset("mistral-7b-v0.1").spec;
  CHECK(kv_bytes_per_sequence(m, shape(32'768)) == kv_bytes_per_sequence(m, shape(4096)));
  CHECK(kv_bytes_per_sequence(m, shape(4096)) == 131'072ULL * 4096);
}

TEST_CASE("Gemma-3-27B: 52 local layers stop at 1,024 tokens, 10 global layers grow", "[formula][swa]") {
  const ModelSpec& m = find_preset("gemma-3-27b").spec;
  const std::uint64_t per_layer_token = 2 * 16 * 128 * 2;  // 16 KV heads, head_dim 128 (config.json)
  CHECK(kv_bytes_per_sequence(m, shape(131'072)) == per_layer_token * (52 * 1024 + 10 * 131'072ULL));
}

TEST_CASE("Qwen3-Next: 12 attention layers grow, 36 Gated DeltaNet layers hold 2,146,304 B each", "[formula][recurrent]") {
  // engines.md 1.1: conv 3 x 8192 x 2 B + ssm 32 x 128 x 128 x 4 B per layer per sequence at TP 1.
  const ModelSpec& m = find_preset("qwen3-next-80b-a3b").spec;
  CHECK(model_fixed_bytes_per_sequence(m, *find_dtype(kv_dtypes(), "bf16")) == 36ULL * 2'146'304);
  CHECK(model_kv_bytes_per_token(m, kv("bf16")) == 24'576);  // 12 * 2 * 2 * 256 * 2
  CHECK(kv_bytes_per_sequence(m, shape(1)) == 36ULL * 2'146'304 + 24'576);
}

TEST_CASE("paged allocation rounds each layer group up to whole blocks", "[formula][paging]") {
  const ModelSpec& m = find_preset("llama-3.1-8b").spec;
  CHECK(kv_bytes_per_sequence(m, shape(17, "bf16", 1, 16)) == 131'072ULL * 32);
  CHECK(kv_bytes_per_sequence(m, shape(16, "bf16", 1, 16)) == 131'072ULL * 16);
  CHECK(kv_bytes_per_sequence(m, shape(17, "bf16", 1, 1)) == 131'072ULL * 17);
}

TEST_CASE("quantized rows carry their scales", "[dtype]") {
  CHECK(row_bytes(kv("q8_0"), 128) == 4 * 34);
  CHECK(row_bytes(kv("q4_0"), 128) == 4 * 18);
  CHECK(row_bytes(kv("int8"), 128) == 128 + 4);     // fp32 scale per token and head
  CHECK(row_bytes(kv("int4"), 128) == 2 * 36);      // 64-element groups, fp16 scale + zero
  CHECK(tensor_bytes(*find_dtype(weight_dtypes(), "mxfp4"), 64) == 34);
  CHECK(tensor_bytes(*find_dtype(weight_dtypes(), "int4"), 128) == 66);
}

TEST_CASE("weights split across TP ranks", "[formula][weights]") {
  const ModelSpec& m = find_preset("llama-3.1-8b").spec;
  const DType& bf16 = *find_dtype(weight_dtypes(), "bf16");
  const DType& fp8 = *find_dtype(weight_dtypes(), "fp8");
  const WeightFormat sixteen{bf16, bf16, bf16, {}};
  CHECK(weight_bytes_per_gpu(m.params, sixteen, 1) == 2 * 8'030'261'248ULL);
  CHECK(weight_bytes_per_gpu(m.params, sixteen, 2) == 8'030'261'248ULL);
  // vLLM 0.19 logs "Model loading took 14.99 GiB" for this model (calibration llama31-8b-tp1).
  CHECK(static_cast<double>(weight_bytes_per_gpu(m.params, sixteen, 1)) / kGiB == Approx(14.96).margin(0.05));
  // FP8 checkpoints keep embeddings and lm_head in bf16: RedHatAI/Llama-3.3-70B-Instruct-fp8-dynamic at TP 2
  // loads 33.88 GiB per GPU (calibration vllm-0.19.0-llmd-llama33-70b-fp8dyn-tp2).
  const ModelSpec& llama70 = find_preset("llama-3.3-70b").spec;
  CHECK(static_cast<double>(weight_bytes_per_gpu(llama70.params, WeightFormat{bf16, fp8, fp8, {}}, 2)) / kGiB ==
        Approx(33.88).margin(0.1));
}

TEST_CASE("saturating arithmetic never wraps", "[units]") {
  CHECK(sat_mul(kSaturated, 2) == kSaturated);
  CHECK(sat_add(kSaturated - 1, 5) == kSaturated);
  CHECK(sat_sub(3, 5) == 0);
  CHECK(ceil_div(10, 3) == 4);
  CHECK(ceil_div(kSaturated, 3) == kSaturated);
  CHECK(round_up(17, 16) == 32);
  const ModelSpec& m = find_preset("llama-3.1-405b").spec;
  Deployment huge = shape(std::uint64_t{1} << 40);
  huge.batch = kSaturated / 2;
  CHECK(kv_cache_bytes_per_gpu(m, huge) == kSaturated);
}

TEST_CASE("a stated checkpoint size (--weights) is shared in proportion to parameters", "[formula][weights]") {
  // 70,553,706,496 parameters (kvplan's count for Llama-3.1-70B: 'kvplan models show llama-3.1-70b') stated
  // as 141,107,412,992 B (2 B each): tp 4 holds a quarter; a stage with half the parameters, half.
  ParamCounts whole;
  whole.attention = 70'553'706'496;  // all in one component: only the total matters here
  whole.stated_bytes = 141'107'412'992;
  whole.stated_params = whole.total();
  const DType& fp8 = *find_dtype(weight_dtypes(), "fp8");
  const WeightFormat any{fp8, fp8, fp8, {}};  // ignored: the stated size wins
  CHECK(weight_bytes_per_gpu(whole, any, 1) == 141'107'412'992);
  CHECK(weight_bytes_per_gpu(whole, any, 4) == 35'276'853'248);
  ParamCounts half = whole;
  half.attention = whole.attention / 2;
  CHECK(weight_bytes_per_gpu(half, any, 1) == 70'553'706'496);
}
