// "Did you mean" and case folding.
#include "kvplan/text.hpp"

#include <algorithm>
#include <cctype>

namespace kvplan {

std::string to_lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) {
    row[j] = j;
  }
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      const std::size_t substitute = diagonal + (a[i - 1] == b[j - 1] ? 0 : 1);
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, substitute});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::optional<std::string> closest(std::string_view word, const std::vector<std::string>& candidates) {
  const std::string lowered = to_lower(word);
  std::optional<std::string> best;
  std::size_t best_distance = 0;
  for (const std::string& c : candidates) {
    if (to_lower(c) == lowered) {
      continue;  // never suggest what was typed
    }
    const std::size_t d = edit_distance(lowered, to_lower(c));
    if (!best || d < best_distance) {
      best = c;
      best_distance = d;
    }
  }
  // Plausible typo: at most a third of the word's letters changed (at least 2 edits allowed).
  const std::size_t limit = std::max<std::size_t>(2, lowered.size() / 3);
  if (best && best_distance <= limit) {
    return best;
  }
  return std::nullopt;
}

std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates) {
  if (auto c = closest(word, candidates)) {
    return ", did you mean '" + *c + "'?";
  }
  return "";
}

}  // namespace kvplan
