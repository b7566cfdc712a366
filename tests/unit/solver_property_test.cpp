// Solver properties over generated instances (Catch2 v2's default seed is 0: reproducible).
#include <catch2/catch.hpp>

#include "kvplan/catalog.hpp"
#include "kvplan/solver.hpp"

using namespace kvplan;

namespace {

Deployment base(std::uint64_t block, std::uint32_t tp) {
  Deployment d;
  d.kv_dtype = *find_dtype(kv_dtypes(), "bf16");
  d.block_size = block;
  d.tensor_parallel = tp;
  return d;
}

const char* const kModels[] = {"llama-3.1-8b", "gemma-3-27b", "deepseek-v2-lite", "qwen3-next-80b-a3b",
                               "mistral-7b-v0.1", "falcon-7b", "gpt-oss-20b"};

}  // namespace

TEST_CASE("longest_seq_len is feasible and maximal", "[solver][property]") {
  const auto model = GENERATE(range(0, 7));
  const auto budget = GENERATE(take(12, random(std::uint64_t{1} << 20, std::uint64_t{1} << 36)));
  const auto block = GENERATE(values<std::uint64_t>({1, 16, 256}));
  const ModelSpec& m = find_preset(kModels[model]).spec;
  Deployment d = base(block, 1);
  const std::uint64_t cap = m.max_position_embeddings;
  CAPTURE(kModels[model], budget, block);
  const auto longest = longest_seq_len(m, d, budget, cap);
  if (!longest) {
    d.seq_len = 1;
    CHECK(kv_cache_bytes_per_gpu(m, d) > budget);
    return;
  }
  d.seq_len = *longest;
  CHECK(kv_cache_bytes_per_gpu(m, d) <= budget);  // feasible
  if (*longest < cap) {
    d.seq_len = *longest + 1;
    CHECK(kv_cache_bytes_per_gpu(m, d) > budget);  // maximal
  }
}

TEST_CASE("binary search agrees with a linear scan on small instances", "[solver][property]") {
  const auto model = GENERATE(range(0, 7));
  const auto budget = GENERATE(take(5, random(std::uint64_t{1} << 22, std::uint64_t{1} << 31)));
  const ModelSpec& m = find_preset(kModels[model]).spec;
  Deployment d = base(16, 1);
  const std::uint64_t cap = 4096;
  std::optional<std::uint64_t> scan;
  for (std::uint64_t s = 1; s <= cap; ++s) {
    d.seq_len = s;
    if (kv_cache_bytes_per_gpu(m, d) <= budget) {
      scan = s;
    }
  }
  CAPTURE(kModels[model], budget);
  CHECK(longest_seq_len(m, d, budget, cap) == scan);
}

TEST_CASE("KV bytes are monotone in seq_len and linear in batch", "[solver][property]") {
  const auto model = GENERATE(range(0, 7));
  const auto seq = GENERATE(take(20, random(1, 200'000)));
  const auto batch = GENERATE(take(3, random(1, 512)));
  const ModelSpec& m = find_preset(kModels[model]).spec;
  Deployment d = base(16, 1);
  d.seq_len = static_cast<std::uint64_t>(seq);
  d.batch = 1;
  const std::uint64_t one = kv_cache_bytes_per_gpu(m, d);
  d.batch = static_cast<std::uint64_t>(batch);
  CHECK(kv_cache_bytes_per_gpu(m, d) == one * d.batch);
  d.batch = 1;
  d.seq_len += 1;
  CHECK(kv_cache_bytes_per_gpu(m, d) >= one);
}

TEST_CASE("the frontier never admits more sequences at a longer context", "[solver][property]") {
  const auto model = GENERATE(range(0, 7));
  const auto budget = GENERATE(take(5, random(std::uint64_t{1} << 28, std::uint64_t{1} << 38)));
  const ModelSpec& m = find_preset(kModels[model]).spec;
  const auto points = frontier(m, base(16, 1), budget, frontier_lengths(m.max_position_embeddings, 12'345));
  for (std::size_t i = 1; i < points.size(); ++i) {
    CHECK(points[i].seq_len > points[i - 1].seq_len);
    CHECK(points[i].max_batch <= points[i - 1].max_batch);
  }
}

TEST_CASE("kind invariants: windows and states stop growing, MLA ignores TP", "[solver][property]") {
  const auto seq = GENERATE(take(10, random(4096, 100'000)));
  Deployment d = base(16, 1);
  d.seq_len = static_cast<std::uint64_t>(seq);
  const SlidingWindow swa{{8, 128, {}}, 4096};
  Deployment full_window = d;
  full_window.seq_len = 4096;
  CHECK(layer_bytes_per_sequence(swa, d) == layer_bytes_per_sequence(swa, full_window));
  const RecurrentState state{24'576, 2, 524'288, 4};
  Deployment short_seq = d;
  short_seq.seq_len = 1;
  CHECK(layer_bytes_per_sequence(state, d) == layer_bytes_per_sequence(state, short_seq));
  const LatentAttention mla{512, 64};
  Deployment tp8 = d;
  tp8.tensor_parallel = 8;
  CHECK(layer_bytes_per_sequence(mla, tp8) == layer_bytes_per_sequence(mla, d));
  const FullAttention gqa{8, 128, {}};
  CHECK(layer_bytes_per_sequence(gqa, tp8) * 8 == layer_bytes_per_sequence(gqa, d));
}

TEST_CASE("frontier lengths: powers of two from 1K, the maximum and the asked length", "[solver]") {
  CHECK(frontier_lengths(8192, std::nullopt) == std::vector<std::uint64_t>{1024, 2048, 4096, 8192});
  CHECK(frontier_lengths(40'960, 5000) ==
        std::vector<std::uint64_t>{1024, 2048, 4096, 5000, 8192, 16'384, 32'768, 40'960});
  CHECK(frontier_lengths(std::uint64_t{1} << 63, std::nullopt).size() == 54);  // no wrap-around
}
