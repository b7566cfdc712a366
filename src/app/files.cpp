// Bounded reads and atomic writes of whole files (kvplan/files.hpp).
#include "kvplan/files.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <random>

#include "kvplan/error.hpp"
#include "kvplan/quantity.hpp"
#include "kvplan/text.hpp"

namespace kvplan {
namespace fs = std::filesystem;
namespace {

std::string name_of(const std::string& path) {
  return one_line(path);  // a file name may hold a newline; an error stays one line
}

}  // namespace

void check_input_file(const std::string& path, std::uint64_t max_bytes, std::string_view kind) {
  if (path.empty()) {
    throw Error(fmt::format("the {} path is empty; give a file name", kind));
  }
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (!fs::exists(st)) {
    throw Error(fmt::format("{}: no such {}", name_of(path), kind));
  }
  if (fs::is_directory(st)) {
    throw Error(fmt::format("{}: is a directory, not a {}", name_of(path), kind));
  }
  if (!fs::is_regular_file(st)) {
    throw Error(fmt::format("{}: not a regular file; give a {}", name_of(path), kind));
  }
  const std::uintmax_t size = fs::file_size(path, ec);
  if (!ec && size > max_bytes) {
    throw Error(fmt::format("{}: {} is larger than the {} limit of {} (docs/limits.md)", name_of(path),
                            format_bytes(size), kind, format_bytes(max_bytes)));
  }
}

std::string read_bounded_file(const std::string& path, std::uint64_t max_bytes, std::string_view kind) {
  check_input_file(path, max_bytes, kind);
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const int e = errno;
    throw Error(fmt::format("{}: cannot read the {}: {}", name_of(path), kind,
                            e != 0 ? std::strerror(e) : "unknown error"));
  }
  std::string text;
  char buffer[1 << 16];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    text.append(buffer, static_cast<std::size_t>(in.gcount()));
    if (text.size() > max_bytes) {  // a file whose size the file system does not report (/proc)
      throw Error(fmt::format("{}: larger than the {} limit of {} (docs/limits.md)", name_of(path), kind,
                              format_bytes(max_bytes)));
    }
  }
  if (in.bad()) {
    throw Error(fmt::format("{}: cannot read the {}: an I/O error", name_of(path), kind));
  }
  return text;
}

std::string read_bounded_stream(std::istream& in, std::uint64_t max_bytes, std::string_view kind) {
  std::string text;
  char buffer[1 << 16];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    text.append(buffer, static_cast<std::size_t>(in.gcount()));
    if (text.size() > max_bytes) {
      throw Error(fmt::format("{}: larger than the limit of {} (docs/limits.md)", kind, format_bytes(max_bytes)));
    }
  }
  if (in.bad()) {
    throw Error(fmt::format("cannot read {}: an I/O error", kind));
  }
  return text;
}

void write_file_atomically(const std::string& path, std::string_view content, std::string_view what) {
  const fs::path target(path);
  std::random_device seed;
  const fs::path temp = target.parent_path() / fmt::format(".{}.kvplan-{:08x}.tmp", target.filename().string(), seed());
  const auto fail = [&](std::string_view why) {
    std::error_code ignored;
    fs::remove(temp, ignored);
    throw Error(fmt::format("{}: cannot write {}: {}", what, quote_input(name_of(path)), why));
  };
  {
    errno = 0;
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (!out) {
      fail(errno != 0 ? std::strerror(errno) : "cannot create a file in its folder");
    }
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
    out.flush();
    if (!out) {
      fail("the write failed (disk full?)");
    }
  }
  std::error_code ec;
  fs::rename(temp, target, ec);
  if (ec) {
    fail(ec.message());
  }
}

}  // namespace kvplan
