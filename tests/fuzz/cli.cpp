// libFuzzer target: the whole CLI over split argv. The input is one line of arguments split on
// spaces and newlines, '...' grouping, as the golden cases' cmd files are (so they seed it);
// {configs} names tests/golden/configs. cli::run must return 0, 1 or 2, and on 2 print exactly
// one "kvplan: error: ..." line.
#include <algorithm>
#include <sstream>
#include <vector>

#include "fuzz_support.hpp"
#include "kvplan/cli.hpp"

namespace {

std::vector<std::string> split_args(std::string_view line) {
  std::vector<std::string> args;
  std::string current;
  bool quoted = false;
  bool any = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (line.substr(i, 9) == "{configs}") {
      current += KVPLAN_FUZZ_CONFIGS;
      any = true;
      i += 8;
    } else if (c == '\'') {
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

// Work the user asks for by size is bounded (docs/limits.md) but not small: ten million
// simulated requests or a forced sweep take seconds to minutes, which libFuzzer would report as
// a timeout. Files are never written: generate is left out.
bool too_slow_or_writes(const std::vector<std::string>& args) {
  for (const std::string& a : args) {
    if (a == "generate" || a == "--force" || a == "--requests" || a == "-n" || a.rfind("--requests=", 0) == 0 ||
        a == "--output" || a == "-o") {
      return true;
    }
  }
  return args.size() > 64;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::vector<std::string> args = split_args(kvplan::fuzz::bytes(data, size));
  if (too_slow_or_writes(args)) {
    return 0;
  }
  std::ostringstream out;
  std::ostringstream err;
  const int code = kvplan::cli::run(args, out, err);
  if (code < 0 || code > 2) {
    kvplan::fuzz::finding("exit code outside 0-2", std::to_string(code));
  }
  const std::string e = err.str();
  if (e.rfind("kvplan: internal error", 0) == 0 || e.find("\nkvplan: internal error") != std::string::npos) {
    kvplan::fuzz::finding("internal error", e);
  }
  // check reports a file it cannot read in its report (text, JSON or GitHub annotations) and exits
  // 2 with nothing on standard error; everything else says why on one error line.
  const bool checked_in_report = e.empty() && !args.empty() && std::find(args.begin(), args.end(), "check") != args.end();
  if (code == 2 && !checked_in_report) {
    // The error is the last line of standard error (check may warn before it).
    const std::size_t last = e.rfind('\n', e.size() < 2 ? 0 : e.size() - 2);
    const std::string_view line = std::string_view(e).substr(last == std::string::npos ? 0 : last + 1);
    if (line.rfind("kvplan: error: ", 0) != 0 || line.back() != '\n') {
      kvplan::fuzz::finding("exit 2 without one 'kvplan: error:' line", e.substr(0, 400));
    }
    kvplan::fuzz::check_message(line.substr(0, line.size() - 1));
  }
  return 0;
}
