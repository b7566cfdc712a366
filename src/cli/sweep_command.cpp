// `kvplan sweep`: the grid of models x GPUs x counts x KV dtypes x TP/PP x context lengths, one row
// per valid point (fits, max concurrency, longest context, headroom), as CSV or JSON, with --where
// filters and a --best objective. Each point is one evaluate() of the plan, so the numbers are the
// plan's own.
#include <algorithm>
#include <fmt/format.h>
#include <map>
#include <nlohmann/json.hpp>
#include <ostream>

#include "commands.hpp"
#include "kvplan/catalog.hpp"
#include "kvplan/error.hpp"
#include "kvplan/gpus.hpp"
#include "kvplan/quantity.hpp"
#include "kvplan/text.hpp"
#include "kvplan/units.hpp"

namespace kvplan::cli {
namespace {

constexpr std::uint64_t kMaxPoints = 1'000'000;

std::vector<std::string> split(const std::vector<std::string>& values) {
  std::vector<std::string> out;
  for (const std::string& v : values) {
    std::size_t start = 0;
    while (start <= v.size()) {
      const std::size_t end = std::min(v.find(',', start), v.size());
      if (end > start) {
        out.push_back(v.substr(start, end - start));
      }
      start = end + 1;
    }
  }
  return out;
}

struct Point {
  std::string model, gpu, kv_dtype;
  std::uint64_t gpus = 1, tp = 1, pp = 1, seq_len = 0, batch = 1;
  bool fits = false;
  std::uint64_t max_batch = 0, total_concurrency = 0, longest = 0, kv_budget = 0, weights = 0;
  std::int64_t headroom = 0;  // KV budget minus what batch x seq_len needs, per GPU (negative: short)
};

double value_of(const Point& p, const std::string& field) {
  if (field == "max_batch") return static_cast<double>(p.max_batch);
  if (field == "total_concurrency") return static_cast<double>(p.total_concurrency);
  if (field == "gpus") return static_cast<double>(p.gpus);
  if (field == "longest_context") return static_cast<double>(p.longest);
  if (field == "kv_budget_bytes") return static_cast<double>(p.kv_budget);
  if (field == "headroom_bytes") return static_cast<double>(p.headroom);
  if (field == "seq_len") return static_cast<double>(p.seq_len);
  if (field == "tp") return static_cast<double>(p.tp);
  if (field == "pp") return static_cast<double>(p.pp);
  return 0;
}

const std::vector<std::string> kFields{"max_batch", "total_concurrency", "gpus", "longest_context", "kv_budget_bytes",
                                       "headroom_bytes", "seq_len", "tp", "pp"};

struct Filter {
  std::string field, op;
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
  if (text == "fits") {
    return Filter{"", "", 0, true};
  }
  for (const char* op : {">=", "<=", "==", ">", "<"}) {
    if (const std::size_t at = text.find(op); at != std::string::npos) {
      Filter f{text.substr(0, at), op, 0, false};
      if (std::find(kFields.begin(), kFields.end(), f.field) == kFields.end()) {
        throw Error(fmt::format("--where: unknown field '{}'{} (fields: fits, {})", f.field, did_you_mean(f.field, kFields),
                                fmt::join(kFields, ", ")));
      }
      const std::string number = text.substr(at + std::string_view(op).size());
      const auto value = to_decimal(number);
      if (!value) {
        throw Error(fmt::format("--where: '{}' is not a number in '{}'", number, text));
      }
      f.value = *value;
      return f;
    }
  }
  throw Error(fmt::format("--where: expected 'fits' or FIELD>=NUMBER (also <=, >, <, ==), got '{}'", text));
}

}  // namespace

void setup_sweep(CLI::App& app, SweepOptions& o) {
  app.add_option("--model,-m", o.models, "Models (repeat or comma-separate; 'all' for the whole catalog)")->required();
  app.add_option("--gpu,-g", o.gpus, "GPU types (repeat or comma-separate)")->required();
  app.add_option("--count", o.counts, "GPUs per deployment (default 1,2,4,8)");
  app.add_option("--kv-dtype", o.kv_dtypes, "KV dtypes (default: the model's)");
  app.add_option("--pp", o.pps, "Pipeline-parallel sizes (default 1); tp = count / pp");
  app.add_option("--seq-len,-s", o.seq_lens, "Context lengths (default 8k)");
  app.add_option("--batch,-b", o.batch, "Concurrent sequences each point must serve to fit (default 1)");
  app.add_option("--engine,-e", o.engine, "Engine profile for every point (default raw)");
  app.add_option("--where", o.where, "Keep rows: fits, or FIELD>=N (<=, >, <, ==); repeatable");
  app.add_option("--best", o.best, "One row per model and context: most-concurrency or fewest-gpus (among fits)");
  app.add_option("--format,-f", o.format, "csv or json (default csv)");
  app.add_flag("--force", o.force, "Allow more than 1,000,000 points");
}

int run_sweep(const SweepOptions& o, std::ostream& out) {
  if (o.format != "csv" && o.format != "json") {
    throw Error(fmt::format("sweep: unknown format '{}'{} (expected csv or json)", o.format,
                            did_you_mean(o.format, {"csv", "json"})));
  }
  if (!o.best.empty() && o.best != "most-concurrency" && o.best != "fewest-gpus") {
    throw Error(fmt::format("--best: unknown objective '{}'{} (most-concurrency or fewest-gpus)", o.best,
                            did_you_mean(o.best, {"most-concurrency", "fewest-gpus"})));
  }
  std::vector<std::string> models = split(o.models);
  if (models.size() == 1 && models.front() == "all") {
    models.clear();
    for (const Preset& p : presets()) {
      models.push_back(p.name);
    }
  }
  const std::vector<std::string> gpus = split(o.gpus);
  std::vector<std::string> counts = split(o.counts);
  std::vector<std::string> dtypes = split(o.kv_dtypes);
  std::vector<std::string> pps = split(o.pps);
  std::vector<std::string> seqs = split(o.seq_lens);
  counts = counts.empty() ? std::vector<std::string>{"1", "2", "4", "8"} : counts;
  dtypes = dtypes.empty() ? std::vector<std::string>{"auto"} : dtypes;
  pps = pps.empty() ? std::vector<std::string>{"1"} : pps;
  seqs = seqs.empty() ? std::vector<std::string>{"8k"} : seqs;
  std::vector<Filter> filters;
  for (const std::string& w : o.where) {
    filters.push_back(parse_filter(w));
  }
  const std::uint64_t points = sat_mul(sat_mul(sat_mul(models.size(), gpus.size()), sat_mul(counts.size(), dtypes.size())),
                                       sat_mul(pps.size(), seqs.size()));
  if (points == 0) {
    throw Error("sweep: the grid is empty; give at least one value on every axis");
  }
  if (points > kMaxPoints && !o.force) {
    throw Error(fmt::format("sweep: {} points is more than {}; narrow an axis or add --force", with_commas(points),
                            with_commas(kMaxPoints)));
  }
  // Validate every axis value once, before the sweep (a typo fails at once, not at row 90,000).
  for (const std::string& m : models) {
    (void)find_preset(m);
  }
  for (const std::string& g : gpus) {
    (void)parse_gpu(g);
  }
  for (const std::string& d : dtypes) {
    if (d != "auto") {
      (void)require_dtype(kv_dtypes(), "--kv-dtype", d);
    }
  }
  std::vector<Point> rows;
  std::uint64_t skipped = 0;
  for (const std::string& m : models) {
    for (const std::string& seq : seqs) {
      for (const std::string& g : gpus) {
        for (const std::string& c : counts) {
          for (const std::string& pp : pps) {
            for (const std::string& d : dtypes) {
              PlanOptions po;
              po.model = m;
              po.gpu = fmt::format("{}x{}", g, c);
              po.pp = pp;
              po.kv_dtype = d;
              po.seq_len = seq;
              po.batch = o.batch.empty() ? "1" : o.batch;
              po.engine = o.engine.empty() ? "raw" : o.engine;
              PlanInputs in;
              try {
                in = plan_inputs(po);
              } catch (const Error&) {
                ++skipped;  // an invalid split for this model (tp not dividing heads, pp > layers, ...)
                continue;
              }
              Evaluation e = evaluate(in);
              for (std::uint32_t r = 0; in.pipeline_parallel > 1 && r < in.pipeline_parallel; ++r) {
                PlanInputs stage = in;  // every stage is a GPU of its own; the fewest sequences decide
                stage.model = pipeline_stage(in.model, in.pipeline_parallel, r);
                stage.stage = r;
                Evaluation s = evaluate(stage);
                if (r == 0 || s.max_batch < e.max_batch ||
                    (s.max_batch == e.max_batch && s.budget.kv_budget_bytes < e.budget.kv_budget_bytes)) {
                  e = std::move(s);
                }
              }
              Point p{in.model.name, std::string(in.gpu->name), std::string(in.kv_dtype.name), in.gpu_count,
                      in.tensor_parallel, in.pipeline_parallel, *in.seq_len, e.shape.batch};
              p.fits = e.fits;
              p.max_batch = e.max_batch;
              p.total_concurrency = e.max_batch * in.replicas;
              p.longest = e.longest_at_batch_1.value_or(0);
              p.kv_budget = e.budget.kv_budget_bytes;
              p.weights = e.budget.weights_bytes;
              const std::uint64_t needed = sat_mul(e.shape.batch, e.kv_per_sequence);
              p.headroom = static_cast<std::int64_t>(p.kv_budget) - static_cast<std::int64_t>(std::min<std::uint64_t>(needed, kSaturated / 2));
              if (std::all_of(filters.begin(), filters.end(), [&](const Filter& f) { return f.keep(p); })) {
                rows.push_back(std::move(p));
              }
            }
          }
        }
      }
    }
  }
  if (!o.best.empty()) {
    std::map<std::pair<std::string, std::uint64_t>, Point> best;
    for (const Point& p : rows) {
      if (!p.fits) {
        continue;
      }
      auto [it, inserted] = best.try_emplace({p.model, p.seq_len}, p);
      const Point& b = it->second;
      const bool better = o.best == "fewest-gpus"
                              ? (p.gpus < b.gpus || (p.gpus == b.gpus && p.total_concurrency > b.total_concurrency))
                              : (p.total_concurrency > b.total_concurrency ||
                                 (p.total_concurrency == b.total_concurrency && p.gpus < b.gpus));
      if (!inserted && better) {
        it->second = p;
      }
    }
    rows.clear();
    for (auto& [key, p] : best) {
      rows.push_back(p);
    }
  }
  if (o.format == "json") {
    nlohmann::ordered_json j;
    j["schema_version"] = 1;
    j["points"] = nlohmann::ordered_json::array();
    for (const Point& p : rows) {
      j["points"].push_back({{"model", p.model}, {"gpu", p.gpu}, {"gpus", p.gpus}, {"tp", p.tp}, {"pp", p.pp},
                             {"kv_dtype", p.kv_dtype}, {"seq_len", p.seq_len}, {"batch", p.batch}, {"fits", p.fits},
                             {"max_batch", p.max_batch}, {"total_concurrency", p.total_concurrency},
                             {"longest_context", p.longest}, {"kv_budget_bytes", p.kv_budget},
                             {"weights_bytes", p.weights}, {"headroom_bytes", p.headroom}});
    }
    j["skipped_invalid"] = skipped;
    out << j.dump(2) << '\n';
  } else {
    out << "model,gpu,gpus,tp,pp,kv_dtype,seq_len,batch,fits,max_batch,total_concurrency,longest_context,"
           "kv_budget_bytes,weights_bytes,headroom_bytes\n";
    for (const Point& p : rows) {
      out << fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", p.model, p.gpu, p.gpus, p.tp, p.pp,
                         p.kv_dtype, p.seq_len, p.batch, p.fits ? "true" : "false", p.max_batch, p.total_concurrency,
                         p.longest, p.kv_budget, p.weights, p.headroom);
    }
  }
  return 0;
}

}  // namespace kvplan::cli
