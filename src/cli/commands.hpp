// The sub-commands of the `wisp` command line, one file each (VERB_command.cpp). Each registers
// its options on the CLI11 app and, from its callback, calls its verb in the driver layer
// (include/wisp/driver/) and prints what it returns; errors are thrown as wisp::Error and
// printed by main() as one line with a non-zero exit.
#pragma once

#include <CLI/CLI.hpp>

#include "wisp/driver/written.hpp"

namespace wisp::cli {

void add_info_command(CLI::App& app);
void add_generate_command(CLI::App& app);
void add_analyze_command(CLI::App& app);
void add_calibrate_command(CLI::App& app);
void add_simulate_command(CLI::App& app);
void add_run_command(CLI::App& app);
void add_suggest_command(CLI::App& app);
void add_merge_command(CLI::App& app);

// Prints what a verb produced: its JSON indented by `indent` if `json`, else its text; then logs
// its warnings; then (text only) the lines that follow; then throws its failure line, if any.
void print(const driver::Written& written, bool json, int indent = 2);

}  // namespace wisp::cli
