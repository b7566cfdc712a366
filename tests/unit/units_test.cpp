// ceil_div / round_up / mul_frac edges.
#include <catch2/catch.hpp>

#include "kvplan/units.hpp"

using namespace kvplan;

TEST_CASE("ceil_div and round_up at their edges", "[units]") {
  CHECK(ceil_div(0, 16) == 0);
  CHECK(ceil_div(1, 16) == 1);
  CHECK(ceil_div(16, 16) == 1);
  CHECK(round_up(0, 16) == 0);
  CHECK(round_up(kSaturated - 1, 16) == kSaturated);
  CHECK(mul_frac(85'029'158'912, 900'000, 1'000'000) == 76'526'243'020);  // floor(H100 total x 0.9)
  CHECK(mul_frac(80'000'000'000, 1'000'000, 1'000'000) == 80'000'000'000);
}
