// Hugging Face config.json -> neutral hyper-parameters (kvplan/hparams.hpp) -> ModelSpec by the
// architecture table (kvplan/arch.hpp). This file knows JSON and text_config nesting; the rules
// that turn hyper-parameters into layers and parameters live in arch_table.cpp and arch_build.cpp.
#include "kvplan/config_reader.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "json_fields.hpp"
#include "kvplan/arch.hpp"
#include "kvplan/error.hpp"
#include "kvplan/hparams.hpp"
#include "kvplan/text.hpp"
#include "kvplan/units.hpp"

namespace kvplan {
namespace {

using nlohmann::json;

constexpr std::uint64_t kMaxLayers = 10'000;
constexpr std::uint64_t kMaxDim = 1 << 20;

// JSON -> HValue, keeping JSON's distinctions (unsigned, negative, real). The text was pre-scanned
// for depth (parse_json_text), so the recursion is at most kMaxJsonDepth deep.
HValue to_hvalue(const json& j) {
  switch (j.type()) {
    case json::value_t::null:
    case json::value_t::discarded:
      return HValue{};
    case json::value_t::boolean:
      return HValue{j.get<bool>()};
    case json::value_t::number_unsigned:
      return HValue{j.get<std::uint64_t>()};
    case json::value_t::number_integer:
      return HValue{j.get<std::int64_t>()};
    case json::value_t::number_float:
      return HValue{j.get<double>()};
    case json::value_t::string:
      return HValue{j.get<std::string>()};
    case json::value_t::array: {
      HList list;
      list.reserve(j.size());
      for (const json& v : j) {
        list.push_back(to_hvalue(v));
      }
      return HValue{std::move(list)};
    }
    case json::value_t::object:
    case json::value_t::binary:
      break;
  }
  HObject o;
  if (j.is_object()) {
    o.entries.reserve(j.size());
    for (const auto& [k, v] : j.items()) {
      o.entries.push_back(HEntry{k, to_hvalue(v)});
    }
  }
  return HValue{std::move(o)};
}

// A SigLIP vision tower (transformers SiglipVisionModel, no pooling head) and Gemma 3's projector:
// patch conv + position table + layers of attention (4 square projections with biases), MLP
// (two projections with biases) and two LayerNorms, then a post LayerNorm; the projector maps
// vision hidden to text hidden (mm_input_projection) after an RMSNorm (mm_soft_emb_norm).
std::uint64_t vision_params(const HFields& top, std::uint64_t text_hidden) {
  const std::optional<HFields> child = top.child("vision_config");
  if (!child) {
    return 0;
  }
  const HFields& vf = *child;
  const std::string type = vf.string("model_type").value_or("");
  if (type != "siglip_vision_model") {
    vf.fail("model_type", fmt::format("kvplan cannot count the parameters of vision tower {}", quote_input(type)));
  }
  if (vf.boolean("vision_use_head").value_or(true)) {
    vf.fail("vision_use_head", "a SigLIP pooling head is not modelled");
  }
  const std::uint64_t h = vf.require_uint("hidden_size", 1, kMaxDim);
  const std::uint64_t ffn = vf.require_uint("intermediate_size", 1, kMaxDim);
  const std::uint64_t layers = vf.require_uint("num_hidden_layers", 1, kMaxLayers);
  const std::uint64_t patch = vf.require_uint("patch_size", 1, 1024);
  const std::uint64_t image = vf.require_uint("image_size", patch, 1 << 16);
  const std::uint64_t channels = vf.uint("num_channels", 1, 16).value_or(3);
  const std::uint64_t positions = (image / patch) * (image / patch);
  const std::uint64_t per_layer = 4 * (h * h + h) + (h * ffn + ffn) + (ffn * h + h) + 2 * 2 * h;
  return channels * patch * patch * h + h + positions * h + layers * per_layer + 2 * h + h * text_hidden + h;
}

std::string weight_dtype_name(const HFields& f, const HFields& top) {
  const std::string t = f.string("torch_dtype").value_or(top.string("torch_dtype").value_or(
      f.string("dtype").value_or(top.string("dtype").value_or("bfloat16"))));
  if (t == "float16") {
    return "fp16";
  }
  if (t == "bfloat16" || t == "float32") {  // engines load fp32 checkpoints in bf16 (vLLM dtype "auto")
    return "bf16";
  }
  f.fail("torch_dtype", fmt::format("unknown dtype {} (expected bfloat16, float16 or float32)", quote_input(t)));
}

}  // namespace

std::string supported_model_types() {
  std::string out;
  for (const ArchRow& r : arch_rows()) {
    out += out.empty() ? "" : ", ";
    out += r.model_type;
  }
  return out;
}

ModelSpec read_hf_config(const json& config, std::string_view name, std::string_view origin) {
  if (!config.is_object()) {
    throw Error(fmt::format("{}: /: expected a JSON object", origin));
  }
  HValue root = to_hvalue(config);
  HObject& top_object = std::get<HObject>(root.v);
  const HFields top(top_object, std::string(origin), "");
  // A multimodal or wrapper config keeps the text backbone in text_config (Gemma 3, Mistral 3,
  // Qwen2.5-VL, Llama 4); a config with num_hidden_layers at the top is its own backbone.
  HObject* text_object = nullptr;
  if (HValue* t = top_object.find("text_config"); t != nullptr && !t->is_null() && top_object.find("num_hidden_layers") == nullptr) {
    text_object = std::get_if<HObject>(&t->v);
    if (text_object == nullptr) {
      top.fail("text_config", fmt::format("must be an object, not {}", t->type_name()));
    }
  }
  const bool nested = text_object != nullptr;
  std::string type;
  if (nested) {
    const HFields text(*text_object, std::string(origin), "/text_config");
    type = text.string("model_type").value_or(top.string("model_type").value_or(""));
  } else {
    type = top.string("model_type").value_or("");
  }
  if (type.empty()) {
    top.fail("model_type", "is required to know how the layers are laid out");
  }
  if (nested && type == "gemma3") {
    type = "gemma3_text";
  }
  const ArchRow* row = find_arch(type);
  if (row == nullptr) {
    std::string arch;
    if (const HList* a = top.list("architectures"); a != nullptr && !a->empty()) {
      if (const auto* s = std::get_if<std::string>(&a->front().v)) {
        arch = fmt::format(" ({})", *s);
      }
    }
    const HFields where = nested ? HFields(*text_object, std::string(origin), "/text_config") : top;
    throw Error(fmt::format("{}: kvplan cannot size model_type {}{}: its cache layout is not modelled "
                            "(supported: {}); nothing is guessed",
                            where.where("model_type"), quote_input(type), arch, supported_model_types()));
  }
  HObject& backbone = nested ? *text_object : top_object;
  const std::vector<std::string> filled = apply_defaults(backbone, *row);
  const HFields f(backbone, std::string(origin), nested ? "/text_config" : "");
  const HFields top_fields(top_object, std::string(origin), "");
  ModelSpec m = build_model(f, top_fields, *row, name);
  if (!filled.empty()) {
    std::string keys;
    for (const std::string& k : filled) {
      keys += (keys.empty() ? "" : ", ") + k;
    }
    const std::string_view cls = row->config_class.substr(0, row->config_class.find(' '));
    m.defaults_note = fmt::format("{} ({} defaults)", keys, cls);
  }
  m.params.vision = nested ? vision_params(top_fields, m.hidden_size) : 0;
  m.torch_dtype = weight_dtype_name(f, top_fields);
  if (const std::optional<HFields> qf = top_fields.child("quantization_config")) {
    const std::string method = qf->string("quant_method").value_or("");
    if (method == "fp8") {
      m.checkpoint_weight_dtype = "fp8";  // DeepSeek-V3 ships e4m3 weights with 128x128 block scales
    } else if (method == "mxfp4") {
      m.expert_weight_dtype = "mxfp4";    // gpt-oss: MoE experts in MXFP4, the rest in bf16
    } else if ((method == "gptq" || method == "awq") && qf->uint("bits", 1, 16).value_or(0) == 4) {
      m.checkpoint_weight_dtype = "int4";
    } else {
      m.checkpoint_weight_dtype = "unknown:" + method;
    }
  }
  return m;
}

ModelSpec read_hf_config_text(std::string_view text, std::string_view name, std::string_view origin) {
  return read_hf_config(parse_json_text(text, origin), name, origin);
}

}  // namespace kvplan
