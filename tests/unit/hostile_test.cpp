// Hostile input (issue #14): one regression test per class of input that once crashed, hung,
// wrapped or misled. Inputs too large or too odd for a golden case file (100,000 levels of
// nesting, a 15 MB name, a file name with a newline or invalid UTF-8) are built here, in a
// scratch folder, and run through cli::run in-process like the golden cases.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <streambuf>

#include "kvplan/cli.hpp"
#include "kvplan/workload.hpp"
#include "support/files.hpp"

namespace fs = std::filesystem;

namespace {

struct Run {
  int code = 0;
  std::string out;
  std::string err;
};

Run run(const std::vector<std::string>& args) {
  std::ostringstream out;
  std::ostringstream err;
  const int code = kvplan::cli::run(args, out, err);
  return {code, out.str(), err.str()};
}

fs::path scratch() {
  const fs::path dir = fs::temp_directory_path() / "kvplan-hostile-test";
  fs::create_directories(dir);
  return dir;
}

fs::path write(const std::string& name, const std::string& text) {
  const fs::path p = scratch() / name;
  std::ofstream(p, std::ios::binary) << text;
  return p;
}

// Exactly one line, "kvplan: error: ...", and exit 2.
void check_one_error_line(const Run& r) {
  INFO(r.err.substr(0, 400));
  CHECK(r.code == 2);
  CHECK(r.err.rfind("kvplan: error: ", 0) == 0);
  REQUIRE_FALSE(r.err.empty());
  CHECK(r.err.find('\n') == r.err.size() - 1);
  CHECK(r.err.size() <= 2'100);
}

const std::string kDeep = std::string(100'000, '[') + std::string(100'000, ']');
const std::string kDeployment = kvplan::test::slurp(std::string(KVPLAN_SOURCE_DIR) + "/docs/examples/deploy/chat-70b.json");

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

}  // namespace

TEST_CASE("deep nesting: 100,000 levels in a deployment's require.concurrency", "[hostile]") {
  const fs::path p = write("deep-deployment.json", replaced(kDeployment, "\"concurrency\": 16", "\"concurrency\": " + kDeep));
  const Run r = run({"check", p.string()});
  check_one_error_line(r);
  CHECK(r.err.find("JSON nested deeper than 64 levels") != std::string::npos);
}

TEST_CASE("deep nesting: 100,000 levels in a JSONL trace field", "[hostile]") {
  const fs::path p = write("deep-trace.jsonl", "{\"prompt\": " + kDeep + ", \"output\": 5}\n");
  const Run r = run({"simulate", "--model", "llama3-8b", "--gpu", "H100", "--trace", p.string()});
  check_one_error_line(r);
  CHECK(r.err.find("deep-trace.jsonl:1: JSON nested deeper than 64 levels") != std::string::npos);
}

TEST_CASE("deep nesting: 100,000 levels in a config.json field", "[hostile]") {
  const fs::path p = write("deep-config.json", "{\"num_hidden_layers\": " + kDeep + "}");
  const Run r = run({"--config", p.string(), "--gpu", "H100"});
  check_one_error_line(r);
  CHECK(r.err.find("JSON nested deeper than 64 levels") != std::string::npos);
}

TEST_CASE("GitHub annotations: a file name with a newline, a comma and :: forges no workflow command", "[hostile]") {
  const fs::path p = write("x\n::warning file=README.md,line=1::injected,y.json",
                           replaced(kDeployment, "\"concurrency\": 16", "\"concurrency\": 1600"));
  const Run r = run({"check", p.string(), "--format", "github"});
  CHECK(r.code == 1);
  INFO(r.out);
  // One annotation, on one line; the file property escapes %, CR, LF, ':' and ','
  // (the workflow command syntax of GitHub's toolkit, packages/core/src/command.ts).
  CHECK(r.out.find('\n') == r.out.size() - 1);
  CHECK(r.out.rfind("::error file=", 0) == 0);
  CHECK(r.out.find("x%0A%3A%3Awarning file=README.md%2Cline=1%3A%3Ainjected%2Cy.json,line=1,") != std::string::npos);
  CHECK(r.out.find("\n::warning") == std::string::npos);
}

TEST_CASE("non-UTF-8 file names: the JSON report replaces the bytes instead of failing", "[hostile]") {
  const std::string config = kvplan::test::slurp(std::string(KVPLAN_SOURCE_DIR) + "/tests/golden/configs/qwen3-8b/config.json");
  const fs::path p = write("\xff\xfe.json", config);
  const Run r = run({"--config", p.string(), "--gpu", "H100", "--format", "json"});
  INFO(r.err);
  CHECK(r.code == 0);
  CHECK(r.err.empty());
  const nlohmann::json j = nlohmann::json::parse(r.out);  // valid JSON, U+FFFD for the bad bytes
  CHECK(j.at("schema_version") == 1);
  CHECK(r.out.find("\xef\xbf\xbd") != std::string::npos);
}

TEST_CASE("huge names: a 15 MB model name gets no suggestion and a cut quote", "[hostile]") {
  const Run r = run({"--model", std::string(15 * 1024 * 1024, 'a'), "--gpu", "H100"});
  check_one_error_line(r);
  CHECK(r.err.find("(15,728,640 characters)") != std::string::npos);
  CHECK(r.err.find("did you mean") == std::string::npos);
}

TEST_CASE("huge numbers: a 100,000-digit size is refused in one line", "[hostile]") {
  const Run r = run({"--model", "llama3-8b", "--vram", std::string(100'000, '9') + "GB"});
  check_one_error_line(r);
}

TEST_CASE("simulate: a max-model-len of 2^28 sizes no table by it", "[hostile]") {
  // The timing wheel once had a bucket per step up to the longest request: 3.1 GB at 2^26 and an
  // internal bad_alloc at 2^28. It is now at most 2^16 buckets, whatever --max-model-len says.
  const Run r = run({"simulate", "--model", "llama3-8b", "--gpu", "H100", "--max-model-len", "268435456", "--workload",
                     "fixed:100,10", "--requests", "100"});
  INFO(r.err);
  CHECK(r.code == 0);
  CHECK(r.out.find("268,435,456") != std::string::npos);
}

TEST_CASE("outputs: a rejected target leaves the file as it was, and a write leaves no temporary", "[hostile]") {
  const fs::path dir = scratch() / "generate";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path file = dir / "kvplan.1";
  std::ofstream(file) << "the old page\n";
  const Run bad = run({"generate", "bogus", "--output", file.string()});
  check_one_error_line(bad);
  CHECK(kvplan::test::slurp(file) == "the old page\n");
  const Run good = run({"generate", "man", "--output", file.string()});
  CHECK(good.code == 0);
  CHECK(kvplan::test::slurp(file).rfind(".TH KVPLAN", 0) == 0);
  CHECK(std::distance(fs::directory_iterator(dir), fs::directory_iterator()) == 1);  // no .tmp left
  const Run nowhere = run({"generate", "man", "--output", (dir / "missing" / "kvplan.1").string()});
  check_one_error_line(nowhere);
  CHECK(nowhere.err.find("generate: cannot write") != std::string::npos);
}

TEST_CASE("unreadable inputs are named as such, not as bad JSON", "[hostile]") {
  const Run folder = run({"check", scratch().string()});
  check_one_error_line(folder);
  CHECK(folder.err.find("is a directory, not a deployment file") != std::string::npos);
  const Run missing = run({"check", (scratch() / "no-such.json").string()});
  check_one_error_line(missing);
  CHECK(missing.err.find("no such deployment file") != std::string::npos);
  const Run device = run({"check", "/dev/null"});
  check_one_error_line(device);
  CHECK(device.err.find("not a regular file") != std::string::npos);
}

TEST_CASE("trace CSV: a row is split only as far as the columns read", "[hostile]") {
  // 300,000 extra cells on each row: the reader stops at the last column it needs.
  const std::string extra(300'000, ',');
  const fs::path p = write("wide-rows.csv", "prompt,output,arrival\n100,20,0" + extra + "\n50,5,3" + extra + "\n");
  const kvplan::Workload w = kvplan::read_trace(p.string(), 8192);
  REQUIRE(w.trace.size() == 2);
  CHECK(w.trace[1].prompt_tokens == 50);
  CHECK(w.trace[1].output_tokens == 5);
  CHECK(w.trace[1].arrival_step == 3);
}

namespace {

// Counts the writes that reach it: a streaming writer makes many small ones.
class CountingBuffer : public std::streambuf {
 public:
  std::size_t writes = 0;
  std::size_t largest = 0;
  std::size_t total = 0;

 protected:
  std::streamsize xsputn(const char*, std::streamsize n) override {
    ++writes;
    largest = std::max(largest, static_cast<std::size_t>(n));
    total += static_cast<std::size_t>(n);
    return n;
  }
  int_type overflow(int_type c) override {
    ++total;
    return c;
  }
};

}  // namespace

TEST_CASE("sweep streams its rows: the output arrives in chunks of at most 80 KiB", "[hostile]") {
  CountingBuffer counter;
  std::ostream out(&counter);
  std::ostringstream err;
  const int code = kvplan::cli::run({"sweep", "--model", "llama3-8b,qwen3-8b,llama3-70b", "--gpu", "H100,L4,A100-40GB,H200",
                                     "--count", "1,2,4,8", "--seq-len", "1k,2k,4k,8k,16k,32k,64k,128k", "--kv-dtype",
                                     "auto,fp8", "--pp", "1,2"},
                                    out, err);
  INFO(err.str());
  CHECK(code == 0);
  CHECK(counter.total > 130'000);  // 1,536 rows of about 90 bytes
  CHECK(counter.writes >= 3);
  CHECK(counter.largest <= 80 * 1024);
}

TEST_CASE("YAML: a ',' where a value begins is refused before yaml-cpp, which never returns on some", "[hostile]") {
  // fuzz_manifest's finds (tests/fuzz/regressions/manifest/hang-comma-opens-document.yaml and
  // oom-comma-after-sequence.yaml): yaml-cpp 0.7 loops, allocating, on a flow entry where a document begins or
  // after a block sequence or a quoted scalar; kvplan's pre-scan names the line instead.
  for (const std::string& text :
       {std::string(",a: b\n"), std::string("# a comment\n---\n  ,kind: x\n"),
        std::string("kind: Deployment\n---\n&anchor ,b\n"), std::string("- a\n,b\n"), std::string("\"a\"\n,b\n")}) {
    const Run r = run({"check", "--gpu", "H100", write("comma.yaml", text).string()});
    INFO(text);
    CHECK(r.code == 2);
    CHECK(r.err.find("a ',' where a value begins") != std::string::npos);
  }
  // A ',' inside a value, a flow collection, a quoted scalar or a block scalar's text is YAML: not refused.
  const Run fine = run({"check", "--gpu", "H100",
                        write("fine.yaml", "a: [b, c]\nd: e, f\ng: 'h, i'\nrun: |\n  ,shell text\n").string()});
  CHECK(fine.err.find("a ',' where a value begins") == std::string::npos);
}
