// The machine's model stores, as fixtures in a temporary folder: a Hugging Face cache
// (models--ORG--NAME/refs/main and snapshots/<commit>/, the layout huggingface_hub's
// file_download.py writes) and an Ollama store (manifests/registry.ollama.ai/library/NAME/TAG and
// blobs/sha256-<hex>, the manifest in the Docker v2 form Ollama writes, as its phi3:mini manifest
// shows). Both come before the built-in catalog; what they hold is real (a config.json from
// tests/configs/arch, a GGUF header from tests/configs/gguf).
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <random>

#include "kvplan/error.hpp"
#include "kvplan/model_source.hpp"

namespace {

namespace fs = std::filesystem;

struct TempStore {
  fs::path root;
  std::string old_hf;
  std::string old_ollama;
  TempStore() {
    std::random_device seed;
    root = fs::temp_directory_path() / fmt::format("kvplan-store-{:08x}", seed());
    fs::create_directories(root);
    old_hf = std::getenv("HF_HUB_CACHE") != nullptr ? std::getenv("HF_HUB_CACHE") : "";
    old_ollama = std::getenv("OLLAMA_MODELS") != nullptr ? std::getenv("OLLAMA_MODELS") : "";
    ::setenv("HF_HUB_CACHE", (root / "hub").c_str(), 1);
    ::setenv("OLLAMA_MODELS", (root / "ollama").c_str(), 1);
  }
  ~TempStore() {
    ::setenv("HF_HUB_CACHE", old_hf.c_str(), 1);
    ::setenv("OLLAMA_MODELS", old_ollama.c_str(), 1);
    std::error_code ec;
    fs::remove_all(root, ec);
  }
};

const fs::path kSource(KVPLAN_SOURCE_DIR);

}  // namespace

TEST_CASE("model stores: the Hugging Face cache comes before the catalog", "[store]") {
  TempStore s;
  const std::string commit = "0e9e39f249a16976918f6564b8830bc894c89659";
  const fs::path repo = s.root / "hub" / "models--meta-llama--Llama-3.1-8B-Instruct";
  fs::create_directories(repo / "refs");
  fs::create_directories(repo / "snapshots" / commit);
  std::ofstream(repo / "refs" / "main") << commit;
  fs::copy_file(kSource / "tests/configs/arch/meta-llama--Llama-3.1-8B-Instruct.json",
                repo / "snapshots" / commit / "config.json");
  const kvplan::ModelChoice c = kvplan::load_preset("meta-llama/Llama-3.1-8B-Instruct");
  CHECK(c.source.rfind("the Hugging Face cache: " + (repo / "snapshots" / commit).string(), 0) == 0);
  CHECK(c.preset == nullptr);
  CHECK(c.id == "meta-llama/Llama-3.1-8B-Instruct");
  CHECK(c.spec->max_position_embeddings == 131'072);
  // An engine's command line finds it too.
  CHECK(kvplan::load_engine_model("meta-llama/Llama-3.1-8B-Instruct", "vllm serve").preset == nullptr);
  // A name the cache lacks is the catalog's.
  CHECK(kvplan::load_preset("meta-llama/Llama-3.1-70B-Instruct").preset != nullptr);
  // refs/main naming a revision that is not there.
  std::ofstream(repo / "refs" / "main", std::ios::trunc) << "ffffffffffffffffffffffffffffffffffffffff\n";
  CHECK_THROWS_WITH(kvplan::load_preset("meta-llama/Llama-3.1-8B-Instruct"),
                    Catch::Contains("names the revision 'ffffffffffffffffffffffffffffffffffffffff', but"));
  // A snapshot whose config.json is a link to itself.
  std::ofstream(repo / "refs" / "main", std::ios::trunc) << commit;
  fs::remove(repo / "snapshots" / commit / "config.json");
  fs::create_symlink("config.json", repo / "snapshots" / commit / "config.json");
  CHECK_THROWS_AS(kvplan::load_preset("meta-llama/Llama-3.1-8B-Instruct"), kvplan::Error);
}

TEST_CASE("model stores: an Ollama tag is its manifest's GGUF blob", "[store]") {
  TempStore s;
  const fs::path store = s.root / "ollama";
  const std::string model_hex = std::string(64, 'a');
  const std::string params_hex = std::string(64, 'b');
  fs::create_directories(store / "manifests/registry.ollama.ai/library/llama-vocab");
  fs::create_directories(store / "blobs");
  std::ofstream(store / "manifests/registry.ollama.ai/library/llama-vocab/latest")
      << R"({"schemaVersion":2,"mediaType":"application/vnd.docker.distribution.manifest.v2+json",)"
      << R"("config":{"mediaType":"application/vnd.docker.container.image.v1+json","digest":"sha256:)"
      << std::string(64, 'c') << R"(","size":483},"layers":[)"
      << R"({"mediaType":"application/vnd.ollama.image.model","digest":"sha256:)" << model_hex << R"(","size":1},)"
      << R"({"mediaType":"application/vnd.ollama.image.params","digest":"sha256:)" << params_hex << R"(","size":1}]})";
  fs::copy_file(kSource / "tests/configs/gguf/ggml-vocab-llama-spm.gguf", store / "blobs" / ("sha256-" + model_hex));
  std::ofstream(store / "blobs" / ("sha256-" + params_hex)) << R"({"num_ctx": 8192, "stop": ["</s>"]})";
  const kvplan::ModelChoice c = kvplan::load_preset("llama-vocab:latest");
  CHECK(c.source.rfind("the Ollama store: llama-vocab:latest → GGUF ", 0) == 0);
  CHECK(c.source.find("its Modelfile sets num_ctx 8,192") != std::string::npos);
  CHECK(c.spec->layers.size() > 0);
  // A manifest whose blob is missing.
  fs::remove(store / "blobs" / ("sha256-" + model_hex));
  CHECK_THROWS_WITH(kvplan::load_preset("llama-vocab:latest"), Catch::Contains("which is not in the store"));
  // A tag the store does not have is not a store name: the catalog's "did you mean".
  CHECK_THROWS_AS(kvplan::load_preset("nothing-here:7b"), kvplan::Error);
}
