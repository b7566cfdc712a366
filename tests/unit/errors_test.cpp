// Robustness: whatever bytes arrive as a config file, the reader either returns a model or
// throws kvplan::Error, never anything else (and, under ASan/UBSan, never reads out of bounds).
#include <catch2/catch.hpp>
#include <random>
#include <string>

#include "kvplan/catalog.hpp"
#include "kvplan/config_reader.hpp"
#include "kvplan/error.hpp"

using namespace kvplan;

namespace {

bool only_kvplan_errors(const std::string& text) {
  try {
    (void)read_hf_config_text(text, "fuzz", "fuzz.json");
  } catch (const Error&) {
  }
  return true;  // any other exception escapes and fails the test
}

}  // namespace

TEST_CASE("mutated real configs never crash the reader", "[errors][robustness]") {
  std::mt19937 rng(12345);
  const std::string alphabet = "{}[]\":,-0123456789.e truefalsnul";
  int cases = 0;
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
      CHECK(only_kvplan_errors(text));
      ++cases;
    }
  }
  CHECK(cases > 1000);
}

TEST_CASE("deep nesting and huge inputs are refused, not crashed on", "[errors][robustness]") {
  CHECK(only_kvplan_errors(std::string(100'000, '[') + std::string(100'000, ']')));
  CHECK_THROWS_WITH(read_hf_config_text(std::string(17 * 1024 * 1024, ' '), "x", "big.json"),
                    "big.json: 17825792 bytes is too large for a config file (limit 16 MiB)");
}
