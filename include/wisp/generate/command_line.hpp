// `KIND [options]` command lines of the generators (CLI11), shared by `wisp generate` and by
// scenario files whose trace is `generate: "halo --dims 4x4 ..."`: one option parser, one place.
#pragma once

#include <functional>
#include <string>

#include "wisp/trace/trace.hpp"

namespace CLI {
class App;
}

namespace wisp::gen {

// Receives a generated trace and the sub-command (its name and options) that made it.
using GeneratedSink = std::function<void(Trace, const CLI::App&)>;

// Registers every generator as a sub-command of `parent`; parsing runs the chosen one into `sink`.
void add_generator_commands(CLI::App& parent, const GeneratedSink& sink);

// A trace made in memory from a command line without "generate", e.g.
// "halo --dims 4x4 --overload-ranks 0-3 --overload 0.5"; errors name the command line.
Trace generate_from_command_line(const std::string& command_line);

}  // namespace wisp::gen
