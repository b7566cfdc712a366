// `kvplan check FILE...` and `kvplan check [flags] -- ENGINE COMMAND LINE`: will each deployment fit?
// PASS or FAIL with the cause, by how much, and the smallest change that fixes it (planned and
// confirmed); ERROR for one that cannot be read, while the others are still checked. Exit 0 when
// all pass, 1 when any fails, 2 when any cannot be read. Formats: text, json, github (Actions).
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <ostream>

#include "commands.hpp"
#include "deployment.hpp"
#include "kvplan/command_line.hpp"
#include "kvplan/error.hpp"
#include "kvplan/files.hpp"
#include "kvplan/model_source.hpp"
#include "kvplan/quantity.hpp"
#include "kvplan/text.hpp"
#include "kvplan/units.hpp"

namespace kvplan::cli {
namespace {

struct Outcome {
  std::string origin;
  std::string name;
  std::uint32_t line = 1;
  std::optional<PlanResult> result;     // nullopt: the deployment could not be read
  std::string error;
  std::vector<std::string> warnings;
  std::uint64_t concurrency = 1;
  std::uint64_t required = 1;           // concurrency with the margin
  std::string summary;
  std::string fix;
  std::vector<std::string> notes;       // a manifest's: where the GPU, the model and the demand came from
};

std::string engine_words(const PlanRequest& q) {
  return &q.engine_ref() == &raw_engine() ? std::string("engine-neutral")
                                          : fmt::format("{} {}", q.engine_ref().display(), q.version.text);
}

// The line a finding points at: the flag that decides the verdict (tensor parallelism for weights
// that do not fit, the context length for the start-up check and capacity, the concurrency cap),
// or the container's args when that flag is missing (a missing --tensor-parallel-size).
std::uint32_t finding_line(const Deployment& d, const PlanResult& r) {
  if (d.flag_lines.empty()) {
    return d.line;
  }
  const Engine& e = d.request.engine_ref();
  std::optional<Target> target;
  std::optional<std::size_t> knob;
  switch (r.verdict.cause) {
    case Cause::gpus:
    case Cause::weights:
    case Cause::no_kv_memory:
      target = Target::tp;
      break;
    case Cause::weights_unknown:
      target = Target::model;  // the checkpoint whose config.json decides
      break;
    case Cause::startup_too_long:
    case Cause::too_long:
    case Cause::capacity:
      target = Target::max_model_len;
      break;
    case Cause::concurrency_cap:
      knob = e.cap_knob();
      break;
    case Cause::fits:
    case Cause::refused:
      break;
  }
  std::vector<std::string> spellings;
  const std::span<const Knob> knobs = e.knobs();
  for (std::size_t i = 0; i < knobs.size(); ++i) {
    if ((knob && *knob == i) || (target && knobs[i].target == *target)) {
      for (std::string_view rest = knobs[i].flags; !rest.empty();) {
        const std::size_t sp = rest.find(' ');
        spellings.emplace_back(rest.substr(0, sp));
        rest = sp == std::string_view::npos ? std::string_view{} : rest.substr(sp + 1);
      }
    }
  }
  const bool abbreviations = e.capabilities().abbreviations;  // argparse's allow_abbrev: --tp for --tp-size
  for (const auto& [word, line] : d.flag_lines) {
    std::string name = e.normalize_flag(word.substr(0, word.find('=')));
    name = name.substr(0, name.find(' '));
    for (const std::string& s : spellings) {
      if (s == name || (abbreviations && name.size() > 2 && name.rfind("--", 0) == 0 && s.rfind(name, 0) == 0)) {
        return line;
      }
    }
  }
  return d.args_line != 0 ? d.args_line : d.line;
}

Outcome check_one(Deployment d, std::uint32_t margin_ppm) {
  Outcome o;
  o.origin = d.origin;
  o.name = d.name;
  o.line = d.line;
  o.notes = d.notes;
  o.concurrency = d.concurrency;
  // ceil(concurrency × (1 + margin)), exact in integers (concurrency <= 10^7, margin <= 10^6 ppm).
  o.required = ceil_div(d.concurrency * (1'000'000 + std::uint64_t{margin_ppm}), 1'000'000);
  PlanRequest& q = d.request;
  q.version_banner = version();
  q.batch = o.required;
  if (d.context_length) {
    q.seq_len = *d.context_length;
  } else {
    q.shape_at_max_len = true;  // no stated context: one request of the longest the server accepts
  }
  const PlanResult r = plan(q);
  o.warnings = r.request.warnings;  // the request's, then what the plan found (the GPU's missing arithmetic)
  const std::string who = fmt::format("{} on {} ({})", q.model_spec().name, q.hardware.label, engine_words(q));
  const std::string margin = margin_ppm > 0 ? fmt::format(" + {:g}% margin", margin_ppm / 1e4) : "";
  if (r.verdict.fits) {
    o.summary = fmt::format("{}: {} × {} tokens{} fits; KV budget {} per GPU{}", who, with_commas(d.concurrency),
                            with_commas(r.r.seq_len), margin, format_bytes(r.budget.kv_budget_bytes),
                            r.verdict.uncertain ? " (uncertain: see the warnings)" : "");
  } else {
    o.summary = fmt::format("{}: {}{}{}", who, verdict_text(r),
                            margin_ppm > 0 ? fmt::format(" (with the {:g}% margin: {} sequences)", margin_ppm / 1e4,
                                                         with_commas(o.required))
                                           : "",
                            r.verdict.uncertain ? " (uncertain: see the warnings)" : "");
    if (!r.fixes.empty()) {
      const Fix& f = r.fixes.front();
      std::string changes;
      for (const Change& c : f.changes) {
        changes += (changes.empty() ? "" : " ") + spell(c, r);
      }
      o.fix = fmt::format("{}: KV budget {} per GPU, max batch {} at {} tokens", changes, format_bytes(f.kv_budget_bytes),
                          with_commas(f.total_concurrency), with_commas(f.seq_len));
    }
  }
  o.line = finding_line(d, r);
  o.result = r;
  return o;
}

// GitHub workflow commands: data escapes %, CR and LF; properties also ':' and ','.
std::string gh_data(std::string_view s) {
  std::string out;
  for (char c : s) {
    out += c == '%' ? "%25" : c == '\r' ? "%0D" : c == '\n' ? "%0A" : std::string(1, c);
  }
  return out;
}

std::string gh_property(std::string_view s) {
  std::string out;
  for (char c : gh_data(s)) {
    out += c == ':' ? "%3A" : c == ',' ? "%2C" : std::string(1, c);
  }
  return out;
}

// One line of the text report at the view's width (continuation lines five columns in, under the
// text after the verdict), its first word coloured: PASS green, FAIL and ERROR red, warn yellow.
void print_line(std::ostream& out, std::string_view word, const std::string& text, const View& view) {
  std::vector<std::string> lines = wrap_line(std::string(word) + " ", text, view.width, 5);
  if (view.color && word != "    ") {
    const char* sgr = word == "PASS" ? "\x1b[32m" : word == "warn" ? "\x1b[33m" : "\x1b[31m";
    lines.front() = std::string(sgr) + std::string(word) + "\x1b[0m" + lines.front().substr(word.size());
  }
  for (const std::string& l : lines) {
    out << l << '\n';
  }
}

void print_text(const std::vector<Outcome>& outcomes, std::ostream& out, const View& view) {
  std::size_t passed = 0;
  std::size_t failed = 0;
  std::size_t errors = 0;
  for (const Outcome& o : outcomes) {
    for (const std::string& w : o.warnings) {
      print_line(out, "warn", w, view);
    }
    if (!o.result) {
      ++errors;
      // A manifest entry's error already names its file, line and workload.
      print_line(out, "ERROR",
                 o.error.rfind(o.origin + ":", 0) == 0
                     ? o.error
                     : o.origin + (o.name.empty() ? "" : " (" + o.name + ")") + ": " + o.error,
                 view);
      continue;
    }
    const bool pass = o.result->verdict.fits;
    (pass ? passed : failed) += 1;
    print_line(out, pass ? "PASS" : "FAIL", o.origin + (o.name.empty() ? "" : " (" + o.name + ")") + ": " + o.summary,
               view);
    if (!o.fix.empty()) {
      print_line(out, "    ", "fix: " + o.fix, view);
    }
    for (const std::string& n : o.notes) {
      print_line(out, "    ", "note: " + n, view);
    }
  }
  out << fmt::format("{} passed, {} failed{}\n", passed, failed, errors > 0 ? fmt::format(", {} unreadable", errors) : "");
}

void print_github(const std::vector<Outcome>& outcomes, std::ostream& out) {
  for (const Outcome& o : outcomes) {
    for (const std::string& w : o.warnings) {
      out << "::warning file=" << gh_property(o.origin) << ",line=" << o.line << ",title=kvplan check::" << gh_data(w)
          << '\n';
    }
    if (!o.result) {
      out << "::error file=" << gh_property(o.origin) << ",line=" << o.line << ",title=kvplan check could not read it::"
          << gh_data(o.error) << '\n';
      continue;
    }
    const bool pass = o.result->verdict.fits;
    std::string message = o.summary + (o.fix.empty() ? "" : "\nfix: " + o.fix);
    for (const std::string& n : o.notes) {
      message += "\nnote: " + n;
    }
    out << (pass ? "::notice" : "::error") << " file=" << gh_property(o.origin) << ",line=" << o.line
        << ",title=kvplan check " << (pass ? "passed" : "failed") << "::" << gh_data(message) << '\n';
  }
}

std::string cause_name(Cause c) {
  switch (c) {
    case Cause::fits: return "fits";
    case Cause::refused: return "refused";
    case Cause::gpus: return "gpus";
    case Cause::weights: return "weights";
    case Cause::no_kv_memory: return "no_kv_memory";
    case Cause::startup_too_long: return "startup_max_model_len";
    case Cause::too_long: return "too_long";
    case Cause::capacity: return "capacity";
    case Cause::concurrency_cap: return "concurrency_cap";
    case Cause::weights_unknown: return "weights_unknown";
  }
  return "";
}

void print_json(const std::vector<Outcome>& outcomes, std::ostream& out) {
  nlohmann::ordered_json j;
  j["schema_version"] = 1;
  j["results"] = nlohmann::ordered_json::array();
  std::size_t failed = 0;
  std::size_t errors = 0;
  for (const Outcome& o : outcomes) {
    nlohmann::ordered_json e;
    e["origin"] = o.origin;
    e["name"] = o.name;
    e["line"] = o.line;
    e["warnings"] = o.warnings;
    e["notes"] = o.notes;
    if (!o.result) {
      ++errors;
      e["pass"] = false;
      e["error"] = o.error;
      j["results"].push_back(std::move(e));
      continue;
    }
    const PlanResult& r = *o.result;
    failed += r.verdict.fits ? 0 : 1;
    e["pass"] = r.verdict.fits;
    e["cause"] = cause_name(r.verdict.cause);
    e["uncertain"] = r.verdict.uncertain;
    e["concurrency"] = o.concurrency;
    e["required_concurrency"] = o.required;
    e["seq_len"] = r.r.seq_len;
    e["max_concurrency"] = r.total_concurrency;
    e["kv_budget_bytes"] = r.budget.kv_budget_bytes;
    e["gpus"] = r.r.gpus_used;
    e["summary"] = o.summary;
    e["fix"] = o.fix;
    j["results"].push_back(std::move(e));
  }
  j["passed"] = outcomes.size() - failed - errors;
  j["failed"] = failed;
  j["unreadable"] = errors;
  out << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
}

// SARIF 2.1.0 (OASIS, "Static Analysis Results Interchange Format"), as GitHub code scanning reads
// it: one run, the rules below, and a result per deployment (and per warning) at its file and line.
void print_sarif(const std::vector<Outcome>& outcomes, std::ostream& out) {
  using nlohmann::ordered_json;
  struct Rule {
    const char* id;
    const char* text;
    const char* level;
  };
  static constexpr Rule kRules[] = {
      {"kvplan/does-not-fit", "The deployment does not fit in GPU memory: the engine would fail to start or run out "
                              "of KV cache for the required load",
       "error"},
      {"kvplan/unreadable", "kvplan could not read the deployment", "error"},
      {"kvplan/uncertain", "A setting changes memory in a way kvplan does not model, or a value is not literal",
       "warning"},
      {"kvplan/fits", "The deployment fits", "none"},
  };
  ordered_json rules = ordered_json::array();
  for (const Rule& r : kRules) {
    ordered_json rule;
    rule["id"] = r.id;
    rule["shortDescription"]["text"] = r.text;
    rule["defaultConfiguration"]["level"] = r.level;
    rules.push_back(std::move(rule));
  }
  ordered_json results = ordered_json::array();
  auto result = [&](std::size_t rule, const std::string& text, const Outcome& o, bool pass) {
    ordered_json x;
    x["ruleId"] = kRules[rule].id;
    x["ruleIndex"] = rule;
    if (pass) {
      x["kind"] = "pass";
    }
    x["level"] = kRules[rule].level;
    x["message"]["text"] = text;
    ordered_json loc;
    loc["physicalLocation"]["artifactLocation"]["uri"] = o.origin == "-" ? std::string("stdin") : o.origin;
    loc["physicalLocation"]["region"]["startLine"] = o.line;
    x["locations"] = ordered_json::array({loc});
    results.push_back(std::move(x));
  };
  for (const Outcome& o : outcomes) {
    const std::string who = o.name.empty() ? "" : o.name + ": ";
    for (const std::string& w : o.warnings) {
      result(2, w, o, false);
    }
    if (!o.result) {
      result(1, who + o.error, o, false);
      continue;
    }
    std::string message = who + o.summary + (o.fix.empty() ? "" : ". Fix: " + o.fix);
    for (const std::string& n : o.notes) {
      message += ". " + n;
    }
    result(o.result->verdict.fits ? 3 : 0, message, o, o.result->verdict.fits);
  }
  ordered_json j;
  j["$schema"] = "https://json.schemastore.org/sarif-2.1.0.json";
  j["version"] = "2.1.0";
  ordered_json run;
  run["tool"]["driver"]["name"] = "kvplan";
  run["tool"]["driver"]["version"] = std::string(version()).substr(std::string(version()).find(' ') + 1);
  run["tool"]["driver"]["rules"] = std::move(rules);
  run["results"] = std::move(results);
  j["runs"] = ordered_json::array({std::move(run)});
  out << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
}

// --gpu/--vram and --model/--config, read once for manifests and for a command line alike.
struct Given {
  std::optional<Hardware> hardware;
  std::optional<ModelChoice> model;
};

Given given(const CheckOptions& o) {
  Given g;
  if (!o.gpu.empty() && !o.vram.empty()) {
    throw Error("check: give --gpu NAME or --vram SIZE, not both");
  }
  if (!o.model.empty() && !o.config.empty()) {
    throw Error("check: give --model NAME or --config PATH, not both");
  }
  if (!o.gpu.empty()) {
    g.hardware = hardware_from_gpu(o.gpu);
  } else if (!o.vram.empty()) {
    g.hardware = hardware_from_vram(o.vram);
  }
  if (!o.config.empty()) {
    g.model = load_config(o.config, "--config");
  } else if (!o.model.empty()) {
    g.model = load_preset(o.model);
  }
  return g;
}

}  // namespace

void setup_check(CLI::App& app, CheckOptions& o) {
  app.add_option("files", o.files,
                 "Deployment files: kvplan's JSON, or YAML manifests (Kubernetes, Helm output, KServe, LeaderWorkerSet, "
                 "production-stack values, docker-compose, SkyPilot); - reads standard input (docs/ci.md)");
  app.add_option("--gpu,-g", o.gpu, "For an engine command line: the GPU it runs on, with its count (H100x4)");
  app.add_option("--vram", o.vram, "For an engine command line: memory per GPU instead of --gpu");
  app.add_option("--model,-m", o.model, "For an engine command line: the model's built-in name (when it names a file kvplan cannot read)");
  app.add_option("--config", o.config, "For an engine command line: the model's config.json");
  app.add_option("--concurrency,--batch,-b", o.concurrency, "For an engine command line: concurrent requests to serve");
  app.add_option("--seq-len,-s", o.seq_len, "For an engine command line: tokens per request (default: the longest it "
                                            "accepts)");
  app.add_option("--margin", o.margin, "Demand headroom: serve this much more concurrency, e.g. 5% (default 0)");
  app.add_option("--format,-f", o.format, "Output: text, json, github (Actions annotations) or sarif (code scanning)");
  app.add_option("--weight-dtype", o.weight_dtype,
                 "For an engine command line: how the checkpoint's weights are stored (fp8, int4, ...), when the command "
                 "line does not say");
  app.add_option("--kv-dtype", o.kv_dtype, "For an engine command line: the KV dtype, when the command line does not say");
  app.add_option("--engine,-e", o.engine,
                 "For an engine command line: the version of the engine it runs, as NAME@VERSION, when no image tag says it");
  app.add_flag("--strict", o.strict, "Unknown engine flags are errors, not warnings");
}

int run_check(const CheckOptions& o, std::ostream& out, std::ostream& err) {
  if (o.format != "text" && o.format != "json" && o.format != "github" && o.format != "sarif") {
    throw Error(fmt::format("check: unknown format {}{} (expected text, json, github or sarif)", quote_input(o.format),
                            did_you_mean(o.format, {"text", "json", "github", "sarif"})));
  }
  const std::uint32_t margin = o.margin.empty() ? 0 : parse_fraction_ppm("--margin", o.margin);
  if (o.files.empty() && o.command.empty()) {
    throw Error("check: nothing to check; give deployment files, or '-- ' and an engine's command line (see docs/ci.md)");
  }
  std::vector<Outcome> outcomes;
  std::vector<std::string> empty_files;  // manifests with nothing to check
  std::optional<ManifestOptions> manifest_options;
  auto manifest_opts = [&]() -> const ManifestOptions& {
    if (!manifest_options) {
      ManifestOptions m;
      const Given g = given(o);
      m.gpu = g.hardware;
      m.model = g.model;
      if (!o.concurrency.empty()) {
        m.concurrency = parse_count("--concurrency", o.concurrency, 10'000'000);
      }
      if (!o.seq_len.empty()) {
        m.context_length = parse_tokens("--seq-len", o.seq_len);
      }
      m.strict = o.strict;
      manifest_options = std::move(m);
    }
    return *manifest_options;
  };
  for (const std::string& f : o.files) {
    try {
      std::string text;
      if (f == "-") {
        if (o.input == nullptr) {
          throw Error("check: no standard input to read");
        }
        text = read_bounded_stream(*o.input, kMaxDeploymentBytes, "standard input");
      } else {
        text = read_bounded_file(f, kMaxDeploymentBytes, "deployment file");
      }
      const std::string name = f == "-" ? std::string("stdin") : f;
      if (!is_manifest(f, text)) {
        outcomes.push_back(check_one(read_deployment_text(text, name, o.strict), margin));
        continue;
      }
      const std::vector<ManifestEntry> entries = read_manifest_text(text, name, manifest_opts());
      if (entries.empty()) {
        empty_files.push_back(name);
      }
      for (const ManifestEntry& m : entries) {
        if (m.deployment) {
          Outcome x = check_one(*m.deployment, margin);
          x.warnings.insert(x.warnings.begin(), m.warnings.begin(), m.warnings.end());
          outcomes.push_back(std::move(x));
        } else {
          Outcome bad;
          bad.origin = m.origin;
          bad.name = m.name;
          bad.line = m.line;
          bad.warnings = m.warnings;
          bad.error = m.error;
          outcomes.push_back(std::move(bad));
        }
      }
    } catch (const Error& e) {
      Outcome bad;
      bad.origin = f;
      bad.error = one_line(e.what());
      outcomes.push_back(std::move(bad));
    }
  }
  if (outcomes.empty() && o.command.empty()) {
    std::string forms;
    for (const Engine* e : all_engines()) {
      for (std::string_view f : e->command_examples()) {
        forms += (forms.empty() ? "" : ", ") + std::string(f);
      }
    }
    throw Error(fmt::format("check: nothing to check in {}: no serving container (kvplan reads containers that run "
                            "{}, or an engine's image)",
                            o.files.size() == 1 ? empty_files.front() : "these files", forms));
  }
  for (const std::string& f : empty_files) {
    err << fmt::format("kvplan: warning: {}: no serving container (no image or command of an engine kvplan reads); "
                       "nothing to check there\n",
                       f);
  }
  if (!o.command.empty()) {
    const std::string label = command_label(o.command);
    try {
      CommandContext ctx;
      const Given g = given(o);
      ctx.hardware = g.hardware;
      ctx.model = g.model;
      if (!o.engine.empty()) {
        ctx.engine = parse_engine(o.engine);
      }
      ctx.strict = o.strict;
      Deployment d;
      d.request = read_command_line(o.command, ctx);
      if (!o.weight_dtype.empty() && o.weight_dtype != "auto" && !d.request.weights) {
        d.request.weights = weight_format(d.request.model_spec(), o.weight_dtype);
        d.request.weights_label = o.weight_dtype;
      }
      if (!o.kv_dtype.empty() && o.kv_dtype != "auto" && !d.request.kv_dtype) {
        d.request.kv_dtype = require_dtype(kv_dtypes(), "--kv-dtype", o.kv_dtype);
      }
      if (!ctx.hardware) {
        throw Error("check: say which GPU the command runs on with --gpu NAME[xCOUNT] (or --vram SIZE) before the '--'");
      }
      d.origin = label;
      d.concurrency = o.concurrency.empty() ? 1 : parse_count("--concurrency", o.concurrency, 10'000'000);
      if (!o.seq_len.empty()) {
        d.context_length = parse_tokens("--seq-len", o.seq_len);
      }
      outcomes.push_back(check_one(std::move(d), margin));
    } catch (const Error& e) {
      if (o.files.empty()) {
        throw;  // the only deployment: its error is the command's
      }
      Outcome bad;
      bad.origin = label;
      bad.error = one_line(e.what());
      outcomes.push_back(std::move(bad));
    }
  }
  if (outcomes.size() == 1 && o.command.empty() && !outcomes.front().result) {
    throw Error(outcomes.front().error);  // one file, unreadable: one error line, exit 2
  }
  if (o.format == "json") {
    print_json(outcomes, out);
  } else if (o.format == "github") {
    print_github(outcomes, out);
  } else if (o.format == "sarif") {
    print_sarif(outcomes, out);
  } else {
    print_text(outcomes, out, o.view);
  }
  bool any_error = false;
  bool any_fail = false;
  for (const Outcome& x : outcomes) {
    any_error = any_error || !x.result;
    any_fail = any_fail || (x.result && !x.result->verdict.fits);
  }
  return any_error ? 2 : any_fail ? 1 : 0;
}

}  // namespace kvplan::cli
