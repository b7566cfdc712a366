// Parsing and printing of sizes, token counts, counts and fractions.
#include "kvplan/quantity.hpp"

#include <array>
#include <charconv>
#include <cctype>
#include <cmath>
#include <fmt/format.h>

#include "kvplan/error.hpp"
#include "kvplan/text.hpp"
#include "kvplan/units.hpp"

namespace kvplan {
namespace {

struct Unit {
  std::string_view name;  // lower-case spelling
  std::uint64_t factor;
  bool decimal;
};

constexpr std::uint64_t kPiB = 1024 * 1024 * kGiB;
constexpr std::array kUnits{
    Unit{"b", 1, false},
    Unit{"kb", 1'000, true},
    Unit{"mb", 1'000'000, true},
    Unit{"gb", 1'000'000'000, true},
    Unit{"tb", 1'000'000'000'000, true},
    Unit{"kib", kKiB, false},
    Unit{"mib", kMiB, false},
    Unit{"gib", kGiB, false},
    Unit{"tib", 1024 * kGiB, false},
};

struct Number {
  std::uint64_t whole = 0;
  std::uint64_t frac_num = 0;  // fraction = frac_num / frac_den
  std::uint64_t frac_den = 1;
  std::size_t length = 0;      // characters consumed
  bool ok = false;
};

// Digits, optionally "." and digits; no sign, no exponent. Overflow leaves ok = false.
Number parse_number(std::string_view s) {
  Number n;
  std::size_t i = 0;
  bool any = false;
  for (; i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])); ++i) {
    const std::uint64_t digit = static_cast<std::uint64_t>(s[i] - '0');
    if (n.whole > (kSaturated - digit) / 10) {
      return n;
    }
    n.whole = n.whole * 10 + digit;
    any = true;
  }
  if (i < s.size() && s[i] == '.') {
    ++i;
    for (; i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])); ++i) {
      if (n.frac_den < 1'000'000'000) {  // 9 decimals are plenty; further digits are dropped
        n.frac_num = n.frac_num * 10 + static_cast<std::uint64_t>(s[i] - '0');
        n.frac_den *= 10;
      }
      any = true;
    }
  }
  n.length = i;
  n.ok = any;
  return n;
}

[[noreturn]] void bad_size(std::string_view option, std::string_view text) {
  throw Error(fmt::format("{}: invalid size '{}' (expected e.g. 80GB, 80GiB, 81920MiB, 0.5TB)", option, text));
}

}  // namespace

ParsedSize parse_size(std::string_view option, std::string_view text) {
  if (!text.empty() && text.front() == '-') {
    throw Error(fmt::format("{}: size must be positive (got '{}')", option, text));
  }
  const Number n = parse_number(text);
  if (!n.ok) {
    bad_size(option, text);
  }
  std::string_view rest = text.substr(n.length);
  if (!rest.empty() && rest.front() == ' ') {
    rest.remove_prefix(1);
  }
  const std::string unit = to_lower(rest);
  if (unit.empty()) {
    throw Error(fmt::format("{}: size '{}' has no unit; did you mean '{}GB' (10^9 B) or '{}GiB' (2^30 B)?",
                            option, text, text, text));
  }
  if (unit == "g" || unit == "m" || unit == "t" || unit == "k") {
    const std::string digits(text.substr(0, n.length));
    const std::string u(1, static_cast<char>(std::toupper(static_cast<unsigned char>(unit[0]))));
    throw Error(fmt::format("{}: size '{}' is ambiguous; did you mean '{}{}B' (decimal) or '{}{}iB' (binary)?",
                            option, text, digits, u, digits, u));
  }
  for (const Unit& u : kUnits) {
    if (unit != u.name) {
      continue;
    }
    const std::uint64_t whole = sat_mul(n.whole, u.factor);
    const std::uint64_t part = mul_frac(u.factor, n.frac_num, n.frac_den);
    const std::uint64_t bytes = sat_add(whole, part);
    if (bytes == 0) {
      throw Error(fmt::format("{}: size must be positive (got '{}')", option, text));
    }
    if (bytes > kPiB) {
      throw Error(fmt::format("{}: size '{}' is more than 1 PiB, too large for one GPU", option, text));
    }
    return ParsedSize{bytes, u.decimal, std::string(text)};
  }
  bad_size(option, text);
}

std::uint64_t parse_tokens(std::string_view option, std::string_view text) {
  const Number n = parse_number(text);
  std::string_view rest = text.substr(n.length);
  std::uint64_t factor = 1;
  if (rest == "k" || rest == "K") {
    factor = 1024;
  } else if (rest == "m" || rest == "M") {
    factor = 1024 * 1024;
  } else if (!rest.empty()) {
    factor = 0;
  }
  if (!n.ok || factor == 0 || n.frac_num != 0 || (text.size() > 0 && text.front() == '-')) {
    throw Error(fmt::format("{}: expected a whole number of tokens such as 8192, 8k or 128K (got '{}')", option, text));
  }
  const std::uint64_t tokens = sat_mul(n.whole, factor);
  if (tokens == 0) {
    throw Error(fmt::format("{}: must be at least 1 token (got '{}')", option, text));
  }
  if (tokens > (std::uint64_t{1} << 40)) {
    throw Error(fmt::format("{}: {} tokens is beyond any model's context (limit 2^40)", option, text));
  }
  return tokens;
}

std::uint64_t parse_count(std::string_view option, std::string_view text, std::uint64_t max) {
  const Number n = parse_number(text);
  if (!n.ok || n.length != text.size() || n.frac_den != 1) {
    throw Error(fmt::format("{}: expected a positive whole number (got '{}')", option, text));
  }
  if (n.whole == 0) {
    throw Error(fmt::format("{}: must be at least 1 (got '{}')", option, text));
  }
  if (n.whole > max) {
    throw Error(fmt::format("{}: {} is too large (at most {})", option, text, max));
  }
  return n.whole;
}

std::optional<double> to_decimal(std::string_view text) {
  const std::string s(text);
  try {
    std::size_t used = 0;
    const double v = std::stod(s, &used);
    if (used == s.size() && std::isfinite(v)) {
      return v;
    }
  } catch (const std::exception&) {  // not a number, or out of range
  }
  return std::nullopt;
}

std::optional<std::uint64_t> to_unsigned(std::string_view text) {
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) {
    return std::nullopt;
  }
  return v;
}

std::uint32_t parse_fraction_ppm(std::string_view option, std::string_view text) {
  const Number n = parse_number(text);
  std::string_view rest = text.substr(n.ok ? n.length : 0);
  const bool percent = rest == "%";
  if (!n.ok || (!rest.empty() && !percent)) {
    throw Error(fmt::format("{}: expected a fraction such as 0.9 or 90% (got '{}')", option, text));
  }
  const std::uint64_t scale = percent ? 10'000 : 1'000'000;
  if (n.whole > 100) {
    throw Error(fmt::format("{}: must be in (0, 1] (got '{}')", option, text));
  }
  const std::uint64_t ppm = n.whole * scale + mul_frac(scale, n.frac_num, n.frac_den);
  if (ppm == 0 || ppm > 1'000'000) {
    throw Error(fmt::format("{}: must be in (0, 1] (got '{}')", option, text));
  }
  return static_cast<std::uint32_t>(ppm);
}

std::string format_bytes(std::uint64_t bytes) {
  if (bytes == kSaturated) {
    return "overflow";
  }
  constexpr std::array<std::string_view, 6> names{"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  std::size_t unit = 0;
  std::uint64_t scale = 1;
  while (unit + 1 < names.size() && bytes >= scale * 1024) {
    scale *= 1024;
    ++unit;
  }
  if (bytes % scale == 0) {
    return fmt::format("{} {}", bytes / scale, names[unit]);
  }
  return fmt::format("{:.2f} {}", static_cast<double>(bytes) / static_cast<double>(scale), names[unit]);
}

std::string format_gib(std::uint64_t bytes) {
  return fmt::format("{:.2f}", static_cast<double>(bytes) / static_cast<double>(kGiB));
}

std::string with_commas(std::uint64_t n) {
  std::string digits = std::to_string(n);
  std::string out;
  const std::size_t first = digits.size() % 3 == 0 ? 3 : digits.size() % 3;
  out += digits.substr(0, first);
  for (std::size_t i = first; i < digits.size(); i += 3) {
    out += ',';
    out += digits.substr(i, 3);
  }
  return out;
}

std::string format_tokens_short(std::uint64_t n) {
  if (n >= 1024 * 1024 && n % (1024 * 1024) == 0) {
    return fmt::format("{}M", n / (1024 * 1024));
  }
  if (n >= 1024 && n % 1024 == 0) {
    return fmt::format("{}K", n / 1024);
  }
  return std::to_string(n);
}

}  // namespace kvplan
