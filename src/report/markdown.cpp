// The Markdown renderer: a heading per section, fields as a two-column table, pipe tables.
#include <ostream>

#include "kvplan/report.hpp"

namespace kvplan {
namespace {

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|') {
      out += '\\';
    }
    out += c;
  }
  return out;
}

void write_table(const Table& t, std::ostream& out) {
  if (!t.title.empty()) {
    out << "**" << escape(t.title) << "**\n\n";
  }
  out << '|';
  for (const Column& c : t.columns) {
    out << ' ' << escape(c.label) << " |";
  }
  out << "\n|";
  for (std::size_t c = 0; c < t.columns.size(); ++c) {
    const bool text = t.rows.empty() || t.rows.front()[c].kind == Cell::Kind::text;
    out << (text ? "---|" : "---:|");
  }
  out << '\n';
  for (const auto& row : t.rows) {
    out << '|';
    for (const Cell& c : row) {
      out << ' ' << escape(human(c)) << " |";
    }
    out << '\n';
  }
  for (const std::string& n : t.notes) {
    out << "\n" << escape(n) << '\n';
  }
  out << '\n';
}

}  // namespace

void render_markdown(const Document& doc, std::ostream& out) {
  if (!doc.title.empty()) {
    out << "# " << doc.title << "\n\n";
  }
  for (const Section& s : doc.sections) {
    if (!s.title.empty()) {
      out << "## " << s.title << "\n\n";
    }
    if (!s.fields.empty()) {
      out << "| Item | Value | Basis |\n|---|---:|---|\n";
      for (const Field& f : s.fields) {
        if (f.label.empty()) {
          continue;  // machine-only field
        }
        out << "| " << escape(f.label) << " | " << escape(human(f.value)) << " | " << escape(f.detail) << " |\n";
      }
      out << '\n';
    }
    for (const Table& t : s.tables) {
      if (!t.data_only && t.in_text) {
        write_table(t, out);
      }
    }
    for (const std::string& n : s.notes) {
      out << "- " << escape(n) << '\n';
    }
    if (!s.notes.empty()) {
      out << '\n';
    }
  }
  for (const std::string& a : doc.advice) {
    out << "> " << escape(a) << '\n';
  }
}

}  // namespace kvplan
