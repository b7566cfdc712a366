// kvplan/cli.hpp: the command line as a library function, so tests run it in-process.
// Exit codes follow ripgrep and grep: 0 a plan was printed and fits, 1 nothing fits,
// 2 usage or input error.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace kvplan::cli {

int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

/// The same, with `in` as what "-" reads (kvplan check -: standard input in the program).
int run(const std::vector<std::string>& args, std::istream& in, std::ostream& out, std::ostream& err);

}  // namespace kvplan::cli
