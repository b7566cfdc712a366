// The llama.cpp family's shared machinery (llama_family.hpp). Sources: llama.cpp src/llama-model.cpp
// load_tensors (layer placement), src/llama-model-loader.cpp create_tensor (tensor overrides),
// src/llama-kv-cache.cpp (per-layer cache rows), common/arg.cpp (-ot, -ngl, -ts); ik_llama.cpp keeps
// the same rules at 8337e4cd (src/llama.cpp llm_load_tensors, llama_kv_cache_init; docs/engines.md).
#include "llama_family.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <fmt/format.h>
#include <numeric>
#include <span>
#include <variant>

#include "engine_util.hpp"
#include "kvplan/error.hpp"
#include "kvplan/quantity.hpp"
#include "kvplan/text.hpp"
#include "kvplan/units.hpp"

namespace kvplan::llama {
namespace {

// common/common.h LLM_FFN_EXPS_REGEX, "\\.ffn_(up|down|gate|gate_up)_(ch|)exps": --cpu-moe is one override of
// it to the CPU, --n-cpu-moe N one per layer i < N of "blk\\.i" followed by it (llm_ffn_exps_block_regex). kvplan
// applies them as those patterns would match its expert tensors' names, after the -ot overrides (llama.cpp keeps
// them in command-line order; ik_llama.cpp appends them after -ot).
struct Rules {
  std::vector<Override> ot;
  std::vector<bool> expert_host;  // per layer: --cpu-moe / --n-cpu-moe keep its experts in host memory
  bool any() const {
    return !ot.empty() || std::find(expert_host.begin(), expert_host.end(), true) != expert_host.end();
  }
  // The buffer of a tensor: an override's device (-1: host), or nullopt: where the layer puts it.
  std::optional<int> of(const std::string& name, bool expert, std::uint64_t layer) const {
    for (const Override& o : ot) {
      if (std::regex_search(name, o.pattern)) {
        return o.device;
      }
    }
    if (expert && layer < expert_host.size() && expert_host[layer]) {
      return -1;
    }
    return std::nullopt;
  }
};

// Each decoder layer's cache kind decides its attention tensors' names (src/llama-arch.cpp LLM_TENSOR_NAMES).
std::vector<std::string_view> attention_names(const ModelSpec& m, std::uint64_t layer) {
  for (std::size_t c = 0; c < m.layer_decoder.size() && c < m.layer_group.size(); ++c) {
    if (m.layer_decoder[c] != layer || m.layer_group[c] >= m.layers.size()) {
      continue;
    }
    using Names = std::vector<std::string_view>;
    const Names gqa{"attn_norm", "attn_q", "attn_k", "attn_v", "attn_output"};
    return std::visit(
        overloaded{
            [&](const FullAttention&) { return gqa; },
            [&](const SlidingWindow&) { return gqa; },
            [](const LatentAttention&) {
              return Names{"attn_norm",     "attn_q_a",       "attn_q_a_norm", "attn_q_b",
                           "attn_kv_a_mqa", "attn_kv_a_norm", "attn_kv_b",     "attn_output"};
            },
            [](const RecurrentState&) { return Names{"attn_norm", "ssm_in", "ssm_conv1d", "ssm_out"}; },
            [&](const ChunkedLocal&) { return gqa; },
            [&](const CrossAttention&) { return gqa; },
            [&](const SharedKV&) { return gqa; },
            [&](const IndexerCache&) { return gqa; },
            [&](const NoCache&) { return gqa; },
        },
        m.layers[m.layer_group[c]].spec);
  }
  return {"attn_norm", "attn_q", "attn_k", "attn_v", "attn_output"};
}

}  // namespace

// Tensor buffer overrides (-ot PATTERN=BUFFER,...; common/arg.cpp parse_tensor_buffer_overrides): a
// buffer type's name is the one its device's backend gives it: "CPU", or a GPU's ("CUDA0", "ROCm1",
// "Vulkan0", "SYCL0", "MTL0"; Metal's older "Metal"). The device, or -1 for host memory; nullopt: not a
// buffer type name (llama.cpp: "unknown buffer type").
std::optional<int> buffer_device(std::string_view name) {
  if (name == "CPU") {
    return -1;
  }
  if (name == "Metal") {
    return 0;
  }
  for (std::string_view backend : {"CUDA", "ROCm", "Vulkan", "SYCL", "MTL"}) {
    if (name.size() > backend.size() && name.substr(0, backend.size()) == backend) {
      if (const auto d = to_unsigned(name.substr(backend.size())); d && *d < 64) {
        return static_cast<int>(*d);
      }
    }
  }
  return std::nullopt;
}


// "a=CPU,b=CUDA1" as llama.cpp reads it: split on ',', each at its first '='; the pattern is an
// ECMAScript regex that src/llama-model-loader.cpp matches with std::regex_search.
std::vector<Override> read_overrides(std::string_view where, std::string_view text) {
  std::vector<Override> out;
  for (std::string_view rest = text; !rest.empty();) {
    const std::size_t cut = rest.find(',');
    const std::string_view item = rest.substr(0, cut);
    rest = cut == std::string_view::npos ? std::string_view{} : rest.substr(cut + 1);
    const std::size_t eq = item.find('=');
    if (eq == std::string_view::npos || eq == 0) {
      throw Error(fmt::format("{}: {} is not PATTERN=BUFFER (e.g. exps=CPU)", where, quote_input(item)));
    }
    const std::string_view buffer = item.substr(eq + 1);
    const std::optional<int> device = buffer_device(buffer);
    if (!device) {
      throw Error(fmt::format("{}: unknown buffer type {}; use CPU, or a device such as CUDA0 (llama.cpp lists them with "
                              "--list-devices)",
                              where, quote_input(buffer)));
    }
    if (eq > 256 || out.size() >= 256) {
      throw Error(fmt::format("{}: over 256 overrides or a pattern over 256 characters; kvplan reads at most those", where));
    }
    try {
      out.push_back(Override{std::regex(std::string(item.substr(0, eq))), std::string(item), *device});
    } catch (const std::regex_error&) {
      throw Error(fmt::format("{}: {} is not a regular expression llama.cpp can use (std::regex, ECMAScript)", where,
                              quote_input(item.substr(0, eq))));
    }
  }
  return out;
}

void device_fields(const Placement& pl, const std::vector<std::uint64_t>& device_kv, std::uint64_t host_kv,
                   std::uint64_t host_needed, bool resident, std::vector<Field>& fields) {
  for (std::size_t d = 0; d < pl.weights.size() && d < device_kv.size(); ++d) {
    fields.push_back({fmt::format("cuda{}_model_buffer_bytes", d), fmt::format("CUDA{} model buffer", d),
                      Cell::bytes(pl.weights[d]), fmt::format("{} layers", pl.layers[d])});
    fields.push_back({fmt::format("cuda{}_kv_buffer_bytes", d), fmt::format("CUDA{} KV buffer", d),
                      Cell::bytes(device_kv[d]), pl.kv_here[d] ? "its layers' KV" : "-nkvo: in host memory"});
  }
  fields.push_back({"host_model_buffer_bytes", "CPU model buffer", Cell::bytes(pl.host_weights),
                    fmt::format("token embeddings and {} layers{}", pl.host_layers,
                                pl.moved_to_host > 0 ? ", and the tensors the overrides put there" : "")});
  fields.push_back({"host_kv_buffer_bytes", "CPU KV buffer", Cell::bytes(host_kv), ""});
  fields.push_back({"host_memory_needed_bytes", "Host RAM needed", Cell::bytes(host_needed),
                    resident ? "the CPU KV buffer and the host-side weights (--mlock or --no-mmap)"
                             : "the CPU KV buffer; the mapped weights may be paged from the file"});
}

std::string moved_note(const Placement& pl) {
  if (pl.moved_tensors == 0) {
    return {};
  }
  return fmt::format("The tensor overrides (-ot, --cpu-moe, --n-cpu-moe) move {} tensors: {} of weights to host "
                     "memory{}; each runs where its weights are (on the CPU in host memory), and every layer's KV stays "
                     "with its layer",
                     pl.moved_tensors, format_bytes(pl.moved_to_host),
                     pl.moved_to_gpus > 0 ? fmt::format(" and {} to another GPU", format_bytes(pl.moved_to_gpus))
                                          : std::string());
}

const char* missing_cache(const ModelSpec& m) {
  for (const LayerGroup& g : m.layers) {
    const char* missing = std::visit(overloaded{
                                         [](const FullAttention&) -> const char* { return nullptr; },
                                         [](const SlidingWindow&) -> const char* { return nullptr; },
                                         [](const LatentAttention&) -> const char* { return nullptr; },
                                         [](const RecurrentState&) -> const char* { return nullptr; },
                                         [](const ChunkedLocal&) -> const char* { return nullptr; },
                                         [](const CrossAttention&) -> const char* { return "cross-attention"; },
                                         [](const SharedKV&) -> const char* { return nullptr; },
                                         [](const IndexerCache&) -> const char* { return "sparse-attention indexer"; },
                                         [](const NoCache&) -> const char* { return nullptr; },
                                     },
                                     g.spec);
    if (missing != nullptr) {
      return missing;
    }
  }
  return nullptr;
}

void refuse_foreign_kv(const std::optional<DType>& d, std::string_view engine, std::string_view types) {
  if (d && (d->name == "fp8" || d->name == "fp8_e4m3" || d->name == "fp8_e5m2" || d->name == "int8" ||
            d->name == "int4")) {
    throw Error(fmt::format("{} has no {} cache type; use {} with --cache-type-k/--cache-type-v", engine,
                            quote_input(d->name), types));
  }
}

// "2026-01-24" -> 20260124.
std::optional<int> build_date(std::string_view text) {
  if (text.size() != 10 || text[4] != '-' || text[7] != '-') {
    return std::nullopt;
  }
  const auto y = to_unsigned(text.substr(0, 4));
  const auto m = to_unsigned(text.substr(5, 2));
  const auto d = to_unsigned(text.substr(8, 2));
  if (!y || !m || !d || *y < 2024 || *y > 2030 || *m < 1 || *m > 12 || *d < 1) {
    return std::nullopt;
  }
  // A real calendar day: 2026-02-30 is no build's date.
  const std::chrono::year_month_day day{std::chrono::year{static_cast<int>(*y)},
                                        std::chrono::month{static_cast<unsigned>(*m)},
                                        std::chrono::day{static_cast<unsigned>(*d)}};
  if (!day.ok()) {
    return std::nullopt;
  }
  return static_cast<int>(*y * 10000 + *m * 100 + *d);
}

// -ngl N|auto|all (common/arg.cpp): a count of layers, or every layer (the default).
KnobValue layer_count(std::string_view where, std::string_view text) {
  if (text == "auto" || text == "all" || (!text.empty() && text.front() == '-')) {
    return std::string("all");
  }
  if (text == "0") {
    return std::uint64_t{0};  // every layer in host memory
  }
  return parse_count(where, text, 1 << 20);
}

// -ts 3,1: each device's share, as llama.cpp reads it (numbers split on ',' or '/').
KnobValue split_list(std::string_view where, std::string_view text) {
  std::string out;
  std::size_t n = 0;
  for (std::string_view rest = text; !rest.empty() || n == 0;) {
    const std::size_t cut = rest.find_first_of(",/");
    const std::string_view part = rest.substr(0, cut);
    const std::optional<double> v = to_decimal(part);
    const bool ok = v && *v >= 0 && *v <= 1e6;
    const std::uint64_t micro = ok ? static_cast<std::uint64_t>(*v * 1e6 + 0.5) : 0;
    if (!ok || ++n > 64) {
      throw Error(fmt::format("{}: {} is not a list of up to 64 non-negative numbers such as 3,1", where,
                              quote_input(text)));
    }
    out += (out.empty() ? "" : ",") + std::to_string(micro);
    if (cut == std::string_view::npos) {
      break;
    }
    rest = rest.substr(cut + 1);
  }
  return out;
}

// Where llama.cpp puts each layer (src/llama-model.cpp load_tensors): the last n_gpu_layers of the
// n_layer repeating layers go to the GPUs, and the output layer too when n_gpu_layers > n_layer;
// with -sm layer, layer il (counted from the first offloaded one) goes to the first device whose
// cumulative tensor_split share exceeds il / act, act = min(n_gpu_layers, n_layer + 1). The token
// embeddings always stay in host memory (the input layer's buffer type is the CPU's); a tied output
// layer is a second copy of them (TENSOR_DUPLICATED). Each layer's KV lives with it
// (src/llama-kv-cache.cpp: the layer's device), or in host memory with -nkvo. Tensor overrides
// (-ot, --cpu-moe, --n-cpu-moe) move weights, never the KV: src/llama-model-loader.cpp create_tensor
// gives a tensor the buffer of the first override whose pattern std::regex_search finds in its name.

Placement place(const ModelSpec& m, const WeightFormat& w, const PlaceParams& s, std::uint32_t devices) {
  Placement pl;
  pl.n_layer = std::max<std::uint32_t>(m.num_hidden_layers, 1);
  const std::uint32_t n = pl.n_layer;
  devices = std::max<std::uint32_t>(devices, 1);
  const KnobValue* ngl_v = s.gpu_layers;
  const std::uint64_t ngl = ngl_v == nullptr ? (s.all_layers ? std::uint64_t{n} + 1 : 0)
                            : std::holds_alternative<std::string>(*ngl_v) ? std::uint64_t{n} + 1
                                                                          : std::get<std::uint64_t>(*ngl_v);
  const std::string& mode = s.split_mode;
  const std::uint32_t main = static_cast<std::uint32_t>(std::min<std::uint64_t>(s.main_gpu, devices - 1));
  // Shares: -ts, else equal (llama.cpp's default follows free memory, equal on identical GPUs).
  std::vector<std::uint64_t> share(devices, 1);
  if (s.tensor_split != nullptr) {
    const std::string& list = *s.tensor_split;
    std::size_t i = 0;
    for (std::size_t at = 0; at <= list.size() && i < devices; ++i) {
      const std::size_t comma = std::min(list.find(',', at), list.size());
      share[i] = to_unsigned(std::string_view(list).substr(at, comma - at)).value_or(0);
      at = comma + 1;
    }
    for (; i < devices; ++i) {
      share[i] = 0;  // devices past the list get no layers
    }
  }
  std::vector<std::uint64_t> cumulative(devices);
  std::uint64_t sum = 0;
  for (std::uint32_t d = 0; d < devices; ++d) {
    sum += share[d];
    cumulative[d] = sum;
  }
  if (sum == 0) {
    std::fill(share.begin(), share.end(), 1);
    for (std::uint32_t d = 0; d < devices; ++d) {
      cumulative[d] = d + 1;
    }
    sum = devices;
  }
  Rules rules;
  if (s.overrides != nullptr) {
    rules.ot = read_overrides("-ot", *s.overrides);
    for (const Override& o : rules.ot) {
      if (o.device >= static_cast<int>(devices)) {
        throw Error(fmt::format("-ot {}: unknown buffer type: the plan has {} GPU{} (CUDA0{})", quote_input(o.text), devices,
                                devices == 1 ? "" : "s", devices == 1 ? std::string() : fmt::format(" to CUDA{}", devices - 1)));
      }
    }
  }
  // --cpu-moe / --n-cpu-moe N: every layer's experts, or N layers' (the first N layers, or the last N MoE layers).
  rules.expert_host.assign(pl.n_layer, s.cpu_moe);
  if (!s.cpu_moe && s.n_cpu_moe > 0) {
    if (s.n_cpu_moe_from_last) {
      for (std::size_t k = m.moe_layers.size(), taken = 0; k > 0 && taken < s.n_cpu_moe; --k, ++taken) {
        if (m.moe_layers[k - 1] < pl.n_layer) {
          rules.expert_host[m.moe_layers[k - 1]] = true;
        }
      }
    } else {
      for (std::uint64_t il = 0; il < pl.n_layer && il < s.n_cpu_moe; ++il) {
        rules.expert_host[il] = true;
      }
    }
  }
  const ParamCounts& p = m.params;
  ParamCounts emb = p;
  emb.lm_head = emb.attention = emb.mlp = emb.experts = emb.norms = emb.vision = 0;
  ParamCounts out = emb;
  out.embedding = p.lm_head > 0 ? p.lm_head : p.embedding;
  ParamCounts exp = emb;
  exp.embedding = 0;
  exp.experts = p.experts;
  ParamCounts att = exp;
  att.experts = 0;
  att.attention = p.attention;
  att.norms = p.norms;
  const std::uint64_t total = weight_bytes_per_gpu(p, w, 1);
  const std::uint64_t emb_bytes = weight_bytes_per_gpu(emb, w, 1);
  const std::uint64_t out_bytes = weight_bytes_per_gpu(out, w, 1);
  const std::uint64_t repeating = sat_sub(total, sat_add(emb_bytes, p.lm_head > 0 ? out_bytes : 0));
  // The routed experts are in the MoE layers only (ModelSpec::moe_layers); the rest of the repeating
  // weights is shared evenly (exact when the layers are alike).
  const std::uint64_t n_moe = m.moe_layers.size();
  const std::uint64_t experts_bytes = n_moe == 0 ? 0 : std::min(weight_bytes_per_gpu(exp, w, 1), repeating);
  const std::uint64_t rest_bytes = repeating - experts_bytes;
  const std::uint64_t attention_bytes = std::min(weight_bytes_per_gpu(att, w, 1), rest_bytes);
  std::vector<std::uint64_t> layer_experts(n, 0);
  for (std::uint64_t k = 0; k < n_moe; ++k) {
    if (m.moe_layers[k] < n) {
      layer_experts[m.moe_layers[k]] = experts_bytes / n_moe + (k < experts_bytes % n_moe ? 1 : 0);
    }
  }
  const std::uint64_t act = std::min<std::uint64_t>(ngl, std::uint64_t{n} + 1);
  const std::uint64_t first = ngl >= n ? 0 : n - ngl;
  pl.weights.assign(devices, 0);
  pl.layers.assign(devices, 0);
  pl.kv_here.assign(devices, s.kv_offload);
  auto device_of = [&](std::uint64_t il) -> std::uint32_t {
    if (mode == "none") {
      return main;
    }
    const std::uint64_t x = il - first;  // x / act < cumulative[d] / sum
    for (std::uint32_t d = 0; d < devices; ++d) {
      if (x * sum < cumulative[d] * act) {
        return d;
      }
    }
    return devices - 1;
  };
  constexpr int kHost = -1;
  constexpr int kRows = -2;  // -sm row or tensor: each matrix's rows over the devices by their shares
  auto put = [&](int where, std::uint64_t bytes) {
    if (where == kHost) {
      pl.host_weights += bytes;
    } else if (where == kRows) {
      for (std::uint32_t d = 0; d < devices; ++d) {
        pl.weights[d] += bytes * share[d] / sum;
      }
    } else {
      pl.weights[static_cast<std::size_t>(where)] += bytes;
    }
  };
  // A group of tensors that kvplan sizes as a whole goes where its tensors' overrides send it; if they
  // disagree, kvplan cannot size the split and says so.
  auto place_group = [&](int home, std::uint64_t bytes, std::uint64_t layer, bool expert, const std::string& prefix,
                         std::span<const std::string_view> names) {
    std::optional<int> where;
    std::string first_name;
    for (std::string_view nm : names) {
      const std::string name = fmt::format("{}{}.weight", prefix, nm);
      const int to = rules.of(name, expert, layer).value_or(home);
      if (where && *where != to) {
        throw Error(fmt::format("-ot: the overrides send {} and {} to different buffers; kvplan sizes a layer's {} "
                                "tensors only together: give patterns that match all of them or none (such as "
                                "exps=CPU for the experts, or blk\\.N\\.=CPU for whole layers)",
                                first_name, name, expert ? "expert" : nm.rfind("ffn", 0) == 0 ? "FFN" : "attention"));
      }
      if (!where) {
        first_name = name;
      }
      where = to;
    }
    if (*where != home) {
      ++pl.moved_tensors;
      (*where == kHost ? pl.moved_to_host : pl.moved_to_gpus) += bytes;
    }
    put(*where, bytes);
  };
  const bool rows = mode == "row" || mode == "tensor";
  constexpr std::array<std::string_view, 1> kEmbd{"token_embd"};
  place_group(kHost, emb_bytes, n, false, "", kEmbd);
  for (std::uint64_t il = 0; il <= n; ++il) {
    const bool output = il == n;
    const bool on_host = il < first || (output && ngl <= n);
    const int home = on_host ? kHost : rows ? kRows : static_cast<int>(device_of(il));
    if (on_host) {
      pl.host_layers += output ? 0 : 1;
    } else {
      ++pl.offloaded;
      if (!output) {
        ++pl.layers[rows ? main : static_cast<std::uint32_t>(home)];
      }
    }
    if (output) {
      const std::array<std::string_view, 2> names{"output_norm", p.lm_head > 0 ? "output" : "token_embd"};
      if (rules.any()) {
        place_group(home, out_bytes, il, false, "", names);
      } else {
        put(home, out_bytes);
      }
      continue;
    }
    const std::uint64_t rest = rest_bytes / n + (il < rest_bytes % n ? 1 : 0);
    if (!rules.any()) {
      put(home, rest + layer_experts[il]);
      continue;
    }
    const std::string prefix = fmt::format("blk.{}.", il);
    const std::uint64_t attn = attention_bytes / n + (il < attention_bytes % n ? 1 : 0);
    place_group(home, attn, il, false, prefix, attention_names(m, il));
    static constexpr std::array<std::string_view, 4> kDense{"ffn_norm", "ffn_gate", "ffn_up", "ffn_down"};
    static constexpr std::array<std::string_view, 5> kMoe{"ffn_norm", "ffn_gate_inp", "ffn_gate_shexp", "ffn_up_shexp",
                                                          "ffn_down_shexp"};
    if (layer_experts[il] == 0) {
      place_group(home, rest - attn, il, false, prefix, kDense);
      continue;
    }
    place_group(home, rest - attn, il, false, prefix, kMoe);
    // Each expert matrix is its own tensor: gate, up and down (a plain MLP's experts: up and down).
    static constexpr std::array<std::string_view, 3> kExperts{"ffn_gate_exps", "ffn_up_exps", "ffn_down_exps"};
    const std::uint32_t k = m.expert_matrices == 2 ? 2 : 3;
    for (std::uint32_t e = 0; e < k; ++e) {
      const std::uint64_t bytes = layer_experts[il] / k + (e < layer_experts[il] % k ? 1 : 0);
      place_group(home, bytes, il, true, prefix, std::span(kExperts).subspan(k == 2 ? e + 1 : e, 1));
    }
  }
  pl.kv_on_main = mode == "row";
  pl.kv_device = main;
  pl.kv_split_evenly = mode == "tensor";
  return pl;
}

// Each device's KV: its layers' share of the cache (exact when the layers are alike; a model with
// several layer kinds is shared in proportion to the layer count).
std::vector<std::uint64_t> kv_per_device(const Placement& pl, std::uint64_t kv_total, std::uint64_t& host_kv) {
  std::vector<std::uint64_t> kv(pl.weights.size(), 0);
  host_kv = 0;
  const std::uint64_t n = pl.n_layer;
  const std::uint64_t per = n == 0 ? 0 : kv_total / n;
  host_kv = pl.host_layers * per;
  for (std::size_t d = 0; d < kv.size(); ++d) {
    const std::uint64_t bytes = pl.layers[d] * per;
    if (!pl.kv_here[d]) {
      host_kv += bytes;
    } else if (pl.kv_split_evenly) {
      for (std::size_t e = 0; e < kv.size(); ++e) {
        kv[e] += bytes / kv.size();
      }
    } else {
      kv[d] += bytes;
    }
  }
  // Rounding of kv_total / n stays with the last device that holds KV (or the host).
  const std::uint64_t placed = std::accumulate(kv.begin(), kv.end(), host_kv);
  if (placed < kv_total) {
    auto it = std::find_if(kv.rbegin(), kv.rend(), [](std::uint64_t b) { return b > 0; });
    (it != kv.rend() ? *it : host_kv) += kv_total - placed;
  }
  return kv;
}

std::string ggml_name(const DType& t) {
  if (t.name == "fp16") {
    return "f16";
  }
  if (t.name == "fp32") {
    return "f32";
  }
  return std::string(t.name);
}




Sizes sizes(const ModelSpec& m, const DType& tk, const DType& tv, std::uint64_t n_ctx_seq, std::uint64_t streams,
            std::uint64_t swa_cells, std::uint64_t n_seq, MlaCache mla_cache, bool swa_cache) {
  Sizes s;
  s.base.cells = n_ctx_seq;
  s.swa.cells = swa_cells;
  for (const LayerGroup& g : m.layers) {
    Cache* c = &s.base;
    std::uint64_t k_width = 0;
    std::uint64_t v_width = 0;
    bool recurrent = false;
    std::visit(overloaded{
                   [&](const FullAttention& full) {
                     k_width = std::uint64_t{full.num_key_value_heads} * full.head_dim;
                     v_width = std::uint64_t{full.num_key_value_heads} * full.v_head_dim.value_or(full.head_dim);
                   },
                   [&](const SlidingWindow& swa) {
                     c = swa_cache ? &s.swa : &s.base;  // before PR #13194: every layer at n_ctx
                     k_width = std::uint64_t{swa.attention.num_key_value_heads} * swa.attention.head_dim;
                     v_width = std::uint64_t{swa.attention.num_key_value_heads} *
                               swa.attention.v_head_dim.value_or(swa.attention.head_dim);
                   },
                   [&](const LatentAttention& mla) {
                     if (mla_cache == MlaCache::expanded) {  // n_head x (nope + rope) of K, n_head x v_head_dim of V
                       k_width = std::uint64_t{m.dense_attention.num_key_value_heads} * m.dense_attention.head_dim;
                       v_width = std::uint64_t{m.dense_attention.num_key_value_heads} *
                                 m.dense_attention.v_head_dim.value_or(m.dense_attention.head_dim);
                       return;
                     }
                     k_width = std::uint64_t{mla.kv_lora_rank} + mla.qk_rope_head_dim;  // n_embd_head_k = rank + n_rot
                     v_width = mla_cache == MlaCache::latent_k ? 0 : mla.kv_lora_rank;  // K 576 + V 512 before PR #19067
                   },
                   [&](const RecurrentState& r) {  // llama_memory_recurrent: R and S in f32
                     s.recurrent_bytes += std::uint64_t{g.count} * (r.conv_elements + r.ssm_elements) * 4 *
                                          std::max<std::uint64_t>(1, n_seq);
                     s.recurrent_layers += g.count;
                     recurrent = true;
                   },
                   // Llama 4's chunked attention is llama.cpp's iSWA cache with LLAMA_SWA_TYPE_CHUNKED
                   // (llama-model.cpp LLM_ARCH_LLAMA4: n_swa = attention_chunk_size).
                   [&](const ChunkedLocal& chunked) {
                     c = swa_cache ? &s.swa : &s.base;
                     k_width = std::uint64_t{chunked.attention.num_key_value_heads} * chunked.attention.head_dim;
                     v_width = std::uint64_t{chunked.attention.num_key_value_heads} *
                               chunked.attention.v_head_dim.value_or(chunked.attention.head_dim);
                   },
                   // Cross-attention (mllama) and the sparse-attention indexer are refused before this
                   // (split_problem); shared and attention-free layers hold nothing.
                   [&](const CrossAttention&) { recurrent = true; },
                   [&](const SharedKV&) { recurrent = true; },
                   [&](const IndexerCache&) { recurrent = true; },
                   [&](const NoCache&) { recurrent = true; },
               },
               g.spec);
    if (recurrent) {
      continue;  // no cells in the KV cache
    }
    const std::uint64_t cells = c->cells * streams;
    c->k_bytes += std::uint64_t{g.count} * row_bytes(tk, k_width) * cells;
    c->v_bytes += v_width == 0 ? 0 : std::uint64_t{g.count} * row_bytes(tv, v_width) * cells;
    c->layers += g.count;
  }
  return s;
}

std::string size_line(const char* prefix, const Cache& c, std::uint64_t n_seq, std::uint64_t streams,
                      const DType& tk, const DType& tv) {
  // llama_kv_cache: "size = %7.2f MiB (%6u cells, %3d layers, %2u/%u seqs), K (%s): %7.2f MiB, V (%s): %7.2f MiB"
  return fmt::format("{}: size = {:7.2f} MiB ({:6} cells, {:3} layers, {:2}/{} seqs), K ({}): {:7.2f} MiB, V ({}): {:7.2f} MiB",
                     prefix, static_cast<double>(c.k_bytes + c.v_bytes) / static_cast<double>(kMiB), c.cells, c.layers,
                     n_seq, streams, ggml_name(tk), static_cast<double>(c.k_bytes) / static_cast<double>(kMiB),
                     ggml_name(tv), static_cast<double>(c.v_bytes) / static_cast<double>(kMiB));
}

}  // namespace kvplan::llama
