// kvplan/cli.hpp: the command line as a library function, so tests run it in-process.
// Exit codes follow ripgrep and grep: 0 a plan was printed and fits, 1 nothing fits,
// 2 usage or input error.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <string>
#include <vector>

namespace kvplan::cli {

/// What the program knows of its standard output (main fills it; tests pass none): the columns of
/// the terminal (its size, or COLUMNS), whether it is one, and NO_COLOR or TERM=dumb.
struct Terminal {
  std::size_t columns = 0;
  bool tty = false;
  bool no_color = false;
};

int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

/// The same, with `in` as what "-" reads (kvplan check -: standard input in the program).
int run(const std::vector<std::string>& args, std::istream& in, std::ostream& out, std::ostream& err);

/// The same, laid out for `terminal`: --width and --color (any command) override what it says.
int run(const std::vector<std::string>& args, std::istream& in, std::ostream& out, std::ostream& err,
        const Terminal& terminal);

}  // namespace kvplan::cli
