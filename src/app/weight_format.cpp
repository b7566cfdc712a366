// Dtype names with "did you mean", and the weight layout a checkpoint or --weight-dtype implies.
#include <fmt/format.h>

#include "kvplan/error.hpp"
#include "kvplan/plan.hpp"
#include "kvplan/text.hpp"

namespace kvplan {

DType require_dtype(std::span<const DType> table, std::string_view option, std::string_view name) {
  if (const DType* t = find_dtype(table, name)) {
    return *t;
  }
  std::vector<std::string> names;
  std::string list;
  for (const DType& t : table) {
    names.emplace_back(t.name);
    list += (list.empty() ? "" : ", ") + std::string(t.name);
  }
  throw Error(fmt::format("{}: unknown dtype {}{} (one of: {})", option, quote_input(name), did_you_mean(name, names), list));
}

WeightFormat weight_format(const ModelSpec& m, std::string_view name) {
  const DType sixteen = require_dtype(weight_dtypes(), "--weight-dtype", m.torch_dtype);
  std::string_view linear = name;
  std::string_view experts = name;
  if (name == "auto") {
    if (m.checkpoint_weight_dtype.rfind("unknown:", 0) == 0) {
      throw Error(fmt::format("the checkpoint's quantization {} is not modelled; say how its weights are stored "
                              "with --weight-dtype (bf16, fp8, int8, int4, ...)",
                              quote_input(m.checkpoint_weight_dtype.substr(8))));
    }
    linear = m.checkpoint_weight_dtype.empty() ? std::string_view(m.torch_dtype) : m.checkpoint_weight_dtype;
    experts = m.expert_weight_dtype.empty() ? linear : std::string_view(m.expert_weight_dtype);
  }
  WeightFormat w{sixteen, require_dtype(weight_dtypes(), "--weight-dtype", linear),
                 require_dtype(weight_dtypes(), "--weight-dtype", experts), std::nullopt};
  if (name == "auto" && !m.attention_weight_dtype.empty()) {
    w.attention = require_dtype(weight_dtypes(), "--weight-dtype", m.attention_weight_dtype);
  }
  w.skip_list = name == "auto";
  if (w.linear.block_bytes * sixteen.block_elems >= sixteen.block_bytes * w.linear.block_elems) {
    w.embeddings = w.linear;  // 16- and 32-bit formats apply to every tensor
  }
  return w;
}

}  // namespace kvplan
