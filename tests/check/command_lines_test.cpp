// Real command lines, copied from the engines' logs, docs and public issues (tests/check/command_lines.jsonl,
// each with its source), run through `kvplan check`, and compared with what the engine itself did:
//   pass:  the engine started and served one request of its max_model_len (vLLM logs "Maximum
//          concurrency ... >= 1x"); check must PASS, and say so without a false FAIL;
//   starts: the engine started (SGLang logs its pool even when it is shorter than context_len);
//          check's verdict must not be a start-up failure;
//   fail:CAUSE[|CAUSE]: the engine refused to start or ran out of memory starting; check must FAIL with that
//          cause, never PASS.
//   undecided: the engine failed, and what decides it is an input the command line does not give
//          (an Unsloth dynamic 4-bit checkpoint named, not read: its config.json's 16-bit layers); check
//          must not PASS, and must name that input (cause weights_unknown), with the reason in "miss";
//   miss:pass: a known miss, a false PASS kvplan gives today, with its reason in the entry's "miss"
//          (docs/accuracy.md lists them); the test keeps the list true, so a miss that is fixed
//          must move to fail:CAUSE.
// An entry's extra fields are what a user gives kvplan for what the command line cannot say: the GPU
// (--gpu), the architecture when the command names a local folder or a re-upload (--model, --config),
// and the checkpoint's weight format (--weight-dtype).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <sstream>

#include "kvplan/cli.hpp"
#include "kvplan/command_line.hpp"
#include "support/files.hpp"

namespace {

using nlohmann::json;

const char* const kStartFailures[] = {"refused", "gpus", "weights", "no_kv_memory", "startup_max_model_len"};

}  // namespace

TEST_CASE("real command lines: check agrees with what the engine did", "[check][real]") {
  std::istringstream in(kvplan::test::slurp(std::string(KVPLAN_SOURCE_DIR) + "/tests/check/command_lines.jsonl"));
  std::size_t entries = 0;
  std::size_t failures = 0;
  std::size_t misses = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) {
      continue;
    }
    const json e = json::parse(line);
    ++entries;
    const std::string id = e.at("id");
    const std::string expect = e.at("expect");
    std::vector<std::string> args{"check", "--format", "json", "--gpu", e.at("gpu")};
    if (e.contains("model")) {
      args.insert(args.end(), {"--model", e["model"]});
    }
    if (e.contains("config")) {
      args.insert(args.end(), {"--config", std::string(KVPLAN_SOURCE_DIR) + "/" + e["config"].get<std::string>()});
    }
    if (e.contains("engine")) {  // the version the source states, where no image tag says it
      args.insert(args.end(), {"--engine", e["engine"]});
    }
    if (e.contains("weight_dtype")) {
      args.insert(args.end(), {"--weight-dtype", e["weight_dtype"]});
    }
    args.push_back("--");
    for (const std::string& w : kvplan::shell_words(e.at("command").get<std::string>())) {
      args.push_back(w);
    }
    std::ostringstream out;
    std::ostringstream err;
    const int code = kvplan::cli::run(args, out, err);
    INFO(id << "\n" << e.at("source") << "\n" << out.str() << err.str());
    REQUIRE(code != 2);
    const json result = json::parse(out.str()).at("results").at(0);
    const std::string cause = result.at("cause");
    if (expect.rfind("miss:", 0) == 0) {
      ++misses;
      REQUIRE(e.contains("miss"));
      CHECK(result.at("pass").get<bool>() == (expect == "miss:pass"));
    } else if (expect == "pass") {
      CHECK(result.at("pass").get<bool>());
    } else if (expect == "undecided") {
      REQUIRE(e.contains("miss"));
      CHECK_FALSE(result.at("pass").get<bool>());
      CHECK(cause == "weights_unknown");
    } else if (expect == "starts") {
      CHECK(std::find(std::begin(kStartFailures), std::end(kStartFailures), cause) == std::end(kStartFailures));
    } else {
      ++failures;
      REQUIRE(expect.rfind("fail:", 0) == 0);
      CHECK_FALSE(result.at("pass").get<bool>());
      // "fail:weights|no_kv_memory": vLLM's "No available memory for the cache blocks" is either.
      const std::string causes = "|" + expect.substr(5) + "|";
      CHECK(causes.find("|" + cause + "|") != std::string::npos);
    }
  }
  CHECK(entries >= 40);
  CHECK(misses == 0);  // docs/accuracy.md, "Real command lines": no false PASS
  CHECK(failures >= 4);
}
