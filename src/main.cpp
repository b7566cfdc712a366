// kvplan's entry point: argv and the terminal -> cli::run. Everything else is in the libraries.
#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "kvplan/cli.hpp"

namespace {

// Standard output's terminal: its size (TIOCGWINSZ), COLUMNS when it is a whole number (it wins, as
// for ls), and NO_COLOR (no-color.org: set and not empty) or TERM=dumb.
kvplan::cli::Terminal terminal() {
  kvplan::cli::Terminal t;
  t.tty = ::isatty(STDOUT_FILENO) != 0;
  winsize ws{};
  if (t.tty && ::ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0) {
    t.columns = ws.ws_col;
  }
  if (const char* c = std::getenv("COLUMNS"); c != nullptr) {
    const std::string_view v(c);
    if (!v.empty() && v.size() <= 5 && v.find_first_not_of("0123456789") == std::string_view::npos) {
      t.columns = std::stoul(std::string(v));
    }
  }
  const char* no_color = std::getenv("NO_COLOR");
  const char* term = std::getenv("TERM");
  t.no_color = (no_color != nullptr && *no_color != '\0') || (term != nullptr && std::string_view(term) == "dumb");
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  return kvplan::cli::run(args, std::cin, std::cout, std::cerr, terminal());
}
