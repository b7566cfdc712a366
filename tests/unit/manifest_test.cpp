// The manifest reader's edges: node labels and instance types to GPUs (each value from the sources
// in src/app/gpu_labels.cpp), hostile YAML (an alias bomb, invalid syntax, 100,000 documents, deep
// nesting), manifests with no serving container or two, non-literal $(VAR) values, standard input
// and SARIF output.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <sstream>

#include "commands.hpp"
#include "deployment.hpp"
#include "kvplan/cli.hpp"
#include "kvplan/error.hpp"
#include "kvplan/gpus.hpp"

namespace {

std::string gpu_of(std::string_view key, std::string_view value) {
  const auto label = kvplan::gpu_from_label(key, value);
  return label && label->gpu != nullptr ? std::string(label->gpu->name) : std::string("-");
}

// A Deployment of Llama-3.1-8B on GPUs chosen by `selector`, with `extra` lines in the pod spec.
std::string deployment(const std::string& selector, const std::string& args = "[\"--max-model-len\", \"8192\"]") {
  return "apiVersion: apps/v1\n"
         "kind: Deployment\n"
         "metadata:\n"
         "  name: llama\n"
         "spec:\n"
         "  template:\n"
         "    spec:\n"
         "      nodeSelector: {" + selector + "}\n"
         "      containers:\n"
         "      - name: vllm\n"
         "        image: vllm/vllm-openai:v0.11.0\n"
         "        args: " + args + "\n"
         "        command: [vllm, serve, meta-llama/Llama-3.1-8B-Instruct]\n"
         "        resources: {limits: {nvidia.com/gpu: 1}}\n";
}

kvplan::cli::ManifestEntry only(const std::string& text) {
  const auto entries = kvplan::cli::read_manifest_text(text, "m.yaml", {});
  REQUIRE(entries.size() == 1);
  return entries.front();
}

}  // namespace

TEST_CASE("node labels and instance types name the GPU", "[manifest]") {
  // GPU Feature Discovery: the reported name with spaces as dashes; -SHARED dropped; -MIG-<profile>
  // names the instance (k8s-device-plugin docs/gpu-feature-discovery/README.md: "A100-SXM4-40GB-MIG-1g.5gb"),
  // whose memory is a fraction of the GPU's: the catalog's instance, never the whole GPU.
  CHECK(gpu_of("nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3") == "H100-SXM");
  CHECK(gpu_of("nvidia.com/gpu.product", "NVIDIA-A100-SXM4-40GB-MIG-3g.20gb") == "A100-40GB-MIG-3g.20gb");
  CHECK(gpu_of("nvidia.com/gpu.product", "A100-SXM4-40GB-MIG-1g.5gb") == "A100-40GB-MIG-1g.5gb");
  CHECK(kvplan::gpu_from_reported_name("NVIDIA H200 MIG 1g.18gb")->name == "H200-MIG-1g.18gb");
  CHECK(kvplan::gpu_from_reported_name("NVIDIA A100-SXM4-80GB MIG 1g.10gb")->name == "A100-80GB-MIG-1g.10gb");
  CHECK(kvplan::gpu_from_reported_name("NVIDIA A100-SXM4-80GB MIG 1g.20gb") == nullptr);  // no citable size: not the whole GPU
  CHECK(gpu_of("nvidia.com/gpu.product", "NVIDIA-A100-SXM4-80GB") == "A100-80GB");
  CHECK(gpu_of("nvidia.com/gpu.product", "Tesla-T4-SHARED") == "T4");
  CHECK(gpu_of("nvidia.com/gpu.product", "NVIDIA-GeForce-RTX-4090") == "RTX-4090");
  CHECK(gpu_of("nvidia.com/gpu.product", "NVIDIA-GH200-480GB") == "GH200");
  // The 16 GB V100 is not catalogued (docs/gpus.md, "Not found"): refused, not read as the 32 GB one.
  CHECK_THROWS_AS(kvplan::gpu_from_label("nvidia.com/gpu.product", "Tesla-V100-SXM2-16GB"), kvplan::Error);
  // GKE: nvidia-tesla-a100 is the 40 GB part.
  CHECK(gpu_of("cloud.google.com/gke-accelerator", "nvidia-tesla-a100") == "A100-40GB");
  CHECK(gpu_of("cloud.google.com/gke-accelerator", "nvidia-a100-80gb") == "A100-80GB");
  CHECK(gpu_of("cloud.google.com/gke-accelerator", "nvidia-l4") == "L4");
  CHECK(gpu_of("cloud.google.com/gke-accelerator", "nvidia-h200-141gb") == "H200");
  // Karpenter: a100 alone is the smaller part; with instance-gpu-memory 81920 MiB, the 80 GB one (p4de).
  CHECK(gpu_of("karpenter.k8s.aws/instance-gpu-name", "a100") == "A100-40GB");
  CHECK(kvplan::gpu_from_karpenter("a100", 81920)->name == "A100-80GB");
  CHECK(gpu_of("karpenter.k8s.aws/instance-gpu-name", "l40s") == "L40S");
  // Instance types give the GPUs per node too.
  const auto p4de = kvplan::gpu_from_label("node.kubernetes.io/instance-type", "p4de.24xlarge");
  REQUIRE(p4de);
  CHECK(p4de->gpu->name == "A100-80GB");
  CHECK(p4de->per_node == 8);
  CHECK(kvplan::gpu_from_label("node.kubernetes.io/instance-type", "g5.12xlarge")->per_node == 4);
  CHECK(gpu_of("node.kubernetes.io/instance-type", "a3-highgpu-8g") == "H100-SXM");
  CHECK(gpu_of("beta.kubernetes.io/instance-type", "Standard_ND96amsr_A100_v4") == "A100-80GB");
  CHECK_FALSE(kvplan::gpu_from_label("node.kubernetes.io/instance-type", "m5.large"));  // no GPU
  CHECK_FALSE(kvplan::gpu_from_label("kubernetes.io/os", "linux"));
  // Reported names, as nvidia-smi prints them (and 450.x drivers without "NVIDIA ").
  CHECK(kvplan::gpu_from_reported_name("NVIDIA H100 80GB HBM3")->name == "H100-SXM");
  CHECK(kvplan::gpu_from_reported_name("A100-SXM4-80GB")->name == "A100-80GB");
  // A GH200 is budgeted from its HBM: vLLM's psutil path is for integrated GPUs only (docs/gpus.md).
  CHECK(kvplan::gpu_from_reported_name("NVIDIA GH200 480GB")->name == "GH200");
  CHECK(kvplan::gpu_from_reported_name("NVIDIA GH200 480GB")->memory_bytes == 102'005'473'280);  // deviceQuery
  CHECK(kvplan::gpu_from_reported_name("NVIDIA GH200 144G HBM3e")->name == "GH200-144GB");
  CHECK(kvplan::gpu_from_reported_name("NVIDIA RTX A5000")->name == "RTX-A5000");
  CHECK(kvplan::gpu_from_reported_name("NVIDIA RTX A4000")->name == "RTX-A4000");
  CHECK(kvplan::gpu_from_reported_name("NVIDIA GeForce RTX 5080")->name == "RTX-5080");
  CHECK(kvplan::gpu_from_reported_name("NVIDIA A10")->name == "A10");
  CHECK(kvplan::gpu_from_reported_name("NVIDIA A10G")->name == "A10G");
  // SkyPilot: "A100" is the 40 GB part; A10 is not A10G.
  CHECK(kvplan::gpu_from_skypilot("A10")->name == "A10");
  CHECK(kvplan::gpu_from_skypilot("A10G")->name == "A10G");
  CHECK(kvplan::gpu_from_skypilot("A100")->name == "A100-40GB");
  CHECK(kvplan::gpu_from_skypilot("A100-80GB")->name == "A100-80GB");
}

TEST_CASE("manifests: the GPU, the count and the model as the manifest states them", "[manifest]") {
  const auto e = only(deployment("node.kubernetes.io/instance-type: p5.48xlarge"));
  REQUIRE(e.deployment);
  CHECK(e.deployment->request.hardware.gpu->name == "H100-SXM");
  CHECK(e.deployment->request.hardware.count == 1u);  // the container's nvidia.com/gpu, not the node's 8
  CHECK(e.deployment->request.model_spec().name == "llama-3.1-8b");
  CHECK(e.deployment->request.version.text == "v0.11.0");
  // The finding's line for --max-model-len is the args line (12).
  CHECK(e.deployment->args_line == 12);
  // Karpenter's two labels together.
  const auto k = only(deployment("karpenter.k8s.aws/instance-gpu-name: a100, karpenter.k8s.aws/instance-gpu-memory: \"81920\""));
  REQUIRE(k.deployment);
  CHECK(k.deployment->request.hardware.gpu->name == "A100-80GB");
}

TEST_CASE("manifests: every workload kind reaches its pod template", "[manifest]") {
  // The same container under each kind's path to its pods (the Kubernetes API reference: Pod
  // spec.containers; Job and DaemonSet spec.template; CronJob spec.jobTemplate.spec.template; a
  // List's items).
  const std::string container =
      "- name: vllm\n"
      "  image: vllm/vllm-openai:v0.11.0\n"
      "  args: [--model, meta-llama/Llama-3.1-8B-Instruct, --max-model-len, \"8192\"]\n"
      "  resources: {limits: {nvidia.com/gpu: 2}}\n";
  auto indent = [&](int n) {
    std::string out;
    for (std::size_t p = 0; p < container.size();) {
      const std::size_t q = container.find('\n', p);
      out += std::string(static_cast<std::size_t>(n), ' ') + container.substr(p, q - p + 1);
      p = q + 1;
    }
    return out;
  };
  const std::string selector = "nodeSelector: {cloud.google.com/gke-accelerator: nvidia-l4}\n";
  const std::vector<std::pair<std::string, std::string>> kinds = {
      {"Pod", "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  " + selector + "  containers:\n" + indent(2)},
      {"Job", "apiVersion: batch/v1\nkind: Job\nmetadata: {name: p}\nspec:\n  template:\n    spec:\n      " + selector +
                  "      containers:\n" + indent(6)},
      {"DaemonSet", "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: p}\nspec:\n  template:\n    spec:\n      " +
                        selector + "      containers:\n" + indent(6)},
      {"CronJob", "apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: p}\nspec:\n  jobTemplate:\n    spec:\n      "
                  "template:\n        spec:\n          " + selector + "          containers:\n" + indent(10)},
      {"List", "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: p}\n  spec:\n    " +
                   selector + "    containers:\n" + indent(4)},
  };
  for (const auto& [kind, text] : kinds) {
    INFO(kind << ":\n" << text);
    const auto e = only(text);
    REQUIRE(e.deployment);
    CHECK(e.deployment->request.hardware.gpu->name == "L4");
    CHECK(e.deployment->request.hardware.count == 2u);
    CHECK(e.deployment->request.model_spec().name == "llama-3.1-8b");
  }
}

TEST_CASE("manifests: hostile YAML is one error with its line, bounded", "[manifest][hostile]") {
  using kvplan::cli::read_manifest_text;
  // Invalid YAML: the file, line and column.
  try {
    (void)read_manifest_text("kind: Pod\nspec: [1,\n c: 2\n", "bad.yaml", {});
    FAIL("no error");
  } catch (const kvplan::Error& e) {
    CHECK(std::string(e.what()).rfind("bad.yaml:", 0) == 0);
    CHECK(std::string(e.what()).find("not valid YAML") != std::string::npos);
  }
  // Billion laughs: 9 levels of 9 aliases (9^9 = 387,420,489 strings when expanded), used as a
  // container's args. yaml-cpp shares aliased nodes and kvplan never expands them: one error, at once.
  std::string bomb = "x-bomb:\n  a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n";
  char prev = 'a';
  for (char c = 'b'; c <= 'i'; ++c) {
    bomb += std::string("  ") + c + ": &" + c + " [";
    for (int k = 0; k < 9; ++k) {
      bomb += std::string(k == 0 ? "" : ", ") + "*" + prev;
    }
    bomb += "]\n";
    prev = c;
  }
  std::string doc = deployment("nvidia.com/gpu.product: NVIDIA-L4", "*i");
  doc.insert(doc.find("metadata:"), bomb);
  const auto e = read_manifest_text(doc, "bomb.yaml", {});
  REQUIRE(e.size() == 1);
  CHECK_FALSE(e.front().deployment);
  CHECK(e.front().error.find("args must be a single value") != std::string::npos);
  // 100,000 documents: read, and the one serving container among them found.
  std::string many;
  for (int i = 0; i < 100'000; ++i) {
    many += "---\nkind: ConfigMap\n";
  }
  many += "---\n" + deployment("cloud.google.com/gke-accelerator: nvidia-l4");
  CHECK(read_manifest_text(many, "many.yaml", {}).size() == 1);
  // Deep nesting: yaml-cpp's depth guard, as an error.
  CHECK_THROWS_AS(read_manifest_text(std::string(5000, '['), "deep.yaml", {}), kvplan::Error);
  // A long value behind aliases: a List of 1,000 aliases of a Deployment whose env holds 100 aliases
  // of a 4,000-character value (400 MB read in full, from a 9 KB file). The reader stops at 16 MiB
  // of text: the items read before are checked, the list is one error.
  const std::string value(4000, 'x');
  std::string text = "x-v: &v \"" + value + "\"\nx-e: &e {name: E, value: *v}\nx-d: &d\n";
  std::string d = deployment("nvidia.com/gpu.product: NVIDIA-L4", "[--max-model-len, \"8192\"]");
  std::string refs_e = "        env: [*e";
  for (int i = 1; i < 100; ++i) {
    refs_e += ", *e";
  }
  d.insert(d.find("        resources"), refs_e + "]\n");
  for (std::size_t start = 0; start < d.size();) {  // indented under x-d
    const std::size_t end = d.find('\n', start);
    text += "  " + d.substr(start, end - start + 1);
    start = end + 1;
  }
  text += "apiVersion: v1\nkind: List\nitems: [*d";
  for (int i = 1; i < 1000; ++i) {
    text += ", *d";
  }
  text += "]\n";
  const auto list = read_manifest_text(text, "list.yaml", {});
  REQUIRE(list.size() > 1);
  CHECK(list.size() < 100);
  CHECK(list.front().error.find("more than 16 MiB of text") != std::string::npos);
  // $(VAR) past what execve(2) takes: one argument over 128 KiB (MAX_ARG_STRLEN), or arguments over
  // 2 MiB together; a script's $VAR has no kernel bound, and kvplan reads 2 MiB of it.
  const std::string env = "        env: [{name: A, value: \"" + value + "\"}]\n";
  std::string refs;
  for (int i = 0; i < 40; ++i) {
    refs += "$(A)";
  }
  const auto arg = only(deployment("nvidia.com/gpu.product: NVIDIA-L4", "[\"" + refs + "\"]") + env);
  CHECK(arg.error.find("the argument on line 12 expands to more than 128 KiB") != std::string::npos);
  std::string args = "[*w";
  for (int i = 1; i < 600; ++i) {
    args += ", *w";
  }
  const auto all = only("x-w: &w \"" + refs.substr(0, 8 * 4) + "\"\n" +
                        deployment("nvidia.com/gpu.product: NVIDIA-L4", args + "]") + env);
  CHECK(all.error.find("the command line expands to more than 2 MiB") != std::string::npos);
  std::string script = deployment("nvidia.com/gpu.product: NVIDIA-L4", "[]") + env;
  std::string shell_refs;
  for (int i = 0; i < 1000; ++i) {
    shell_refs += "$A";
  }
  script.replace(script.find("[vllm, serve, "), 0, "[sh, -c, \"vllm serve meta-llama/Llama-3.1-8B-Instruct " +
                                                       shell_refs + "\"]\n        x-was: ");  // the old command, out of the way
  const auto sh = only(script);
  CHECK(sh.error.find("the script on line 13 expands to more than 2 MiB") != std::string::npos);
}

TEST_CASE("manifests: no serving container, two of them, and values that are not literal", "[manifest]") {
  using kvplan::cli::read_manifest_text;
  CHECK(read_manifest_text("apiVersion: v1\nkind: Service\nmetadata: {name: x}\n", "svc.yaml", {}).empty());
  // Two engines in one pod: each is checked with its own GPUs.
  std::string two = deployment("nvidia.com/gpu.product: NVIDIA-L4");
  two += "      - name: second\n"
         "        image: lmsysorg/sglang:v0.5.4\n"
         "        command: [python3, -m, sglang.launch_server, --model-path, meta-llama/Llama-3.1-8B-Instruct]\n"
         "        resources: {limits: {nvidia.com/gpu: 2}}\n";
  const auto both = read_manifest_text(two, "two.yaml", {});
  REQUIRE(both.size() == 2);
  CHECK(both[0].name == "Deployment/llama (container vllm)");
  CHECK(both[1].name == "Deployment/llama (container second)");
  REQUIRE(both[1].deployment);
  CHECK(both[1].deployment->request.hardware.count == 2u);
  // $(MAX_LEN) from a secret: the value kvplan needs cannot be read, an error naming it; the
  // literal $(TP) is substituted as Kubernetes does.
  const std::string secret_env = "        env:\n"
                                 "        - {name: TP, value: \"1\"}\n"
                                 "        - name: MAX_LEN\n"
                                 "          valueFrom: {secretKeyRef: {name: s, key: k}}\n"
                                 "        - name: NAME\n"
                                 "          valueFrom: {fieldRef: {fieldPath: metadata.name}}\n"
                                 "        - name: QUANT\n"
                                 "          valueFrom: {configMapKeyRef: {name: c, key: q}}\n";
  const auto v = only(deployment("nvidia.com/gpu.product: NVIDIA-L4",
                                 "[\"--max-model-len\", \"$(MAX_LEN)\", \"--tensor-parallel-size\", \"$(TP)\"]") +
                      secret_env);
  REQUIRE_FALSE(v.deployment);
  CHECK(v.error.find("$(MAX_LEN)") != std::string::npos);
  // A non-literal value of a flag that does not change memory is accepted silently; one that
  // does (--quantization) is a warning naming the file and line.
  const auto w = only(deployment("nvidia.com/gpu.product: NVIDIA-L4",
                                 "[\"--served-model-name\", \"$(NAME)\", \"--quantization\", \"$(QUANT)\"]") +
                      secret_env);
  REQUIRE(w.deployment);
  REQUIRE(w.warnings.size() == 1);
  CHECK(w.warnings.front().rfind("m.yaml:12: QUANT is not a literal value", 0) == 0);
}

TEST_CASE("check - reads standard input; --format sarif points at the file and line", "[manifest][check]") {
  kvplan::cli::CheckOptions o;
  o.files = {"-"};
  o.format = "sarif";
  std::istringstream in(deployment("nvidia.com/gpu.product: NVIDIA-L4", "[\"--max-model-len\", \"131072\"]"));
  o.input = &in;
  std::ostringstream out;
  std::ostringstream err;
  // Llama-3.1-8B at 131,072 tokens on one L4: vLLM refuses to start (16 GiB of KV for one request).
  CHECK(kvplan::cli::run_check(o, out, err) == 1);
  const auto j = nlohmann::json::parse(out.str());
  CHECK(j.at("version") == "2.1.0");
  const auto& results = j.at("runs").at(0).at("results");
  const auto& fail = results.back();
  CHECK(fail.at("ruleId") == "kvplan/does-not-fit");
  CHECK(fail.at("level") == "error");
  const auto& where = fail.at("locations").at(0).at("physicalLocation");
  CHECK(where.at("artifactLocation").at("uri") == "stdin");
  CHECK(where.at("region").at("startLine") == 12);  // the line of --max-model-len
}
