// kvplan/text.hpp: small string helpers shared by every parser: "did you mean" suggestions
// (ninja's SpellcheckStringV) and case folding.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kvplan {

std::string to_lower(std::string_view s);

/// Levenshtein distance (insert, delete, substitute, each cost 1).
std::size_t edit_distance(std::string_view a, std::string_view b);

/// The candidate closest to `word`, if it is close enough to be a plausible typo.
std::optional<std::string> closest(std::string_view word, const std::vector<std::string>& candidates);

/// ", did you mean 'x'?" or "" (for appending to an error message).
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace kvplan
