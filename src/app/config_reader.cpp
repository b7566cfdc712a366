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
#include "towers.hpp"

namespace kvplan {
namespace {

using nlohmann::json;


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

// A pattern of an ignore list (compressed-tensors "ignore", AWQ modules_to_not_convert, ModelOpt
// exclude_modules, bitsandbytes llm_int8_skip_modules) that names the attention projections.
bool names_attention(const HList* list) {
  if (list == nullptr) {
    return false;
  }
  for (const HValue& v : *list) {
    if (const auto* s = std::get_if<std::string>(&v.v)) {
      if (s->find("self_attn") != std::string::npos || s->find("attention") != std::string::npos ||
          s->find("attn") != std::string::npos) {
        return true;
      }
    }
  }
  return false;
}

// vLLM's bitsandbytes skip rule (vllm/model_executor/layers/quantization/bitsandbytes.py
// is_layer_skipped_bnb; whole dot-separated parts since #9887, parent prefixes since #12974): the
// linear at `path` stays 16-bit when an entry is one of its parts, the path itself, or a prefix of it
// ending at a dot. vLLM's paths are its fused modules (qkv_proj, gate_up_proj), so an entry naming
// Hugging Face's q_proj or gate_proj matches nothing.
bool bnb_skips(std::string_view path, const std::vector<std::string>& skip) {
  for (const std::string& s : skip) {
    if (path == s || (path.size() > s.size() && path.starts_with(s) && path[s.size()] == '.')) {
      return true;
    }
    std::size_t begin = 0;
    while (begin <= path.size()) {
      const std::size_t dot = std::min(path.find('.', begin), path.size());
      if (path.substr(begin, dot - begin) == s) {
        return true;
      }
      begin = dot + 1;
    }
  }
  return false;
}

}  // namespace

BnbKept bnb_kept_params(const ModelSpec& m, const std::vector<std::string>& skip) {
  BnbKept kept;
  const std::uint64_t layers = m.num_hidden_layers;
  const std::uint64_t heads = m.num_attention_heads;
  const std::uint64_t kv = m.dense_attention.num_key_value_heads;
  const auto rows = arch_rows();
  const auto row = std::find_if(rows.begin(), rows.end(), [&](const ArchRow& r) { return r.model_type == m.model_type; });
  if (row == rows.end() || !row->llama_modules || layers == 0 || heads == 0 || m.params.experts > 0 || !m.moe_layers.empty()) {
    kept.layered = false;
    return kept;
  }
  // Every decoder layer alike: its share of the attention split by the projections' widths (q and o
  // heads x head_dim each, k and v kv_heads x head_dim), its MLP's 2/3 in gate_up and 1/3 in down.
  const std::uint64_t attention = m.params.attention / layers;
  const std::uint64_t qkv = mul_frac(attention, heads + 2 * kv, 2 * heads + 2 * kv);
  const std::uint64_t mlp = m.params.mlp / layers;
  const std::uint64_t gate_up = mul_frac(mlp, 2, 3);
  for (std::uint64_t i = 0; i < layers; ++i) {
    const std::string at = fmt::format("model.layers.{}.", i);
    kept.attention += (bnb_skips(at + "self_attn.qkv_proj", skip) ? qkv : 0) +
                      (bnb_skips(at + "self_attn.o_proj", skip) ? attention - qkv : 0);
    kept.mlp += (bnb_skips(at + "mlp.gate_up_proj", skip) ? gate_up : 0) +
                (bnb_skips(at + "mlp.down_proj", skip) ? mlp - gate_up : 0);
  }
  return kept;
}

namespace {

// config.json's quantization_config: how the checkpoint stores its weights. Embeddings, norms and
// lm_head stay 16-bit in every format (they are not nn.Linear of the quantized blocks, or the
// formats leave them out by default); an ignore list that names the attention leaves it 16-bit.
// A method kvplan does not know is recorded as "unknown:<method>", and --weight-dtype must say it.
void read_quantization(const HFields& holder, ModelSpec& m) {
  const std::optional<HFields> qf = holder.child("quantization_config");
  if (!qf) {
    return;
  }
  const std::string method = qf->string("quant_method").value_or("");
  m.quant_method = method;
  bool attention_kept = false;
  std::string dtype;
  if (method == "fp8" || method == "fbgemm_fp8") {
    dtype = "fp8";  // DeepSeek-V3 ships e4m3 weights with 128x128 block scales
  } else if (method == "mxfp4") {
    m.expert_weight_dtype = "mxfp4";  // gpt-oss: MoE experts in MXFP4 (attention and router in modules_to_not_convert)
    return;
  } else if (method == "gptq" || method == "awq") {
    const std::uint64_t bits = qf->uint("bits", 1, 16).value_or(0);
    dtype = bits == 4 ? "int4" : bits == 8 ? "int8" : "";
    attention_kept = names_attention(qf->list("modules_to_not_convert"));
  } else if (method == "compressed-tensors") {
    // config_groups.<group>.weights: num_bits, type (int / float), group_size; format names the packing
    const std::string format = qf->string("format").value_or("");
    if (format.find("nvfp4") != std::string::npos) {
      dtype = "nvfp4";
    } else if (format.find("mxfp4") != std::string::npos) {
      dtype = "mxfp4";
    } else if (const std::optional<HFields> groups = qf->child("config_groups")) {
      for (const HEntry& e : groups->object().entries) {
        const auto* g = std::get_if<HObject>(&e.value.v);
        if (g == nullptr) {
          continue;
        }
        const HFields gf(*g, groups->origin(), fmt::format("{}/{}", groups->pointer(), e.key));
        const std::optional<HFields> w = gf.child("weights");
        if (!w) {
          continue;
        }
        const std::uint64_t bits = w->uint("num_bits", 1, 64).value_or(0);
        const std::string type = w->string("type").value_or("int");
        const std::uint64_t group = w->uint("group_size", 1, 1 << 20).value_or(0);
        if (bits == 8) {
          dtype = type == "float" ? "fp8" : "int8";
        } else if (bits == 4 && type == "float") {
          dtype = group == 16 ? "nvfp4" : "mxfp4";
        } else if (bits == 4) {
          dtype = group == 32 ? "int4_g32" : "int4";
        }
        break;
      }
    }
    attention_kept = names_attention(qf->list("ignore"));
  } else if (method == "modelopt") {
    const std::string algo = qf->string("quant_algo").value_or("");
    dtype = algo == "FP8" ? "fp8" : algo == "NVFP4" ? "nvfp4" : algo.find("AWQ") != std::string::npos ? "int4" : "";
    attention_kept = names_attention(qf->list("exclude_modules"));
  } else if (method == "bitsandbytes") {
    dtype = qf->boolean("load_in_4bit").value_or(false) ? "nf4" : qf->boolean("load_in_8bit").value_or(false) ? "int8" : "";
    std::vector<std::string> skip;
    if (const HList* list = qf->list("llm_int8_skip_modules")) {
      for (const HValue& v : *list) {
        if (const auto* name = std::get_if<std::string>(&v.v)) {
          skip.push_back(*name);
        }
      }
    }
    const BnbKept kept = bnb_kept_params(m, skip);
    if (kept.layered) {
      m.params.attention_16bit = kept.attention;  // unsloth's dynamic 4-bit: a few layers' blocks in 16 bits
      m.params.mlp_16bit = kept.mlp;
    } else {
      attention_kept = names_attention(qf->list("llm_int8_skip_modules"));
    }
  }
  if (dtype.empty()) {
    m.checkpoint_weight_dtype = "unknown:" + method;
    return;
  }
  m.checkpoint_weight_dtype = dtype;
  if (attention_kept) {
    m.attention_weight_dtype = m.torch_dtype;
  }
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
  return read_hparams(std::move(std::get<HObject>(root.v)), name, origin);
}

ModelSpec read_hparams(HObject top_object, std::string_view name, std::string_view origin) {
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
  const std::string wrapper_type = top.string("model_type").value_or("");
  std::string type;
  const ArchRow* wrapper = nullptr;
  if (nested) {
    // The backbone's type: text_config's own model_type, else the wrapper row's text_type
    // (Gemma3Config's text_config is a Gemma3TextConfig), else the wrapper's own type.
    const HFields text(*text_object, std::string(origin), "/text_config");
    wrapper = find_arch(wrapper_type);
    type = text.string("model_type").value_or("");
    if (type.empty() || (wrapper != nullptr && type == wrapper_type && !wrapper->text_type.empty())) {
      type = wrapper != nullptr && !wrapper->text_type.empty() ? std::string(wrapper->text_type) : wrapper_type;
    }
    // Kimi_K25Config: a text_config of model_type kimi_k2 is a DeepseekV3Config.
  } else {
    type = wrapper_type;
  }
  if (type.empty()) {
    top.fail("model_type", "is required to know how the layers are laid out");
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
    throw Error(fmt::format("{}: kvplan cannot size model_type {}{}: its cache layout is not modelled; nothing is "
                            "guessed ('kvplan models types' lists the {} it sizes)",
                            where.where("model_type"), quote_input(type), arch, arch_rows().size()));
  }
  HObject& backbone = nested ? *text_object : top_object;
  // A wrapper's tie_word_embeddings is the one the model reads (modeling_utils reads the loaded
  // model's own config): the top level's value, else the wrapper class's default.
  if (nested) {
    std::optional<bool> tie = top.boolean("tie_word_embeddings");
    if (!tie && wrapper != nullptr) {
      for (const ArchDefault& d : wrapper->defaults) {
        if (d.key == "tie_word_embeddings" && d.type == ArchDefault::Type::boolean) {
          tie = d.bool_value;
        }
      }
    }
    if (tie) {
      backbone.set("tie_word_embeddings", HValue{*tie});
    }
  }
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
  const TowerCount towers = count_towers(top_fields, wrapper_type, m.hidden_size);
  m.params.vision = towers.params;
  m.vision_encoder = towers.encoder;
  for (const std::string& t : towers.uncounted) {
    m.weights_note += (m.weights_note.empty() ? "" : "; ") + t + " not counted";
  }
  m.torch_dtype = weight_dtype_name(f, top_fields);
  read_quantization(top_fields.has("quantization_config") ? top_fields : f, m);
  return m;
}

ModelSpec read_hf_config_text(std::string_view text, std::string_view name, std::string_view origin) {
  return read_hf_config(parse_json_text(text, origin), name, origin);
}

}  // namespace kvplan
