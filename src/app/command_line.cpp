// Engines' command lines into typed requests. The reading is generic; what is particular to an
// engine (its programs, its images, its flags and their classes, its knobs and how it reads their
// values) comes from the engine's own module.
#include "kvplan/command_line.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fmt/format.h>

#include "kvplan/error.hpp"
#include "kvplan/files.hpp"
#include "kvplan/model_source.hpp"
#include "kvplan/quantity.hpp"
#include "kvplan/text.hpp"
#include "settings_file.hpp"

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

using FlagRows = std::vector<FlagClass>;

// The row's match for `flag`: one of its spellings, or (negated) one of its negations.
FlagMatch match_row(const FlagClass& row, const std::string& flag) {
  if (std::find(row.spellings.begin(), row.spellings.end(), flag) != row.spellings.end()) {
    return {&row, false, flag};
  }
  if (std::find(row.negations.begin(), row.negations.end(), flag) != row.negations.end()) {
    return {&row, true, flag};
  }
  return {};
}

FlagMatch find_flag(const FlagRows& rows, const std::string& flag) {
  for (const FlagClass& row : rows) {
    if (FlagMatch m = match_row(row, flag); m.row != nullptr) {
      return m;
    }
  }
  return {};
}

// A flag of an earlier release (Engine::removed_flags), by any of its spellings; `m` is its row's match.
const RemovedFlag* find_removed(const Engine& e, const std::string& flag, FlagMatch& m) {
  for (const RemovedFlag& r : e.removed_flags()) {
    if (m = match_row(r.row, flag); m.row != nullptr) {
      return &r;
    }
  }
  return nullptr;
}

// argparse's allow_abbrev: a unique prefix of a long flag is that flag.
std::vector<FlagMatch> prefix_matches(const FlagRows& rows, const std::string& flag) {
  std::vector<FlagMatch> out;
  if (flag.rfind("--", 0) != 0) {
    return out;
  }
  for (const FlagClass& row : rows) {
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

// The knob a modelled row sets: the one its table names, else the knob whose flags hold one of its spellings.
std::optional<std::size_t> knob_of(const Engine& e, const FlagClass& row) {
  if (!row.knob.empty()) {
    return e.knob_index(row.knob);
  }
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

std::vector<std::string> all_spellings(const FlagRows& rows) {
  std::vector<std::string> out;
  for (const FlagClass& row : rows) {
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

struct TypedText {
  std::size_t knob = 0;
  std::string text;
  std::string where;  // what gave it, for messages: the command, or a settings file and line
};

std::optional<std::size_t> model_knob(const Engine& e) {
  for (std::size_t k = 0; k < e.knobs().size(); ++k) {
    if (e.knobs()[k].target == Target::model) {
      return k;
    }
  }
  return std::nullopt;
}

// Where a settings file named on a command line is read: as given when absolute, else in the folder of the
// file that holds the command (ctx.base_dir), else the current folder.
std::string settings_path(const CommandContext& ctx, const std::string& path) {
  if (!ctx.base_dir.empty() && std::filesystem::path(path).is_relative()) {
    return (std::filesystem::path(ctx.base_dir) / path).string();
  }
  return path;
}

// Reads an engine's flags from words (a command line's, or a settings file's key turned into the flag the
// engine makes of it) into knob values as text.
class FlagReader {
 public:
  FlagReader(const Engine& engine, const CommandForm& form, const CommandContext& ctx, PlanRequest& q)
      : engine_(engine),
        rows_(form.flags.empty() ? engine.flag_classes() : flag_table_rows(form.flags, engine.name())),
        option_prefix_(form.option_prefix),
        ctx_(ctx),
        q_(q),
        caps_(engine.capabilities()) {}

  /// The settings merged over all the others (SettingsFile::applies_last, the option-prefix flags), in order.
  std::vector<TypedText>& last() { return last_; }

  void read(std::span<const std::string> cmd, std::size_t i, const std::string& where, std::vector<TypedText>& typed,
            std::vector<TypedText>& under, std::vector<TypedText>& over, bool in_file) {
    for (; i < cmd.size(); ++i) {
      std::string flag = cmd[i];
      if (flag.empty() || flag.front() != '-' || flag == "-") {
        q_.warnings.push_back(fmt::format("{}: unexpected argument {}; kvplan ignores it", where, quote_input(flag)));
        continue;
      }
      std::optional<std::string> value;
      bool equals = false;
      if (const std::size_t eq = flag.find('='); eq != std::string::npos && flag.rfind("--", 0) == 0) {
        value = flag.substr(eq + 1);
        flag = flag.substr(0, eq);
        equals = true;
      }
      std::string name = engine_.normalize_flag(flag);
      if (const std::size_t sp = name.find(' '); sp != std::string::npos) {
        value = name.substr(sp + 1);  // -O3 -> --optimization-level 3
        name = name.substr(0, sp);
      }
      if (!option_prefix_.empty() && name.size() > option_prefix_.size() && name.rfind(option_prefix_, 0) == 0) {
        // PREFIX.PATH VALUE: the option PATH of the engine's option table.
        if (!value) {
          if (i + 1 >= cmd.size()) {
            throw Error(fmt::format("{}: flag {} needs a value", where, quote_input(flag)));
          }
          value = cmd[++i];
        }
        SettingsEntry e;
        e.key = name.substr(option_prefix_.size());
        e.value.text = *value;
        read_option(e, fmt::format("{}: {}", where, flag), last_);
        continue;
      }
      FlagMatch m = find_flag(rows_, name);
      if (m.row == nullptr && caps_.abbreviations) {
        const std::vector<FlagMatch> prefixes = prefix_matches(rows_, name);
        if (prefixes.size() == 1) {
          m = prefixes.front();
        } else if (prefixes.size() > 1) {
          std::string list;
          for (std::size_t k = 0; k < prefixes.size() && k < 4; ++k) {
            list += (k == 0 ? "" : ", ") + prefixes[k].spelling;
          }
          q_.refusal = fmt::format("{} rejects {}: ambiguous option, it could be {}{}", engine_.display(),
                                   quote_input(flag), list, prefixes.size() > 4 ? ", ..." : "");
          if (!value && i + 1 < cmd.size() && !cmd[i + 1].empty() && cmd[i + 1].front() != '-') {
            ++i;
          }
          continue;
        }
      }
      if (m.row == nullptr) {
        FlagMatch old;
        if (const RemovedFlag* gone = find_removed(engine_, name, old)) {
          const std::optional<int> rank = engine_.release_rank(q_.version.text);
          if (rank && *rank >= gone->since_rank && *rank < gone->until_rank) {
            m = old;  // a flag of this release: read by its class below
          } else if (rank && *rank >= gone->until_rank) {
            const std::string removed =
                fmt::format("{} was removed in {} ({})", quote_input(flag), gone->until, gone->row.source);
            if (q_.version.is_default) {
              // The release is kvplan's default, not the command's: the command may be older.
              q_.warnings.push_back(fmt::format("{}: {}, so {} {} rejects it; if the command runs an earlier "
                                                "release, name it with --engine {}@VERSION or the image tag",
                                                where, removed, engine_.display(), q_.version.text, engine_.name()));
              q_.uncertain = true;
            } else {
              q_.refusal = removed + ": argparse stops the server on an unrecognized argument";
            }
            if (!value && gone->row.arity != FlagClass::Arity::flag && i + 1 < cmd.size() && !cmd[i + 1].empty() &&
                cmd[i + 1].front() != '-') {
              ++i;  // its value
            }
            continue;
          }
        }
      }
      if (m.row == nullptr) {
        const std::string message = fmt::format("{}: unknown flag {} for {} {}{}", where, quote_input(flag),
                                                engine_.display(), q_.version.text,
                                                did_you_mean(name, all_spellings(rows_)));
        if (ctx_.strict) {
          throw Error(message + " (--strict)");
        }
        q_.warnings.push_back(message + "; kvplan ignores it");
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
      if (const std::optional<SettingsFile> file = engine_.settings_file(*m.row, q_.version)) {
        if (in_file) {
          q_.warnings.push_back(fmt::format("{}: {} names another settings file, which {} does not read from a "
                                            "settings file; kvplan ignores it",
                                            where, flag, engine_.display()));
        } else if (equals && !file->equals_form) {
          q_.warnings.push_back(fmt::format("{}: {} {} reads a settings file only from '{} FILE' (two words), so it "
                                            "ignores {}={} and the settings in it; kvplan does too ({})",
                                            where, engine_.display(), q_.version.text, flag, flag,
                                            value.value_or(""), file->source));
        } else {
          std::vector<TypedText>& into = file->applies_last ? last_ : file->file_wins ? over : under;
          if (file->inline_text) {
            read_inline_settings(*file, flag, value.value_or(""), where, into);
          } else {
            read_settings(*file, flag, value.value_or(""), where, into);
          }
        }
        continue;
      }
      const std::optional<std::size_t> knob =
          m.row->memory == Memory::modelled ? knob_of(engine_, *m.row) : std::nullopt;
      if (!knob) {
        if (m.row->memory != Memory::none) {
          warn_unmodelled(where, flag, m.row->why);
        }
        continue;
      }
      const Knob& k = engine_.knobs()[*knob];
      if (k.type == KnobType::flag && m.row->arity == FlagClass::Arity::flag) {
        typed.push_back({*knob, m.negated ? "off" : "on", where});
      } else {
        typed.push_back({*knob, value.value_or(""), where});
      }
    }
  }

 private:
  void warn_unmodelled(const std::string& where, const std::string& what, const std::string& why) {
    q_.warnings.push_back(fmt::format("{}: {} changes memory and kvplan does not model it ({}); the verdict is uncertain",
                                      where, what, why));
    q_.uncertain = true;
  }

  // The settings file `path` (the value of `flag`), read as the engine reads it; its knob values go to `out`.
  void read_settings(const SettingsFile& file, const std::string& flag, const std::string& path,
                     const std::string& where, std::vector<TypedText>& out) {
    if (file.yaml_suffix) {
      std::string suffix = std::filesystem::path(path).extension().string();
      if (file.suffix_any_case) {
        suffix = to_lower(suffix);
      }
      if (suffix != ".yaml" && suffix != ".yml") {
        q_.refusal = fmt::format("{} {} rejects {} {}: the settings file must be named .yaml or .yml ({})",
                                 engine_.display(), q_.version.text, flag, quote_input(path), file.source);
        return;
      }
    }
    for (const MountedFile& f : ctx_.files) {
      if (f.path == path) {
        std::vector<SettingsEntry> entries = read_settings_yaml(f.text, f.label, file.keys == SettingsFile::Keys::options);
        for (SettingsEntry& e : entries) {
          e.line += f.first_line - 1;  // the manifest's own line
        }
        read_entries(file, entries, f.label, out);
        return;
      }
    }
    const std::string on_disk = settings_path(ctx_, path);
    std::error_code ec;
    if (!std::filesystem::exists(on_disk, ec)) {
      q_.warnings.push_back(fmt::format("{}: {} {}: the settings file is not on this machine, so the settings in it "
                                        "are not read; the verdict is uncertain",
                                        where, flag, quote_input(path)));
      q_.uncertain = true;
      return;
    }
    const std::string& label = on_disk;
    const std::string text = read_bounded_file(on_disk, kMaxDeploymentBytes, "settings file");
    read_entries(file, read_settings_yaml(text, label, file.keys == SettingsFile::Keys::options), label, out);
  }

  // Settings given on the command line itself (a JSON object as the flag's value: Dynamo's
  // --override-engine-args), read as a settings file's text.
  void read_inline_settings(const SettingsFile& file, const std::string& flag, const std::string& text,
                            const std::string& where, std::vector<TypedText>& out) {
    const std::string label = fmt::format("{}: {}", where, flag);
    if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
      return;  // "": none (the flag's default)
    }
    read_entries(file, read_settings_yaml(text, label, file.keys == SettingsFile::Keys::options), label, out);
  }

  void read_entries(const SettingsFile& file, const std::vector<SettingsEntry>& entries, const std::string& label,
                    std::vector<TypedText>& out) {
    std::vector<TypedText> none;
    for (const SettingsEntry& e : entries) {
      const std::string at = fmt::format("{}:{}", label, e.line);
      if (file.keys == SettingsFile::Keys::options) {
        read_option(e, at, out);
        if (file.file_wins && !out.empty() && out.back().where == at) {
          q_.file_settings.push_back({out.back().knob, label, e.key});
        }
        continue;
      }
      const std::vector<std::string> words = flag_words(file, e);
      read(words, 0, at, out, none, none, true);
    }
  }

  // A settings file's key as the flag words the engine makes of it (vllm/utils/argparse_utils.py
  // load_config_file; SGLang's server_args_config_parser.py ConfigArgumentMerger): `key: value` is --key value,
  // booleans by the release's rule, a list its items, a map its JSON (or, in older releases, Python's text).
  std::vector<std::string> flag_words(const SettingsFile& file, const SettingsEntry& e) const {
    const std::string& key = e.key;
    const std::string flag = "--" + key;
    const SettingsValue& v = e.value;
    switch (v.kind) {
      case SettingsValue::Kind::boolean: {
        if (file.booleans == SettingsFile::Booleans::as_text) {
          return {flag, v.flag ? "True" : "False"};
        }
        if (file.booleans == SettingsFile::Booleans::valued) {
          const FlagMatch m = find_flag(rows_, engine_.normalize_flag(flag));
          if (m.row != nullptr && !m.negated && m.row->arity != FlagClass::Arity::flag) {
            return {flag, v.flag ? "true" : "false"};
          }
        }
        if (v.flag) {
          return {flag};
        }
        if (file.booleans == SettingsFile::Booleans::negating) {
          const std::string negation = "--no-" + key;  // as written: the parser's own spelling
          if (const FlagMatch m = find_flag(rows_, negation); m.row != nullptr && m.negated) {
            return {negation};
          }
        }
        return {};
      }
      case SettingsValue::Kind::null:
        return {};  // None: the engine's default
      case SettingsValue::Kind::list:
        if (v.items.empty()) {
          return {};
        }
        if (!file.lists_as_words) {
          return {flag, v.python};
        }
        {
          std::vector<std::string> words{flag};
          words.insert(words.end(), v.items.begin(), v.items.end());
          return words;
        }
      case SettingsValue::Kind::object:
        return {flag, file.maps_as_json ? v.text : v.python};
      case SettingsValue::Kind::text:
        return {flag, v.text};
    }
    return {};
  }

  // An option path of the engine's option table (TensorRT-LLM's LLM API options): the row that names it,
  // or the nearest row above it.
  void read_option(const SettingsEntry& e, const std::string& at, std::vector<TypedText>& out) {
    const OptionClass* row = nullptr;
    for (const OptionClass& r : engine_.option_classes()) {
      const bool covers = e.key == r.path || (e.key.size() > r.path.size() && e.key.rfind(r.path, 0) == 0 &&
                                              e.key[r.path.size()] == '.');
      if (covers && (row == nullptr || r.path.size() > row->path.size())) {
        row = &r;
      }
    }
    // A row whose options have rows of their own (kv_cache_config) classes only itself.
    if (row != nullptr && row->path != e.key) {
      for (const OptionClass& r : engine_.option_classes()) {
        if (r.path.size() > row->path.size() && r.path.rfind(row->path + ".", 0) == 0) {
          row = nullptr;
          break;
        }
      }
    }
    if (row == nullptr) {
      std::vector<std::string> paths;
      for (const OptionClass& r : engine_.option_classes()) {
        paths.push_back(r.path);
      }
      const std::string message = fmt::format("{}: unknown option {} for {} {}{}", at, quote_input(e.key),
                                              engine_.display(), q_.version.text, did_you_mean(e.key, paths));
      if (ctx_.strict) {
        throw Error(message + " (--strict)");
      }
      q_.warnings.push_back(message + "; kvplan ignores it");
      return;
    }
    if (row->memory == Memory::none) {
      return;
    }
    const std::string text = e.value.kind == SettingsValue::Kind::boolean ? (e.value.flag ? "true" : "false")
                             : e.value.kind == SettingsValue::Kind::null  ? std::string()
                                                                          : e.value.text;
    if (row->memory == Memory::unmodelled && e.key == row->path && !row->default_value.empty() &&
        to_lower(text) == to_lower(row->default_value)) {
      return;  // the engine's default, written out
    }
    const std::optional<std::size_t> knob = row->knob.empty() ? std::nullopt : engine_.knob_index(row->knob);
    if (row->memory == Memory::unmodelled || !knob || e.key != row->path) {
      // One warning per option of a file, for all the keys below it (cuda_graph_config's).
      if (std::find(warned_.begin(), warned_.end(), row) == warned_.end()) {
        warned_.push_back(row);
        warn_unmodelled(at, row->path, row->why);
      }
      return;
    }
    if (e.value.kind == SettingsValue::Kind::null) {
      return;  // None: the engine's default
    }
    if (e.value.kind == SettingsValue::Kind::list || e.value.kind == SettingsValue::Kind::object) {
      throw Error(fmt::format("{}: {} must be a single value", at, e.key));
    }
    out.push_back({*knob, e.value.kind == SettingsValue::Kind::boolean ? (e.value.flag ? "on" : "off") : text, at});
  }

  const Engine& engine_;
  const FlagRows& rows_;
  std::string_view option_prefix_;
  const CommandContext& ctx_;
  PlanRequest& q_;
  Capabilities caps_;
  std::vector<const OptionClass*> warned_;
  std::vector<TypedText> last_;
};

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
  if (!form->unread.empty()) {
    throw Error(std::string(form->unread));
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
  std::optional<std::string> model_name;
  std::optional<std::string> dtype_text;
  std::optional<std::string> quant_text;
  // Knob values as text, in the order they apply (the last one given wins): settings files the command line
  // overrides, the environment, the command line, settings files that override it.
  std::vector<TypedText> below;
  std::vector<TypedText> typed;
  std::vector<TypedText> above;
  for (const auto& [name, value] : pre.env) {
    for (std::size_t i = 0; i < engine->knobs().size(); ++i) {
      if (!engine->knobs()[i].env.empty() && engine->knobs()[i].env == name) {
        typed.push_back({i, value, where});
      }
    }
  }
  FlagReader reader{*engine, *form, ctx, q};
  std::size_t i = form->args_start;
  if (form->positional_model && i < cmd.size() && !cmd[i].empty() && cmd[i].front() != '-') {
    // `vllm serve MODEL`: the positional model wins over a settings file's `model` (vLLM's _pull_args_from_config).
    if (const auto k = model_knob(*engine)) {
      typed.push_back({*k, cmd[i], where});
    } else {
      model_name = cmd[i];
    }
    ++i;
  }
  reader.read(cmd, i, where, typed, below, above, false);
  typed.insert(typed.begin(), std::make_move_iterator(below.begin()), std::make_move_iterator(below.end()));
  typed.insert(typed.end(), std::make_move_iterator(above.begin()), std::make_move_iterator(above.end()));
  typed.insert(typed.end(), std::make_move_iterator(reader.last().begin()), std::make_move_iterator(reader.last().end()));
  for (const auto& [index, text, origin] : typed) {
    const Knob& k = engine->knobs()[index];
    const std::string flag = k.flags.empty() ? std::string(k.key) : std::string(k.flags.substr(0, k.flags.find(' ')));
    const std::string at = fmt::format("{}: {}", origin, flag);
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
    // The architecture is the user's; a re-upload's name on the command line still says how the checkpoint
    // it serves is stored, where the architecture's own source does not (a preset, a bf16 config.json).
    const ModelSpec& arch = q.model_spec();
    if (model_name && arch.quant_method.empty() && arch.checkpoint_weight_dtype.empty()) {
      if (const std::optional<ReuploadName> name = reupload_suffix(*model_name)) {
        apply_reupload_name(q.model, *name);
      }
    }
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
