// `kvplan sweep`: the grid of models x GPUs x counts x KV and weight dtypes x PP x DP x context lengths, one row per
// point (fits, max concurrency, longest context, headroom, and the reason when it does not fit), as
// CSV or JSON, with --where filters and a --best objective. Every axis is typed once, before the
// sweep; each point is one plan() at verdict depth, the plan's own numbers, with no text parsed and
// no exception thrown per point. Rows stream out as they are computed (--best keeps one per group).
#include <algorithm>
#include <charconv>
#include <cstring>
#include <fmt/format.h>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>

#include "commands.hpp"
#include "kvplan/catalog.hpp"
#include "kvplan/error.hpp"
#include "kvplan/gpus.hpp"
#include "kvplan/model_source.hpp"
#include "kvplan/quantity.hpp"
#include "kvplan/report.hpp"
#include "kvplan/text.hpp"
#include "kvplan/units.hpp"

namespace kvplan::cli {
namespace {

constexpr std::uint64_t kMaxPoints = 1'000'000;

// One axis: repeated or comma-separated values, at most kMaxAxisValues of them (docs/limits.md).
constexpr std::size_t kMaxAxisValues = 1024;

std::vector<std::string> split(const std::vector<std::string>& values, std::string_view option) {
  std::vector<std::string> out;
  for (const std::string& v : values) {
    std::size_t start = 0;
    while (start <= v.size()) {
      const std::size_t end = std::min(v.find(',', start), v.size());
      if (end > start) {
        if (out.size() == kMaxAxisValues) {
          throw Error(fmt::format("{}: more than {} values; a sweep axis holds at most {} (docs/limits.md)", option,
                                  kMaxAxisValues, kMaxAxisValues));
        }
        out.push_back(v.substr(start, end - start));
      }
      start = end + 1;
    }
  }
  return out;
}

struct Point {
  const ModelSpec* model = nullptr;
  std::string_view gpu;        // the catalog name, or the --vram size as given
  std::string_view kv_dtype;
  std::string_view weight_dtype;
  std::uint64_t gpus = 1, tp = 1, pp = 1, dp = 1, seq_len = 0, batch = 1;
  bool fits = false;
  std::uint64_t max_batch = 0, total_concurrency = 0, longest = 0, kv_budget = 0, weights = 0;
  std::int64_t headroom = 0;  // KV budget minus what batch x seq_len needs, per GPU (negative: short)
  Cause cause = Cause::fits;
};

std::string_view cause_name(Cause c) {
  switch (c) {
    case Cause::fits: return "";
    case Cause::refused: return "refused";
    case Cause::gpus: return "gpus";
    case Cause::weights: return "weights";
    case Cause::no_kv_memory: return "no_kv_memory";
    case Cause::startup_too_long: return "startup_max_model_len";
    case Cause::too_long: return "too_long";
    case Cause::capacity: return "capacity";
    case Cause::concurrency_cap: return "concurrency_cap";
    case Cause::weights_unknown: return "weights_unknown";
  }
  return "";
}

enum class Field : std::uint8_t {
  max_batch, total_concurrency, gpus, longest_context, kv_budget_bytes, headroom_bytes, seq_len, tp, pp, dp
};

const std::vector<std::string> kFields{"max_batch", "total_concurrency", "gpus", "longest_context", "kv_budget_bytes",
                                       "headroom_bytes", "seq_len", "tp", "pp", "dp"};

double value_of(const Point& p, Field f) {
  switch (f) {
    case Field::max_batch: return static_cast<double>(p.max_batch);
    case Field::total_concurrency: return static_cast<double>(p.total_concurrency);
    case Field::gpus: return static_cast<double>(p.gpus);
    case Field::longest_context: return static_cast<double>(p.longest);
    case Field::kv_budget_bytes: return static_cast<double>(p.kv_budget);
    case Field::headroom_bytes: return static_cast<double>(p.headroom);
    case Field::seq_len: return static_cast<double>(p.seq_len);
    case Field::tp: return static_cast<double>(p.tp);
    case Field::pp: return static_cast<double>(p.pp);
    case Field::dp: return static_cast<double>(p.dp);
  }
  return 0;
}

struct Filter {
  Field field = Field::max_batch;
  std::string op;
  double value = 0;
  bool fits_only = false;
  bool keep(const Point& p) const {
    if (fits_only) {
      return p.fits;
    }
    const double v = value_of(p, field);
    return op == ">=" ? v >= value : op == "<=" ? v <= value : op == ">" ? v > value : op == "<" ? v < value : v == value;
  }
};

Filter parse_filter(const std::string& text) {
  Filter f;
  if (text == "fits") {
    f.fits_only = true;
    return f;
  }
  for (const char* op : {">=", "<=", "==", ">", "<"}) {
    if (const std::size_t at = text.find(op); at != std::string::npos) {
      const std::string name = text.substr(0, at);
      const auto it = std::find(kFields.begin(), kFields.end(), name);
      if (it == kFields.end()) {
        throw Error(fmt::format("--where: unknown field {}{} (fields: fits, {})", quote_input(name), did_you_mean(name, kFields),
                                fmt::join(kFields, ", ")));
      }
      f.field = static_cast<Field>(it - kFields.begin());
      f.op = op;
      const std::string number = text.substr(at + std::string_view(op).size());
      const auto value = to_decimal(number);
      if (!value) {
        throw Error(fmt::format("--where: {} is not a number in {}", quote_input(number), quote_input(text)));
      }
      f.value = *value;
      return f;
    }
  }
  throw Error(fmt::format("--where: expected 'fits' or FIELD>=NUMBER (also <=, >, <, ==), got {}", quote_input(text)));
}

// The most rows a table or Markdown sweep holds: a person reads it; CSV and JSON stream any number.
constexpr std::size_t kMaxTableRows = 10'000;

// A sweep as a table for a person (--format table or markdown): the same columns as the CSV, typed
// cells, one renderer per format.
class TableWriter {
 public:
  TableWriter(std::ostream& out, Format format, const View& view) : out_(out), format_(format), view_(view) {
    table_.key = "points";
    for (const auto& [key, label] :
         {std::pair{"model", "Model"}, {"gpu", "GPU"}, {"gpus", "GPUs"}, {"tp", "tp"}, {"pp", "pp"}, {"dp", "dp"},
          {"kv_dtype", "KV"}, {"weight_dtype", "Weights"}, {"seq_len", "Context"}, {"batch", "Batch"},
          {"fits", "Fits"}, {"max_batch", "Max batch"}, {"total_concurrency", "Total"}, {"longest_context", "Longest"},
          {"kv_budget_bytes", "KV budget"}, {"weights_bytes", "Weights/GPU"}, {"headroom_bytes", "Headroom"},
          {"reason", "Reason"}}) {
      table_.columns.push_back({key, label});
    }
  }
  void row(const Point& p) {
    if (table_.rows.size() == kMaxTableRows) {
      throw Error(fmt::format("sweep: more than {} rows for a table; narrow it with --where or --best, or use --format "
                              "csv or json",
                              with_commas(kMaxTableRows)));
    }
    const Cell headroom = p.headroom >= 0 ? Cell::bytes(static_cast<std::uint64_t>(p.headroom))
                                          : Cell::str("−" + human(Cell::bytes(static_cast<std::uint64_t>(-p.headroom))));
    table_.rows.push_back({Cell::str(p.model->name), Cell::str(std::string(p.gpu)), Cell::count(p.gpus),
                           Cell::count(p.tp), Cell::count(p.pp), Cell::count(p.dp), Cell::str(std::string(p.kv_dtype)),
                           Cell::str(std::string(p.weight_dtype)), Cell::tokens(p.seq_len), Cell::count(p.batch),
                           Cell::flag(p.fits), Cell::count(p.max_batch), Cell::count(p.total_concurrency),
                           Cell::tokens(p.longest), Cell::bytes(p.kv_budget), Cell::bytes(p.weights), headroom,
                           Cell::str(std::string(cause_name(p.cause)))});
  }
  void finish() {
    Document doc;
    doc.title = fmt::format("kvplan sweep: {} points", with_commas(table_.rows.size()));
    table_.notes.push_back("Max batch is per replica and KV budget per GPU; Total counts every replica; Headroom is the KV "
                           "budget left after Batch sequences of Context tokens.");
    doc.sections.push_back(Section{"", "", {}, {std::move(table_)}, {}});
    render(doc, format_, out_, view_);
  }

 private:
  std::ostream& out_;
  Format format_;
  View view_;
  Table table_;
};

class Writer {
 public:
  Writer(std::ostream& out, bool json, bool active) : out_(out), json_(json), active_(active) {
    if (!active_) {
      return;
    }
    if (json_) {
      out_ << "{\n  \"schema_version\": 1,\n  \"points\": [";
    } else {
      out_ << "model,gpu,gpus,tp,pp,dp,kv_dtype,weight_dtype,seq_len,batch,fits,max_batch,total_concurrency,longest_context,"
              "kv_budget_bytes,weights_bytes,headroom_bytes,reason\n";
    }
  }
  void row(const Point& p) {
    // Hand-formatted into one buffer flushed every 64 KiB: a sweep writes a million of these, and
    // fmt's format-string parsing per row costs more than planning the point.
    char line[1024];  // a row is at most ~600 characters: 16 numbers and three names of at most 64
    char* at = line;
    auto text = [&](std::string_view v) {
      const std::size_t n = std::min<std::size_t>(v.size(), 64);
      std::memcpy(at, v.data(), n);
      at += n;
    };
    auto number = [&](auto v) { at = std::to_chars(at, at + 24, v).ptr; };
    auto flag = [&](bool v) { text(v ? "true" : "false"); };
    if (json_) {
      text(rows_ == 0 ? "\n    {\n      \"model\": \"" : ",\n    {\n      \"model\": \"");
      text(p.model->name);
      text("\",\n      \"gpu\": \"");
      text(p.gpu);
      text("\",\n      \"gpus\": ");
      number(p.gpus);
      text(",\n      \"tp\": ");
      number(p.tp);
      text(",\n      \"pp\": ");
      number(p.pp);
      text(",\n      \"dp\": ");
      number(p.dp);
      text(",\n      \"kv_dtype\": \"");
      text(p.kv_dtype);
      text("\",\n      \"weight_dtype\": \"");
      text(p.weight_dtype);
      text("\",\n      \"seq_len\": ");
      number(p.seq_len);
      text(",\n      \"batch\": ");
      number(p.batch);
      text(",\n      \"fits\": ");
      flag(p.fits);
      text(",\n      \"max_batch\": ");
      number(p.max_batch);
      text(",\n      \"total_concurrency\": ");
      number(p.total_concurrency);
      text(",\n      \"longest_context\": ");
      number(p.longest);
      text(",\n      \"kv_budget_bytes\": ");
      number(p.kv_budget);
      text(",\n      \"weights_bytes\": ");
      number(p.weights);
      text(",\n      \"headroom_bytes\": ");
      number(p.headroom);
      text(",\n      \"reason\": \"");
      text(cause_name(p.cause));
      text("\"\n    }");
    } else {
      text(p.model->name);
      text(",");
      text(p.gpu);
      for (const std::uint64_t v : {p.gpus, p.tp, p.pp, p.dp}) {
        text(",");
        number(v);
      }
      text(",");
      text(p.kv_dtype);
      text(",");
      text(p.weight_dtype);
      text(",");
      number(p.seq_len);
      text(",");
      number(p.batch);
      text(",");
      flag(p.fits);
      for (const std::uint64_t v : {p.max_batch, p.total_concurrency, p.longest, p.kv_budget, p.weights}) {
        text(",");
        number(v);
      }
      text(",");
      number(p.headroom);
      text(",");
      text(cause_name(p.cause));
      text("\n");
    }
    buffer_.append(line, at);
    ++rows_;
    if (buffer_.size() >= 64 * 1024) {
      flush();
    }
  }
  void flush() {
    out_.write(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
    buffer_.clear();
  }
  void finish() {
    flush();
    if (json_ && active_) {
      out_ << (rows_ == 0 ? "]\n}\n" : "\n  ]\n}\n");
    }
  }

 private:
  std::ostream& out_;
  bool json_;
  bool active_;  // false: a table writer holds the rows instead
  std::size_t rows_ = 0;
  fmt::basic_memory_buffer<char, 80 * 1024> buffer_;
};

}  // namespace

void setup_sweep(CLI::App& app, SweepOptions& o) {
  app.add_option("--model,-m", o.models, "Models (repeat or comma-separate; 'all' for the whole catalog)");
  app.add_option("--config", o.configs, "Models from config.json files or folders (repeat)");
  app.add_option("--gpu,-g", o.gpus, "GPU types (repeat or comma-separate)");
  app.add_option("--vram", o.vrams, "GPUs of this memory instead of a catalog type (repeat or comma-separate: 24GB,80GB)");
  app.add_option("--count", o.counts, "GPUs per deployment (default 1,2,4,8; or tp × pp × dp when --tp is given)");
  app.add_option("--tp", o.tps, "Tensor-parallel sizes instead of --count: each point takes tp × pp × dp GPUs");
  app.add_option("--kv-dtype", o.kv_dtypes, "KV dtypes (default: the model's)");
  app.add_option("--weight-dtype", o.weight_dtypes, "Weight formats (default auto, the checkpoint's)");
  app.add_option("--pp", o.pps, "Pipeline-parallel sizes (default 1); tp = count / (pp × dp), or --tp");
  app.add_option("--dp", o.dps, "Data-parallel replicas (default 1); each holds the model on count / dp GPUs");
  app.add_option("--utilization,-u", o.utilization, "The engine's memory fraction at every point (its default otherwise)");
  app.add_option("--max-model-len", o.max_model_len, "Longest request the server accepts at every point");
  app.add_option("--seq-len,-s", o.seq_lens, "Context lengths (default 8k)");
  app.add_option("--batch,-b", o.batch, "Concurrent sequences each point must serve to fit (default 1)");
  app.add_option("--engine,-e", o.engine, "Engine for every point (default raw)");
  app.add_option("--where", o.where, "Keep rows: fits, or FIELD>=N (<=, >, <, ==); repeatable");
  app.add_option("--best", o.best, "One row per model and context: most-concurrency or fewest-gpus (among fits)");
  app.add_option("--format,-f", o.format, "csv, json, table or markdown (default csv)");
  app.add_flag("--force", o.force, "Allow more than 1,000,000 points");
}

int run_sweep(const SweepOptions& o, std::ostream& out) {
  if (o.format != "csv" && o.format != "json" && o.format != "table" && o.format != "markdown") {
    throw Error(fmt::format("sweep: unknown format {}{} (expected csv, json, table or markdown)", quote_input(o.format),
                            did_you_mean(o.format, {"csv", "json", "table", "markdown"})));
  }
  if (!o.best.empty() && o.best != "most-concurrency" && o.best != "fewest-gpus") {
    throw Error(fmt::format("--best: unknown objective {}{} (most-concurrency or fewest-gpus)", quote_input(o.best),
                            did_you_mean(o.best, {"most-concurrency", "fewest-gpus"})));
  }
  // Every axis typed once.
  std::vector<std::string> model_names = split(o.models, "--model");
  if (model_names.size() == 1 && model_names.front() == "all") {
    model_names.clear();
    for (const Preset& p : presets()) {
      model_names.push_back(p.name);
    }
  }
  std::vector<ModelChoice> models;
  for (const std::string& m : model_names) {
    models.push_back(load_preset(m));
  }
  if (o.configs.size() > kMaxAxisValues) {
    throw Error(fmt::format("--config: more than {} files (docs/limits.md)", kMaxAxisValues));
  }
  for (const std::string& c : o.configs) {
    models.push_back(load_config(c, "--config"));
  }
  if (models.empty()) {
    throw Error("sweep: give the models with --model NAME,... or --config PATH (see 'kvplan models')");
  }
  std::vector<const GpuSpec*> gpus;
  for (const std::string& g : split(o.gpus, "--gpu")) {
    const GpuChoice c = parse_gpu(g);
    if (c.count_given) {
      throw Error(fmt::format("--gpu {}: give the GPU type here and the counts with --count", g));
    }
    gpus.push_back(c.gpu);
  }
  std::vector<Hardware> sizes;  // --vram: GPUs known only by their memory
  for (const std::string& v : split(o.vrams, "--vram")) {
    sizes.push_back(hardware_from_vram(v));
  }
  if (gpus.empty() && sizes.empty()) {
    throw Error("sweep: give the GPUs with --gpu TYPE,... or --vram SIZE,... (see 'kvplan gpus')");
  }
  std::vector<std::string> weight_names = split(o.weight_dtypes, "--weight-dtype");
  weight_names = weight_names.empty() ? std::vector<std::string>{"auto"} : weight_names;
  std::vector<std::uint32_t> dps;
  for (const std::string& d : split(o.dps, "--dp")) {
    dps.push_back(static_cast<std::uint32_t>(parse_count("--dp", d, 1024)));
  }
  dps = dps.empty() ? std::vector<std::uint32_t>{1} : dps;
  std::vector<std::uint32_t> counts;
  for (const std::string& c : split(o.counts, "--count")) {
    counts.push_back(static_cast<std::uint32_t>(parse_count("--count", c, 4096)));
  }
  std::vector<std::uint32_t> tps;
  for (const std::string& t : split(o.tps, "--tp")) {
    tps.push_back(static_cast<std::uint32_t>(parse_count("--tp", t, 1024)));
  }
  if (!tps.empty() && !counts.empty()) {
    throw Error("sweep: --count and --tp both set the GPUs of a point; give one of them (--tp: each point takes "
                "tp × pp × dp GPUs)");
  }
  counts = counts.empty() && tps.empty() ? std::vector<std::uint32_t>{1, 2, 4, 8} : counts;
  std::vector<std::optional<DType>> dtypes;
  for (const std::string& d : split(o.kv_dtypes, "--kv-dtype")) {
    dtypes.push_back(d == "auto" ? std::nullopt : std::optional<DType>(require_dtype(kv_dtypes(), "--kv-dtype", d)));
  }
  dtypes = dtypes.empty() ? std::vector<std::optional<DType>>{std::nullopt} : dtypes;
  std::vector<std::uint32_t> pps;
  for (const std::string& p : split(o.pps, "--pp")) {
    pps.push_back(static_cast<std::uint32_t>(parse_count("--pp", p, 1024)));
  }
  pps = pps.empty() ? std::vector<std::uint32_t>{1} : pps;
  std::vector<std::uint64_t> seqs;
  for (const std::string& s : split(o.seq_lens, "--seq-len")) {
    seqs.push_back(parse_tokens("--seq-len", s));
  }
  seqs = seqs.empty() ? std::vector<std::uint64_t>{8192} : seqs;
  const std::uint64_t batch = o.batch.empty() ? 1 : parse_count("--batch", o.batch, 10'000'000);
  const EngineChoice engine = parse_engine(o.engine.empty() ? "raw" : o.engine);
  KnobSet knobs;
  if (!o.utilization.empty()) {
    const std::optional<std::size_t> fraction = engine.engine->fraction_knob();
    if (!fraction) {
      throw Error(fmt::format("--utilization: --engine {} has no memory fraction", engine.engine->name()));
    }
    knobs.set(*fraction, std::uint64_t{parse_fraction_ppm("--utilization", o.utilization)});
  }
  const std::optional<std::uint64_t> max_model_len =
      o.max_model_len.empty() ? std::nullopt : std::optional<std::uint64_t>(parse_tokens("--max-model-len", o.max_model_len));
  std::vector<Filter> filters;
  if (o.where.size() > 64) {
    throw Error("--where: more than 64 filters (docs/limits.md)");
  }
  for (const std::string& w : o.where) {
    filters.push_back(parse_filter(w));
  }
  const std::uint64_t points =
      sat_mul(sat_mul(sat_mul(models.size(), gpus.size() + sizes.size()),
                      sat_mul(tps.empty() ? counts.size() : tps.size(), dtypes.size())),
              sat_mul(sat_mul(pps.size(), seqs.size()), sat_mul(dps.size(), weight_names.size())));
  if (points == 0) {
    throw Error("sweep: the grid is empty; give at least one value on every axis");
  }
  if (points > kMaxPoints && !o.force) {
    throw Error(fmt::format("sweep: {} points is more than {}; narrow an axis or add --force", with_commas(points),
                            with_commas(kMaxPoints)));
  }
  // Hardware per (GPU, count), built once.
  std::vector<Hardware> machines;
  const std::vector<std::uint32_t> per_machine = tps.empty() ? counts : std::vector<std::uint32_t>{0};  // 0: by --tp
  for (const GpuSpec* g : gpus) {
    for (std::uint32_t c : per_machine) {
      Hardware h;
      h.gpu = g;
      h.vram_bytes = g->memory_bytes;
      h.count = c;
      h.label = std::string(g->name);
      machines.push_back(std::move(h));
    }
  }
  for (const Hardware& size : sizes) {
    for (std::uint32_t c : per_machine) {
      Hardware h = size;
      h.count = c;
      machines.push_back(std::move(h));
    }
  }
  std::optional<TableWriter> table;
  if (o.format == "table" || o.format == "markdown") {
    table.emplace(out, o.format == "table" ? Format::table : Format::markdown, o.view);
  }
  Writer stream(out, o.format == "json", !table);
  const auto emit = [&](const Point& p) { table ? table->row(p) : stream.row(p); };
  std::map<std::pair<std::string_view, std::uint64_t>, Point> best;
  std::vector<std::pair<std::uint32_t, std::uint64_t>> splits_of;  // (tp, GPUs) of one (pp, dp), reused
  for (const ModelChoice& m : models) {
    PlanRequest q;
    q.model.spec = m.spec;  // only the architecture: a point never prints the model's source
    q.engine = engine.engine;
    q.version = engine.version;
    q.batch = batch;
    q.knobs = knobs;
    q.max_model_len = max_model_len;
    // Each weight format typed once per model (a name the model cannot take is one error, here).
    std::vector<WeightFormat> weights;
    for (const std::string& w : weight_names) {
      weights.push_back(weight_format(*m.spec, w));
    }
    for (std::uint64_t seq : seqs) {
      q.seq_len = seq;
      for (const Hardware& h : machines) {
        q.hardware = h;
        for (std::uint32_t pp : pps) {
          q.pp = pp;
          for (std::uint32_t dp : dps) {
            q.dp = dp;
            // The tensor-parallel sizes of this point: count / (pp × dp), or each --tp with its GPUs.
            splits_of.clear();
            if (tps.empty()) {
              splits_of.emplace_back(std::max<std::uint32_t>(1, *h.count / (pp * dp)), *h.count);
            } else {
              for (const std::uint32_t tp : tps) {
                splits_of.emplace_back(tp, std::uint64_t{tp} * pp * dp);
              }
            }
            for (const auto& [tp, gpus_here] : splits_of) {
              if (gpus_here > 4096) {
                throw Error(fmt::format("sweep: tp {} × pp {} × dp {} is {} GPUs, more than 4,096", tp, pp, dp,
                                        with_commas(gpus_here)));
              }
              q.hardware.count = static_cast<std::uint32_t>(gpus_here);
              q.tp = tp;
              const bool splits = gpus_here % (std::uint64_t{pp} * dp) == 0;
              for (std::size_t w = 0; w < weights.size(); ++w) {
                q.weights = weights[w];
                q.weights_label = weight_names[w] == "auto" ? std::string() : weight_names[w];
                for (const std::optional<DType>& d : dtypes) {
                  q.kv_dtype = d;
                  Point p;
                  p.model = m.spec.get();
                  p.gpu = h.label;
                  p.gpus = gpus_here;
                  p.tp = *q.tp;
                  p.pp = pp;
                  p.dp = dp;
                  p.seq_len = seq;
                  p.batch = batch;
                  bool planned = false;
                  try {
                    // The result lives in this block (no copy or move of it): only the row's numbers leave.
                    const PlanResult x = plan(q, Depth::verdict);
                    planned = true;
                    p.kv_dtype = x.r.kv_dtype.name;
                    p.weight_dtype = x.r.weights.linear.name;
                    p.fits = x.verdict.fits && splits;
                    p.cause = !splits ? Cause::refused : x.verdict.cause;
                    p.max_batch = x.max_batch;
                    p.total_concurrency = x.total_concurrency;
                    p.longest = x.longest_at_batch_1.value_or(0);
                    p.kv_budget = x.budget.kv_budget_bytes;
                    p.weights = x.budget.weights_bytes;
                    const std::uint64_t needed = sat_mul(x.r.batch_per_replica, x.kv_per_sequence);
                    p.headroom = static_cast<std::int64_t>(std::min<std::uint64_t>(p.kv_budget, kSaturated / 2)) -
                                 static_cast<std::int64_t>(std::min<std::uint64_t>(needed, kSaturated / 2));
                  } catch (const Error&) {
                    // This engine version cannot plan the model (vLLM's V0 and a Mamba model, say): a row
                    // that says so, never a sweep that stops or a point that vanishes.
                  }
                  if (!planned) {
                    p.kv_dtype = q.kv_dtype ? q.kv_dtype->name : std::string_view(m.spec->torch_dtype);
                    p.weight_dtype = q.weights->linear.name;
                    p.fits = false;
                    p.cause = Cause::refused;
                  }
                  if (!std::all_of(filters.begin(), filters.end(), [&](const Filter& f) { return f.keep(p); })) {
                    continue;
                  }
                  if (o.best.empty()) {
                    emit(p);
                    continue;
                  }
                  if (!p.fits) {
                    continue;
                  }
                  auto [it, inserted] = best.try_emplace({p.model->name, p.seq_len}, p);
                  const Point& b = it->second;
                  const bool better =
                      o.best == "fewest-gpus"
                          ? (p.gpus < b.gpus || (p.gpus == b.gpus && p.total_concurrency > b.total_concurrency))
                          : (p.total_concurrency > b.total_concurrency ||
                             (p.total_concurrency == b.total_concurrency && p.gpus < b.gpus));
                  if (!inserted && better) {
                    it->second = p;
                  }
                }
              }
            }
          }
        }
      }
    }
  }
  for (const auto& [key, p] : best) {
    emit(p);
  }
  table ? table->finish() : stream.finish();
  return 0;
}

}  // namespace kvplan::cli
