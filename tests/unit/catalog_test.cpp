// Every preset loads, matches the independent derivation in ../shared/reference/models.json
// (its "expect" block), and its computed parameter count matches an exact published count.
#include <catch2/catch.hpp>

#include "kvplan/catalog.hpp"
#include "kvplan/dtype.hpp"
#include "kvplan/error.hpp"
#include "kvplan/formula.hpp"

using namespace kvplan;

TEST_CASE("every preset loads and matches its source's KV bytes per token", "[catalog]") {
  const DType& bf16 = *find_dtype(kv_dtypes(), "bf16");
  REQUIRE(presets().size() >= 42);
  for (const Preset& p : presets()) {
    DYNAMIC_SECTION(p.name) {
      REQUIRE(p.expect_kv_bytes_per_token_bf16.has_value());
      CHECK(model_kv_bytes_per_token(p.spec, bf16) == *p.expect_kv_bytes_per_token_bf16);
      CHECK(p.spec.max_position_embeddings > 0);
      CHECK(!p.config_source.empty());
    }
  }
}

TEST_CASE("computed parameter counts equal exact published counts", "[catalog][weights]") {
  int checked = 0;
  for (const Preset& p : presets()) {
    if (!p.params_exact) {
      continue;
    }
    DYNAMIC_SECTION(p.name) {
      INFO(p.params_exact_source);
      CHECK(p.spec.params.total() == *p.params_exact);
    }
    ++checked;
  }
  CHECK(checked >= 10);
}

TEST_CASE("names, aliases and Hugging Face ids resolve case-insensitively", "[catalog]") {
  CHECK(find_preset("llama3-70b").name == "llama-3-70b");
  CHECK(find_preset("LLAMA-3-70B").name == "llama-3-70b");
  CHECK(find_preset("meta-llama/Meta-Llama-3-70B-Instruct").name == "llama-3-70b");
  CHECK(find_preset("meta-llama/Llama-3.1-70B-Instruct").name == "llama-3.1-70b");
  CHECK(find_preset("llama3.1-8b").name == "llama-3.1-8b");
  CHECK(find_preset("qwen2.5-72b").name == "qwen2.5-72b");
  CHECK(find_preset("Qwen/Qwen2.5-7B-Instruct").name == "qwen2.5-7b");
  CHECK(find_preset("deepseek-v3").name == "deepseek-v3");
  CHECK(find_preset("google/gemma-3-27b-it").name == "gemma-3-27b");
  CHECK(find_preset("mistralai/Mistral-7B-Instruct-v0.3").name == "mistral-7b-v0.3");
  CHECK(find_preset("Qwen/Qwen3-Next-80B-A3B-Instruct").name == "qwen3-next-80b-a3b");
}

TEST_CASE("an unknown model gets a suggestion", "[catalog][errors]") {
  CHECK_THROWS_WITH(find_preset("lama-3.1-8b"),
                    "unknown model 'lama-3.1-8b', did you mean 'llama-3.1-8b'? (see 'kvplan models', or give --config PATH)");
  CHECK_THROWS_WITH(find_preset("zzzz"), "unknown model 'zzzz' (see 'kvplan models', or give --config PATH)");
}

TEST_CASE("'did you mean' looks within the family first", "[catalog][errors]") {
  // Issue #9: "mistral-7b" means the Mistral-7B presets, not Mixtral.
  CHECK_THROWS_WITH(find_preset("mistral-7b"), "unknown model 'mistral-7b', did you mean 'mistral-7b-v0.1' or "
                                               "'mistral-7b-v0.3'? (see 'kvplan models', or give --config PATH)");
  CHECK_THROWS_WITH(find_preset("qwen3.5-28b"), Catch::Contains("did you mean 'qwen3.5-27b'?"));
}

TEST_CASE("quantized re-uploads resolve to their base preset with the weight format their name states",
          "[catalog]") {
  // Real Hugging Face ids of quantized checkpoints: Qwen's own AWQ and GPTQ releases, RedHatAI's
  // compressed-tensors uploads, NVIDIA's ModelOpt NVFP4 and FP8 releases, unsloth's bitsandbytes.
  struct Case {
    const char* name;
    const char* preset;
    const char* dtype;
  };
  const Case cases[] = {
      {"Qwen/Qwen3-32B-AWQ", "qwen3-32b", "int4"},
      {"Qwen/Qwen2.5-7B-Instruct-GPTQ-Int4", "qwen2.5-7b", "int4"},
      {"Qwen/Qwen2.5-72B-Instruct-GPTQ-Int8", "qwen2.5-72b", "int8"},
      {"Qwen/Qwen3-30B-A3B-FP8", "qwen3-30b-a3b", "fp8"},
      {"RedHatAI/Llama-4-Scout-17B-16E-Instruct-FP8-dynamic", "llama-4-scout", "fp8"},
      {"RedHatAI/Meta-Llama-3.1-8B-Instruct-quantized.w4a16", "llama-3.1-8b", "int4"},
      {"RedHatAI/Llama-3.3-70B-Instruct-quantized.w8a8", "llama-3.3-70b", "int8"},
      {"nvidia/DeepSeek-V3-0324-NVFP4", "deepseek-v3", "nvfp4"},
      {"nvidia/Llama-3.1-70B-Instruct-FP8", "llama-3.1-70b", "fp8"},
      {"unsloth/Qwen3-14B-unsloth-bnb-4bit", "qwen3-14b", "nf4"},
      {"bartowski/Qwen3-32B-GGUF", "qwen3-32b", ""},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    const std::optional<PresetMatch> m = resolve_preset(c.name);
    REQUIRE(m.has_value());
    CHECK(m->preset->name == c.preset);
    CHECK(m->weight_dtype == c.dtype);
  }
  // A name that is a preset is never read as a suffix: no quantization.
  REQUIRE(resolve_preset("qwen3-30b-a3b-instruct-2507"));
  CHECK(resolve_preset("qwen3-30b-a3b-instruct-2507")->weight_dtype.empty());
  CHECK(!resolve_preset("Qwen/Qwen9-1B-AWQ"));
}

TEST_CASE("an exact Hugging Face id wins over the folded key", "[catalog]") {
  // Qwen3-30B-A3B and its 2507 Instruct release differ (max_position_embeddings 40,960 vs 262,144).
  CHECK(find_preset("Qwen/Qwen3-30B-A3B-Instruct-2507").name == "qwen3-30b-a3b-instruct-2507");
  CHECK(find_preset("Qwen/Qwen3-30B-A3B-Instruct-2507").spec.max_position_embeddings == 262'144);
  CHECK(find_preset("Qwen/Qwen3-30B-A3B").spec.max_position_embeddings == 40'960);
  CHECK(find_preset("allenai/Olmo-3.1-32B-Instruct").name == "olmo-3.1-32b-instruct");
}

TEST_CASE("the catalog's traps are read the way the engines read them", "[catalog]") {
  // Qwen2.5 ships sliding_window with use_sliding_window = false: inert, every layer full.
  const ModelSpec& qwen = find_preset("qwen2.5-7b").spec;
  REQUIRE(qwen.layers.size() == 1);
  CHECK(std::holds_alternative<FullAttention>(qwen.layers[0].spec));
  // Gemma-2: alternating, layer 0 sliding (transformers Gemma2Config).
  const ModelSpec& gemma2 = find_preset("gemma-2-9b").spec;
  REQUIRE(gemma2.layers.size() == 2);
  CHECK(std::holds_alternative<SlidingWindow>(gemma2.layers[0].spec));
  CHECK(gemma2.layers[0].count == 21);
  // DeepSeek-V3 ships fp8 weights; gpt-oss ships mxfp4 experts.
  CHECK(find_preset("deepseek-v3").spec.checkpoint_weight_dtype == "fp8");
  CHECK(find_preset("gpt-oss-120b").spec.expert_weight_dtype == "mxfp4");
  // Gemma-2-9b's base config says float32; engines load it in bf16.
  CHECK(gemma2.torch_dtype == "bf16");
}

TEST_CASE("Gemma-3 multimodal counts match KerasHub's, whose vocabulary is 64 entries shorter", "[catalog][weights]") {
  // KerasHub @ 71453d08 gemma3_presets.py (vision + text): 4,299,915,632 / 12,187,079,280 / 27,432,062,576,
  // with vocab 262,144 where config.json says 262,208 (reference models.json cross-check with litgpt).
  struct Row {
    const char* model;
    std::uint64_t keras;
    std::uint64_t hidden;
  };
  const Row rows[] = {{"gemma-3-4b", 4'299'915'632, 2560}, {"gemma-3-12b", 12'187'079'280, 3840},
                      {"gemma-3-27b", 27'432'062'576, 5376}};
  for (const Row& r : rows) {
    DYNAMIC_SECTION(r.model) {
      const ModelSpec& m = find_preset(r.model).spec;
      CHECK(m.params.total() == r.keras + (262'208 - 262'144) * r.hidden);
      CHECK(m.params.vision > 400'000'000);  // SigLIP-400M tower plus projector
    }
  }
}

TEST_CASE("the build-time name index holds each preset's name, Hugging Face id and aliases", "[catalog]") {
  for (const kvplan::EmbeddedFile& f : kvplan::embedded_model_files()) {
    const kvplan::Preset p = kvplan::parse_preset(f.text, f.path);
    INFO(f.path);
    std::vector<std::string> expected{p.name, p.hf_id};
    expected.insert(expected.end(), p.aliases.begin(), p.aliases.end());
    REQUIRE(f.names.size() == expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) {
      CHECK(f.names[i] == expected[i]);
    }
  }
}
