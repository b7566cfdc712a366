// libFuzzer target: the number grammar (docs/cli.md). The first byte picks the parser, the rest
// is the text; every parser either returns a value in its documented range or throws Error.
#include "fuzz_support.hpp"
#include "kvplan/quantity.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) {
    return 0;
  }
  const std::string_view text = kvplan::fuzz::bytes(data + 1, size - 1);
  kvplan::fuzz::only_kvplan_errors([&] {
    switch (data[0] % 6) {
      case 0: {
        const auto s = kvplan::parse_size("--vram", text);
        if (s.bytes == 0 || s.bytes > (1ULL << 50)) {
          kvplan::fuzz::finding("parse_size out of range", text);
        }
        break;
      }
      case 1: {
        const auto t = kvplan::parse_tokens("--seq-len", text);
        if (t == 0 || t > (1ULL << 40)) {
          kvplan::fuzz::finding("parse_tokens out of range", text);
        }
        break;
      }
      case 2: {
        const auto c = kvplan::parse_count("--tp", text, 1024);
        if (c == 0 || c > 1024) {
          kvplan::fuzz::finding("parse_count out of range", text);
        }
        break;
      }
      case 3: {
        const auto f = kvplan::parse_fraction_ppm("--utilization", text);
        if (f == 0 || f > 1'000'000) {
          kvplan::fuzz::finding("parse_fraction_ppm out of range", text);
        }
        break;
      }
      case 4:
        (void)kvplan::to_decimal(text);
        (void)kvplan::to_unsigned(text);
        break;
      default:
        // Printing never fails, whatever the value.
        (void)kvplan::format_bytes(kvplan::to_unsigned(text).value_or(size));
        (void)kvplan::with_commas(kvplan::to_unsigned(text).value_or(size));
        break;
    }
  });
  return 0;
}
