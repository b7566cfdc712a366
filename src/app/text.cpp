// "Did you mean" and case folding.
#include "kvplan/text.hpp"

#include <algorithm>
#include <cctype>
#include <fmt/format.h>

#include "kvplan/error.hpp"

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
  constexpr std::size_t kLongest = 128;
  if (word.size() > kLongest) {
    return "";
  }
  if (auto c = closest(word, candidates)) {
    return ", did you mean '" + *c + "'?";
  }
  return "";
}

namespace {

void escape_into(std::string& out, char c) {
  const auto u = static_cast<unsigned char>(c);
  if (c == '\n') {
    out += "\\n";
  } else if (c == '\r') {
    out += "\\r";
  } else if (c == '\t') {
    out += "\\t";
  } else if (u < 0x20 || u == 0x7f) {
    static const char* const kHex = "0123456789abcdef";
    out += "\\x";
    out += kHex[u >> 4];
    out += kHex[u & 0xf];
  } else {
    out += c;
  }
}

std::string thousands(std::size_t n) {
  std::string digits = std::to_string(n);
  for (std::size_t at = digits.size(); at > 3; at -= 3) {
    digits.insert(at - 3, ",");
  }
  return digits;
}

}  // namespace

std::string quote_input(std::string_view text) {
  constexpr std::size_t kShown = 80;
  std::string out = "'";
  for (std::size_t i = 0; i < text.size() && i < kShown; ++i) {
    escape_into(out, text[i]);
  }
  if (text.size() > kShown) {
    return out + "...' (" + thousands(text.size()) + " characters)";
  }
  return out + "'";
}

std::string one_line(std::string_view message) {
  constexpr std::size_t kLongest = 2000;
  std::string out;
  for (char c : message) {
    escape_into(out, c);
  }
  if (out.size() > kLongest) {
    out = out.substr(0, kLongest / 2) + " ... " + out.substr(out.size() - kLongest / 2);
  }
  return out;
}

std::optional<std::size_t> yaml_stray_comma(std::string_view text) {
  const auto blank = [](char c) { return c == ' ' || c == '\t'; };
  const auto strip = [&](std::string_view s) {
    std::size_t i = 0;
    while (i < s.size() && blank(s[i])) {
      ++i;
    }
    return s.substr(i);
  };
  // A line that is exactly a marker, or a marker followed by a space or tab (YAML's c-directives-end and
  // c-document-end); for ---, what follows it on the line is the document's first content.
  const auto marker = [&](std::string_view line, std::string_view m) {
    return line.substr(0, 3) == m && (line.size() == 3 || blank(line[3]));
  };
  bool at_start = true;                   // no content yet in this document
  std::size_t flow = 0;                   // [ { depth
  char quote = 0;                         // the quote of a scalar that runs on to the next line
  bool in_block = false;                  // in a block scalar (| or >) ...
  std::size_t block_indent = 0;           // ... whose header line had this indent
  std::size_t line_no = 0;
  for (std::size_t pos = 0; pos <= text.size();) {
    const std::size_t end = std::min(text.find('\n', pos), text.size());
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') {
      line.remove_suffix(1);
    }
    const std::size_t indent = line.size() - strip(line).size();
    if (in_block) {
      if (strip(line).empty() || indent > block_indent) {
        continue;  // the block scalar's text, whatever it holds
      }
      in_block = false;
    }
    if (quote == 0 && flow == 0) {
      if (marker(line, "...")) {
        at_start = true;
        continue;
      }
      if (marker(line, "---")) {
        at_start = true;
        line.remove_prefix(3);
      } else if (at_start && !line.empty() && line.front() == '%') {
        continue;  // a directive
      }
    }
    // Token by token: `fresh` where a new node may begin (a line's first token, after "- ", "? ", ": ", a node's
    // properties, or a flow collection's "[", "{" and ","), where a ',' outside [ ] and { } is never YAML.
    bool fresh = quote == 0;
    for (std::size_t i = 0; i < line.size(); ++i) {
      const char c = line[i];
      const bool spaced = i + 1 >= line.size() || blank(line[i + 1]);
      if (quote == '\'') {
        if (c == '\'') {
          if (i + 1 < line.size() && line[i + 1] == '\'') {
            ++i;  // '' is a quote inside the scalar
          } else {
            quote = 0;
          }
        }
        continue;
      }
      if (quote == '"') {
        if (c == '\\') {
          ++i;
        } else if (c == '"') {
          quote = 0;
        }
        continue;
      }
      if (blank(c)) {
        continue;
      }
      if (c == '#' && (i == 0 || blank(line[i - 1]))) {
        break;  // a comment
      }
      if (c == ',') {
        if (flow > 0) {
          fresh = true;
          continue;
        }
        if (fresh) {
          return line_no;
        }
        continue;  // inside a plain scalar
      }
      const bool flow_indicator = flow > 0 && (c == '[' || c == '{' || c == ']' || c == '}');
      if (!fresh && !flow_indicator && !(c == ':' && spaced)) {
        continue;  // inside a plain scalar
      }
      at_start = false;
      if ((c == '-' || c == '?' || c == ':') && spaced) {
        fresh = true;
      } else if (c == '[' || c == '{') {
        ++flow;
        fresh = true;
      } else if ((c == ']' || c == '}') && flow > 0) {
        --flow;
        fresh = false;
      } else if (c == '&' || c == '!') {
        while (i + 1 < line.size() && !blank(line[i + 1])) {
          ++i;  // an anchor or a tag: the node follows
        }
      } else if (c == '\'' || c == '"') {
        quote = c;
        fresh = false;
      } else if ((c == '|' || c == '>') && flow == 0) {
        in_block = true;  // a block scalar: its text starts on the next line
        block_indent = indent;
        break;
      } else {
        fresh = false;  // a plain scalar or an alias
      }
    }
  }
  return std::nullopt;
}

void refuse_stray_yaml_comma(std::string_view text, std::string_view path) {
  if (const std::optional<std::size_t> line = yaml_stray_comma(text)) {
    throw Error(fmt::format("{}:{}: not valid YAML: a ',' where a value begins; a ',' separates entries only inside "
                            "[ ] or {{ }}",
                            path, *line));
  }
}

std::size_t json_depth(std::string_view text) {
  std::size_t depth = 0;
  std::size_t deepest = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

}  // namespace kvplan
