// Parsing and printing of sizes, token counts, counts and fractions.
#include "kvplan/quantity.hpp"

#include <array>
#include <cctype>
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
  std::uint64_t frac_num = 0;  // fraction = frac_num / frac_den, trailing zeros dropped
  std::uint64_t frac_den = 1;
  std::size_t length = 0;      // characters consumed
  bool ok = false;
  std::string_view problem;    // why it is not a number, when ok is false and length > 0
};

constexpr std::size_t kMaxDecimals = 9;
constexpr std::size_t kLongestNumber = 64;  // "0.900000" with trailing zeros is still a number; 10 KB of them is not

// The number grammar of docs/cli.md: decimal digits, then optionally "." and decimal digits.
// No sign, no exponent, no hex, no leading or trailing dot, no whitespace. At most 9
// significant decimals and 64 characters, so every fraction is exact (frac_num / 10^k) and products with
// 64-bit factors stay within 64 bits. Overflow of the whole part leaves ok = false.
Number parse_number(std::string_view s) {
  Number n;
  std::size_t i = 0;
  for (; i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])); ++i) {
    const std::uint64_t digit = static_cast<std::uint64_t>(s[i] - '0');
    if (n.whole > (kSaturated - digit) / 10) {
      n.length = i;
      n.problem = "the number is 2^64 or more";
      return n;
    }
    n.whole = n.whole * 10 + digit;
  }
  if (i == 0) {
    return n;
  }
  if (i < s.size() && s[i] == '.') {
    const std::size_t first = ++i;
    for (; i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])); ++i) {
    }
    std::string_view digits = s.substr(first, i - first);
    if (digits.empty()) {
      n.length = i;
      n.problem = "ends in a dot";
      return n;
    }
    while (!digits.empty() && digits.back() == '0') {
      digits.remove_suffix(1);
    }
    if (digits.size() > kMaxDecimals) {
      n.length = i;
      n.problem = "has more than 9 decimals";
      return n;
    }
    for (const char c : digits) {
      n.frac_num = n.frac_num * 10 + static_cast<std::uint64_t>(c - '0');
      n.frac_den *= 10;
    }
  }
  n.length = i;
  if (i > kLongestNumber) {
    n.problem = "longer than 64 characters";
    return n;
  }
  n.ok = true;
  return n;
}

// "'TEXT' is not a number" with the grammar's reason when there is one.
std::string number_problem(const Number& n) {
  return n.problem.empty() ? std::string() : fmt::format(" ({})", n.problem);
}

[[noreturn]] void bad_size(std::string_view option, std::string_view text, const Number& n) {
  throw Error(fmt::format("{}: invalid size {}{} (expected e.g. 80GB, 80GiB, 81920MiB, 0.5TB)", option,
                          quote_input(text), number_problem(n)));
}

}  // namespace

ParsedSize parse_size(std::string_view option, std::string_view text) {
  if (!text.empty() && text.front() == '-') {
    throw Error(fmt::format("{}: size must be positive (got {})", option, quote_input(text)));
  }
  const Number n = parse_number(text);
  if (!n.ok) {
    bad_size(option, text, n);
  }
  std::string_view rest = text.substr(n.length);
  if (!rest.empty() && rest.front() == ' ') {
    rest.remove_prefix(1);
  }
  const std::string unit = to_lower(rest.substr(0, 4));
  if (rest.empty()) {
    throw Error(fmt::format("{}: size {} has no unit; did you mean '{}GB' (10^9 B) or '{}GiB' (2^30 B)?",
                            option, quote_input(text), text, text));
  }
  if (unit == "g" || unit == "m" || unit == "t" || unit == "k") {
    const std::string digits(text.substr(0, n.length));
    const std::string u(1, static_cast<char>(std::toupper(static_cast<unsigned char>(unit[0]))));
    throw Error(fmt::format("{}: size {} is ambiguous; did you mean '{}{}B' (decimal) or '{}{}iB' (binary)?",
                            option, quote_input(text), digits, u, digits, u));
  }
  for (const Unit& u : kUnits) {
    if (rest.size() != u.name.size() || unit != u.name) {
      continue;
    }
    // Exact: frac_den <= 10^9 and every factor <= 2^40, so mul_frac never saturates. A
    // fraction of a byte is dropped ("1.5B" is 1 byte).
    const std::uint64_t whole = sat_mul(n.whole, u.factor);
    const std::uint64_t part = mul_frac(u.factor, n.frac_num, n.frac_den);
    const std::uint64_t bytes = sat_add(whole, part);
    if (bytes == 0) {
      throw Error(fmt::format("{}: size must be at least 1 byte (got {})", option, quote_input(text)));
    }
    if (bytes > kPiB) {
      throw Error(fmt::format("{}: size {} is more than 1 PiB, too large for one GPU (range: 1 B to 1 PiB)", option,
                              quote_input(text)));
    }
    return ParsedSize{bytes, u.decimal, std::string(text)};
  }
  bad_size(option, text, n);
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
  if (!n.ok || factor == 0) {
    throw Error(fmt::format("{}: expected a whole number of tokens such as 8192, 8k or 128K (got {}){}", option,
                            quote_input(text), number_problem(n)));
  }
  // "1.5k" is 1,536 tokens; "1.1k" (1,126.4) is not a whole number of tokens.
  if ((factor * n.frac_num) % n.frac_den != 0) {  // factor <= 2^20, frac_num < 10^9: no overflow
    throw Error(fmt::format("{}: {} is not a whole number of tokens", option, quote_input(text)));
  }
  const std::uint64_t tokens = sat_add(sat_mul(n.whole, factor), mul_frac(factor, n.frac_num, n.frac_den));
  if (tokens == 0) {
    throw Error(fmt::format("{}: must be at least 1 token (got {})", option, quote_input(text)));
  }
  if (tokens > (std::uint64_t{1} << 40)) {
    throw Error(fmt::format("{}: {} tokens is beyond any model's context (range: 1 to 2^40)", option, quote_input(text)));
  }
  return tokens;
}

std::uint64_t parse_count(std::string_view option, std::string_view text, std::uint64_t max) {
  const Number n = parse_number(text);
  if (!n.ok || n.length != text.size() || n.frac_den != 1) {
    const std::string why = n.ok && n.length == text.size() ? " (a fraction)" : number_problem(n);
    throw Error(fmt::format("{}: expected a positive whole number (got {}){}", option, quote_input(text), why));
  }
  if (n.whole == 0) {
    throw Error(fmt::format("{}: must be at least 1 (got {}; range: 1 to {})", option, quote_input(text), max));
  }
  if (n.whole > max) {
    throw Error(fmt::format("{}: {} is too large (range: 1 to {})", option, quote_input(text), max));
  }
  return n.whole;
}

std::optional<double> to_decimal(std::string_view text) {
  const bool negative = !text.empty() && text.front() == '-';
  const std::string_view digits = negative ? text.substr(1) : text;
  const Number n = parse_number(digits);
  if (!n.ok || n.length != digits.size()) {
    return std::nullopt;
  }
  // Both parts are exact integers below 2^64; the quotient is the nearest double to the text
  // for every value a user types (at most 9 decimals).
  const double v = static_cast<double>(n.whole) + static_cast<double>(n.frac_num) / static_cast<double>(n.frac_den);
  return negative ? -v : v;
}

std::optional<std::uint64_t> to_unsigned(std::string_view text) {
  const Number n = parse_number(text);
  if (!n.ok || n.length != text.size() || n.frac_den != 1) {
    return std::nullopt;
  }
  return n.whole;
}

// A fraction to the nearest part per million, from its decimal text (never a float). Engines print
// the fractions they computed with every digit (SGLang's ServerArgs dump: mem_fraction_static=
// 0.8260405859375), so finer digits are rounded half up, at most 0.5 ppm: 40 KB of an 80 GB GPU.
// A fraction above 1 is refused even when rounding would make it 1, and one that rounds to 0 too.
std::uint32_t parse_fraction_ppm(std::string_view option, std::string_view text) {
  const auto bad = [&](std::string_view why) {
    return Error(fmt::format("{}: expected a fraction such as 0.9 or 90% (got {}){}", option, quote_input(text),
                             why.empty() ? std::string() : fmt::format(" ({})", why)));
  };
  const bool percent = !text.empty() && text.back() == '%';
  const std::string_view number = percent ? text.substr(0, text.size() - 1) : text;
  if (number.size() > kLongestNumber) {
    throw bad("longer than 64 characters");
  }
  std::size_t i = 0;
  std::uint64_t whole = 0;
  for (; i < number.size() && std::isdigit(static_cast<unsigned char>(number[i])); ++i) {
    whole = std::min<std::uint64_t>(whole * 10 + static_cast<std::uint64_t>(number[i] - '0'), 1000);
  }
  if (i == 0) {
    throw bad("");
  }
  std::string_view decimals;
  if (i < number.size() && number[i] == '.') {
    const std::size_t first = ++i;
    for (; i < number.size() && std::isdigit(static_cast<unsigned char>(number[i])); ++i) {
    }
    decimals = number.substr(first, i - first);
    if (decimals.empty()) {
      throw bad("ends in a dot");
    }
  }
  if (i != number.size()) {
    throw bad("");
  }
  const std::uint64_t scale = percent ? 10'000 : 1'000'000;
  const std::size_t places = percent ? 4 : 6;  // the decimals one part per million takes
  const std::string_view range = percent ? "range: 0.0001% to 100%" : "range: 0.000001 to 1";
  const std::uint64_t limit = percent ? 100 : 1;
  const bool above = whole > limit || (whole == limit && decimals.find_first_not_of('0') != std::string_view::npos);
  if (above) {
    throw Error(fmt::format("{}: {} is more than {} ({})", option, quote_input(text), percent ? "100%" : "1", range));
  }
  std::uint64_t part = 0;
  for (std::size_t k = 0; k < places; ++k) {
    part = part * 10 + (k < decimals.size() ? static_cast<std::uint64_t>(decimals[k] - '0') : 0);
  }
  if (decimals.size() > places && decimals[places] >= '5') {
    ++part;  // half up
  }
  const std::uint64_t ppm = whole * scale + part;
  if (ppm == 0 && decimals.find_first_not_of('0') == std::string_view::npos) {
    throw Error(fmt::format("{}: must be more than 0 (got {}; {})", option, quote_input(text), range));
  }
  if (ppm == 0) {
    throw Error(fmt::format("{}: {} is less than one part per million ({})", option, quote_input(text), range));
  }
  return static_cast<std::uint32_t>(std::min<std::uint64_t>(ppm, 1'000'000));
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
