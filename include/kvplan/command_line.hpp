// kvplan/command_line.hpp: an engine's own command line, as people write it, read into a typed
// PlanRequest: environment prefixes (CUDA_VISIBLE_DEVICES=0,1, VLLM_ALLOW_LONG_MAX_MODEL_LEN=1),
// `docker run ... IMAGE` (the image names the engine and its version, --gpus the GPU count), the
// engine's program (`vllm serve`, `python -m sglang.launch_server`, `llama-server`, `trtllm-serve`)
// and every flag of its server, read through the engine's own flag-class table and knob table.
// Engines' defaults apply to what the command line leaves out (tensor parallel 1).
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kvplan/engine.hpp"
#include "kvplan/plan.hpp"

namespace kvplan {

struct CommandContext {
  std::optional<Hardware> hardware;        // kvplan check --gpu/--vram: the machine it runs on
  std::optional<ModelChoice> model;        // kvplan check --model/--config: the architecture, when given
  std::optional<EngineChoice> engine;      // kvplan check --engine NAME@VERSION: the version the command runs
                                           // (the program names the engine; an image tag may name the version)
  bool strict = false;                     // unknown flags are errors, not warnings
  std::string origin;                      // prefix of messages ("deploy.json: command")
};

/// Reads one command line (already split into words). Throws kvplan::Error naming the flag for what
/// cannot be read; unknown flags are warnings in the request (errors with `strict`).
PlanRequest read_command_line(std::span<const std::string> words, const CommandContext& ctx);

/// Splits a shell command line into words as sh would for a literal command: quotes, backslashes,
/// line continuations; no expansion. Throws kvplan::Error on an unterminated quote.
std::vector<std::string> shell_words(std::string_view line);

/// The words of the command as people write it (for messages): the program and its subcommand.
std::string command_label(std::span<const std::string> words);

}  // namespace kvplan
