// The architecture table on real config.json files (issue #9): each file in tests/configs/arch is
// copied verbatim from a public repository (SOURCES.tsv: repository, path, commit, URL). For each,
// the comment above its row derives the KV bytes from the engine's layout (vLLM's KV-cache specs:
// full and sliding attention 2 x n_kv x head_dim per token, MLA kv_lora_rank + qk_rope_head_dim,
// the DeepSeek-V3.2 indexer 128 fp8 + 4 B of scale, cross-attention over the encoder's tokens,
// recurrent state from mamba_utils.py MambaStateShapeCalculator with its SSM state in fp32), in bf16,
// at tp 1 and exact allocation (block 1); a sliding layer holds min(S, W) tokens, a chunked one
// min(S, chunk). The three shapes are batch x tokens: 1 x 1,000, 4 x 32,768 and 2 x 131,072;
// each expected total is batch x (sum of per-token bytes x tokens held + state per sequence).
#include <catch2/catch.hpp>

#include <array>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "kvplan/config_reader.hpp"
#include "kvplan/dtype.hpp"
#include "kvplan/error.hpp"
#include "kvplan/formula.hpp"
#include "support/files.hpp"

using namespace kvplan;

namespace {

const std::filesystem::path kDir = std::filesystem::path(KVPLAN_SOURCE_DIR) / "tests" / "configs" / "arch";

struct Shape {
  std::uint64_t batch;
  std::uint64_t tokens;
};
constexpr std::array<Shape, 3> kShapes{{{1, 1'000}, {4, 32'768}, {2, 131'072}}};

struct Row {
  const char* file;
  std::array<std::uint64_t, 3> bytes;  // at kShapes, bf16, tp 1, block 1
};

// clang-format off
const Row kRows[] = {
  // CohereForAI--c4ai-command-r-v01.json (cohere):
  //   40 full x 2*64*128*2 = 1,310,720 B/token
  {"CohereForAI--c4ai-command-r-v01.json", {1310720000, 171798691840, 343597383680}},
  // HuggingFaceTB--SmolLM3-3B.json (smollm3):
  //   36 full x 2*4*128*2 = 73,728 B/token
  {"HuggingFaceTB--SmolLM3-3B.json", {73728000, 9663676416, 19327352832}},
  // LGAI-EXAONE--EXAONE-4.0-32B.json (exaone4):
  //   48 sliding (W 4096) x 8*(128+128)*2 = 196,608 B/token
  //   16 full x 2*8*128*2 = 65,536 B/token
  {"LGAI-EXAONE--EXAONE-4.0-32B.json", {262144000, 11811160064, 18790481920}},
  // LiquidAI--LFM2-1.2B.json (lfm2):
  //   6 full x 2*8*64*2 = 12,288 B/token
  //   10 short conv x (3-1)*2048*2 = 81,920 B/sequence
  {"LiquidAI--LFM2-1.2B.json", {12369920, 1610940416, 3221389312}},
  // MiniMaxAI--MiniMax-M2.7.json (minimax_m2):
  //   62 full x 2*8*128*2 = 253,952 B/token
  {"MiniMaxAI--MiniMax-M2.7.json", {253952000, 33285996544, 66571993088}},
  // Qwen--Qwen2.5-3B-Instruct.json (qwen2):
  //   36 full x 2*2*128*2 = 36,864 B/token
  {"Qwen--Qwen2.5-3B-Instruct.json", {36864000, 4831838208, 9663676416}},
  // Qwen--Qwen2.5-7B-Instruct.json (qwen2):
  //   28 full x 2*4*128*2 = 57,344 B/token
  {"Qwen--Qwen2.5-7B-Instruct.json", {57344000, 7516192768, 15032385536}},
  // Qwen--Qwen2.5-VL-3B-Instruct.json (qwen2_5_vl):
  //   36 full x 2*2*128*2 = 36,864 B/token
  {"Qwen--Qwen2.5-VL-3B-Instruct.json", {36864000, 4831838208, 9663676416}},
  // Qwen--Qwen3-14B.json (qwen3):
  //   40 full x 2*8*128*2 = 163,840 B/token
  {"Qwen--Qwen3-14B.json", {163840000, 21474836480, 42949672960}},
  // Qwen--Qwen3-30B-A3B-Instruct-2507.json (qwen3_moe):
  //   48 full x 2*4*128*2 = 98,304 B/token
  {"Qwen--Qwen3-30B-A3B-Instruct-2507.json", {98304000, 12884901888, 25769803776}},
  // Qwen--Qwen3-30B-A3B.json (qwen3_moe):
  //   48 full x 2*4*128*2 = 98,304 B/token
  {"Qwen--Qwen3-30B-A3B.json", {98304000, 12884901888, 25769803776}},
  // Qwen--Qwen3-32B.json (qwen3):
  //   64 full x 2*8*128*2 = 262,144 B/token
  {"Qwen--Qwen3-32B.json", {262144000, 34359738368, 68719476736}},
  // Qwen--Qwen3-Coder-480B-A35B-Instruct.json (qwen3_moe):
  //   62 full x 2*8*128*2 = 253,952 B/token
  {"Qwen--Qwen3-Coder-480B-A35B-Instruct.json", {253952000, 33285996544, 66571993088}},
  // Qwen--Qwen3-Next-80B-A3B-Instruct.json (qwen3_next):
  //   12 full x 2*2*256*2 = 24,576 B/token
  //   36 linear x (gated deltanet conv (4-1)*(2*16*128+32*128)*2 = 49,152 + state 32*128*128*4 = 2,097,152) = 77,266,944 B/sequence
  {"Qwen--Qwen3-Next-80B-A3B-Instruct.json", {101842944, 3530293248, 6596984832}},
  // Qwen--Qwen3-VL-32B-Instruct.json (qwen3_vl):
  //   64 full x 2*8*128*2 = 262,144 B/token
  {"Qwen--Qwen3-VL-32B-Instruct.json", {262144000, 34359738368, 68719476736}},
  // Qwen--Qwen3.5-122B-A10B.json (qwen3_5_moe):
  //   12 full x 2*2*256*2 = 24,576 B/token
  //   36 linear x (gated deltanet conv (4-1)*(2*16*128+64*128)*2 = 73,728 + state 64*128*128*4 = 4,194,304) = 153,649,152 B/sequence
  {"Qwen--Qwen3.5-122B-A10B.json", {178225152, 3835822080, 6749749248}},
  // Qwen--Qwen3.5-27B.json (qwen3_5):
  //   16 full x 2*4*256*2 = 65,536 B/token
  //   48 linear x (gated deltanet conv (4-1)*(2*16*128+48*128)*2 = 61,440 + state 48*128*128*4 = 3,145,728) = 153,944,064 B/sequence
  {"Qwen--Qwen3.5-27B.json", {219480064, 9205710848, 17487757312}},
  // Qwen--Qwen3.5-35B-A3B.json (qwen3_5_moe):
  //   10 full x 2*2*256*2 = 20,480 B/token
  //   30 linear x (gated deltanet conv (4-1)*(2*16*128+32*128)*2 = 49,152 + state 32*128*128*4 = 2,097,152) = 64,389,120 B/sequence
  {"Qwen--Qwen3.5-35B-A3B.json", {84869120, 2941911040, 5497487360}},
  // Qwen--Qwen3.5-397B-A17B.json (qwen3_5_moe):
  //   15 full x 2*2*256*2 = 30,720 B/token
  //   45 linear x (gated deltanet conv (4-1)*(2*16*128+64*128)*2 = 73,728 + state 64*128*128*4 = 4,194,304) = 192,061,440 B/sequence
  {"Qwen--Qwen3.5-397B-A17B.json", {222781440, 4794777600, 8437186560}},
  // Qwen--Qwen3.6-35B-A3B.json (qwen3_5_moe):
  //   10 full x 2*2*256*2 = 20,480 B/token
  //   30 linear x (gated deltanet conv (4-1)*(2*16*128+32*128)*2 = 49,152 + state 32*128*128*4 = 2,097,152) = 64,389,120 B/sequence
  {"Qwen--Qwen3.6-35B-A3B.json", {84869120, 2941911040, 5497487360}},
  // XiaomiMiMo--MiMo-7B-Base.json (mimo):
  //   36 full x 2*8*128*2 = 147,456 B/token
  {"XiaomiMiMo--MiMo-7B-Base.json", {147456000, 19327352832, 38654705664}},
  // XiaomiMiMo--MiMo-V2-Flash.json (mimo_v2_flash):
  //   9 full x 4*(192+128)*2 = 23,040 B/token
  //   39 sliding (W 128) x 8*(192+128)*2 = 199,680 B/token
  {"XiaomiMiMo--MiMo-V2-Flash.json", {48599040, 3122135040, 6090915840}},
  // allenai--Olmo-3.1-32B-Instruct.json (olmo3):
  //   48 sliding (W 4096) x 8*(128+128)*2 = 196,608 B/token
  //   16 full x 2*8*128*2 = 65,536 B/token
  {"allenai--Olmo-3.1-32B-Instruct.json", {262144000, 11811160064, 18790481920}},
  // baidu--ERNIE-4.5-0.3B-Base-PT.json (ernie4_5):
  //   18 full x 2*2*128*2 = 18,432 B/token
  {"baidu--ERNIE-4.5-0.3B-Base-PT.json", {18432000, 2415919104, 4831838208}},
  // bigcode--starcoder2-7b.json (starcoder2):
  //   32 sliding (W 4096) x 4*(128+128)*2 = 65,536 B/token
  {"bigcode--starcoder2-7b.json", {65536000, 1073741824, 536870912}},
  // bigcode--starcoderbase-7b.json (gpt_bigcode):
  //   42 full x 2*1*128*2 = 21,504 B/token
  {"bigcode--starcoderbase-7b.json", {21504000, 2818572288, 5637144576}},
  // deepseek-ai--DeepSeek-R1-0528.json (deepseek_v3):
  //   61 MLA x (512+64)*2 = 70,272 B/token
  {"deepseek-ai--DeepSeek-R1-0528.json", {70272000, 9210691584, 18421383168}},
  // deepseek-ai--DeepSeek-R1-Distill-Qwen-32B.json (qwen2):
  //   64 full x 2*8*128*2 = 262,144 B/token
  {"deepseek-ai--DeepSeek-R1-Distill-Qwen-32B.json", {262144000, 34359738368, 68719476736}},
  // deepseek-ai--DeepSeek-V2-Lite.json (deepseek_v2):
  //   27 MLA x (512+64)*2 = 31,104 B/token
  {"deepseek-ai--DeepSeek-V2-Lite.json", {31104000, 4076863488, 8153726976}},
  // deepseek-ai--DeepSeek-V3.1.json (deepseek_v3):
  //   61 MLA x (512+64)*2 = 70,272 B/token
  {"deepseek-ai--DeepSeek-V3.1.json", {70272000, 9210691584, 18421383168}},
  // deepseek-ai--DeepSeek-V3.2.json (deepseek_v32):
  //   61 MLA x (512+64)*2 = 70,272 B/token
  //   61 indexer x (128 fp8 + 128/128*4 scale) B, fp8 whatever the KV dtype = 8,052 B/token
  {"deepseek-ai--DeepSeek-V3.2.json", {78324000, 10266083328, 20532166656}},
  // google--gemma-2b-it.json (gemma):
  //   18 full x 2*1*256*2 = 18,432 B/token
  {"google--gemma-2b-it.json", {18432000, 2415919104, 4831838208}},
  // google--gemma-3-27b-it.json (gemma3):
  //   52 sliding (W 1024) x 16*(128+128)*2 = 425,984 B/token
  //   10 full x 2*16*128*2 = 81,920 B/token
  {"google--gemma-3-27b-it.json", {507904000, 12482248704, 22347251712}},
  // google--gemma-3-4b-it.json (gemma3):
  //   29 sliding (W 1024) x 4*(256+256)*2 = 118,784 B/token
  //   5 full x 2*4*256*2 = 20,480 B/token
  {"google--gemma-3-4b-it.json", {139264000, 3170893824, 5611978752}},
  // google--gemma-4-26B-A4B.json (gemma4):
  //   25 sliding (W 1024) x 8*(256+256)*2 = 204,800 B/token
  //   5 full x 2*2*512*2 = 20,480 B/token
  {"google--gemma-4-26B-A4B.json", {225280000, 3523215360, 5788139520}},
  // google--medgemma-27b-it.json (gemma3):
  //   52 sliding (W 1024) x 16*(128+128)*2 = 425,984 B/token
  //   10 full x 2*16*128*2 = 81,920 B/token
  {"google--medgemma-27b-it.json", {507904000, 12482248704, 22347251712}},
  // ibm-granite--granite-3.1-1b-a400m-instruct.json (granitemoe):
  //   24 full x 2*8*64*2 = 49,152 B/token
  {"ibm-granite--granite-3.1-1b-a400m-instruct.json", {49152000, 6442450944, 12884901888}},
  // meta-llama--Llama-3.1-8B-Instruct.json (llama):
  //   32 full x 2*8*128*2 = 131,072 B/token
  {"meta-llama--Llama-3.1-8B-Instruct.json", {131072000, 17179869184, 34359738368}},
  // meta-llama--Llama-3.2-90B-Vision-Instruct.json (mllama):
  //   80 full x 2*8*128*2 = 327,680 B/token
  //   20 cross x 2*8*128*2 * 6404 encoder tokens (4 tiles x ((560/14)^2+1)) = 524,615,680 B/sequence
  {"meta-llama--Llama-3.2-90B-Vision-Instruct.json", {852295680, 45048135680, 86948577280}},
  // meta-llama--Llama-4-Scout-17B-16E-Instruct.json (llama4):
  //   36 chunked (chunk 8192) x 2*8*128*2 = 147,456 B/token
  //   12 NoPE full x 2*8*128*2 = 49,152 B/token
  {"meta-llama--Llama-4-Scout-17B-16E-Instruct.json", {196608000, 11274289152, 15300820992}},
  // microsoft--Phi-3.5-mini-instruct.json (phi3):
  //   32 sliding (W 262144) x 32*(96+96)*2 = 393,216 B/token
  {"microsoft--Phi-3.5-mini-instruct.json", {393216000, 51539607552, 103079215104}},
  // microsoft--Phi-mini-MoE-instruct.json (phimoe):
  //   32 sliding (W 2047) x 8*(128+128)*2 = 131,072 B/token
  {"microsoft--Phi-mini-MoE-instruct.json", {131072000, 1073217536, 536608768}},
  // microsoft--phi-2.json (phi):
  //   32 full x 2*32*80*2 = 327,680 B/token
  {"microsoft--phi-2.json", {327680000, 42949672960, 85899345920}},
  // mistralai--Devstral-Small-2507.json (mistral):
  //   40 full x 2*8*128*2 = 163,840 B/token
  {"mistralai--Devstral-Small-2507.json", {163840000, 21474836480, 42949672960}},
  // mistralai--Mistral-Nemo-Instruct-2407.json (mistral):
  //   40 full x 2*8*128*2 = 163,840 B/token
  {"mistralai--Mistral-Nemo-Instruct-2407.json", {163840000, 21474836480, 42949672960}},
  // mistralai--Mixtral-8x7B-v0.1.json (mixtral):
  //   32 full x 2*8*128*2 = 131,072 B/token
  {"mistralai--Mixtral-8x7B-v0.1.json", {131072000, 17179869184, 34359738368}},
  // moonshotai--Kimi-K2-Instruct.json (kimi_k2):
  //   61 MLA x (512+64)*2 = 70,272 B/token
  {"moonshotai--Kimi-K2-Instruct.json", {70272000, 9210691584, 18421383168}},
  // moonshotai--Kimi-K2.5.json (kimi_k25):
  //   61 MLA x (512+64)*2 = 70,272 B/token
  {"moonshotai--Kimi-K2.5.json", {70272000, 9210691584, 18421383168}},
  // moonshotai--Kimi-K3.json (kimi_linear):
  //   24 MLA x (512+64)*2 = 27,648 B/token
  //   69 KDA x conv (4-1)*3*96*128*2 = 221,184 + state 96*128*128*4 = 6,291,456 = 449,372,160 B/sequence
  {"moonshotai--Kimi-K3.json", {477020160, 5421367296, 8146501632}},
  // nvidia--Llama-3_3-Nemotron-Super-49B-v1.json (nemotron-nas):
  //   49 full x 2*8*128*2 = 200,704 B/token
  //   31 attention no_op / linear: no cache
  {"nvidia--Llama-3_3-Nemotron-Super-49B-v1.json", {200704000, 26306674688, 52613349376}},
  // nvidia--Llama-3_3-Nemotron-Super-49B-v1_5.json (nemotron-nas):
  //   49 full x 2*8*128*2 = 200,704 B/token
  //   31 attention no_op / linear: no cache
  {"nvidia--Llama-3_3-Nemotron-Super-49B-v1_5.json", {200704000, 26306674688, 52613349376}},
  // nvidia--NVIDIA-Nemotron-3-Nano-30B-A3B-BF16.json (nemotron_h):
  //   6 full x 2*2*128*2 = 6,144 B/token
  //   23 Mamba-2 x (mamba2 conv (4-1)*(4096+2*8*128)*2 = 36,864 + ssm 64*64*128*4 = 2,097,152) = 49,082,368 B/sequence
  {"nvidia--NVIDIA-Nemotron-3-Nano-30B-A3B-BF16.json", {55226368, 1001635840, 1708777472}},
  // nvidia--NVIDIA-Nemotron-3-Ultra-550B-A55B-BF16.json (nemotron_h):
  //   12 full x 2*2*128*2 = 12,288 B/token
  //   48 Mamba-2 x (mamba2 conv (4-1)*(16384+2*8*128)*2 = 110,592 + ssm 256*64*128*4 = 8,388,608) = 407,961,600 B/sequence
  {"nvidia--NVIDIA-Nemotron-3-Ultra-550B-A55B-BF16.json", {420249600, 3242459136, 4037148672}},
  // nvidia--Nemotron-H-56B-Base-8K.json (nemotron_h):
  //   10 full x 2*8*128*2 = 40,960 B/token
  //   54 Mamba-2 x (mamba2 conv (4-1)*(16384+2*8*256)*2 = 122,880 + ssm 256*64*256*4 = 16,777,216) = 912,605,184 B/sequence
  {"nvidia--Nemotron-H-56B-Base-8K.json", {953565184, 9019129856, 12562628608}},
  // openai--gpt-oss-20b.json (gpt_oss):
  //   12 sliding (W 128) x 8*(64+64)*2 = 24,576 B/token
  //   12 full x 2*8*64*2 = 24,576 B/token
  {"openai--gpt-oss-20b.json", {27721728, 3233808384, 6448742400}},
  // openai--whisper-tiny.json (whisper):
  //   4 full x 2*6*64*2 = 6,144 B/token
  //   4 cross x 2*6*64*2 * 1500 encoder frames = 9,216,000 B/sequence
  {"openai--whisper-tiny.json", {15360000, 842170368, 1629044736}},
  // tencent--Hunyuan-A13B-Instruct.json (hunyuan):
  //   32 full x 2*8*128*2 = 131,072 B/token
  {"tencent--Hunyuan-A13B-Instruct.json", {131072000, 17179869184, 34359738368}},
  // zai-org--GLM-4.5.json (glm4_moe):
  //   92 full x 2*8*128*2 = 376,832 B/token
  {"zai-org--GLM-4.5.json", {376832000, 49392123904, 98784247808}},
  // zai-org--GLM-5.1.json (glm_moe_dsa):
  //   78 MLA x (512+64)*2 = 89,856 B/token
  //   78 indexer x (128 fp8 + 128/128*4 scale) B, fp8 whatever the KV dtype = 10,296 B/token
  {"zai-org--GLM-5.1.json", {100152000, 13127122944, 26254245888}},
  // zai-org--GLM-5.json (glm_moe_dsa):
  //   78 MLA x (512+64)*2 = 89,856 B/token
  //   78 indexer x (128 fp8 + 128/128*4 scale) B, fp8 whatever the KV dtype = 10,296 B/token
  {"zai-org--GLM-5.json", {100152000, 13127122944, 26254245888}},
};
// clang-format on

ModelSpec read_file(const std::string& name) {
  return read_hf_config_text(test::slurp(kDir / name), name, name);
}

}  // namespace

TEST_CASE("real config.json files: KV bytes of three shapes, exact", "[config][arch]") {
  const DType& bf16 = *find_dtype(kv_dtypes(), "bf16");
  for (const Row& row : kRows) {
    INFO(row.file);
    const ModelSpec m = read_file(row.file);
    for (std::size_t i = 0; i < kShapes.size(); ++i) {
      Deployment d;
      d.batch = kShapes[i].batch;
      d.seq_len = kShapes[i].tokens;
      d.kv_dtype = bf16;
      d.block_size = 1;
      INFO(kShapes[i].batch << " x " << kShapes[i].tokens);
      CHECK(kv_cache_bytes_per_gpu(m, d) == row.bytes[i]);
    }
  }
}

TEST_CASE("the config table covers 40+ architectures, each file with its source", "[config][arch]") {
  // SOURCES.tsv: file, hf_id, model_type, repository, path, commit, url, verbatim
  std::istringstream sources(test::slurp(kDir / "SOURCES.tsv"));
  std::string line;
  std::getline(sources, line);
  std::set<std::string> listed;
  std::map<std::string, std::string> type_of;
  while (std::getline(sources, line)) {
    std::vector<std::string> cols;
    std::istringstream cells(line);
    for (std::string cell; std::getline(cells, cell, '\t');) {
      cols.push_back(cell);
    }
    REQUIRE(cols.size() >= 7);
    INFO(cols[0]);
    CHECK(std::filesystem::exists(kDir / cols[0]));
    CHECK(cols[5].size() == 40);                                  // a full commit hash
    CHECK(cols[6].rfind("https://github.com/" + cols[3] + "/blob/" + cols[5] + "/", 0) == 0);
    listed.insert(cols[0]);
    type_of[cols[0]] = cols[2].substr(0, cols[2].find(' '));
  }
  for (const auto& entry : std::filesystem::directory_iterator(kDir)) {
    if (entry.path().extension() == ".json") {
      INFO(entry.path().filename().string());
      CHECK(listed.count(entry.path().filename().string()) == 1);
    }
  }
  std::set<std::string> sized;
  std::set<std::string> types;  // of the files sized above (refused ones do not count)
  for (const Row& row : kRows) {
    CHECK(listed.count(row.file) == 1);
    sized.insert(row.file);
    types.insert(type_of[row.file]);
  }
  CHECK(sized.size() >= 60);
  CHECK(types.size() >= 40);
}

TEST_CASE("Gemma-3 4B and 27B as published: the omitted keys take Gemma3TextConfig's defaults", "[config][arch]") {
  // google/gemma-3-4b-it's text_config names neither num_attention_heads nor num_key_value_heads,
  // head_dim or vocab_size; transformers Gemma3TextConfig supplies 8, 4, 256 and 262,208.
  const ModelSpec four = read_file("google--gemma-3-4b-it.json");
  REQUIRE(four.layers.size() == 2);
  CHECK(four.layers[0].count == 29);
  CHECK(std::get<SlidingWindow>(four.layers[0].spec).attention == FullAttention{4, 256, {}});
  CHECK(std::get<SlidingWindow>(four.layers[0].spec).window_tokens == 1024);
  CHECK(four.layers[1].count == 5);
  CHECK(four.params.embedding == 262'208ull * 2560);
  const ModelSpec big = read_file("google--gemma-3-27b-it.json");
  REQUIRE(big.layers.size() == 2);
  CHECK(big.layers[0].count + big.layers[1].count == 62);
  CHECK(std::get<SlidingWindow>(big.layers[0].spec).attention == FullAttention{16, 128, {}});
  CHECK(big.params.embedding == 262'208ull * 5376);
}

TEST_CASE("a layer kind kvplan cannot size is refused by name, with its key", "[config][arch][errors]") {
  // MiniMax-M3: sparse_attention_config, a sparse attention whose cache vLLM sizes with its own spec
  CHECK_THROWS_WITH(read_file("MiniMaxAI--MiniMax-M3.json"),
                    Catch::StartsWith("MiniMaxAI--MiniMax-M3.json: /model_type: kvplan cannot size model_type "
                                      "'minimax_m3' (MiniMaxM3ForCausalLM)"));
}
