// Engines' command lines into typed requests. The reading is generic; what is particular to an
// engine (its programs, its images, its flags and their classes, its knobs and how it reads their
// values) comes from the engine's own module.
#include "kvplan/command_line.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fmt/format.h>

#include "kvplan/error.hpp"
#include "kvplan/model_source.hpp"
#include "kvplan/quantity.hpp"
#include "kvplan/text.hpp"

namespace kvplan {
namespace {

constexpr std::size_t kMaxWords = 4096;
constexpr std::size_t kMaxChars = 64 * 1024;

bool env_assignment(std::string_view w) {
  const std::size_t eq = w.find('=');
  if (eq == 0 || eq == std::string_view::npos || (std::isdigit(static_cast<unsigned char>(w[0])) != 0)) {
    return false;
  }
  return std::all_of(w.begin(), w.begin() + static_cast<std::ptrdiff_t>(eq),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; });
}

std::string_view base(std::string_view word) {
  const std::size_t slash = word.find_last_of('/');
  return slash == std::string_view::npos ? word : word.substr(slash + 1);
}

// Docker's `run` options that take a value (docker run --help); everything else is a switch.
bool docker_option_takes_value(std::string_view opt) {
  static constexpr std::string_view kValued[] = {
      "-e", "--env", "--env-file", "-v", "--volume", "-p", "--publish", "--gpus", "--name", "--shm-size", "--ipc",
      "--runtime", "--network", "--net", "--entrypoint", "-w", "--workdir", "--device", "--ulimit", "-u", "--user",
      "--mount", "--platform", "--cpus", "--memory", "-m", "--label", "-l", "--hostname", "-h", "--add-host",
      "--cap-add", "--cap-drop", "--security-opt", "--restart", "--log-driver", "--log-opt", "--pull", "--memory-swap",
      "--cpuset-cpus", "--group-add", "--tmpfs", "--volumes-from", "--pid", "--uts", "--userns", "--stop-signal",
      "--health-cmd", "--dns", "--expose", "--cidfile", "--attach", "-a"};
  return std::find(std::begin(kValued), std::end(kValued), opt) != std::end(kValued);
}

// "all" -> nullopt (every GPU the host has), "2" -> 2, "device=0,1" / "\"device=0,1\"" -> 2.
std::optional<std::uint32_t> docker_gpus(std::string v) {
  std::erase(v, '"');
  std::erase(v, '\'');
  if (v == "all") {
    return std::nullopt;
  }
  if (v.rfind("device=", 0) == 0) {
    const std::string ids = v.substr(7);
    return static_cast<std::uint32_t>(std::count(ids.begin(), ids.end(), ',') + 1);
  }
  if (const auto n = to_unsigned(v); n && *n > 0 && *n <= 4096) {
    return static_cast<std::uint32_t>(*n);
  }
  throw Error(fmt::format("docker run --gpus: expected all, a count or \"device=0,1\" (got {})", quote_input(v)));
}

std::uint32_t visible_devices(std::string_view ids) {
  if (ids.empty()) {
    return 0;
  }
  return static_cast<std::uint32_t>(std::count(ids.begin(), ids.end(), ',') + 1);
}

struct Prefix {
  std::vector<std::pair<std::string, std::string>> env;
  std::optional<std::uint32_t> gpus;           // from the environment or docker --gpus
  const Engine* image_engine = nullptr;
  std::optional<std::string> image_version;    // "" for latest
  std::string image;
  std::vector<std::string> command;            // the engine's program and its arguments
};

// The container's part of a prefix: the image names the engine and its version, and its entrypoint
// runs first unless the words already start an engine's program (or replace the entrypoint).
void apply_image(Prefix& p, std::string image, std::optional<std::string> entrypoint, bool replaces_entrypoint,
                 std::vector<std::string> rest) {
  p.image = std::move(image);
  for (const Engine* e : all_engines()) {
    if (auto v = e->image_version(p.image)) {
      p.image_engine = e;
      p.image_version = std::move(v);
      break;
    }
  }
  bool program = false;
  for (const Engine* e : all_engines()) {
    program = program || e->command_form(rest).has_value();
  }
  if (!program && !replaces_entrypoint) {
    // The image's entrypoint runs first: `docker run vllm/vllm-openai:v0.11.0 --model X` is `vllm serve --model X`.
    std::vector<std::string> entry;
    if (entrypoint) {
      entry = {*entrypoint};
    } else if (p.image_engine != nullptr) {
      entry = p.image_engine->image_entrypoint(p.image);
    }
    rest.insert(rest.begin(), entry.begin(), entry.end());
  }
  p.command = std::move(rest);
}

// CUDA_VISIBLE_DEVICES and its kin say how many GPUs the engine sees.
void apply_visible_devices(Prefix& p) {
  for (const auto& [name, value] : p.env) {
    if (name == "CUDA_VISIBLE_DEVICES" || name == "HIP_VISIBLE_DEVICES" || name == "ROCR_VISIBLE_DEVICES" ||
        (name == "NVIDIA_VISIBLE_DEVICES" && value != "all" && value != "void" && value != "none")) {
      p.gpus = visible_devices(value);
    }
  }
}

// Assignments, `sudo`, `env` and `exec` before the program.
std::size_t skip_assignments(std::span<const std::string> words, Prefix* p) {
  std::size_t i = 0;
  while (i < words.size() &&
         (words[i] == "sudo" || words[i] == "env" || words[i] == "exec" || env_assignment(words[i]))) {
    if (p != nullptr && env_assignment(words[i])) {
      const std::size_t eq = words[i].find('=');
      p->env.emplace_back(words[i].substr(0, eq), words[i].substr(eq + 1));
    }
    ++i;
  }
  return i;
}

Prefix strip_prefix(std::span<const std::string> words) {
  Prefix p;
  std::size_t i = skip_assignments(words, &p);
  auto take_env = [&](const std::string& w) {
    const std::size_t eq = w.find('=');
    p.env.emplace_back(w.substr(0, eq), w.substr(eq + 1));
  };
  const bool docker = i < words.size() && (base(words[i]) == "docker" || base(words[i]) == "podman" ||
                                           base(words[i]) == "nerdctl");
  if (docker) {
    // Assignments before `docker` are the docker client's environment, not the container's: only
    // `-e` reaches the engine (and --gpus says which GPUs it sees).
    p.env.clear();
    ++i;
    if (i < words.size() && words[i] == "container") {
      ++i;
    }
    if (i >= words.size() || words[i] != "run") {
      throw Error("only 'docker run IMAGE ...' command lines are read");
    }
    ++i;
    std::optional<std::string> entrypoint;
    for (; i < words.size() && !words[i].empty() && words[i].front() == '-'; ++i) {
      std::string opt = words[i];
      std::optional<std::string> value;
      if (const std::size_t eq = opt.find('='); eq != std::string::npos && opt.rfind("--", 0) == 0) {
        value = opt.substr(eq + 1);
        opt = opt.substr(0, eq);
      }
      if (!value && docker_option_takes_value(opt)) {
        if (i + 1 >= words.size()) {
          throw Error(fmt::format("docker run {}: needs a value", opt));
        }
        value = words[++i];
      }
      if ((opt == "-e" || opt == "--env") && value && env_assignment(*value)) {
        take_env(*value);
      } else if (opt == "--gpus" && value) {
        p.gpus = docker_gpus(*value);
      } else if (opt == "--entrypoint" && value) {
        entrypoint = *value;
      }
    }
    if (i >= words.size()) {
      throw Error("docker run: no image");
    }
    std::string image = words[i++];
    apply_image(p, std::move(image), entrypoint, false,
                std::vector<std::string>(words.begin() + static_cast<std::ptrdiff_t>(i), words.end()));
  } else {
    p.command.assign(words.begin() + static_cast<std::ptrdiff_t>(i), words.end());
  }
  apply_visible_devices(p);
  return p;
}

struct FlagMatch {
  const FlagClass* row = nullptr;
  bool negated = false;
  std::string spelling;
};

FlagMatch find_flag(const Engine& e, const std::string& flag) {
  const std::vector<FlagClass>& rows = e.flag_classes();
  for (const FlagClass& row : rows) {
    if (std::find(row.spellings.begin(), row.spellings.end(), flag) != row.spellings.end()) {
      return {&row, false, flag};
    }
    if (std::find(row.negations.begin(), row.negations.end(), flag) != row.negations.end()) {
      return {&row, true, flag};
    }
  }
  return {};
}

// argparse's allow_abbrev: a unique prefix of a long flag is that flag.
std::vector<FlagMatch> prefix_matches(const Engine& e, const std::string& flag) {
  std::vector<FlagMatch> out;
  if (flag.rfind("--", 0) != 0) {
    return out;
  }
  for (const FlagClass& row : e.flag_classes()) {
    for (const std::string& s : row.spellings) {
      if (s.rfind("--", 0) == 0 && s.rfind(flag, 0) == 0) {
        out.push_back({&row, false, s});
        break;
      }
    }
    for (const std::string& s : row.negations) {
      if (s.rfind(flag, 0) == 0) {
        out.push_back({&row, true, s});
        break;
      }
    }
  }
  return out;
}

std::optional<std::size_t> knob_of(const Engine& e, const FlagClass& row) {
  const std::span<const Knob> all = e.knobs();
  for (std::size_t i = 0; i < all.size(); ++i) {
    for (std::string_view rest = all[i].flags; !rest.empty();) {
      const std::size_t sp = rest.find(' ');
      const std::string spelling(rest.substr(0, sp));
      if (std::find(row.spellings.begin(), row.spellings.end(), spelling) != row.spellings.end()) {
        return i;
      }
      rest = sp == std::string_view::npos ? std::string_view{} : rest.substr(sp + 1);
    }
  }
  return std::nullopt;
}

std::vector<std::string> all_spellings(const Engine& e) {
  std::vector<std::string> out;
  for (const FlagClass& row : e.flag_classes()) {
    out.insert(out.end(), row.spellings.begin(), row.spellings.end());
  }
  return out;
}

// Weight formats by the engines' names for them (vLLM --dtype/--quantization, SGLang likewise).
std::optional<std::string> weight_name(const std::string& text) {
  const std::string v = to_lower(text);
  if (v == "auto") {
    return std::nullopt;
  }
  if (v == "bfloat16" || v == "bf16") {
    return "bf16";
  }
  if (v == "float16" || v == "half" || v == "fp16") {
    return "fp16";
  }
  if (v == "float32" || v == "float" || v == "fp32") {
    return "bf16";  // fp32 checkpoints load as 16-bit in serving
  }
  if (v == "awq" || v == "gptq" || v == "awq_marlin" || v == "gptq_marlin" || v == "bitsandbytes" || v == "int4" ||
      v == "w4a16" || v == "moe_wna16") {
    return "int4";
  }
  if (v == "fp8" || v == "fbgemm_fp8" || v == "modelopt" || v == "w8a8_fp8" || v == "ptpc_fp8") {
    return "fp8";
  }
  if (v == "mxfp4") {
    return "mxfp4";
  }
  if (v == "int8" || v == "w8a8_int8" || v == "smoothquant") {
    return "int8";
  }
  return std::string("?") + text;
}

}  // namespace

std::string command_label(std::span<const std::string> words) {
  std::vector<std::string> cmd;
  try {
    cmd = strip_prefix(words).command;
  } catch (const Error&) {
    cmd.assign(words.begin(), words.end());
  }
  std::string out;
  for (const Engine* e : all_engines()) {
    if (const auto form = e->command_form(cmd)) {
      for (std::size_t k = 0; k < form->args_start; ++k) {
        out += (k == 0 ? "" : " ") + cmd[k];
      }
      return out;
    }
  }
  return cmd.empty() ? std::string() : cmd.front();
}

namespace {

PlanRequest read_prefixed(const Prefix& pre, const CommandContext& ctx);

void check_size(std::span<const std::string> words, const CommandContext& ctx) {
  std::size_t chars = 0;
  for (const std::string& w : words) {
    chars += w.size() + 1;
  }
  if (words.size() > kMaxWords || chars > kMaxChars) {
    throw Error(fmt::format("{}: the command line has {} words and {} characters; kvplan reads at most {} words and {} "
                            "characters",
                            ctx.origin.empty() ? "check" : ctx.origin, words.size(), chars, kMaxWords, kMaxChars));
  }
}

}  // namespace

PlanRequest read_command_line(std::span<const std::string> words, const CommandContext& ctx) {
  check_size(words, ctx);
  return read_prefixed(strip_prefix(words), ctx);
}

PlanRequest read_container(const ContainerLaunch& launch, const CommandContext& ctx) {
  std::vector<std::string> words = launch.command;
  words.insert(words.end(), launch.args.begin(), launch.args.end());
  check_size(words, ctx);
  Prefix p;
  p.env = launch.env;
  // A shell-free command may still start with assignments (`env VAR=1 vllm serve`).
  const std::size_t skip = skip_assignments(words, &p);
  words.erase(words.begin(), words.begin() + static_cast<std::ptrdiff_t>(skip));
  apply_image(p, launch.image, std::nullopt, launch.replaces_entrypoint,
              std::move(words));
  p.gpus = launch.gpus;
  apply_visible_devices(p);
  return read_prefixed(p, ctx);
}

bool runs_engine(std::span<const std::string> words) {
  const std::size_t skip = skip_assignments(words, nullptr);
  const std::span<const std::string> rest = words.subspan(skip);
  for (const Engine* e : all_engines()) {
    if (e->command_form(rest)) {
      return true;
    }
  }
  return false;
}

namespace {

PlanRequest read_prefixed(const Prefix& pre, const CommandContext& ctx) {
  const std::vector<std::string>& cmd = pre.command;
  const Engine* engine = nullptr;
  std::optional<CommandForm> form;
  // A program two engines run (llama-server: llama.cpp and ik_llama.cpp) is read as the one --engine names.
  if (ctx.engine && (form = ctx.engine->engine->named_command_form(cmd))) {
    engine = ctx.engine->engine;
  }
  for (const Engine* e : all_engines()) {
    if (engine == nullptr && (form = e->command_form(cmd))) {
      engine = e;
      break;
    }
  }
  if (engine == nullptr) {
    std::string forms;
    for (const Engine* e : all_engines()) {
      for (std::string_view f : e->command_examples()) {
        forms += (forms.empty() ? "'" : ", '") + std::string(f) + "'";
      }
    }
    throw Error(fmt::format("cannot read the command {}: kvplan reads {}, also after environment assignments and "
                            "'docker run IMAGE'",
                            quote_input(cmd.empty() ? std::string() : cmd.front()), forms));
  }
  PlanRequest q;
  q.origin = Origin::command_line;
  q.engine = engine;
  const std::string label = command_label(cmd);
  const std::string where = ctx.origin.empty() ? label : ctx.origin;
  const bool image_names_version =
      pre.image_engine != nullptr && pre.image_engine == engine && pre.image_version && !pre.image_version->empty();
  if (ctx.engine) {
    if (ctx.engine->engine != engine) {
      throw Error(fmt::format("--engine {}: the command runs {}, not {}", ctx.engine->engine->name(), engine->display(),
                              ctx.engine->engine->display()));
    }
    if (image_names_version && !ctx.engine->version.is_default &&
        parse_engine_version(*engine, *pre.image_version).key != ctx.engine->version.key) {
      throw Error(fmt::format("--engine {}@{}: the image {} says version {}", engine->name(), ctx.engine->version.text,
                              quote_input(pre.image), *pre.image_version));
    }
  }
  if (ctx.engine && !ctx.engine->version.is_default) {
    q.version = ctx.engine->version;
  } else if (image_names_version) {
    q.version = parse_engine_version(*engine, *pre.image_version);
  } else {
    q.version = parse_engine_version(*engine, engine->default_version());
    q.version.is_default = true;
    if (pre.image_engine != nullptr && pre.image_version && pre.image_version->empty()) {
      q.warnings.push_back(fmt::format("{}: image {} names no version; planned with {} {}, kvplan's default", where,
                                       quote_input(pre.image), engine->display(), engine->default_version()));
    }
  }
  const Capabilities caps = engine->capabilities();
  std::optional<std::string> model_name;
  std::optional<std::string> dtype_text;
  std::optional<std::string> quant_text;
  std::vector<std::pair<std::size_t, std::string>> typed;  // knob index, value text (after reading)
  auto warn_unmodelled = [&](const std::string& flag, const FlagClass& row) {
    q.warnings.push_back(fmt::format("{}: {} changes memory and kvplan does not model it ({}); the verdict is uncertain",
                                     where, flag, row.why));
    q.uncertain = true;
  };
  for (const auto& [name, value] : pre.env) {
    for (std::size_t i = 0; i < engine->knobs().size(); ++i) {
      if (!engine->knobs()[i].env.empty() && engine->knobs()[i].env == name) {
        typed.emplace_back(i, value);
      }
    }
  }
  std::size_t i = form->args_start;
  if (form->positional_model && i < cmd.size() && !cmd[i].empty() && cmd[i].front() != '-') {
    model_name = cmd[i++];
  }
  for (; i < cmd.size(); ++i) {
    std::string flag = cmd[i];
    if (flag.empty() || flag.front() != '-' || flag == "-" ) {
      q.warnings.push_back(fmt::format("{}: unexpected argument {}; kvplan ignores it", where, quote_input(flag)));
      continue;
    }
    std::optional<std::string> value;
    if (const std::size_t eq = flag.find('='); eq != std::string::npos && flag.rfind("--", 0) == 0) {
      value = flag.substr(eq + 1);
      flag = flag.substr(0, eq);
    }
    std::string name = engine->normalize_flag(flag);
    if (const std::size_t sp = name.find(' '); sp != std::string::npos) {
      value = name.substr(sp + 1);  // -O3 -> --optimization-level 3
      name = name.substr(0, sp);
    }
    FlagMatch m = find_flag(*engine, name);
    if (m.row == nullptr && caps.abbreviations) {
      const std::vector<FlagMatch> prefixes = prefix_matches(*engine, name);
      if (prefixes.size() == 1) {
        m = prefixes.front();
      } else if (prefixes.size() > 1) {
        std::string list;
        for (std::size_t k = 0; k < prefixes.size() && k < 4; ++k) {
          list += (k == 0 ? "" : ", ") + prefixes[k].spelling;
        }
        q.refusal = fmt::format("{} rejects {}: ambiguous option, it could be {}{}", engine->display(), quote_input(flag), list,
                                prefixes.size() > 4 ? ", ..." : "");
        if (!value && i + 1 < cmd.size() && !cmd[i + 1].empty() && cmd[i + 1].front() != '-') {
          ++i;
        }
        continue;
      }
    }
    if (m.row == nullptr) {
      const std::string message = fmt::format("{}: unknown flag {} for {} {}{}", where, quote_input(flag), engine->display(),
                                              q.version.text, did_you_mean(name, all_spellings(*engine)));
      if (ctx.strict) {
        throw Error(message + " (--strict)");
      }
      q.warnings.push_back(message + "; kvplan ignores it");
      if (!value && i + 1 < cmd.size() && !cmd[i + 1].empty() && cmd[i + 1].front() != '-') {
        ++i;  // its value, most likely
      }
      continue;
    }
    switch (m.row->arity) {
      case FlagClass::Arity::flag:
        break;
      case FlagClass::Arity::value:
        if (!value) {
          if (i + 1 >= cmd.size()) {
            throw Error(fmt::format("{}: flag {} needs a value", where, quote_input(flag)));
          }
          value = cmd[++i];
        }
        break;
      case FlagClass::Arity::list:
        if (!value) {
          std::string joined;
          while (i + 1 < cmd.size() && !cmd[i + 1].empty() && cmd[i + 1].front() != '-') {
            joined += (joined.empty() ? "" : " ") + cmd[++i];
          }
          if (joined.empty()) {
            throw Error(fmt::format("{}: flag {} needs at least one value", where, quote_input(flag)));
          }
          value = joined;
        }
        break;
      case FlagClass::Arity::optional:
        if (!value && i + 1 < cmd.size() && !cmd[i + 1].empty() && cmd[i + 1].front() != '-') {
          value = cmd[++i];
        }
        break;
    }
    const std::optional<std::size_t> knob = m.row->memory == Memory::modelled ? knob_of(*engine, *m.row) : std::nullopt;
    if (!knob) {
      if (m.row->memory != Memory::none) {
        warn_unmodelled(flag, *m.row);
      }
      continue;
    }
    const Knob& k = engine->knobs()[*knob];
    if (k.type == KnobType::flag && m.row->arity == FlagClass::Arity::flag) {
      typed.emplace_back(*knob, m.negated ? "off" : "on");
    } else {
      typed.emplace_back(*knob, value.value_or(""));
    }
  }
  for (const auto& [index, text] : typed) {
    const Knob& k = engine->knobs()[index];
    const std::string flag = k.flags.empty() ? std::string(k.key) : std::string(k.flags.substr(0, k.flags.find(' ')));
    const std::string at = fmt::format("{}: {}", where, flag);
    switch (k.target) {
      case Target::model:
        model_name = text;
        break;
      case Target::weights:
        (k.key == "dtype" ? dtype_text : quant_text) = text;
        break;
      case Target::kv_dtype: {
        const KnobValue v = k.parse != nullptr ? k.parse(at, text) : read_knob(k, at, text);
        if (const auto* d = std::get_if<DType>(&v)) {
          q.kv_dtype = *d;
        }
        break;
      }
      case Target::max_model_len: {
        const KnobValue v = k.parse != nullptr ? k.parse(at, text) : read_knob(k, at, text);
        q.max_model_len = std::get<std::uint64_t>(v);
        break;
      }
      case Target::nodes: {
        const KnobValue v = k.parse != nullptr ? k.parse(at, text) : read_knob(k, at, text);
        q.nodes = static_cast<std::uint32_t>(std::get<std::uint64_t>(v));
        break;
      }
      case Target::tp:
      case Target::pp:
      case Target::dp:
      case Target::cp: {
        const KnobValue v = k.parse != nullptr ? k.parse(at, text) : read_knob(k, at, text);
        const auto n = static_cast<std::uint32_t>(std::get<std::uint64_t>(v));
        (k.target == Target::tp ? q.tp : k.target == Target::pp ? q.pp : k.target == Target::dp ? q.dp : q.cp) = n;
        break;
      }
      case Target::own: {
        KnobValue v = k.parse != nullptr ? k.parse(at, text) : read_knob(k, at, text);
        if (const auto* s = std::get_if<std::string>(&v); s != nullptr && *s == "auto" && k.type != KnobType::text) {
          break;  // the engine's own default
        }
        if (const KnobValue* before = q.knobs.find(index); k.accumulates && before != nullptr) {
          v = std::get<std::string>(*before) + "," + std::get<std::string>(v);  // -ot A -ot B: A, then B
        }
        q.knobs.set(index, std::move(v));
        break;
      }
    }
  }
  engine->validate(q.knobs);
  // The model: kvplan check --model/--config names the architecture; else the command line's.
  if (ctx.model) {
    q.model = *ctx.model;
  } else if (model_name) {
    for (const auto& [path, what] : ctx.mounts) {
      const bool under = model_name->rfind(path, 0) == 0 &&
                         (model_name->size() == path.size() || path.back() == '/' || (*model_name)[path.size()] == '/');
      std::error_code ec;
      if (under && !std::filesystem::exists(*model_name, ec)) {
        throw Error(fmt::format("{}: the model {} is on {}, mounted at {}, which is not on this machine; name the "
                                "architecture with the annotation kvplan.io/model or --model NAME",
                                where, quote_input(*model_name), what, path));
      }
    }
    q.model = load_engine_model(*model_name, where);
    if (q.model.spec->weights_estimated) {
      q.warnings.push_back(fmt::format("{}: {} is not on this machine: the weights are {}; the verdict is uncertain",
                                       where, quote_input(*model_name), q.model.spec->weights_source));
      q.uncertain = true;
    }
  } else {
    throw Error(fmt::format("{}: no model on the command line; name it with kvplan check --model NAME or --config PATH",
                            where));
  }
  const std::optional<std::string> weights = quant_text ? weight_name(*quant_text) : dtype_text ? weight_name(*dtype_text)
                                                                                                : std::nullopt;
  if (weights && weights->front() == '?') {
    q.warnings.push_back(fmt::format("{}: the quantization {} is not modelled; the weights are planned as the "
                                     "checkpoint's own format",
                                     where, quote_input(weights->substr(1))));
    q.uncertain = true;
  } else if (weights) {
    q.weights = weight_format(q.model_spec(), *weights);
    q.weights_label = quant_text ? *quant_text : *dtype_text;
    if (quant_text) {
      // The method the engine runs (its model_config.quantization), which its rules may read.
      auto spec = std::make_shared<ModelSpec>(q.model_spec());
      spec->quant_method = to_lower(*quant_text);
      q.model.spec = std::move(spec);
    }
  } else {
    (void)weight_format(q.model_spec(), "auto");
  }
  // The machine: kvplan check --gpu names the GPU; the environment or docker --gpus, how many it sees.
  if (ctx.hardware) {
    q.hardware = *ctx.hardware;
  }
  if (pre.gpus) {
    if (*pre.gpus == 0) {
      throw Error(fmt::format("{}: CUDA_VISIBLE_DEVICES is empty: the engine sees no GPU", where));
    }
    q.hardware.count = *pre.gpus;
    if (q.hardware.gpu != nullptr) {
      q.hardware.label = *pre.gpus > 1 ? fmt::format("{}x{}", q.hardware.gpu->name, *pre.gpus)
                                       : std::string(q.hardware.gpu->name);
    }
  }
  return q;
}

}  // namespace

std::vector<std::string> shell_words(std::string_view line) {
  std::vector<std::string> out;
  std::string cur;
  bool any = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (c == '\\') {
      if (i + 1 < line.size() && line[i + 1] == '\n') {
        ++i;  // a line continuation
        continue;
      }
      if (i + 1 < line.size()) {
        cur += line[++i];
        any = true;
      }
      continue;
    }
    if (c == '\'' || c == '"') {
      const std::size_t end = line.find(c, i + 1);
      if (end == std::string_view::npos) {
        throw Error(fmt::format("unterminated {} quote in the command line", c == '\'' ? "single" : "double"));
      }
      cur += line.substr(i + 1, end - i - 1);
      any = true;
      i = end;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      if (any) {
        out.push_back(std::move(cur));
        cur.clear();
        any = false;
      }
      continue;
    }
    cur += c;
    any = true;
  }
  if (any) {
    out.push_back(std::move(cur));
  }
  return out;
}

}  // namespace kvplan
