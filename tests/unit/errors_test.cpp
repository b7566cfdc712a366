// Robustness: whatever bytes arrive as a config file, the reader returns a model that holds
// together, or throws kvplan::Error with one line that names the file. Each mutated case asserts
// that outcome (issue #14: a helper that always returned true asserted nothing).
#include <catch2/catch.hpp>
#include <random>
#include <string>
#include <vector>

#include "kvplan/catalog.hpp"
#include "kvplan/config_reader.hpp"
#include "kvplan/error.hpp"

using namespace kvplan;

namespace {

struct Outcome {
  bool model = false;
  std::string error;  // the message, when the reader refused
};

// Any exception other than kvplan::Error escapes and fails the test case.
Outcome read(const std::string& text) {
  try {
    const ModelSpec m = read_hf_config_text(text, "fuzz", "fuzz.json");
    // A model that holds together: every cache in exactly one group, the groups' counts summing
    // to the caches, every decoder layer holding one or two of them (DeepSeek-V3.2: MLA and the
    // indexer; Whisper: self- and cross-attention), and parameters to weigh.
    // (max_position_embeddings may be 0: a config without it asks for --max-model-len.)
    std::uint64_t caches = 0;
    for (const LayerGroup& g : m.layers) {
      caches += g.count;
    }
    CHECK(m.num_hidden_layers >= 1);
    CHECK(caches == m.layer_group.size());
    CHECK(m.layer_decoder.size() == m.layer_group.size());
    std::vector<int> per_decoder(m.num_hidden_layers, 0);
    for (std::size_t i = 0; i < m.layer_group.size(); ++i) {
      CHECK(m.layer_group[i] < m.layers.size());
      REQUIRE(m.layer_decoder[i] < m.num_hidden_layers);
      ++per_decoder[m.layer_decoder[i]];
    }
    for (const int n : per_decoder) {
      CHECK((n == 1 || n == 2));
    }
    CHECK(m.vocab_size >= 1);
    CHECK(m.params.total() > 0);
    return {true, {}};
  } catch (const Error& e) {
    return {false, e.what()};
  }
}

void check_refusal(const Outcome& o) {
  INFO(o.error);
  CHECK(o.error.rfind("fuzz.json", 0) == 0);           // names the file first
  CHECK(o.error.find('\n') == std::string::npos);      // one line
  CHECK(o.error.find('\r') == std::string::npos);
  CHECK(o.error.size() <= 2'000);                      // never a dumped value
}

}  // namespace

TEST_CASE("mutated real configs: a model that holds together, or one line naming the file", "[errors][robustness]") {
  std::mt19937 rng(12345);
  const std::string alphabet = "{}[]\":,-0123456789.e truefalsnul\n\t\\";
  int models = 0;
  int refusals = 0;
  for (const Preset& p : presets()) {
    for (int i = 0; i < 40; ++i) {
      std::string text = p.config_json;
      const int edits = 1 + static_cast<int>(rng() % 4);
      for (int e = 0; e < edits; ++e) {
        const std::size_t at = rng() % text.size();
        switch (rng() % 3) {
          case 0:
            text[at] = alphabet[rng() % alphabet.size()];
            break;
          case 1:
            text.erase(at, 1 + rng() % 8);
            break;
          default:
            text.insert(at, 1, alphabet[rng() % alphabet.size()]);
        }
      }
      const Outcome o = read(text);
      if (o.model) {
        ++models;
      } else {
        check_refusal(o);
        ++refusals;
      }
    }
  }
  // Both outcomes occur: a mutation in a value the reader ignores still gives a model, and most
  // break the JSON or a field it reads.
  CHECK(models > 100);
  CHECK(refusals > 500);
}

TEST_CASE("deeply nested JSON in a config is refused before parsing", "[errors][robustness][hostile]") {
  const std::string deep = std::string(100'000, '[') + std::string(100'000, ']');
  // At the top level, in a field the reader reads, and in a layer_types entry (issue #14: each of
  // these overflowed the stack when the value was dumped into the message).
  for (const std::string& text :
       {deep, "{\"num_hidden_layers\": " + deep + "}",
        "{\"model_type\": \"llama\", \"num_hidden_layers\": 2, \"layer_types\": [" + deep + "]}"}) {
    const Outcome o = read(text);
    CHECK_FALSE(o.model);
    check_refusal(o);
    CHECK(o.error == "fuzz.json: JSON nested deeper than 64 levels; a config.json is a few levels deep");
  }
  // 64 levels is within the bound: the reader gets to say what is wrong with the value.
  const Outcome shallow = read("{\"num_hidden_layers\": " + std::string(63, '[') + std::string(63, ']') + "}");
  CHECK_FALSE(shallow.model);
  check_refusal(shallow);
  CHECK(shallow.error.find("nested deeper") == std::string::npos);
}

TEST_CASE("a JSON value in a message is quoted by its size, never dumped", "[errors][robustness][hostile]") {
  const std::string big(100'000, 'x');
  const Outcome o = read("{\"model_type\": \"llama\", \"num_hidden_layers\": \"" + big + "\"}");
  check_refusal(o);
  CHECK(o.error.find("(100,000 characters)") != std::string::npos);
  const Outcome arr = read("{\"model_type\": \"llama\", \"num_hidden_layers\": [" + std::string(5000, '1') + "]}");
  check_refusal(arr);
}

TEST_CASE("a config over 16 MiB is refused by its size", "[errors][robustness]") {
  CHECK_THROWS_WITH(read_hf_config_text(std::string(17 * 1024 * 1024, ' '), "x", "big.json"),
                    "big.json: 17825792 bytes is too large for a config file (limit 16 MiB)");
}
