// What `kvplan check` reads: deployment files (JSON: kvplan's keys, the engine's knobs under its own
// keys in engine_args, or the engine's command line under "command") and engines' own command
// lines, each read once into a typed PlanRequest with the concurrency and context it must serve.
// Private to src/cli.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kvplan/command_line.hpp"
#include "kvplan/plan.hpp"

namespace kvplan::cli {

struct Deployment {
  std::string origin;                       // "deploy/chat.json" or "vllm serve"
  std::string name;
  std::uint32_t line = 1;                   // where to point a CI annotation
  PlanRequest request;
  std::uint64_t concurrency = 1;            // required concurrent sequences
  std::optional<std::uint64_t> context_length;  // required tokens per sequence (default: the longest it accepts)
};

/// Parses a deployment file; errors name the file and line ("deploy.json:7: unknown key ...").
Deployment read_deployment_file(const std::string& path, bool strict);

/// The same, from text already read (the fuzz target's entry point); `path` names it in errors,
/// and a relative "config" is found next to it.
Deployment read_deployment_text(const std::string& text, const std::string& path, bool strict);

}  // namespace kvplan::cli
