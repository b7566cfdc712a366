// kvplan/error.hpp: the one exception type. Thrown only by the I/O edge (parsing of sizes,
// names, config files and flags) and caught only in cli::run, which prints
// "kvplan: error: <what>" and exits 2. The core library never throws it.
#pragma once

#include <stdexcept>

namespace kvplan {

struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace kvplan
