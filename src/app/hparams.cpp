// Neutral hyper-parameters (kvplan/hparams.hpp): values, and typed reads with exact messages.
#include "kvplan/hparams.hpp"

#include <fmt/format.h>

#include "kvplan/error.hpp"
#include "kvplan/text.hpp"

namespace kvplan {

const HValue* HObject::find(std::string_view key) const noexcept {
  for (const HEntry& e : entries) {
    if (e.key == key) {
      return &e.value;
    }
  }
  return nullptr;
}

HValue* HObject::find(std::string_view key) noexcept {
  for (HEntry& e : entries) {
    if (e.key == key) {
      return &e.value;
    }
  }
  return nullptr;
}

void HObject::set(std::string key, HValue value) {
  if (HValue* v = find(key)) {
    *v = std::move(value);
    return;
  }
  entries.push_back(HEntry{std::move(key), std::move(value)});
}

const char* HValue::type_name() const noexcept {
  switch (v.index()) {
    case 0:
      return "null";
    case 1:
      return "boolean";
    case 2:
    case 3:
    case 4:
      return "number";
    case 5:
      return "string";
    case 6:
      return "array";
    default:
      return "object";
  }
}

std::string brief(const HValue& v) {
  struct Visitor {
    std::string operator()(std::monostate) const { return "null"; }
    std::string operator()(bool b) const { return b ? "true" : "false"; }
    std::string operator()(std::uint64_t n) const { return std::to_string(n); }
    std::string operator()(std::int64_t n) const { return std::to_string(n); }
    std::string operator()(double d) const {
      // As JSON writes it: the shortest text that reads back, with ".0" on whole numbers.
      std::string s = fmt::format("{}", d);
      if (s.find_first_of(".einf") == std::string::npos) {
        s += ".0";
      }
      return s;
    }
    std::string operator()(const std::string& s) const { return quote_input(s); }
    std::string operator()(const HList& l) const { return fmt::format("an array of {}", l.size()); }
    std::string operator()(const HObject& o) const { return fmt::format("an object of {} keys", o.entries.size()); }
  };
  return std::visit(Visitor{}, v.v);
}

HFields::HFields(const HObject& object, std::string origin, std::string pointer)
    : m_object(&object), m_origin(std::move(origin)), m_pointer(std::move(pointer)) {}

std::string HFields::where(std::string_view key) const {
  return fmt::format("{}: {}/{}", m_origin, m_pointer, key);
}

void HFields::fail(std::string_view key, std::string_view message) const {
  throw Error(fmt::format("{}: {}", where(key), message));
}

const HValue* HFields::raw(std::string_view key) const {
  const HValue* v = m_object->find(key);
  return v == nullptr || v->is_null() ? nullptr : v;
}

bool HFields::has(std::string_view key) const { return raw(key) != nullptr; }

std::optional<std::uint64_t> HFields::uint(std::string_view key, std::uint64_t min, std::uint64_t max) const {
  const HValue* v = raw(key);
  if (v == nullptr) {
    return std::nullopt;
  }
  const auto range = [&] { return fmt::format("must be an integer in [{}, {}] (got {})", min, max, brief(*v)); };
  if (const auto* u = std::get_if<std::uint64_t>(&v->v)) {
    if (*u < min || *u > max) {
      fail(key, range());
    }
    return *u;
  }
  if (std::holds_alternative<std::int64_t>(v->v)) {  // negative
    fail(key, range());
  }
  if (const auto* d = std::get_if<double>(&v->v)) {
    // Some configs write 4096.0; accept whole numbers in range, refuse the rest.
    if (*d >= static_cast<double>(min) && *d <= static_cast<double>(max) &&
        *d == static_cast<double>(static_cast<std::uint64_t>(*d))) {
      return static_cast<std::uint64_t>(*d);
    }
    fail(key, range());
  }
  fail(key, fmt::format("must be an integer, not {} ({})", v->type_name(), brief(*v)));
}

std::uint64_t HFields::require_uint(std::string_view key, std::uint64_t min, std::uint64_t max) const {
  if (auto v = uint(key, min, max)) {
    return *v;
  }
  fail(key, "is required");
}

std::optional<double> number_of(const HValue& v) noexcept {
  if (const auto* d = std::get_if<double>(&v.v)) {
    return *d;
  }
  if (const auto* u = std::get_if<std::uint64_t>(&v.v)) {
    return static_cast<double>(*u);
  }
  if (const auto* i = std::get_if<std::int64_t>(&v.v)) {
    return static_cast<double>(*i);
  }
  return std::nullopt;
}

std::optional<double> HFields::real(std::string_view key) const {
  const HValue* v = raw(key);
  if (v == nullptr) {
    return std::nullopt;
  }
  if (const std::optional<double> n = number_of(*v)) {
    return n;
  }
  fail(key, fmt::format("must be a number, not {} ({})", v->type_name(), brief(*v)));
}

std::optional<bool> HFields::boolean(std::string_view key) const {
  const HValue* v = raw(key);
  if (v == nullptr) {
    return std::nullopt;
  }
  if (const auto* b = std::get_if<bool>(&v->v)) {
    return *b;
  }
  fail(key, fmt::format("must be true or false, not {}", v->type_name()));
}

std::optional<std::string> HFields::string(std::string_view key) const {
  const HValue* v = raw(key);
  if (v == nullptr) {
    return std::nullopt;
  }
  if (const auto* s = std::get_if<std::string>(&v->v)) {
    return *s;
  }
  fail(key, fmt::format("must be a string, not {}", v->type_name()));
}

const HList* HFields::list(std::string_view key) const {
  const HValue* v = raw(key);
  if (v == nullptr) {
    return nullptr;
  }
  if (const auto* l = std::get_if<HList>(&v->v)) {
    return l;
  }
  fail(key, fmt::format("must be an array, not {}", v->type_name()));
}

const HObject* HFields::object(std::string_view key) const {
  const HValue* v = raw(key);
  if (v == nullptr) {
    return nullptr;
  }
  if (const auto* o = std::get_if<HObject>(&v->v)) {
    return o;
  }
  fail(key, fmt::format("must be an object, not {}", v->type_name()));
}

std::optional<HFields> HFields::child(std::string_view key) const {
  const HObject* o = object(key);
  if (o == nullptr) {
    return std::nullopt;
  }
  return HFields(*o, m_origin, fmt::format("{}/{}", m_pointer, key));
}

}  // namespace kvplan
