// Vision and audio tower parameters by family (src/app/towers.cpp). Private to src/app.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kvplan/hparams.hpp"
#include "kvplan/model.hpp"

namespace kvplan {

struct TowerCount {
  std::uint64_t params = 0;             // every tower kvplan can count, with its projector
  std::vector<std::string> uncounted;   // towers of a family it cannot count ("vision tower 'moonvit3d'")
  std::optional<VisionEncoder> encoder;  // the vision tower's profiling shape, where kvplan knows it
};

/// The towers of a multimodal config (`top`: the file's top level; `wrapper`: its model_type) and
/// their projectors into a text model of `text_hidden` units.
TowerCount count_towers(const HFields& top, std::string_view wrapper, std::uint64_t text_hidden);

}  // namespace kvplan
