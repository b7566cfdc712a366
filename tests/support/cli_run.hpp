// Test support: run kvplan's CLI in process with --format json and keep its exit code, JSON and stderr.
#pragma once

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "kvplan/cli.hpp"

namespace kvplan::test {

struct CliRun {
  int code = 0;
  nlohmann::json out;
  std::string err;
};

inline CliRun run_json(std::vector<std::string> args) {
  args.insert(args.end(), {"--format", "json"});
  std::ostringstream out;
  std::ostringstream err;
  CliRun r;
  r.code = kvplan::cli::run(args, out, err);
  r.err = err.str();
  if (!out.str().empty()) {
    r.out = nlohmann::json::parse(out.str());
  }
  return r;
}

}  // namespace kvplan::test
