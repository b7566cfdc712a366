// Ollama's public library by tag, for a name:tag no local Ollama store holds (ollama_library.cpp).
#pragma once

#include <optional>
#include <string_view>

#include "kvplan/plan.hpp"

namespace kvplan {

/// `llama3.1:8b`, `qwen2.5:7b-instruct-q8_0`, `gpt-oss:latest`: the preset of the tag's base model
/// with the weights Ollama publishes for it (the default tag's GGUF size, or a tag's file type's
/// bits per weight); nullopt for a name that is no library model kvplan knows; kvplan::Error for a
/// tag of one that it does not.
std::optional<ModelChoice> from_ollama_library(std::string_view name, std::string_view where);

}  // namespace kvplan
