// Settings files on engine command lines (vLLM's and SGLang's --config, trtllm-serve's --config /
// --extra_llm_api_options): real files from public repositories (tests/check/settings/SOURCES.md), read as
// each engine reads them (docs/engines.md, "Settings files").
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>

#include "kvplan/command_line.hpp"
#include "kvplan/engine.hpp"
#include "kvplan/error.hpp"
#include "kvplan/model_source.hpp"
#include "kvplan/plan.hpp"
#include "settings_file.hpp"

namespace {

namespace fs = std::filesystem;

const fs::path kDir = fs::path(KVPLAN_SOURCE_DIR) / "tests/check/settings";

kvplan::PlanRequest read(const std::string& line, const std::string& model) {
  kvplan::CommandContext ctx;
  ctx.model = kvplan::load_preset(model);
  ctx.base_dir = kDir.string();
  return kvplan::read_command_line(kvplan::shell_words(line), ctx);
}

std::optional<std::uint64_t> knob(const kvplan::PlanRequest& q, std::string_view key) {
  const auto k = q.engine_ref().knob_index(key);
  REQUIRE(k.has_value());
  return q.knobs.number(*k);
}

bool warned(const kvplan::PlanRequest& q, std::string_view text) {
  for (const std::string& w : q.warnings) {
    if (w.find(text) != std::string::npos) {
      return true;
    }
  }
  return false;
}

}  // namespace

TEST_CASE("vLLM --config: the file's flags are read, and the command line wins", "[settings]") {
  // coder-cong/PesticideRecipeGen train/GRPO/start_vllm_server.sh: `vllm serve --config vllm_config.yaml`.
  const kvplan::PlanRequest q = read("vllm serve --config vllm-pesticiderecipegen-vllm_config.yaml", "qwen2.5-7b");
  CHECK(q.tp == 2u);                                         // tensor-parallel-size: 2
  CHECK(knob(q, "gpu_memory_utilization") == 600'000u);      // gpu-memory-utilization: 0.6
  const auto eager = q.engine_ref().knob_index("enforce_eager");
  REQUIRE(eager.has_value());
  CHECK(q.knobs.flag(*eager) == true);                       // enforce-eager: True (a YAML boolean)
  CHECK(q.weights_label == "bitsandbytes");                  // quantization: "bitsandbytes"
  CHECK(q.weights.has_value());
  CHECK(warned(q, "vllm-pesticiderecipegen-vllm_config.yaml:10: --enable-lora changes memory"));
  CHECK(q.uncertain);

  // _pull_args_from_config puts the file's flags before the command line's: the command line wins.
  const kvplan::PlanRequest cli =
      read("vllm serve --config vllm-pesticiderecipegen-vllm_config.yaml --tensor-parallel-size 1", "qwen2.5-7b");
  CHECK(cli.tp == 1u);
  CHECK(knob(cli, "gpu_memory_utilization") == 600'000u);

  // Only the word '--config' is looked for: --config=FILE is ignored by vLLM, and so by kvplan, which says so.
  const kvplan::PlanRequest eq = read("vllm serve --config=vllm-pesticiderecipegen-vllm_config.yaml", "qwen2.5-7b");
  CHECK_FALSE(eq.tp.has_value());
  CHECK_FALSE(knob(eq, "gpu_memory_utilization").has_value());
  CHECK(warned(eq, "reads a settings file only from '--config FILE'"));
}

TEST_CASE("vLLM --config by release: booleans, names and the file name", "[settings]") {
  const fs::path dir = fs::temp_directory_path() / "kvplan-settings-test";
  fs::create_directories(dir);
  {
    std::ofstream(dir / "flags.yaml") << "enable-prefix-caching: false\nmax_num_seqs: 8\nenforce-eager: true\n";
    std::ofstream(dir / "flags.json") << "{}\n";
  }
  kvplan::CommandContext ctx;
  ctx.model = kvplan::load_preset("llama-3.1-8b");
  ctx.base_dir = dir.string();
  auto at = [&](const std::string& version, const std::string& file) {
    ctx.engine = kvplan::parse_engine("vllm@" + version);
    return kvplan::read_command_line(kvplan::shell_words("vllm serve meta-llama/Llama-3.1-8B --config " + file), ctx);
  };
  const kvplan::PlanRequest v19 = at("0.19.0", "flags.yaml");
  const auto caching = v19.engine_ref().knob_index("enable_prefix_caching");
  REQUIRE(caching.has_value());
  CHECK_FALSE(v19.knobs.flag(*caching).has_value());    // false is dropped through 0.20 (load_config_file)
  CHECK(knob(v19, "max_num_seqs") == 8u);               // max_num_seqs reads as --max-num-seqs
  const kvplan::PlanRequest v21 = at("0.21", "flags.yaml");
  CHECK(v21.knobs.flag(*caching) == false);             // main after v0.20.0: --no-enable-prefix-caching
  // 0.6.0 to 0.6.3 wrote every boolean as text: `--enforce-eager True`, and vLLM's parser meets a stray 'True'.
  const kvplan::PlanRequest v60 = at("0.6.3", "flags.yaml");
  CHECK(warned(v60, "unexpected argument 'True'"));
  // load_config_file: "Config file must be of a yaml/yml type."
  const kvplan::PlanRequest json = at("0.19.0", "flags.json");
  REQUIRE(json.refusal.has_value());
  CHECK(json.refusal->find("must be named .yaml or .yml") != std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("SGLang --config: the docs' example file", "[settings]") {
  // sgl-project/sglang docs/advanced_features/server_arguments.md: `python -m sglang.launch_server --config config.yaml`.
  const kvplan::PlanRequest q = read("python -m sglang.launch_server --config sglang-docs-config.yaml", "llama3-8b");
  CHECK(q.tp == 2u);  // tensor-parallel-size: 2
  CHECK(q.warnings.empty());
  const kvplan::PlanRequest cli =
      read("python -m sglang.launch_server --config sglang-docs-config.yaml --tp-size 4", "llama3-8b");
  CHECK(cli.tp == 4u);  // "CLI arguments will override config file values."
}

TEST_CASE("Dynamo's TensorRT-LLM worker: its flags, then --extra-engine-args, then --override-engine-args and --trtllm.*",
          "[settings]") {
  // ai-dynamo/dynamo examples/backends/trtllm/launch/agg_router.sh (15bb5238), its worker with the script's defaults
  // (MODEL_PATH Qwen/Qwen3-0.6B, AGG_ENGINE_ARGS engine_configs/qwen3/agg.yaml, copied here); Qwen3-0.6B is not in
  // the catalog, so the architecture is given.
  const std::string worker =
      "python3 -m dynamo.trtllm --model-path Qwen/Qwen3-0.6B --served-model-name Qwen/Qwen3-0.6B "
      "--extra-engine-args dynamo-trtllm-qwen3-agg.yaml --publish-events-and-metrics";
  const kvplan::PlanRequest q = read(worker, "qwen3-8b");
  CHECK(q.engine_ref().display() == std::string_view("TensorRT-LLM"));
  CHECK(q.tp == 1u);
  CHECK(knob(q, "max_batch_size") == 16u);                 // max_batch_size: 16
  CHECK(knob(q, "max_num_tokens") == 8192u);
  CHECK(knob(q, "free_gpu_memory_fraction") == 500'000u);  // kv_cache_config.free_gpu_memory_fraction: 0.5
  // The file's options that change memory and are not modelled warn by their lines; Dynamo's own flags
  // (--served-model-name, --publish-events-and-metrics) are flags of its table, and change no memory.
  CHECK(warned(q, "dynamo-trtllm-qwen3-agg.yaml:16: moe_expert_parallel_size changes memory"));
  CHECK(warned(q, "dynamo-trtllm-qwen3-agg.yaml:22: enable_chunked_prefill changes memory"));
  CHECK(warned(q, "dynamo-trtllm-qwen3-agg.yaml:34: cuda_graph_config changes memory"));
  CHECK(q.warnings.size() == 3u);

  // init_llm_worker builds arg_map from the flags, merges the file over it, then deep-merges
  // --override-engine-args over both; --trtllm.PATH VALUE is the same override, flag by flag.
  const kvplan::PlanRequest flags_lose =
      read(worker + " --free-gpu-memory-fraction 0.8 --max-batch-size 64", "qwen3-8b");
  CHECK(knob(flags_lose, "free_gpu_memory_fraction") == 500'000u);
  CHECK(knob(flags_lose, "max_batch_size") == 16u);
  // The override Dynamo's own test writes (deploy CLI, multinode worker): tp 8, pp 2 over the file's tp 1.
  const kvplan::PlanRequest over =
      read(worker + " --override-engine-args '{\"tensor_parallel_size\": 8, \"pipeline_parallel_size\": 2}'", "qwen3-8b");
  CHECK(over.tp == 8u);
  CHECK(over.pp == 2u);
  const kvplan::PlanRequest dotted = read(worker + " --trtllm.kv_cache_config.free_gpu_memory_fraction 0.7", "qwen3-8b");
  CHECK(knob(dotted, "free_gpu_memory_fraction") == 700'000u);
  // Without the file, the flags set TensorRT-LLM's arguments.
  const kvplan::PlanRequest bare = read(
      "python3 -m dynamo.trtllm --model Qwen/Qwen3-0.6B --tensor-parallel-size 2 --max-batch-size 64 "
      "--free-gpu-memory-fraction 0.8 --max-seq-len 4096",
      "qwen3-8b");
  CHECK(bare.tp == 2u);
  CHECK(knob(bare, "max_batch_size") == 64u);
  CHECK(knob(bare, "free_gpu_memory_fraction") == 800'000u);
  CHECK(bare.max_model_len == 4096u);
  // A flag that changes memory and is not modelled is named; an override that is not JSON is an error naming it.
  CHECK(warned(read(worker + " --expert-parallel-size 4", "qwen3-8b"), "--expert-parallel-size changes memory"));
  CHECK_THROWS_WITH(read(worker + " --override-engine-args '{not json'", "qwen3-8b"),
                    Catch::Contains("--override-engine-args"));
}

TEST_CASE("TensorRT-LLM --config: NVIDIA's curated and database files, nested options, the file wins",
          "[settings]") {
  // NVIDIA/TensorRT-LLM examples/configs/curated/llama-3.3-70b.yaml.
  const kvplan::PlanRequest q =
      read("trtllm-serve meta-llama/Llama-3.3-70B-Instruct --config trtllm-curated-llama-3.3-70b.yaml", "llama3-70b");
  CHECK(knob(q, "max_batch_size") == 1024u);
  CHECK(knob(q, "max_num_tokens") == 2048u);
  CHECK(knob(q, "free_gpu_memory_fraction") == 900'000u);
  REQUIRE(q.kv_dtype.has_value());
  CHECK(q.kv_dtype->name == "fp8");                   // kv_cache_config.dtype: fp8
  CHECK(q.tp == 1u);
  CHECK(warned(q, "trtllm-curated-llama-3.3-70b.yaml:8: cuda_graph_config changes memory"));
  CHECK_FALSE(warned(q, "enable_attention_dp"));      // false is LlmArgs' default: nothing to warn of

  // A fix for a value the file sets is made in the file, which overrides the command line.
  kvplan::PlanRequest on8 = q;
  on8.hardware = kvplan::hardware_from_gpu("H100x8");
  on8.batch = 64;
  on8.seq_len = 4096;
  const kvplan::PlanResult r = kvplan::plan(on8);
  CHECK_FALSE(r.verdict.fits);  // 70B of bf16 weights on one H100: tensor_parallel_size: 1 in the file
  REQUIRE_FALSE(r.fixes.empty());
  REQUIRE_FALSE(r.fixes.front().changes.empty());
  CHECK(kvplan::spell(r.fixes.front().changes.front(), r) ==
        "tensor_parallel_size: 4 in " + (kDir / "trtllm-curated-llama-3.3-70b.yaml").string());

  // update_llm_args_with_extra_options merges the file over the command line's options: the file wins.
  const kvplan::PlanRequest over = read(
      "trtllm-serve meta-llama/Llama-3.3-70B-Instruct --max_batch_size 8 --extra_llm_api_options "
      "trtllm-curated-llama-3.3-70b.yaml",
      "llama3-70b");
  CHECK(knob(over, "max_batch_size") == 1024u);

  // examples/configs/database/deepseek-ai/DeepSeek-R1-0528/H200/1k1k_tp8_conc16.yaml; click reads --config=FILE.
  const kvplan::PlanRequest db = read(
      "trtllm-serve deepseek-ai/DeepSeek-R1-0528 --config=trtllm-database-deepseek-r1-0528-h200-1k1k_tp8_conc16.yaml",
      "deepseek-r1");
  CHECK(db.tp == 8u);
  CHECK(db.max_model_len == 2304u);
  CHECK(knob(db, "max_batch_size") == 16u);
  CHECK(knob(db, "max_num_tokens") == 1152u);
  CHECK(knob(db, "free_gpu_memory_fraction") == 750'000u);
  CHECK(warned(db, "speculative_config changes memory"));
  CHECK(warned(db, "moe_expert_parallel_size changes memory"));

  // examples/configs/curated/deepseek-r1-throughput.yaml writes a trtllm-serve flag's name at the top level.
  const kvplan::PlanRequest thr =
      read("trtllm-serve deepseek-ai/DeepSeek-R1 --config trtllm-curated-deepseek-r1-throughput.yaml", "deepseek-r1");
  CHECK(warned(thr, "kv_cache_free_gpu_memory_fraction changes memory"));
  CHECK(warned(thr, "enable_attention_dp changes memory"));
  CHECK(thr.uncertain);
  CHECK_FALSE(knob(thr, "free_gpu_memory_fraction").has_value());
}

TEST_CASE("settings files: bad input is one error naming the file, line and key", "[settings]") {
  const fs::path dir = fs::temp_directory_path() / "kvplan-settings-bad";
  fs::create_directories(dir);
  {
    std::ofstream(dir / "list.yaml") << "- a\n- b\n";
    std::ofstream(dir / "broken.yaml") << "max-num-seqs: [1, 2\n";
    std::ofstream(dir / "value.yaml") << "kv_cache_config:\n  free_gpu_memory_fraction: 1.5\n";
    std::ofstream(dir / "unknown.yaml") << "kv_cache_config:\n  free_gpu_memory_fractoin: 0.5\n";
  }
  kvplan::CommandContext ctx;
  ctx.model = kvplan::load_preset("llama-3.1-8b");
  ctx.base_dir = dir.string();
  auto line = [&](const std::string& cmd) { return kvplan::read_command_line(kvplan::shell_words(cmd), ctx); };
  auto message = [&](const std::string& cmd) {
    try {
      (void)line(cmd);
    } catch (const kvplan::Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK(message("vllm serve m --config list.yaml").find("list.yaml:1: expected a map of settings") != std::string::npos);
  CHECK(message("vllm serve m --config broken.yaml").find("broken.yaml:") != std::string::npos);
  CHECK(message("trtllm-serve m --config value.yaml").find("value.yaml:2: --kv_cache_free_gpu_memory_fraction") !=
        std::string::npos);
  const kvplan::PlanRequest typo = line("trtllm-serve m --config unknown.yaml");
  CHECK(warned(typo, "unknown option 'kv_cache_config.free_gpu_memory_fractoin'"));
  CHECK(warned(typo, "did you mean 'kv_cache_config.free_gpu_memory_fraction'"));
  ctx.strict = true;
  CHECK(message("trtllm-serve m --config unknown.yaml").find("(--strict)") != std::string::npos);
  // Bytes that are not UTF-8 in a map (fuzz regression crash-map-not-utf8.yaml): one line, not a crash.
  std::ofstream(dir / "bytes.yaml") << "compilation-config: {a: \xff\xfe}\n";
  CHECK(message("vllm serve m --config bytes.yaml").find("bytes.yaml:1: not UTF-8 text") != std::string::npos);
  // A folder is not a settings file.
  fs::create_directories(dir / "folder.yaml");
  CHECK_FALSE(message("vllm serve m --config folder.yaml").empty());
  fs::remove_all(dir);
}

TEST_CASE("settings files are read as PyYAML reads them", "[settings]") {
  const auto entries = kvplan::read_settings_yaml(
      "a: yes\nb: 'yes'\nc: ~\nd: [1, x, true]\ne: {f: 1}\ng: 0.90\n", "t.yaml", false);
  REQUIRE(entries.size() == 6);
  CHECK(entries[0].value.kind == kvplan::SettingsValue::Kind::boolean);  // YAML 1.1: yes is true
  CHECK(entries[1].value.kind == kvplan::SettingsValue::Kind::text);     // quoted: a string
  CHECK(entries[2].value.kind == kvplan::SettingsValue::Kind::null);
  CHECK(entries[3].value.items == std::vector<std::string>{"1", "x", "True"});  // str() of each item
  CHECK(entries[3].value.python == "[1, 'x', True]");
  CHECK(entries[4].value.text == R"({"f":1})");
  CHECK(entries[5].value.text == "0.90");
  CHECK(entries[5].line == 6);
  const auto nested = kvplan::read_settings_yaml("kv_cache_config:\n  dtype: fp8\n", "t.yaml", true);
  REQUIRE(nested.size() == 1);
  CHECK(nested[0].key == "kv_cache_config.dtype");
  CHECK(nested[0].line == 2);
}
