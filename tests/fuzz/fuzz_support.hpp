// Shared by the libFuzzer targets: each one feeds bytes to one parser and lets only kvplan::Error
// through. Anything else (another exception, a crash, a sanitizer report, an error message on
// more than one line) is a finding: abort, so libFuzzer saves the input.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "kvplan/error.hpp"

namespace kvplan::fuzz {

inline std::string_view bytes(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

[[noreturn]] inline void finding(std::string_view what, std::string_view message) {
  std::fprintf(stderr, "kvplan fuzz finding: %.*s: %.*s\n", static_cast<int>(what.size()), what.data(),
               static_cast<int>(message.size()), message.data());
  std::abort();
}

// kvplan's error rule (docs/errors.md): one line, no control characters, at most ~2,000 bytes once
// cli::run has passed it through one_line. A parser's own message may quote at most 80
// characters of input, so it is short too.
inline void check_message(std::string_view message) {
  if (message.empty()) {
    finding("empty error message", message);
  }
  if (message.find('\n') != std::string_view::npos || message.find('\r') != std::string_view::npos) {
    finding("error message on more than one line", message);
  }
  if (message.size() > 4096) {
    finding("error message longer than 4 KiB", message.substr(0, 200));
  }
}

template <typename F>
void only_kvplan_errors(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    check_message(e.what());
  }
  // Any other exception escapes: libFuzzer reports it as a crash ("uncaught exception").
}

}  // namespace kvplan::fuzz
