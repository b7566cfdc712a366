// Builds the CLI11 app, parses, dispatches, and is the one place that catches kvplan::Error:
// "kvplan: error: <message>", exit 2. "Nothing fits" is not an error: the plan exits 1.
#include <algorithm>
#include <fmt/format.h>
#include <functional>
#include <iostream>
#include <ostream>

#include "commands.hpp"
#include "kvplan/cli.hpp"
#include "kvplan/error.hpp"
#include "kvplan/quantity.hpp"
#include "kvplan/text.hpp"

namespace kvplan::cli {
namespace {

// --help's footer: sizes, exit codes, the examples (docs_command.cpp) and the options of every command.
std::string footer() {
  std::string s =
      "\nSizes: 80GB = 80 x 10^9 B, 80GiB = 80 x 2^30 B; also MB/MiB, TB/TiB. Tokens: 8192, 8k, 128K (k = 1024).\n"
      "Exit codes: 0 the plan fits, 1 nothing fits (the report says what would), 2 bad input.\nExamples:\n";
  for (const auto& [command, what] : examples()) {
    s += fmt::format("  {}\n      {}\n", command, what);
  }
  s += "Any command: --width N fits the text to N columns (default: the terminal's, at least 80; 0: no limit),\n"
       "--color never|auto|always colours verdicts (auto: on a terminal, unless NO_COLOR is set).";
  return s;
}

// The commands that take `flag` (a long option): "kvplan" for the plan itself, else the subcommand's name.
// Built only when a parse has failed: every command's options, set up afresh.
std::vector<std::string> commands_taking(const std::string& flag) {
  CLI::App app{"", "kvplan"};
  PlanOptions plan;
  setup_plan(app, plan, nullptr);
  std::vector<std::string> out;
  const auto takes = [&](const CLI::App& a) {
    for (const CLI::Option* o : a.get_options()) {
      for (const std::string& n : o->get_lnames()) {
        if ("--" + n == flag) {
          return true;
        }
      }
    }
    return false;
  };
  if (takes(app)) {
    out.emplace_back("kvplan");
  }
  PlanOptions emit;
  CheckOptions check;
  SimulateOptions simulate;
  SweepOptions sweep;
  ModelsOptions models;
  GpusOptions gpus;
  const std::pair<const char*, std::function<void(CLI::App&)>> subs[] = {
      {"emit", [&](CLI::App& a) { setup_plan(a, emit, nullptr); }},
      {"simulate", [&](CLI::App& a) { setup_simulate(a, simulate); }},
      {"sweep", [&](CLI::App& a) { setup_sweep(a, sweep); }},
      {"check", [&](CLI::App& a) { setup_check(a, check); }},
      {"models", [&](CLI::App& a) { setup_models(a, models); }},
      {"gpus", [&](CLI::App& a) { setup_gpus(a, gpus); }},
  };
  for (const auto& [name, setup] : subs) {
    CLI::App a{"", name};
    setup(a);
    if (takes(a)) {
      out.emplace_back(name);
    }
  }
  return out;
}

// Why a plan flag is not one of this subcommand's, where the reason is more than "it is not".
std::string why_not_here(std::string_view command) {
  if (command == "sweep") {
    return ": a sweep plans every point at the engine's defaults, --utilization and --max-model-len";
  }
  if (command == "check") {
    return ": check reads the settings from the deployment (its files, or the engine's command line after '--', "
           "in the engine's own flags)";
  }
  return "";
}

// CLI11's "arguments were not expected: x --modle" becomes "unknown option '--modle', did you
// mean '--model'?", with the suggestion drawn from the app's own option and subcommand names; a
// flag another command takes says which ones do, never "did you mean" itself.
std::string explain_parse_error(const CLI::App& app, const std::string& message) {
  const std::string marker = "not expected: ";
  const std::size_t at = message.find(marker);
  if (at == std::string::npos) {
    return message + " (see 'kvplan --help')";
  }
  std::vector<std::string> words;
  std::string rest = message.substr(at + marker.size());
  for (std::size_t start = 0; start < rest.size();) {
    const std::size_t end = std::min(rest.find(' ', start), rest.size());
    words.push_back(rest.substr(start, end - start));
    start = end + 1;
  }
  std::vector<std::string> names;
  for (const CLI::Option* o : app.get_options()) {
    for (const std::string& n : o->get_lnames()) {
      names.push_back("--" + n);
    }
  }
  std::string command = "kvplan";
  for (const CLI::App* s : app.get_subcommands()) {
    command = s->get_name();
    names.clear();
    for (const CLI::Option* o : s->get_options()) {
      for (const std::string& n : o->get_lnames()) {
        names.push_back("--" + n);
      }
    }
  }
  for (const std::string& w : words) {
    if (!w.empty() && w.front() == '-') {
      const std::string flag = w.substr(0, w.find('='));
      if (flag.rfind("--", 0) == 0) {
        const std::vector<std::string> takers = commands_taking(flag);
        if (!takers.empty()) {
          std::string list;
          for (std::size_t i = 0; i < takers.size(); ++i) {
            list += (i == 0 ? "" : i + 1 == takers.size() ? " and " : ", ") +
                    (takers[i] == "kvplan" ? std::string("kvplan (a plan)") : "kvplan " + takers[i]);
          }
          return fmt::format("{} does not apply to {}{}; it applies to {} (see '{} --help')", quote_input(flag),
                             command == "kvplan" ? "a plan" : "kvplan " + command, why_not_here(command), list,
                             command == "kvplan" ? "kvplan" : "kvplan " + command);
        }
      }
      return fmt::format("unknown option {}{} (see 'kvplan{} --help')", quote_input(flag), did_you_mean(flag, names),
                         command == "kvplan" ? "" : " " + command);
    }
  }
  return fmt::format("unexpected argument {} (see 'kvplan --help')", quote_input(words.empty() ? rest : words.back()));
}

// An option given an empty value ("--trace ''") is refused, never read as "not given": every
// option's default is what its absence means, so an empty value would be a silent guess.
void refuse_empty_values(const CLI::App& app) {
  const std::string command = app.get_name() == "kvplan" ? "kvplan" : "kvplan " + app.get_name();
  for (const CLI::Option* o : app.get_options()) {
    if (o->count() == 0) {
      continue;
    }
    for (const std::string& v : o->results()) {
      if (v.empty() && o->get_items_expected_max() > 0) {
        const std::string name = o->get_lnames().empty() ? o->get_name() : "--" + o->get_lnames().front();
        throw Error(o->get_lnames().empty()
                        ? fmt::format("{}: an empty argument where {} go; give a value", command, name)
                        : fmt::format("{}: the value is empty; give one, or leave {} out for its default", name, name));
      }
    }
  }
  for (const CLI::App* sub : app.get_subcommands()) {
    refuse_empty_values(*sub);
  }
}

}  // namespace

const char* version() { return KVPLAN_VERSION; }

namespace {

// Thrown by a lean parse (no knob flags registered) that met something it could not read: run()
// parses again with every option, so help, typos and knob flags read as they always do.
struct FullSetupNeeded {};

int run_app(const std::vector<std::string>& args, std::istream& in, std::ostream& out, std::ostream& err, bool lean,
            const View& view) {
  CLI::App app{"kvplan: plan the KV-cache memory of LLM inference before you deploy.", "kvplan"};
  app.footer(std::function<std::string()>(footer));  // built only when help is printed
  app.set_version_flag("--version", fmt::format("kvplan {} (model catalog {})", KVPLAN_VERSION, KVPLAN_CATALOG_DATE));
  PlanOptions plan;
  setup_plan(app, plan, lean ? &args : nullptr);
  // A subcommand's options are set up only when its name is among the arguments (or for
  // 'generate', which writes every subcommand's options into the man page and completions):
  // CLI11 checks each new option against every earlier one, and a plan need not pay for them all.
  const bool everything = std::find(args.begin(), args.end(), "generate") != args.end() ||
                          (!args.empty() && args.front() == "completion");
  const auto wanted = [&](const char* name) {
    return everything || std::find(args.begin(), args.end(), name) != args.end();
  };
  ModelsOptions models;
  CLI::App* models_cmd = app.add_subcommand("models", "List the built-in models, or show one: models show NAME");
  if (wanted("models")) {
    setup_models(*models_cmd, models);
  }
  CheckOptions check;
  CLI::App* check_cmd = app.add_subcommand(
      "check", "Will these deployments fit? Deployment files, or an engine's command line after '--'; exit 1 if any fails");
  if (wanted("check")) {
    setup_check(*check_cmd, check);
    check.input = &in;
  }
  PlanOptions emit;
  CLI::App* emit_cmd = app.add_subcommand("emit", "Print the engine's launch command that realizes the plan "
                                                  "(--engine, --seq-len and --concurrency required)");
  if (wanted("emit")) {
    setup_plan(*emit_cmd, emit, lean ? &args : nullptr);
  }
  SimulateOptions simulate;
  CLI::App* simulate_cmd =
      app.add_subcommand("simulate", "Compare paged and contiguous KV allocation under a request stream");
  if (wanted("simulate")) {
    setup_simulate(*simulate_cmd, simulate);
  }
  SweepOptions sweep;
  CLI::App* sweep_cmd = app.add_subcommand("sweep", "Plan a grid of models x GPUs x counts x KV dtypes x PP x lengths");
  if (wanted("sweep")) {
    setup_sweep(*sweep_cmd, sweep);
  }
  GpusOptions gpus;
  CLI::App* gpus_cmd = app.add_subcommand("gpus", "List the built-in GPUs with the memory they report");
  if (wanted("gpus")) {
    setup_gpus(*gpus_cmd, gpus);
  }
  GenerateOptions completion;
  CLI::App* completion_cmd = app.add_subcommand("completion", "Print a shell completion script: completion bash|zsh|fish");
  completion_cmd->add_option("shell", completion.what, "bash, zsh or fish")->required();
  GenerateOptions generate;
  CLI::App* generate_cmd = app.add_subcommand("generate", "Print the man page or a shell completion script");
  generate_cmd->group("");  // hidden: the build uses it, users get the installed files
  setup_generate(*generate_cmd, generate);
  app.require_subcommand(0, 1);
  try {
    std::vector<std::string> own = args;
    if (const auto dash = std::find(own.begin(), own.end(), "--"); dash != own.end() && !own.empty() &&
                                                                    own.front() == "check") {
      check.command.assign(dash + 1, own.end());  // the engine's command line is not kvplan's to parse
      own.erase(dash, own.end());
    }
    std::vector<std::string> reversed(own.rbegin(), own.rend());  // CLI11 2.1 parses a reversed vector
    app.parse(reversed);
    refuse_empty_values(app);
    plan.view = view;
    models.view = view;
    check.view = view;
    simulate.plan.view = view;
    gpus.view = view;
    sweep.view = view;
    if (models_cmd->parsed()) {
      return run_models(models, out);
    }
    if (generate_cmd->parsed()) {
      return run_generate(app, generate, out);
    }
    if (completion_cmd->parsed()) {
      if (completion.what != "bash" && completion.what != "zsh" && completion.what != "fish") {
        throw Error(fmt::format("completion: unknown shell {}{} (bash, zsh or fish)", quote_input(completion.what),
                                did_you_mean(completion.what, {"bash", "zsh", "fish"})));
      }
      return run_generate(app, completion, out);
    }
    if (check_cmd->parsed()) {
      return run_check(check, out, err);
    }
    if (emit_cmd->parsed()) {
      return run_emit(emit, out);
    }
    if (simulate_cmd->parsed()) {
      return run_simulate(simulate, out);
    }
    if (sweep_cmd->parsed()) {
      return run_sweep(sweep, out);
    }
    if (gpus_cmd->parsed()) {
      return run_gpus(gpus, out);
    }
    return run_plan(plan, out, err);
  } catch (const CLI::CallForHelp&) {
    out << app.help();
    return 0;
  } catch (const CLI::CallForAllHelp&) {
    out << app.help("", CLI::AppFormatMode::All);
    return 0;
  } catch (const CLI::CallForVersion&) {
    out << app.version() << '\n';
    return 0;
  } catch (const CLI::ParseError& e) {
    if (lean) {
      throw FullSetupNeeded{};  // nothing is printed yet: parse again with every option
    }
    err << "kvplan: error: " << one_line(explain_parse_error(app, e.what())) << '\n';
    return 2;
  } catch (const Error& e) {
    err << "kvplan: error: " << one_line(e.what()) << '\n';
    return 2;
  } catch (const std::exception& e) {
    err << "kvplan: internal error: " << one_line(e.what()) << "; please report this\n";
    return 2;
  }
}

}  // namespace

int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  return run(args, std::cin, out, err);
}

namespace {

// --width N and --color WHEN, taken out of the arguments wherever they stand before "--" (they
// apply to every command), and the layout they and the terminal make.
View take_view(std::vector<std::string>& args, const Terminal& terminal) {
  std::optional<std::string> width;
  std::optional<std::string> color_given;
  for (std::size_t i = 0; i < args.size() && args[i] != "--";) {
    const std::string a = args[i];
    const bool is_width = a == "--width" || a.rfind("--width=", 0) == 0;
    const bool is_color = a == "--color" || a.rfind("--color=", 0) == 0;
    if (!is_width && !is_color) {
      ++i;
      continue;
    }
    const std::string flag = is_width ? "--width" : "--color";
    std::size_t taken = 1;
    std::string value;
    if (a == flag) {
      if (i + 1 >= args.size() || args[i + 1] == "--") {
        throw Error(fmt::format("{} needs a value ({})", flag,
                                is_width ? "columns, 0 for no limit" : "never, auto or always"));
      }
      value = args[i + 1];
      taken = 2;
    } else {
      value = a.substr(flag.size() + 1);
    }
    (is_width ? width : color_given) = value;
    args.erase(args.begin() + static_cast<std::ptrdiff_t>(i), args.begin() + static_cast<std::ptrdiff_t>(i + taken));
  }
  const std::string color = color_given.value_or("auto");
  View view;
  if (width) {
    const std::uint64_t n = *width == "0" ? 0 : parse_count("--width", *width, 10'000);
    if (n != 0 && n < 80) {
      throw Error(fmt::format("--width {}: kvplan lays its text out in at least 80 columns; give 80 or more (0: no "
                              "limit)",
                              n));
    }
    view.width = n;
  } else if (terminal.columns > 0) {
    view.width = std::max<std::size_t>(80, terminal.columns);
  }
  if (color == "always") {
    view.color = true;
  } else if (color == "auto") {
    view.color = terminal.tty && !terminal.no_color;
  } else if (color != "never") {
    throw Error(fmt::format("--color {}: expected never, auto or always{}", quote_input(color),
                            did_you_mean(color, {"never", "auto", "always"})));
  }
  return view;
}

}  // namespace

int run(const std::vector<std::string>& args, std::istream& in, std::ostream& out, std::ostream& err) {
  return run(args, in, out, err, Terminal{});
}

int run(const std::vector<std::string>& given, std::istream& in, std::ostream& out, std::ostream& err,
        const Terminal& terminal) {
  std::vector<std::string> args = given;
  View view;
  try {
    view = take_view(args, terminal);
  } catch (const Error& e) {
    err << "kvplan: error: " << one_line(e.what()) << '\n';
    return 2;
  }
  // `kvplan` alone: what it does and the commands people start with, not an error.
  if (args.empty()) {
    out << "kvplan: plan the KV-cache memory of LLM inference before you deploy.\n\n"
           "  kvplan --model llama3-70b --gpu H100x4        what fits: concurrency by context, longest context\n"
           "  kvplan --model llama3-70b --gpu H100 --engine NAME\n"
           "                                                what that engine will allocate, in its logs' terms\n"
           "  kvplan check deploy/*.yaml                    will these deployments fit? (CI: docs/ci.md)\n"
           "  kvplan check --gpu H100x4 -- COMMAND LINE     the same for an engine's own command line\n"
           "  kvplan sweep --model all --gpu H100,H200      a grid of plans as CSV\n"
           "  kvplan models, kvplan gpus                    the built-in catalogs\n\n"
           "kvplan --help lists every option.\n";
    return 0;
  }
  // A first word that is no option and no command, but close to a command: say which.
  if (!args.front().empty() && args.front().front() != '-') {
    static const std::vector<std::string> kCommands{"models", "check", "emit", "simulate", "sweep", "gpus", "completion"};
    if (std::find(kCommands.begin(), kCommands.end(), args.front()) == kCommands.end() && args.front() != "generate") {
      const std::string hint = did_you_mean(args.front(), kCommands);
      if (!hint.empty()) {
        err << "kvplan: error: unknown command " << quote_input(args.front()) << hint
            << " (see 'kvplan --help')\n";
        return 2;
      }
    }
  }
  // Help and 'generate' show every option; anything else is parsed first with only the knob flags
  // it names, and again with every option when that lean parse meets one it does not know.
  const bool lean = std::none_of(args.begin(), args.end(), [](const std::string& a) {
    return a == "generate" || a == "-h" || a == "--help" || a == "--help-all";
  });
  if (lean) {
    try {
      return run_app(args, in, out, err, true, view);
    } catch (const FullSetupNeeded&) {
    }
  }
  return run_app(args, in, out, err, false, view);
}

}  // namespace kvplan::cli
