// kvplan's entry point: argv -> cli::run. Everything else is in the libraries.
#include <iostream>
#include <string>
#include <vector>

#include "kvplan/cli.hpp"

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  return kvplan::cli::run(args, std::cout, std::cerr);
}
