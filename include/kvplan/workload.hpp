// kvplan/workload.hpp: request streams for `kvplan simulate`: built-in length distributions with
// their published statistics, fixed and uniform lengths, or a user trace; arrivals all at once or
// Poisson at a rate per decode step. Seeded and reproducible; generated lazily, one request at a time.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kvplan/simulate.hpp"

namespace kvplan {

struct Workload {
  std::string name;          // "sharegpt", "alpaca", "fixed", "uniform", "trace"
  std::string description;   // with the statistics and their source
  // Length distributions (not used for traces).
  enum class Shape { geometric, fixed, uniform } shape = Shape::geometric;
  std::uint64_t prompt_a = 1, prompt_b = 1;  // geometric: mean; fixed: value; uniform: [a, b]
  std::uint64_t output_a = 1, output_b = 1;
  std::vector<SimRequest> trace;             // a trace's requests (arrival steps when the file had them)
  bool trace_has_arrivals = false;
};

/// "sharegpt", "alpaca", "fixed:IN,OUT", "uniform:IMIN-IMAX,OMIN-OMAX"; throws kvplan::Error.
Workload parse_workload(std::string_view text);

/// A trace: CSV with a header naming prompt,output[,arrival] or JSONL objects with those keys.
/// Errors name the file and line; lengths above `max_tokens` (prompt + output) are refused.
Workload read_trace(const std::string& path, std::uint64_t max_tokens);
/// The same from a stream (the fuzz target's entry point); `path` names it and, by its
/// extension (.jsonl, .json), says which format it is.
Workload read_trace(std::istream& in, const std::string& path, std::uint64_t max_tokens);

struct Arrivals {
  double rate = 0;           // requests per decode step; 0 = all at step 0
  std::uint64_t requests = 1000;
  std::uint64_t seed = 0;
};

/// A lazily generated stream (traces replay their own requests, and their own arrivals if present).
std::function<std::optional<SimRequest>()> request_stream(const Workload& w, const Arrivals& a);

}  // namespace kvplan
