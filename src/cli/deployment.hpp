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
  std::vector<std::string> notes;           // where a manifest's GPU, model and demand came from
  /// The engine command's flags with their lines (a manifest's args): a finding points at the flag
  /// that decides it, or at `args_line` when that flag is missing.
  std::vector<std::pair<std::string, std::uint32_t>> flag_lines;
  std::uint32_t args_line = 0;
};

/// Parses a deployment file; errors name the file and line ("deploy.json:7: unknown key ...").
Deployment read_deployment_file(const std::string& path, bool strict);

/// The same, from text already read (the fuzz target's entry point); `path` names it in errors,
/// and a relative "config" is found next to it.
Deployment read_deployment_text(const std::string& text, const std::string& path, bool strict);

/// What a manifest leaves to `kvplan check`'s flags.
struct ManifestOptions {
  std::optional<Hardware> gpu;                  // --gpu/--vram: the GPU type when no label says it
  std::optional<ModelChoice> model;             // --model/--config: when the manifest's model cannot be read
  std::optional<std::uint64_t> concurrency;     // --concurrency, when no kvplan.io/concurrency annotation says
  std::optional<std::uint64_t> context_length;  // --seq-len, when no kvplan.io/context-length annotation says
  bool strict = false;
};

/// One serving container of a manifest: a deployment to check, or why it cannot be read.
struct ManifestEntry {
  std::string origin;                           // the file
  std::string name;                             // "Deployment/llama (container vllm)"
  std::uint32_t line = 1;
  std::optional<Deployment> deployment;
  std::string error;                            // when it cannot be read
  std::vector<std::string> warnings;            // read, with doubts (a non-literal $(VAR), an unknown label)
};

/// Whether a file is a manifest (YAML: Kubernetes objects, Helm output, KServe, LeaderWorkerSet,
/// production-stack values, docker-compose, SkyPilot) rather than kvplan's own JSON deployment file.
bool is_manifest(const std::string& path, const std::string& text);

/// Every serving container in a YAML file's documents. What cannot be read is an entry with its
/// error (the others are still read); a file that is not valid YAML throws kvplan::Error with its
/// line and column.
std::vector<ManifestEntry> read_manifest_text(const std::string& text, const std::string& path,
                                              const ManifestOptions& options);

}  // namespace kvplan::cli
