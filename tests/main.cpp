// Catch2 v2 main for the whole suite. The model stores of the machine running the tests (a
// Hugging Face cache, an Ollama store) must not change what a test sees: they point nowhere here,
// and the tests that read a store make their own in a temporary folder.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#include <cstdlib>

int main(int argc, char* argv[]) {
  ::setenv("HF_HUB_CACHE", "/nonexistent/kvplan-tests/hf-hub-cache", 1);
  ::setenv("OLLAMA_MODELS", "/nonexistent/kvplan-tests/ollama-models", 1);
  return Catch::Session().run(argc, argv);
}
