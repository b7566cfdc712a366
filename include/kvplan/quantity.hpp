// kvplan/quantity.hpp: parsing and printing of the quantities users type: sizes ("80GB" is
// 10^9-based, "80GiB" 2^30-based, as ccache's parse_size), token counts ("128k" = 131,072),
// counts and fractions. Parsers throw kvplan::Error with a message naming the option.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kvplan {

struct ParsedSize {
  std::uint64_t bytes = 0;
  bool decimal = false;  // GB/MB/TB (10^n) rather than GiB/MiB/TiB (2^n)
  std::string text;      // what the user typed
};

/// "80GB", "80 GB", "80GiB", "81920MiB", "0.5TB", "512B". Throws on anything else, on 0, and
/// above 1 PiB ("absurd for one GPU").
ParsedSize parse_size(std::string_view option, std::string_view text);

/// "8192", "8k"/"8K" (x1024), "1M" (x1048576). 1 <= value <= 2^40.
std::uint64_t parse_tokens(std::string_view option, std::string_view text);

/// A positive integer in [1, max].
std::uint64_t parse_count(std::string_view option, std::string_view text, std::uint64_t max);

/// The whole of `text` as a finite decimal number ("0.07", "1e3"), or nullopt.
std::optional<double> to_decimal(std::string_view text);

/// A whole number in [0, 2^64), zero included ("0", "42"), or nullopt.
std::optional<std::uint64_t> to_unsigned(std::string_view text);

/// A fraction in (0, 1], "0.9" or "90%", returned in parts per million.
std::uint32_t parse_fraction_ppm(std::string_view option, std::string_view text);

/// "79.19 GiB", "320 KiB", "512 B": binary prefixes, 2 decimals unless exact.
std::string format_bytes(std::uint64_t bytes);

/// Bytes in GiB with 2 decimals, no unit ("79.19").
std::string format_gib(std::uint64_t bytes);

/// 131072 -> "131,072".
std::string with_commas(std::uint64_t n);

/// 131072 -> "128K", 8192 -> "8K", 40960 -> "40K", 1000 -> "1000" (for compact token labels).
std::string format_tokens_short(std::uint64_t n);

}  // namespace kvplan
