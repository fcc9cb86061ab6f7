// The sub-commands of the `wisp` command line as data, one file each (VERB_command.cpp): its name,
// options and what it runs (a verb of the driver layer, include/wisp/driver/, whose result it prints).
// Only main.cpp registers them on CLI11, so one translation unit pays for CLI11's templates.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "wisp/driver/written.hpp"

namespace wisp::cli {

// One option or positional argument: it writes its value into `target` (a bool is a flag).
struct Option {
  using Target = std::variant<bool*, int*, long long*, std::size_t*, double*, std::string*, std::filesystem::path*,
                              std::vector<std::filesystem::path>*, std::optional<long long>*, std::optional<double>*,
                              std::optional<std::uint64_t>*, std::vector<std::string>*>;
  std::string names;  // "trace" (positional) or "-o,--output"
  Target target;
  std::string description;
  bool is_required = false;
  std::vector<std::string> choices;                      // the value must be one of these
  std::optional<std::pair<long long, long long>> range;  // ... or be an integer in [first, second]
  bool is_non_negative = false;                          // ... or a number ≥ 0
  bool default_shown = false;                            // "[default]" in --help
  bool in_pairs = false;                                 // two values per use ("--export goal FILE")

  Option& required() { return is_required = true, *this; }
  Option& one_of(std::vector<std::string> values) { return choices = std::move(values), *this; }
  Option& within(long long low, long long high) { return range = {low, high}, *this; }
  Option& non_negative() { return is_non_negative = true, *this; }
  Option& show_default() { return default_shown = true, *this; }
  Option& pairs() { return in_pairs = true, *this; }
};

struct Command {
  std::string name, summary;
  std::vector<Option> options;
  std::function<void()> run;  // after parsing; owns what the targets point into

  Command(std::string command_name, std::string command_summary)
      : name(std::move(command_name)), summary(std::move(command_summary)) {}

  // Adds an option writing into `target`; the reference is valid until the next one is added.
  template <class T>
  Option& option(std::string names, T& target, std::string description) {
    Option& added = options.emplace_back();
    added.names = std::move(names);
    added.target = &target;
    added.description = std::move(description);
    return added;
  }
};

Command info_command();
Command analyze_command();
Command calibrate_command();
Command simulate_command();
Command run_command();
Command suggest_command();
Command merge_command();

// A command line the options cannot express as wrong (e.g. "trace is required" unless another
// option is given): printed like CLI11's parse errors, exit code 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Prints what a verb produced: its JSON indented by `indent` if `json`, else its text; then logs
// its warnings; then (text only) the lines that follow; then throws its failure line, if any.
void print(const driver::Written& written, bool json, int indent = 2);

}  // namespace wisp::cli
