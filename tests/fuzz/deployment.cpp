// libFuzzer target: a deployment file's text -> read_deployment_text -> plan() at report depth.
#include "deployment.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  kvplan::fuzz::only_kvplan_errors([&] {
    // A path in the fuzz source folder: a relative "config" resolves next to it, to files that
    // do not exist (refused by name), never to the user's files.
    const kvplan::cli::Deployment d = kvplan::cli::read_deployment_text(
        std::string(kvplan::fuzz::bytes(data, size)), KVPLAN_FUZZ_DIR "/fuzz-deployment.json", false);
    (void)kvplan::plan(d.request, kvplan::Depth::report);
  });
  return 0;
}
