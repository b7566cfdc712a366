// Storage-format tables. Each row's numbers and source are also listed in docs/formulas.md.
#include "kvplan/dtype.hpp"

#include <array>

#include "kvplan/units.hpp"

namespace kvplan {
namespace {

// KV-cache element formats.
//  - fp32/fp16/bf16: IEEE/bfloat sizes.
//  - fp8 (= fp8_e4m3), fp8_e5m2: vLLM FP8_PER_TENSOR mode; the per-layer k_scale/v_scale scalars
//    are not in the page (vllm/v1/kv_cache_interface.py, KVQuantMode).
//  - int8: vLLM int8_per_token_head: 1 B per element plus an fp32 scale per token per head for
//    K and for V ("+8*H_kv bytes/token/layer", kv_cache_interface.py AttentionSpec).
//  - int4: 4-bit with one fp16 scale and one fp16 zero-point per group of 64 elements, the
//    default of HF transformers QuantizedCache (nbits=4, q_group_size=64, cache_utils.py):
//    32 B data + 4 B = 36 B per 64 elements (4.5 bits per element).
//  - q8_0 ... iq4_nl: ggml block types, 32 elements per block (ggml-common.h block_q8_0 etc.):
//    q8_0 34 B (fp16 d + 32 int8), q4_0 18 B, q4_1 20 B, q5_0 22 B, q5_1 24 B, iq4_nl 18 B.
constexpr std::array kKvDtypes{
    DType{"fp32", 1, 4, 0, "32-bit float"},
    DType{"fp16", 1, 2, 0, "16-bit IEEE float"},
    DType{"bf16", 1, 2, 0, "16-bit bfloat"},
    DType{"fp8", 1, 1, 0, "fp8 e4m3, one scale per tensor"},
    DType{"fp8_e4m3", 1, 1, 0, "fp8 e4m3, per-tensor scale"},
    DType{"fp8_e5m2", 1, 1, 0, "fp8 e5m2, per-tensor scale"},
    DType{"int8", 1, 1, 4, "int8 + fp32 scale per token and head (int8_per_token_head)"},
    DType{"int4", 64, 36, 0, "int4, fp16 scale + zero per 64 elements (HF QuantizedCache)"},
    DType{"q8_0", 32, 34, 0, "ggml q8_0: 34 B per 32 elements"},
    DType{"q4_0", 32, 18, 0, "ggml q4_0: 18 B per 32 elements"},
    DType{"q4_1", 32, 20, 0, "ggml q4_1: 20 B per 32 elements"},
    DType{"q5_0", 32, 22, 0, "ggml q5_0: 22 B per 32 elements"},
    DType{"q5_1", 32, 24, 0, "ggml q5_1: 24 B per 32 elements"},
    DType{"iq4_nl", 32, 18, 0, "ggml iq4_nl: 18 B per 32 elements"},
};

// Weight formats.
//  - int4: GPTQ/AWQ-style 4-bit with one fp16 scale per group of 128 (group_size=128, the
//    default of both AutoGPTQ and AutoAWQ): 64 B + 2 B = 66 B per 128 weights.
//  - mxfp4: OCP Microscaling spec v1.0: 32 fp4 elements + one 8-bit shared scale = 17 B;
//    gpt-oss ships its MoE experts this way (config.json quantization_config mxfp4).
//  - fp8: 1 B per weight; block scales (128x128, fp32) add 4 B per 16,384 weights, ignored.
//  - int4_g32: compressed-tensors pack-quantized int4, symmetric, group_size 32 (Kimi-K2.5):
//    16 B + a 2 B scale per 32 weights (compressed-tensors forwards/quantization).
//  - nvfp4: NVFP4 (ModelOpt, compressed-tensors nvfp4-pack-quantized): 16 fp4 elements + one fp8
//    e4m3 scale = 9 B, plus one fp32 global scale per tensor, ignored (4.5 bits per weight).
//  - nf4: bitsandbytes load_in_4bit NF4: 64 elements + an fp32 absmax = 36 B (4.5 bits; double
//    quantization of the absmax, bnb_4bit_use_double_quant, makes it 4.127, not modelled).
constexpr std::array kWeightDtypes{
    DType{"fp32", 1, 4, 0, "32-bit float"},
    DType{"bf16", 1, 2, 0, "16-bit bfloat"},
    DType{"fp16", 1, 2, 0, "16-bit IEEE float"},
    DType{"fp8", 1, 1, 0, "8-bit float"},
    DType{"int8", 1, 1, 0, "8-bit integer"},
    DType{"int4", 128, 66, 0, "4-bit, fp16 scale per 128 weights (GPTQ/AWQ group_size 128)"},
    DType{"mxfp4", 32, 17, 0, "OCP MX fp4: 32 elements + 8-bit scale"},
    DType{"int4_g32", 32, 18, 0, "4-bit, 16-bit scale per 32 weights (compressed-tensors group_size 32)"},
    DType{"nvfp4", 16, 9, 0, "NVIDIA fp4: 16 elements + fp8 e4m3 scale"},
    DType{"nf4", 64, 36, 0, "bitsandbytes NF4: 64 elements + fp32 absmax"},
};

struct Alias {
  std::string_view alias;
  std::string_view name;
};
constexpr std::array kAliases{
    Alias{"float32", "fp32"},      Alias{"f32", "fp32"},        Alias{"float16", "fp16"},
    Alias{"half", "fp16"},         Alias{"f16", "fp16"},        Alias{"bfloat16", "bf16"},
    Alias{"e4m3", "fp8_e4m3"},     Alias{"e5m2", "fp8_e5m2"},   Alias{"float8_e4m3fn", "fp8_e4m3"},
};

}  // namespace

std::span<const DType> kv_dtypes() noexcept { return kKvDtypes; }
std::span<const DType> weight_dtypes() noexcept { return kWeightDtypes; }

const DType* find_dtype(std::span<const DType> table, std::string_view name) noexcept {
  for (const Alias& a : kAliases) {
    if (a.alias == name) {
      name = a.name;
    }
  }
  for (const DType& t : table) {
    if (t.name == name) {
      return &t;
    }
  }
  return nullptr;
}

std::uint64_t row_bytes(const DType& t, std::uint64_t elems) noexcept {
  if (elems == 0) {
    return 0;
  }
  return sat_add(sat_mul(ceil_div(elems, t.block_elems), t.block_bytes), t.row_scale_bytes);
}

std::uint64_t tensor_bytes(const DType& t, std::uint64_t elems) noexcept {
  return ceil_div(sat_mul(elems, t.block_bytes), t.block_elems);
}

}  // namespace kvplan
