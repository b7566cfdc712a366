// The CSV renderer: raw integers, one block per table, each row led by its table's name, so
// `grep '^frontier,'` selects one table. Fields come first as a "fields" table.
#include <fmt/format.h>
#include <ostream>

#include "kvplan/report.hpp"

namespace kvplan {
namespace {

std::string quote(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) {
    return s;
  }
  std::string out = "\"";
  for (char c : s) {
    out += c == '"' ? std::string("\"\"") : std::string(1, c);
  }
  return out + "\"";
}

std::string raw(const Cell& c) {
  switch (c.kind) {
    case Cell::Kind::text:
      return quote(c.text);
    case Cell::Kind::count:
    case Cell::Kind::bytes:
    case Cell::Kind::tokens:
      return std::to_string(c.n);
    case Cell::Kind::number:
      return fmt::format("{:g}", c.x);
    case Cell::Kind::ratio:
      return fmt::format("{:.4f}", c.x);
    case Cell::Kind::percent:
      return fmt::format("{:.2f}", c.x);
    case Cell::Kind::flag:
      return c.n != 0 ? "true" : "false";
    case Cell::Kind::none:
      break;
  }
  return "";
}

}  // namespace

void render_csv(const Document& doc, std::ostream& out) {
  out << "table,section,field,value\n";
  for (const Section& s : doc.sections) {
    for (const Field& f : s.fields) {
      if (!f.key.empty()) {
        out << "fields," << (s.key.empty() ? "plan" : s.key) << ',' << f.key << ',' << raw(f.value) << '\n';
      }
    }
  }
  for (const Section& s : doc.sections) {
    for (const Table& t : s.tables) {
      out << "\ntable";
      for (const Column& c : t.columns) {
        out << ',' << c.key;
      }
      out << '\n';
      for (const auto& row : t.rows) {
        out << t.key;
        for (const Cell& c : row) {
          out << ',' << raw(c);
        }
        out << '\n';
      }
    }
  }
}

}  // namespace kvplan
