// Benchmark (not a test): one plan's wall time, and `kvplan sweep` over a 100,800-point grid, both
// in-process, with the sweep's rate in points per second on one core. Prints medians;
// docs/performance.md records them. Run from a release build:
//   cmake --preset release && cmake --build --preset release --target kvplan_bench && build/release/bench/kvplan_bench
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <ostream>
#include <sstream>
#include <streambuf>
#include <vector>

#include "kvplan/catalog.hpp"
#include "kvplan/cli.hpp"
#include "kvplan/gguf.hpp"
#include "kvplan/safetensors.hpp"

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

// Header readers (issue #10's speed bound: a 1,000-tensor GGUF header or a 60-shard safetensors
// checkpoint under 20 ms): files written here, with no tensor data after their headers.
namespace headers {

void put_u32(std::string& s, std::uint32_t v) { s.append(reinterpret_cast<const char*>(&v), 4); }
void put_u64(std::string& s, std::uint64_t v) { s.append(reinterpret_cast<const char*>(&v), 8); }
void put_str(std::string& s, std::string_view v) {
  put_u64(s, v.size());
  s.append(v);
}

// A llama-architecture GGUF v3 header (gguf-py's key names) with `tensors` F16 tensor infos.
std::string gguf(std::uint32_t tensors) {
  std::string s = "GGUF";
  put_u32(s, 3);
  put_u64(s, tensors);
  const std::vector<std::pair<std::string, std::uint32_t>> keys{
      {"llama.block_count", 32},          {"llama.context_length", 131072}, {"llama.embedding_length", 4096},
      {"llama.feed_forward_length", 14336}, {"llama.attention.head_count", 32}, {"llama.attention.head_count_kv", 8},
      {"llama.vocab_size", 128256}};
  put_u64(s, keys.size() + 1);
  put_str(s, "general.architecture");
  put_u32(s, 8);  // GGUF_TYPE_STRING
  put_str(s, "llama");
  for (const auto& [k, v] : keys) {
    put_str(s, k);
    put_u32(s, 4);  // GGUF_TYPE_UINT32
    put_u32(s, v);
  }
  for (std::uint32_t i = 0; i < tensors; ++i) {
    put_str(s, "blk." + std::to_string(i / 9) + ".t" + std::to_string(i % 9) + ".weight");
    put_u32(s, 2);
    put_u64(s, 4096);
    put_u64(s, 1024);
    put_u32(s, 1);  // GGML_TYPE_F16
    put_u64(s, std::uint64_t{i} * 4096 * 1024 * 2);
  }
  return s;
}

// A safetensors shard's header with `tensors` BF16 tensors of 4096 × 4096.
std::string shard(std::uint32_t first, std::uint32_t tensors) {
  std::string h = R"({"__metadata__":{"format":"pt"})";
  std::uint64_t at = 0;
  for (std::uint32_t i = 0; i < tensors; ++i) {
    h += ",\"model.layers." + std::to_string(first + i) + ".mlp.up_proj.weight\":{\"dtype\":\"BF16\",\"shape\":[4096,4096],"
         "\"data_offsets\":[" + std::to_string(at) + "," + std::to_string(at + 4096ULL * 4096 * 2) + "]}";
    at += 4096ULL * 4096 * 2;
  }
  h += "}";
  std::string s;
  put_u64(s, h.size());
  return s + h;
}

}  // namespace headers

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
  // Header readers, from files on disk (the page cache warm after the first read).
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "kvplan-bench-headers";
  fs::remove_all(dir);
  fs::create_directories(dir / "ckpt");
  std::ofstream(dir / "model.gguf", std::ios::binary) << headers::gguf(1000);
  std::string index = R"({"metadata":{"total_size":)" + std::to_string(60ULL * 20 * 4096 * 4096 * 2) + R"(},"weight_map":{)";
  for (std::uint32_t f = 0; f < 60; ++f) {
    const std::string name = "model-" + std::to_string(100001 + f).substr(1) + "-of-00060.safetensors";
    std::ofstream(dir / "ckpt" / name, std::ios::binary) << headers::shard(f * 20, 20);
    for (std::uint32_t i = 0; i < 20; ++i) {
      index += std::string(f + i == 0 ? "" : ",") + "\"model.layers." + std::to_string(f * 20 + i) +
               ".mlp.up_proj.weight\":\"" + name + "\"";
    }
  }
  std::ofstream(dir / "ckpt" / "model.safetensors.index.json") << index << "}}";
  std::vector<double> gguf_ms;
  std::vector<double> st_ms;
  for (int i = 0; i < 51; ++i) {
    gguf_ms.push_back(time_ms([&] { (void)kvplan::read_gguf((dir / "model.gguf").string(), "bench"); }));
    st_ms.push_back(time_ms([&] { (void)kvplan::read_safetensors_folder((dir / "ckpt").string(), "bench"); }));
  }
  fs::remove_all(dir);
  std::printf("one plan (kvplan --model llama3-70b --vram 80GB, in-process, first call): %.3f ms\n", cold);
  std::printf("one plan, median of 200: %.3f ms\n", median_ms(plan));
  std::printf("sweep: %zu points (%zu presets x 5 GPUs x 4 counts x 4 KV dtypes x 2 PP x 15 lengths), %zu bytes of CSV, "
              "median of 7: %.1f ms = %.0f points per second\n",
              points, kvplan::presets().size(), bytes, ms, static_cast<double>(points) / (ms / 1000.0));
  std::printf("GGUF header of 1,000 tensors (read_gguf), median of 51: %.3f ms\n", median_ms(gguf_ms));
  std::printf("safetensors checkpoint of 60 shards x 20 tensors with its index (read_safetensors_folder), median of 51: "
              "%.3f ms\n",
              median_ms(st_ms));
  return 0;
}
