// kvplan/files.hpp: the only place kvplan reads or writes a whole file. Reads are bounded by a
// size per input kind (docs/limits.md) and fail with one line that says which file and why;
// writes go to a temporary file in the same folder, then rename over the target, so a reader
// never sees half a file and a failed run leaves the old file as it was.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>

namespace kvplan {

/// The size bounds of docs/limits.md, per input kind.
inline constexpr std::uint64_t kMaxConfigBytes = 16ULL << 20;      // a config.json is a few KiB
inline constexpr std::uint64_t kMaxDeploymentBytes = 16ULL << 20;  // a deployment file is a few hundred bytes
inline constexpr std::uint64_t kMaxTraceBytes = 1ULL << 30;        // 10 M requests of CSV are about 100 MiB
inline constexpr std::uint64_t kMaxTraceRequests = 10'000'000;     // the most --requests allows
inline constexpr std::size_t kMaxTraceColumns = 256;               // a trace CSV needs 2 or 3

/// The whole of a regular file of at most `max_bytes`. `kind` names it in errors ("deployment
/// file": "x.json: no such deployment file"). Throws kvplan::Error: missing, a folder, not a
/// regular file, larger than the bound (checked on the bytes read, not only the size the file
/// system reports), or unreadable (with the system's reason).
std::string read_bounded_file(const std::string& path, std::uint64_t max_bytes, std::string_view kind);

/// A whole stream (standard input), bounded like a file; `kind` names it in errors.
std::string read_bounded_stream(std::istream& in, std::uint64_t max_bytes, std::string_view kind);

/// Checks what read_bounded_file checks, without reading (for inputs read as a stream).
void check_input_file(const std::string& path, std::uint64_t max_bytes, std::string_view kind);

/// Writes `content` to `path` atomically: a temporary file next to it, flushed, then renamed.
/// `what` prefixes errors ("generate: cannot write 'x': No such file or directory").
void write_file_atomically(const std::string& path, std::string_view content, std::string_view what);

}  // namespace kvplan
