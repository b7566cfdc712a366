// libFuzzer target: a YAML manifest's text -> read_manifest_text -> plan() at report depth for each
// serving container it finds.
#include "deployment.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  kvplan::fuzz::only_kvplan_errors([&] {
    kvplan::cli::ManifestOptions options;
    const auto entries = kvplan::cli::read_manifest_text(std::string(kvplan::fuzz::bytes(data, size)),
                                                         KVPLAN_FUZZ_DIR "/fuzz-manifest.yaml", options);
    for (const kvplan::cli::ManifestEntry& e : entries) {
      if (e.deployment) {
        (void)kvplan::plan(e.deployment->request, kvplan::Depth::report);
      }
    }
  });
  return 0;
}
