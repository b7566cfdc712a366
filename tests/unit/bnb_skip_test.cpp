// A bitsandbytes checkpoint's llm_int8_skip_modules, read as vLLM reads it
// (vllm/model_executor/layers/quantization/bitsandbytes.py is_layer_skipped_bnb: an entry skips the
// linear at path P when it is one of P's dot-separated parts, P itself, or a prefix of P ending at a dot;
// P is vLLM's fused module, model.layers.N.self_attn.qkv_proj / o_proj, model.layers.N.mlp.gate_up_proj /
// down_proj). Unsloth's "dynamic" 4-bit uploads list a few blocks this way; the list below is
// unsloth/DeepSeek-R1-Distill-Llama-8B-unsloth-bnb-4bit's, as quoted in vLLM PR #12974 (2025-02-09),
// a Llama-3.1-8B (hidden 4096, 32 layers, 32 heads, 8 KV heads of 128, intermediate 14336).
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "kvplan/catalog.hpp"
#include "kvplan/config_reader.hpp"
#include "kvplan/dtype.hpp"
#include "kvplan/formula.hpp"
#include "kvplan/model_source.hpp"
#include "kvplan/plan.hpp"

using namespace kvplan;

namespace {

const ModelSpec& llama8b() { return find_preset("llama-3.1-8b").spec; }

constexpr std::uint64_t kMlpPerLayer = 3ULL * 4096 * 14336;
constexpr std::uint64_t kQkv = 4096ULL * (32 + 2 * 8) * 128;
constexpr std::uint64_t kO = 32ULL * 128 * 4096;

}  // namespace

TEST_CASE("bitsandbytes: unsloth's skip list keeps one MLP in 16 bits", "[config][weights][bnb]") {
  const BnbKept kept =
      bnb_kept_params(llama8b(), {"lm_head", "multi_modal_projector", "merger", "modality_projection", "model.layers.1.mlp"});
  CHECK(kept.layered);
  CHECK(kept.attention == 0);
  CHECK(kept.mlp == kMlpPerLayer);  // model.layers.1.mlp, and not model.layers.11 to 19's
}

TEST_CASE("bitsandbytes: vLLM's skip rule over its fused module names", "[config][bnb]") {
  const ModelSpec& m = llama8b();
  // A parent block: both of its projections.
  CHECK(bnb_kept_params(m, {"model.layers.0.self_attn"}).attention == kQkv + kO);
  // One fused projection by its vLLM name.
  CHECK(bnb_kept_params(m, {"model.layers.0.self_attn.qkv_proj"}).attention == kQkv);
  // Hugging Face's separate q_proj and gate_proj are not vLLM's modules: nothing is kept.
  const BnbKept hf_names = bnb_kept_params(m, {"model.layers.0.self_attn.q_proj", "model.layers.0.mlp.gate_proj"});
  CHECK(hf_names.attention == 0);
  CHECK(hf_names.mlp == 0);
  // Not a prefix that ends at a dot, nor a whole part: nothing.
  CHECK(bnb_kept_params(m, {"layers.0.mlp"}).mlp == 0);
  // A whole part names every layer's block.
  CHECK(bnb_kept_params(m, {"mlp"}).mlp == 32 * kMlpPerLayer);
}

TEST_CASE("bitsandbytes: the kept parameters weigh 16 bits in the checkpoint's own format only", "[weights][bnb]") {
  ParamCounts p = llama8b().params;
  p.mlp_16bit = kMlpPerLayer;
  const DType bf16 = *find_dtype(weight_dtypes(), "bf16");
  const DType nf4 = *find_dtype(weight_dtypes(), "nf4");
  WeightFormat w{bf16, nf4, nf4, std::nullopt};
  const std::uint64_t all_nf4 = weight_bytes_per_gpu(p, w, 1);
  w.skip_list = true;
  const std::uint64_t kept = weight_bytes_per_gpu(p, w, 1);
  const std::uint64_t others = p.mlp - kMlpPerLayer;
  CHECK(kept - all_nf4 == tensor_bytes(bf16, kMlpPerLayer) + tensor_bytes(nf4, others) - tensor_bytes(nf4, p.mlp));
  CHECK(tensor_bytes(bf16, kMlpPerLayer) == 2 * kMlpPerLayer);
}

// Unsloth's dynamic 4-bit uploads (-unsloth-bnb-4bit) keep the blocks their config.json lists in
// llm_int8_skip_modules at 16 bits (unsloth/QwQ-32B-unsloth-bnb-4bit's config.json names
// model.layers.0.self_attn and twenty MLPs of layers 0-23); their plain -bnb-4bit uploads do not. Known
// by name only, the weights are nf4 everywhere at least and the model's bf16 at most, and plan() answers
// only where both bounds agree.
TEST_CASE("bitsandbytes: an Unsloth dynamic upload named, not read, is decided only where both bounds agree",
          "[weights][bnb]") {
  REQUIRE(resolve_preset("unsloth/Llama-3.3-70B-Instruct-unsloth-bnb-4bit"));
  CHECK(resolve_preset("unsloth/Llama-3.3-70B-Instruct-unsloth-bnb-4bit")->skip_list_unread ==
        "an Unsloth dynamic 4-bit upload");
  CHECK(resolve_preset("unsloth/Llama-3.3-70B-Instruct-bnb-4bit")->skip_list_unread.empty());

  auto request = [](const std::string& model, const std::string& gpu) {
    PlanRequest q;
    q.model = load_preset(model);
    q.hardware = hardware_from_gpu(gpu);
    q.tp = 1;
    return q;
  };
  // Llama-3.3-70B on one H100: 70,553,706,496 parameters (config.json's shapes) fit at nf4, not at bf16
  // (141 GB), so the upper bound's verdict is the weights'.
  PlanRequest q = request("unsloth/Llama-3.3-70B-Instruct-unsloth-bnb-4bit", "H100");
  CHECK(q.model_spec().params.total() == 70'553'706'496ULL);
  PlanResult r = plan(q);
  CHECK_FALSE(r.verdict.fits);
  CHECK(r.verdict.cause == Cause::weights_unknown);
  CHECK(r.verdict.upper_cause == Cause::weights);
  CHECK(r.verdict.available_bytes == r.budget.weights_bytes);  // the lower bound, nf4 but for the embeddings
  CHECK(r.verdict.needed_bytes == 2 * 70'553'706'496ULL);       // every parameter at bf16, tp 1
  // The same checkpoint under its plain -bnb-4bit name: everything quantized, the answer stands.
  CHECK(plan(request("unsloth/Llama-3.3-70B-Instruct-bnb-4bit", "H100")).verdict.fits);
  // Llama-3.1-8B on an H100 fits at bf16 too: the verdict holds, with the lower bound said in a warning.
  r = plan(request("unsloth/Llama-3.1-8B-Instruct-unsloth-bnb-4bit", "H100"));
  CHECK(r.verdict.fits);
  REQUIRE_FALSE(r.request.warnings.empty());
  CHECK(r.request.warnings.back().find("llm_int8_skip_modules") != std::string::npos);
  // --weight-dtype names the format of every layer: the user's statement, planned as one bound.
  q.weights = weight_format(q.model_spec(), "nf4");
  CHECK(plan(q).verdict.fits);
  // Too big even at nf4: the weights' own verdict, whatever the skip list holds.
  r = plan(request("unsloth/Llama-3.3-70B-Instruct-unsloth-bnb-4bit", "L4"));
  CHECK(r.verdict.cause == Cause::weights);
}
