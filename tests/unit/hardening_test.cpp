// Bad input found by adversarial runs: each case gets one line naming the file and the
// place, a non-zero exit, bounded time and memory, never a crash or a silently wrong result. The
// minimal inputs live in tests/regression/ (one file per case) or are built here.
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "helpers.hpp"
#include "tiny_trace.hpp"
#include "wisp/error.hpp"
#include "wisp/generate/generators.hpp"
#include "wisp/io/atomic_output.hpp"
#include "wisp/io/otf2_reader.hpp"
#include "wisp/io/read_file.hpp"
#include "wisp/replay/replay.hpp"
#include "wisp/scenario/point_replays.hpp"
#include "wisp/scenario/scenario.hpp"

using namespace wisp;
using wisp::test::TempDir;
namespace fs = std::filesystem;

namespace {

const fs::path kRegression = fs::path(WISP_SOURCE_DIR) / "tests" / "regression";

std::string error_of(const fs::path& scenario) {
  try {
    load_scenario(scenario);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("scenario numbers must be finite and in range, with their place in the file", "[hardening]") {
  const struct {
    const char* file;
    const char* message;
  } cases[] = {
      {"nan-factor.yaml", ":5:30: factor must be a finite number (got .nan)"},
      {"inf-factor.yaml", ":5:30: factor must be a finite number (got .inf)"},
      {"huge-factor.yaml", ":5:30: factor must be at most 1e+09 (got 1e+15)"},
      {"huge-seconds.yaml", ":5:31: seconds must be at most 1e+09 (got 1e+10)"},
      {"nan-fraction.yaml", ":5:75: fraction must be a finite number (got .nan)"},
      {"huge-latency-factor.yaml", ":4:32: latency_factor must be at most 1e+09 (got 1e+300)"},
      {"huge-overhead.yaml", ":3:22: overhead must be at most 1e+09 (got 1e+20)"},
      {"huge-eager.yaml", ":3:27: eager_threshold must be at most 1e+09 (got 1e+30)"},
      {"tiny-bandwidth.yaml", ":3:23: bandwidth must be a finite rate between 1 and 1e21 per second (got 1e-320)"},
  };
  for (const auto& c : cases) {
    INFO(c.file);
    const fs::path file = kRegression / c.file;
    REQUIRE(fs::exists(file));
    CHECK_THAT(error_of(file), Catch::StartsWith(file.string()) && Catch::EndsWith(c.message));
  }
}

TEST_CASE("a simulated run beyond SimGrid's clock is an error, not a result", "[hardening]") {
  test::TinyTrace t(1);
  t.work(0, "w", 0, 1000);
  const Trace trace = t.finish(1000);
  Platform p = test::tiny_platform(1, 1, 1000);
  p.speed_factor = 1e-13;  // 1 ms of work becomes 1e10 s
  CHECK_THROWS_WITH(replay(trace, p), Catch::Contains("beyond the 1e+09 s SimGrid's clock resolves"));
  p.mpi.default_overhead = 1e20;
  p.speed_factor = 1;
  CHECK_THROWS_WITH(replay(trace, p), Catch::Contains("MPI overhead 1e+20 s is not between 0 and 1e+09 s"));
}

TEST_CASE("a repeated YAML key is an error naming both places", "[hardening]") {
  const fs::path file = kRegression / "duplicate-key.yaml";
  CHECK_THAT(error_of(file),
             Catch::StartsWith(file.string()) && Catch::EndsWith(":4:40: duplicate key 'factor' (first at line 4)"));
}

TEST_CASE("collectives: default applies to every family that has it, named ones win", "[hardening]") {
  // The README's example `{..., default: binomial}` was rejected (alltoall has no binomial).
  const Scenario s = load_scenario(kRegression / "collectives-default.yaml");
  const CollectiveAlgorithms a = replay_options(s.replay).algorithms;
  CHECK(a.of(CollectiveOp::Allreduce) == CollectiveAlgorithm::Ring);
  CHECK(a.of(CollectiveOp::Bcast) == CollectiveAlgorithm::Binomial);
  CHECK(a.of(CollectiveOp::Barrier) == CollectiveAlgorithm::Binomial);
  CHECK(a.of(CollectiveOp::Alltoall) == CollectiveAlgorithm::Pairwise);  // has no binomial: kept
}

TEST_CASE("generators refuse sizes and model values that cannot be right, at once", "[hardening]") {
  // `--px 99999999` ran 46 s and ended in bad_alloc; `--latency -1` gave a 0.012 s trace.
  const auto big = test::run_wisp("generate wavefront --px 99999999 -o /nonexistent/never");
  CHECK(big.exit_code == 1);
  CHECK(big.err == "wisp: error: generate wavefront: 399999996 ranks are more than wisp models (at most 1048576)\n");
  const auto events = test::run_wisp("generate halo --dims 1024x1024 --steps 100000 -o /nonexistent/never");
  CHECK(events.exit_code == 1);
  CHECK_THAT(events.err, Catch::Contains("events are more than a generated trace may hold"));
  const auto latency = test::run_wisp("generate imbalance --ranks 4 --latency -1 -o /nonexistent/never");
  CHECK(latency.exit_code == 1);
  CHECK_THAT(latency.err, Catch::Contains("--latency, --overhead and --init-time must be finite and not negative"));
  const fs::path scenario = kRegression / "huge-generate.yaml";
  const auto run = test::run_wisp("run -o /nonexistent/never " + scenario.string());
  CHECK(run.exit_code == 1);
  CHECK_THAT(run.err, Catch::StartsWith("wisp: error: " + scenario.string() + ":2:8: trace: generate"));
}

TEST_CASE("wisp run on something that is not a scenario file says what it is", "[hardening]") {
  // /dev/zero grew to 3.4 GB in 10 s; a directory said "the scenario is empty".
  const auto zero = test::run_wisp("run -o /nonexistent/never /dev/zero");
  CHECK(zero.exit_code == 1);
  CHECK(zero.err == "wisp: error: /dev/zero: is not a regular file (a scenario is a YAML text file)\n");
  TempDir dir;
  const auto directory = test::run_wisp("run -o /nonexistent/never " + dir.path().string());
  CHECK(directory.exit_code == 1);
  CHECK(directory.err == "wisp: error: " + dir.path().string() + ": is a directory, not a scenario file\n");
  std::ofstream(dir / "big.yaml") << std::string(2 << 20, '#');
  const auto big = test::run_wisp("run -o /nonexistent/never " + (dir / "big.yaml").string());
  CHECK(big.exit_code == 1);
  CHECK_THAT(big.err, Catch::Contains("too large for a scenario file (at most 1 MiB)"));
}

TEST_CASE("SIGINT stops the simulation child, removes unfinished output and says so", "[hardening]") {
  // Before: the child ran on for 14-19 s, `.NAME.partial-PID` stayed, nothing was printed.
  TempDir dir;
  REQUIRE(test::run_wisp("generate halo --dims 8x8 --steps 1000 -o " + (dir / "t").string()).exit_code == 0);
  const fs::path out = dir / "sim";
  // A uniquely named link to wisp, so that its processes (the child too) can be found by name.
  fs::create_symlink(WISP_CLI, dir / "wisp-sigint");
  std::ofstream(dir / "run.sh") << "cd '" << dir.path().string() << "'\n"
                                << "./wisp-sigint simulate t -o sim >/dev/null 2>err &\n"
                                << "pid=$!\nsleep 1.5\nkill -INT $pid\nwait $pid\necho $? > rc\nsleep 0.3\n"
                                << "pgrep -x wisp-sigint > alive || true\n";
  REQUIRE(std::system(("bash '" + (dir / "run.sh").string() + "'").c_str()) == 0);
  std::string rc, err, alive;
  std::getline(std::ifstream(dir / "rc"), rc);
  err = read_file(dir / "err").value_or("");
  alive = read_file(dir / "alive").value_or("");
  CHECK(rc == "130");
  CHECK_THAT(err,
             Catch::Contains("wisp: interrupted (SIGINT): stopping the simulations and removing unfinished output"));
  CHECK(alive.empty());
  for (const auto& entry : fs::directory_iterator(dir.path()))
    CHECK(entry.path().filename().string().rfind(".sim.", 0) != 0);
  CHECK_FALSE(fs::exists(out));
}

TEST_CASE("staging directories of killed runs are removed by the next run", "[hardening]") {
  TempDir dir;
  fs::create_directories(dir / ".t.partial-999999999" / "traces");  // no such process
  fs::create_directories(dir / ".t.partial-1");                     // init: alive, kept
  REQUIRE(test::run_wisp("generate imbalance --ranks 2 --iterations 2 -o " + (dir / "t").string()).exit_code == 0);
  CHECK_FALSE(fs::exists(dir / ".t.partial-999999999"));
  CHECK(fs::exists(dir / ".t.partial-1"));
  CHECK(fs::exists(dir / "t" / "traces.otf2"));
}

TEST_CASE("an output written by another run meanwhile is not replaced without --force", "[hardening]") {
  // Two `wisp run ... -o D` at once: both exited 0 and the later silently replaced the earlier.
  TempDir dir;
  {
    AtomicDirectory first(dir / "out", false);
    AtomicDirectory second(dir / "out", false);  // both start while `out` does not exist
    std::ofstream(first.staging() / "a") << "first";
    first.commit();
    CHECK_THROWS_WITH(second.commit(), Catch::Contains("was written by another run meanwhile"));
  }
  std::string content;
  std::getline(std::ifstream(dir / "out" / "a"), content);
  CHECK(content == "first");
  for (const auto& e : fs::directory_iterator(dir.path())) CHECK(e.path().filename() == "out");  // no leftovers
}

TEST_CASE("a file written as it is made: complete, or absent if the writer fails", "[hardening]") {
  TempDir dir;
  write_file_atomically(dir / "page.html", [](std::ostream& out) {
    for (int i = 0; i < 1000; ++i) out << i << ',';
  });
  const std::string content = read_file(dir / "page.html").value_or("");
  CHECK(content.size() == 3890);  // 10 + 90 * 2 + 900 * 3 digits, 1000 commas
  CHECK(content.rfind("999,") == content.size() - 4);
  CHECK_THROWS_WITH(write_file_atomically(dir / "half.html",
                                          [](std::ostream& out) {
                                            out << "half of it";
                                            throw Error("the writer failed");
                                          }),
                    "the writer failed");
  for (const auto& e : fs::directory_iterator(dir.path())) CHECK(e.path().filename() == "page.html");  // no leftovers
}

TEST_CASE("fuzz findings: local definitions whose mapping table makes libotf2 malloc 2^64 bytes", "[hardening][fuzz]") {
  // fuzz_otf2 (CI smoke): a mapping table's size field makes OTF2_IdMap_Create ask malloc for
  // 0xffffffffffffab80 bytes; malloc says no (AddressSanitizer only with allocator_may_return_null,
  // as scripts/fuzz.sh sets it) and libotf2 reports it.
  TempDir dir;
  REQUIRE(test::run_wisp("generate imbalance --ranks 2 --iterations 3 -o " + (dir / "t").string()).exit_code == 0);
  fs::copy_file(kRegression / "fuzz-otf2-local-defs-huge-idmap.def", dir / "t" / "traces" / "1.def",
                fs::copy_options::overwrite_existing);
  const auto r = test::run_wisp("info " + (dir / "t").string());
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err, Catch::StartsWith("wisp: error: " + (dir / "t" / "traces.otf2").string() +
                                      ": corrupt local definitions of location 1"));
}

TEST_CASE("an event record whose array count is huge is one clear error in bounded memory", "[hardening]") {
  // fuzz_otf2 (CI smoke): a PROGRAM_BEGIN whose argument count is 2^31 makes libotf2 ask malloc for
  // 8 GiB before it reads the arguments. glibc gives the pages lazily and the read stops at the
  // first bad byte (the pages are never touched); under an address-space limit malloc says no and
  // libotf2 reports it: one line either way, the reader's own (scripts/fuzz.sh caps AddressSanitizer
  // at 2 GiB per allocation the same way, since its shadow of 8 GiB would be 1 GiB resident).
  TempDir dir;
  REQUIRE(test::run_wisp("generate imbalance --ranks 2 --iterations 3 -o " + (dir / "t").string()).exit_code == 0);
  fs::copy_file(kRegression / "fuzz-otf2-program-begin-huge-args.evt", dir / "t" / "traces" / "0.evt",
                fs::copy_options::overwrite_existing);
  const std::string line =
      "wisp: error: " + (dir / "t" / "traces.otf2").string() + ": rank 0 (location 0): corrupt or truncated event file";
  for (const char* limit : {"", "ulimit -v 1000000 && "}) {
    INFO(limit);
    const auto r = test::shell(std::string(limit) + WISP_CLI + " info " + (dir / "t").string(), dir.path());
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.err, Catch::StartsWith(line));
  }
}

TEST_CASE("a corrupt anchor that crashes or hangs libotf2 is one clear error", "[hardening]") {
  // Flipped bits of the Score-P ping-pong's anchor: byte 63 bit 7 made libotf2 abort ("double
  // free or corruption"), byte 59 bit 0 made it spin for 10-60 s allocating without bound.
  const auto shared = test::real_trace("scorep-ping-pong");
  TempDir dir;
  fs::copy(shared, dir / "pp", fs::copy_options::recursive);
  const fs::path anchor = dir / "pp" / "traces.otf2";
  const std::string original = read_file(anchor).value_or("");
  REQUIRE(original.size() > 64);
  const struct {
    std::size_t byte;
    int bit;
    const char* what;
  } flips[] = {{63, 7, "corrupt OTF2 anchor file: the OTF2 library crashed reading it"},
               {59, 0, "not an OTF2 anchor file (the OTF2 library cannot read it)"}};  // its memory limit
  for (const auto& f : flips) {
    std::string bad = original;
    bad[f.byte] = static_cast<char>(bad[f.byte] ^ (1 << f.bit));
    std::ofstream(anchor, std::ios::binary | std::ios::trunc) << bad;
    const auto r = test::run_wisp("info " + (dir / "pp").string());
    INFO("byte " << f.byte << " bit " << f.bit);
    CHECK(r.exit_code == 1);
#ifdef WISP_SANITIZED
    // AddressSanitizer catches libotf2's heap overflow itself (the probe sees an ordinary exit) and
    // LeakSanitizer adds its suppression statistics: the first line must still be the one error.
    CHECK_THAT(r.err, Catch::StartsWith("wisp: error: " + anchor.string() + ": "));
#else
    CHECK_THAT(r.err, Catch::StartsWith("wisp: error: " + anchor.string() + ": " + f.what) && Catch::EndsWith("\n"));
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
#endif
  }
}

TEST_CASE("platform attributes SimGrid aborts on are refused first, with file and line", "[hardening]") {
  // Each made SimGrid abort in the replay child, or (radical) allocate 9 GB in 30 s.
  const struct {
    const char* file;
    const char* message;
  } cases[] = {
      {"radical-huge.xml", " line 4: radical \"0-99999999\" makes 100000000 hosts (at most 1048576)"},
      {"speed-zero.xml", " line 5: <host> speed=\"0f\" must be a finite positive number with a unit (e.g. 1Gf)"},
      {"speed-negative.xml", " line 5: <host> speed=\"-1Gf\" must be a finite positive number"},
      {"bandwidth-negative.xml", " line 6: <link> bandwidth=\"-5Bps\" must be a finite positive number"},
      {"latency-nan.xml", " line 4: <cluster> lat=\"nan\" must be a finite non-negative number"},
      {"routing-bogus.xml", " line 4: <zone> routing=\"Bogus\" is not a SimGrid routing"},
  };
  for (const auto& c : cases) {
    INFO(c.file);
    const fs::path file = kRegression / c.file;
    CHECK_THROWS_WITH(load_platform(file), Catch::StartsWith("platform " + file.string() + c.message));
  }
}

TEST_CASE("messages quote what they are given, shortened; odd values are named", "[hardening]") {
  TempDir dir;
  const std::string name(500000, 'x');
  std::ofstream(dir / "long.yaml") << "wisp: 1\ntrace: {generate: \"imbalance --ranks 2 --iterations 2\"}\n"
                                      "transforms:\n  - scale: {region: "
                                   << name << ", factor: 2}\n";
  const auto r = test::run_wisp("run -o " + (dir / "out").string() + " " + (dir / "long.yaml").string());
  CHECK(r.exit_code == 1);
  CHECK(r.err.size() < 400);
  CHECK_THAT(r.err, Catch::Contains("...(500000 characters)"));
  std::ofstream(dir / "version.yaml") << "wisp: [5, -1]\ntrace: x\n";
  CHECK_THAT(error_of(dir / "version.yaml"), Catch::EndsWith(":1:7: wisp: a list or map is not a schema version "
                                                             "this wisp reads (it reads wisp: 1)"));
  std::ofstream(dir / "empty.otf2");
  CHECK_THROWS_WITH(read_otf2(dir / "empty.otf2"),
                    (dir / "empty.otf2").string() + ": is empty, not an OTF2 anchor file");
}

TEST_CASE("out of memory is exit 1 naming the command and input", "[hardening]") {
#ifdef WISP_SANITIZED
  // AddressSanitizer reserves terabytes of address space: a virtual-memory limit stops it first.
  WARN("SKIPPED: ulimit -v does not work with AddressSanitizer");
  return;
#endif
  // Was exit 3 "internal error: std::bad_alloc" with no input named.
  TempDir dir;
  const auto limited = std::system(("bash -c 'ulimit -v 400000; " + std::string(WISP_CLI) +
                                    " generate halo --dims 64x64 --steps 200 -o " + (dir / "out").string() + " 2>" +
                                    (dir / "err").string() + "'")
                                       .c_str());
  CHECK(WEXITSTATUS(limited) == 1);
  const std::string err = read_file(dir / "err").value_or("");
  CHECK(err == "wisp: error: generate halo --dims 64x64 --steps 200 -o " + (dir / "out").string() +
                   ": out of memory (the input needs more memory than this machine has)\n");
  CHECK_FALSE(fs::exists(dir / "out"));
}

TEST_CASE("fuzz findings: a list used as a mapping key", "[hardening][fuzz]") {
  // fuzz_scenario: `? - ...` made yaml-cpp throw a bad conversion past wisp's checks (exit 3).
  const fs::path file = kRegression / "fuzz-scenario-complex-key.yaml";
  CHECK_THAT(error_of(file), Catch::StartsWith(file.string() + ":4:4: a key must be a plain name"));
}

TEST_CASE("fuzz findings: a platform file name the system refuses", "[hardening][fuzz]") {
  // fuzz_scenario: a platform given as a long quoted string made std::filesystem throw "File name
  // too long" past wisp's errors (a crash in the fuzzer).
  const fs::path file = kRegression / "fuzz-scenario-platform-name-too-long.yaml";
  CHECK_THAT(error_of(file), Catch::StartsWith(file.string() + ":7:11: platform "));
  CHECK_THAT(error_of(file), Catch::Contains("File name too long"));
}

TEST_CASE("fuzz findings: an anchor whose length field makes libotf2 calloc 30 GB", "[hardening][fuzz]") {
  // fuzz_otf2 (300 s run): OTF2_AnchorFile_Load callocs 0x726f63530 bytes; the probe child's
  // memory limit makes it fail there, and wisp never loads that anchor itself.
  TempDir dir;
  REQUIRE(test::run_wisp("generate imbalance --ranks 2 --iterations 2 -o " + (dir / "t").string()).exit_code == 0);
  fs::copy_file(kRegression / "fuzz-otf2-anchor-huge-alloc.otf2", dir / "t" / "traces.otf2",
                fs::copy_options::overwrite_existing);
  const auto r = test::run_wisp("info " + (dir / "t").string());
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err, Catch::StartsWith("wisp: error: " + (dir / "t" / "traces.otf2").string() + ": "));
}

// YAML aliases are expanded where they are used: a recursive alias made every later walk endless
// (SIGSEGV in 0.06 s), ten levels of ten aliases a walk of 10^10 nodes (still running after 60 s).
// The bounds are checked before any key is read, whatever key the alias sits under.
TEST_CASE("scenario YAML: recursive aliases, alias bombs and deep nesting are one-line errors", "[hardening][yaml]") {
  const struct {
    const char* file;
    const char* message;
  } cases[] = {
      {"yaml-recursive-alias.yaml",
       ":2:8: recursive alias: an anchored list or map (&name) contains an alias of itself (*name)"},
      {"yaml-recursive-alias-unknown-key.yaml",
       ":3:4: recursive alias: an anchored list or map (&name) contains an alias of itself (*name)"},
      {"yaml-alias-bomb.yaml",
       "nodes: aliases (*name) are copied where they are used, and these multiply (an alias bomb?)"},
      {"yaml-deep-nesting.yaml", ":3:67: lists and maps nested deeper than 64 levels"},
      {"yaml-merge-key.yaml",
       ":5:13: merge keys (<<) are not supported in transform 'scale': write the keys out, or reuse a "
       "whole block with an alias (key: *name)"},
  };
  for (const auto& c : cases) {
    INFO(c.file);
    const fs::path file = kRegression / c.file;
    REQUIRE(fs::exists(file));
    const std::string error = error_of(file);
    CHECK_THAT(error, Catch::StartsWith(file.string()) && Catch::EndsWith(c.message));
    CHECK(error.find('\n') == std::string::npos);
  }
  // The command line: exit 1, one line on stderr (not a signal).
  const auto r =
      test::run_wisp("run " + (kRegression / "yaml-recursive-alias.yaml").string() + " -o /nonexistent/never");
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err, Catch::StartsWith("wisp: error: ") && Catch::Contains("recursive alias"));
}

TEST_CASE("scenario YAML: plain aliases users write keep working", "[hardening][yaml]") {
  const Scenario s = load_scenario(kRegression / "yaml-plain-aliases.yaml");
  REQUIRE(s.transforms.size() == 3);
  CHECK(s.transforms[0].factor == 0.5);
  CHECK(s.transforms[1].factor == 0.5);
  CHECK(s.transforms[1].select.region == "work");
  CHECK(s.platform.change.latency_factor == 2);
  CHECK(s.transforms[2].platform.latency_factor == 2);
  CHECK(s.transforms[1].select.ranks_text == "0-1");
}

TEST_CASE("fuzz findings: names that are not UTF-8 are written to JSON as U+FFFD", "[hardening][fuzz]") {
  // tests/fuzz/mutate_run.sh: a byte of the Score-P ping-pong's string definitions set to 0xff made
  // `wisp run` end in "wisp: internal error: [json.exception.type_error.316] invalid UTF-8 byte"
  // (exit 3) after both replays, when writing report.html; a trace directory with a Latin-1 name did
  // the same to every JSON output. JSON now has U+FFFD for each such byte; report.txt keeps them.
  TempDir dir;
  const fs::path trace = dir / "t\xfc";  // a Latin-1 directory name
  REQUIRE(test::run_wisp("-q generate imbalance --ranks 2 --iterations 3 -o '" + trace.string() + "'").exit_code == 0);
  fs::copy_file(kRegression / "fuzz-run-non-utf8-region-name.def", trace / "traces.def",
                fs::copy_options::overwrite_existing);  // the same, with region "work" named "w\xe9rk" (Latin-1)
  std::ofstream(dir / "s.yaml") << "wisp: 1\ntrace: " << trace.filename().string()
                                << "\ntransforms:\n  - scale: {ranks: \"0\", factor: 0.5}\n";
  const auto r = test::run_wisp("-q run " + (dir / "s.yaml").string() + " -o " + (dir / "out").string() +
                                " --chrome-trace " + (dir / "chrome.json").string());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const std::string region = "w\xef\xbf\xbdrk";  // U+FFFD for the byte 0xe9
  for (const char* file : {"out/report.json", "out/report.html", "chrome.json"}) {
    INFO(file);
    CHECK(read_file(dir / file).value_or("").find(region) != std::string::npos);
  }
  const std::string json = read_file(dir / "out" / "report.json").value_or("");
  CHECK_NOTHROW(nlohmann::json::parse(json));
  CHECK(json.find("t\xef\xbf\xbd") != std::string::npos);  // the trace's path
  CHECK_NOTHROW(nlohmann::json::parse(read_file(dir / "chrome.json").value_or("")));
  CHECK(read_file(dir / "out" / "report.txt").value_or("").find("w\xe9rk") != std::string::npos);
  for (const std::string command : {"info --json --regions", "analyze --json"}) {
    INFO(command);
    const auto c = test::run_wisp("-q " + command + " '" + trace.string() + "'");
    CHECK(c.exit_code == 0);
    CHECK(c.out.find(region) != std::string::npos);
    CHECK_NOTHROW(nlohmann::json::parse(c.out));
  }
}
