// The parts of the plan beyond its core (src/app only): the fixes and the inverse searches, and the
// sections describe() builds.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
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
/// The smallest value in [lo, hi] whose change serves the request, for a knob that never serves less as it
/// grows (a bisection); nullopt when even `hi` does not (plan_inverse.cpp).
std::optional<std::uint64_t> smallest(const PlanRequest& request, std::uint64_t lo, std::uint64_t hi,
                                      const std::function<Change(std::uint64_t)>& change);

// Sections of the report (plan_describe.cpp, plan_compare.cpp).
std::vector<Section> comparison_sections(const PlanResult& result);
Section explain_section(const PlanResult& result);
Section inverse_section(const PlanResult& result);
std::vector<std::string> advice(const PlanResult& result);

}  // namespace kvplan
