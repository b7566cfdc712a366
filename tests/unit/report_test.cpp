// Each renderer on a hand-built Document, compared with exact strings (hyperfine's exporter
// tests, ccache's TextTable tests).
#include <catch2/catch.hpp>
#include <sstream>

#include "kvplan/error.hpp"
#include "kvplan/report.hpp"

using namespace kvplan;

namespace {

Document sample() {
  Document d;
  d.title = "title";
  Section s;
  s.key = "budget";
  s.title = "Budget";
  s.fields = {{"vram_bytes", "VRAM", Cell::bytes(85'029'158'912), "H100"}, {"", "Note", Cell::str("x"), ""}};
  Table t;
  t.key = "frontier";
  t.columns = {{"seq_len", "Context"}, {"max_batch", "Max batch"}, {"relative", "Relative"}};
  t.rows = {{Cell::tokens(1024), Cell::count(424), Cell::ratio(1)}, {Cell::tokens(131'072), Cell::count(3), Cell::ratio(0.5)}};
  s.tables.push_back(t);
  d.sections.push_back(s);
  return d;
}

std::string rendered(Format f) {
  std::ostringstream out;
  render(sample(), f, out);
  return out.str();
}

}  // namespace

TEST_CASE("table renderer aligns labels left and numbers right", "[report]") {
  CHECK(rendered(Format::table) ==
        "title\n"
        "\n"
        "Budget\n"
        "  VRAM  79.19 GiB  H100\n"
        "  Note          x\n"
        "\n"
        "    Context  Max batch  Relative\n"
        "    -------  ---------  --------\n"
        "      1,024        424     1.00x\n"
        "    131,072          3     0.50x\n");
}

TEST_CASE("JSON renderer carries raw integers under the section keys", "[report]") {
  CHECK(rendered(Format::json) ==
        "{\n"
        "  \"schema_version\": 1,\n"
        "  \"budget\": {\n"
        "    \"vram_bytes\": 85029158912,\n"
        "    \"frontier\": [\n"
        "      {\n"
        "        \"seq_len\": 1024,\n"
        "        \"max_batch\": 424,\n"
        "        \"relative\": 1.0\n"
        "      },\n"
        "      {\n"
        "        \"seq_len\": 131072,\n"
        "        \"max_batch\": 3,\n"
        "        \"relative\": 0.5\n"
        "      }\n"
        "    ]\n"
        "  }\n"
        "}\n");
}

TEST_CASE("CSV renderer leads each row with its table's name", "[report]") {
  CHECK(rendered(Format::csv) ==
        "table,section,field,value\n"
        "fields,budget,vram_bytes,85029158912\n"
        "\n"
        "table,seq_len,max_batch,relative\n"
        "frontier,1024,424,1.0000\n"
        "frontier,131072,3,0.5000\n");
}

TEST_CASE("Markdown renderer writes pipe tables", "[report]") {
  CHECK(rendered(Format::markdown) ==
        "# title\n"
        "\n"
        "## Budget\n"
        "\n"
        "| Item | Value | Basis |\n"
        "|---|---:|---|\n"
        "| VRAM | 79.19 GiB | H100 |\n"
        "| Note | x |  |\n"
        "\n"
        "| Context | Max batch | Relative |\n"
        "|---:|---:|---:|\n"
        "| 1,024 | 424 | 1.00x |\n"
        "| 131,072 | 3 | 0.50x |\n"
        "\n");
}

TEST_CASE("formats are named, with a suggestion for typos", "[report][errors]") {
  CHECK(parse_format("md") == Format::markdown);
  CHECK_THROWS_WITH(parse_format("jsno"),
                    "unknown format 'jsno', did you mean 'json'? (expected table, json, csv, markdown, html or svg)");
}
