// Engines as modules: each engine's knob table agrees with its flag-class table (a knob's flags are
// rows of the table classed "modelled", and every "modelled" row sets a knob), every table row is
// a flag the engine has (the lists in tests/engines/flags/, read from each engine's own argument
// definitions at its default version), and engine names appear only in src/engines/.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <fmt/format.h>

#include "kvplan/command_line.hpp"
#include "kvplan/engine.hpp"
#include "kvplan/model_source.hpp"
#include "kvplan/plan.hpp"
#include "support/files.hpp"

namespace fs = std::filesystem;

namespace {

std::vector<std::string> words(std::string_view s) {
  std::vector<std::string> out;
  std::istringstream in{std::string(s)};
  for (std::string w; in >> w;) {
    out.push_back(w);
  }
  return out;
}

}  // namespace

TEST_CASE("every engine's knobs are rows of its flag table, and its modelled rows are knobs", "[engines]") {
  for (const kvplan::Engine* e : kvplan::all_engines()) {
    if (e->flag_table().empty()) {
      continue;  // the engine-neutral plan has no server
    }
    DYNAMIC_SECTION(e->name()) {
      const std::vector<kvplan::FlagClass>& rows = e->flag_classes();
      std::set<std::string> modelled;
      std::set<std::string> all;
      for (const kvplan::FlagClass& row : rows) {
        for (const std::string& s : row.spellings) {
          all.insert(s);
          if (row.memory == kvplan::Memory::modelled) {
            modelled.insert(s);
          }
        }
      }
      std::set<std::string> knob_flags;
      for (const kvplan::Knob& k : e->knobs()) {
        for (const std::string& f : words(k.flags)) {
          INFO("knob " << k.key << " flag " << f);
          CHECK(all.count(f) == 1);
          CHECK(modelled.count(f) == 1);
          knob_flags.insert(f);
        }
      }
      for (const kvplan::FlagClass& row : rows) {
        if (row.memory != kvplan::Memory::modelled) {
          continue;
        }
        const bool has_knob = std::any_of(row.spellings.begin(), row.spellings.end(),
                                          [&](const std::string& s) { return knob_flags.count(s) == 1; });
        // A settings file's flag (--config FILE) is read by the engine's settings-file rule instead.
        const bool names_file =
            e->settings_file(row, kvplan::parse_engine_version(*e, e->default_version())).has_value();
        INFO("modelled row " << row.spellings.front() << " has no knob");
        CHECK(has_knob != names_file);
      }
    }
  }
}

namespace {

std::set<std::string> engine_flag_list(const std::string& file) {
  std::set<std::string> out;
  std::istringstream in(kvplan::test::slurp(fs::path(KVPLAN_SOURCE_DIR) / "tests/engines/flags" / file));
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.front() != '#') {
      out.insert(line);
    }
  }
  return out;
}

}  // namespace

TEST_CASE("a flag table names only flags the engine has, and every flag it has", "[engines]") {
  const std::pair<const char*, const char*> lists[] = {
      {"vllm", "vllm-0.19.flags"}, {"sglang", "sglang-0.5.18.flags"}, {"llamacpp", "llamacpp.flags"},
      {"ik_llamacpp", "ik_llamacpp.flags"}, {"trtllm", "trtllm-1.3.flags"}};
  for (const auto& [name, file] : lists) {
    DYNAMIC_SECTION(name) {
      const kvplan::Engine* e = kvplan::find_engine(name);
      REQUIRE(e != nullptr);
      const std::set<std::string> has = engine_flag_list(file);
      std::set<std::string> table;
      for (const kvplan::FlagClass& row : e->flag_classes()) {
        table.insert(row.spellings.begin(), row.spellings.end());
        table.insert(row.negations.begin(), row.negations.end());
      }
      for (const std::string& f : table) {
        INFO(name << " table names " << f << ", which " << file << " does not list");
        CHECK(has.count(f) == 1);
      }
      for (const std::string& f : has) {
        INFO(name << " has " << f << ", which its table does not class");
        CHECK(table.count(f) == 1);
      }
    }
  }
}

TEST_CASE("a removed-flag table names flags the default version does not have, each in the releases that had it",
          "[engines]") {
  // vLLM's flags of 0.6.0 to 0.18.x that 0.19.0 rejects (src/engines/flags/vllm_removed.tsv, read by release tag).
  const kvplan::Engine* e = kvplan::find_engine("vllm");
  REQUIRE(e != nullptr);
  const std::set<std::string> has = engine_flag_list("vllm-0.19.flags");
  const std::optional<int> now = e->release_rank(e->default_version());
  REQUIRE(now);
  REQUIRE(e->removed_flags().size() >= 60);
  for (const kvplan::RemovedFlag& r : e->removed_flags()) {
    for (const std::string& f : r.row.spellings) {
      INFO(f << " is in vllm-0.19.flags: it was not removed");
      CHECK(has.count(f) == 0);
      // Not an abbreviation of a 0.19 flag either (argparse's allow_abbrev would take it).
      for (const std::string& g : has) {
        CHECK_FALSE((g.size() > f.size() && g.rfind(f, 0) == 0 && f.rfind("--", 0) == 0));
      }
    }
    CHECK(r.since_rank >= *e->release_rank("0.6.0"));
    CHECK(r.since_rank < r.until_rank);
    CHECK(r.until_rank <= *now);
    CHECK(r.row.memory != kvplan::Memory::modelled);
  }
}

TEST_CASE("a wrapper's flag table (Dynamo's TensorRT-LLM worker) names only its flags, and its modelled rows set knobs",
          "[engines]") {
  // python -m dynamo.trtllm reads Dynamo's own flags (CommandForm::flags), listed in tests/engines/flags/dynamo-trtllm.flags
  // from its argument groups; each modelled row names a TensorRT-LLM knob, or a settings file the engine reads.
  const kvplan::Engine* e = kvplan::find_engine("trtllm");
  REQUIRE(e != nullptr);
  const std::vector<std::string> argv{"python3", "-m", "dynamo.trtllm"};
  const auto form = e->command_form(argv);
  REQUIRE(form.has_value());
  REQUIRE_FALSE(form->flags.empty());
  CHECK(form->unread.empty());
  const std::set<std::string> has = engine_flag_list("dynamo-trtllm.flags");
  std::set<std::string> table;
  const kvplan::EngineVersion version = kvplan::parse_engine_version(*e, e->default_version());
  for (const kvplan::FlagClass& row : kvplan::flag_table_rows(form->flags, "dynamo.trtllm")) {
    table.insert(row.spellings.begin(), row.spellings.end());
    table.insert(row.negations.begin(), row.negations.end());
    if (row.memory == kvplan::Memory::modelled) {
      const bool names_file = e->settings_file(row, version).has_value();
      INFO("modelled row " << row.spellings.front() << " names knob '" << row.knob << "'");
      CHECK((row.knob.empty() ? false : e->knob_index(row.knob).has_value()) != names_file);
    }
  }
  for (const std::string& f : table) {
    INFO("the table names " << f << ", which dynamo-trtllm.flags does not list");
    CHECK(has.count(f) == 1);
  }
  for (const std::string& f : has) {
    INFO("Dynamo's worker has " << f << ", which the table does not class");
    CHECK(table.count(f) == 1);
  }
}

TEST_CASE("an option table names only options the engine has, and every one it has; its modelled rows are knobs",
          "[engines]") {
  // TensorRT-LLM's LLM API options (trtllm-serve --config YAML): llm_args.py's fields, listed in
  // tests/engines/flags/trtllm-llm_args.fields.
  const kvplan::Engine* e = kvplan::find_engine("trtllm");
  REQUIRE(e != nullptr);
  const std::set<std::string> has = engine_flag_list("trtllm-llm_args.fields");
  std::set<std::string> table;
  for (const kvplan::OptionClass& row : e->option_classes()) {
    table.insert(row.path);
    if (row.memory == kvplan::Memory::modelled) {
      INFO("modelled option " << row.path << " names knob " << row.knob);
      CHECK(e->knob_index(row.knob).has_value());
    }
    // A flag's name people write in the YAML, which is not an LlmArgs field, is classed as uncertain.
    if (has.count(row.path) == 0) {
      INFO(row.path << " is not a field of llm_args.py; only an unmodelled row may name it");
      CHECK(row.memory == kvplan::Memory::unmodelled);
      CHECK(row.why.find("not an LlmArgs field") != std::string::npos);
    }
  }
  for (const std::string& f : has) {
    INFO("llm_args.py has " << f << ", which the option table does not class");
    CHECK(table.count(f) == 1);
  }
}

TEST_CASE("docs/engines.md counts each flag table's classes as the tables do", "[engines][docs]") {
  const std::string doc = kvplan::test::slurp(fs::path(KVPLAN_SOURCE_DIR) / "docs/engines.md");
  const std::size_t table = doc.find("| Engine | Read from | Flags | modelled | unmodelled | none |");
  REQUIRE(table != std::string::npos);
  for (const kvplan::Engine* e : kvplan::all_engines()) {
    const auto rows = e->flag_classes();
    if (rows.empty()) {
      continue;
    }
    std::size_t modelled = 0, unmodelled = 0, none = 0;
    for (const kvplan::FlagClass& row : rows) {
      (row.memory == kvplan::Memory::modelled ? modelled : row.memory == kvplan::Memory::unmodelled ? unmodelled : none)++;
    }
    // The row of the table "| Engine | Read from | Flags | modelled | unmodelled | none |" for this engine.
    const std::string counts = fmt::format("| {} | {} | {} | {} |", rows.size(), modelled, unmodelled, none);
    const std::size_t at = doc.find(fmt::format("\n| {} ", e->display()), table);
    INFO(e->name() << ": docs/engines.md should have a row ending " << counts);
    REQUIRE(at != std::string::npos);
    const std::size_t end = doc.find('\n', at + 1);
    CHECK(doc.substr(at, end - at).ends_with(counts));
  }
}

TEST_CASE("engine names appear only in src/engines/: the rest of the code asks the engine", "[engines]") {
  // String literals outside src/engines/ that name an engine (the registry and the engines' own files
  // are the only places that may).
  const std::regex literal(R"re("(?:[^"\\]|\\.)*")re");
  const std::regex engine_name(R"re(vllm|sglang|trtllm|tensorrt|llamacpp|llama\.cpp|llama-server)re", std::regex::icase);
  std::vector<std::string> offenders;
  for (const char* dir : {"src/app", "src/cli", "src/report", "src/core", "include/kvplan"}) {
    for (const auto& entry : fs::recursive_directory_iterator(fs::path(KVPLAN_SOURCE_DIR) / dir)) {
      if (!entry.is_regular_file()) {
        continue;
      }
      std::istringstream in(kvplan::test::slurp(entry.path()));
      std::size_t line_no = 0;
      for (std::string line; std::getline(in, line);) {
        ++line_no;
        const std::string code = line.substr(0, line.find("//"));
        for (auto it = std::sregex_iterator(code.begin(), code.end(), literal); it != std::sregex_iterator(); ++it) {
          if (std::regex_search(it->str(), engine_name)) {
            offenders.push_back(fmt::format("{}:{}: {}", entry.path().lexically_relative(KVPLAN_SOURCE_DIR).string(),
                                            line_no, it->str()));
          }
        }
      }
    }
  }
  INFO(fmt::format("{}", fmt::join(offenders, "\n")));
  CHECK(offenders.empty());
}

TEST_CASE("emit writes command lines the engine's own reader reads back to the same settings", "[engines]") {
  // Each engine's launch command, read by its command-line reader (the flags the engine's parser takes):
  // the parallel size, the length and the knobs emit set come back as they went in.
  for (const kvplan::Engine* e : kvplan::all_engines()) {
    kvplan::KnobSet knobs;
    e->serve_shape(16, 8192, knobs);
    if (const auto f = e->fraction_knob()) {
      knobs.set(*f, std::uint64_t{930'000});
    }
    kvplan::Engine::EmitInputs in;
    in.model_id = "meta-llama/Llama-3.1-8B";
    in.model_name = "llama-3.1-8b";
    in.tp = 2;
    in.max_model_len = 8192;
    in.knobs = &knobs;
    const std::optional<std::string> line = e->emit(in);
    if (!line) {
      continue;  // the engine-neutral plan has no launch command
    }
    DYNAMIC_SECTION(e->name()) {
      INFO(*line);
      kvplan::CommandContext ctx;
      ctx.model = kvplan::load_preset("llama-3.1-8b");
      ctx.engine = kvplan::parse_engine(std::string(e->name()));
      ctx.strict = true;  // every flag emit writes is one the engine has
      const kvplan::PlanRequest q = kvplan::read_command_line(kvplan::shell_words(*line), ctx);
      CHECK(q.engine == e);
      if (e->capabilities().splits_heads) {
        CHECK(q.tp == 2u);
      }
      for (const auto& [index, value] : knobs.values()) {
        if (e->knobs()[index].flags.empty()) {
          continue;  // kvplan's own knob, not on the engine's command line
        }
        INFO("knob " << e->knobs()[index].key);
        const kvplan::KnobValue* back = q.knobs.find(index);
        REQUIRE(back != nullptr);
        CHECK(kvplan::knob_text(e->knobs()[index], *back) == kvplan::knob_text(e->knobs()[index], value));
      }
    }
  }
}
