// wisp — trace-driven what-if simulator for MPI applications: the command line.
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <new>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>

#include "commands.hpp"
#include "generate_command.hpp"
#include "wisp/error.hpp"
#include "wisp/process/interrupt.hpp"

namespace {

using wisp::cli::Command;
using wisp::cli::Option;

// Registers one option of a command on its CLI11 sub-command: bools are flags.
void add_option(CLI::App& cmd, const Option& option) {
  CLI::Option* o = std::visit(
      [&](auto* target) {
        if constexpr (std::is_same_v<decltype(target), bool*>)
          return cmd.add_flag(option.names, *target, option.description);
        else
          return cmd.add_option(option.names, *target, option.description);
      },
      option.target);
  if (option.is_required) o->required();
  if (!option.choices.empty()) o->check(CLI::IsMember(option.choices));
  if (option.range) o->check(CLI::Range(option.range->first, option.range->second));
  if (option.is_non_negative) o->check(CLI::NonNegativeNumber);
  if (option.default_shown) o->capture_default_str();
  if (option.in_pairs) o->type_size(2)->expected(1, CLI::detail::expected_max_vector_size);
}

void add_command(CLI::App& app, Command command) {
  CLI::App* cmd = app.add_subcommand(command.name, command.summary);
  for (const Option& option : command.options) add_option(*cmd, option);
  cmd->callback(std::move(command.run));
}

// Log lines go to stderr as "[wisp] level: text"; -v and -q set the level once parsed.
void set_up_logging(CLI::App& app, const int& verbose, const bool& quiet) {
  auto logger = spdlog::stderr_color_mt("wisp");
  spdlog::set_default_logger(logger);
  spdlog::set_pattern("[wisp] %^%l%$: %v");
  app.parse_complete_callback([&] {
    // Progress lines (info) show by default; -v adds nothing yet, -vv the debug lines.
    spdlog::set_level(quiet ? spdlog::level::warn : verbose >= 2 ? spdlog::level::debug : spdlog::level::info);
  });
}

// Runs the chosen command; every failure becomes one "wisp: error: ..." line and an exit code
// (2 bad usage, 1 bad input or out of memory, 3 internal error).
int run(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "wisp: error: %s (see wisp --help)\n", e.what());
    return 2;
  } catch (const wisp::cli::UsageError& e) {
    std::fprintf(stderr, "wisp: error: %s (see wisp --help)\n", e.what());
    return 2;
  } catch (const wisp::Error& e) {
    std::fprintf(stderr, "wisp: error: %s\n", e.what());
    return 1;
  } catch (const std::bad_alloc&) {
    std::string what;  // the command and its input, as typed
    for (int i = 1; i < argc && what.size() < 200; ++i) what += (what.empty() ? "" : " ") + std::string(argv[i]);
    std::fprintf(stderr, "wisp: error: %s: out of memory (the input needs more memory than this machine has)\n",
                 what.c_str());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "wisp: internal error: %s\n", e.what());
    return 3;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  wisp::interrupt::install();
  CLI::App app{"wisp: trace-driven what-if simulator for MPI applications"};
  app.require_subcommand(1);
  int verbose = 0;
  bool quiet = false;
  app.add_flag("-v,--verbose", verbose, "more log output (repeat for debug)");
  app.add_flag("-q,--quiet", quiet, "only warnings and errors");
  app.set_version_flag("--version", "wisp 0.1.0");
  // Sub-commands inherit this: an option they do not know (-v, -q after the verb) is the app's.
  app.fallthrough();
  add_command(app, wisp::cli::info_command());
  wisp::cli::add_generate_command(app);
  add_command(app, wisp::cli::analyze_command());
  add_command(app, wisp::cli::calibrate_command());
  add_command(app, wisp::cli::simulate_command());
  add_command(app, wisp::cli::run_command());
  add_command(app, wisp::cli::suggest_command());
  add_command(app, wisp::cli::merge_command());
  set_up_logging(app, verbose, quiet);
  return run(app, argc, argv);
}
