// `kvplan gpus`: the GPU catalog with the memory each device reports.
#include <fmt/format.h>

#include "commands.hpp"
#include "kvplan/gpus.hpp"
#include "kvplan/report.hpp"

namespace kvplan::cli {

void setup_gpus(CLI::App& app, GpusOptions& o) {
  app.add_option("--format,-f", o.format, "Output: table, json, csv or markdown");
}

int run_gpus(const GpusOptions& o, std::ostream& out) {
  const Format format = parse_format(o.format);
  Document doc;
  Section s;
  Table t;
  t.key = "gpus";
  t.columns = {{"name", "GPU"}, {"memory_bytes", "Memory (reported)"}, {"marketed", "Sold as"},
               {"bandwidth_gb_s", "Bandwidth [GB/s]"}, {"source", "Source"}};
  for (const GpuSpec& g : gpu_catalog()) {
    t.rows.push_back({Cell::str(std::string(g.name)), Cell::bytes(g.memory_bytes), Cell::str(std::string(g.marketed)),
                      Cell::count(g.bandwidth_gb_s), Cell::str(std::string(g.source))});
  }
  t.notes.push_back("Memory is the total CUDA/HIP reports (what the engines budget from); use --gpu NAME or NAMExCOUNT.");
  s.tables.push_back(std::move(t));
  doc.sections.push_back(std::move(s));
  render(doc, format, out, o.view);
  return 0;
}

}  // namespace kvplan::cli
