// Typed, range-checked reads from a JSON object, with messages that name the file and the JSON
// pointer ("models/x.json: /num_hidden_layers: must be an integer in [1, 10000] (got -3)").
// Private to the app layer (src/app), shared by the config reader and the catalog loader.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace kvplan {

class JsonFields {
 public:
  JsonFields(const nlohmann::json& object, std::string origin, std::string pointer);

  bool has(std::string_view key) const;  // present and not null
  std::optional<std::uint64_t> uint(std::string_view key, std::uint64_t min, std::uint64_t max) const;
  std::uint64_t require_uint(std::string_view key, std::uint64_t min, std::uint64_t max) const;
  std::optional<bool> boolean(std::string_view key) const;
  std::optional<std::string> string(std::string_view key) const;
  const nlohmann::json* array(std::string_view key) const;
  const nlohmann::json* object(std::string_view key) const;
  const nlohmann::json& json() const { return m_object; }
  const std::string& origin() const { return m_origin; }

  std::string where(std::string_view key) const;  // "origin: /pointer/key"
  [[noreturn]] void fail(std::string_view key, std::string_view message) const;

 private:
  const nlohmann::json& m_object;
  std::string m_origin;
  std::string m_pointer;
};

/// Parses JSON text; a syntax error becomes kvplan::Error naming `origin` and the byte offset.
nlohmann::json parse_json_text(std::string_view text, std::string_view origin);

/// nlohmann's message without its "[json.exception...]" prefix, one line, the token it quotes cut.
std::string json_error_text(const nlohmann::json::exception& e);

/// A JSON value as a message quotes it: scalars as written (strings quoted and cut), arrays and
/// objects by their size, never dumped whole.
std::string brief(const nlohmann::json& v);

}  // namespace kvplan
