// Benchmark (not a test): one plan's wall time, and a sweep over every preset x 4 KV dtypes x
// TP 1/2/4/8. Prints medians; docs/performance.md records them. Run from a release build:
//   cmake --preset release && cmake --build --preset release --target kvplan_bench && build/release/bench/kvplan_bench
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <sstream>
#include <vector>

#include "kvplan/catalog.hpp"
#include "kvplan/cli.hpp"
#include "kvplan/plan.hpp"
#include "kvplan/solver.hpp"

using Clock = std::chrono::steady_clock;
using namespace kvplan;

namespace {

double median_ms(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

double time_ms(auto&& fn) {
  const auto start = Clock::now();
  fn();
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

std::size_t sweep() {
  std::size_t points = 0;
  for (const Preset& p : presets()) {
    for (const char* dtype : {"bf16", "fp8", "int8", "int4"}) {
      for (std::uint32_t tp : {1U, 2U, 4U, 8U}) {
        if (tp_problem(p.spec, tp)) {
          continue;
        }
        PlanInputs in;
        in.model = p.spec;
        in.vram_bytes = 85'029'158'912;
        in.tensor_parallel = tp;
        in.kv_dtype = *find_dtype(kv_dtypes(), dtype);
        in.weights = weight_format(p.spec, "bf16");
        in.max_model_len = p.spec.max_position_embeddings;
        const Evaluation e = evaluate(in);
        const auto f = frontier(in.model, e.shape, e.budget.kv_budget_bytes,
                                frontier_lengths(in.max_model_len, std::nullopt));
        points += f.empty() ? 0U : 1U;
      }
    }
  }
  return points;
}

}  // namespace

int main() {
  const std::vector<std::string> args{"--model", "llama3-70b", "--vram", "80GB"};
  std::ostringstream sink;
  const double cold = time_ms([&] { cli::run(args, sink, sink); });  // includes parsing the catalog once
  std::vector<double> plan;
  for (int i = 0; i < 200; ++i) {
    plan.push_back(time_ms([&] {
      std::ostringstream out;
      cli::run(args, out, out);
    }));
  }
  std::size_t points = 0;
  std::vector<double> sweeps;
  for (int i = 0; i < 20; ++i) {
    sweeps.push_back(time_ms([&] { points = sweep(); }));
  }
  std::printf("one plan (kvplan --model llama3-70b --vram 80GB, in-process, first call): %.3f ms\n", cold);
  std::printf("one plan, median of 200: %.3f ms\n", median_ms(plan));
  std::printf("sweep: %zu points (%zu presets x 4 KV dtypes x TP 1/2/4/8, valid splits), median of 20: %.3f ms\n",
              points, presets().size(), median_ms(sweeps));
  return 0;
}
