// The JSON renderer: "schema_version": 1, sections as objects, tables as arrays of row objects,
// raw integers throughout. docs/schema/plan.schema.json describes the result.
#include <algorithm>
#include <nlohmann/json.hpp>
#include <ostream>

#include "kvplan/report.hpp"

namespace kvplan {
namespace {

nlohmann::json value(const Cell& c) {
  switch (c.kind) {
    case Cell::Kind::text:
      return c.text;
    case Cell::Kind::count:
    case Cell::Kind::bytes:
    case Cell::Kind::tokens:
      return c.n;
    case Cell::Kind::number:
    case Cell::Kind::ratio:
    case Cell::Kind::percent:
      return c.x;
    case Cell::Kind::flag:
      return c.n != 0;
    case Cell::Kind::none:
      break;
  }
  return nullptr;
}

}  // namespace

void render_json(const Document& doc, std::ostream& out) {
  nlohmann::ordered_json root;
  root["schema_version"] = 1;
  for (const Section& s : doc.sections) {
    // A dotted key nests: "with_fix.budget" is root["with_fix"]["budget"].
    nlohmann::ordered_json* target_ptr = &root;
    for (std::size_t start = 0; start < s.key.size();) {
      const std::size_t dot = std::min(s.key.find('.', start), s.key.size());
      target_ptr = &(*target_ptr)[s.key.substr(start, dot - start)];
      start = dot + 1;
    }
    nlohmann::ordered_json& target = *target_ptr;
    for (const Field& f : s.fields) {
      if (!f.key.empty()) {
        target[f.key] = value(f.value);
      }
    }
    for (const Table& t : s.tables) {
      nlohmann::ordered_json rows = nlohmann::ordered_json::array();
      for (const auto& row : t.rows) {
        nlohmann::ordered_json r;
        for (std::size_t c = 0; c < t.columns.size(); ++c) {
          r[t.columns[c].key] = value(row[c]);
        }
        rows.push_back(std::move(r));
      }
      target[t.key] = std::move(rows);
    }
    if (!s.notes.empty() && !s.key.empty()) {
      target["notes"] = s.notes;
    }
  }
  if (!doc.advice.empty()) {
    root["advice"] = doc.advice;
  }
  out << root.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
}

}  // namespace kvplan
