// kvplan/hparams.hpp: a model's hyper-parameters in a neutral form, whatever file they came from.
// The config.json reader and the GGUF reader both produce an HObject named with config.json's
// keys ("num_hidden_layers", "text_config"); the architecture rules (kvplan/arch.hpp) read only
// this, never JSON or GGUF, so the two formats share every rule. HFields reads one object with
// range checks and messages that name the file and the key's path ("x.json: /text_config/
// num_hidden_layers: must be an integer in [1, 10000] (got -3)").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace kvplan {

struct HValue;
struct HEntry;

/// An object: entries in file order (config.json keys, or GGUF keys renamed to them).
struct HObject {
  std::vector<HEntry> entries;
  const HValue* find(std::string_view key) const noexcept;
  HValue* find(std::string_view key) noexcept;
  void set(std::string key, HValue value);  // replaces an entry of that key, or appends one
};

using HList = std::vector<HValue>;

/// One value: null, a boolean, a whole number (unsigned, or negative), a real, a string, a list
/// or an object, as JSON distinguishes them.
struct HValue {
  std::variant<std::monostate, bool, std::uint64_t, std::int64_t, double, std::string, HList, HObject> v;

  bool is_null() const noexcept { return std::holds_alternative<std::monostate>(v); }
  const char* type_name() const noexcept;  // "null", "boolean", "number", "string", "array", "object"
};

struct HEntry {
  std::string key;
  HValue value;
};

/// A number's value (whole, negative or real), or nullopt for any other type.
std::optional<double> number_of(const HValue& v) noexcept;

/// A value as a message quotes it: scalars as written (strings quoted and cut), lists and
/// objects by their size, never whole.
std::string brief(const HValue& v);

/// Typed, range-checked reads from one object; `origin` names the file, `pointer` the object's
/// path inside it ("" for the top level, "/text_config").
class HFields {
 public:
  HFields(const HObject& object, std::string origin, std::string pointer);

  bool has(std::string_view key) const;  // present and not null
  const HValue* raw(std::string_view key) const;  // present and not null, or nullptr
  std::optional<std::uint64_t> uint(std::string_view key, std::uint64_t min, std::uint64_t max) const;
  std::uint64_t require_uint(std::string_view key, std::uint64_t min, std::uint64_t max) const;
  std::optional<double> real(std::string_view key) const;
  std::optional<bool> boolean(std::string_view key) const;
  std::optional<std::string> string(std::string_view key) const;
  const HList* list(std::string_view key) const;
  const HObject* object(std::string_view key) const;
  /// A nested object's fields ("text_config"), or nullopt when absent.
  std::optional<HFields> child(std::string_view key) const;

  const HObject& object() const { return *m_object; }
  const std::string& origin() const { return m_origin; }
  const std::string& pointer() const { return m_pointer; }
  std::string where(std::string_view key) const;  // "origin: /pointer/key"
  [[noreturn]] void fail(std::string_view key, std::string_view message) const;

 private:
  const HObject* m_object;
  std::string m_origin;
  std::string m_pointer;
};

}  // namespace kvplan
