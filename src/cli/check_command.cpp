// `kvplan check FILE...` and `kvplan check [flags] -- ENGINE COMMAND LINE`: will each deployment fit?
// PASS or FAIL with what does not fit, by how much, and the smallest change that fixes it; exit 0
// when all pass, 1 when any fails, 2 on bad input. Formats: text, json, github (Actions annotations).
#include <cmath>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <ostream>

#include "commands.hpp"
#include "deployment.hpp"
#include "kvplan/error.hpp"
#include "kvplan/quantity.hpp"
#include "kvplan/text.hpp"

namespace kvplan::cli {
namespace {

struct Result {
  Deployment deployment;
  bool pass = false;
  std::string summary;              // one line: what was checked and the answer
  std::string fix;                  // the smallest change, when it fails
  std::uint64_t max_concurrency = 0;
  std::uint64_t kv_budget_bytes = 0;
  std::uint64_t seq_len = 0;
  std::uint64_t required = 0;       // concurrency demanded, margin included
};

const Field* field(const Document& doc, const std::string& section, const std::string& key) {
  for (const Section& s : doc.sections) {
    if (s.key == section) {
      for (const Field& f : s.fields) {
        if (f.key == key) {
          return &f;
        }
      }
    }
  }
  return nullptr;
}

Result check_one(Deployment d, std::uint32_t margin_ppm) {
  Result r;
  PlanOptions o = d.plan;
  o.seq_len = d.context_length.value_or(o.max_model_len);
  r.required = static_cast<std::uint64_t>(
      std::ceil(static_cast<double>(d.concurrency) * (1.0 + static_cast<double>(margin_ppm) / 1e6) - 1e-9));
  o.batch = std::to_string(r.required);
  PlanInputs in = plan_inputs(o);
  if (!in.seq_len) {
    // No stated context: one request of the longest the server accepts (llama.cpp: its slot size).
    in.seq_len = in.max_model_len;
    if (const Evaluation e = evaluate(in); e.engine && e.engine->max_model_len > 0) {
      in.seq_len = e.engine->max_model_len;
    }
  }
  const PlanOutcome plan = build_plan(in);
  r.seq_len = *in.seq_len;
  r.pass = plan.exit_code == 0;
  const Field* budget = field(plan.doc, "budget", "kv_budget_bytes");
  r.kv_budget_bytes = budget != nullptr ? budget->value.n : 0;
  const std::string engine = in.engine.profile == nullptr
                                 ? "engine-neutral"
                                 : fmt::format("{} {}", in.engine.profile->display, in.engine.version_text);
  const std::string who = fmt::format("{} on {} ({})", in.model.name, in.vram_label, engine);
  const std::string what = fmt::format("{}: {} × {} tokens{}", who, with_commas(d.concurrency), with_commas(r.seq_len),
                                       margin_ppm > 0 ? fmt::format(" + {:g}% margin", margin_ppm / 1e4) : "");
  r.deployment = std::move(d);
  if (r.pass) {
    r.summary = fmt::format("{} fits; KV budget {} per GPU", what, format_bytes(r.kv_budget_bytes));
    return r;
  }
  std::string reason = plan.doc.advice.empty() ? "does not fit" : plan.doc.advice.front();
  if (reason.rfind("kvplan: nothing fits: ", 0) == 0) {
    reason = reason.substr(22);
  }
  r.summary = fmt::format("{}: {}{}", who, reason,
                          margin_ppm > 0 ? fmt::format(" (with the {:g}% margin: {} sequences)", margin_ppm / 1e4,
                                                       with_commas(r.required))
                                         : "");
  for (std::size_t i = 0; i < plan.doc.advice.size(); ++i) {
    if (plan.doc.advice[i].find("Try one of:") != std::string::npos && i + 1 < plan.doc.advice.size()) {
      r.fix = plan.doc.advice[i + 1].substr(plan.doc.advice[i + 1].find_first_not_of(' '));
      break;
    }
  }
  for (const char* key : {"min_gpu_memory_utilization", "min_mem_fraction_static", "min_free_gpu_memory_fraction",
                          "min_utilization"}) {
    if (const Field* f = field(plan.doc, "inverse", key); f != nullptr && f->value.kind == Cell::Kind::number) {
      r.fix = f->detail + (r.fix.empty() ? "" : "; or " + r.fix);
      break;
    }
  }
  if (r.fix.empty()) {
    if (const Field* f = field(plan.doc, "inverse", "fewest_gpus"); f != nullptr && f->value.kind == Cell::Kind::count) {
      r.fix = f->detail;
    }
  }
  return r;
}

void print_text(const std::vector<Result>& results, std::ostream& out) {
  for (const Result& r : results) {
    out << (r.pass ? "PASS " : "FAIL ") << r.deployment.origin;
    if (!r.deployment.name.empty()) {
      out << " (" << r.deployment.name << ")";
    }
    out << ": " << r.summary << '\n';
    if (!r.fix.empty()) {
      out << "     fix: " << r.fix << '\n';
    }
  }
  const auto failed = std::count_if(results.begin(), results.end(), [](const Result& r) { return !r.pass; });
  out << fmt::format("{} passed, {} failed\n", results.size() - static_cast<std::size_t>(failed), failed);
}

void print_github(const std::vector<Result>& results, std::ostream& out) {
  // GitHub Actions workflow commands: ::error file=F,line=L::message (newlines escaped as %0A).
  for (const Result& r : results) {
    std::string message = r.summary + (r.fix.empty() ? "" : "%0Afix: " + r.fix);
    out << (r.pass ? "::notice" : "::error") << " file=" << r.deployment.origin << ",line=" << r.deployment.line
        << ",title=kvplan check " << (r.pass ? "passed" : "failed") << "::" << message << '\n';
  }
}

void print_json(const std::vector<Result>& results, std::ostream& out) {
  nlohmann::ordered_json j;
  j["schema_version"] = 1;
  j["results"] = nlohmann::ordered_json::array();
  std::size_t failed = 0;
  for (const Result& r : results) {
    failed += r.pass ? 0 : 1;
    nlohmann::ordered_json e;
    e["origin"] = r.deployment.origin;
    e["name"] = r.deployment.name;
    e["pass"] = r.pass;
    e["concurrency"] = r.deployment.concurrency;
    e["required_concurrency"] = r.required;
    e["seq_len"] = r.seq_len;
    e["kv_budget_bytes"] = r.kv_budget_bytes;
    e["summary"] = r.summary;
    e["fix"] = r.fix;
    j["results"].push_back(std::move(e));
  }
  j["passed"] = results.size() - failed;
  j["failed"] = failed;
  out << j.dump(2) << '\n';
}

}  // namespace

void setup_check(CLI::App& app, CheckOptions& o) {
  app.add_option("files", o.files, "Deployment files (JSON); see docs/ci.md for the format");
  app.add_option("--gpu,-g", o.gpu, "For an engine command line: the GPU it runs on, with its count (H100x4)");
  app.add_option("--vram", o.vram, "For an engine command line: memory per GPU instead of --gpu");
  app.add_option("--model,-m", o.model, "For llama-server (a GGUF file): the model's built-in name");
  app.add_option("--config", o.config, "For an engine command line: the model's config.json");
  app.add_option("--concurrency,--batch", o.concurrency, "For an engine command line: concurrent requests to serve");
  app.add_option("--seq-len,-s", o.seq_len, "For an engine command line: tokens per request (default: max model length)");
  app.add_option("--margin", o.margin, "Demand headroom: serve this much more concurrency, e.g. 5% (default 0)");
  app.add_option("--format,-f", o.format, "Output: text, json or github (Actions annotations)");
}

int run_check(const CheckOptions& o, std::ostream& out) {
  if (o.format != "text" && o.format != "json" && o.format != "github") {
    throw Error(fmt::format("check: unknown format '{}'{} (expected text, json or github)", o.format,
                            did_you_mean(o.format, {"text", "json", "github"})));
  }
  const std::uint32_t margin = o.margin.empty() ? 0 : parse_fraction_ppm("--margin", o.margin);
  std::vector<Deployment> deployments;
  for (const std::string& f : o.files) {
    deployments.push_back(read_deployment_file(f));
  }
  if (!o.command.empty()) {
    PlanOptions base;
    base.gpu = o.gpu;
    base.vram = o.vram;
    base.model = o.model;
    base.config = o.config;
    Deployment d = read_engine_command(o.command, base);
    if (d.plan.gpu.empty() && d.plan.vram.empty()) {
      throw Error("check: say which GPU the command runs on with --gpu NAME[xCOUNT] (or --vram SIZE) before the '--'");
    }
    d.concurrency = o.concurrency.empty() ? 1 : parse_count("--concurrency", o.concurrency, 10'000'000);
    if (!o.seq_len.empty()) {
      d.context_length = o.seq_len;
    }
    deployments.push_back(std::move(d));
  }
  if (deployments.empty()) {
    throw Error("check: nothing to check; give deployment files, or '-- vllm serve MODEL ...' (see docs/ci.md)");
  }
  std::vector<Result> results;
  for (Deployment& d : deployments) {
    results.push_back(check_one(std::move(d), margin));
  }
  if (o.format == "json") {
    print_json(results, out);
  } else if (o.format == "github") {
    print_github(results, out);
  } else {
    print_text(results, out);
  }
  return std::all_of(results.begin(), results.end(), [](const Result& r) { return r.pass; }) ? 0 : 1;
}

}  // namespace kvplan::cli
