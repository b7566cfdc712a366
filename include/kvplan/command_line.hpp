// kvplan/command_line.hpp: an engine's own command line, as people write it, read into a typed
// PlanRequest: environment prefixes (CUDA_VISIBLE_DEVICES=0,1, VLLM_ALLOW_LONG_MAX_MODEL_LEN=1),
// `docker run ... IMAGE` (the image names the engine and its version, --gpus the GPU count), the
// engine's program (`vllm serve`, `python -m sglang.launch_server`, `llama-server`, `trtllm-serve`)
// and every flag of its server, read through the engine's own flag-class table and knob table.
// Engines' defaults apply to what the command line leaves out (tensor parallel 1).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kvplan/engine.hpp"
#include "kvplan/plan.hpp"

namespace kvplan {

/// A file a manifest puts in the container (a ConfigMap's key, mounted at `path`), readable as a settings file.
struct MountedFile {
  std::string path;   // where the container sees it: /opt/dynamo/configs/config.yaml
  std::string text;
  std::string label;  // for messages: the manifest's path
  std::uint32_t first_line = 1;  // the manifest's line of the text's first line
};

struct CommandContext {
  std::optional<Hardware> hardware;        // kvplan check --gpu/--vram: the machine it runs on
  std::optional<ModelChoice> model;        // kvplan check --model/--config: the architecture, when given
  std::optional<EngineChoice> engine;      // kvplan check --engine NAME@VERSION: the version the command runs
                                           // (the program names the engine; an image tag may name the version)
  bool strict = false;                     // unknown flags are errors, not warnings
  std::string origin;                      // prefix of messages ("deploy.json: command")
  std::string base_dir;                    // the folder relative settings files (--config FILE) are read from
                                           // (a deployment file's); empty: the current folder
  /// A manifest's volumes as the container sees them: (mount path, what is mounted there:
  /// "volume 'llm' (hostPath /llm-folder)"); a model under one of them is named with it.
  std::vector<std::pair<std::string, std::string>> mounts;
  /// Settings files the manifest itself holds, at the paths the container sees them.
  std::vector<MountedFile> files;
};

/// Reads one command line (already split into words). Throws kvplan::Error naming the flag for what
/// cannot be read; unknown flags are warnings in the request (errors with `strict`).
PlanRequest read_command_line(std::span<const std::string> words, const CommandContext& ctx);

/// A container as a manifest declares it (Kubernetes, docker-compose): its image names the engine
/// and version, `command` replaces the image's entrypoint (Kubernetes' rule; docker-compose's
/// `entrypoint`), `args` follow it, its environment holds the literal values and `gpus` the devices
/// it is given (nvidia.com/gpu). The words are the container's, already split and substituted.
struct ContainerLaunch {
  std::string image;
  std::vector<std::string> command;        // replaces the image's entrypoint when `replaces_entrypoint`
  bool replaces_entrypoint = false;
  std::vector<std::string> args;
  std::vector<std::pair<std::string, std::string>> env;
  std::optional<std::uint32_t> gpus;
};

/// Reads a container's launch as read_command_line reads `docker run IMAGE ...`.
PlanRequest read_container(const ContainerLaunch& launch, const CommandContext& ctx);

/// Whether `words` (after environment assignments, `exec`, `sudo`, `env`) start an engine's server:
/// a manifest's shell script runs several commands and one of them is the engine.
bool runs_engine(std::span<const std::string> words);

/// Splits a shell command line into words as sh would for a literal command: quotes, backslashes,
/// line continuations; no expansion. Throws kvplan::Error on an unterminated quote.
std::vector<std::string> shell_words(std::string_view line);

/// The words of the command as people write it (for messages): the program and its subcommand.
std::string command_label(std::span<const std::string> words);

}  // namespace kvplan
