// Sizes, token counts, counts and fractions: a dense table in ccache's parse_size style.
#include <catch2/catch.hpp>

#include "kvplan/error.hpp"
#include "kvplan/quantity.hpp"

using namespace kvplan;

TEST_CASE("sizes distinguish GB from GiB", "[quantity]") {
  CHECK(parse_size("--vram", "80GB").bytes == 80'000'000'000);
  CHECK(parse_size("--vram", "80GB").decimal);
  CHECK(parse_size("--vram", "80GiB").bytes == 80ULL << 30);
  CHECK_FALSE(parse_size("--vram", "80GiB").decimal);
  CHECK(parse_size("--vram", "81920MiB").bytes == 80ULL << 30);
  CHECK(parse_size("--vram", "0.5TB").bytes == 500'000'000'000);
  CHECK(parse_size("--vram", "80 GB").bytes == 80'000'000'000);
  CHECK(parse_size("--vram", "1.5gib").bytes == 3ULL << 29);
  CHECK(parse_size("--vram", "512B").bytes == 512);
}

TEST_CASE("malformed sizes are refused with the option's name", "[quantity][errors]") {
  CHECK_THROWS_WITH(parse_size("--vram", "80G B"),
                    "--vram: invalid size '80G B' (expected e.g. 80GB, 80GiB, 81920MiB, 0.5TB)");
  CHECK_THROWS_WITH(parse_size("--vram", "-1GB"), "--vram: size must be positive (got '-1GB')");
  CHECK_THROWS_WITH(parse_size("--vram", "1e400GB"),
                    "--vram: invalid size '1e400GB' (expected e.g. 80GB, 80GiB, 81920MiB, 0.5TB)");
  CHECK_THROWS_WITH(parse_size("--vram", "80G"),
                    "--vram: size '80G' is ambiguous; did you mean '80GB' (decimal) or '80GiB' (binary)?");
  CHECK_THROWS_WITH(parse_size("--vram", "80"),
                    "--vram: size '80' has no unit; did you mean '80GB' (10^9 B) or '80GiB' (2^30 B)?");
  CHECK_THROWS_WITH(parse_size("--vram", "0GB"), "--vram: size must be at least 1 byte (got '0GB')");
  CHECK_THROWS_WITH(parse_size("--vram", "99999999999999999999GB"),
                    "--vram: invalid size '99999999999999999999GB' (the number is 2^64 or more) (expected e.g. 80GB, 80GiB, "
                    "81920MiB, 0.5TB)");
  CHECK_THROWS_WITH(parse_size("--vram", "2000TB"), "--vram: size '2000TB' is more than 1 PiB, too large for one GPU (range: 1 B to 1 PiB)");
  CHECK_THROWS_AS(parse_size("--vram", ""), Error);
  CHECK_THROWS_AS(parse_size("--vram", "80GBs"), Error);
}

TEST_CASE("token counts accept k and M as powers of two", "[quantity]") {
  CHECK(parse_tokens("--seq-len", "8192") == 8192);
  CHECK(parse_tokens("--seq-len", "8k") == 8192);
  CHECK(parse_tokens("--seq-len", "128K") == 131'072);
  CHECK(parse_tokens("--seq-len", "1M") == 1'048'576);
  CHECK_THROWS_WITH(parse_tokens("--seq-len", "0"), "--seq-len: must be at least 1 token (got '0')");
  CHECK_THROWS_WITH(parse_tokens("--seq-len", "-5"),
                    "--seq-len: expected a whole number of tokens such as 8192, 8k or 128K (got '-5')");
  CHECK(parse_tokens("--seq-len", "1.5k") == 1536);
  CHECK(parse_tokens("--seq-len", "0.5M") == 524'288);
  CHECK_THROWS_WITH(parse_tokens("--seq-len", "1.1k"), "--seq-len: '1.1k' is not a whole number of tokens");
  CHECK_THROWS_WITH(parse_tokens("--seq-len", "8.5"), "--seq-len: '8.5' is not a whole number of tokens");
  CHECK_THROWS_WITH(parse_tokens("--seq-len", "2000000M"), "--seq-len: '2000000M' tokens is beyond any model's context (range: 1 to 2^40)");
}

TEST_CASE("counts and fractions", "[quantity]") {
  CHECK(parse_count("--tp", "8", 1024) == 8);
  CHECK_THROWS_WITH(parse_count("--tp", "0", 1024), "--tp: must be at least 1 (got '0'; range: 1 to 1024)");
  CHECK_THROWS_WITH(parse_count("--tp", "two", 1024), "--tp: expected a positive whole number (got 'two')");
  CHECK_THROWS_WITH(parse_count("--tp", "4096", 1024), "--tp: '4096' is too large (range: 1 to 1024)");
  CHECK(parse_fraction_ppm("--utilization", "0.9") == 900'000);
  CHECK(parse_fraction_ppm("--utilization", "92%") == 920'000);
  CHECK(parse_fraction_ppm("--utilization", "1") == 1'000'000);
  CHECK_THROWS_WITH(parse_fraction_ppm("--utilization", "1.5"), "--utilization: '1.5' is more than 1 (range: 0.000001 to 1)");
  CHECK_THROWS_WITH(parse_fraction_ppm("--utilization", "0"), "--utilization: must be more than 0 (got '0'; range: 0.000001 to 1)");
  CHECK_THROWS_WITH(parse_fraction_ppm("--utilization", "high"),
                    "--utilization: expected a fraction such as 0.9 or 90% (got 'high')");
}

TEST_CASE("human sizes use binary prefixes", "[quantity]") {
  CHECK(format_bytes(512) == "512 B");
  CHECK(format_bytes(327'680) == "320 KiB");
  CHECK(format_bytes(85'029'158'912) == "79.19 GiB");
  CHECK(format_bytes(40 * (1ULL << 30)) == "40 GiB");
  CHECK(with_commas(131'072) == "131,072");
  CHECK(with_commas(7) == "7");
  CHECK(format_tokens_short(131'072) == "128K");
}

TEST_CASE("decimal and unsigned text, whole strings only", "[quantity]") {
  CHECK(to_decimal("0.07") == Approx(0.07));
  CHECK(to_decimal("-2.5") == Approx(-2.5));
  CHECK_FALSE(to_decimal("0.07x").has_value());
  CHECK_FALSE(to_decimal("1e999").has_value());
  CHECK_FALSE(to_decimal("").has_value());
  CHECK(to_unsigned("0") == 0U);
  CHECK(to_unsigned("18446744073709551615") == ~std::uint64_t{0});
  CHECK_FALSE(to_unsigned("18446744073709551616").has_value());
  CHECK_FALSE(to_unsigned("-1").has_value());
  CHECK_FALSE(to_unsigned("").has_value());
}

// Issue #14's lax numbers: one grammar (docs/cli.md) for every number a user types. Digits, an
// optional "." and digits; no hex, exponent, sign, whitespace, or leading or trailing dot.
TEST_CASE("lax numbers: trailing dots, hex, exponents and whitespace are refused", "[quantity][errors][hostile]") {
  CHECK_THROWS_WITH(parse_count("--batch", "007.", 1024),
                    "--batch: expected a positive whole number (got '007.') (ends in a dot)");
  CHECK(parse_count("--batch", "007", 1024) == 7);
  CHECK(parse_count("--batch", "2.0", 1024) == 2);  // exactly 2
  CHECK_THROWS_WITH(parse_count("--batch", "2.0000001", 1024),
                    "--batch: expected a positive whole number (got '2.0000001') (a fraction)");
  CHECK_THROWS_WITH(parse_tokens("--seq-len", "1.k"),
                    "--seq-len: expected a whole number of tokens such as 8192, 8k or 128K (got '1.k') (ends in a dot)");
  CHECK_THROWS_AS(parse_tokens("--seq-len", ".5k"), Error);
  CHECK_THROWS_AS(parse_count("--tp", " 2", 1024), Error);
  CHECK_THROWS_AS(parse_count("--tp", "2 ", 1024), Error);
  CHECK_THROWS_AS(parse_count("--tp", "+2", 1024), Error);
  CHECK_FALSE(to_decimal("0x10").has_value());
  CHECK_FALSE(to_decimal("1e3").has_value());
  CHECK_FALSE(to_decimal(" 1").has_value());
  CHECK_FALSE(to_decimal("1.").has_value());
  CHECK_FALSE(to_decimal(".5").has_value());
  CHECK_FALSE(to_decimal("inf").has_value());
  CHECK_FALSE(to_decimal("nan").has_value());
  CHECK_FALSE(to_decimal("-").has_value());
  CHECK_FALSE(to_unsigned("0x10").has_value());
  CHECK_THROWS_AS(parse_size("--vram", "0x50GB"), Error);
  CHECK_THROWS_WITH(parse_size("--vram", "80.GB"),
                    "--vram: invalid size '80.GB' (ends in a dot) (expected e.g. 80GB, 80GiB, 81920MiB, 0.5TB)");
}

TEST_CASE("lax numbers: fractions are parts per million from the decimal text, never a float round trip",
          "[quantity][errors][hostile]") {
  CHECK(parse_fraction_ppm("--utilization", "0.000001") == 1);
  CHECK(parse_fraction_ppm("--utilization", "0.9500000000") == 950'000);  // trailing zeros are exact
  CHECK(parse_fraction_ppm("--utilization", "92.5%") == 925'000);
  CHECK(parse_fraction_ppm("--utilization", "100%") == 1'000'000);
  CHECK(parse_fraction_ppm("--utilization", "1.000000") == 1'000'000);
  // SGLang prints the fraction it computed with every digit (ServerArgs mem_fraction_static=0.8260405859375,
  // sglang on 8 MI355X: github.com/ajith-sirra-amd/Issues, Kimi-K2.5-MI355X-SGLANG-ERROR.md): the
  // nearest part per million, half up.
  CHECK(parse_fraction_ppm("--mem-fraction-static", "0.8260405859375") == 826'041);
  CHECK(parse_fraction_ppm("--utilization", "0.1234564999") == 123'456);
  CHECK(parse_fraction_ppm("--utilization", "0.9999995") == 1'000'000);
  CHECK_THROWS_WITH(parse_fraction_ppm("--utilization", "1.0000002"),
                    "--utilization: '1.0000002' is more than 1 (range: 0.000001 to 1)");
  CHECK_THROWS_WITH(parse_fraction_ppm("--utilization", "0.0000001"),
                    "--utilization: '0.0000001' is less than one part per million (range: 0.000001 to 1)");
  CHECK_THROWS_WITH(parse_fraction_ppm("--utilization", "1.000001"),
                    "--utilization: '1.000001' is more than 1 (range: 0.000001 to 1)");
  CHECK_THROWS_WITH(parse_fraction_ppm("--utilization", "100.5%"),
                    "--utilization: '100.5%' is more than 100% (range: 0.0001% to 100%)");
  CHECK_THROWS_WITH(parse_fraction_ppm("--utilization", "0.9."),
                    "--utilization: expected a fraction such as 0.9 or 90% (got '0.9.')");
  CHECK_THROWS_WITH(parse_fraction_ppm("--utilization", "9."),
                    "--utilization: expected a fraction such as 0.9 or 90% (got '9.') (ends in a dot)");
}

TEST_CASE("lax numbers: sizes are exact bytes from the decimal text", "[quantity][hostile]") {
  CHECK(parse_size("--vram", "0.1GB").bytes == 100'000'000);
  CHECK(parse_size("--vram", "79.19GiB").bytes == 85'029'615'042);  // 79.19 * 2^30 = 85,029,615,042.56
  CHECK(parse_size("--vram", "0.000000001GB").bytes == 1);
  CHECK(parse_size("--vram", "1.5B").bytes == 1);  // a fraction of a byte is dropped
  CHECK_THROWS_WITH(parse_size("--vram", "0.5B"), "--vram: size must be at least 1 byte (got '0.5B')");
}

TEST_CASE("huge input is quoted cut to 80 characters, on one line", "[quantity][errors][hostile]") {
  const std::string huge(100'000, '9');
  CHECK_THROWS_WITH(parse_count("--tp", huge + "x", 1024),
                    "--tp: expected a positive whole number (got '" + std::string(80, '9') +
                        "...' (100,001 characters)) (the number is 2^64 or more)");
  CHECK_THROWS_WITH(parse_count("--tp", "2\n::warning::x", 1024),
                    "--tp: expected a positive whole number (got '2\\n::warning::x')");
}
