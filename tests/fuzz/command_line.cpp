// libFuzzer target: an engine's command line as text -> shell_words -> read_command_line ->
// plan(), on an H100 with Llama-3-8B when the line names no model kvplan knows.
#include "fuzz_support.hpp"
#include "kvplan/command_line.hpp"
#include "kvplan/model_source.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const kvplan::Hardware h100 = kvplan::hardware_from_gpu("H100");
  static const kvplan::ModelChoice llama = kvplan::load_preset("llama3-8b");
  kvplan::fuzz::only_kvplan_errors([&] {
    const std::vector<std::string> words = kvplan::shell_words(kvplan::fuzz::bytes(data, size));
    if (words.empty() || words.size() > 256) {
      return;
    }
    kvplan::CommandContext ctx;
    ctx.hardware = h100;
    ctx.model = (data[0] & 1) != 0 ? std::optional<kvplan::ModelChoice>(llama) : std::nullopt;
    ctx.strict = (data[0] & 2) != 0;
    ctx.origin = "fuzz";
    const kvplan::PlanRequest q = kvplan::read_command_line(words, ctx);
    // Report depth (fixes and inverse answers, each a search over plan()) on one input in four:
    // it is a hundred times slower, and verdict depth reaches the same readers.
    (void)kvplan::plan(q, (data[0] & 12) == 0 ? kvplan::Depth::report : kvplan::Depth::verdict);
  });
  return 0;
}
