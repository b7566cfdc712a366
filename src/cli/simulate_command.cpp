// `kvplan simulate`: paged vs. contiguous allocation under a request stream. The KV capacity comes
// from the plan (engine profiles included); each allocator replays the same seeded stream.
#include <algorithm>
#include <fmt/format.h>
#include <ostream>
#include <variant>

#include "commands.hpp"
#include "plan_text.hpp"
#include "kvplan/error.hpp"
#include "kvplan/files.hpp"
#include "kvplan/formula.hpp"
#include "kvplan/quantity.hpp"
#include "kvplan/simulate.hpp"
#include "kvplan/workload.hpp"
#include "kvplan/text.hpp"

namespace kvplan::cli {
namespace {

constexpr std::size_t kMaxBlockSizes = 16;

std::vector<std::uint64_t> block_list(const std::string& text) {
  std::vector<std::uint64_t> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find(',', start), text.size());
    if (out.size() == kMaxBlockSizes) {
      throw Error(fmt::format("--blocks: more than {} block sizes; each one is a whole simulation (docs/limits.md)",
                              kMaxBlockSizes));
    }
    out.push_back(parse_count("--blocks", text.substr(start, end - start), 1 << 16));
    start = end + 1;
  }
  return out;
}

// A terminal chart of `columns` characters: each the mean share of the cache holding token states
// over its span of samples (fewer characters when there are fewer samples).
std::string sparkline(const SimStats& s, std::size_t columns) {
  static const char* const kBars[] = {" ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};
  std::string out;
  const std::size_t n = s.series.size();
  const std::size_t cols = std::min(std::max<std::size_t>(columns, 1), n);
  for (std::size_t c = 0; c < cols; ++c) {
    const std::size_t from = c * n / cols;
    const std::size_t to = std::max(from + 1, (c + 1) * n / cols);
    double sum = 0;
    for (std::size_t i = from; i < to; ++i) {
      sum += s.capacity == 0 ? 0 : static_cast<double>(s.series[i].used_tokens) / static_cast<double>(s.capacity);
    }
    const double share = sum / static_cast<double>(to - from);
    out += kBars[std::clamp(static_cast<int>(share * 8 + 0.5), 0, 8)];
  }
  return out;
}

}  // namespace

void setup_simulate(CLI::App& app, SimulateOptions& o) {
  setup_plan(app, o.plan);
  app.add_option("--workload,-w", o.workload, "sharegpt, alpaca, fixed:IN,OUT or uniform:IMIN-IMAX,OMIN-OMAX");
  app.add_option("--trace", o.trace, "Requests from a file: CSV (prompt,output[,arrival]) or JSONL");
  app.add_option("--requests,-n", o.requests, "Requests to draw from --workload (default 1000)");
  app.add_option("--rate", o.rate, "Poisson arrivals per decode step (default: all at step 0)");
  app.add_option("--seed", o.seed, "Random seed (default 0): the same seed gives the same stream");
  app.add_option("--blocks", o.blocks, "Paged block sizes to compare, e.g. 8,16,32 (default 16)");
  app.add_option("--shared-prefix", o.shared_prefix, "A system prompt of this many tokens before every request");
  app.add_option("--n", o.n, "Parallel samples per request: their prompt is shared by the sharing allocator");
  app.add_option("--beam", o.beam, "Beam width per request, modelled as that many samples sharing the prompt");
}

int run_simulate(const SimulateOptions& o, std::ostream& out) {
  const Format format = parse_format(o.plan.format);
  const PlanRequest q = plan_request(o.plan);
  const ModelSpec& model = q.model_spec();
  for (const LayerGroup& g : model.layers) {
    const bool supported = std::visit(overloaded{
                                          [](const FullAttention&) { return true; },
                                          [](const SlidingWindow&) { return false; },
                                          [](const LatentAttention&) { return true; },
                                          [](const RecurrentState&) { return false; },
                                          [](const ChunkedLocal&) { return false; },
                                          [](const CrossAttention&) { return false; },
                                          [](const SharedKV&) { return true; },       // holds nothing
                                          [](const IndexerCache&) { return true; },   // grows per token, like MLA
                                          [](const NoCache&) { return true; },        // holds nothing
                                      },
                                      g.spec);
    if (!supported) {
      throw Error(fmt::format("simulate: {} has {} layers, which the simulator does not model yet; it sizes caches "
                              "that grow with every token (full attention, MLA)",
                              model.name, kind_label(g.spec)));
    }
  }
  const PlanResult e = plan(q, Depth::verdict);
  std::uint64_t per_token = 0;
  for (const LayerGroup& g : model.layers) {
    per_token += g.count * bytes_per_token(g.spec, e.r.kv_dtype, e.r.tp);
  }
  SimConfig config;
  config.capacity_tokens = per_token == 0 ? 0 : e.budget.kv_budget_bytes / per_token;
  config.max_model_len = e.r.max_model_len;
  config.shared_prefix_tokens =
      o.shared_prefix.empty() || o.shared_prefix == "0" ? 0 : parse_count("--shared-prefix", o.shared_prefix, 1 << 24);
  if (!o.n.empty() && !o.beam.empty()) {
    throw Error("simulate: give --n (parallel sampling) or --beam (beam search), not both");
  }
  config.samples = !o.n.empty() ? parse_count("--n", o.n, 1024) : !o.beam.empty() ? parse_count("--beam", o.beam, 1024) : 1;
  if (config.capacity_tokens == 0) {
    throw Error(fmt::format("simulate: no KV cache on {}: the plan leaves no memory for it (run the plan for details)",
                            q.hardware.label));
  }
  if (!o.trace.empty() && !o.workload.empty()) {
    throw Error("simulate: give --workload or --trace, not both");
  }
  const Workload w = o.trace.empty() ? parse_workload(o.workload.empty() ? "sharegpt" : o.workload)
                                     : read_trace(o.trace, e.r.max_model_len);
  Arrivals arrivals;
  arrivals.requests = o.requests.empty() ? 1000 : parse_count("--requests", o.requests, kMaxTraceRequests);
  if (!o.seed.empty()) {
    const auto seed = to_unsigned(o.seed);
    if (!seed) {
      throw Error(fmt::format("--seed: expected a whole number (got {})", quote_input(o.seed)));
    }
    arrivals.seed = *seed;
  }
  if (!o.rate.empty()) {
    const double rate = to_decimal(o.rate).value_or(0);
    if (!(rate > 0) || rate > 1e9) {
      throw Error(fmt::format("--rate: must be a positive number of requests per step (got {})", quote_input(o.rate)));
    }
    arrivals.rate = rate;
  }
  std::vector<AllocatorSpec> allocators{{AllocatorKind::contiguous_max, 1}, {AllocatorKind::contiguous_oracle, 1}};
  const std::vector<std::uint64_t> blocks = block_list(o.blocks.empty() ? "16" : o.blocks);
  for (std::uint64_t b : blocks) {
    allocators.push_back({AllocatorKind::paged, b});
  }
  if (config.shared_prefix_tokens > 0 || config.samples > 1) {
    allocators.push_back({AllocatorKind::paged_shared, blocks.front()});
  }

  Document doc;
  doc.title = fmt::format("kvplan {} simulate · {} on {} · KV {} · {}", version(), model.name, q.hardware.label,
                          e.r.kv_dtype.name, w.description);
  Section s;
  s.key = "simulation";
  s.title = "Simulation";
  s.fields = {
      {"capacity_tokens", "KV capacity", Cell::tokens(config.capacity_tokens),
       fmt::format("token slots: {} KV budget / {} B per token per GPU", format_bytes(e.budget.kv_budget_bytes),
                   with_commas(per_token))},
      {"max_model_len", "Max request length", Cell::tokens(config.max_model_len), "prompt + output"},
      {"workload", "Workload", Cell::str(w.name), w.description},
      {"arrivals", "Arrivals", Cell::str(arrivals.rate > 0 ? fmt::format("Poisson, {:g} per step", arrivals.rate)
                                                           : std::string("all at step 0")),
       fmt::format("seed {}", arrivals.seed)},
  };
  if (config.shared_prefix_tokens > 0) {
    s.fields.push_back({"shared_prefix_tokens", "Shared prefix", Cell::tokens(config.shared_prefix_tokens), ""});
  }
  if (config.samples > 1) {
    s.fields.push_back({"samples", !o.beam.empty() ? "Beam width" : "Samples per request", Cell::count(config.samples),
                        !o.beam.empty() ? "beams share the prompt; their shared output prefixes are not credited"
                                        : "each sample generates the request's output length"});
  }
  Table t;
  t.key = "allocators";
  t.title = "Allocators on the same request stream";
  t.columns = {{"allocator", "Allocator"},          {"token_states_percent", "Token states"},
               {"reserved_percent", "Reserved"},    {"waste_percent", "Waste"},
               {"mean_batch", "Mean batch"},         {"peak_batch", "Peak batch"},
               {"completed_per_step", "Done/step"},  {"relative_throughput", "Relative"},
               {"preemptions", "Preempted"},         {"rejected", "Rejected"},
               {"steps", "Steps"}};
  Table series;
  series.key = "series";
  series.columns = {{"allocator", "Allocator"}, {"step", "Step"}, {"used_tokens", "Used"},
                    {"reserved_tokens", "Reserved"}, {"running", "Running"}};
  Section chart;
  chart.title = "Token states over time (share of the cache; each column a span of steps)";
  // Fitted to the terminal: the labels, then the chart in the columns left (60 on a pipe).
  const View view = chart_view(o.plan, format, "simulate");
  std::size_t label_width = 0;
  for (const AllocatorSpec& a : allocators) {
    label_width = std::max(label_width, display_width(a.label()));
  }
  const std::size_t columns = view.width == 0 ? 60 : view.width > label_width + 15 ? view.width - label_width - 5 : 10;
  double base = 0;
  for (const AllocatorSpec& a : allocators) {
    const SimStats r = simulate(a, config, request_stream(w, arrivals));
    const double per_step = static_cast<double>(r.completed) / static_cast<double>(std::max<std::uint64_t>(r.steps, 1));
    base = base == 0 ? per_step : base;
    t.rows.push_back({Cell::str(a.label()), Cell::percent(100 * r.used_fraction()),
                      Cell::percent(100 * r.reserved_fraction()), Cell::percent(100 * r.waste_fraction()),
                      Cell::number(std::round(r.mean_running * 10) / 10), Cell::count(r.peak_running),
                      Cell::number(std::round(per_step * 1000) / 1000), Cell::ratio(base == 0 ? 0 : per_step / base),
                      Cell::count(r.preemptions), Cell::count(r.rejected), Cell::count(r.steps)});
    for (const SimSample& x : r.series) {
      series.rows.push_back({Cell::str(a.label()), Cell::count(x.step), Cell::tokens(x.used_tokens),
                             Cell::tokens(x.reserved_tokens), Cell::count(x.running)});
    }
    chart.notes.push_back(fmt::format("{:<{}} |{}|", a.label(), label_width, sparkline(r, columns)));
  }
  t.notes.push_back("Token states: the cache holding tokens; Reserved: allocated; Waste: reserved but empty; "
                    "Done/step: requests completed per decode step (a throughput proxy).");
  s.tables.push_back(std::move(t));
  doc.sections.push_back(std::move(s));
  doc.sections.push_back(std::move(chart));
  // The series: JSON and CSV rows, the HTML page's line chart; the text renderers draw sparklines instead.
  series.data_only = true;
  series.title = "Tokens held over time";
  Section data;
  data.key = "time_series";
  data.tables.push_back(std::move(series));
  doc.sections.push_back(std::move(data));
  render(doc, format, out, view);
  return 0;
}

}  // namespace kvplan::cli
