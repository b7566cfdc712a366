// GGUF file names as uploaders write them, read for their model and llama.cpp file type when the
// file is not on this machine; and how far the estimate from the type's bits per weight lands from
// the real sizes of files whose sizes their publishers state.
#include <catch2/catch.hpp>

#include "kvplan/gguf.hpp"
#include "kvplan/model_source.hpp"

namespace {

std::string model_of(std::string_view file) {
  const auto t = kvplan::gguf_name_type(file);
  return t ? t->first : std::string("-");
}

std::string type_of(std::string_view file) {
  const auto t = kvplan::gguf_name_type(file);
  return t ? t->second.name : std::string("-");
}

}  // namespace

TEST_CASE("GGUF file names: the model and the file type", "[gguf][names]") {
  // unsloth/gemma-3-27b-it-GGUF, bartowski's names, TheBloke's dotted names, ggml-org/gpt-oss-20b-GGUF,
  // and a shard of unsloth/DeepSeek-R1-GGUF (DeepSeek-R1-UD-IQ1_S/DeepSeek-R1-UD-IQ1_S-00001-of-00003.gguf).
  CHECK(model_of("gemma-3-27b-it-Q4_K_M.gguf") == "gemma-3-27b-it");
  CHECK(type_of("gemma-3-27b-it-Q4_K_M.gguf") == "Q4_K_M");
  CHECK(type_of("Meta-Llama-3.1-8B-Instruct-IQ4_XS.gguf") == "IQ4_XS");
  CHECK(model_of("llama-2-7b.Q5_K_S.gguf") == "llama-2-7b");
  CHECK(type_of("llama-2-7b.Q5_K_S.gguf") == "Q5_K_S");
  CHECK(type_of("gpt-oss-20b-mxfp4.gguf") == "MXFP4");
  CHECK(type_of("Qwen3-8B-bf16.gguf") == "BF16");
  CHECK(type_of("Mistral-7B-Instruct-v0.3-Q4_K.gguf") == "Q4_K_M");  // llama-quantize's alias
  CHECK(model_of("/models/DeepSeek-R1-UD-IQ1_S-00001-of-00003.gguf") == "DeepSeek-R1");
  CHECK(type_of("/models/DeepSeek-R1-UD-IQ1_S-00001-of-00003.gguf") == "IQ1_S");
  CHECK(type_of("Qwen3-30B-A3B-UD-Q4_K_XL.gguf") == "Q4_K_M");  // Unsloth's XL mix, estimated as Q4_K_M
  CHECK(type_of("DeepSeek-R1-UD-Q2_K_XL-00001-of-00005.gguf") == "Q2_K");
  CHECK_FALSE(kvplan::gguf_name_type("model.gguf"));
  CHECK_FALSE(kvplan::gguf_name_type("ggml-vocab-llama-spm.gguf"));
  // Bits per weight: Q8_0's 7.96 GiB for Llama-3-8B's 8,030,261,248 parameters is 8.515 (ggml's
  // block_q8_0 is 34 bytes per 32 weights, 8.5); Q4_K_M's 4.58 GiB is 4.899.
  CHECK(kvplan::gguf_name_type("x-Q8_0.gguf")->second.millibits == 8515);
  CHECK(kvplan::gguf_name_type("x-Q4_K_M.gguf")->second.millibits == 4899);
  CHECK(kvplan::gguf_name_type("x-IQ2_XXS.gguf")->second.millibits == 2060);
}

TEST_CASE("GGUF file names: estimated weights against the sizes Unsloth states", "[gguf][names]") {
  // unsloth.ai/blog/deepseekr1-dynamic (Jan 27, 2025): DeepSeek-R1's dynamic quants are 131 GB (IQ1_S),
  // 158 GB (IQ1_M), 183 GB (IQ2_XXS) and 212 GB (Q2_K_XL). Their MoE layers take the named type and
  // the rest stays at 4 to 6 bits, so the estimate from the type alone is closest where the MoE
  // layers' type is the file's average, and furthest for Q2_K_XL, whose experts are below Q2_K.
  auto estimate = [](const char* file) {
    return static_cast<double>(kvplan::load_preset(file).spec->params.stated_bytes);
  };
  CHECK(estimate("DeepSeek-R1-UD-IQ1_S-00001-of-00003.gguf") / 131e9 == Approx(1.0).margin(0.01));
  CHECK(estimate("DeepSeek-R1-UD-IQ1_M-00001-of-00004.gguf") / 158e9 == Approx(0.93).margin(0.01));
  CHECK(estimate("DeepSeek-R1-UD-IQ2_XXS-00001-of-00004.gguf") / 183e9 == Approx(0.94).margin(0.01));
  CHECK(estimate("DeepSeek-R1-UD-Q2_K_XL-00001-of-00005.gguf") / 212e9 == Approx(1.25).margin(0.01));
  const kvplan::ModelChoice c = kvplan::load_preset("DeepSeek-R1-UD-IQ1_S-00001-of-00003.gguf");
  CHECK(c.spec->weights_estimated);
  CHECK(c.spec->weights_source.find("estimated from the file name's IQ1_S: 1.560 bits per weight") == 0);
}
