// Benchmark (not a test): one plan's wall time, and `kvplan sweep` over a 100,800-point grid, both
// in-process, with the sweep's rate in points per second on one core. Prints medians;
// docs/performance.md records them. Run from a release build:
//   cmake --preset release && cmake --build --preset release --target kvplan_bench && build/release/bench/kvplan_bench
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ostream>
#include <sstream>
#include <streambuf>
#include <vector>

#include "kvplan/catalog.hpp"
#include "kvplan/cli.hpp"

using Clock = std::chrono::steady_clock;

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

// Counts what is written and keeps nothing: the sweep's rows are formatted but not stored.
class CountingBuffer : public std::streambuf {
 public:
  std::size_t bytes = 0;

 protected:
  std::streamsize xsputn(const char*, std::streamsize n) override {
    bytes += static_cast<std::size_t>(n);
    return n;
  }
  int_type overflow(int_type c) override {
    ++bytes;
    return c;
  }
};

}  // namespace

int main() {
  const std::vector<std::string> args{"--model", "llama3-70b", "--vram", "80GB"};
  std::ostringstream sink;
  const double cold = time_ms([&] { kvplan::cli::run(args, sink, sink); });  // includes parsing the catalog once
  std::vector<double> plan;
  for (int i = 0; i < 200; ++i) {
    plan.push_back(time_ms([&] {
      std::ostringstream out;
      kvplan::cli::run(args, out, out);
    }));
  }
  // The grid of docs/performance.md: every preset × 5 GPUs × 4 counts × 4 KV dtypes × 2 PP × 15 lengths.
  const std::vector<std::string> sweep{"sweep", "--model", "all", "--gpu", "H100,H200,B200,A100-80GB,L40S", "--count",
                                       "1,2,4,8", "--kv-dtype", "bf16,fp8,int8,int4", "--pp", "1,2", "--seq-len",
                                       "1k,2k,3k,4k,6k,8k,12k,16k,24k,32k,48k,64k,96k,128k,160k"};
  const std::size_t points = kvplan::presets().size() * 5 * 4 * 4 * 2 * 15;
  std::vector<double> sweeps;
  std::size_t bytes = 0;
  for (int i = 0; i < 7; ++i) {
    CountingBuffer buffer;
    std::ostream out(&buffer);
    std::ostringstream err;
    sweeps.push_back(time_ms([&] { kvplan::cli::run(sweep, out, err); }));
    bytes = buffer.bytes;
  }
  const double ms = median_ms(sweeps);
  std::printf("one plan (kvplan --model llama3-70b --vram 80GB, in-process, first call): %.3f ms\n", cold);
  std::printf("one plan, median of 200: %.3f ms\n", median_ms(plan));
  std::printf("sweep: %zu points (%zu presets x 5 GPUs x 4 counts x 4 KV dtypes x 2 PP x 15 lengths), %zu bytes of CSV, "
              "median of 7: %.1f ms = %.0f points per second\n",
              points, kvplan::presets().size(), bytes, ms, static_cast<double>(points) / (ms / 1000.0));
  return 0;
}
