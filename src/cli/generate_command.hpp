// `wisp generate KIND`: registered on CLI11 directly (not as a cli::Command), because the
// generators' options are the generate layer's own CLI11 sub-commands (generate/command_line.hpp).
#pragma once

#include <CLI/CLI.hpp>

namespace wisp::cli {

void add_generate_command(CLI::App& app);

}  // namespace wisp::cli
