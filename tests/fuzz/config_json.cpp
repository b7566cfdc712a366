// libFuzzer target: config.json text -> read_hf_config_text -> the formula over every layer.
#include "fuzz_support.hpp"
#include "kvplan/config_reader.hpp"
#include "kvplan/dtype.hpp"
#include "kvplan/formula.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  kvplan::fuzz::only_kvplan_errors([&] {
    const kvplan::ModelSpec m = kvplan::read_hf_config_text(kvplan::fuzz::bytes(data, size), "fuzz", "fuzz.json");
    // A model that came back must be one the formula can size (UBSan watches the arithmetic).
    for (const kvplan::DType& d : kvplan::kv_dtypes()) {
      (void)kvplan::model_kv_bytes_per_token(m, d);
    }
    (void)kvplan::model_fixed_bytes_per_sequence(m, kvplan::kv_dtypes().front());
    (void)m.params.total();
  });
  return 0;
}
