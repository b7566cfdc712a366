// The plan's comparison tables (attention, KV dtype, allocation), its --explain steps and its
// "nothing fits" advice (src/app only).
#pragma once

#include <string>
#include <vector>

#include "kvplan/plan.hpp"

namespace kvplan {

std::vector<Section> comparison_sections(const PlanInputs& in, const Evaluation& e);
Section explain_section(const PlanInputs& in, const Evaluation& e);
/// For --batch N and --seq-len L: the smallest engine knob and the fewest GPUs that serve them.
Section inverse_section(const PlanInputs& in);
std::vector<std::string> advice(const PlanInputs& in, const Evaluation& e);

}  // namespace kvplan
