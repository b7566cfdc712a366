// The parts of the plan beyond its core (src/app only): the fixes and the inverse searches, and the
// sections describe() builds.
#pragma once

#include <string>
#include <vector>

#include "kvplan/plan.hpp"

namespace kvplan {

/// The fixes for a result that does not fit, each planned and confirmed to fit (plan_fixes.cpp).
std::vector<Fix> find_fixes(const PlanResult& result);
/// The smallest fraction and the fewest GPUs that serve the request's shape (plan_inverse.cpp).
Inverse find_inverse(const PlanRequest& request, const Resolved& r);
/// `request` with `change` applied.
PlanRequest apply(const PlanRequest& request, const Change& change);

// Sections of the report (plan_describe.cpp, plan_compare.cpp).
std::vector<Section> comparison_sections(const PlanResult& result);
Section explain_section(const PlanResult& result);
Section inverse_section(const PlanResult& result);
std::vector<std::string> advice(const PlanResult& result);

}  // namespace kvplan
