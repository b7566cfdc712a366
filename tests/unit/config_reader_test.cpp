// The config.json reader's architecture rules, on small configs written out in the test.
#include <catch2/catch.hpp>

#include "kvplan/config_reader.hpp"
#include "kvplan/error.hpp"

using namespace kvplan;

namespace {

ModelSpec read(const std::string& json) { return read_hf_config_text(json, "t", "test.json"); }

const char* const kLlama =
    R"({"model_type": "llama", "num_hidden_layers": 2, "num_attention_heads": 4, "hidden_size": 256,
        "intermediate_size": 512, "vocab_size": 1000, "max_position_embeddings": 4096)";

}  // namespace

TEST_CASE("head_dim defaults to hidden / heads, but an explicit head_dim wins", "[config]") {
  const ModelSpec m = read(std::string(kLlama) + "}");
  CHECK(std::get<FullAttention>(m.layers[0].spec) == FullAttention{4, 64, {}});
  const ModelSpec explicit_dim = read(std::string(kLlama) + R"(, "head_dim": 128, "num_key_value_heads": 2})");
  CHECK(std::get<FullAttention>(explicit_dim.layers[0].spec) == FullAttention{2, 128, {}});
}

TEST_CASE("Llama parameter count, term by term", "[config][weights]") {
  // embed 1000*256 + lm_head 1000*256 + 2 layers * (attn 4*256*256 + mlp 3*256*512 + norms 2*256) + norm 256
  const ModelSpec m = read(std::string(kLlama) + "}");
  CHECK(m.params.embedding == 256'000);
  CHECK(m.params.lm_head == 256'000);
  CHECK(m.params.attention == 2 * 4 * 256 * 256);
  CHECK(m.params.mlp == 2 * 3 * 256 * 512);
  CHECK(m.params.norms == 2 * 2 * 256 + 256);
  const ModelSpec tied = read(std::string(kLlama) + R"(, "tie_word_embeddings": true})");
  CHECK(tied.params.lm_head == 0);
}

TEST_CASE("Qwen2's sliding window applies only with use_sliding_window, from max_window_layers on", "[config]") {
  const std::string base =
      R"({"model_type": "qwen2", "num_hidden_layers": 4, "num_attention_heads": 4, "num_key_value_heads": 4, "hidden_size": 256,
          "intermediate_size": 512, "vocab_size": 1000, "max_position_embeddings": 32768, "sliding_window": 4096,
          "max_window_layers": 2, "use_sliding_window": )";
  CHECK(read(base + "false}").layers.size() == 1);
  const ModelSpec on = read(base + "true}");
  REQUIRE(on.layers.size() == 2);
  CHECK(on.layers[0].count == 2);
  CHECK(std::holds_alternative<SlidingWindow>(on.layers[1].spec));
}

TEST_CASE("layer_types must match the layer count and name known kinds", "[config][errors]") {
  CHECK_THROWS_WITH(read(std::string(kLlama) + R"(, "layer_types": ["full_attention"]})"),
                    "test.json: /layer_types: has 1 entries but num_hidden_layers is 2");
  CHECK_THROWS_WITH(read(std::string(kLlama) + R"(, "layer_types": ["full_attention", 7]})"),
                    "test.json: /layer_types/1: kvplan cannot size layer type 7 yet");
}

TEST_CASE("bad geometry is refused with its JSON pointer", "[config][errors]") {
  CHECK_THROWS_WITH(read(std::string(kLlama) + R"(, "num_key_value_heads": 3})"),
                    "test.json: /num_key_value_heads: 3 does not divide num_attention_heads 4");
  CHECK_THROWS_WITH(read(R"({"model_type": "llama", "num_hidden_layers": 2, "num_attention_heads": 3,
                            "hidden_size": 256, "vocab_size": 10})"),
                    "test.json: /head_dim: is absent and hidden_size 256 is not a multiple of num_attention_heads 3");
  CHECK_THROWS_WITH(read(R"({"num_hidden_layers": 2})"),
                    "test.json: /model_type: is required to know how the layers are laid out");
  CHECK_THROWS_WITH(read("[1, 2]"), "test.json: /: expected a JSON object");
  CHECK_THROWS_WITH(read(R"({"model_type": "llama", "num_hidden_layers": 1e999})"),
                    "test.json: not valid JSON: number overflow parsing '1e999'");
}

TEST_CASE("hostile sizes cannot overflow the parameter count", "[config][errors]") {
  CHECK_THROWS_WITH(read(R"({"model_type": "llama", "num_hidden_layers": 10000, "num_attention_heads": 16384,
                            "num_key_value_heads": 16384, "hidden_size": 1048576, "head_dim": 1048576,
                            "intermediate_size": 1048576, "vocab_size": 16777216, "max_position_embeddings": 1})"),
                    "test.json: /num_hidden_layers: gives more than 2^50 parameters; this is not a real model");
}

TEST_CASE("Python's NaN and Infinity literals read as null, and error offsets stay in the original text",
          "[config][errors]") {
  // Nemotron-H's config.json carries "time_step_limit": [0.0, Infinity]; Python's json writes NaN too.
  const ModelSpec m = read(std::string(kLlama) + R"(, "a": NaN, "b": [0.0, Infinity], "c": -Infinity})");
  CHECK(m.layers.size() == 1);
  // "NaN" is one byte shorter than "null", yet the error names the 'x' where the user wrote it:
  // byte 12, 1-based, two bytes after the same 'x' in the NaN-free text (byte 10).
  CHECK_THROWS_WITH(read(R"({"a": NaN, x})"), Catch::StartsWith("test.json: not valid JSON (byte 12)"));
  CHECK_THROWS_WITH(read(R"({"a": 1, x})"), Catch::StartsWith("test.json: not valid JSON (byte 10)"));
  CHECK_THROWS_WITH(read("NaN"), Catch::Contains("test.json:"));
}

TEST_CASE("issue #9's bad input: one line with the JSON path, nothing guessed", "[config][errors]") {
  const std::string gemma3 =
      R"({"model_type": "gemma3_text", "num_hidden_layers": 6, "num_attention_heads": 8, "num_key_value_heads": 4,
          "head_dim": 256, "hidden_size": 2560, "intermediate_size": 10240, "vocab_size": 1000, "sliding_window": 1024)";
  CHECK_THROWS_WITH(read(gemma3 + R"(, "sliding_window_pattern": 0})"),
                    "test.json: /sliding_window_pattern: must be an integer in [1, 10000] (got 0)");
  CHECK_THROWS_WITH(read(R"({"model_type": "gemma3", "text_config": 7})"),
                    "test.json: /text_config: must be an object, not number");
  const std::string nas =
      R"({"model_type": "nemotron-nas", "num_hidden_layers": 2, "num_attention_heads": 8, "hidden_size": 256,
          "vocab_size": 100, "block_configs": )";
  CHECK_THROWS_WITH(read(nas + R"([{"attention": {}}, {"attention": {"n_heads_in_group": 2}}]})"),
                    "test.json: /block_configs/0/attention/n_heads_in_group: is required");
  CHECK_THROWS_WITH(read(nas + R"([{"attention": {"n_heads_in_group": 2}}]})"),
                    "test.json: /block_configs: has 1 entries but num_hidden_layers is 2");
  CHECK_THROWS_WITH(read(nas + R"([{"attention": {"n_heads_in_group": 3}}, {"attention": {"no_op": true}}]})"),
                    "test.json: /block_configs/0/attention/n_heads_in_group: 3 does not divide num_attention_heads 8");
  CHECK_THROWS_WITH(read(R"({"model_type": "nemotron_h", "num_attention_heads": 8, "hidden_size": 256, "vocab_size": 100,
                             "hybrid_override_pattern": "MX*"})"),
                    "test.json: /hybrid_override_pattern: letter 1 of 'X' is not M, *, - or E");
}
