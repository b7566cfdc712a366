// The terminal renderer: aligned fields, aligned tables, numbers right-aligned. With a width
// (View), details, notes and a table's last text column wrap under their own column; numbers never
// wrap. With colour, a verdict (a yes/no field) is green or red.
#include <algorithm>
#include <fmt/format.h>
#include <optional>
#include <ostream>
#include <sstream>

#include "kvplan/report.hpp"

namespace kvplan {

std::size_t display_width(std::string_view text) {
  return static_cast<std::size_t>(
      std::count_if(text.begin(), text.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0U) != 0x80U; }));
}

std::vector<std::string> wrap_words(std::string_view text, std::size_t width) {
  std::vector<std::string> lines;
  std::string line;
  std::size_t line_width = 0;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = std::min(text.find(' ', start), text.size());
    const std::string_view word = text.substr(start, end - start);
    start = end + 1;
    if (word.empty()) {
      continue;
    }
    std::size_t w = display_width(word);
    if (w > width && width > 0) {
      // A word longer than the line (a hash, a path) is cut at the width.
      if (!line.empty()) {
        lines.push_back(std::move(line));
        line.clear();
        line_width = 0;
      }
      std::string_view rest = word;
      while (display_width(rest) > width) {
        std::size_t cut = 0;
        for (std::size_t cols = 0; cut < rest.size() && cols < width; ++cut) {
          cols += (static_cast<unsigned char>(rest[cut]) & 0xC0U) != 0x80U ? std::size_t{1} : std::size_t{0};
          while (cut + 1 < rest.size() && (static_cast<unsigned char>(rest[cut + 1]) & 0xC0U) == 0x80U) {
            ++cut;
          }
        }
        lines.emplace_back(rest.substr(0, cut));
        rest = rest.substr(cut);
      }
      line = std::string(rest);
      line_width = display_width(rest);
      continue;
    }
    if (!line.empty() && line_width + 1 + w > width) {
      lines.push_back(std::move(line));
      line.clear();
      line_width = 0;
    }
    if (!line.empty()) {
      line += ' ';
      ++line_width;
    }
    line += word;
    line_width += w;
  }
  if (!line.empty() || lines.empty()) {
    lines.push_back(std::move(line));
  }
  return lines;
}

std::vector<std::string> wrap_line(std::string_view head, std::string_view text, std::size_t width, std::size_t hang) {
  const std::size_t indent = display_width(head);
  if (width == 0 || indent + display_width(text) <= width) {
    return {std::string(head) + std::string(text)};
  }
  hang = std::min(hang, width > 24 ? width - 24 : 0);
  std::vector<std::string> out;
  const std::vector<std::string> first = wrap_words(text, std::max<std::size_t>(width > indent ? width - indent : 0, 24));
  out.push_back(std::string(head) + first.front());
  std::string rest;
  for (std::size_t i = 1; i < first.size(); ++i) {
    rest += (rest.empty() ? "" : " ") + first[i];
  }
  if (!rest.empty()) {
    for (const std::string& l : wrap_words(rest, width - hang)) {
      out.push_back(std::string(hang, ' ') + l);
    }
  }
  return out;
}

namespace {

bool numeric(const Cell& c) {
  return c.kind != Cell::Kind::text && c.kind != Cell::Kind::none && c.kind != Cell::Kind::flag;
}

// A text value longer than this does not widen the value column (it would push every number
// right): it starts where the column starts and runs into the detail.
constexpr std::size_t kWideText = 24;

bool wide(const Cell& c, const std::string& shown) { return c.kind == Cell::Kind::text && shown.size() > kWideText; }

// The narrowest a wrapped column may get before its continuation lines start further left.
constexpr std::size_t kMinColumn = 24;

constexpr std::size_t kUnderText = static_cast<std::size_t>(-1);

// `head` then `text`, the text wrapped to the view's width; continuation lines start `hang`
// columns in (kUnderText: under where the text starts, or `fallback` when that leaves too little room).
void write_wrapped(std::ostream& out, const std::string& head, const std::string& text, const View& view,
                   std::size_t fallback = 6, std::size_t hang = kUnderText) {
  const std::size_t indent = display_width(head);
  if (view.width == 0 || indent + display_width(text) <= view.width) {
    out << head << text << '\n';
    return;
  }
  if (hang == kUnderText) {
    hang = indent + kMinColumn <= view.width ? indent : fallback;
  }
  const std::size_t first = view.width > indent ? view.width - indent : 1;
  const std::vector<std::string> words = wrap_words(text, std::max(first, kMinColumn));
  // The first line takes what fits after the head; the rest are re-wrapped under the hang.
  std::string rest;
  for (std::size_t i = 1; i < words.size(); ++i) {
    rest += (rest.empty() ? "" : " ") + words[i];
  }
  out << head << words.front() << '\n';
  if (!rest.empty()) {
    for (const std::string& l : wrap_words(rest, view.width > hang ? view.width - hang : 1)) {
      out << std::string(hang, ' ') << l << '\n';
    }
  }
}

// A yes/no value in the verdict's colour: green for yes, red for no (SGR 32 and 31).
std::string coloured(const Cell& c, const std::string& padded, const View& view) {
  if (!view.color || c.kind != Cell::Kind::flag) {
    return padded;
  }
  const std::size_t at = padded.find_first_not_of(' ');
  if (at == std::string::npos) {
    return padded;
  }
  return padded.substr(0, at) + (c.n != 0 ? "\x1b[32m" : "\x1b[31m") + padded.substr(at) + "\x1b[0m";
}

void write_fields(const std::vector<Field>& fields, std::ostream& out, const View& view) {
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
    const std::string label = fmt::format("  {:<{}}  ", f.label, label_width);
    if (wide(f.value, shown)) {
      write_wrapped(out, label, f.detail.empty() ? shown : shown + "  " + f.detail, view);
      continue;
    }
    const std::string value = coloured(f.value, fmt::format("{:>{}}", shown, value_width), view);
    if (f.detail.empty()) {
      out << label << value << '\n';
      continue;
    }
    if (view.width == 0) {
      out << label << value << "  " << f.detail << '\n';
      continue;
    }
    // The colour codes take no columns: wrap as if the value were plain.
    const std::string plain_head = label + fmt::format("{:>{}}", shown, value_width) + "  ";
    std::ostringstream wrapped;
    write_wrapped(wrapped, plain_head, f.detail, view);
    std::string text = wrapped.str();
    text.replace(0, plain_head.size(), label + value + "  ");
    out << text;
  }
}

void write_table(const Table& t, std::ostream& out, const View& view) {
  if (!t.title.empty()) {
    write_wrapped(out, "  ", t.title, view, 4);
  }
  if (t.columns.empty()) {
    return;
  }
  const std::size_t n = t.columns.size();
  std::vector<std::size_t> width(n);
  for (std::size_t c = 0; c < n; ++c) {
    width[c] = t.columns[c].label.size();
    for (const auto& row : t.rows) {
      width[c] = std::max(width[c], human(row[c]).size());
    }
  }
  std::vector<bool> right(n, false);
  for (std::size_t c = 0; c < n; ++c) {
    right[c] = !t.rows.empty() && numeric(t.rows.front()[c]);
  }
  // Columns whose numbers alone are wider than the view (a simulation's eleven, a sweep's
  // eighteen): the columns in groups that fit, each group after the columns that name a row, the
  // title before the first group and the notes after the last. Numbers never wrap, so the table
  // splits instead.
  if (view.width != 0 && n > 2) {
    const auto least = [&](std::size_t c) { return right[c] ? width[c] : std::min(width[c], kMinColumn); };
    const bool last_stacks = !right[n - 1] && width[n - 1] > kMinColumn;
    std::size_t need = n - 1;
    for (std::size_t c = 0; c < (last_stacks ? n - 1 : n); ++c) {
      need += 1 + least(c);
    }
    if (need > view.width) {
      // The leading text columns name a row (a model and its GPU, an allocator): each group repeats them.
      std::size_t keys = 1;
      while (keys + 1 < n && !right[keys]) {
        ++keys;
      }
      std::size_t key_width = 0;
      for (std::size_t c = 0; c < keys; ++c) {
        key_width += 2 + width[c];
      }
      std::size_t widest = 0;
      for (std::size_t c = keys; c < n; ++c) {
        widest = std::max(widest, 2 + least(c));
      }
      if (2 + key_width + widest > view.width) {  // the names alone fill the line: the first, narrowed
        keys = 1;
        key_width = 2 + least(0);
      }
      std::vector<std::vector<std::size_t>> groups;
      std::size_t used = 0;
      for (std::size_t c = keys; c < n; ++c) {
        const std::size_t add = 2 + least(c);
        if (groups.empty() || used + add > view.width) {
          groups.push_back({});
          used = 2 + key_width;  // the indent and the naming columns
        }
        groups.back().push_back(c);
        used += add;
      }
      for (std::size_t g = 0; g < groups.size(); ++g) {
        Table part;  // the title is written above already
        for (std::size_t c = 0; c < keys; ++c) {
          part.columns.push_back(t.columns[c]);
        }
        for (const std::size_t c : groups[g]) {
          part.columns.push_back(t.columns[c]);
        }
        for (const auto& row : t.rows) {
          std::vector<Cell> cells(row.begin(), row.begin() + static_cast<std::ptrdiff_t>(keys));
          for (const std::size_t c : groups[g]) {
            cells.push_back(row[c]);
          }
          part.rows.push_back(std::move(cells));
        }
        if (g + 1 == groups.size()) {
          part.notes = t.notes;
        }
        if (g > 0) {
          out << '\n';
        }
        write_table(part, out, view);
      }
      return;
    }
  }
  // Fitting a width: the indent goes first; then the widest text column wraps in place or, when
  // it is the last and too little room is left, goes below its row. Numbers never wrap.
  const auto row_width = [&](std::size_t indent) {
    std::size_t w = indent + n - 1;
    for (std::size_t c = 0; c < n; ++c) {
      w += 1 + width[c];
    }
    return w;
  };
  std::size_t indent = 3;
  std::vector<bool> wraps(n, false);  // columns that wrap in place
  bool stacked = false;               // the last column goes below its row
  if (view.width != 0 && row_width(indent) > view.width) {
    indent -= std::min(indent, row_width(indent) - view.width);
    const std::vector<std::size_t> natural = width;
    // The widest text column among the first `among` narrows first, down to kMinColumn, then the next.
    const auto narrow = [&](std::size_t among) {
      while (row_width(indent) > view.width) {
        std::optional<std::size_t> widest;
        for (std::size_t c = 0; c < among; ++c) {
          if (!right[c] && width[c] > kMinColumn && (!widest || width[c] >= width[*widest])) {
            widest = c;
          }
        }
        if (!widest) {
          return;
        }
        width[*widest] -= std::min(row_width(indent) - view.width, width[*widest] - kMinColumn);
        wraps[*widest] = true;
      }
    };
    narrow(n);
    if (row_width(indent) > view.width && !right[n - 1] && natural[n - 1] > kMinColumn) {
      // Still too wide: the last text column goes below its row, and the others take their room back.
      stacked = true;
      width = natural;
      width[n - 1] = t.columns[n - 1].label.size();
      std::fill(wraps.begin(), wraps.end(), false);
      narrow(n - 1);
    }
  }
  const std::size_t below = 6;  // where a stacked column starts
  const bool plain = !stacked && std::none_of(wraps.begin(), wraps.end(), [](bool w) { return w; });
  auto write_row = [&](const std::vector<std::string>& cells, bool rule) {
    if (plain) {  // one line per row: the common case, kept cheap (a plan prints a few dozen rows)
      std::string line(indent, ' ');
      for (std::size_t c = 0; c < n; ++c) {
        line += right[c] ? fmt::format(" {:>{}}", cells[c], width[c]) : fmt::format(" {:<{}}", cells[c], width[c]);
        line += c + 1 < n ? " " : "";
      }
      while (!line.empty() && line.back() == ' ') {
        line.pop_back();
      }
      out << line << '\n';
      return;
    }
    std::vector<std::vector<std::string>> parts(n);
    std::size_t lines = 1;
    for (std::size_t c = 0; c < n; ++c) {
      if (!rule && wraps[c] && display_width(cells[c]) > width[c]) {
        parts[c] = wrap_words(cells[c], width[c]);
      } else if (!rule && stacked && c == n - 1) {
        parts[c] = {std::string()};
      } else {
        parts[c] = {cells[c]};
      }
      lines = std::max(lines, parts[c].size());
    }
    for (std::size_t k = 0; k < lines; ++k) {
      std::string line(indent, ' ');
      for (std::size_t c = 0; c < n; ++c) {
        const std::string cell = k < parts[c].size() ? parts[c][k] : std::string();
        line += right[c] ? fmt::format(" {:>{}}", cell, width[c]) : fmt::format(" {:<{}}", cell, width[c]);
        line += c + 1 < n ? " " : "";
      }
      while (!line.empty() && line.back() == ' ') {
        line.pop_back();
      }
      out << line << '\n';
    }
    if (!rule && stacked && !cells[n - 1].empty() && cells[n - 1] != t.columns[n - 1].label) {
      for (const std::string& l : wrap_words(cells[n - 1], view.width - below)) {
        out << std::string(below, ' ') << l << '\n';
      }
    }
  };
  std::vector<std::string> header;
  std::vector<std::string> rule;
  for (std::size_t c = 0; c < n; ++c) {
    header.push_back(t.columns[c].label);
    rule.emplace_back(width[c], '-');
  }
  write_row(header, true);
  write_row(rule, true);
  for (const auto& row : t.rows) {
    std::vector<std::string> cells;
    for (const Cell& c : row) {
      cells.push_back(human(c));
    }
    write_row(cells, false);
  }
  for (const std::string& note : t.notes) {
    write_wrapped(out, "    ", note, view, 4);
  }
}

// The title's parts are joined by " · "; at a width, a line breaks between parts.
void write_title(const std::string& title, std::ostream& out, const View& view) {
  const std::string sep = " · ";
  if (view.width == 0 || display_width(title) <= view.width || title.find(sep) == std::string::npos) {
    write_wrapped(out, "", title, view, 2);
    return;
  }
  // A line still too wide (one long part) wraps at its spaces, its continuation lines 2 in.
  const auto emit = [&](const std::string& line) {
    if (display_width(line) <= view.width) {
      out << line << '\n';
    } else if (line.starts_with("  ")) {
      write_wrapped(out, "  ", line.substr(2), view, 2);
    } else {
      write_wrapped(out, "", line, view, 2);
    }
  };
  std::string line;
  std::size_t start = 0;
  while (start <= title.size()) {
    const std::size_t end = std::min(title.find(sep, start), title.size());
    const std::string part = title.substr(start, end - start);
    if (!line.empty() && display_width(line) + display_width(sep) + display_width(part) > view.width) {
      emit(line);
      line = "  " + part;
    } else {
      line += (line.empty() ? "" : sep) + part;
    }
    start = end + sep.size();
  }
  emit(line);
}

}  // namespace

void render_table(const Document& doc, std::ostream& out, const View& view) {
  if (!doc.title.empty()) {
    write_title(doc.title, out, view);
  }
  for (const Section& s : doc.sections) {
    const bool no_tables =
        std::all_of(s.tables.begin(), s.tables.end(), [](const Table& t) { return t.data_only || !t.in_text; });
    if (s.title.empty() && s.fields.empty() && no_tables && s.notes.empty()) {
      continue;
    }
    out << '\n';
    if (!s.title.empty()) {
      write_wrapped(out, "", s.title, view, 2);
    }
    write_fields(s.fields, out, view);
    for (const Table& t : s.tables) {
      if (t.data_only || !t.in_text) {
        continue;
      }
      if (!s.fields.empty() || &t != &s.tables.front()) {
        out << '\n';
      }
      write_table(t, out, view);
    }
    for (const std::string& n : s.notes) {
      write_wrapped(out, "  ", n, view, 2);
    }
  }
  if (!doc.advice.empty()) {
    out << '\n';
    for (const std::string& a : doc.advice) {
      // An advice line keeps its own indent, and its continuation lines two more.
      const std::size_t indent = std::min(a.find_first_not_of(' '), a.size());
      write_wrapped(out, a.substr(0, indent), a.substr(indent), view, indent + 2, indent + 2);
    }
  }
}

}  // namespace kvplan
