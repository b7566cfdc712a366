// kvplan/engine.hpp: engines as modules. Each serving engine (and kvplan's engine-neutral plan,
// "raw") is one Engine in one file of src/engines/, listed once in src/engines/registry.cpp. An
// engine owns everything that is particular to it: its knobs (the flags and deployment-file keys it
// reads, typed, with what each does to memory and where the engine defines it), the class table of
// every flag of its server, its versions, its parallelism rules, its prediction of what it will
// allocate, the settings that make it serve a shape, its launch command and how its own command
// line is spelled. The rest of kvplan asks the engine; it never compares an engine's name.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "kvplan/dtype.hpp"
#include "kvplan/formula.hpp"
#include "kvplan/hardware.hpp"
#include "kvplan/model.hpp"
#include "kvplan/report.hpp"

namespace kvplan {

/// What a knob's value is, fixed when it is read (from a flag, a deployment file or a command line).
enum class KnobType : std::uint8_t {
  count,     // a whole number >= 1 (or >= 0 where the knob says so)
  tokens,    // a token count
  bytes,     // a size
  fraction,  // parts per million in (0, 1]
  ratio,     // a positive multiple in parts per million (SGLang's --hicache-ratio 2.0), at most 1,000
  flag,      // on/off
  dtype,     // a KV element format
  text,      // a name (a quantization method)
  json,      // a JSON value, validated and kept
};

/// What a flag does to memory: the class tables of docs/engines.md.
enum class Memory : std::uint8_t {
  modelled,    // changes memory, and kvplan models it
  unmodelled,  // changes memory, kvplan does not model it: accepted with a warning, the verdict is uncertain
  none,        // does not change memory: accepted silently
};

/// Where a knob's value goes: a field every engine shares, or the engine's own knob set.
/// nodes: the machines one server spans (its pods in a manifest: SGLang's and vLLM's --nnodes).
enum class Target : std::uint8_t { own, model, tp, pp, dp, cp, nodes, max_model_len, kv_dtype, weights };

using KnobValue = std::variant<std::uint64_t, bool, DType, std::string>;

struct Knob {
  std::string_view key;        // its id, and its key in a deployment file's engine_args: "max_num_seqs"
  std::string_view flags;      // the engine's spellings, space-separated, canonical first: "--max-num-seqs"
                               // (empty: kvplan's own knob, a measured figure, not on the engine's command line)
  KnobType type = KnobType::count;
  Target target = Target::own;
  std::string_view cli;        // kvplan's own flag for it on the plan commands (empty: none)
  std::string_view help;       // one line for --help, the man page and docs/cli.md
  std::string_view source;     // where the engine defines it (file and class or function)
  /// The value as the engine's command line reads it; nullptr: the type's own reader (knob.cpp).
  KnobValue (*parse)(std::string_view where, std::string_view text) = nullptr;
  std::uint64_t max = 0;       // upper bound for counts (0: the type's own bound)
  bool zero_ok = false;        // a count or size of 0 is meaningful ("-c 0": the model's own length)
  std::string_view env;        // an environment variable that sets it too (LLAMA_ARG_CTX_SIZE)
  /// A text knob the engine's command line may give several times, each adding to a comma-separated
  /// list in order (llama.cpp's -ot); otherwise the last one given wins.
  bool accumulates = false;

  using Reader = KnobValue (*)(std::string_view where, std::string_view text);
  constexpr Knob(std::string_view key_, std::string_view flags_, KnobType type_, Target target_, std::string_view cli_,
                 std::string_view help_, std::string_view source_, Reader parse_ = nullptr, std::uint64_t max_ = 0,
                 bool zero_ok_ = false, std::string_view env_ = {}, bool accumulates_ = false)
      : key(key_), flags(flags_), type(type_), target(target_), cli(cli_), help(help_), source(source_), parse(parse_),
        max(max_), zero_ok(zero_ok_), env(env_), accumulates(accumulates_) {}
};

/// The values of an engine's own knobs, typed; indices are positions in Engine::knobs().
class KnobSet {
 public:
  void set(std::size_t knob, KnobValue value);
  void erase(std::size_t knob);
  [[nodiscard]] const KnobValue* find(std::size_t knob) const noexcept;
  [[nodiscard]] bool has(std::size_t knob) const noexcept { return find(knob) != nullptr; }
  [[nodiscard]] std::optional<std::uint64_t> number(std::size_t knob) const noexcept;
  [[nodiscard]] std::optional<bool> flag(std::size_t knob) const noexcept;
  [[nodiscard]] std::optional<DType> dtype(std::size_t knob) const noexcept;
  [[nodiscard]] bool empty() const noexcept { return values_.empty(); }
  [[nodiscard]] const std::vector<std::pair<std::size_t, KnobValue>>& values() const noexcept { return values_; }

 private:
  std::vector<std::pair<std::size_t, KnobValue>> values_;
};

/// How an engine spreads a model over GPUs.
enum class ContextParallel : std::uint8_t {
  none,          // not modelled for this engine
  ring,          // ring attention: each sequence's tokens over cp more GPUs (the engine-neutral plan)
  decode_in_tp,  // vLLM's decode context parallelism: inside the TP group, only over replicated KV
};

struct Capabilities {
  bool splits_heads = true;        // tensor parallelism splits KV heads and weights (llama.cpp splits layers)
  bool pipeline = true;
  bool data_parallel = true;
  ContextParallel context = ContextParallel::none;
  bool context_with_sliding_window = true;  // false: context parallelism refused with sliding layers
  bool abbreviations = false;      // its parser takes unambiguous prefixes of long flags (argparse's allow_abbrev)
  bool layers_over_devices = false;  // it uses every GPU it sees, whole layers on each (llama.cpp's -sm layer)
  bool metal = false;              // it runs on Apple's GPUs (Metal), the catalog's Mac-NGB entries
  std::uint32_t margin_ppm = 0;    // its accuracy bound in docs/accuracy.md: emit and the inverse keep it
};

/// Why an engine would not start, or would start and refuse the shape.
enum class Startup : std::uint8_t {
  ok,
  refused,       // the engine refuses its settings (EnginePrediction::refusal says why, in its words)
  no_kv_memory,  // nothing left for the KV cache after weights and the rest
  too_long,      // one request of max_model_len does not fit, and the engine refuses to start (vLLM)
};

struct EngineInputs {
  const ModelSpec* model = nullptr;
  WeightFormat weights;
  DType kv_dtype;
  std::uint32_t tensor_parallel = 1;
  std::uint32_t pipeline_parallel = 1;
  std::uint32_t context_parallel = 1;
  std::uint32_t data_parallel = 1;         // replicas (expert parallelism shards experts over tp × dp)
  std::uint32_t devices = 1;               // the GPUs it spreads one model over (Capabilities::layers_over_devices)
  std::uint32_t nodes = 1;                 // the machines one server spans (--nnodes, an LWS group's pods)
  bool last_stage = true;                  // the pipeline stage that samples (computes the logits)
  std::uint64_t gpu_memory_bytes = 0;      // CUDA total per GPU
  std::string_view gpu_name;               // the catalog's name ("A100-80GB"); empty when only a size was given
  GpuArch gpu_arch;                        // its architecture (kUnknownArch when only a size was given)
  std::string_view memory_detail;          // how that size was understood (the report's first budget line)
  std::uint64_t max_model_len = 0;         // the length the engine is asked to accept
  bool max_model_len_given = false;        // false: the engine's own default (the model's maximum)
  const KnobSet* knobs = nullptr;
  int version = 0;                         // the engine's own version key
  std::string_view version_text;
  std::uint64_t shape_seq_len = 0;         // the length the question is about
  std::span<const std::uint64_t> frontier_lengths;  // lengths for the frontier (empty: none)
  std::uint32_t kv_margin_ppm = 0;         // capacity and the start-up check on the KV budget less this share
  bool text = false;                       // build the report lines (budget, fields, log lines)
};

/// What the engine will do on one GPU (the bottleneck rank), typed; the text is built only on request.
/// KV blocks an engine keeps in host memory when its knob turns the tier on (vLLM's CPU
/// offloading, SGLang's hierarchical cache): a second-level prefix cache. Blocks the GPU evicts
/// stay there, and a request whose prefix they hold loads them instead of recomputing; running
/// requests get no more room on the GPU.
struct HostTier {
  std::uint64_t tokens = 0;   // tokens of KV it holds, for one replica (every rank holds its share)
  std::uint64_t bytes = 0;    // host memory it takes, all ranks of one replica together
  std::string knob;           // what turned it on: "--kv-offloading-size 64"
};

struct EnginePrediction {
  std::uint64_t usable_bytes = 0;          // what the engine lets itself use
  std::uint32_t fraction_ppm = 1'000'000;  // the memory fraction it applied (parts per million)
  std::uint64_t weights_bytes = 0;
  std::uint64_t reserved_bytes = 0;        // the rest it sets aside: activations, graphs, context, headroom
  std::uint64_t kv_budget_bytes = 0;       // bytes the engine gives the KV cache
  std::uint64_t max_model_len = 0;         // the longest request it accepts
  std::uint64_t configured_len = 0;        // the longest its settings configure, before it reduces them to fit
                                           // (a llama.cpp slot before --fit, TRT-LLM's max_seq_len); 0: max_model_len
  std::uint64_t block_tokens = 1;          // its allocation granule in tokens
  std::optional<DType> kv_dtype;           // the KV format it uses when its own knobs set it (llama.cpp's -ctk)
  Startup startup = Startup::ok;
  std::string refusal;                     // refused: the engine's message
  std::uint64_t startup_needed_bytes = 0;  // too_long: the KV one request of max_model_len needs
  std::uint64_t startup_max_len = 0;       // too_long: the longest max_model_len that would start
  std::optional<std::uint64_t> concurrency_cap;  // the most requests it runs at once (max_num_seqs, -np)
  std::uint64_t capacity_at_shape = 0;     // requests of shape_seq_len its KV cache holds at once
  std::vector<std::pair<std::uint64_t, std::uint64_t>> frontier;  // (length, requests) by memory
  std::optional<HostTier> host;            // a host-memory KV tier, when a knob turns one on
  // Report text (EngineInputs::text):
  std::vector<Field> budget;               // its budget arithmetic, line by line, in its own terms
  std::vector<Field> fields;               // the numbers its logs print (JSON: engine.<key>)
  std::vector<std::string> log_lines;      // the log lines themselves
  std::vector<std::string> notes;          // assumptions and version-specific behaviour
};

/// A class-table row: one flag of the engine's server and what it does to memory.
struct FlagClass {
  enum class Arity : std::uint8_t { value, flag, list, optional };  // list: nargs=+; optional: nargs=?
  std::vector<std::string> spellings;      // "--max-num-seqs" and its aliases
  std::vector<std::string> negations;      // "--no-enforce-eager": the flag, off
  Arity arity = Arity::value;
  Memory memory = Memory::none;
  std::string why;
  std::string source;
  /// The knob a modelled flag sets, where the table says so (a wrapper's table, whose spellings are not
  /// the knobs' own: Dynamo's --tensor-parallel-size for TensorRT-LLM's tp_size); else the knob whose
  /// flags hold one of the spellings.
  std::string knob;
};

/// A flag of earlier releases (Engine::removed_flag_table): its class row, and the releases that have it,
/// [since, until) by Engine::release_rank.
struct RemovedFlag {
  FlagClass row;
  std::string since;  // the first release with it ("0.6.0": every release kvplan plans)
  std::string until;  // the first release without it
  int since_rank = 0;
  int until_rank = 0;
};

/// A flag-class table (TSV) parsed once; `engine` names it in errors.
const std::vector<FlagClass>& flag_table_rows(std::string_view table, std::string_view engine);

/// A flag whose value names a YAML file of more of the engine's settings (vLLM's and SGLang's
/// --config, trtllm-serve's --extra_llm_api_options), and how the engine's release reads that file.
struct SettingsFile {
  enum class Keys : std::uint8_t {
    flags,    // each top-level key is one of its flags: `max-num-seqs: 8` is --max-num-seqs 8
    options,  // nested option paths of the engine's option table (option_table): kv_cache_config.dtype
  };
  /// How `key: true` and `key: false` become flags (Keys::flags).
  enum class Booleans : std::uint8_t {
    switches,  // true: --key; false: nothing
    negating,  // true: --key; false: --no-key where the flag has that negation, else nothing
    valued,    // a switch as above; a flag that takes a value: --key true / --key false
    as_text,   // --key True / --key False, whatever the flag
  };
  Keys keys = Keys::flags;
  bool file_wins = false;         // the file's values override the command line's (else the command line wins)
  bool equals_form = true;        // --config=FILE is read too (else only --config FILE, two words)
  bool yaml_suffix = false;       // the file must be named .yaml or .yml (else the engine refuses it)
  bool suffix_any_case = false;   // ... in any case (.YAML)
  Booleans booleans = Booleans::switches;
  bool lists_as_words = true;     // `key: [a, b]` is --key a b (else one word, Python's str of the list)
  bool maps_as_json = true;       // `key: {a: 1}` is --key '{"a": 1}' (else Python's str of the dict)
  bool inline_text = false;       // the flag's value is the settings themselves (a JSON object), not a path
  bool applies_last = false;      // merged over everything else, settings files included
  std::string_view source;        // where the engine reads the file, in the release that reads it so
};

/// An option-table row (SettingsFile::Keys::options): one option path and what it does to memory.
/// A row also classes every path below it (cuda_graph_config classes cuda_graph_config.max_batch_size).
struct OptionClass {
  std::string path;                 // "kv_cache_config.free_gpu_memory_fraction"
  std::string knob;                 // the knob it sets (a Knob::key), or empty
  Memory memory = Memory::none;
  std::string default_value;        // the engine's default as the file would write it ("false"), or empty
  std::string why;
  std::string source;
};

/// A Helm chart whose values run this engine (the vLLM production-stack): the values key that marks
/// it, the key of the engine's settings in each model entry, and which of those keys its templates
/// render into which flag. The chart's other keys (the model, image, replicas, GPUs) are read by the
/// manifest reader.
struct ChartValues {
  std::string_view section;      // the top-level values key: "servingEngineSpec"
  std::string_view models;       // the list of models under it: "modelSpec"
  std::string_view config;       // each model's engine settings: the key under a modelSpec entry
  std::span<const std::pair<std::string_view, std::string_view>> flags;  // settings key -> flag
  std::string_view source;       // the template and commit the mapping was read from
};

/// Where an engine's command line starts its arguments, once its program is recognised.
struct CommandForm {
  std::size_t args_start = 0;              // index of the first argument after the program
  bool positional_model = false;           // `vllm serve MODEL`: a model may come first
  /// A program that runs this engine under flags kvplan does not read: the command is refused with
  /// this reason (what it is and what to check instead). Empty: read.
  std::string_view unread;
  /// The program's own flag-class table, where it is not the engine's server (a wrapper such as
  /// Dynamo's worker); empty: the engine's flag_table().
  std::string_view flags;
  /// Flags PREFIX.PATH VALUE that set the option PATH of the engine's option table, merged last
  /// (Dynamo's --trtllm.kv_cache_config.free_gpu_memory_fraction 0.7); empty: none.
  std::string_view option_prefix;
};

struct EngineVersion {
  int key = 0;
  std::string text;
  bool is_default = true;
};

class Engine {
 public:
  Engine() = default;
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;
  virtual ~Engine() = default;

  [[nodiscard]] virtual std::string_view name() const = 0;       // "vllm": --engine NAME
  [[nodiscard]] virtual std::string_view display() const = 0;    // "vLLM"
  [[nodiscard]] virtual std::span<const std::string_view> aliases() const { return {}; }
  [[nodiscard]] virtual std::string_view default_version() const = 0;
  [[nodiscard]] virtual std::string_view versions_help() const = 0;
  [[nodiscard]] virtual std::optional<int> parse_version(std::string_view text) const = 0;
  [[nodiscard]] virtual Capabilities capabilities() const = 0;
  [[nodiscard]] virtual std::span<const Knob> knobs() const = 0;
  /// Every flag of the engine's server at its default version, as TSV (spellings, arity, class, why,
  /// source); empty for the engine-neutral plan, which has no server.
  [[nodiscard]] virtual std::string_view flag_table() const { return {}; }
  /// Where the table's flags were read (the release and files), for docs and messages.
  [[nodiscard]] virtual std::string_view flag_table_source() const { return {}; }
  /// Flags of earlier releases that the default version no longer has, as TSV: the class table's five
  /// columns, then the first release with the flag and the first without it (flags/<engine>_removed.tsv).
  /// A command line of a release that has one reads it by its class; a later release rejects it.
  [[nodiscard]] virtual std::string_view removed_flag_table() const { return {}; }
  /// A release's place in the engine's history, comparable across releases ("0.18.0" < "0.18.1" <
  /// "0.19"), or nullopt for text that is not one of its versions; the removed-flag table's releases and
  /// a request's version are ordered by it.
  [[nodiscard]] virtual std::optional<int> release_rank(std::string_view text) const {
    (void)text;
    return std::nullopt;
  }
  /// Why this engine refuses the split (tp, pp, context and data parallel sizes) for `model`, in its
  /// own words, or nullopt. The model-independent rules (tp divides the heads) are checked first.
  [[nodiscard]] virtual std::optional<std::string> split_problem(const ModelSpec& model, std::uint32_t tp,
                                                                 std::uint32_t pp, std::uint32_t cp) const {
    (void)model, (void)tp, (void)pp, (void)cp;
    return std::nullopt;
  }
  /// Whether the class-table row `row` names a settings file in `version`, and how that release reads it.
  [[nodiscard]] virtual std::optional<SettingsFile> settings_file(const FlagClass& row,
                                                                  const EngineVersion& version) const {
    (void)row, (void)version;
    return std::nullopt;
  }
  /// The option paths of its settings files (SettingsFile::Keys::options), as TSV (path, knob key or -,
  /// class, default or -, why, source); empty when it has none.
  [[nodiscard]] virtual std::string_view option_table() const { return {}; }
  /// The memory-fraction knob (an index into knobs()) that the inverse and emit search.
  [[nodiscard]] virtual std::optional<std::size_t> fraction_knob() const { return std::nullopt; }
  /// Refuses contradictory knobs (throws kvplan::Error naming them).
  virtual void validate(const KnobSet& knobs) const { (void)knobs; }
  [[nodiscard]] virtual EnginePrediction predict(const EngineInputs& in) const = 0;
  /// The knobs that make the engine accept `batch` requests of `len` tokens at once (emit, inverse).
  virtual void serve_shape(std::uint64_t batch, std::uint64_t len, KnobSet& knobs) const;
  /// The concurrency cap knob, if the engine has one (max_num_seqs, max_running_requests, -np).
  [[nodiscard]] virtual std::optional<std::size_t> cap_knob() const { return std::nullopt; }
  /// A count of layers whose MoE experts stay in host memory (llama.cpp's --n-cpu-moe), if the engine has one:
  /// the fixes search it when the weights do not fit.
  [[nodiscard]] virtual std::optional<std::size_t> expert_offload_knob() const { return std::nullopt; }
  /// Whether version `version` (a parse_version key) has the knob at all (llama.cpp's --n-cpu-moe came in
  /// b6089); predict refuses a knob its version lacks.
  [[nodiscard]] virtual bool has_knob(std::size_t knob, int version) const {
    (void)knob, (void)version;
    return true;
  }
  /// A knob that sets the KV cache's size outright (vLLM's kv_cache_memory_bytes), if the engine has one.
  [[nodiscard]] virtual std::optional<std::size_t> kv_memory_knob() const { return std::nullopt; }
  /// The launch command: `model_id`, the resolved parallelism and the engine's knobs, as its CLI spells them.
  struct EmitInputs {
    std::string model_id;                  // an HF id or a local folder
    std::string model_name;                // kvplan's name for it (a GGUF file's stem)
    std::uint32_t tp = 1, pp = 1, dp = 1, cp = 1;
    std::uint64_t max_model_len = 0;
    std::optional<DType> kv_dtype;         // set when not the model's own
    std::optional<std::string> quantization;
    const KnobSet* knobs = nullptr;
  };
  [[nodiscard]] virtual std::optional<std::string> emit(const EmitInputs& in) const {
    (void)in;
    return std::nullopt;
  }
  /// A flag as the engine's parser reads it (vLLM reads --max_model_len as --max-model-len and
  /// --compilation-config.mode as --compilation-config; -O3 as --optimization-level 3).
  [[nodiscard]] virtual std::string normalize_flag(std::string_view flag) const { return std::string(flag); }
  /// How its server's command line starts, for messages ("vllm serve MODEL ...").
  [[nodiscard]] virtual std::span<const std::string_view> command_examples() const { return {}; }
  /// Whether `argv` runs this engine's server; where its arguments start.
  [[nodiscard]] virtual std::optional<CommandForm> command_form(std::span<const std::string> argv) const {
    (void)argv;
    return std::nullopt;
  }
  /// Whether `argv` runs this engine's server when the user names the engine (`check --engine`): a program
  /// two engines ship (llama.cpp's and ik_llama.cpp's llama-server) is then this one's.
  [[nodiscard]] virtual std::optional<CommandForm> named_command_form(std::span<const std::string> argv) const {
    return command_form(argv);
  }
  /// A Helm chart that runs this engine, read from its values file (nullopt: none).
  [[nodiscard]] virtual std::optional<ChartValues> chart_values() const { return std::nullopt; }
  /// For a container image of this engine ("vllm/vllm-openai:v0.11.0"): the version its tag names
  /// ("" for latest or an unversioned tag), or nullopt when the image is not this engine's.
  [[nodiscard]] virtual std::optional<std::string> image_version(std::string_view image) const {
    (void)image;
    return std::nullopt;
  }
  /// The words the image runs before its arguments (its ENTRYPOINT): {"vllm", "serve"}.
  [[nodiscard]] virtual std::vector<std::string> image_entrypoint(std::string_view image) const {
    (void)image;
    return {};
  }

  /// The knob with this key, or nullopt.
  [[nodiscard]] std::optional<std::size_t> knob_index(std::string_view key) const noexcept;
  /// The parsed class table (cached).
  [[nodiscard]] const std::vector<FlagClass>& flag_classes() const;
  /// The parsed removed-flag table (cached).
  [[nodiscard]] const std::vector<RemovedFlag>& removed_flags() const;
  /// The parsed option table (cached).
  [[nodiscard]] const std::vector<OptionClass>& option_classes() const;
};

/// Every engine, the engine-neutral plan first (src/engines/registry.cpp).
std::span<const Engine* const> all_engines() noexcept;
/// The engine-neutral plan ("raw").
const Engine& raw_engine() noexcept;

struct EngineChoice {
  const Engine* engine = nullptr;
  EngineVersion version;
};

/// "vllm", "vllm@0.19", "sglang@0.5", "raw": throws kvplan::Error with "did you mean".
EngineChoice parse_engine(std::string_view text);
/// The engine by name or alias, or nullptr.
const Engine* find_engine(std::string_view name) noexcept;
/// `version` read by `engine` (throws kvplan::Error naming the range).
EngineVersion parse_engine_version(const Engine& engine, std::string_view version);

/// A knob's value read from text (a flag, a command line), typed by the knob; `where` names it in errors.
KnobValue read_knob(const Knob& knob, std::string_view where, std::string_view text);
/// The text a value is written as on a command line (emit, fixes): "0.9", "32768", "fp8", "on".
std::string knob_text(const Knob& knob, const KnobValue& value);

}  // namespace kvplan
