// Issue #12: one set of plan flags on every subcommand that plans (plan, emit, simulate, sweep,
// check), defined once; a plan flag a subcommand does not take is an error that says where it applies.
#include <catch2/catch.hpp>
#include <map>
#include <sstream>
#include <string>

#include "commands.hpp"
#include "kvplan/cli.hpp"

namespace {

// Each option of an app by each of its long names.
std::map<std::string, const CLI::Option*> by_long_name(const CLI::App& app) {
  std::map<std::string, const CLI::Option*> out;
  for (const CLI::Option* o : app.get_options()) {
    for (const std::string& n : o->get_lnames()) {
      out.emplace("--" + n, o);
    }
  }
  return out;
}

}  // namespace

TEST_CASE("the subcommands that plan share one definition of each plan flag", "[cli][flags]") {
  CLI::App plan_app{"", "kvplan"};
  kvplan::cli::PlanOptions plan;
  kvplan::cli::setup_plan(plan_app, plan);
  CLI::App emit_app{"", "emit"};
  kvplan::cli::PlanOptions emit;
  kvplan::cli::setup_plan(emit_app, emit);
  CLI::App simulate_app{"", "simulate"};
  kvplan::cli::SimulateOptions simulate;
  kvplan::cli::setup_simulate(simulate_app, simulate);
  CLI::App sweep_app{"", "sweep"};
  kvplan::cli::SweepOptions sweep;
  kvplan::cli::setup_sweep(sweep_app, sweep);
  CLI::App check_app{"", "check"};
  kvplan::cli::CheckOptions check;
  kvplan::cli::setup_check(check_app, check);

  const auto planned = by_long_name(plan_app);
  const auto emitted = by_long_name(emit_app);
  const auto simulated = by_long_name(simulate_app);
  const auto swept = by_long_name(sweep_app);
  const auto checked = by_long_name(check_app);
  REQUIRE(planned.size() > 20);
  for (const auto& [name, o] : planned) {
    INFO(name);
    // emit and simulate plan exactly as a plan does: the same option, names and help alike.
    for (const auto* table : {&emitted, &simulated}) {
      REQUIRE(table->count(name) == 1);
      CHECK(table->at(name)->get_name() == o->get_name());
      CHECK(table->at(name)->get_description() == o->get_description());
    }
    // sweep takes lists and check reads a deployment: where they take a plan flag, its short
    // alias is the same (-m, -g, -s, -e mean one thing everywhere); where not, it is refused by name.
    for (const auto& [command, table] : {std::pair{"sweep", &swept}, std::pair{"check", &checked}}) {
      if (table->count(name) == 1) {
        CHECK(table->at(name)->get_snames() == o->get_snames());
        continue;
      }
      std::ostringstream out;
      std::ostringstream err;
      std::istringstream in;
      CHECK(kvplan::cli::run({command, name, "1"}, in, out, err) == 2);
      CHECK_THAT(err.str(), Catch::Contains(std::string("does not apply to kvplan ") + command) &&
                                Catch::Contains("it applies to kvplan (a plan)"));
    }
  }
}
