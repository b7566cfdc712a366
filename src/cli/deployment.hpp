// What `kvplan check` reads: deployment files (JSON) and engines' own command lines (vllm serve,
// python -m sglang.launch_server, llama-server), both turned into the plan's flags. Private to src/cli.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "commands.hpp"

namespace kvplan::cli {

struct Deployment {
  std::string origin;              // "deploy/chat.json" or "vllm serve ..."
  std::string name;
  std::uint32_t line = 1;          // where to point a CI annotation
  PlanOptions plan;                // flags in kvplan's terms
  std::uint64_t concurrency = 1;   // required concurrent sequences
  std::optional<std::string> context_length;  // required tokens per sequence (default: max model length)
};

/// Parses a deployment file; errors name the file and line ("deploy.json:7: unknown key ...").
Deployment read_deployment_file(const std::string& path);

/// Parses an engine's command line ("vllm serve MODEL --tensor-parallel-size 4 ..."). `base` carries
/// what the command line cannot say (the GPU, a config for a GGUF file).
Deployment read_engine_command(const std::vector<std::string>& command, const PlanOptions& base);

}  // namespace kvplan::cli
