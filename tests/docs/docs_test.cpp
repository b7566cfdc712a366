// The docs are part of the product: README's Quick start is what .ci/run runs, every output
// block in README.md and docs/ is a golden case's real output, and JSON output validates
// against docs/schema/plan.schema.json (checked by a small validator for the keywords the
// schema uses; an unknown keyword fails the test rather than being ignored).
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "kvplan/cli.hpp"
#include "support/files.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

using kvplan::test::slurp;

const fs::path kRoot = KVPLAN_SOURCE_DIR;

void validate(const json& schema, const json& value, const std::string& where) {
  static const std::vector<std::string> known{"$schema", "$id", "title", "description", "type", "required",
                                              "properties", "items", "const", "minimum", "maximum"};
  for (const auto& item : schema.items()) {
    INFO(where << ": schema keyword " << item.key());
    REQUIRE(std::find(known.begin(), known.end(), item.key()) != known.end());
  }
  INFO(where);
  if (schema.contains("const")) {
    CHECK(value == schema["const"]);
  }
  if (schema.contains("type")) {
    const std::string type = schema["type"];
    if (type == "object") {
      REQUIRE(value.is_object());
    } else if (type == "array") {
      REQUIRE(value.is_array());
    } else if (type == "integer") {
      REQUIRE(value.is_number_integer());
    } else if (type == "number") {
      REQUIRE(value.is_number());
    } else if (type == "string") {
      REQUIRE(value.is_string());
    } else if (type == "boolean") {
      REQUIRE(value.is_boolean());
    }
  }
  if (schema.contains("minimum")) {
    CHECK(value.get<double>() >= schema["minimum"].get<double>());
  }
  if (schema.contains("maximum")) {
    CHECK(value.get<double>() <= schema["maximum"].get<double>());
  }
  for (const auto& key : schema.value("required", json::array())) {
    CHECK(value.contains(key.get<std::string>()));
  }
  if (schema.contains("properties")) {
    for (const auto& item : schema["properties"].items()) {
      if (value.contains(item.key())) {
        validate(item.value(), value[item.key()], where + "/" + item.key());
      }
    }
  }
  if (schema.contains("items")) {
    for (std::size_t i = 0; i < value.size(); ++i) {
      validate(schema["items"], value[i], where + "/" + std::to_string(i));
    }
  }
}

}  // namespace

TEST_CASE("README's Quick start has exactly two commands and .ci/run runs the second", "[docs]") {
  const std::string readme = slurp(kRoot / "README.md");
  const std::size_t start = readme.find("## Quick start");
  REQUIRE(start != std::string::npos);
  const std::size_t open = readme.find("```sh\n", start);
  const std::size_t close = readme.find("```", open + 6);
  REQUIRE(open != std::string::npos);
  std::vector<std::string> commands;
  std::istringstream lines(readme.substr(open + 6, close - open - 6));
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty() && line.front() != '#') {
      commands.push_back(line);
    }
  }
  REQUIRE(commands.size() == 2);
  CHECK(commands[0].find("kvplan --model llama3-70b --vram 80GB") != std::string::npos);
  const std::string ci = slurp(kRoot / ".ci/run");
  CHECK(ci.find(commands[1]) != std::string::npos);
}

TEST_CASE("every output block in README and docs is a golden case's output", "[docs]") {
  const std::regex block(R"(<!-- golden: ([a-z0-9.-]+) -->\n```text\n([\s\S]*?)```)");
  std::vector<fs::path> files{kRoot / "README.md"};
  for (const auto& entry : fs::directory_iterator(kRoot / "docs")) {
    if (entry.path().extension() == ".md") {
      files.push_back(entry.path());
    }
  }
  int blocks = 0;
  const bool update = std::getenv("KVPLAN_UPDATE_GOLDEN") != nullptr;
  for (const fs::path& file : files) {
    std::string text = slurp(file);
    if (update) {  // copy each marked block from its golden case (bloaty's regen-readme.py)
      std::string rewritten;
      std::size_t last = 0;
      for (auto it = std::sregex_iterator(text.begin(), text.end(), block); it != std::sregex_iterator(); ++it) {
        rewritten += text.substr(last, static_cast<std::size_t>(it->position(2)) - last);
        rewritten += slurp(fs::path(KVPLAN_GOLDEN_DIR) / (*it)[1].str() / "stdout");
        last = static_cast<std::size_t>(it->position(2) + it->length(2));
      }
      rewritten += text.substr(last);
      if (rewritten != text) {
        std::ofstream(file, std::ios::binary) << rewritten;
        text = rewritten;
      }
    }
    // Any ```text block must carry a golden marker.
    std::size_t text_blocks = 0;
    for (std::size_t at = text.find("```text\n"); at != std::string::npos; at = text.find("```text\n", at + 1)) {
      ++text_blocks;
    }
    std::size_t marked = 0;
    for (auto it = std::sregex_iterator(text.begin(), text.end(), block); it != std::sregex_iterator(); ++it) {
      const fs::path golden = fs::path(KVPLAN_GOLDEN_DIR) / (*it)[1].str() / "stdout";
      INFO(file.filename().string() << " shows golden case " << (*it)[1].str());
      REQUIRE(fs::exists(golden));
      CHECK((*it)[2].str() == slurp(golden));
      ++marked;
      ++blocks;
    }
    INFO(file.filename().string() << " has a ```text block without a golden marker");
    CHECK(marked == text_blocks);
  }
  CHECK(blocks >= 2);
}

TEST_CASE("docs/examples/html/report.html is the html-report golden case's page", "[docs][html]") {
  // docs/examples/html/report.png is Chromium's screenshot of that page (docs/cli.md says how).
  const fs::path page = kRoot / "docs/examples/html/report.html";
  const std::string golden = slurp(fs::path(KVPLAN_GOLDEN_DIR) / "html-report" / "stdout");
  if (std::getenv("KVPLAN_UPDATE_GOLDEN") != nullptr && slurp(page) != golden) {
    std::ofstream(page, std::ios::binary) << golden;
  }
  CHECK(slurp(page) == golden);
  CHECK(fs::file_size(kRoot / "docs/examples/html/report.png") > 10'000);
}

TEST_CASE("JSON plans validate against docs/schema/plan.schema.json", "[docs][json]") {
  const json schema = json::parse(slurp(kRoot / "docs/schema/plan.schema.json"));
  const std::vector<std::vector<std::string>> runs{
      {"--model", "llama3-70b", "--vram", "80GB", "--format", "json"},
      {"--model", "llama-3.1-8b", "--gpu", "H100", "--seq-len", "32k", "--batch", "8", "--format", "json"},
      {"--model", "qwen3-next-80b-a3b", "--gpu", "H100x2", "--format", "json"},
      {"--model", "deepseek-v3", "--gpu", "H200x8", "--seq-len", "128k", "--batch", "4", "--format", "json"},
      {"--model", "gemma-2-9b", "--gpu", "H100", "--engine", "vllm", "--format", "json"},
      {"--model", "deepseek-v3", "--gpu", "H200x8", "--engine", "sglang", "--format", "json"},
      {"--model", "llama-3.1-70b", "--gpu", "H100x4", "--engine", "trtllm", "--format", "json"},
      {"--model", "gpt-oss-20b", "--gpu", "RTX-4090", "--engine", "llamacpp", "--format", "json"},
  };
  for (const auto& args : runs) {
    std::ostringstream out;
    std::ostringstream err;
    kvplan::cli::run(args, out, err);
    validate(schema, json::parse(out.str()), args[1]);
  }
}

TEST_CASE("the core library includes only the standard library and its own headers", "[docs][architecture]") {
  // docs/architecture.md: core is pure. Debian installs fmt, nlohmann and CLI11 in /usr/include,
  // so the link graph alone would not catch an include; this test does.
  const std::vector<std::string> core_headers{"units.hpp",  "dtype.hpp",  "model.hpp",   "formula.hpp",
                                              "budget.hpp", "solver.hpp", "simulate.hpp", "hardware.hpp"};
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(kRoot / "src/core")) {
    files.push_back(entry.path());
  }
  for (const std::string& h : core_headers) {
    files.push_back(kRoot / "include/kvplan" / h);
  }
  const std::regex include(R"(#include\s*[<"]([^>"]+)[>"])");
  for (const fs::path& file : files) {
    const std::string text = slurp(file);
    for (auto it = std::sregex_iterator(text.begin(), text.end(), include); it != std::sregex_iterator(); ++it) {
      const std::string header = (*it)[1].str();
      INFO(file.filename().string() << " includes " << header);
      const bool own = header.rfind("kvplan/", 0) == 0 &&
                       std::find(core_headers.begin(), core_headers.end(), header.substr(7)) != core_headers.end();
      const bool io = header == "iostream" || header == "fstream" || header == "cstdio" || header == "filesystem";
      const bool standard = header.find('/') == std::string::npos && header.find('.') == std::string::npos;
      CHECK((own || (standard && !io)));
    }
  }
}

TEST_CASE("docs/ci.md's CI jobs run and pass on the example deployments", "[docs][ci]") {
  const std::string text = slurp(kRoot / "docs/ci.md");
  std::vector<fs::path> examples;
  for (const auto& entry : fs::directory_iterator(kRoot / "docs/examples/deploy")) {
    examples.push_back(entry.path());
  }
  std::sort(examples.begin(), examples.end());
  REQUIRE(examples.size() >= 2);
  std::vector<fs::path> manifests;
  std::string rendered;  // what `helm template` stands for: the example manifests, as one stream
  for (const auto& entry : fs::directory_iterator(kRoot / "docs/examples/k8s")) {
    manifests.push_back(entry.path());
  }
  std::sort(manifests.begin(), manifests.end());
  for (const fs::path& m : manifests) {
    rendered += "---\n" + slurp(m);
  }
  REQUIRE(manifests.size() >= 2);
  int commands = 0;
  for (std::size_t at = text.find("```yaml\n"); at != std::string::npos; at = text.find("```yaml\n", at + 1)) {
    const std::size_t end = text.find("```", at + 8);
    std::istringstream block(text.substr(at + 8, end - at - 8));
    for (std::string line; std::getline(block, line);) {
      const std::size_t start = line.find("kvplan check");
      if (start == std::string::npos) {
        continue;
      }
      std::istringstream words(line.substr(start + 7));  // after "kvplan "
      std::vector<std::string> args;
      for (std::string w; words >> w;) {
        if (w == ">") {
          break;  // a shell redirection ends the command
        }
        if (w == "deploy/*.json") {  // the glob the shell would expand, on the examples
          for (const fs::path& e : examples) {
            args.push_back(e.string());
          }
        } else if (w == "k8s/*.yaml") {
          for (const fs::path& m : manifests) {
            args.push_back(m.string());
          }
        } else {
          args.push_back(w);
        }
      }
      std::ostringstream out;
      std::ostringstream err;
      std::istringstream in(line.find("| kvplan check") != std::string::npos ? rendered : std::string());
      const int code = kvplan::cli::run(args, in, out, err);
      INFO(line << "\n" << out.str() << err.str());
      CHECK(code == 0);
      if (std::find(args.begin(), args.end(), "github") != args.end()) {
        CHECK(out.str().rfind("::notice file=", 0) == 0);
      }
      ++commands;
    }
  }
  CHECK(commands >= 6);
}
