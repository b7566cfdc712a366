// The simulator on cases small enough to follow by hand, and invariants over random workloads.
#include <catch2/catch.hpp>
#include <random>

#include "kvplan/simulate.hpp"

using namespace kvplan;

namespace {

std::function<std::optional<SimRequest>()> from(std::vector<SimRequest> requests) {
  auto index = std::make_shared<std::size_t>(0);
  auto list = std::make_shared<std::vector<SimRequest>>(std::move(requests));
  return [index, list]() -> std::optional<SimRequest> {
    if (*index >= list->size()) {
      return std::nullopt;
    }
    return (*list)[(*index)++];
  };
}

SimStats run(AllocatorKind kind, std::uint64_t block, SimConfig c, std::vector<SimRequest> r) {
  return simulate(AllocatorSpec{kind, block}, c, from(std::move(r)));
}

}  // namespace

TEST_CASE("one request, by hand", "[simulate]") {
  // Prompt 10, output 5: admitted at step 0 with 11 tokens, then 12, 13, 14, 15; done after 5 steps.
  const SimConfig c{1000, 100, 0, 60};
  const std::vector<SimRequest> one{{0, 10, 5}};
  const SimStats paged = run(AllocatorKind::paged, 4, c, one);
  CHECK(paged.steps == 5);
  CHECK(paged.completed == 1);
  CHECK(paged.mean_used == Approx((11 + 12 + 13 + 14 + 15) / 5.0));
  CHECK(paged.mean_reserved == Approx((12 + 12 + 16 + 16 + 16) / 5.0));  // blocks of 4: 3, 3, 4, 4, 4
  const SimStats oracle = run(AllocatorKind::contiguous_oracle, 1, c, one);
  CHECK(oracle.mean_reserved == Approx(15));
  const SimStats max = run(AllocatorKind::contiguous_max, 1, c, one);
  CHECK(max.mean_reserved == Approx(100));
  CHECK(max.waste_fraction() == Approx(1.0 - 13.0 / 100));
}

TEST_CASE("a full cache makes later requests wait, first come first served", "[simulate]") {
  // Capacity 100, contiguous max 60: one request at a time; each takes 3 steps.
  const SimConfig c{100, 60, 0, 60};
  const SimStats s = run(AllocatorKind::contiguous_max, 1, c, {{0, 5, 3}, {0, 5, 3}, {0, 5, 3}});
  CHECK(s.steps == 9);
  CHECK(s.peak_running == 1);
  // Paged in blocks of 4 fits all three at once: 3 steps.
  const SimStats p = run(AllocatorKind::paged, 4, c, {{0, 5, 3}, {0, 5, 3}, {0, 5, 3}});
  CHECK(p.steps == 3);
  CHECK(p.peak_running == 3);
}

TEST_CASE("requests longer than the server accepts are rejected, not lost", "[simulate]") {
  const SimConfig c{1000, 50, 0, 60};
  const SimStats s = run(AllocatorKind::paged, 16, c, {{0, 40, 20}, {0, 10, 10}});
  CHECK(s.rejected == 1);
  CHECK(s.completed == 1);
}

TEST_CASE("a shared prefix is stored once when sharing, once per request otherwise", "[simulate]") {
  // Two requests of prompt 4, output 1 behind a 32-token system prompt, blocks of 16.
  const SimConfig c{1000, 200, 32, 60};
  const std::vector<SimRequest> two{{0, 4, 1}, {0, 4, 1}};
  const SimStats shared = run(AllocatorKind::paged_shared, 16, c, two);
  CHECK(shared.mean_used == Approx(32 + 2 * 5));
  CHECK(shared.mean_reserved == Approx(32 + 2 * 16));
  const SimStats plain = run(AllocatorKind::paged, 16, c, two);
  CHECK(plain.mean_used == Approx(2 * (32 + 5)));
  CHECK(plain.mean_reserved == Approx(2 * 48));
}

TEST_CASE("paged allocation preempts the newest request when a block is needed", "[simulate]") {
  // Capacity 8 tokens in blocks of 4: two requests of prompt 3 take a block each; at 5 tokens each
  // needs a second block, the pool is empty, so the newer one is preempted and recomputed later.
  const SimConfig c{8, 100, 0, 60};
  const SimStats s = run(AllocatorKind::paged, 4, c, {{0, 3, 4}, {0, 3, 4}});
  CHECK(s.preemptions >= 1);
  CHECK(s.completed == 2);
}

TEST_CASE("invariants over random workloads", "[simulate][property]") {
  const auto seed = GENERATE(take(20, random(1, 1'000'000)));
  std::mt19937_64 rng(static_cast<std::uint64_t>(seed));
  std::vector<SimRequest> requests;
  std::uint64_t t = 0;
  for (int i = 0; i < 300; ++i) {
    t += rng() % 3;
    requests.push_back({t, 1 + rng() % 200, 1 + rng() % 300});
  }
  const SimConfig c{4096, 600, 0, 10'000'000};  // keep every step in the series: the checks see them all
  for (AllocatorKind kind : {AllocatorKind::contiguous_max, AllocatorKind::contiguous_oracle, AllocatorKind::paged,
                             AllocatorKind::paged_shared}) {
    const SimStats s = run(kind, 16, c, requests);
    CAPTURE(seed, static_cast<int>(kind));
    CHECK(s.requests == requests.size());
    CHECK(s.completed + s.rejected == s.requests);  // nothing lost, nothing duplicated
    CHECK(s.series.size() == s.steps);               // one sample per step
    for (const SimSample& x : s.series) {
      CHECK(x.reserved_tokens <= c.capacity_tokens);  // never over budget
      CHECK(x.used_tokens <= x.reserved_tokens);
      if (kind == AllocatorKind::paged) {
        CHECK(x.reserved_tokens - x.used_tokens < 16 * std::max<std::uint64_t>(x.running, 1));  // < 1 block each
      }
    }
  }
}

TEST_CASE("parallel samples share whole prompt blocks, copy the partial one, and grow apart", "[simulate]") {
  // n = 2, prompt 10, output 2, blocks of 4.
  // Without sharing: each sequence holds 11 then 12 tokens in 12 slots: used 22, 24; reserved 24, 24.
  // Sharing: prompt blocks 0-7 once (8), each sequence 2 + 1 then 2 + 2 tokens in one block of 4:
  // used 8 + 2 x 3 = 14, then 16; reserved 8 + 2 x 4 = 16.
  SimConfig c{1000, 100, 0, 60};
  c.samples = 2;
  const std::vector<SimRequest> one{{0, 10, 2}};
  const SimStats plain = run(AllocatorKind::paged, 4, c, one);
  CHECK(plain.mean_used == Approx(23));
  CHECK(plain.mean_reserved == Approx(24));
  const SimStats shared = run(AllocatorKind::paged_shared, 4, c, one);
  CHECK(shared.mean_used == Approx(15));
  CHECK(shared.mean_reserved == Approx(16));
  const SimStats oracle = run(AllocatorKind::contiguous_oracle, 1, c, one);
  CHECK(oracle.mean_reserved == Approx(24));
}
