// kvplan's predictions against every entry of tests/calibration/engine_logs.jsonl, with the
// bounds of issue #3: llama.cpp KV MiB exact (0.01 MiB); vLLM given its KV memory, "GPU KV cache
// size" and "Maximum concurrency" exact to the printed precision; vLLM from the GPU alone,
// available KV memory within 3%; SGLang and TensorRT-LLM tokens within 5%. Entries that cannot
// be matched say why. The same rows are written to docs/accuracy.md (KVPLAN_UPDATE_GOLDEN=1).
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "kvplan/cli.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const fs::path kDir = fs::path(KVPLAN_SOURCE_DIR) / "tests/calibration";
const std::string kConfigs = (kDir / "configs").string();
constexpr double kGiB = 1024.0 * 1024 * 1024;
constexpr double kMiB = 1024.0 * 1024;

std::map<std::string, json> load_entries() {
  std::map<std::string, json> out;
  std::ifstream in(kDir / "engine_logs.jsonl");
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) {
      json j = json::parse(line);
      out[j["id"].get<std::string>()] = j;
    }
  }
  return out;
}

json plan(std::vector<std::string> args) {
  args.insert(args.end(), {"--format", "json"});
  std::ostringstream out;
  std::ostringstream err;
  kvplan::cli::run(args, out, err);
  INFO(err.str());
  REQUIRE(!out.str().empty());
  return json::parse(out.str());
}

struct Row {
  std::string id, engine, quantity, logged, predicted, error, bound;
  bool ok = true;
};

std::string pct(double predicted, double logged) {
  return fmt::format("{:+.2f}%", 100.0 * (predicted - logged) / logged);
}

// A vLLM 0.19.0 run of the llm-d benchmark on H100s: model, GPU count, utilization, max_model_len, extras.
struct Vllm {
  const char* id;
  std::vector<std::string> model;
  int gpus;
  const char* utilization;
  const char* max_model_len;
  std::vector<std::string> extra;
};

const std::vector<Vllm> kVllm{
    {"vllm-0.19.0-llmd-codellama-7b", {"--config", kConfigs + "/codellama-7b.json"}, 1, "0.95", "8192", {}},
    {"vllm-0.19.0-llmd-deepseek-v2-lite-chat", {"--model", "deepseek-ai/DeepSeek-V2-Lite-Chat"}, 1, "0.95", "8192", {}},
    {"vllm-0.19.0-llmd-llama33-70b-fp8dyn-tp2", {"--model", "llama-3.3-70b"}, 2, "0.95", "8192",
     {"--weight-dtype", "fp8"}},
    {"vllm-0.19.0-llmd-gemma2-9b", {"--model", "google/gemma-2-9b-it"}, 1, "0.95", "8192", {}},
    {"vllm-0.19.0-llmd-gemma3-12b", {"--model", "google/gemma-3-12b-it"}, 1, "0.95", "8192", {}},
    {"vllm-0.19.0-llmd-llama31-8b-tp1", {"--model", "meta-llama/Llama-3.1-8B-Instruct"}, 1, "0.95", "8192", {}},
    {"vllm-0.19.0-llmd-llama31-8b-kvfp8", {"--model", "meta-llama/Llama-3.1-8B-Instruct"}, 1, "0.95", "8192",
     {"--kv-cache-dtype", "fp8"}},
    {"vllm-0.19.0-llmd-llama31-8b-tp2", {"--model", "meta-llama/Llama-3.1-8B-Instruct"}, 2, "0.95", "8192", {}},
    {"vllm-0.19.0-llmd-phi-4", {"--model", "microsoft/phi-4"}, 1, "0.95", "8192", {}},
    {"vllm-0.19.0-llmd-mixtral-8x7b-tp2", {"--model", "mistralai/Mixtral-8x7B-Instruct-v0.1"}, 2, "0.95", "8192", {}},
    {"vllm-0.19.0-llmd-gpt-oss-20b-tp2", {"--model", "openai/gpt-oss-20b"}, 2, "0.9", "8192", {}},
    {"vllm-0.19.0-llmd-qwen15-moe-a27b", {"--config", kConfigs + "/qwen1.5-moe-a2.7b.json"}, 1, "0.95", "8192", {}},
    {"vllm-0.19.0-llmd-qwen25-7b-tp1", {"--model", "Qwen/Qwen2.5-7B-Instruct"}, 1, "0.95", "8192", {}},
    {"vllm-0.19.0-llmd-qwen25-7b-32k", {"--model", "Qwen/Qwen2.5-7B-Instruct"}, 1, "0.95", "32768", {}},
    {"vllm-0.19.0-llmd-qwen3-8b", {"--model", "Qwen/Qwen3-8B"}, 1, "0.95", "8192", {}},
};

std::vector<std::string> vllm_args(const Vllm& v) {
  std::vector<std::string> a = v.model;
  a.insert(a.end(), {"--gpu", fmt::format("H100x{}", v.gpus), "--engine", "vllm@0.19", "--max-model-len",
                     v.max_model_len});
  a.insert(a.end(), v.extra.begin(), v.extra.end());
  return a;
}

void vllm_rows(const json& entry, const Vllm& v, std::vector<Row>& rows) {
  const json& r = entry["reported"];
  // 1. From the GPU, utilization and model alone: available KV memory within 3%.
  std::vector<std::string> a = vllm_args(v);
  a.insert(a.end(), {"--gpu-memory-utilization", v.utilization});
  const double kv = plan(a)["engine"]["available_kv_cache_bytes"].get<double>() / kGiB;
  const double logged = r["kv_gib"].get<double>();
  rows.push_back({v.id, "vLLM 0.19.0", "Available KV cache memory [GiB]", fmt::format("{:.2f}", logged),
                  fmt::format("{:.2f}", kv), pct(kv, logged), "3%", std::abs(kv - logged) / logged <= 0.03});
  // 2. Given that memory (--kv-cache-memory at both ends of the printed 0.01 GiB): tokens and
  //    concurrency must bracket the logged figures.
  std::vector<double> tokens;
  std::vector<double> conc;
  for (double edge : {logged - 0.005, logged + 0.005}) {
    std::vector<std::string> g = vllm_args(v);
    g.insert(g.end(), {"--kv-cache-memory", fmt::format("{}B", static_cast<std::uint64_t>(edge * kGiB))});
    const json e = plan(g)["engine"];
    tokens.push_back(e["gpu_kv_cache_tokens"].get<double>());
    conc.push_back(std::round(e["max_concurrency"].get<double>() * 100) / 100);
  }
  const double logged_tokens = r["kv_tokens"].get<double>();
  const double logged_conc = r["max_concurrency"].get<double>();
  rows.push_back({v.id, "vLLM 0.19.0", "GPU KV cache size [tokens], given the logged KV memory",
                  fmt::format("{:.0f}", logged_tokens), fmt::format("{:.0f} – {:.0f}", tokens[0], tokens[1]),
                  logged_tokens >= tokens[0] && logged_tokens <= tokens[1] ? "within" : "outside", "printed precision",
                  logged_tokens >= tokens[0] && logged_tokens <= tokens[1]});
  rows.push_back({v.id, "vLLM 0.19.0", "Maximum concurrency, given the logged KV memory",
                  fmt::format("{:.2f}x", logged_conc), fmt::format("{:.2f}x – {:.2f}x", conc[0], conc[1]),
                  logged_conc >= conc[0] - 1e-9 && logged_conc <= conc[1] + 1e-9 ? "within" : "outside",
                  "printed precision", logged_conc >= conc[0] - 1e-9 && logged_conc <= conc[1] + 1e-9});
}

struct LlamaCpp {
  const char* id;
  const char* model;
  const char* ctx;
  const char* type_k;
  const char* type_v;
};

const std::vector<LlamaCpp> kLlamaCpp{
    {"llamacpp-issue11200-qwen25-coder-32b-q8_0-32k", "qwen2.5-32b", "32768", "q8_0", "q8_0"},
    {"llamacpp-armlp-llama31-8b-q4_0-4k-graviton4", "llama-3.1-8b", "4096", "f16", "f16"},
    {"llamacpp-llama31-8b-f16-16k-vulkan", "llama-3.1-8b", "16384", "f16", "f16"},
    {"ikllama-qwen3-32b-q8_0-16896", "qwen3-32b", "16896", "q8_0", "q8_0"},
    {"llamacpp-ik370-qwen3-235b-q6_k-2x3090-16k", "qwen3-235b-a22b", "16384", "q8_0", "q8_0"},
    {"llamacpp-ik357-qwen3-235b-q6_k-ngl0-16k", "qwen3-235b-a22b", "16384", "q8_0", "q8_0"},
};

void llamacpp_rows(const json& entry, const LlamaCpp& l, std::vector<Row>& rows) {
  const json e = plan({"--model", l.model, "--vram", "24GiB", "--engine", "llamacpp", "--ctx-size", l.ctx,
                       "--parallel", "1", "--cache-type-k", l.type_k, "--cache-type-v", l.type_v, "--fit", "off"})["engine"];
  const json& r = entry["reported"];
  for (const auto& [key, logged_key, label] : {std::tuple{"kv_size_bytes", "kv_mib", "KV size [MiB]"},
                                               std::tuple{"k_bytes", "k_mib", "K [MiB]"},
                                               std::tuple{"v_bytes", "v_mib", "V [MiB]"}}) {
    const double predicted = e[key].get<double>() / kMiB;
    const double logged = r[logged_key].get<double>();
    rows.push_back({l.id, entry["engine"].get<std::string>(), label, fmt::format("{:.2f}", logged),
                    fmt::format("{:.2f}", predicted), fmt::format("{:+.2f} MiB", predicted - logged), "0.01 MiB",
                    std::abs(predicted - logged) <= 0.01});
  }
  // Layers over several GPUs (--tensor-split, or evenly) or partly in host memory (-ngl): each
  // device's KV buffer, and the host's.
  const json& settings = entry["settings"];
  if (!r.contains("kv_buffers_mib") || !(settings.contains("tensor_split") || settings.contains("devices"))) {
    return;
  }
  const std::size_t devices = settings.contains("devices") ? settings["devices"].get<std::size_t>()
                                                           : r["kv_buffers_mib"].size();
  std::vector<std::string> args{"--model", l.model, "--engine", "llamacpp", "--ctx-size", l.ctx, "--parallel", "1",
                                "--cache-type-k", l.type_k, "--cache-type-v", l.type_v, "--fit", "off", "--gpu",
                                fmt::format("RTX-3090x{}", devices)};
  if (settings.contains("tensor_split")) {
    args.insert(args.end(), {"--tensor-split", settings["tensor_split"].get<std::string>()});
  }
  if (settings.contains("n_gpu_layers")) {
    args.insert(args.end(), {"--gpu-layers", std::to_string(settings["n_gpu_layers"].get<int>())});
  }
  const json split = plan(args)["engine"];
  for (const auto& [name, value] : r["kv_buffers_mib"].items()) {
    const std::string key = name == "CPU" ? "host_kv_buffer_bytes" : "cuda" + name.substr(4) + "_kv_buffer_bytes";
    REQUIRE(split.contains(key));
    const double predicted = split[key].get<double>() / kMiB;
    const double logged = value.get<double>();
    rows.push_back({l.id, entry["engine"].get<std::string>(), name + " KV buffer [MiB]", fmt::format("{:.2f}", logged),
                    fmt::format("{:.2f}", predicted), fmt::format("{:+.2f} MiB", predicted - logged), "0.01 MiB",
                    std::abs(predicted - logged) <= 0.01});
  }
}

std::vector<Row> all_rows() {
  const std::map<std::string, json> entries = load_entries();
  std::vector<Row> rows;
  std::vector<std::string> seen;
  for (const Vllm& v : kVllm) {
    vllm_rows(entries.at(v.id), v, rows);
    seen.emplace_back(v.id);
  }
  for (const LlamaCpp& l : kLlamaCpp) {
    llamacpp_rows(entries.at(l.id), l, rows);
    seen.emplace_back(l.id);
  }
  {  // SGLang 0.4.3: QwQ-32B (Qwen2.5-32B geometry) on 4 L4s at mem_fraction_static 0.85.
    const char* id = "sglang-doc-qwq32b-tp4-l4";
    const json e = plan({"--model", "qwen2.5-32b", "--gpu", "L4x4", "--engine", "sglang@0.4", "--mem-fraction-static",
                         "0.85", "--max-model-len", "32768"})["engine"];
    const double predicted = e["max_total_num_tokens"].get<double>();
    const double logged = entries.at(id)["reported"]["kv_tokens"].get<double>();
    rows.push_back({id, "SGLang 0.4.3.post4", "max_total_num_tokens (#tokens)", fmt::format("{:.0f}", logged),
                    fmt::format("{:.0f}", predicted), pct(predicted, logged), "5%",
                    std::abs(predicted - logged) / logged <= 0.05});
    seen.emplace_back(id);
  }
  {  // vLLM 0.19.0, pipeline parallel 2: the log prints the first stage's memory and the minimum tokens.
    const char* id = "vllm-0.19.0-llmd-llama31-8b-pp2";
    const json j = plan({"--model", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "H100x2", "--pp", "2", "--engine",
                         "vllm@0.19", "--gpu-memory-utilization", "0.95", "--max-model-len", "8192"});
    const json& r = entries.at(id)["reported"];
    const double first_stage = j["pipeline"]["stages"][0]["kv_budget_bytes"].get<double>() / kGiB;
    const double logged = r["kv_gib"].get<double>();
    rows.push_back({id, "vLLM 0.19.0", "Available KV cache memory, stage 0 [GiB]", fmt::format("{:.2f}", logged),
                    fmt::format("{:.2f}", first_stage), pct(first_stage, logged), "3%",
                    std::abs(first_stage - logged) / logged <= 0.03});
    const double tokens = j["engine"]["gpu_kv_cache_tokens"].get<double>();
    const double logged_tokens = r["kv_tokens"].get<double>();
    rows.push_back({id, "vLLM 0.19.0", "GPU KV cache size, bottleneck stage [tokens]", fmt::format("{:.0f}", logged_tokens),
                    fmt::format("{:.0f}", tokens), pct(tokens, logged_tokens), "3%",
                    std::abs(tokens - logged_tokens) / logged_tokens <= 0.03});
    seen.emplace_back(id);
  }
  const std::vector<std::pair<std::string, std::string>> unmatched{
      {"vllm-issue10517-llama31-8b-3090-20k", "vLLM V0 engine (before 0.10): its profiling is not modelled"},
      {"vllm-pr10511-llama3-8b-h100-profile", "vLLM V0 engine (before 0.10), and the GPU is not named"},
      {"trtllm-issue224-llama2-7b-a10",
       "TensorRT-LLM 0.5 TRT-engine path: the engine's build-time activation buffer (max_batch_size 25, "
       "max_output_len 4096) and the free memory after loading are not in the log"},
  };
  for (const auto& [id, why] : unmatched) {
    rows.push_back({id, entries.at(id)["engine"].get<std::string>(), "not matched", "-", "-", "-", "-", true});
    rows.back().error = why;
    seen.push_back(id);
  }
  for (const auto& [id, entry] : entries) {  // every entry is in the table
    INFO(id);
    CHECK(std::find(seen.begin(), seen.end(), id) != seen.end());
  }
  return rows;
}

std::string table(const std::vector<Row>& rows) {
  std::string out = "| Entry | Engine | Quantity | Logged | kvplan | Error | Bound | Within |\n"
                    "|---|---|---|---:|---:|---|---|---|\n";
  for (const Row& r : rows) {
    out += fmt::format("| `{}` | {} | {} | {} | {} | {} | {} | {} |\n", r.id, r.engine, r.quantity, r.logged,
                       r.predicted, r.error, r.bound, r.quantity == "not matched" ? "-" : (r.ok ? "yes" : "**no**"));
  }
  return out;
}

// The worst from-GPU vLLM error, as the issue asks to report it.
std::string summary(const std::vector<Row>& rows) {
  const Row* worst = nullptr;
  double worst_error = -1;
  for (const Row& r : rows) {
    if (r.quantity == "Available KV cache memory [GiB]") {
      const double e = std::abs(std::stod(r.predicted) - std::stod(r.logged)) / std::stod(r.logged);
      if (e > worst_error) {
        worst_error = e;
        worst = &r;
      }
    }
  }
  return worst == nullptr ? "\n"
                          : fmt::format("\nWorst vLLM available-KV error from the GPU alone: {} on `{}` (bound 3%).\n",
                                        worst->error, worst->id);
}

}  // namespace

TEST_CASE("predictions match every calibration entry within issue #3's bounds", "[accuracy]") {
  const std::vector<Row> rows = all_rows();
  for (const Row& r : rows) {
    INFO(r.id << ": " << r.quantity << " logged " << r.logged << ", kvplan " << r.predicted << " (" << r.error << ")");
    CHECK(r.ok);
  }
  const fs::path doc = fs::path(KVPLAN_SOURCE_DIR) / "docs/accuracy.md";
  std::ifstream in(doc);
  std::stringstream text;
  text << in.rdbuf();
  const std::string current = text.str();
  const std::string begin = "<!-- accuracy-table: generated by tests/calibration/accuracy_test.cpp -->\n";
  const std::size_t at = current.find(begin);
  REQUIRE(at != std::string::npos);
  const std::string finish = "<!-- end of accuracy-table -->\n";
  const std::size_t end = current.find(finish, at);
  REQUIRE(end != std::string::npos);
  const std::string expected = current.substr(0, at + begin.size()) + table(rows) + summary(rows) + current.substr(end);
  if (std::getenv("KVPLAN_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(doc) << expected;
    return;
  }
  CHECK(current == expected);
}
