// Golden outputs: report.txt of every bundled scenario (scenarios/*.yaml) as `wisp run` writes it,
// against tests/golden/NAME.txt, as SimGrid's .tesh files check an example's output: text exactly,
// numbers within one unit of their last printed digit. A change of behaviour shows as a diff;
// one that is meant is regenerated with `bash tests/golden/update.sh` and reviewed.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "helpers.hpp"
#include "wisp/io/read_file.hpp"

namespace fs = std::filesystem;

namespace {

// A line as text between numbers and the numbers with their printed decimals.
struct Tokens {
  std::vector<std::string> text;
  std::vector<double> numbers;
  std::vector<int> decimals;
};

Tokens tokens_of(const std::string& line) {
  static const std::regex number(R"([+-]?\d+(\.\d+)?([eE][+-]?\d+)?)");
  Tokens t;
  std::size_t at = 0;
  for (auto it = std::sregex_iterator(line.begin(), line.end(), number); it != std::sregex_iterator(); ++it) {
    t.text.push_back(line.substr(at, static_cast<std::size_t>(it->position()) - at));
    const std::string n = it->str();
    t.numbers.push_back(std::stod(n));
    const auto dot = n.find('.');
    const auto exponent = n.find_first_of("eE");
    int decimals = dot == std::string::npos
                       ? 0
                       : static_cast<int>((exponent == std::string::npos ? n.size() : exponent) - dot - 1);
    if (exponent != std::string::npos) decimals -= std::stoi(n.substr(exponent + 1));
    t.decimals.push_back(decimals);
    at = static_cast<std::size_t>(it->position() + it->length());
  }
  t.text.push_back(line.substr(at));
  return t;
}

// Equal text, integers equal, and every other number within one unit of the expected one's last
// printed digit (a rounding that flips it).
bool same_line(const std::string& expected, const std::string& actual) {
  const Tokens e = tokens_of(expected), a = tokens_of(actual);
  if (e.text != a.text || e.numbers.size() != a.numbers.size()) return false;
  for (std::size_t i = 0; i < e.numbers.size(); ++i)
    if (e.decimals[i] <= 0 ? e.numbers[i] != a.numbers[i]
                           : std::abs(e.numbers[i] - a.numbers[i]) > std::pow(10.0, -e.decimals[i]) * 1.000001)
      return false;
  return true;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string replace_all(std::string text, const std::string& what, const std::string& with) {
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + with.size()))
    text.replace(at, what.size(), with);
  return text;
}

}  // namespace

TEST_CASE("tokens: numbers with their printed decimals, the text between them", "[golden]") {
  CHECK(same_line("gain 0.374701 s (23.38 %)", "gain 0.374702 s (23.38 %)"));
  CHECK_FALSE(same_line("gain 0.374701 s (23.38 %)", "gain 0.374703 s (23.38 %)"));
  CHECK_FALSE(same_line("gain 0.374701 s (23.38 %)", "gain 0.374701 s (23.39 %) x"));
  CHECK_FALSE(same_line("16 ranks", "17 ranks"));
  CHECK(same_line("1e-06 s", "1.5e-06 s"));
  CHECK_FALSE(same_line("identity", "scenario"));
}

TEST_CASE("every bundled scenario's report.txt equals its golden output", "[golden][scenario]") {
  const fs::path source = WISP_SOURCE_DIR;
  std::vector<fs::path> scenarios;
  for (const auto& entry : fs::directory_iterator(source / "scenarios"))
    if (entry.path().extension() == ".yaml") scenarios.push_back(entry.path());
  std::sort(scenarios.begin(), scenarios.end());
  REQUIRE(scenarios.size() >= 8);
  for (const fs::path& scenario : scenarios) {
    const std::string name = scenario.stem().string();
    INFO(name << ": regenerate with bash tests/golden/update.sh if the change is meant");
    const auto golden = wisp::read_file(source / "tests" / "golden" / (name + ".txt"));
    REQUIRE(golden);
    wisp::test::TempDir dir;
    const auto r = wisp::test::run_wisp("-q run " + scenario.string() + " -o " + (dir / "out").string() + " --jobs 2");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const auto report = wisp::read_file(dir / "out" / "report.txt");
    REQUIRE(report);
    const auto expected = lines_of(*golden), actual = lines_of(replace_all(*report, source.string(), "<source>"));
    for (std::size_t i = 0; i < std::max(expected.size(), actual.size()); ++i) {
      const std::string e = i < expected.size() ? expected[i] : "<no line>";
      const std::string a = i < actual.size() ? actual[i] : "<no line>";
      INFO("line " << i + 1 << "\n  expected: " << e << "\n  actual:   " << a);
      REQUIRE(same_line(e, a));
    }
  }
}
