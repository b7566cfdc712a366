// libFuzzer target: GGUF bytes -> read_gguf_bytes (header, key/values, tensor table) -> the
// architecture rules -> the formula over every layer.
#include "fuzz_support.hpp"
#include "kvplan/dtype.hpp"
#include "kvplan/formula.hpp"
#include "kvplan/gguf.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  kvplan::fuzz::only_kvplan_errors([&] {
    const kvplan::GgufModel g = kvplan::read_gguf_bytes(kvplan::fuzz::bytes(data, size), "fuzz.gguf");
    for (const kvplan::DType& d : kvplan::kv_dtypes()) {
      (void)kvplan::model_kv_bytes_per_token(g.spec, d);
    }
    (void)g.spec.params.total();
  });
  return 0;
}
