// Real manifests (tests/manifests/*.yaml, each copied verbatim from a public repository: SOURCES.tsv)
// run through `kvplan check`, with the verdict each must give and why (cases.jsonl): every
// serving container is one result, in file order, with its cause, the line a CI annotation points
// at, the GPUs it plans and the GPU type it read from the manifest or from --gpu.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <sstream>

#include "kvplan/cli.hpp"
#include "support/files.hpp"

namespace {

using nlohmann::json;

const std::string kDir = std::string(KVPLAN_SOURCE_DIR) + "/tests/manifests/";

}  // namespace

TEST_CASE("real manifests: check gives each serving container its verdict", "[check][manifest][real]") {
  std::istringstream in(kvplan::test::slurp(kDir + "cases.jsonl"));
  std::size_t cases = 0;
  std::size_t results = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) {
      continue;
    }
    const json c = json::parse(line);
    ++cases;
    std::vector<std::string> args{"check", kDir + c.at("file").get<std::string>(), "--format", "json"};
    for (const auto& a : c.at("args")) {
      args.push_back(a);
    }
    std::ostringstream out;
    std::ostringstream err;
    const int code = kvplan::cli::run(args, out, err);
    INFO(c.at("file").get<std::string>() << " " << c.at("args").dump() << "\nwhy: " << c.at("why").get<std::string>()
                                         << "\nstdout: " << out.str() << "\nstderr: " << err.str());
    const json& expect = c.at("expect");
    if (expect.size() == 1 && expect[0].contains("error") && out.str().empty()) {
      // One deployment that cannot be read: one error line, exit 2.
      CHECK(code == 2);
      CHECK(err.str().find(expect[0]["error"].get<std::string>()) != std::string::npos);
      ++results;
      continue;
    }
    const json report = json::parse(out.str());
    const json& got = report.at("results");
    REQUIRE(got.size() == expect.size());
    bool any_error = false;
    bool any_fail = false;
    for (std::size_t i = 0; i < expect.size(); ++i) {
      const json& e = expect[i];
      const json& g = got[i];
      INFO("result " << i << ": " << g.dump());
      ++results;
      CHECK(g.at("name") == e.at("name"));
      if (e.contains("error")) {
        any_error = true;
        REQUIRE(g.contains("error"));
        CHECK(g["error"].get<std::string>().find(e["error"].get<std::string>()) != std::string::npos);
        continue;
      }
      REQUIRE_FALSE(g.contains("error"));
      CHECK(g.at("pass") == e.at("pass"));
      any_fail = any_fail || !e.at("pass").get<bool>();
      if (e.contains("cause")) {
        CHECK(g.at("cause") == e.at("cause"));
      }
      CHECK(g.at("uncertain") == e.value("uncertain", false));
      if (e.contains("line")) {
        CHECK(g.at("line") == e.at("line"));
      }
      CHECK(g.at("gpus") == e.at("gpus"));
      if (e.contains("gpu")) {
        bool named = false;
        for (const auto& n : g.at("notes")) {
          named = named || n.get<std::string>().rfind("GPU " + e["gpu"].get<std::string>() + " from", 0) == 0;
        }
        CHECK(named);
      }
    }
    CHECK(code == (any_error ? 2 : any_fail ? 1 : 0));
  }
  CHECK(cases >= 20);
  CHECK(results >= 35);
}
