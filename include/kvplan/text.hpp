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

/// ", did you mean 'x'?" or "" (for appending to an error message). Words longer than 128
/// characters get no suggestion (the edit distance is quadratic, and no name is that long).
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates);

/// User input as an error message quotes it: control characters escaped (\n, \t, \xNN), and cut
/// at 80 characters with the length stated ("'aaaa...' (15,728,640 characters)"), in single quotes.
std::string quote_input(std::string_view text);

/// A whole message on one line: control characters escaped, and cut in the middle past 2,000
/// characters. cli::run passes every error through it, so an error is always exactly one line.
std::string one_line(std::string_view message);

/// The deepest nesting of [ and { in JSON text (outside strings); parsers refuse more than
/// kMaxJsonDepth before parsing, so no value deep enough to exhaust the stack is ever built.
std::size_t json_depth(std::string_view text);
inline constexpr std::size_t kMaxJsonDepth = 64;

/// The line (from 1) of a ',' where a YAML node would begin outside [ ] and { } (a document's or a line's first
/// token, or after "- ", "? ", ": "), skipping block scalars' text, quoted scalars and comments; or nullopt.
/// YAML allows ',' only between the entries of a flow collection; yaml-cpp 0.7 (Debian 12's) loops, allocating
/// until memory runs out, on several such tokens (`,a: b`, `- a\n,b`, `"a"\n,b`: tests/fuzz/regressions), so the
/// YAML readers refuse them before parsing.
std::optional<std::size_t> yaml_stray_comma(std::string_view text);
/// Throws kvplan::Error naming `path` and the line of a yaml_stray_comma.
void refuse_stray_yaml_comma(std::string_view text, std::string_view path);

}  // namespace kvplan
