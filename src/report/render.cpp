// Format dispatch and the human text of a cell, shared by the table and markdown renderers.
#include <fmt/format.h>
#include <ostream>

#include "kvplan/error.hpp"
#include "kvplan/quantity.hpp"
#include "kvplan/report.hpp"
#include "kvplan/text.hpp"

namespace kvplan {

Format parse_format(std::string_view text) {
  if (text == "table") {
    return Format::table;
  }
  if (text == "json") {
    return Format::json;
  }
  if (text == "csv") {
    return Format::csv;
  }
  if (text == "markdown" || text == "md") {
    return Format::markdown;
  }
  if (text == "html") {
    return Format::html;
  }
  if (text == "svg") {
    return Format::svg;
  }
  throw Error(fmt::format("unknown format {}{} (expected table, json, csv, markdown, html or svg)", quote_input(text),
                          did_you_mean(text, {"table", "json", "csv", "markdown", "html", "svg"})));
}

std::string human(const Cell& c) {
  switch (c.kind) {
    case Cell::Kind::text:
      return c.text;
    case Cell::Kind::count:
    case Cell::Kind::tokens:
      return with_commas(c.n);
    case Cell::Kind::bytes:
      return format_bytes(c.n);
    case Cell::Kind::number:
      return fmt::format("{:g}", c.x);
    case Cell::Kind::ratio:
      return fmt::format("{:.2f}x", c.x);
    case Cell::Kind::percent:
      return fmt::format("{:.1f}%", c.x);
    case Cell::Kind::flag:
      return c.n != 0 ? "yes" : "no";
    case Cell::Kind::none:
      break;
  }
  return "-";
}

void render(const Document& doc, Format format, std::ostream& out, const View& view) {
  switch (format) {
    case Format::table:
      render_table(doc, out, view);
      return;
    case Format::json:
      render_json(doc, out);
      return;
    case Format::csv:
      render_csv(doc, out);
      return;
    case Format::markdown:
      render_markdown(doc, out);
      return;
    case Format::html:
      render_html(doc, out);
      return;
    case Format::svg:
      render_svg(doc, out, view.chart);
      return;
  }
}

}  // namespace kvplan
