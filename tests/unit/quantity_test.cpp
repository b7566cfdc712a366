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
  CHECK_THROWS_WITH(parse_size("--vram", "0GB"), "--vram: size must be positive (got '0GB')");
  CHECK_THROWS_WITH(parse_size("--vram", "99999999999999999999GB"),
                    "--vram: invalid size '99999999999999999999GB' (expected e.g. 80GB, 80GiB, 81920MiB, 0.5TB)");
  CHECK_THROWS_WITH(parse_size("--vram", "2000TB"), "--vram: size '2000TB' is more than 1 PiB, too large for one GPU");
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
  CHECK_THROWS_WITH(parse_tokens("--seq-len", "1.5k"),
                    "--seq-len: expected a whole number of tokens such as 8192, 8k or 128K (got '1.5k')");
  CHECK_THROWS_WITH(parse_tokens("--seq-len", "2000000M"), "--seq-len: 2000000M tokens is beyond any model's context (limit 2^40)");
}

TEST_CASE("counts and fractions", "[quantity]") {
  CHECK(parse_count("--tp", "8", 1024) == 8);
  CHECK_THROWS_WITH(parse_count("--tp", "0", 1024), "--tp: must be at least 1 (got '0')");
  CHECK_THROWS_WITH(parse_count("--tp", "two", 1024), "--tp: expected a positive whole number (got 'two')");
  CHECK_THROWS_WITH(parse_count("--tp", "4096", 1024), "--tp: 4096 is too large (at most 1024)");
  CHECK(parse_fraction_ppm("--utilization", "0.9") == 900'000);
  CHECK(parse_fraction_ppm("--utilization", "92%") == 920'000);
  CHECK(parse_fraction_ppm("--utilization", "1") == 1'000'000);
  CHECK_THROWS_WITH(parse_fraction_ppm("--utilization", "1.5"), "--utilization: must be in (0, 1] (got '1.5')");
  CHECK_THROWS_WITH(parse_fraction_ppm("--utilization", "0"), "--utilization: must be in (0, 1] (got '0')");
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
  CHECK(to_decimal("1e3") == Approx(1000));
  CHECK_FALSE(to_decimal("0.07x").has_value());
  CHECK_FALSE(to_decimal("1e999").has_value());
  CHECK_FALSE(to_decimal("").has_value());
  CHECK(to_unsigned("0") == 0U);
  CHECK(to_unsigned("18446744073709551615") == ~std::uint64_t{0});
  CHECK_FALSE(to_unsigned("18446744073709551616").has_value());
  CHECK_FALSE(to_unsigned("-1").has_value());
  CHECK_FALSE(to_unsigned("").has_value());
}
