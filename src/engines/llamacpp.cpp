// llama.cpp: exactly n_ctx cells, padded to 256; SWA layers in a second cache of
// pad256(n_swa * n_seq + n_ubatch) cells; MLA K-only since 2026-01-24; recurrent state in f32.
// Sources (docs/engines.md): src/llama-context.cpp (n_ctx padding), src/llama-kv-cache.cpp
// (allocation and its log line), src/llama-kv-cache-iswa.cpp (SWA size), src/llama-hparams.cpp
// (n_embd_k_gqa, n_embd_r/s), PR #19067 (V-less cache for MLA), common/ --fit.
#include <algorithm>
#include <fmt/format.h>
#include <variant>

#include "engine_util.hpp"
#include "kvplan/engine.hpp"
#include "kvplan/error.hpp"
#include "kvplan/quantity.hpp"
#include "kvplan/units.hpp"

namespace kvplan {
namespace {

// Version keys are build dates, YYYYMMDD.
constexpr int kVlessMlaSince = 20260124;   // PR #19067 "kv-cache : support V-less cache"
constexpr std::uint64_t kPad = 256;         // GGML_PAD(n_ctx, 256), PR #17046; SWA cache padding, issue #17037
constexpr std::uint64_t kFitTargetBytes = 1024 * kMiB;  // --fit leaves fit_params_target = 1024 MiB free
// kvplan's floor for the --fit emulation; llama.cpp's own fit_params_min_ctx default was not read
// (docs/engines.md lists it as open).
constexpr std::uint64_t kFitMinContext = 4096;

std::string ggml_name(const DType& t) {
  if (t.name == "fp16") {
    return "f16";
  }
  if (t.name == "fp32") {
    return "f32";
  }
  return std::string(t.name);
}

struct Cache {
  std::uint64_t k_bytes = 0;
  std::uint64_t v_bytes = 0;
  std::uint32_t layers = 0;
  std::uint64_t cells = 0;   // per stream
};

struct Sizes {
  Cache base;
  Cache swa;
  std::uint64_t recurrent_bytes = 0;
  std::uint32_t recurrent_layers = 0;
  std::uint64_t total() const { return base.k_bytes + base.v_bytes + swa.k_bytes + swa.v_bytes + recurrent_bytes; }
};

Sizes sizes(const ModelSpec& m, const DType& tk, const DType& tv, std::uint64_t n_ctx_seq, std::uint64_t streams,
            std::uint64_t swa_cells, std::uint64_t n_seq, bool vless_mla) {
  Sizes s;
  s.base.cells = n_ctx_seq;
  s.swa.cells = swa_cells;
  for (const LayerGroup& g : m.layers) {
    Cache* c = &s.base;
    std::uint64_t k_width = 0;
    std::uint64_t v_width = 0;
    if (const auto* full = std::get_if<FullAttention>(&g.spec)) {
      k_width = std::uint64_t{full->num_key_value_heads} * full->head_dim;
      v_width = std::uint64_t{full->num_key_value_heads} * full->v_head_dim.value_or(full->head_dim);
    } else if (const auto* swa = std::get_if<SlidingWindow>(&g.spec)) {
      c = &s.swa;
      k_width = std::uint64_t{swa->attention.num_key_value_heads} * swa->attention.head_dim;
      v_width = std::uint64_t{swa->attention.num_key_value_heads} *
                swa->attention.v_head_dim.value_or(swa->attention.head_dim);
    } else if (const auto* mla = std::get_if<LatentAttention>(&g.spec)) {
      k_width = std::uint64_t{mla->kv_lora_rank} + mla->qk_rope_head_dim;  // n_embd_head_k = rank + n_rot
      v_width = vless_mla ? 0 : mla->kv_lora_rank;                         // K 576 + V 512 before PR #19067
    } else {
      const auto& r = std::get<RecurrentState>(g.spec);  // llama_memory_recurrent: R and S in f32
      s.recurrent_bytes += std::uint64_t{g.count} * (r.conv_elements + r.ssm_elements) * 4 * std::max<std::uint64_t>(1, n_seq);
      s.recurrent_layers += g.count;
      continue;
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

}  // namespace

EnginePrediction predict_llamacpp(const EngineInputs& in) {
  const ModelSpec& m = *in.model;
  const EngineSettings& s = in.settings;
  EnginePrediction p;
  const DType tk = s.cache_type_k.value_or(*find_dtype(kv_dtypes(), "fp16"));
  const DType tv = s.cache_type_v.value_or(*find_dtype(kv_dtypes(), "fp16"));  // -ctv is independent of -ctk
  for (const DType& t : {tk, tv}) {
    if (t.name == "fp8" || t.name == "fp8_e4m3" || t.name == "fp8_e5m2" || t.name == "int8" || t.name == "int4") {
      throw Error(fmt::format("llama.cpp has no '{}' cache type; use f32, f16, bf16, q8_0, q4_0, q4_1, iq4_nl, q5_0 "
                              "or q5_1 with --cache-type-k/--cache-type-v",
                              t.name));
    }
  }
  // llama-server: -np auto means 4 slots with a unified cache; -c 0 means n_ctx_train.
  const std::uint64_t n_seq = s.parallel.value_or(4);
  const bool unified = s.kv_unified.value_or(!s.parallel.has_value());
  const std::uint64_t asked = s.ctx_size.value_or(0) == 0 ? m.max_position_embeddings : *s.ctx_size;
  const std::uint64_t ubatch = s.ubatch_size.value_or(512);
  const bool vless = in.version >= kVlessMlaSince;

  auto layout = [&](std::uint64_t n_ctx_request) {
    std::uint64_t n_ctx = round_up(n_ctx_request, kPad);
    std::uint64_t n_ctx_seq = unified ? n_ctx : round_up(n_ctx / n_seq, kPad);
    const std::uint64_t streams = unified ? 1 : n_seq;
    n_ctx = n_ctx_seq * streams;
    std::uint64_t swa_window = 0;
    for (const LayerGroup& g : m.layers) {
      if (const auto* w = std::get_if<SlidingWindow>(&g.spec)) {
        swa_window = std::max(swa_window, w->window_tokens);
      }
    }
    const std::uint64_t swa_cells =
        s.swa_full.value_or(false) ? n_ctx_seq
                                   : round_up(std::min(n_ctx_seq, swa_window * (unified ? n_seq : 1) + ubatch), kPad);
    return std::make_tuple(n_ctx, n_ctx_seq, streams, sizes(m, tk, tv, n_ctx_seq, streams, swa_cells, n_seq, vless));
  };
  auto [n_ctx, n_ctx_seq, streams, sz] = layout(asked);

  const bool fit = s.fit.value_or(true);
  const std::uint64_t weights = weight_bytes_per_gpu(m.params, in.weights, 1);
  if (fit && in.gpu_memory_bytes > 0) {
    std::uint64_t ctx = n_ctx;
    while (ctx > kFitMinContext && sat_add(sat_add(weights, sz.total()), kFitTargetBytes) > in.gpu_memory_bytes) {
      ctx -= kPad;
      std::tie(n_ctx, n_ctx_seq, streams, sz) = layout(ctx);
    }
    if (ctx < round_up(asked, kPad)) {
      p.notes.push_back(fmt::format("--fit shrank n_ctx from {} to {} so that {} MiB stay free on the device",
                                    with_commas(round_up(asked, kPad)), with_commas(ctx), kFitTargetBytes / kMiB));
    }
  }
  if (in.gpu_memory_bytes > 0) {
    p.fits = sat_add(weights, sz.total()) <= in.gpu_memory_bytes;
    p.budget = {
        {"total_gpu_memory_bytes", "Device memory", Cell::bytes(in.gpu_memory_bytes), ""},
        {"weights_bytes", "− Model weights", Cell::bytes(weights), "as --weight-dtype describes the GGUF"},
        {"kv_size_bytes", "− KV cache", Cell::bytes(sz.total()), "n_ctx cells, allocated up front"},
        {"free_bytes", "= Left free", Cell::bytes(sat_sub(in.gpu_memory_bytes, sat_add(weights, sz.total()))),
         fit ? "--fit keeps 1024 MiB free (compute buffers are not modelled)" : "--fit off: nothing is shrunk"},
    };
  }
  p.kv_budget_bytes = sz.total();
  p.max_model_len = n_ctx_seq;
  p.fields = {
      {"n_ctx", "n_ctx", Cell::tokens(n_ctx), fmt::format("-c {} padded to a multiple of 256", asked)},
      {"n_ctx_seq", "n_ctx_seq", Cell::tokens(n_ctx_seq), unified ? "unified cache: every slot shares n_ctx" : "per slot"},
      {"n_seq_max", "n_seq_max", Cell::count(n_seq), s.parallel ? "-np" : "-np auto: 4 slots"},
      {"kv_unified", "kv_unified", Cell::flag(unified), ""},
      {"cells", "cells", Cell::tokens(sz.base.cells), "per stream"},
      {"kv_size_bytes", "KV size", Cell::bytes(sz.total()), ""},
      {"k_bytes", "K", Cell::bytes(sz.base.k_bytes + sz.swa.k_bytes), ggml_name(tk)},
      {"v_bytes", "V", Cell::bytes(sz.base.v_bytes + sz.swa.v_bytes), ggml_name(tv)},
  };
  if (sz.swa.layers > 0) {
    p.fields.push_back({"swa_cells", "SWA cells", Cell::tokens(sz.swa.cells), "pad256(min(n_ctx_seq, n_swa·n_seq + n_ubatch))"});
    p.log_lines.push_back(fmt::format("llama_kv_cache_iswa: creating non-SWA KV cache, size = {} cells", sz.base.cells));
    p.log_lines.push_back(size_line("llama_kv_cache", sz.base, n_seq, streams, tk, tv));
    p.log_lines.push_back(fmt::format("llama_kv_cache_iswa: creating     SWA KV cache, size = {} cells", sz.swa.cells));
    p.log_lines.push_back(size_line("llama_kv_cache", sz.swa, n_seq, streams, tk, tv));
  } else if (sz.base.layers > 0) {
    p.log_lines.push_back(size_line("llama_kv_cache", sz.base, n_seq, streams, tk, tv));
  }
  if (sz.recurrent_layers > 0) {
    p.fields.push_back({"recurrent_bytes", "Recurrent state", Cell::bytes(sz.recurrent_bytes), "R and S in f32"});
    p.log_lines.push_back(fmt::format("llama_memory_recurrent: size = {} MiB ({} cells, {} layers, {} seqs)",
                                      engines::mib(sz.recurrent_bytes), std::max<std::uint64_t>(1, n_seq),
                                      sz.recurrent_layers, n_seq));
  }
  if (n_ctx_seq < m.max_position_embeddings) {
    p.log_lines.push_back(fmt::format("llama_context: n_ctx_seq ({}) < n_ctx_train ({}) -- the full capacity of the "
                                      "model will not be utilized",
                                      n_ctx_seq, m.max_position_embeddings));
  }
  if (!(tv == *find_dtype(kv_dtypes(), "fp16")) && !(tv == *find_dtype(kv_dtypes(), "bf16")) &&
      !(tv == *find_dtype(kv_dtypes(), "fp32"))) {
    p.notes.push_back("A quantized V cache needs flash attention (-fa on).");
  }
  for (std::uint64_t len : in.frontier_lengths) {
    if (len <= n_ctx_seq) {
      p.frontier.emplace_back(len, unified ? std::min(n_seq, n_ctx / len) : n_seq);
    }
  }
  return p;
}

}  // namespace kvplan
