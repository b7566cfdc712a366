// libFuzzer target: the first bytes of a safetensors file -> read_safetensors_header.
#include "fuzz_support.hpp"
#include "kvplan/safetensors.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  kvplan::fuzz::only_kvplan_errors([&] {
    kvplan::SafetensorsWeights w;
    kvplan::read_safetensors_header(kvplan::fuzz::bytes(data, size), "fuzz.safetensors", w);
  });
  return 0;
}
