// Test support: read a whole file (golden cases, docs, calibration data).
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace kvplan::test {

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace kvplan::test
