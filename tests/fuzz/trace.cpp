// libFuzzer target: a request trace (the first byte picks CSV or JSONL) -> read_trace.
#include <sstream>

#include "fuzz_support.hpp"
#include "kvplan/workload.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) {
    return 0;
  }
  std::istringstream in(std::string(kvplan::fuzz::bytes(data + 1, size - 1)));
  kvplan::fuzz::only_kvplan_errors([&] {
    const kvplan::Workload w = kvplan::read_trace(in, (data[0] & 1) != 0 ? "fuzz.jsonl" : "fuzz.csv", 1ULL << 20);
    if (w.trace.empty()) {
      kvplan::fuzz::finding("an empty trace came back", "");
    }
  });
  return 0;
}
