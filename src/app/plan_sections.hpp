// The parts of the plan report beyond its core sections: comparison tables, --explain, the "nothing
// fits" advice, the inverse questions, engine sections and pipeline stages (src/app only).
#pragma once

#include <string>
#include <vector>

#include "kvplan/plan.hpp"

namespace kvplan {

std::vector<Section> comparison_sections(const PlanInputs& in, const Evaluation& e);
Section explain_section(const PlanInputs& in, const Evaluation& e);
/// The engine's prediction for `in` at `shape` (plan_engine.cpp).
EnginePrediction run_engine(const PlanInputs& in, const Deployment& shape);
/// The budget section in the engine's own terms, and the engine section with its log lines.
Section engine_budget_section(const PlanInputs& in, const Evaluation& e);
Section engine_section(const PlanInputs& in, const Evaluation& e);
/// With pipeline parallelism: the stage table in `stages`, and the bottleneck stage's inputs.
PlanInputs bottleneck_stage(const PlanInputs& in, Section& stages);

/// For --batch N and --seq-len L: the smallest engine knob and the fewest GPUs that serve them.
Section inverse_section(const PlanInputs& in);
std::vector<std::string> advice(const PlanInputs& in, const Evaluation& e);

}  // namespace kvplan
