// kvplan/report.hpp: the one result model every command fills, and one renderer per format.
// A Document is plain data: sections of labelled fields and tables of typed cells. Cells keep
// exact integers; only the human renderers (table, markdown) turn them into "79.19 GiB", while
// JSON and CSV carry raw integers (bloaty's CSV, hyperfine's exporters).
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

namespace kvplan {

struct Cell {
  enum class Kind { text, count, bytes, tokens, number, ratio, percent, flag, none };
  Kind kind = Kind::none;
  std::string text;
  std::uint64_t n = 0;
  double x = 0;

  static Cell str(std::string s) { return Cell{Kind::text, std::move(s), 0, 0}; }
  static Cell count(std::uint64_t v) { return Cell{Kind::count, {}, v, 0}; }
  static Cell bytes(std::uint64_t v) { return Cell{Kind::bytes, {}, v, 0}; }
  static Cell tokens(std::uint64_t v) { return Cell{Kind::tokens, {}, v, 0}; }
  static Cell number(double v) { return Cell{Kind::number, {}, 0, v}; }    // "0.9"
  static Cell ratio(double v) { return Cell{Kind::ratio, {}, 0, v}; }       // "1.50x"
  static Cell percent(double v) { return Cell{Kind::percent, {}, 0, v}; }   // v in [0, 100]
  static Cell flag(bool v) { return Cell{Kind::flag, {}, v ? 1U : 0U, 0}; }
  static Cell none() { return Cell{}; }
};

struct Field {
  std::string key;     // JSON name; empty = human output only
  std::string label;   // human label
  Cell value;
  std::string detail;  // the assumption or formula behind the value (human output only)
};

struct Column {
  std::string key;
  std::string label;   // with its unit: "KV/seq", "Max batch"
};

struct Table {
  std::string key;     // JSON name
  std::string title;
  std::vector<Column> columns;
  std::vector<std::vector<Cell>> rows;
  std::vector<std::string> notes;
  bool data_only = false;  // data for JSON, CSV and charts (a time series): the text renderers print no table
  bool in_text = true;     // false: the terminal and Markdown leave it to the page and the machine formats
  bool curves = false;     // a chart of lines: the first column is the x axis, each count column a line
};

struct Section {
  std::string key;     // JSON object name; empty = fields go to the top level
  std::string title;
  std::vector<Field> fields;
  std::vector<Table> tables;
  std::vector<std::string> notes;
};

struct Document {
  std::string title;                 // first line of human output
  std::vector<Section> sections;
  std::vector<std::string> advice;   // "nothing fits" guidance, printed last
};

enum class Format { table, json, csv, markdown, html, svg };

/// How the terminal renderer lays its text out: the width to fit (0: none, as for a pipe), and
/// whether verdicts are coloured (ANSI SGR). Numbers never wrap; details, notes and a table's last
/// text column do, under their own column.
struct View {
  std::size_t width = 0;
  bool color = false;
  std::string chart = "memory";  // --format svg: the chart it draws (--chart)
};

/// Columns `text` takes on a terminal: UTF-8 code points (kvplan prints no wide characters).
std::size_t display_width(std::string_view text);
/// `text` broken at spaces into lines of at most `width` columns (a longer word stands alone).
std::vector<std::string> wrap_words(std::string_view text, std::size_t width);
/// `head` then `text` as lines of at most `width` columns (0: one line), the continuation lines
/// `hang` columns in.
std::vector<std::string> wrap_line(std::string_view head, std::string_view text, std::size_t width, std::size_t hang);

/// "table" | "json" | "csv" | "markdown"; throws kvplan::Error with "did you mean".
Format parse_format(std::string_view text);

void render_table(const Document& doc, std::ostream& out, const View& view = {});
void render_markdown(const Document& doc, std::ostream& out);
void render_csv(const Document& doc, std::ostream& out);
void render_json(const Document& doc, std::ostream& out);
/// One self-contained page: inline SVG charts (memory per GPU, max batch by context and by each
/// comparison), then every section as HTML tables.
void render_html(const Document& doc, std::ostream& out);
/// One chart of the page alone ("memory", "frontier", ...); throws kvplan::Error naming those it has.
void render_svg(const Document& doc, std::ostream& out, std::string_view chart);
void render(const Document& doc, Format format, std::ostream& out, const View& view = {});

/// The human text of a cell ("79.19 GiB", "131,072", "1.50x", "12.5%").
std::string human(const Cell& c);

}  // namespace kvplan
