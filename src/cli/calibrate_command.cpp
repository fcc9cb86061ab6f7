// `wisp calibrate TRACE -o platform.xml`: fits latency, bandwidth, per-call overheads and the
// eager threshold from the trace (paper 002's minimum durations) and writes a SimGrid platform.
#include <cstdio>
#include <filesystem>
#include <memory>

#include <spdlog/spdlog.h>

#include "commands.hpp"
#include "wisp/error.hpp"
#include "wisp/io/atomic_output.hpp"
#include "wisp/io/otf2_reader.hpp"
#include "wisp/replay/calibrate.hpp"

namespace wisp::cli {

void add_calibrate_command(CLI::App& app) {
  struct Options {
    std::string trace, output;
    bool force = false;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand("calibrate", "fit a SimGrid platform (latency, bandwidth, overheads, eager threshold) to a trace");
  cmd->add_option("trace", o->trace, "OTF2 anchor file or the directory holding it")->required();
  cmd->add_option("-o,--output", o->output, "platform XML file to write")->required();
  cmd->add_flag("--force", o->force, "replace an existing file");
  cmd->callback([o] {
    if (std::filesystem::exists(o->output) && !o->force)
      throw Error(o->output + ": exists (use --force to replace it)");
    const Trace trace = read_otf2(o->trace);
    Calibration c = calibrate(trace);
    calibrate_call_costs(trace, c);
    for (const std::string& note : c.notes) spdlog::warn("calibration: {}", note);
    write_file_atomically(o->output, platform_xml(c.platform));
    std::printf("%s", calibration_text(c).c_str());
    std::printf("wrote %s (%u hosts)\n", o->output.c_str(), c.platform.hosts);
  });
}

}  // namespace wisp::cli
