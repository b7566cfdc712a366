// The terminal renderer: aligned fields, aligned tables, numbers right-aligned.
#include <algorithm>
#include <fmt/format.h>
#include <ostream>

#include "kvplan/report.hpp"

namespace kvplan {
namespace {

bool numeric(const Cell& c) {
  return c.kind != Cell::Kind::text && c.kind != Cell::Kind::none && c.kind != Cell::Kind::flag;
}

// A text value longer than this does not widen the value column (it would push every number
// right): it starts where the column starts and runs into the detail.
constexpr std::size_t kWideText = 24;

bool wide(const Cell& c, const std::string& shown) { return c.kind == Cell::Kind::text && shown.size() > kWideText; }

void write_fields(const std::vector<Field>& fields, std::ostream& out) {
  std::size_t label_width = 0;
  std::size_t value_width = 0;
  for (const Field& f : fields) {
    if (f.label.empty()) {
      continue;  // machine-only field
    }
    label_width = std::max(label_width, f.label.size());
    const std::string shown = human(f.value);
    if (!wide(f.value, shown)) {
      value_width = std::max(value_width, shown.size());
    }
  }
  for (const Field& f : fields) {
    if (f.label.empty()) {
      continue;
    }
    const std::string shown = human(f.value);
    std::string line = wide(f.value, shown) ? fmt::format("  {:<{}}  {}", f.label, label_width, shown)
                                            : fmt::format("  {:<{}}  {:>{}}", f.label, label_width, shown, value_width);
    if (!f.detail.empty()) {
      line += "  " + f.detail;
    }
    out << line << '\n';
  }
}

void write_table(const Table& t, std::ostream& out) {
  if (!t.title.empty()) {
    out << "  " << t.title << '\n';
  }
  std::vector<std::size_t> width(t.columns.size());
  for (std::size_t c = 0; c < t.columns.size(); ++c) {
    width[c] = t.columns[c].label.size();
    for (const auto& row : t.rows) {
      width[c] = std::max(width[c], human(row[c]).size());
    }
  }
  auto write_row = [&](const std::vector<std::string>& cells, const std::vector<bool>& right) {
    std::string line = "   ";
    for (std::size_t c = 0; c < cells.size(); ++c) {
      line += right[c] ? fmt::format(" {:>{}}", cells[c], width[c]) : fmt::format(" {:<{}}", cells[c], width[c]);
      line += c + 1 < cells.size() ? " " : "";
    }
    while (!line.empty() && line.back() == ' ') {
      line.pop_back();
    }
    out << line << '\n';
  };
  std::vector<bool> right(t.columns.size(), false);
  for (std::size_t c = 0; c < t.columns.size(); ++c) {
    right[c] = !t.rows.empty() && numeric(t.rows.front()[c]);
  }
  std::vector<std::string> header;
  std::vector<std::string> rule;
  for (std::size_t c = 0; c < t.columns.size(); ++c) {
    header.push_back(t.columns[c].label);
    rule.emplace_back(width[c], '-');
  }
  write_row(header, right);
  write_row(rule, right);
  for (const auto& row : t.rows) {
    std::vector<std::string> cells;
    for (const Cell& c : row) {
      cells.push_back(human(c));
    }
    write_row(cells, right);
  }
  for (const std::string& n : t.notes) {
    out << "    " << n << '\n';
  }
}

}  // namespace

void render_table(const Document& doc, std::ostream& out) {
  if (!doc.title.empty()) {
    out << doc.title << '\n';
  }
  for (const Section& s : doc.sections) {
    if (s.title.empty() && s.fields.empty() && s.tables.empty() && s.notes.empty()) {
      continue;
    }
    out << '\n';
    if (!s.title.empty()) {
      out << s.title << '\n';
    }
    write_fields(s.fields, out);
    for (const Table& t : s.tables) {
      if (!s.fields.empty() || &t != &s.tables.front()) {
        out << '\n';
      }
      write_table(t, out);
    }
    for (const std::string& n : s.notes) {
      out << "  " << n << '\n';
    }
  }
  if (!doc.advice.empty()) {
    out << '\n';
    for (const std::string& a : doc.advice) {
      out << a << '\n';
    }
  }
}

}  // namespace kvplan
