// Manifests for `kvplan check`: the YAML files CI holds (Kubernetes workloads and Helm output,
// LeaderWorkerSet, KServe, the vLLM production-stack's Helm values, docker-compose, SkyPilot), read
// with yaml-cpp (which keeps line numbers). Each serving container becomes one Deployment: the
// engine and version from its image, its command line from command + args (shell scripts and
// $(VAR) substitution included), the GPU count from its resources and the GPU type from the node
// labels it selects. docs/ci.md documents the kinds and the kvplan.io/ annotations.
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <filesystem>
#include <fmt/format.h>
#include <map>
#include <yaml-cpp/yaml.h>

#include "deployment.hpp"
#include "kvplan/command_line.hpp"
#include "kvplan/error.hpp"
#include "kvplan/gpus.hpp"
#include "kvplan/model_source.hpp"
#include "kvplan/quantity.hpp"
#include "kvplan/text.hpp"
#include "kvplan/units.hpp"

namespace kvplan::cli {
namespace {

// Nodes visited per file: aliases share nodes in yaml-cpp, so a "billion laughs" file parses in
// microseconds, but walking it would not end; the walk stops here.
constexpr std::size_t kMaxVisits = 2'000'000;
constexpr std::size_t kMaxDocuments = 200'000;
// Bytes of scalar text per file: an alias repeats a long scalar for the cost of a few bytes, and
// each copy the reader keeps is memory (a fuzzed 5 KB file reached 2 GB before this bound).
constexpr std::size_t kMaxText = 16ull << 20;

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// yaml-cpp: a missing key of a const map is an invalid node, and asking an invalid node its type
// throws; these ask IsDefined() first.
bool is_map(const YAML::Node& n) { return n.IsDefined() && n.IsMap(); }
bool is_seq(const YAML::Node& n) { return n.IsDefined() && n.IsSequence(); }
bool is_scalar(const YAML::Node& n) { return n.IsDefined() && n.IsScalar(); }

struct Word {
  std::string text;
  std::uint32_t line = 1;
};

struct Container {
  std::string name;
  std::string image;
  std::uint32_t line = 1;
  std::vector<Word> command;          // replaces the image's entrypoint
  bool has_command = false;
  std::vector<Word> args;
  std::uint32_t args_line = 0;        // the line of `args:` (or `command:`)
  std::vector<std::pair<std::string, std::string>> env;  // literal values
  std::vector<std::string> env_unknown;                   // names set from secrets, fields, config maps
  std::optional<std::uint32_t> gpus;
  bool gpus_all = false;              // docker-compose count: all
  std::optional<Word> model;          // the model, where the manifest names it outside the command (KServe)
  std::vector<std::pair<std::string, std::string>> mounts;  // volumeMounts: mount path, volume name
};

struct GpuHint {
  std::string key;
  std::string value;
  std::uint32_t line = 1;
};

// One pod template (or compose service, or SkyPilot task) and what surrounds it.
struct Workload {
  std::string kind;                   // "Deployment", "docker-compose service", ...
  std::string name;
  std::uint32_t line = 1;
  std::string source;                 // Helm's "# Source:" comment, when the file is helm template output
  std::vector<Container> containers;
  std::uint32_t replicas = 1;         // independent copies (Deployment replicas, LWS groups)
  std::uint32_t pods = 1;             // pods of one copy (LeaderWorkerSet size)
  std::optional<std::uint32_t> worker_gpus;  // GPUs of each further pod (LWS workers)
  std::optional<std::uint32_t> node_gpus;    // GPUs per node where the task says so (SkyPilot)
  std::vector<GpuHint> gpu_hints;
  std::map<std::string, std::pair<std::string, std::uint32_t>> annotations;  // kvplan.io/...
  std::vector<std::pair<std::string, std::string>> env;  // set by the controller (LWS_GROUP_SIZE)
  bool gpu_type_from_skypilot = false;
  std::vector<std::string> warnings;
  std::map<std::string, std::string> volumes;  // the pod's volumes: name -> what it is
  std::map<std::string, std::string> config_map_volumes;  // the pod's configMap volumes: name -> ConfigMap
  std::string count_key = "nvidia.com/gpu";  // where the GPU count is set, for fixes that change it
};

class Reader {
 public:
  Reader(const std::string& path, const std::string& text) : path_(path), text_(text) {}

  void visit() {
    if (++visits_ > kMaxVisits) {
      throw Error(fmt::format("{}: the YAML expands to more than {} nodes (aliases of aliases?); kvplan reads "
                              "manifests of at most that size",
                              path_, with_commas(kMaxVisits)));
    }
  }
  [[nodiscard]] static std::uint32_t line(const YAML::Node& n) {
    return n.IsDefined() && n.Mark().line >= 0 ? static_cast<std::uint32_t>(n.Mark().line + 1) : 1;
  }
  [[nodiscard]] std::string at(const YAML::Node& n) const { return fmt::format("{}:{}", path_, line(n)); }
  // The line a scalar's text starts on: a block scalar's (| or >) is the line after its indicator.
  [[nodiscard]] std::uint32_t content_line(const YAML::Node& n) const {
    const std::uint32_t l = line(n);
    if (n.IsDefined() && n.Mark().pos >= 0 && static_cast<std::size_t>(n.Mark().pos) < text_.size()) {
      const char c = text_[static_cast<std::size_t>(n.Mark().pos)];
      return c == '|' || c == '>' ? l + 1 : l;
    }
    return l;
  }
  [[nodiscard]] const std::string& path() const { return path_; }
  [[nodiscard]] const std::string& text() const { return text_; }

  // A map's child, or an undefined node.
  YAML::Node get(const YAML::Node& map, const char* key) {
    visit();
    if (!is_map(map)) {
      return YAML::Node(YAML::NodeType::Undefined);
    }
    return map[key];
  }
  static bool has(const YAML::Node& n) { return n.IsDefined() && !n.IsNull(); }

  std::string scalar(const YAML::Node& n, std::string_view what) {
    if (!is_scalar(n)) {
      visit();
      throw Error(fmt::format("{}: {} must be a single value", at(n), what));
    }
    return value(n);
  }
  // A scalar's text (the caller has asked is_scalar), charged to the file's bound.
  const std::string& value(const YAML::Node& n) {
    visit();
    text_read_ += n.Scalar().size();
    if (text_read_ > kMaxText) {
      throw Error(fmt::format("{}: the YAML expands to more than {} MiB of text (aliases of long values?); kvplan "
                              "reads manifests of at most that size",
                              path_, kMaxText >> 20));
    }
    return n.Scalar();
  }
  std::optional<std::string> optional_scalar(const YAML::Node& map, const char* key) {
    const YAML::Node n = get(map, key);
    if (!has(n)) {
      return std::nullopt;
    }
    return scalar(n, key);
  }
  std::uint32_t count(const YAML::Node& n, std::string_view what, std::uint64_t max = 4096) {
    const std::string s = scalar(n, what);
    try {
      return static_cast<std::uint32_t>(parse_count(what, s, max));
    } catch (const Error& e) {
      throw Error(fmt::format("{}: {}", at(n), e.what()));
    }
  }
  template <typename F>
  void each(const YAML::Node& seq, F&& f) {
    if (!is_seq(seq)) {
      return;
    }
    for (auto it = seq.begin(); it != seq.end(); ++it) {
      visit();
      f(YAML::Node(*it));
    }
  }
  template <typename F>
  void each_pair(const YAML::Node& map, F&& f) {
    if (!is_map(map)) {
      return;
    }
    for (auto it = map.begin(); it != map.end(); ++it) {
      visit();
      if (is_scalar(it->first)) {
        f(value(it->first), YAML::Node(it->second));
      }
    }
  }

  /// The ConfigMaps of the file: name -> its data keys (key, text, line of the text).
  struct ConfigData {
    std::string key;
    std::string text;
    std::uint32_t line = 1;
  };
  std::map<std::string, std::vector<ConfigData>> config_maps;

 private:
  std::string path_;
  const std::string& text_;
  std::size_t visits_ = 0;
  std::size_t text_read_ = 0;
};



// ---- Reading the parts that several kinds share ---------------------------------------------------

std::vector<Word> words_of(Reader& r, const YAML::Node& n, std::string_view what) {
  std::vector<Word> out;
  if (!Reader::has(n)) {
    return out;
  }
  if (is_scalar(n)) {
    // docker-compose's string form: split as a shell would (no expansion).
    const std::uint32_t line = Reader::line(n);
    for (std::string& w : shell_words(r.value(n))) {
      out.push_back({std::move(w), line});
    }
    return out;
  }
  if (!is_seq(n)) {
    throw Error(fmt::format("{}: {} must be a list of strings", r.at(n), what));
  }
  r.each(n, [&](const YAML::Node& item) { out.push_back({r.scalar(item, what), r.content_line(item)}); });
  return out;
}

// Kubernetes env: [{name, value}] (valueFrom: not literal); docker-compose: a map or ["K=V"].
void read_env(Reader& r, const YAML::Node& n, Container& c) {
  if (is_map(n)) {
    r.each_pair(n, [&](const std::string& k, const YAML::Node& v) {
      if (is_scalar(v)) {
        c.env.emplace_back(k, r.value(v));
      } else {
        c.env_unknown.push_back(k);
      }
    });
    return;
  }
  r.each(n, [&](const YAML::Node& item) {
    if (is_scalar(item)) {
      const std::string& s = r.value(item);
      const std::size_t eq = s.find('=');
      if (eq != std::string::npos) {
        c.env.emplace_back(s.substr(0, eq), s.substr(eq + 1));
      }
      return;
    }
    const std::optional<std::string> name = r.optional_scalar(item, "name");
    if (!name) {
      return;
    }
    if (const std::optional<std::string> value = r.optional_scalar(item, "value")) {
      c.env.emplace_back(*name, *value);
    } else {
      c.env_unknown.push_back(*name);
    }
  });
}

// resources.limits (or requests) of nvidia.com/gpu and amd.com/gpu.
std::optional<std::uint32_t> gpu_resources(Reader& r, const YAML::Node& resources) {
  for (const char* part : {"limits", "requests"}) {
    const YAML::Node m = r.get(resources, part);
    for (const char* key : {"nvidia.com/gpu", "amd.com/gpu"}) {
      const YAML::Node n = r.get(m, key);
      if (Reader::has(n)) {
        return r.count(n, fmt::format("resources.{}.{}", part, key));
      }
    }
  }
  return std::nullopt;
}

// What a container runs: its image, the program (Kubernetes' `command`, compose's `entrypoint`)
// replacing the image's, the arguments (`args`, compose's `command`) and the environment.
void read_process(Reader& r, const YAML::Node& n, const char* program_key, const char* args_key, const char* env_key,
                  Container& c) {
  c.image = r.optional_scalar(n, "image").value_or("");
  const YAML::Node program = r.get(n, program_key);
  const YAML::Node args = r.get(n, args_key);
  c.has_command = Reader::has(program);
  c.command = words_of(r, program, program_key);
  c.args = words_of(r, args, args_key);
  c.args_line = Reader::has(args) ? Reader::line(args) : Reader::has(program) ? Reader::line(program) : c.line;
  read_env(r, r.get(n, env_key), c);
}

Container read_container_node(Reader& r, const YAML::Node& n) {
  Container c;
  c.line = Reader::line(n);
  c.name = r.optional_scalar(n, "name").value_or("");
  read_process(r, n, "command", "args", "env", c);
  if (Reader::has(r.get(n, "envFrom"))) {
    c.env_unknown.emplace_back("envFrom");
  }
  c.gpus = gpu_resources(r, r.get(n, "resources"));
  r.each(r.get(n, "volumeMounts"), [&](const YAML::Node& m) {
    const std::optional<std::string> path = r.optional_scalar(m, "mountPath");
    const std::optional<std::string> name = r.optional_scalar(m, "name");
    if (path && name) {
      c.mounts.emplace_back(*path, *name);
    }
  });
  return c;
}

void read_annotations(Reader& r, const YAML::Node& map, Workload& w) {
  r.each_pair(map, [&](const std::string& k, const YAML::Node& v) {
    if (starts_with(k, "kvplan.io/") && is_scalar(v)) {
      w.annotations[k] = {r.value(v), Reader::line(v)};
    }
  });
}

// nodeSelectorTerms (node affinity, production-stack's modelSpec): each `In` expression's values
// are labels that say which GPU the pods run on.
void read_selector_terms(Reader& r, const YAML::Node& terms, Workload& w) {
  r.each(terms, [&](const YAML::Node& term) {
    r.each(r.get(term, "matchExpressions"), [&](const YAML::Node& e) {
      const std::optional<std::string> key = r.optional_scalar(e, "key");
      if (!key || r.optional_scalar(e, "operator").value_or("") != "In") {
        return;
      }
      r.each(r.get(e, "values"), [&](const YAML::Node& v) {
        if (is_scalar(v)) {
          w.gpu_hints.push_back({*key, r.value(v), Reader::line(v)});
        }
      });
    });
  });
}

// nodeSelector and required node affinity: the labels that say which GPU the pods run on.
void read_gpu_hints(Reader& r, const YAML::Node& pod_spec, Workload& w) {
  r.each_pair(r.get(pod_spec, "nodeSelector"), [&](const std::string& k, const YAML::Node& v) {
    if (is_scalar(v)) {
      w.gpu_hints.push_back({k, r.value(v), Reader::line(v)});
    }
  });
  const YAML::Node required =
      r.get(r.get(r.get(pod_spec, "affinity"), "nodeAffinity"), "requiredDuringSchedulingIgnoredDuringExecution");
  read_selector_terms(r, r.get(required, "nodeSelectorTerms"), w);
}

// A pod template ({metadata, spec}) or a pod's spec.
// What each volume of a pod is, for naming a model that lives on one, and which hold a ConfigMap.
void read_volumes(Reader& r, const YAML::Node& spec, Workload& w) {
  r.each(r.get(spec, "volumes"), [&](const YAML::Node& v) {
    const std::optional<std::string> name = r.optional_scalar(v, "name");
    if (!name) {
      return;
    }
    std::string what = "volume '" + *name + "'";
    if (const auto path = r.optional_scalar(r.get(v, "hostPath"), "path")) {
      what += " (hostPath " + *path + ")";
    } else if (const auto claim = r.optional_scalar(r.get(v, "persistentVolumeClaim"), "claimName")) {
      what += " (persistentVolumeClaim " + *claim + ")";
    } else if (const auto map = r.optional_scalar(r.get(v, "configMap"), "name")) {
      what += " (configMap " + *map + ")";
      w.config_map_volumes[*name] = *map;
    }
    w.volumes[*name] = what;
  });
}

void read_pod(Reader& r, const YAML::Node& tmpl, Workload& w, bool is_template) {
  const YAML::Node spec = is_template ? r.get(tmpl, "spec") : tmpl;
  if (is_template) {
    read_annotations(r, r.get(r.get(tmpl, "metadata"), "annotations"), w);
  }
  r.each(r.get(spec, "containers"), [&](const YAML::Node& c) { w.containers.push_back(read_container_node(r, c)); });
  read_gpu_hints(r, spec, w);
  read_volumes(r, spec, w);
}

// ---- Kinds ----------------------------------------------------------------------------------------

void start_workload(Reader& r, const YAML::Node& doc, std::string kind, Workload& w) {
  w.kind = std::move(kind);
  w.line = Reader::line(doc);
  const YAML::Node meta = r.get(doc, "metadata");
  w.name = r.optional_scalar(meta, "name").value_or("");
  read_annotations(r, r.get(meta, "annotations"), w);
}

std::uint32_t replicas_of(Reader& r, const YAML::Node& spec, const char* key = "replicas") {
  const YAML::Node n = r.get(spec, key);
  if (!Reader::has(n)) {
    return 1;
  }
  const std::string s = r.scalar(n, key);
  if (s == "0") {
    return 1;  // scaled to zero: checked as one replica, the shape it scales back to
  }
  return r.count(n, key, 100'000);
}

// KServe's huggingface runtime: its own flags (kserve python/huggingfaceserver/huggingfaceserver/
// __main__.py, the argparse parser) come before the engine's; the rest are the engine's arguments.
// The runtime image (config/runtimes/kserve-huggingfaceserver.yaml) runs its server on the engine.
constexpr std::string_view kKserveHfImage = "kserve/huggingfaceserver";

struct KserveFlag {
  std::string_view flag;
  bool value;
};
// The huggingfaceserver parser's own flags and those of its parent, kserve.model_server.parser
// (python/kserve/kserve/model_server.py); --max_model_len and --dtype are vLLM's as well.
constexpr KserveFlag kKserveFlags[] = {
    {"--model_dir", true}, {"--model_id", true}, {"--model_revision", true}, {"--tokenizer_revision", true},
    {"--tensor_input_names", true}, {"--backend", true}, {"--model_name", true}, {"--http_port", true},
    {"--grpc_port", true}, {"--workers", true}, {"--max_threads", true}, {"--max_asyncio_workers", true},
    {"--predictor_host", true}, {"--predictor_protocol", true}, {"--predictor_request_timeout_seconds", true},
    {"--log_config_file", true}, {"--access_log_format", true}, {"--disable_lower_case", false},
    {"--disable_special_tokens", false}, {"--return_token_type_ids", false}, {"--return_probabilities", false},
    {"--disable_log_requests", false}, {"--enable_grpc", false}, {"--predictor_use_ssl", false},
    {"--configure_logging", false}, {"--enable_latency_logging", false}, {"--enable_docs_url", false},
};

void kserve_model(Reader& r, const YAML::Node& model, Workload& w) {
  Container c = read_container_node(r, model);
  const std::optional<std::string> format = r.optional_scalar(r.get(model, "modelFormat"), "name");
  if (c.image.empty() && format && to_lower(*format) == "huggingface") {
    c.image = std::string(kKserveHfImage);
  }
  if (c.name.empty()) {
    c.name = "kserve-container";
  }
  if (c.image == kKserveHfImage) {
    // KServe's flags are not the engine's: --model_id names the model, --max_length is
    // --max_model_len, the others do not change memory.
    std::vector<Word> args;
    for (std::size_t i = 0; i < c.args.size(); ++i) {
      const std::string& a = c.args[i].text;
      const std::string flag = a.substr(0, a.find('='));
      const auto* k = std::find_if(std::begin(kKserveFlags), std::end(kKserveFlags),
                                   [&](const KserveFlag& f) { return f.flag == flag; });
      if (flag == "--max_length") {
        args.push_back({"--max_model_len" + a.substr(flag.size()), c.args[i].line});
        continue;
      }
      if (k == std::end(kKserveFlags)) {
        args.push_back(c.args[i]);
        continue;
      }
      std::optional<Word> value;
      if (a.size() > flag.size()) {
        value = Word{a.substr(flag.size() + 1), c.args[i].line};
      } else if (k->value && i + 1 < c.args.size()) {
        value = c.args[++i];
      }
      if (flag == "--model_id" && value) {
        c.model = value;
      }
    }
    c.args = std::move(args);
  }
  // storageUri hf://ORG/NAME: KServe downloads that Hugging Face repository to /mnt/models.
  if (const YAML::Node uri = r.get(model, "storageUri"); !c.model && Reader::has(uri)) {
    const std::string u = r.scalar(uri, "storageUri");
    if (starts_with(u, "hf://")) {
      c.model = Word{u.substr(5), Reader::line(uri)};
    } else {
      // KServe's storage initializer downloads the URI to /mnt/models, where the runtime reads it.
      c.model = Word{"/mnt/models", Reader::line(uri)};
      c.mounts.emplace_back("/mnt/models", "storageUri " + u);
      w.volumes["storageUri " + u] = "the storageUri " + u;
    }
  }
  w.containers.push_back(std::move(c));
}

// NVIDIA Dynamo's DynamoGraphDeployment (nvidia.com/v1alpha1; ai-dynamo/dynamo deploy/operator
// api/v1alpha1 DynamoComponentDeploymentSharedSpec): spec.services maps a name to a component whose
// pod is extraPodSpec (a pod spec whose engine runs in mainContainer), with its replicas, its GPUs
// as resources.limits.gpu (or requests.gpu), its environment in `envs` and its volumes in
// volumeMounts (name, mountPoint). Each worker is a workload of its own; the frontend and planner
// components route and scale, and run no engine.
void read_dynamo(Reader& r, const YAML::Node& doc, std::vector<Workload>& out) {
  const YAML::Node spec = r.get(doc, "spec");
  r.each_pair(r.get(spec, "services"), [&](const std::string& service, const YAML::Node& s) {
    const std::string type = to_lower(r.optional_scalar(s, "componentType").value_or(""));
    if (type == "frontend" || type == "planner") {
      return;
    }
    Workload w;
    start_workload(r, doc, "DynamoGraphDeployment", w);
    w.name += "/" + service;
    w.line = Reader::line(s);
    w.replicas = replicas_of(r, s);
    w.count_key = "resources.limits.gpu";
    const YAML::Node pod = r.get(s, "extraPodSpec");
    const YAML::Node main = r.get(pod, "mainContainer");
    if (!Reader::has(main)) {
      return;
    }
    Container c = read_container_node(r, main);
    read_env(r, r.get(s, "envs"), c);
    if (!c.gpus) {
      const YAML::Node resources = r.get(s, "resources");
      for (const char* part : {"limits", "requests"}) {
        if (const YAML::Node n = r.get(r.get(resources, part), "gpu"); Reader::has(n) && !c.gpus) {
          c.gpus = r.count(n, fmt::format("services.{}.resources.{}.gpu", service, part));
        }
      }
    }
    r.each(r.get(s, "volumeMounts"), [&](const YAML::Node& m) {
      const std::optional<std::string> path = r.optional_scalar(m, "mountPoint");
      const std::optional<std::string> name = r.optional_scalar(m, "name");
      if (path && name) {
        c.mounts.emplace_back(*path, *name);
      }
    });
    w.containers.push_back(std::move(c));
    read_gpu_hints(r, pod, w);
    read_volumes(r, pod, w);
    out.push_back(std::move(w));
  });
}

void read_kubernetes(Reader& r, const YAML::Node& doc, const std::string& kind, std::vector<Workload>& out) {
  Workload w;
  const YAML::Node spec = r.get(doc, "spec");
  if (kind == "Pod") {
    start_workload(r, doc, kind, w);
    read_pod(r, spec, w, false);
  } else if (kind == "Deployment" || kind == "StatefulSet" || kind == "ReplicaSet" || kind == "DaemonSet" ||
             kind == "Job" || kind == "ReplicationController") {
    start_workload(r, doc, kind, w);
    w.replicas = kind == "Job" ? replicas_of(r, spec, "parallelism") : kind == "DaemonSet" ? 1 : replicas_of(r, spec);
    read_pod(r, r.get(spec, "template"), w, true);
  } else if (kind == "CronJob") {
    start_workload(r, doc, kind, w);
    read_pod(r, r.get(r.get(r.get(spec, "jobTemplate"), "spec"), "template"), w, true);
  } else if (kind == "LeaderWorkerSet") {
    // leaderworkerset.x-k8s.io/v1: `size` pods per group (the leader and size - 1 workers); the
    // engine runs on the leader and spreads over the group (LWS_GROUP_SIZE is set in every pod).
    start_workload(r, doc, kind, w);
    w.replicas = replicas_of(r, spec);
    const YAML::Node lwt = r.get(spec, "leaderWorkerTemplate");
    w.pods = Reader::has(r.get(lwt, "size")) ? r.count(r.get(lwt, "size"), "leaderWorkerTemplate.size") : 1;
    const YAML::Node leader = r.get(lwt, "leaderTemplate");
    const YAML::Node worker = r.get(lwt, "workerTemplate");
    read_pod(r, Reader::has(leader) ? leader : worker, w, true);
    Workload workers;
    read_pod(r, worker, workers, true);
    for (const Container& c : workers.containers) {
      if (c.gpus) {
        w.worker_gpus = w.worker_gpus.value_or(0) + *c.gpus;
      }
    }
    w.env.emplace_back("LWS_GROUP_SIZE", std::to_string(w.pods));
  } else if (kind == "InferenceService") {
    // serving.kserve.io/v1beta1: spec.predictor.model (a runtime) or spec.predictor.containers.
    start_workload(r, doc, kind, w);
    const YAML::Node predictor = r.get(spec, "predictor");
    w.replicas = Reader::has(r.get(predictor, "minReplicas")) ? replicas_of(r, predictor, "minReplicas") : 1;
    if (const YAML::Node model = r.get(predictor, "model"); Reader::has(model)) {
      kserve_model(r, model, w);
    }
    // Multi-node serving (KServe's "Multi-Node Inference" for the huggingface runtime): workerSpec's
    // tensorParallelSize is the GPUs of each node and pipelineParallelSize the nodes, passed to vLLM
    // as its --tensor-parallel-size and --pipeline-parallel-size.
    if (const YAML::Node workers = r.get(predictor, "workerSpec"); Reader::has(workers) && !w.containers.empty()) {
      Container& c = w.containers.front();
      const YAML::Node tp = r.get(workers, "tensorParallelSize");
      const YAML::Node pp = r.get(workers, "pipelineParallelSize");
      const std::uint32_t t = Reader::has(tp) ? r.count(tp, "workerSpec.tensorParallelSize") : 1;
      const std::uint32_t p = Reader::has(pp) ? r.count(pp, "workerSpec.pipelineParallelSize") : 1;
      c.args.push_back({"--tensor-parallel-size", Reader::line(tp)});
      c.args.push_back({std::to_string(t), Reader::line(tp)});
      c.args.push_back({"--pipeline-parallel-size", Reader::line(pp)});
      c.args.push_back({std::to_string(p), Reader::line(pp)});
      if (!c.gpus) {
        c.gpus = t;
      }
      w.pods = p;
    }
    read_pod(r, predictor, w, false);
  } else if (kind == "LLMInferenceService") {
    // serving.kserve.io/v1alpha1: spec.model.uri (hf://ORG/NAME), spec.replicas, spec.template (a pod spec).
    start_workload(r, doc, kind, w);
    w.replicas = replicas_of(r, spec);
    read_pod(r, r.get(spec, "template"), w, false);
    const YAML::Node uri = r.get(r.get(spec, "model"), "uri");
    if (Reader::has(uri) && starts_with(r.scalar(uri, "model.uri"), "hf://")) {
      for (Container& c : w.containers) {
        c.model = Word{r.value(uri).substr(5), Reader::line(uri)};
      }
    }
  } else if (kind == "ServingRuntime" || kind == "ClusterServingRuntime") {
    start_workload(r, doc, kind, w);
    read_pod(r, spec, w, false);
  } else if (kind == "DynamoGraphDeployment") {
    read_dynamo(r, doc, out);
    return;
  } else if (kind == "ConfigMap") {
    // Its keys are files to the pods that mount it (a settings file named on a command line).
    const std::string name = r.optional_scalar(r.get(doc, "metadata"), "name").value_or("");
    r.each_pair(r.get(doc, "data"), [&](const std::string& key, const YAML::Node& v) {
      if (is_scalar(v) && !name.empty()) {
        r.config_maps[name].push_back({key, r.value(v), r.content_line(v)});
      }
    });
    return;
  } else {
    return;  // Service, ...: nothing to check
  }
  out.push_back(std::move(w));
}

// A Helm chart's values that an engine runs (Engine::chart_values: the vLLM production-stack):
// each model entry becomes a Deployment whose container runs the image's entrypoint with the model
// and the flags the chart's templates render from the engine's settings.
void read_chart_values(Reader& r, const YAML::Node& spec, const ChartValues& chart, std::vector<Workload>& out) {
  const std::string models(chart.models);
  const std::string config(chart.config);
  r.each(r.get(spec, models.c_str()), [&](const YAML::Node& m) {
    Workload w;
    w.kind = std::string(chart.section) + "." + models;
    w.count_key = "requestGPU";
    w.line = Reader::line(m);
    w.name = r.optional_scalar(m, "name").value_or("");
    w.replicas = replicas_of(r, m, "replicaCount");
    read_annotations(r, r.get(m, "annotations"), w);
    read_annotations(r, r.get(m, "podAnnotations"), w);
    Container c;
    c.name.clear();  // the chart names its one container
    c.line = w.line;
    const std::string repository = r.optional_scalar(m, "repository").value_or("");
    const std::string tag = r.optional_scalar(m, "tag").value_or("latest");
    c.image = repository + ":" + tag;
    // The image's entrypoint runs the engine; the model URL comes first, as the template writes it.
    const YAML::Node url = r.get(m, "modelURL");
    if (Reader::has(url)) {
      c.args.push_back({r.scalar(url, "modelURL"), Reader::line(url)});
    }
    const YAML::Node cfg = r.get(m, config.c_str());
    c.args_line = Reader::has(cfg) ? Reader::line(cfg) : w.line;
    for (const auto& [key, flag] : chart.flags) {
      const YAML::Node v = r.get(cfg, std::string(key).c_str());
      if (Reader::has(v)) {
        c.args.push_back({std::string(flag), Reader::line(v)});
        c.args.push_back({r.scalar(v, key), Reader::line(v)});
      }
    }
    for (const Word& x : words_of(r, r.get(cfg, "extraArgs"), config + ".extraArgs")) {
      c.args.push_back(x);
    }
    if (const YAML::Node gpus = r.get(m, "requestGPU"); Reader::has(gpus)) {
      c.gpus = r.count(gpus, "requestGPU");
    }
    read_env(r, r.get(m, "env"), c);
    const YAML::Node lmcache = r.get(m, "lmcacheConfig");
    if (const YAML::Node cpu = r.get(lmcache, "cpuOffloadingBufferSize"); Reader::has(cpu)) {
      c.env.emplace_back("LMCACHE_MAX_LOCAL_CPU_SIZE", r.scalar(cpu, "cpuOffloadingBufferSize"));
    }
    w.containers.push_back(std::move(c));
    read_selector_terms(r, r.get(m, "nodeSelectorTerms"), w);
    out.push_back(std::move(w));
  });
}

// docker-compose (the Compose Specification): services with image, command, entrypoint,
// environment, labels, and GPUs under deploy.resources.reservations.devices or `gpus`.
void read_compose(Reader& r, const YAML::Node& services, std::vector<Workload>& out) {
  r.each_pair(services, [&](const std::string& name, const YAML::Node& s) {
    Workload w;
    w.kind = "docker-compose service";
    w.count_key = "devices count";
    w.name = name;
    w.line = Reader::line(s);
    Container c;
    c.name = name;
    c.line = w.line;
    read_process(r, s, "entrypoint", "command", "environment", c);
    const YAML::Node labels = r.get(s, "labels");
    if (is_map(labels)) {
      read_annotations(r, labels, w);
    } else {
      r.each(labels, [&](const YAML::Node& l) {
        if (is_scalar(l)) {
          const std::string& t = r.value(l);
          const std::size_t eq = t.find('=');
          if (eq != std::string::npos && starts_with(t, "kvplan.io/")) {
            w.annotations[t.substr(0, eq)] = {t.substr(eq + 1), Reader::line(l)};
          }
        }
      });
    }
    const YAML::Node devices = r.get(r.get(r.get(r.get(s, "deploy"), "resources"), "reservations"), "devices");
    r.each(devices, [&](const YAML::Node& d) {
      const YAML::Node count = r.get(d, "count");
      const YAML::Node ids = r.get(d, "device_ids");
      if (Reader::has(count)) {
        if (r.scalar(count, "count") == "all") {
          c.gpus_all = true;
        } else {
          c.gpus = c.gpus.value_or(0) + r.count(count, "devices.count");
        }
      } else if (is_seq(ids)) {
        c.gpus = c.gpus.value_or(0) + static_cast<std::uint32_t>(ids.size());
      } else {
        c.gpus_all = true;  // a device request without a count or ids gets every GPU
      }
    });
    if (const YAML::Node gpus = r.get(s, "gpus"); Reader::has(gpus)) {
      if (is_scalar(gpus) && r.value(gpus) == "all") {
        c.gpus_all = true;
      } else if (is_seq(gpus)) {
        c.gpus = static_cast<std::uint32_t>(gpus.size());
      }
    }
    w.containers.push_back(std::move(c));
    out.push_back(std::move(w));
  });
}

// SkyPilot task YAML: resources.accelerators ("H100:8", {H100: 8} or a list of candidates),
// num_nodes, envs, and the `run` script; SkyPilot sets SKYPILOT_NUM_GPUS_PER_NODE and
// SKYPILOT_NUM_NODES for it (docs.skypilot.co, "Environment variables").
void read_skypilot(Reader& r, const YAML::Node& doc, std::vector<Workload>& out) {
  Workload w;
  w.kind = "SkyPilot task";
  w.count_key = "accelerators";
  w.line = Reader::line(doc);
  w.name = r.optional_scalar(doc, "name").value_or("");
  w.gpu_type_from_skypilot = true;
  const YAML::Node resources = r.get(doc, "resources");
  const YAML::Node acc = r.get(resources, "accelerators");
  struct Candidate {
    std::string text;
    std::string name;
    std::uint32_t count = 1;
    std::uint32_t line = 1;
  };
  std::vector<Candidate> candidates;
  auto add = [&](const std::string& text, std::uint32_t line) {
    Candidate c;
    c.text = text;
    c.line = line;
    const std::size_t colon = text.find(':');
    c.name = text.substr(0, colon);
    if (colon != std::string::npos) {
      c.count = static_cast<std::uint32_t>(parse_count(fmt::format("{}:{}: accelerators", r.path(), line),
                                                       text.substr(colon + 1), 4096));
    }
    candidates.push_back(std::move(c));
  };
  if (is_scalar(acc)) {
    add(r.value(acc), Reader::line(acc));
  } else if (is_map(acc)) {
    r.each_pair(acc, [&](const std::string& k, const YAML::Node& v) {
      add(is_scalar(v) && !r.value(v).empty() ? k + ":" + r.value(v) : k, Reader::line(acc));
    });
  } else {
    r.each(acc, [&](const YAML::Node& v) {
      if (is_scalar(v)) {
        add(r.value(v), Reader::line(v));
      }
    });
  }
  read_annotations(r, r.get(resources, "labels"), w);
  w.pods = Reader::has(r.get(doc, "num_nodes")) ? r.count(r.get(doc, "num_nodes"), "num_nodes") : 1;
  Container c;
  c.name = "run";
  const YAML::Node run = r.get(doc, "run");
  c.line = Reader::has(run) ? Reader::line(run) : w.line;
  c.args_line = c.line;
  c.has_command = true;
  if (Reader::has(run)) {
    c.command = {{"bash", c.line}, {"-c", c.line}, {r.scalar(run, "run"), r.content_line(run)}};
  }
  read_env(r, r.get(doc, "envs"), c);
  c.env.emplace_back("SKYPILOT_NUM_NODES", std::to_string(w.pods));
  // The task runs on whichever candidate SkyPilot finds first: each is checked on its own.
  std::vector<std::string> unknown;
  std::vector<Workload> each;
  for (const Candidate& cand : candidates) {
    if (gpu_from_skypilot(cand.name) == nullptr) {
      unknown.push_back(cand.text);
      continue;
    }
    Workload one = w;
    one.gpu_hints.push_back({"accelerators", cand.name, cand.line});
    one.node_gpus = cand.count;
    if (candidates.size() > 1) {
      one.name += (one.name.empty() ? "" : " ") + fmt::format("[{}]", cand.text);
    }
    Container cc = c;
    cc.env.emplace_back("SKYPILOT_NUM_GPUS_PER_NODE", std::to_string(cand.count));
    cc.gpus = cand.count;
    one.containers.push_back(std::move(cc));
    each.push_back(std::move(one));
  }
  if (each.empty()) {
    w.gpu_hints.push_back({"accelerators", candidates.empty() ? std::string() : candidates.front().name,
                           candidates.empty() ? w.line : candidates.front().line});
    w.containers.push_back(c);
    each.push_back(std::move(w));
  } else if (!unknown.empty()) {
    std::string list;
    for (const std::string& u : unknown) {
      list += (list.empty() ? "" : ", ") + u;
    }
    each.front().warnings.push_back(fmt::format("{}:{}: accelerators not in kvplan's GPU catalog are not checked: {}",
                                                r.path(), Reader::line(acc), list));
  }
  for (Workload& x : each) {
    out.push_back(std::move(x));
  }
}

void read_document(Reader& r, const YAML::Node& doc, std::vector<Workload>& out, int depth = 0) {
  if (!is_map(doc)) {
    return;
  }
  const std::optional<std::string> kind = r.optional_scalar(doc, "kind");
  if (Reader::has(r.get(doc, "apiVersion")) && kind) {
    if (*kind == "List" && depth == 0) {
      r.each(r.get(doc, "items"), [&](const YAML::Node& item) { read_document(r, item, out, 1); });
      return;
    }
    read_kubernetes(r, doc, *kind, out);
    return;
  }
  for (const Engine* e : all_engines()) {
    if (const std::optional<ChartValues> chart = e->chart_values()) {
      if (const YAML::Node spec = r.get(doc, std::string(chart->section).c_str()); Reader::has(spec)) {
        read_chart_values(r, spec, *chart, out);
        return;
      }
    }
  }
  if (const YAML::Node services = r.get(doc, "services"); is_map(services)) {
    read_compose(r, services, out);
  } else if (Reader::has(r.get(doc, "run")) && (Reader::has(r.get(doc, "resources")) || Reader::has(r.get(doc, "setup")))) {
    read_skypilot(r, doc, out);
  }
}

// ---- From a container to a deployment -------------------------------------------------------------

// Kubernetes' $(VAR) in command and args: a variable the container defines is replaced, $$ is a
// literal $, anything else stays as written (kubernetes.io: "Define a command and arguments").
// Past `limit` bytes it stops and returns nothing.
std::optional<std::string> k8s_expand(const std::string& s, const std::vector<std::pair<std::string, std::string>>& env,
                                      std::size_t limit) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (out.size() > limit) {
      return std::nullopt;
    }
    if (s[i] == '$' && i + 1 < s.size() && s[i + 1] == '$') {
      out += '$';
      ++i;
      continue;
    }
    if (s[i] == '$' && i + 1 < s.size() && s[i + 1] == '(') {
      const std::size_t close = s.find(')', i + 2);
      if (close != std::string::npos) {
        const std::string name = s.substr(i + 2, close - i - 2);
        const auto it = std::find_if(env.rbegin(), env.rend(), [&](const auto& kv) { return kv.first == name; });
        if (it != env.rend()) {
          out += it->second;
          i = close;
          continue;
        }
      }
    }
    out += s[i];
  }
  return out.size() > limit ? std::nullopt : std::optional<std::string>(std::move(out));
}

// A shell's $VAR and ${VAR} (outside single quotes), from the literal environment; others stay.
// Past `limit` bytes it stops and returns nothing.
std::optional<std::string> shell_expand(const std::string& s,
                                        const std::vector<std::pair<std::string, std::string>>& env,
                                        std::size_t limit) {
  std::string out;
  bool single = false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (out.size() > limit) {
      return std::nullopt;
    }
    const char ch = s[i];
    if (ch == '\'' ) {
      single = !single;
    }
    if (ch == '\\' && !single && i + 1 < s.size()) {
      out += ch;
      out += s[++i];
      continue;
    }
    if (ch != '$' || single || i + 1 >= s.size()) {
      out += ch;
      continue;
    }
    std::size_t start = i + 1;
    std::size_t end = start;
    bool braced = false;
    if (s[start] == '{') {
      braced = true;
      end = s.find('}', start);
      if (end == std::string::npos) {
        out += ch;
        continue;
      }
      ++start;
    } else {
      while (end < s.size() && (std::isalnum(static_cast<unsigned char>(s[end])) != 0 || s[end] == '_')) {
        ++end;
      }
    }
    const std::string name = s.substr(start, end - start);
    const auto it = std::find_if(env.rbegin(), env.rend(), [&](const auto& kv) { return kv.first == name; });
    if (name.empty() || it == env.rend()) {
      out += ch;
      continue;
    }
    out += it->second;
    i = braced ? end : end - 1;
  }
  return out.size() > limit ? std::nullopt : std::optional<std::string>(std::move(out));
}

// A script's simple commands: split at unquoted newlines, ';', '&&', '||', '|' and '&', with
// comments dropped; each is then split into words as sh would (no expansion beyond the literal
// environment). Returns each command with the line offset it starts at.
std::vector<std::pair<std::string, std::uint32_t>> script_commands(std::string_view script) {
  std::vector<std::pair<std::string, std::uint32_t>> out;
  std::string cur;
  std::uint32_t line = 0;
  std::uint32_t start_line = 0;
  char quote = 0;
  auto flush = [&] {
    if (cur.find_first_not_of(" \t\r") != std::string::npos) {
      out.emplace_back(cur, start_line);
    }
    cur.clear();
    start_line = line;
  };
  for (std::size_t i = 0; i < script.size(); ++i) {
    const char c = script[i];
    if (quote != 0) {
      cur += c;
      if (c == '\n') {
        ++line;
      }
      if (c == quote) {
        quote = 0;
      } else if (c == '\\' && quote == '"' && i + 1 < script.size()) {
        cur += script[++i];
      }
      continue;
    }
    if (c == '\\' && i + 1 < script.size()) {
      cur += c;
      cur += script[++i];
      if (script[i] == '\n') {
        ++line;
      }
      continue;
    }
    if (c == '\'' || c == '"') {
      quote = c;
      cur += c;
      continue;
    }
    if (c == '#' && (cur.empty() || std::isspace(static_cast<unsigned char>(cur.back())) != 0)) {
      while (i + 1 < script.size() && script[i + 1] != '\n') {
        ++i;
      }
      continue;
    }
    if (c == '\n') {
      flush();
      ++line;
      start_line = line;
      continue;
    }
    if (c == '&' && ((!cur.empty() && cur.back() == '>') || (i + 1 < script.size() && script[i + 1] == '>'))) {
      cur += c;  // 2>&1, &>: a redirection
      continue;
    }
    if (c == ';' || c == '|' || c == '&') {
      if (i + 1 < script.size() && (script[i + 1] == c)) {
        ++i;
      }
      flush();
      continue;
    }
    if (cur.empty() && (c == ' ' || c == '\t')) {
      continue;
    }
    cur += c;
  }
  flush();
  return out;
}

bool is_shell(std::string_view program) {
  const std::size_t slash = program.find_last_of('/');
  const std::string_view base = slash == std::string_view::npos ? program : program.substr(slash + 1);
  return base == "sh" || base == "bash" || base == "dash" || base == "zsh" || base == "ash";
}

struct EngineCommand {
  std::vector<Word> words;
  bool complete = false;   // the words start the program (a script's command)
  bool found = false;
};

EngineCommand engine_command(const Container& c, const std::vector<std::pair<std::string, std::string>>& env,
                             std::vector<std::string>& warnings, const std::string& where) {
  std::vector<Word> words = c.command;
  words.insert(words.end(), c.args.begin(), c.args.end());
  // execve(2) refuses an argument over MAX_ARG_STRLEN (32 pages: 128 KiB, include/uapi/linux/binfmts.h)
  // and arguments over a quarter of the stack limit together (2 MiB at the usual 8 MiB): such a
  // container never starts, and kvplan reads no further.
  constexpr std::size_t kMaxArg = 128 << 10;
  constexpr std::size_t kMaxArgs = 2 << 20;
  std::size_t total = 0;
  for (Word& w : words) {
    std::optional<std::string> expanded = k8s_expand(w.text, env, kMaxArg);
    if (!expanded) {
      throw Error(fmt::format("{}: the argument on line {} expands to more than 128 KiB; Linux refuses to start "
                              "such a command (execve: E2BIG)",
                              where, w.line));
    }
    total += expanded->size() + 1;
    if (total > kMaxArgs) {
      throw Error(fmt::format("{}: the command line expands to more than 2 MiB by the argument on line {}; Linux "
                              "refuses to start such a command (execve: E2BIG)",
                              where, w.line));
    }
    w.text = std::move(*expanded);
  }
  EngineCommand out;
  if (c.has_command && !words.empty() && is_shell(words.front().text)) {
    // sh -c SCRIPT: find the script (the word after the option that holds 'c') and its engine command.
    std::size_t i = 1;
    bool dash_c = false;
    for (; i < words.size() && starts_with(words[i].text, "-"); ++i) {
      dash_c = dash_c || (words[i].text.size() > 1 && words[i].text[1] != '-' && words[i].text.find('c') != std::string::npos);
    }
    if (!dash_c || i >= words.size()) {
      return out;
    }
    const Word& script = words[i];
    // A block scalar's text starts on the line after its indicator.
    std::vector<std::vector<Word>> found;
    // The shell's own expansion has no such bound; a script that grows past 2 MiB is not read.
    const std::optional<std::string> expanded = shell_expand(script.text, env, kMaxArgs);
    if (!expanded) {
      throw Error(fmt::format("{}: the script on line {} expands to more than 2 MiB; kvplan reads scripts of at most "
                              "that size",
                              where, script.line));
    }
    for (const auto& [text, offset] : script_commands(*expanded)) {
      std::vector<std::string> split;
      try {
        split = shell_words(text);
      } catch (const Error&) {
        continue;  // not an engine command kvplan reads
      }
      // Redirections are the shell's, not the engine's: "> log", "2>&1", ">>out".
      std::vector<std::string> kept;
      for (std::size_t k = 0; k < split.size(); ++k) {
        const std::string& t = split[k];
        const std::size_t gt = t.find_first_of("<>");
        const bool redirect = gt != std::string::npos && t.find_first_not_of("0123456789&") >= gt;
        if (redirect) {
          if (t.find_last_not_of("<>&") < gt || t.back() == '>' || t.back() == '<') {
            ++k;  // "> file": the target is the next word
          }
          continue;
        }
        kept.push_back(t);
      }
      split = std::move(kept);
      if (runs_engine(split)) {
        // Each word's line: where it first appears in the command's text, after the one before.
        std::vector<Word> ws;
        std::size_t cursor = 0;   // where the next word is looked for
        std::size_t counted = 0;  // newlines before here are in `line`
        std::uint32_t line = script.line + offset;
        for (std::string& s : split) {
          // Looked for just past the word before (a word whose quotes were removed is not found).
          const std::size_t near = s.empty() ? std::string::npos
                                             : std::string_view(text).substr(cursor, s.size() + 4096).find(s);
          const std::size_t at = near == std::string::npos ? near : cursor + near;
          if (at != std::string::npos) {
            line += static_cast<std::uint32_t>(std::count(text.begin() + static_cast<std::ptrdiff_t>(counted),
                                                          text.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
            counted = at;
            cursor = at + s.size();
          }
          ws.push_back({std::move(s), line});
        }
        found.push_back(std::move(ws));
      }
    }
    if (found.size() > 1) {
      warnings.push_back(fmt::format("{}: the script starts {} engine servers; kvplan checks the last", where,
                                     found.size()));
    }
    if (found.empty()) {
      return out;
    }
    out.words = std::move(found.back());
    out.complete = true;
    out.found = true;
    return out;
  }
  out.words = std::move(words);
  out.found = true;
  return out;
}

const GpuSpec* smaller(const GpuSpec* a, const GpuSpec* b) {
  return a == nullptr ? b : b == nullptr ? a : (b->memory_bytes < a->memory_bytes ? b : a);
}

void fill_entry(ManifestEntry& e, Reader& r, const Workload& w, const Container& c, const ManifestOptions& opt);

// One serving container's entry: a deployment, or its error with the warnings read before it.
ManifestEntry entry_for(Reader& r, const Workload& w, const Container& c, const ManifestOptions& opt) {
  ManifestEntry e;
  try {
    fill_entry(e, r, w, c, opt);
  } catch (const Error& err) {
    e.deployment.reset();
    e.error = one_line(err.what());
  }
  return e;
}

void fill_entry(ManifestEntry& e, Reader& r, const Workload& w, const Container& c, const ManifestOptions& opt) {
  e.origin = r.path();
  e.name = fmt::format("{}/{}", w.kind, w.name.empty() ? "(unnamed)" : w.name);
  if (!c.name.empty() && w.containers.size() > 1) {
    e.name += fmt::format(" (container {})", c.name);
  }
  if (!w.source.empty()) {
    e.name += fmt::format(" from {}", w.source);
  }
  e.line = c.args_line != 0 ? c.args_line : c.line;
  const std::string where = fmt::format("{}:{}: {}", r.path(), e.line, e.name);
  e.warnings = w.warnings;
  std::vector<std::pair<std::string, std::string>> env = w.env;
  env.insert(env.end(), c.env.begin(), c.env.end());
  EngineCommand cmd = engine_command(c, env, e.warnings, where);
  Deployment d;
  d.origin = r.path();
  d.name = e.name;
  d.line = e.line;
  d.args_line = c.args_line != 0 ? c.args_line : c.line;
  for (const Word& x : cmd.words) {
    d.flag_lines.emplace_back(x.text, x.line);
  }
  // The GPUs of one copy: the container's, times the pods of an LWS group (or SkyPilot's nodes).
  std::optional<std::uint32_t> gpus = c.gpus;
  if (w.pods > 1 && gpus) {
    const std::uint64_t all = *gpus + std::uint64_t{w.pods - 1} * w.worker_gpus.value_or(*gpus);
    if (all > 4096) {
      throw Error(fmt::format("{}: {} pods of GPUs make {} GPUs for one replica; kvplan plans at most 4,096", where,
                              w.pods, with_commas(all)));
    }
    gpus = static_cast<std::uint32_t>(all);
    d.notes.push_back(fmt::format("{} pods per replica: {} GPUs in all", w.pods, *gpus));
    if (!d.request.nodes) {
      d.request.nodes = w.pods;  // one server over the group's machines
    }
  }
  // The GPU type: node labels, else kvplan.io/gpu, else --gpu.
  const GpuSpec* type = nullptr;
  std::string type_from;
  std::vector<const GpuSpec*> candidates;
  std::optional<std::uint32_t> karpenter_mib;
  for (const GpuHint& h : w.gpu_hints) {
    if (h.key == "karpenter.k8s.aws/instance-gpu-memory") {
      // MiB per GPU; a value past 32 bits matches no GPU (never a wrapped number)
      const std::uint64_t mib = to_unsigned(h.value).value_or(0);
      karpenter_mib = mib > UINT32_MAX ? 0 : static_cast<std::uint32_t>(mib);
    }
  }
  for (const GpuHint& h : w.gpu_hints) {
    const GpuSpec* g = nullptr;
    if (w.gpu_type_from_skypilot) {
      g = gpu_from_skypilot(h.value);
      if (g == nullptr) {
        if (w.annotations.count("kvplan.io/gpu") != 0 || opt.gpu) {
          continue;
        }
        throw Error(fmt::format("{}:{}: SkyPilot accelerator {} is not in kvplan's GPU catalog (kvplan gpus lists "
                                "it); give --gpu NAME",
                                r.path(), h.line, quote_input(h.value)));
      }
    } else {
      std::optional<GpuLabel> label;
      try {
        label = gpu_from_label(h.key, h.value);
      } catch (const Error& err) {
        throw Error(fmt::format("{}:{}: {}", r.path(), h.line, err.what()));
      }
      if (!label) {
        continue;
      }
      g = label->gpu;
      if (h.key == "karpenter.k8s.aws/instance-gpu-name" && karpenter_mib) {
        if (const GpuSpec* exact = gpu_from_karpenter(h.value, *karpenter_mib)) {
          g = exact;
        }
      }
      if (label->per_node > 0 && !gpus) {
        gpus = label->per_node;  // a whole node of that instance type
      }
    }
    if (std::find(candidates.begin(), candidates.end(), g) == candidates.end()) {
      candidates.push_back(g);
    }
    if (smaller(type, g) == g) {
      type = g;
      type_from = fmt::format("{}: {} (line {})", h.key, h.value, h.line);
    }
  }
  if (const auto it = w.annotations.find("kvplan.io/gpu"); it != w.annotations.end()) {
    try {
      type = parse_gpu(it->second.first).gpu;
    } catch (const Error& err) {
      throw Error(fmt::format("{}:{}: kvplan.io/gpu: {}", r.path(), it->second.second, err.what()));
    }
    type_from = fmt::format("annotation kvplan.io/gpu (line {})", it->second.second);
    candidates = {type};
  }
  if (candidates.size() > 1) {
    std::string names;
    for (const GpuSpec* g : candidates) {
      names += (names.empty() ? "" : ", ") + std::string(g->name);
    }
    d.notes.push_back(fmt::format("it may run on {}: checked on the one with the least memory", names));
  }
  if (c.gpus_all && !gpus) {
    if (opt.gpu && opt.gpu->count) {
      gpus = *opt.gpu->count;
    } else {
      throw Error(fmt::format("{}: the service takes every GPU of the host (count: all); say how many with --gpu "
                              "NAMExCOUNT",
                              where));
    }
  }
  if (!gpus && opt.gpu && opt.gpu->count) {
    gpus = *opt.gpu->count;
    d.notes.push_back(fmt::format("{} GPUs from --gpu: the container requests none", *gpus));
  }
  if (!gpus) {
    throw Error(fmt::format("{}: the container requests no GPU (resources.limits nvidia.com/gpu); kvplan checks GPU "
                            "deployments",
                            where));
  }
  std::optional<Hardware> hardware;
  if (type != nullptr) {
    hardware = hardware_of(*type, *gpus);
    d.notes.push_back(fmt::format("GPU {} from {}", type->name, type_from));
  } else if (opt.gpu) {
    hardware = *opt.gpu;
    hardware->count = *gpus;
    if (hardware->gpu != nullptr) {
      hardware = hardware_of(*hardware->gpu, *gpus);
    }
    d.notes.push_back(fmt::format("GPU {} from --gpu: the manifest does not say", hardware->gpu != nullptr
                                                                                     ? std::string(hardware->gpu->name)
                                                                                     : hardware->label));
  } else {
    throw Error(fmt::format("{}: the manifest does not say which GPU ({} requested); give --gpu NAME, or a "
                            "nodeSelector such as nvidia.com/gpu.product, or the annotation kvplan.io/gpu",
                            where, *gpus));
  }
  if (!cmd.found) {
    throw Error(fmt::format("{}: no engine command in the container's script", where));
  }
  CommandContext ctx;
  ctx.hardware = hardware;
  ctx.strict = opt.strict;
  ctx.origin = where;
  for (const auto& [path, volume] : c.mounts) {
    const auto it = w.volumes.find(volume);
    ctx.mounts.emplace_back(path, it != w.volumes.end() ? it->second : "volume '" + volume + "'");
    // A ConfigMap of this file, mounted: each of its keys is a file under the mount path.
    const auto map = w.config_map_volumes.find(volume);
    const auto data = map != w.config_map_volumes.end() ? r.config_maps.find(map->second) : r.config_maps.end();
    if (data != r.config_maps.end()) {
      for (const Reader::ConfigData& f : data->second) {
        ctx.files.push_back({path + (!path.empty() && path.back() == '/' ? "" : "/") + f.key, f.text, r.path(), f.line});
      }
    }
  }
  if (const auto it = w.annotations.find("kvplan.io/model"); it != w.annotations.end()) {
    try {
      ctx.model = load_engine_model(it->second.first, "kvplan.io/model");
    } catch (const Error& err) {
      throw Error(fmt::format("{}:{}: {}", r.path(), it->second.second, err.what()));
    }
  } else if (opt.model) {
    ctx.model = opt.model;
  } else if (c.model) {
    for (const auto& [path, what] : ctx.mounts) {
      if (starts_with(c.model->text, path)) {
        throw Error(fmt::format("{}: the model (line {}) is on {}, mounted at {}, which is not on this machine; name "
                                "the architecture with the annotation kvplan.io/model or --model NAME",
                                where, c.model->line, what, path));
      }
    }
    try {
      ctx.model = load_engine_model(c.model->text, fmt::format("{}:{}", r.path(), c.model->line));
    } catch (const Error& err) {
      throw Error(fmt::format("{}; give the annotation kvplan.io/model or --model NAME", err.what()));
    }
  }
  ContainerLaunch launch;
  launch.image = c.image;
  for (const Word& x : cmd.words) {
    (cmd.complete || c.has_command ? launch.command : launch.args).push_back(x.text);
  }
  launch.replaces_entrypoint = cmd.complete || c.has_command;
  launch.env = env;
  launch.gpus = gpus;
  try {
    d.request = read_container(launch, ctx);
  } catch (const Error& err) {
    const std::string msg = err.what();
    throw Error(starts_with(msg, where) ? msg : fmt::format("{}: {}", where, msg));
  }
  d.request.origin = Origin::command_line;
  // Values from secrets, fields or config maps: a warning where they set a flag that changes memory
  // (a value kvplan needed and could not read was already an error naming it).
  const Engine& engine = d.request.engine_ref();
  for (std::size_t i = 0; i < cmd.words.size(); ++i) {
    const Word& x = cmd.words[i];
    for (const std::string& unknown : c.env_unknown) {
      if (x.text.find("$(" + unknown + ")") == std::string::npos && x.text.find("${" + unknown + "}") == std::string::npos &&
          x.text.find("$" + unknown) == std::string::npos) {
        continue;
      }
      const std::string flag = x.text.rfind("--", 0) == 0 && x.text.find('=') != std::string::npos
                                   ? x.text.substr(0, x.text.find('='))
                                   : i > 0 ? cmd.words[i - 1].text : std::string();
      const std::string name = engine.normalize_flag(flag);
      bool harmless = false;
      for (const FlagClass& row : engine.flag_classes()) {
        if (std::find(row.spellings.begin(), row.spellings.end(), name) != row.spellings.end()) {
          harmless = row.memory == Memory::none;
        }
      }
      if (!harmless) {
        e.warnings.push_back(fmt::format("{}:{}: {} is not a literal value in the manifest (it is set from a secret, a "
                                         "field or a config map); kvplan reads {} as written",
                                         r.path(), x.line, unknown, quote_input(x.text)));
      }
    }
  }
  // A server over several pods of a StatefulSet or Deployment (SGLang's and vLLM's --nnodes): its
  // GPUs are the pods' together, and the workload's replicas are its pods.
  std::uint32_t replicas = w.replicas;
  if (const std::uint32_t nodes = d.request.nodes.value_or(1); nodes > 1 && w.pods == 1 && d.request.hardware.gpu) {
    if (w.replicas % nodes != 0) {
      throw Error(fmt::format("{}: --nnodes {} but {} replicas: the pods do not make whole servers", where, nodes,
                              w.replicas));
    }
    const std::uint32_t per_pod = *gpus;
    if (std::uint64_t{per_pod} * nodes > 4096) {
      throw Error(fmt::format("{}: --nnodes {} pods of {} GPUs; kvplan plans at most 4,096 GPUs for one server", where,
                              nodes, per_pod));
    }
    d.request.hardware = hardware_of(*d.request.hardware.gpu, per_pod * nodes);
    d.notes.push_back(fmt::format("--nnodes {}: one server over {} pods of {} GPUs: {} GPUs", nodes, nodes, per_pod,
                                  per_pod * nodes));
    replicas = w.replicas / nodes;
  }
  d.request.hardware.count_key = w.pods > 1 ? w.count_key + " per pod × " + std::to_string(w.pods) + " pods" : w.count_key;
  // The demand: annotations, else check's flags; a workload of several replicas shares it.
  d.concurrency = opt.concurrency.value_or(1);
  d.context_length = opt.context_length;
  if (const auto it = w.annotations.find("kvplan.io/concurrency"); it != w.annotations.end()) {
    d.concurrency = parse_count(fmt::format("{}:{}: kvplan.io/concurrency", r.path(), it->second.second),
                                it->second.first, 10'000'000);
  }
  if (const auto it = w.annotations.find("kvplan.io/context-length"); it != w.annotations.end()) {
    d.context_length = parse_tokens(fmt::format("{}:{}: kvplan.io/context-length", r.path(), it->second.second),
                                    it->second.first);
  }
  if (replicas > 1) {
    const std::uint64_t each = ceil_div(d.concurrency, std::uint64_t{replicas});
    d.notes.push_back(fmt::format("{} replicas: each serves {} of the {} concurrent requests", replicas,
                                  with_commas(each), with_commas(d.concurrency)));
    d.concurrency = each;
  }
  e.deployment = std::move(d);
}

// Helm's `# Source: chart/templates/x.yaml` comments, by line, for naming where a document came from.
std::vector<std::pair<std::uint32_t, std::string>> helm_sources(const std::string& text) {
  std::vector<std::pair<std::uint32_t, std::string>> out;
  std::uint32_t line = 1;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t end = std::min(text.find('\n', pos), text.size());
    const std::string_view l(text.data() + pos, end - pos);
    if (starts_with(l, "# Source: ")) {
      out.emplace_back(line, std::string(l.substr(10)));
    }
    pos = end + 1;
    ++line;
  }
  return out;
}

}  // namespace

bool is_manifest(const std::string& path, const std::string& text) {
  const std::string ext = to_lower(std::filesystem::path(path).extension().string());
  if (ext == ".yaml" || ext == ".yml") {
    return true;
  }
  if (ext == ".json") {
    return false;
  }
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  return first != std::string::npos && text[first] != '{';
}

std::vector<ManifestEntry> read_manifest_text(const std::string& text, const std::string& path,
                                              const ManifestOptions& options) {
  std::vector<YAML::Node> docs;
  refuse_stray_yaml_comma(text, path);
  try {
    docs = YAML::LoadAll(text);
  } catch (const YAML::Exception& e) {
    // yaml-cpp's message may hold the offending character itself (a control character, a newline).
    throw Error(fmt::format("{}:{}:{}: not valid YAML: {}", path, e.mark.line >= 0 ? e.mark.line + 1 : 1,
                            e.mark.column >= 0 ? e.mark.column + 1 : 1, one_line(e.msg)));
  }
  if (docs.size() > kMaxDocuments) {
    throw Error(fmt::format("{}: {} YAML documents; kvplan reads at most {}", path, with_commas(docs.size()),
                            with_commas(kMaxDocuments)));
  }
  Reader r(path, text);
  std::vector<Workload> workloads;
  std::vector<ManifestEntry> out;
  for (std::size_t i = 0; i < docs.size(); ++i) {
    r.visit();
    try {
      read_document(r, docs[i], workloads);
    } catch (const Error& e) {  // this document cannot be read; the others still are
      ManifestEntry bad;
      bad.origin = path;
      bad.name = fmt::format("document {}", i + 1);
      bad.line = Reader::line(docs[i]);
      bad.error = one_line(e.what());
      out.push_back(std::move(bad));
    }
  }
  const auto sources = helm_sources(text);
  for (Workload& w : workloads) {
    for (const auto& [line, source] : sources) {
      if (line < w.line) {
        w.source = source;
      }
    }
    for (const Container& c : w.containers) {
      // A serving container: its image is an engine's, or its command starts one.
      std::vector<std::string> words;
      for (const Word& x : c.command) {
        words.push_back(x.text);
      }
      for (const Word& x : c.args) {
        words.push_back(x.text);
      }
      bool serving = runs_engine(words);
      for (const Engine* e : all_engines()) {
        serving = serving || e->image_version(c.image).has_value();
      }
      if (!serving && c.has_command && !c.command.empty() && is_shell(c.command.front().text)) {
        std::vector<std::string> none;
        try {
          serving = engine_command(c, c.env, none, "").found;
        } catch (const Error&) {
          serving = true;  // its entry says why it cannot be read
        }
      }
      if (!serving) {
        continue;
      }
      out.push_back(entry_for(r, w, c, options));
    }
  }
  return out;
}

}  // namespace kvplan::cli
