// The sub-commands of the `wisp` command line, one file each (VERB_command.cpp). Every command
// registers its options on the CLI11 app and runs from the callback; errors are thrown as
// wisp::Error and printed by main() as one line with a non-zero exit.
#pragma once

#include <CLI/CLI.hpp>

namespace wisp::cli {

void add_info_command(CLI::App& app);
void add_generate_command(CLI::App& app);
void add_analyze_command(CLI::App& app);
void add_calibrate_command(CLI::App& app);
void add_simulate_command(CLI::App& app);
void add_run_command(CLI::App& app);
void add_suggest_command(CLI::App& app);
void add_merge_command(CLI::App& app);

}  // namespace wisp::cli
