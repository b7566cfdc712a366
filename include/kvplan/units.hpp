// kvplan/units.hpp: exact unsigned byte and token arithmetic that saturates instead of wrapping.
// Not a units library: quantities are plain std::uint64_t whose names carry the unit
// (`_bytes`, `_tokens`). A saturated value (kSaturated) reads "more than any GPU has", so it
// never fits a budget and can never wrap around to a small number.
#pragma once

#include <cstdint>
#include <limits>

namespace kvplan {

inline constexpr std::uint64_t kSaturated = std::numeric_limits<std::uint64_t>::max();

constexpr std::uint64_t sat_add(std::uint64_t a, std::uint64_t b) noexcept {
  return a > kSaturated - b ? kSaturated : a + b;
}

constexpr std::uint64_t sat_mul(std::uint64_t a, std::uint64_t b) noexcept {
  if (a == 0 || b == 0) {
    return 0;
  }
  return a > kSaturated / b ? kSaturated : a * b;
}

/// a - b, or 0 when b > a.
constexpr std::uint64_t sat_sub(std::uint64_t a, std::uint64_t b) noexcept {
  return a > b ? a - b : 0;
}

/// ceil(a / b) for b > 0; a saturated numerator stays saturated.
constexpr std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) noexcept {
  if (a == kSaturated) {
    return kSaturated;
  }
  return a / b + (a % b != 0 ? 1 : 0);
}

/// Smallest multiple of `granule` that is >= a (granule > 0).
constexpr std::uint64_t round_up(std::uint64_t a, std::uint64_t granule) noexcept {
  return sat_mul(ceil_div(a, granule), granule);
}

/// floor(a * num / den) without overflow for den <= 10^9 and any a (den > 0).
constexpr std::uint64_t mul_frac(std::uint64_t a, std::uint64_t num, std::uint64_t den) noexcept {
  const std::uint64_t whole = sat_mul(a / den, num);
  const std::uint64_t part = sat_mul(a % den, num) / den;
  return sat_add(whole, part);
}

inline constexpr std::uint64_t kKiB = 1024;
inline constexpr std::uint64_t kMiB = 1024 * kKiB;
inline constexpr std::uint64_t kGiB = 1024 * kMiB;

}  // namespace kvplan
