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
  t.columns = {{"name", "GPU"}, {"memory_bytes", "Reported"}, {"marketed", "Sold as"},
               {"bandwidth_gb_s", "BW [GB/s]"}, {"arch", "Arch"}, {"bf16", "BF16"}, {"fp8", "FP8"},
               {"source", "Source"}};
  // MIG instances in a table of their own: each is a slice of a GPU above, planned one per process.
  Table mig;
  mig.key = "mig_instances";
  mig.title = "MIG instances";
  mig.columns = {{"name", "Instance"}, {"slice_of", "Of"}, {"memory_bytes", "Memory (-lgip)"}, {"source", "Source"}};
  for (const GpuSpec& g : gpu_catalog()) {
    if (!g.slice_of.empty()) {
      mig.rows.push_back({Cell::str(std::string(g.name)), Cell::str(std::string(g.slice_of)), Cell::bytes(g.memory_bytes),
                          Cell::str(std::string(g.source))});
      continue;
    }
    t.rows.push_back({Cell::str(std::string(g.name)), Cell::bytes(g.memory_bytes), Cell::str(std::string(g.marketed)),
                      Cell::count(g.bandwidth_gb_s), Cell::str(std::string(g.arch.target)), Cell::flag(g.arch.bf16),
                      Cell::flag(g.arch.fp8), Cell::str(std::string(g.source))});
  }
  t.notes.push_back("Reported: the memory total CUDA/HIP reports (what the engines budget from); use --gpu NAME or "
                    "NAMExCOUNT.");
  t.notes.push_back("BF16 and FP8: the arithmetic the GPU has. An fp8 KV cache takes the same memory on every GPU; "
                    "without FP8 it is converted to 16-bit to compute attention (docs/gpus.md, \"Architectures\").");
  mig.notes.push_back("The size nvidia-smi mig -lgip lists, the smallest seen across drivers; a process sees one "
                      "instance, so NAMExN is N replicas (docs/gpus.md).");
  s.tables.push_back(std::move(t));
  s.tables.push_back(std::move(mig));
  doc.sections.push_back(std::move(s));
  render(doc, format, out, o.view);
  return 0;
}

}  // namespace kvplan::cli
