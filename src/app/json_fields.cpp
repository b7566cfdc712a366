// Typed JSON field access with exact error messages.
#include "json_fields.hpp"

#include <fmt/format.h>

#include <vector>

#include "kvplan/error.hpp"
#include "kvplan/text.hpp"

namespace kvplan {

JsonFields::JsonFields(const nlohmann::json& object, std::string origin, std::string pointer)
    : m_object(object), m_origin(std::move(origin)), m_pointer(std::move(pointer)) {
  if (!m_object.is_object()) {
    throw Error(fmt::format("{}: {}: expected a JSON object", m_origin, m_pointer.empty() ? "/" : m_pointer));
  }
}

std::string JsonFields::where(std::string_view key) const {
  return fmt::format("{}: {}/{}", m_origin, m_pointer, key);
}

void JsonFields::fail(std::string_view key, std::string_view message) const {
  throw Error(fmt::format("{}: {}", where(key), message));
}

bool JsonFields::has(std::string_view key) const {
  const auto it = m_object.find(key);
  return it != m_object.end() && !it->is_null();
}

std::optional<std::uint64_t> JsonFields::uint(std::string_view key, std::uint64_t min, std::uint64_t max) const {
  const auto it = m_object.find(key);
  if (it == m_object.end() || it->is_null()) {
    return std::nullopt;
  }
  const auto range = [&] { return fmt::format("must be an integer in [{}, {}] (got {})", min, max, brief(*it)); };
  if (it->is_number_unsigned()) {
    const auto v = it->get<std::uint64_t>();
    if (v < min || v > max) {
      fail(key, range());
    }
    return v;
  }
  if (it->is_number_integer()) {  // negative
    fail(key, range());
  }
  if (it->is_number_float()) {
    const double d = it->get<double>();
    // Some configs write 4096.0; accept whole numbers in range, refuse the rest.
    if (d >= static_cast<double>(min) && d <= static_cast<double>(max) && d == static_cast<double>(static_cast<std::uint64_t>(d))) {
      return static_cast<std::uint64_t>(d);
    }
    fail(key, range());
  }
  fail(key, fmt::format("must be an integer, not {} ({})", it->type_name(), brief(*it)));
}

std::uint64_t JsonFields::require_uint(std::string_view key, std::uint64_t min, std::uint64_t max) const {
  if (auto v = uint(key, min, max)) {
    return *v;
  }
  fail(key, "is required");
}

std::optional<bool> JsonFields::boolean(std::string_view key) const {
  const auto it = m_object.find(key);
  if (it == m_object.end() || it->is_null()) {
    return std::nullopt;
  }
  if (!it->is_boolean()) {
    fail(key, fmt::format("must be true or false, not {}", it->type_name()));
  }
  return it->get<bool>();
}

std::optional<std::string> JsonFields::string(std::string_view key) const {
  const auto it = m_object.find(key);
  if (it == m_object.end() || it->is_null()) {
    return std::nullopt;
  }
  if (!it->is_string()) {
    fail(key, fmt::format("must be a string, not {}", it->type_name()));
  }
  return it->get<std::string>();
}

const nlohmann::json* JsonFields::array(std::string_view key) const {
  const auto it = m_object.find(key);
  if (it == m_object.end() || it->is_null()) {
    return nullptr;
  }
  if (!it->is_array()) {
    fail(key, fmt::format("must be an array, not {}", it->type_name()));
  }
  return &*it;
}

const nlohmann::json* JsonFields::object(std::string_view key) const {
  const auto it = m_object.find(key);
  if (it == m_object.end() || it->is_null()) {
    return nullptr;
  }
  if (!it->is_object()) {
    fail(key, fmt::format("must be an object, not {}", it->type_name()));
  }
  return &*it;
}

// "[json.exception.parse_error.101] parse error at line 1, column 5: syntax error ..." ->
// "syntax error ..."; "[json.exception.out_of_range.406] number overflow ..." -> "number overflow ...".
// The token nlohmann quotes ("last read: '...'", "parsing '...'") is cut like any user input.
std::string json_error_text(const nlohmann::json::exception& e) {
  std::string_view what = e.what();
  if (const std::size_t bracket = what.find("] "); bracket != std::string_view::npos) {
    what.remove_prefix(bracket + 2);
  }
  if (what.rfind("parse error", 0) == 0) {
    if (const std::size_t colon = what.find(": "); colon != std::string_view::npos) {
      what.remove_prefix(colon + 2);
    }
  }
  const std::size_t open = what.find('\'');
  const std::size_t close = what.rfind('\'');
  if (open == std::string_view::npos || close <= open) {
    return one_line(what);
  }
  return one_line(what.substr(0, open)) + quote_input(what.substr(open + 1, close - open - 1)) +
         one_line(what.substr(close + 1));
}

std::string brief(const nlohmann::json& v) {
  if (v.is_string()) {
    return quote_input(v.get_ref<const std::string&>());
  }
  if (v.is_array()) {
    return fmt::format("an array of {}", v.size());
  }
  if (v.is_object()) {
    return fmt::format("an object of {} keys", v.size());
  }
  return v.dump();  // a number, a boolean or null: a few characters
}

namespace {

// Replaces NaN, Infinity and -Infinity outside strings with null. Infinity and -Infinity are
// padded to their own length; NaN's "null" is one byte longer, so `nan_at` keeps where each one
// was, to map a parse error's byte offset back into the original text. False when there are none.
bool without_python_literals(std::string_view text, std::string& out, std::vector<std::size_t>& nan_at) {
  bool in_string = false;
  bool changed = false;
  std::size_t copied = 0;  // text before this offset is already in `out`
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
      continue;
    }
    for (std::string_view word : {std::string_view("-Infinity"), std::string_view("Infinity"), std::string_view("NaN")}) {
      if (text.substr(i, word.size()) == word) {
        changed = true;
        out.append(text.substr(copied, i - copied));
        if (word.size() >= 4) {
          out.append("null").append(word.size() - 4, ' ');
        } else {
          nan_at.push_back(i);
          out.append("null");
        }
        copied = i + word.size();
        i += word.size() - 1;
        break;
      }
    }
  }
  if (changed) {
    out.append(text.substr(copied));
  }
  return changed;
}

// A byte offset in the cleaned text, as an offset in the original (each NaN before it added one).
std::size_t original_offset(std::size_t cleaned, const std::vector<std::size_t>& nan_at) {
  std::size_t shift = 0;
  for (const std::size_t at : nan_at) {
    if (at + shift + 4 > cleaned) {
      break;
    }
    ++shift;
  }
  return cleaned - shift;
}

}  // namespace

nlohmann::json parse_json_text(std::string_view text, std::string_view origin) {
  constexpr std::size_t kMaxBytes = 16 * 1024 * 1024;
  if (text.size() > kMaxBytes) {
    throw Error(fmt::format("{}: {} bytes is too large for a config file (limit 16 MiB)", origin, text.size()));
  }
  if (json_depth(text) > kMaxJsonDepth) {
    throw Error(fmt::format("{}: JSON nested deeper than {} levels; a config.json is a few levels deep", origin,
                            kMaxJsonDepth));
  }
  // Python's json module writes the non-standard literals NaN, Infinity and -Infinity, and real
  // config.json files carry them (Nemotron-H's "time_step_limit": [0.0, Infinity]); nlohmann reads
  // JSON only, so they become null, which no rule reads as a number.
  std::string cleaned;
  std::vector<std::size_t> nan_at;
  const std::string_view source = without_python_literals(text, cleaned, nan_at) ? std::string_view(cleaned) : text;
  try {
    return nlohmann::json::parse(source.begin(), source.end());
  } catch (const nlohmann::json::parse_error& e) {
    throw Error(fmt::format("{}: not valid JSON (byte {}): {}", origin, original_offset(e.byte, nan_at),
                            json_error_text(e)));
  } catch (const nlohmann::json::exception& e) {  // e.g. out_of_range.406: number overflow
    throw Error(fmt::format("{}: not valid JSON: {}", origin, json_error_text(e)));
  }
}

}  // namespace kvplan
