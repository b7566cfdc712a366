// Request streams for the simulator: distributions, arrivals and traces.
#include "kvplan/workload.hpp"

#include <cmath>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>

#include "kvplan/error.hpp"
#include "kvplan/files.hpp"
#include "kvplan/quantity.hpp"
#include "kvplan/text.hpp"

namespace kvplan {
namespace {

std::pair<std::uint64_t, std::uint64_t> pair_of(std::string_view text, char sep, std::string_view what) {
  const std::size_t at = text.find(sep);
  if (at == std::string_view::npos) {
    throw Error(fmt::format("--workload: expected {} (got {})", what, quote_input(text)));
  }
  return {parse_count("--workload", text.substr(0, at), 1 << 24), parse_count("--workload", text.substr(at + 1), 1 << 24)};
}

}  // namespace

Workload parse_workload(std::string_view text) {
  Workload w;
  w.name = std::string(text.substr(0, text.find(':')));
  // ShareGPT and Alpaca: mean input and output lengths as the vLLM paper reports them (Kwon et al.,
  // SOSP 2023, section 6.1: ShareGPT 161 / 338 tokens, Alpaca 19 / 58). The paper publishes the
  // means and histograms only; kvplan draws geometric (discrete exponential) lengths with those means.
  if (text == "sharegpt") {
    w.prompt_a = 161;
    w.output_a = 338;
    w.description = "ShareGPT: geometric lengths, mean input 161, output 338 tokens (Kwon et al. 2023, the PagedAttention paper, section 6.1)";
    return w;
  }
  if (text == "alpaca") {
    w.prompt_a = 19;
    w.output_a = 58;
    w.description = "Alpaca: geometric lengths, mean input 19, output 58 tokens (Kwon et al. 2023, the PagedAttention paper, section 6.1)";
    return w;
  }
  if (w.name == "fixed" && text.size() > 6) {
    w.shape = Workload::Shape::fixed;
    std::tie(w.prompt_a, w.output_a) = pair_of(text.substr(6), ',', "fixed:IN,OUT");
    w.description = fmt::format("fixed: input {}, output {} tokens", w.prompt_a, w.output_a);
    return w;
  }
  if (w.name == "uniform" && text.size() > 8) {
    w.shape = Workload::Shape::uniform;
    const std::string_view rest = text.substr(8);
    const std::size_t comma = rest.find(',');
    if (comma == std::string_view::npos) {
      throw Error(fmt::format("--workload: expected uniform:IMIN-IMAX,OMIN-OMAX (got {})", quote_input(text)));
    }
    std::tie(w.prompt_a, w.prompt_b) = pair_of(rest.substr(0, comma), '-', "uniform:IMIN-IMAX,OMIN-OMAX");
    std::tie(w.output_a, w.output_b) = pair_of(rest.substr(comma + 1), '-', "uniform:IMIN-IMAX,OMIN-OMAX");
    if (w.prompt_a > w.prompt_b || w.output_a > w.output_b) {
      throw Error(fmt::format("--workload: each range must go from low to high (got {})", quote_input(text)));
    }
    w.description = fmt::format("uniform: input {}-{}, output {}-{} tokens", w.prompt_a, w.prompt_b, w.output_a,
                                w.output_b);
    return w;
  }
  throw Error(fmt::format("--workload: unknown workload {}{} (sharegpt, alpaca, fixed:IN,OUT, "
                          "uniform:IMIN-IMAX,OMIN-OMAX, or --trace FILE)",
                          quote_input(text), did_you_mean(w.name, {"sharegpt", "alpaca", "fixed", "uniform"})));
}

Workload read_trace(const std::string& path, std::uint64_t max_tokens) {
  check_input_file(path, kMaxTraceBytes, "trace file");
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw Error(fmt::format("{}: cannot read the trace file", one_line(path)));
  }
  return read_trace(in, path, max_tokens);
}

Workload read_trace(std::istream& in, const std::string& path, std::uint64_t max_tokens) {
  Workload w;
  w.name = "trace";
  const bool jsonl = path.size() > 6 && (path.ends_with(".jsonl") || path.ends_with(".json"));
  // CSV: the header names the columns once; rows are split only as far as the last column read,
  // so a row costs its own length, whatever the header holds.
  constexpr std::size_t kNone = ~std::size_t{0};
  bool have_header = false;
  std::size_t prompt_col = kNone, output_col = kNone, arrival_col = kNone, last_col = 0;
  std::uint64_t line_no = 0;
  std::uint64_t last_arrival = 0;
  std::vector<std::string_view> cells;
  for (std::string line; std::getline(in, line);) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') {
      line.pop_back();
    }
    if (line.find_first_not_of(" \t") == std::string::npos) {
      continue;
    }
    const std::string where = fmt::format("{}:{}", one_line(path), line_no);
    if (w.trace.size() >= kMaxTraceRequests) {
      throw Error(fmt::format("{}: more than {} requests; split the trace (docs/limits.md)", where,
                              with_commas(kMaxTraceRequests)));
    }
    std::optional<std::string> prompt, output, arrival;
    if (jsonl) {
      nlohmann::json j;
      if (json_depth(line) > kMaxJsonDepth) {
        throw Error(fmt::format("{}: JSON nested deeper than {} levels", where, kMaxJsonDepth));
      }
      try {
        j = nlohmann::json::parse(line);
      } catch (const nlohmann::json::exception&) {
        throw Error(fmt::format("{}: not a JSON object", where));
      }
      if (!j.is_object()) {
        throw Error(fmt::format("{}: not a JSON object", where));
      }
      auto field = [&](const char* key) -> std::optional<std::string> {
        const auto it = j.find(key);
        if (it == j.end()) {
          return std::nullopt;
        }
        if (it->is_string()) {
          return it->get<std::string>();
        }
        return it->is_number() ? it->dump() : std::string("?");  // a number dumps as written; nothing else is read
      };
      prompt = field("prompt");
      output = field("output");
      arrival = field("arrival");
    } else {
      cells.clear();
      const std::string_view text(line);
      const std::size_t want = have_header ? last_col + 1 : kMaxTraceColumns + 1;
      for (std::size_t start = 0; start <= text.size() && cells.size() < want;) {
        const std::size_t end = std::min(text.find(',', start), text.size());
        std::string_view cell = text.substr(start, end - start);
        while (!cell.empty() && cell.front() == ' ') {
          cell.remove_prefix(1);
        }
        while (!cell.empty() && cell.back() == ' ') {
          cell.remove_suffix(1);
        }
        cells.push_back(cell);
        start = end + 1;
      }
      if (!have_header) {
        if (cells.size() > kMaxTraceColumns) {
          throw Error(fmt::format("{}: the header has more than {} columns (docs/limits.md)", where, kMaxTraceColumns));
        }
        for (std::size_t c = 0; c < cells.size(); ++c) {
          std::size_t* col = cells[c] == "prompt" ? &prompt_col : cells[c] == "output" ? &output_col
                                                                  : cells[c] == "arrival" ? &arrival_col : nullptr;
          if (col != nullptr && *col == kNone) {
            *col = c;
            last_col = std::max(last_col, c);
          }
        }
        for (const auto& [col, need] : {std::pair{prompt_col, "prompt"}, std::pair{output_col, "output"}}) {
          if (col == kNone) {
            throw Error(fmt::format("{}: the header has no {} column (expected prompt,output[,arrival])", where, quote_input(need)));
          }
        }
        have_header = true;
        continue;
      }
      const auto cell = [&](std::size_t c) -> std::optional<std::string> {
        if (c == kNone || c >= cells.size()) {
          return std::nullopt;
        }
        return std::string(cells[c]);
      };
      prompt = cell(prompt_col);
      output = cell(output_col);
      arrival = cell(arrival_col);
    }
    if (!prompt || !output) {
      throw Error(fmt::format("{}: missing {}", where, !prompt ? "prompt" : "output"));
    }
    SimRequest r;
    r.prompt_tokens = parse_count(where + ": prompt", *prompt, 1ULL << 40);
    r.output_tokens = parse_count(where + ": output", *output, 1ULL << 40);
    if (r.prompt_tokens + r.output_tokens > max_tokens) {
      throw Error(fmt::format("{}: {} + {} tokens is longer than the model's maximum context {}", where, r.prompt_tokens,
                              r.output_tokens, with_commas(max_tokens)));
    }
    if (arrival && !arrival->empty()) {
      w.trace_has_arrivals = true;
      const double t = to_decimal(*arrival).value_or(-1);
      if (!(t >= 0) || t > 1e15) {
        throw Error(fmt::format("{}: arrival must be a non-negative number of steps (got {})", where, quote_input(*arrival)));
      }
      r.arrival_step = static_cast<std::uint64_t>(t);
      if (r.arrival_step < last_arrival) {
        throw Error(fmt::format("{}: arrivals must be sorted; {} comes after {}", where, r.arrival_step, last_arrival));
      }
      last_arrival = r.arrival_step;
    }
    w.trace.push_back(r);
  }
  if (w.trace.empty()) {
    throw Error(fmt::format("{}: no requests in the trace", one_line(path)));
  }
  w.description = fmt::format("trace {}: {} requests", one_line(path), with_commas(w.trace.size()));
  return w;
}

std::function<std::optional<SimRequest>()> request_stream(const Workload& w, const Arrivals& a) {
  struct State {
    std::mt19937_64 rng;
    std::uint64_t produced = 0;
    double clock = 0;
  };
  auto state = std::make_shared<State>(State{std::mt19937_64(a.seed), 0, 0});
  auto workload = std::make_shared<Workload>(w);
  return [state, workload, a]() -> std::optional<SimRequest> {
    const Workload& wl = *workload;
    const std::uint64_t total = wl.name == "trace" ? wl.trace.size() : a.requests;
    if (state->produced >= total) {
      return std::nullopt;
    }
    SimRequest r;
    if (wl.name == "trace") {
      r = wl.trace[state->produced];
    } else {
      auto draw = [&](std::uint64_t lo, std::uint64_t hi) -> std::uint64_t {
        switch (wl.shape) {
          case Workload::Shape::fixed:
            return lo;
          case Workload::Shape::uniform:
            return std::uniform_int_distribution<std::uint64_t>(lo, hi)(state->rng);
          case Workload::Shape::geometric:
            break;
        }
        // Geometric on {1, 2, ...} with mean `lo`: p = 1 / mean.
        return 1 + std::geometric_distribution<std::uint64_t>(1.0 / static_cast<double>(lo))(state->rng);
      };
      r.prompt_tokens = draw(wl.prompt_a, wl.prompt_b);
      r.output_tokens = draw(wl.output_a, wl.output_b);
    }
    if (!(wl.name == "trace" && wl.trace_has_arrivals)) {
      if (a.rate > 0) {  // Poisson arrivals: exponential gaps with mean 1 / rate steps
        state->clock += std::exponential_distribution<double>(a.rate)(state->rng);
      }
      r.arrival_step = static_cast<std::uint64_t>(state->clock);
    }
    ++state->produced;
    return r;
  };
}

}  // namespace kvplan
