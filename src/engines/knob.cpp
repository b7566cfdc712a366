// Knobs: typed values, their readers by type, and the class tables every engine writes as TSV.
#include <algorithm>
#include <fmt/format.h>
#include <map>
#include <mutex>
#include <optional>
#include <nlohmann/json.hpp>

#include "kvplan/engine.hpp"
#include "kvplan/error.hpp"
#include "kvplan/quantity.hpp"
#include "kvplan/text.hpp"
#include "kvplan/units.hpp"

namespace kvplan {

void KnobSet::set(std::size_t knob, KnobValue value) {
  for (auto& [k, v] : values_) {
    if (k == knob) {
      v = std::move(value);
      return;
    }
  }
  values_.emplace_back(knob, std::move(value));
}

void KnobSet::erase(std::size_t knob) {
  std::erase_if(values_, [knob](const auto& kv) { return kv.first == knob; });
}

const KnobValue* KnobSet::find(std::size_t knob) const noexcept {
  for (const auto& [k, v] : values_) {
    if (k == knob) {
      return &v;
    }
  }
  return nullptr;
}

std::optional<std::uint64_t> KnobSet::number(std::size_t knob) const noexcept {
  const KnobValue* v = find(knob);
  if (v == nullptr || !std::holds_alternative<std::uint64_t>(*v)) {
    return std::nullopt;
  }
  return std::get<std::uint64_t>(*v);
}

std::optional<bool> KnobSet::flag(std::size_t knob) const noexcept {
  const KnobValue* v = find(knob);
  if (v == nullptr || !std::holds_alternative<bool>(*v)) {
    return std::nullopt;
  }
  return std::get<bool>(*v);
}

std::optional<DType> KnobSet::dtype(std::size_t knob) const noexcept {
  const KnobValue* v = find(knob);
  if (v == nullptr || !std::holds_alternative<DType>(*v)) {
    return std::nullopt;
  }
  return std::get<DType>(*v);
}

std::optional<std::size_t> Engine::knob_index(std::string_view key) const noexcept {
  const std::span<const Knob> all = knobs();
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (all[i].key == key) {
      return i;
    }
  }
  return std::nullopt;
}

void Engine::serve_shape(std::uint64_t batch, std::uint64_t len, KnobSet& knobs) const {
  (void)len;
  if (const auto cap = cap_knob()) {
    knobs.set(*cap, batch);
  }
}

namespace {

std::vector<std::string> split(std::string_view s, char sep) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= s.size()) {
    const std::size_t end = std::min(s.find(sep, start), s.size());
    out.emplace_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

// A table row: spellings (comma-separated) \t value|flag|list|optional \t modelled|unmodelled|none \t why \t source.
// A class table's rows (TSV, '#' comments and blank lines left out), each with its line number.
std::vector<std::pair<std::size_t, std::vector<std::string>>> table_rows(std::string_view table) {
  std::vector<std::pair<std::size_t, std::vector<std::string>>> rows;
  std::size_t line_no = 0;
  for (const std::string& line : split(table, '\n')) {
    ++line_no;
    if (!line.empty() && line.front() != '#') {
      rows.emplace_back(line_no, split(line, '\t'));
    }
  }
  return rows;
}

// modelled | unmodelled | none.
std::optional<Memory> memory_class(const std::string& text) {
  return text == "modelled" ? std::optional(Memory::modelled)
         : text == "unmodelled" ? std::optional(Memory::unmodelled)
         : text == "none"       ? std::optional(Memory::none)
                                : std::nullopt;
}

std::vector<FlagClass> parse_flag_table(std::string_view table, std::string_view engine) {
  std::vector<FlagClass> rows;
  for (const auto& [line_no, cols] : table_rows(table)) {
    if ((cols.size() != 5 && cols.size() != 6) ||
        (cols[1] != "value" && cols[1] != "flag" && cols[1] != "list" && cols[1] != "optional") ||
        !memory_class(cols[2]) || (cols.size() == 6 && cols[5] != "-" && cols[2] != "modelled")) {
      // A malformed table is a build defect, caught by the engine tests.
      throw Error(fmt::format("{} flag table, line {}: expected 5 or 6 tab-separated columns "
                              "(flags, value|flag|list|optional, modelled|unmodelled|none, why, source[, knob or -]), "
                              "a knob only on modelled rows",
                              engine, line_no));
    }
    FlagClass row;
    const std::size_t slash = cols[0].find(" / ");
    for (const std::string& s : split(std::string_view(cols[0]).substr(0, slash), ',')) {
      row.spellings.push_back(s);
    }
    if (slash != std::string::npos) {
      for (const std::string& s : split(std::string_view(cols[0]).substr(slash + 3), ',')) {
        row.negations.push_back(s);
      }
    }
    row.arity = cols[1] == "value"  ? FlagClass::Arity::value
                : cols[1] == "flag" ? FlagClass::Arity::flag
                : cols[1] == "list" ? FlagClass::Arity::list
                                    : FlagClass::Arity::optional;
    row.memory = *memory_class(cols[2]);
    row.why = cols[3];
    row.source = cols[4];
    if (cols.size() == 6 && cols[5] != "-") {
      row.knob = cols[5];
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

// A removed-flag row: the class table's five columns, then the first release with the flag and the first
// without it, ordered by the engine's release_rank.
std::vector<RemovedFlag> parse_removed_flag_table(const Engine& engine, std::string_view table) {
  std::vector<RemovedFlag> rows;
  for (const auto& [line_no, cols] : table_rows(table)) {
    const std::optional<int> since = cols.size() == 7 ? engine.release_rank(cols[5]) : std::nullopt;
    const std::optional<int> until = cols.size() == 7 ? engine.release_rank(cols[6]) : std::nullopt;
    if (!since || !until || *since >= *until || cols[2] == "modelled") {
      throw Error(fmt::format("{} removed-flag table, line {}: expected 7 tab-separated columns (flags, arity, "
                              "unmodelled|none, why, source, first release with it, first release without it), in "
                              "order",
                              engine.name(), line_no));
    }
    std::string five;
    for (std::size_t k = 0; k < 5; ++k) {
      five += (k == 0 ? "" : "\t") + cols[k];
    }
    std::vector<FlagClass> parsed = parse_flag_table(five, engine.name());
    rows.push_back(RemovedFlag{std::move(parsed.front()), cols[5], cols[6], *since, *until});
  }
  return rows;
}

// An option-table row: path \t knob key or - \t modelled|unmodelled|none \t default or - \t why \t source.
std::vector<OptionClass> parse_option_table(std::string_view table, std::string_view engine) {
  std::vector<OptionClass> rows;
  for (const auto& [line_no, cols] : table_rows(table)) {
    if (cols.size() != 6 || cols[0].empty() || !memory_class(cols[2]) || (cols[2] == "modelled") == (cols[1] == "-")) {
      throw Error(fmt::format("{} option table, line {}: expected 6 tab-separated columns (path, knob or -, "
                              "modelled|unmodelled|none, default or -, why, source), a knob exactly on modelled rows",
                              engine, line_no));
    }
    rows.push_back(OptionClass{cols[0], cols[1] == "-" ? std::string() : cols[1], *memory_class(cols[2]),
                               cols[3] == "-" ? std::string() : cols[3], cols[4], cols[5]});
  }
  return rows;
}

bool on_off(std::string_view text, bool& value) {
  const std::string t = to_lower(text);
  if (t == "on" || t == "true" || t == "1" || t == "yes") {
    value = true;
    return true;
  }
  if (t == "off" || t == "false" || t == "0" || t == "no") {
    value = false;
    return true;
  }
  return false;
}

}  // namespace

namespace {

// A table parsed once per engine (the tables are constants of the build); `parse` builds its rows.
template <class Row, class Parse>
const std::vector<Row>& parsed_once(const Engine* e, Parse parse) {
  static std::mutex mutex;
  static std::map<const Engine*, std::vector<Row>> cache;
  const std::lock_guard lock(mutex);
  auto it = cache.find(e);
  if (it == cache.end()) {
    it = cache.emplace(e, parse()).first;
  }
  return it->second;
}

}  // namespace

const std::vector<FlagClass>& Engine::flag_classes() const { return flag_table_rows(flag_table(), name()); }

const std::vector<RemovedFlag>& Engine::removed_flags() const {
  return parsed_once<RemovedFlag>(this, [this] { return parse_removed_flag_table(*this, removed_flag_table()); });
}

const std::vector<FlagClass>& flag_table_rows(std::string_view table, std::string_view engine) {
  // Keyed by the table's text: the tables are string constants of the build.
  static std::mutex mutex;
  static std::map<const char*, std::vector<FlagClass>> cache;
  const std::lock_guard lock(mutex);
  auto it = cache.find(table.data());
  if (it == cache.end()) {
    it = cache.emplace(table.data(), parse_flag_table(table, engine)).first;
  }
  return it->second;
}

const std::vector<OptionClass>& Engine::option_classes() const {
  return parsed_once<OptionClass>(this, [this] { return parse_option_table(option_table(), name()); });
}

namespace {

// A positive decimal multiple ("2", "2.5", ".5") in parts per million, at most 1,000.
std::uint64_t parse_ratio_ppm(std::string_view where, std::string_view text) {
  const std::optional<double> x = to_decimal(!text.empty() && text.front() == '.' ? "0" + std::string(text) : text);
  if (!x || !(*x > 0) || *x > 1000) {
    throw Error(fmt::format("{}: expected a positive number such as 2.0, at most 1000 (got {})", where,
                            quote_input(text)));
  }
  const auto ppm = static_cast<std::uint64_t>(*x * 1e6 + 0.5);
  if (ppm == 0) {
    throw Error(fmt::format("{}: {} is below one part per million", where, quote_input(text)));
  }
  return ppm;
}

}  // namespace

KnobValue read_knob(const Knob& knob, std::string_view where, std::string_view text) {
  switch (knob.type) {
    case KnobType::count: {
      if (knob.zero_ok && text == "0") {
        return std::uint64_t{0};
      }
      return parse_count(where, text, knob.max == 0 ? (std::uint64_t{1} << 40) : knob.max);
    }
    case KnobType::tokens:
      if (knob.zero_ok && text == "0") {
        return std::uint64_t{0};
      }
      return parse_tokens(where, text);
    case KnobType::bytes: {
      if (knob.zero_ok && text == "0") {
        return std::uint64_t{0};
      }
      if (const auto plain = to_unsigned(text); plain && *plain > 0) {
        return *plain;  // plain bytes, as engines write them
      }
      return parse_size(where, text).bytes;
    }
    case KnobType::fraction:
      return std::uint64_t{parse_fraction_ppm(where, text)};
    case KnobType::ratio:
      return parse_ratio_ppm(where, text);
    case KnobType::flag: {
      bool v = false;
      if (!on_off(text, v)) {
        throw Error(fmt::format("{}: expected on or off (got {})", where, quote_input(text)));
      }
      return v;
    }
    case KnobType::dtype: {
      std::string name = to_lower(text);
      if (name == "auto") {
        return std::string("auto");
      }
      if (name == "f16") {
        name = "fp16";
      } else if (name == "f32") {
        name = "fp32";
      }
      if (const DType* d = find_dtype(kv_dtypes(), name)) {
        return *d;
      }
      std::vector<std::string> names;
      for (const DType& d : kv_dtypes()) {
        names.emplace_back(d.name);
      }
      throw Error(fmt::format("{}: unknown cache dtype {}{}", where, quote_input(text), did_you_mean(text, names)));
    }
    case KnobType::text:
      return std::string(text);
    case KnobType::json: {
      if (json_depth(text) > kMaxJsonDepth) {
        throw Error(fmt::format("{}: JSON nested deeper than {} levels", where, kMaxJsonDepth));
      }
      try {
        const nlohmann::json parsed = nlohmann::json::parse(text);
        (void)parsed;
      } catch (const nlohmann::json::exception&) {
        throw Error(fmt::format("{}: expected a JSON value (got {})", where, quote_input(text)));
      }
      return std::string(text);
    }
  }
  return std::string(text);
}

std::string knob_text(const Knob& knob, const KnobValue& value) {
  if (const auto* n = std::get_if<std::uint64_t>(&value)) {
    if (knob.type == KnobType::fraction || knob.type == KnobType::ratio) {
      std::string s = fmt::format("{:.6f}", static_cast<double>(*n) / 1e6);
      while (s.back() == '0') {
        s.pop_back();
      }
      return s.back() == '.' ? s + "0" : s;
    }
    return std::to_string(*n);
  }
  if (const auto* b = std::get_if<bool>(&value)) {
    return *b ? "on" : "off";
  }
  if (const auto* d = std::get_if<DType>(&value)) {
    return std::string(d->name);
  }
  return std::get<std::string>(value);
}

}  // namespace kvplan
