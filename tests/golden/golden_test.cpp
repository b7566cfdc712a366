// Golden-file tests of the CLI, run in-process through cli::run (fast and sanitizer-covered).
// tests/golden/cases/<name>/cmd holds one line of arguments (split on spaces; '...' groups),
// and stdout, stderr and exit hold what must come back (absent stderr/exit: empty / 0).
// KVPLAN_UPDATE_GOLDEN=1 rewrites the expected files; review the diff before committing.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "kvplan/cli.hpp"
#include "kvplan/report.hpp"
#include "support/files.hpp"

namespace fs = std::filesystem;

namespace {

using kvplan::test::slurp;

// Paths in cmd files are written {configs}/...; outputs show them the same way, so the golden
// files do not depend on where the repository is checked out.
const std::string kConfigs = std::string(KVPLAN_GOLDEN_DIR) + "/../configs";
// {root}docs/examples/...: a path in the repository, shown in outputs as docs/examples/...
const std::string kRoot = std::string(KVPLAN_SOURCE_DIR) + "/";

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) {
    s.replace(at, from.size(), to);
  }
  return s;
}

std::vector<std::string> split_args(const std::string& line_text) {
  const std::string line = replace_all(replace_all(line_text, "{configs}", kConfigs), "{root}", kRoot);
  std::vector<std::string> args;
  std::string current;
  bool quoted = false;
  bool any = false;
  for (char c : line) {
    if (c == '\'') {
      quoted = !quoted;
      any = true;
    } else if ((c == ' ' || c == '\n') && !quoted) {
      if (any) {
        args.push_back(current);
      }
      current.clear();
      any = false;
    } else {
      current += c;
      any = true;
    }
  }
  if (any) {
    args.push_back(current);
  }
  return args;
}

void check_channel(const fs::path& file, const std::string& actual, bool update) {
  const std::string expected = fs::exists(file) ? slurp(file) : "";
  if (update && expected != actual) {
    if (actual.empty()) {
      fs::remove(file);
    } else {
      std::ofstream(file, std::ios::binary) << actual;
    }
    return;
  }
  INFO("expected " << file.filename().string() << ":\n" << std::string(60, '-') << '\n'
                   << expected << std::string(60, '-') << "\nactual:\n" << std::string(60, '-') << '\n'
                   << actual << std::string(60, '-'));
  CHECK(expected == actual);
}

}  // namespace

TEST_CASE("golden CLI cases", "[golden]") {
  const bool update = std::getenv("KVPLAN_UPDATE_GOLDEN") != nullptr;
  std::vector<fs::path> cases;
  for (const auto& entry : fs::directory_iterator(KVPLAN_GOLDEN_DIR)) {
    cases.push_back(entry.path());
  }
  std::sort(cases.begin(), cases.end());
  REQUIRE(cases.size() >= 20);
  for (const fs::path& dir : cases) {
    DYNAMIC_SECTION(dir.filename().string()) {
      const std::vector<std::string> args = split_args(slurp(dir / "cmd"));
      std::ostringstream out;
      std::ostringstream err;
      // A case's `stdin` file, when it has one, is what "-" reads.
      std::istringstream in(fs::exists(dir / "stdin") ? slurp(dir / "stdin") : std::string());
      const int code = kvplan::cli::run(args, in, out, err);
      const auto shown = [](const std::string& s) { return replace_all(replace_all(s, kConfigs, "{configs}"), kRoot, ""); };
      check_channel(dir / "stdout", shown(out.str()), update);
      // A case rendered for a width (--width N) fits it: no line of its output is wider (issue #12).
      std::size_t columns = 0;
      for (std::size_t i = 0; i < args.size(); ++i) {
        if (args[i] == "--width" && i + 1 < args.size()) {
          columns = std::stoul(args[i + 1]);
        } else if (args[i].rfind("--width=", 0) == 0) {
          columns = std::stoul(args[i].substr(8));
        }
      }
      if (columns > 0) {
        std::istringstream lines(out.str());
        for (std::string line; std::getline(lines, line);) {
          INFO(dir.filename().string() << ": " << line);
          CHECK(kvplan::display_width(line) <= columns);
        }
      }
      check_channel(dir / "stderr", shown(err.str()), update);
      const std::string exit_text = code == 0 ? "" : std::to_string(code) + "\n";
      check_channel(dir / "exit", exit_text, update);
    }
  }
}
