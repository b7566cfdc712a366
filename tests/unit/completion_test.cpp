// Shell completion offers values (issue #12): every value it offers is one the command's own parser
// accepts, so the lists cannot promise what kvplan refuses.
#include <catch2/catch.hpp>
#include <sstream>

#include "commands.hpp"
#include "kvplan/cli.hpp"

namespace {

int run(const std::vector<std::string>& args) {
  std::ostringstream out;
  std::ostringstream err;
  const int code = kvplan::cli::run(args, out, err);
  INFO(err.str());
  return code;
}

}  // namespace

TEST_CASE("completion values are accepted by the commands that offer them", "[completion]") {
  using kvplan::cli::option_values;
  const std::vector<std::string> models = option_values("", "model");
  REQUIRE(models.size() > 50);
  for (const std::string& m : models) {
    INFO(m);
    CHECK(run({"models", "show", m}) == 0);
  }
  const std::vector<std::string> gpus = option_values("check", "gpu");
  REQUIRE(gpus.size() > 20);
  for (const std::string& g : gpus) {
    INFO(g);
    CHECK(run({"--model", "llama-3.2-1b", "--gpu", g, "--brief"}) != 2);
  }
  for (const std::string& e : option_values("", "engine")) {
    INFO(e);
    CHECK(run({"--model", "llama-3.2-1b", "--gpu", "H100", "--engine", e, "--brief"}) != 2);
  }
  for (const std::string& d : option_values("", "kv-dtype")) {
    INFO(d);
    CHECK(run({"--model", "llama-3.2-1b", "--gpu", "H100", "--kv-dtype", d, "--brief"}) != 2);
  }
  for (const std::string& d : option_values("", "weight-dtype")) {
    INFO(d);
    CHECK(run({"--model", "llama-3.2-1b", "--gpu", "H100", "--weight-dtype", d, "--brief"}) != 2);
  }
  for (const std::string& f : option_values("", "format")) {
    INFO(f);
    CHECK(run({"--model", "llama-3.2-1b", "--gpu", "H100", "--format", f}) != 2);
  }
  for (const std::string& f : option_values("gpus", "format")) {  // svg is a plan's: the catalogs have no chart
    INFO(f);
    CHECK(run({"gpus", "--format", f}) == 0);
    CHECK(run({"models", "--format", f}) == 0);
  }
  CHECK(run({"gpus", "--format", "svg"}) == 2);
  for (const std::string& f : option_values("check", "format")) {
    INFO(f);
    CHECK(run({"check", "--gpu", "H100", "--format", f, "--", "vllm", "serve", "meta-llama/Llama-3.2-1B"}) != 2);
  }
  for (const std::string& f : option_values("sweep", "format")) {
    INFO(f);
    CHECK(run({"sweep", "--model", "llama-3.2-1b", "--gpu", "H100", "--format", f}) != 2);
  }
  for (const std::string& c : option_values("", "color")) {
    CHECK(run({"gpus", "--color", c}) == 0);
  }
  CHECK(option_values("", "seq-len").empty());  // a free value: files and numbers
}
