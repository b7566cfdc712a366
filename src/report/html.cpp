// The HTML renderer: one self-contained page (no script, nothing fetched), its charts inline SVG
// drawn from the Document's own figures, and every section as HTML tables below them. Every
// number a chart draws is also printed next to it (a <text> label) and in the tables, and each
// mark carries its raw value (data-value), so a browser test can compare the page with the JSON.
// The SVG renderer writes one of the same charts alone (--chart memory|frontier).
#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <optional>
#include <ostream>
#include <sstream>

#include "kvplan/error.hpp"
#include "kvplan/quantity.hpp"
#include "kvplan/report.hpp"
#include "kvplan/units.hpp"

namespace kvplan {
namespace {

std::string esc(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

const Field* field(const Section& s, std::string_view key) {
  for (const Field& f : s.fields) {
    if (f.key == key) {
      return &f;
    }
  }
  return nullptr;
}

// The budget the memory chart draws: the plan's own, or, when it leaves no KV memory, the one under
// the first fix (with_fix.budget), which the page then names.
const Section* budget_of(const Document& doc) {
  const Section* plain = nullptr;
  const Section* fixed = nullptr;
  for (const Section& s : doc.sections) {
    plain = s.key == "budget" ? &s : plain;
    fixed = s.key == "with_fix.budget" ? &s : fixed;
  }
  if (plain != nullptr && fixed != nullptr) {
    const Field* kv = field(*plain, "kv_budget_bytes");
    if (kv != nullptr && kv->value.n == 0) {
      return fixed;
    }
  }
  return plain;
}

constexpr const char* kColours[] = {"#4e79a7", "#f28e2b", "#59a14f", "#bab0ac", "#e15759"};

// Memory per GPU: one stacked bar of weights, runtime reserve, KV budget and what the engine
// leaves unused, to scale, each labelled with its size.
std::optional<std::string> memory_chart(const Document& doc) {
  const Section* b = budget_of(doc);
  if (b == nullptr) {
    return std::nullopt;
  }
  const Field* vram = field(*b, "vram_bytes");
  const Field* usable = field(*b, "usable_bytes");
  const Field* weights = field(*b, "weights_bytes");
  const Field* reserved = field(*b, "reserved_bytes");
  const Field* kv = field(*b, "kv_budget_bytes");
  if (vram == nullptr || usable == nullptr || weights == nullptr || reserved == nullptr || kv == nullptr ||
      vram->value.n == 0) {
    return std::nullopt;
  }
  struct Part {
    const char* key;
    const char* label;
    std::uint64_t bytes;
  };
  const std::uint64_t used = sat_add(sat_add(weights->value.n, reserved->value.n), kv->value.n);
  const std::uint64_t over = used > vram->value.n ? used - vram->value.n : 0;
  const std::vector<Part> parts{
      {"weights_bytes", "Weights", weights->value.n},
      {"reserved_bytes", "Runtime reserve", reserved->value.n},
      {"kv_budget_bytes", "KV cache budget", kv->value.n},
      {"unused_bytes", "Not used (1 − fraction)", sat_sub(vram->value.n, std::max(usable->value.n, used))},
  };
  const double width = 720;
  const double total = static_cast<double>(std::max(vram->value.n, used));
  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" data-chart=\"memory\" width=\"760\" height=\"{}\" "
      "viewBox=\"0 0 760 {}\" role=\"img\" aria-label=\"Memory per GPU\">\n"
      "<title>Memory per GPU: {} of {}</title>\n"
      "<text x=\"20\" y=\"14\" font-size=\"13\" font-weight=\"bold\">{}</text>\n",
      140 + 22 * parts.size(), 140 + 22 * parts.size(), esc(b->title), esc(format_bytes(vram->value.n)), esc(b->title));
  double x = 20;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const double w = width * static_cast<double>(parts[i].bytes) / total;
    svg += fmt::format("<rect x=\"{:.1f}\" y=\"50\" width=\"{:.1f}\" height=\"40\" fill=\"{}\" data-key=\"{}\" "
                       "data-value=\"{}\"><title>{}: {}</title></rect>\n",
                       x, w, kColours[i], parts[i].key, parts[i].bytes, parts[i].label, esc(format_bytes(parts[i].bytes)));
    x += w;
  }
  if (over > 0) {
    svg += fmt::format("<rect x=\"{:.1f}\" y=\"50\" width=\"{:.1f}\" height=\"40\" fill=\"none\" stroke=\"{}\" "
                       "stroke-width=\"2\" data-key=\"over_bytes\" data-value=\"{}\"/>\n",
                       20 + width * static_cast<double>(vram->value.n) / total,
                       width * static_cast<double>(over) / total, kColours[4], over);
  }
  svg += fmt::format("<line x1=\"{:.1f}\" x2=\"{:.1f}\" y1=\"44\" y2=\"96\" stroke=\"#333\"/>\n"
                     "<text x=\"{:.1f}\" y=\"38\" font-size=\"12\" text-anchor=\"end\">VRAM {}</text>\n",
                     20 + width * static_cast<double>(vram->value.n) / total,
                     20 + width * static_cast<double>(vram->value.n) / total,
                     20 + width * static_cast<double>(vram->value.n) / total, esc(format_bytes(vram->value.n)));
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const double y = 120 + 22 * static_cast<double>(i);
    svg += fmt::format("<rect x=\"20\" y=\"{:.0f}\" width=\"14\" height=\"14\" fill=\"{}\"/>"
                       "<text x=\"40\" y=\"{:.0f}\" font-size=\"13\">{}: {}</text>\n",
                       y - 11, kColours[i], y, parts[i].label, esc(format_bytes(parts[i].bytes)));
  }
  svg += "</svg>\n";
  return svg;
}

// A chart's <svg> element and its heading: the key a test and --chart find it by, its title (also
// the accessible label) and the line under it saying what is drawn.
std::string svg_open(const std::string& key, double height, const std::string& title, const std::string& subtitle) {
  return fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" data-chart=\"{}\" width=\"760\" height=\"{:.0f}\" "
      "viewBox=\"0 0 760 {:.0f}\" role=\"img\" aria-label=\"{}\">\n<title>{}</title>\n"
      "<text x=\"20\" y=\"20\" font-size=\"13\" font-weight=\"bold\">{}</text>\n"
      "<text x=\"20\" y=\"38\" font-size=\"12\">{}</text>\n",
      esc(key), height, height, esc(title), esc(title), esc(title), esc(subtitle));
}

// The two axes of a plot `width` wide and `plot` high whose top left corner is (left, 50).
std::string svg_axes(double left, double width, double plot) {
  return fmt::format("<line x1=\"{:.0f}\" y1=\"50\" x2=\"{:.0f}\" y2=\"{:.0f}\" stroke=\"#999\"/>"
                     "<line x1=\"{:.0f}\" y1=\"{:.0f}\" x2=\"{:.0f}\" y2=\"{:.0f}\" stroke=\"#999\"/>\n",
                     left, left, 50 + plot, left, 50 + plot, left + width, 50 + plot);
}

// A bar chart of a table's max_batch column against its first column (the frontier: context
// length; the comparisons: variant, KV dtype, allocation), each bar labelled with its count.
std::optional<std::string> batch_chart(const Table& t, const std::string& key, const std::string& title) {
  std::optional<std::size_t> batch;
  for (std::size_t c = 0; c < t.columns.size(); ++c) {
    if (t.columns[c].key == "max_batch") {
      batch = c;
    }
  }
  if (!batch || t.rows.empty() || *batch == 0) {
    return std::nullopt;
  }
  std::uint64_t top = 1;
  for (const auto& row : t.rows) {
    top = std::max(top, row[*batch].n);
  }
  const double bar = 34;
  const double height = 70 + (bar + 8) * static_cast<double>(t.rows.size());
  std::string svg = svg_open(key, height, title, t.columns[*batch].label + " (concurrent sequences)");
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    const std::uint64_t n = t.rows[i][*batch].n;
    const double y = 50 + (bar + 8) * static_cast<double>(i);
    const double w = 460 * static_cast<double>(n) / static_cast<double>(top);
    svg += fmt::format("<text x=\"200\" y=\"{:.0f}\" font-size=\"13\" text-anchor=\"end\">{}</text>"
                       "<rect x=\"210\" y=\"{:.0f}\" width=\"{:.1f}\" height=\"{:.0f}\" fill=\"{}\" data-key=\"{}\" "
                       "data-row=\"{}\" data-value=\"{}\"/>"
                       "<text x=\"{:.1f}\" y=\"{:.0f}\" font-size=\"13\">{}</text>\n",
                       y + bar / 2 + 4, esc(human(t.rows[i][0])), y, std::max(w, 1.0), bar, kColours[i % 4],
                       esc(key), i, n, 216 + w, y + bar / 2 + 4, esc(human(t.rows[i][*batch])));
  }
  svg += "</svg>\n";
  return svg;
}

// A length on a log axis, compactly: "1K", "128K", or the digits when it is not a multiple of 1,024.
std::string short_tokens(std::uint64_t n) {
  return n % 1024 == 0 ? fmt::format("{}K", n / 1024) : with_commas(n);
}

// A line chart of a table whose first column is the x axis and whose count columns are the lines
// (the frontier per KV dtype and allocation): both axes logarithmic, as batch × context is about
// constant, so each paged line falls with slope -1 and contiguous allocation stays flat. Every
// point is a mark with its value (data-value) and a <title>; a point of 0 sits on the x axis.
std::optional<std::string> curve_chart(const Table& t, const std::string& key, const std::string& title) {
  std::vector<std::size_t> lines;
  for (std::size_t c = 1; c < t.columns.size(); ++c) {
    if (!t.rows.empty() && t.rows.front()[c].kind == Cell::Kind::count) {
      lines.push_back(c);
    }
  }
  if (!t.curves || lines.empty() || t.rows.size() < 2) {
    return std::nullopt;
  }
  std::uint64_t top = 1;
  std::uint64_t x_min = UINT64_MAX;
  std::uint64_t x_max = 1;
  for (const auto& row : t.rows) {
    x_min = std::min(x_min, std::max<std::uint64_t>(row[0].n, 1));
    x_max = std::max(x_max, row[0].n);
    for (const std::size_t c : lines) {
      top = std::max(top, row[c].n);
    }
  }
  const double decades = std::max(1.0, std::ceil(std::log10(static_cast<double>(top))));
  const double left = 70;
  const double width = 520;
  const double plot = 240;
  const double span = std::max(std::log2(static_cast<double>(x_max) / static_cast<double>(x_min)), 1.0);
  auto x_of = [&](std::uint64_t n) {
    return left + width * std::log2(static_cast<double>(std::max<std::uint64_t>(n, 1)) / static_cast<double>(x_min)) /
                      span;
  };
  const double zero_gap = 16;  // 0 sits on the x axis, below 1
  auto y_of = [&](std::uint64_t n) {
    return 50 + plot - (n == 0 ? 0.0 : zero_gap + (plot - zero_gap) * std::log10(static_cast<double>(n)) / decades);
  };
  const double height = 110 + plot + 20 * static_cast<double>(lines.size());
  std::string svg =
      svg_open(key, height, title, fmt::format("concurrent sequences (log scale) against {} (log scale)", t.columns[0].label)) +
      svg_axes(left, width, plot);
  svg += fmt::format("<text x=\"{:.0f}\" y=\"{:.1f}\" font-size=\"11\" text-anchor=\"end\">0</text>\n", left - 6,
                     y_of(0) + 4);
  for (double d = 0; d <= decades; ++d) {
    const auto n = static_cast<std::uint64_t>(std::llround(std::pow(10.0, d)));
    svg += fmt::format("<text x=\"{:.0f}\" y=\"{:.1f}\" font-size=\"11\" text-anchor=\"end\">{}</text>\n", left - 6,
                       y_of(n) + 4, with_commas(n));
  }
  for (const auto& row : t.rows) {
    svg += fmt::format("<text x=\"{:.1f}\" y=\"{:.0f}\" font-size=\"11\" text-anchor=\"middle\">{}</text>\n",
                       x_of(row[0].n), 50 + plot + 16, short_tokens(row[0].n));
  }
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::size_t c = lines[i];
    const std::string_view colour = kColours[i % 5];
    const std::string dash = i >= 4 ? " stroke-dasharray=\"6 4\"" : "";
    std::string points;
    std::string marks;
    for (std::size_t r = 0; r < t.rows.size(); ++r) {
      const double x = x_of(t.rows[r][0].n);
      const double y = y_of(t.rows[r][c].n);
      points += fmt::format("{}{:.1f},{:.1f}", points.empty() ? "" : " ", x, y);
      marks += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3\" fill=\"{}\" data-key=\"{}\" data-series=\"{}\" "
                           "data-row=\"{}\" data-value=\"{}\"><title>{}: {} at {} tokens</title></circle>\n",
                           x, y, colour, esc(key), esc(t.columns[c].key), r, t.rows[r][c].n, esc(t.columns[c].label),
                           with_commas(t.rows[r][c].n), with_commas(t.rows[r][0].n));
    }
    const double legend = 50 + plot + 44 + 20 * static_cast<double>(i);
    svg += fmt::format("<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"1.5\"{} points=\"{}\"/>\n{}"
                       "<rect x=\"{:.0f}\" y=\"{:.0f}\" width=\"14\" height=\"10\" fill=\"{}\"/>"
                       "<text x=\"{:.0f}\" y=\"{:.0f}\" font-size=\"12\">{}: {} at {} tokens, {} at {}</text>\n",
                       colour, dash, points, marks, left, legend - 9, colour, left + 20, legend, esc(t.columns[c].label),
                       with_commas(t.rows.front()[c].n), with_commas(t.rows.front()[0].n), with_commas(t.rows.back()[c].n),
                       with_commas(t.rows.back()[0].n));
  }
  svg += "</svg>\n";
  return svg;
}

// A line chart of a time series (simulate's: one line per allocator of the tokens it holds at
// each step, against the most any allocator reserved), each line's last value labelled.
std::optional<std::string> series_chart(const Table& t, const std::string& key, const std::string& title) {
  std::optional<std::size_t> step;
  std::optional<std::size_t> used;
  std::optional<std::size_t> reserved;
  for (std::size_t c = 0; c < t.columns.size(); ++c) {
    step = t.columns[c].key == "step" ? std::optional(c) : step;
    used = t.columns[c].key == "used_tokens" ? std::optional(c) : used;
    reserved = t.columns[c].key == "reserved_tokens" ? std::optional(c) : reserved;
  }
  if (!step || !used || t.rows.empty()) {
    return std::nullopt;
  }
  std::uint64_t last_step = 1;
  std::uint64_t top = 1;
  std::vector<std::string> names;  // the lines, in order of first appearance (column 0)
  for (const auto& row : t.rows) {
    last_step = std::max(last_step, row[*step].n);
    top = std::max({top, row[*used].n, reserved ? row[*reserved].n : 0});
    if (std::find(names.begin(), names.end(), row[0].text) == names.end()) {
      names.push_back(row[0].text);
    }
  }
  const double left = 70;
  const double width = 480;
  const double plot = 220;
  const double height = 80 + plot + 22 * static_cast<double>(names.size());
  std::string svg = svg_open(key, height, title,
                             fmt::format("{} against the step, up to {} tokens", t.columns[*used].label,
                                         human(Cell::tokens(top)))) +
                    svg_axes(left, width, plot);
  for (std::size_t i = 0; i < names.size(); ++i) {
    std::string points;
    std::uint64_t final_value = 0;
    for (const auto& row : t.rows) {
      if (row[0].text != names[i]) {
        continue;
      }
      const double x = left + width * static_cast<double>(row[*step].n) / static_cast<double>(last_step);
      const double y = 50 + plot - plot * static_cast<double>(row[*used].n) / static_cast<double>(top);
      points += fmt::format("{}{:.1f},{:.1f}", points.empty() ? "" : " ", x, y);
      final_value = row[*used].n;
    }
    const double legend = 70 + plot + 22 * static_cast<double>(i);
    svg += fmt::format("<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"1.5\" points=\"{}\" data-key=\"{}\" "
                       "data-row=\"{}\" data-value=\"{}\"/>\n"
                       "<rect x=\"{:.0f}\" y=\"{:.0f}\" width=\"14\" height=\"10\" fill=\"{}\"/>"
                       "<text x=\"{:.0f}\" y=\"{:.0f}\" font-size=\"12\">{}: {} tokens at the last step</text>\n",
                       kColours[i % 4], points, esc(key), i, final_value, left, legend - 9, kColours[i % 4], left + 20,
                       legend, esc(names[i]), esc(human(Cell::tokens(final_value))));
  }
  svg += "</svg>\n";
  return svg;
}

// The charts of a document, in the order the page shows them: memory, then every table with a
// max_batch column (the frontier first, then its curves), then time series.
std::vector<std::pair<std::string, std::string>> charts(const Document& doc) {
  std::vector<std::pair<std::string, std::string>> out;
  if (auto m = memory_chart(doc)) {
    out.emplace_back("memory", std::move(*m));
  }
  for (const Section& s : doc.sections) {
    for (const Table& t : s.tables) {
      // The key JSON gives the table: "frontier", "compare.kv_dtype", "with_fix.frontier".
      const std::string key = s.key.empty() ? t.key : s.key + "." + t.key;
      const std::string title = t.title.empty() ? s.title : t.title;  // a table's own title says what it compares
      if (auto curve = curve_chart(t, key, title)) {
        out.emplace_back(key, std::move(*curve));
      } else if (auto c = batch_chart(t, key, title)) {
        out.emplace_back(key, std::move(*c));
      } else if (auto line = series_chart(t, "simulate", title)) {
        out.emplace_back("simulate", std::move(*line));  // --chart simulate: the one time series there is
      }
    }
  }
  // Line charts of the frontier (per KV dtype and allocation) follow the frontier's own bars.
  const auto frontier = std::find_if(out.begin(), out.end(), [](const auto& c) { return c.first == "frontier"; });
  if (frontier != out.end()) {
    std::stable_partition(std::next(frontier), out.end(), [](const auto& c) { return c.first.ends_with("curves"); });
  }
  return out;
}

void html_table(const Table& t, std::ostream& out) {
  out << "<table class=\"data\" data-key=\"" << esc(t.key) << "\">\n";
  if (!t.title.empty()) {
    out << "<caption>" << esc(t.title) << "</caption>\n";
  }
  out << "<tr>";
  for (const Column& c : t.columns) {
    out << "<th>" << esc(c.label) << "</th>";
  }
  out << "</tr>\n";
  for (const auto& row : t.rows) {
    out << "<tr>";
    for (const Cell& c : row) {
      const bool num = c.kind != Cell::Kind::text && c.kind != Cell::Kind::none && c.kind != Cell::Kind::flag;
      out << (num ? "<td class=\"n\">" : "<td>") << esc(human(c)) << "</td>";
    }
    out << "</tr>\n";
  }
  out << "</table>\n";
  for (const std::string& n : t.notes) {
    out << "<p class=\"note\">" << esc(n) << "</p>\n";
  }
}

}  // namespace

void render_html(const Document& doc, std::ostream& out) {
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" << esc(doc.title)
      << "</title>\n<style>\n"
         "body{font-family:system-ui,sans-serif;margin:2em;max-width:62em;color:#222}\n"
         "h1{font-size:1.3em}h2{font-size:1.1em;margin-top:1.6em;border-bottom:1px solid #ddd}\n"
         "table{border-collapse:collapse;margin:.5em 0}td,th{padding:.2em .6em;border-bottom:1px solid #eee;"
         "text-align:left;vertical-align:top}td.n{text-align:right;white-space:nowrap}\n"
         "td.detail{color:#555}.note{color:#555;font-size:.9em}.advice{background:#fff4e5;padding:.8em;"
         "white-space:pre-wrap}\n.yes{color:#1a7f37;font-weight:bold}.no{color:#c62828;font-weight:bold}\n"
         "</style>\n</head>\n<body>\n<h1>"
      << esc(doc.title) << "</h1>\n";
  // The answer, then the charts, then the sections in the report's order.
  std::vector<const Section*> order;
  for (const Section& s : doc.sections) {
    if (s.key == "answer") {
      order.push_back(&s);
    }
  }
  for (const Section& s : doc.sections) {
    if (s.key != "answer") {
      order.push_back(&s);
    }
  }
  const std::size_t charts_at = !order.empty() && order.front()->key == "answer" ? 1 : 0;
  const auto drawn = charts(doc);
  for (std::size_t i = 0; i <= order.size(); ++i) {
    if (i == charts_at && !drawn.empty()) {
      out << "<section class=\"charts\">\n";
      for (const auto& [key, svg] : drawn) {
        out << "<figure data-chart=\"" << esc(key) << "\">\n" << svg << "</figure>\n";
      }
      out << "</section>\n";
    }
    if (i == order.size()) {
      break;
    }
    const Section& s = *order[i];
    out << "<section data-key=\"" << esc(s.key) << "\">\n";
    if (!s.title.empty()) {
      out << "<h2>" << esc(s.title) << "</h2>\n";
    }
    if (std::any_of(s.fields.begin(), s.fields.end(), [](const Field& f) { return !f.label.empty(); })) {
      out << "<table class=\"fields\">\n";
      for (const Field& f : s.fields) {
        if (f.label.empty()) {
          continue;
        }
        const std::string value = human(f.value);
        const std::string cls = f.value.kind == Cell::Kind::flag ? (f.value.n != 0 ? " yes" : " no") : "";
        out << "<tr><th>" << esc(f.label) << "</th><td class=\"n" << cls << "\" data-key=\"" << esc(f.key)
            << "\">" << esc(value) << "</td><td class=\"detail\">" << esc(f.detail) << "</td></tr>\n";
      }
      out << "</table>\n";
    }
    for (const Table& t : s.tables) {
      if (!t.data_only) {
        html_table(t, out);
      }
    }
    for (const std::string& n : s.notes) {
      out << "<p class=\"note\">" << esc(n) << "</p>\n";
    }
    out << "</section>\n";
  }
  if (!doc.advice.empty()) {
    out << "<div class=\"advice\">";
    for (const std::string& a : doc.advice) {
      out << esc(a) << '\n';
    }
    out << "</div>\n";
  }
  out << "</body>\n</html>\n";
}

void render_svg(const Document& doc, std::ostream& out, std::string_view chart) {
  std::vector<std::string> names;
  for (const auto& [key, svg] : charts(doc)) {
    if (key == chart) {
      out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" << svg;
      return;
    }
    names.push_back(key);
  }
  throw Error(fmt::format("--chart {}: this report has {}", std::string(chart),
                          names.empty() ? std::string("no chart") : fmt::format("the charts {}", fmt::join(names, ", "))));
}

}  // namespace kvplan
