// `wisp info TRACE [--json] [--regions]`: what a trace contains; --regions: its flat profile.
#include <cstdio>
#include <memory>

#include "commands.hpp"
#include "wisp/io/otf2_reader.hpp"
#include "wisp/io/json_text.hpp"
#include "wisp/report/trace_info.hpp"

namespace wisp::cli {

void add_info_command(CLI::App& app) {
  struct Options {
    std::string trace;
    bool json = false;
    bool regions = false;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand("info", "ranks, events, regions, communicators, messages, anomalies of a trace");
  cmd->add_option("trace", o->trace, "OTF2 anchor file or the directory holding it")->required();
  cmd->add_flag("--json", o->json, "print JSON instead of text (it holds the flat profile too)");
  cmd->add_flag("--regions", o->regions, "print the flat profile: exclusive time, visits and paradigm per region");
  cmd->callback([o] {
    const Trace trace = read_otf2(o->trace);
    if (o->json) std::printf("%s\n", json_text(trace_info_json(trace, o->trace), 2).c_str());
    else if (o->regions) std::printf("%s", flat_profile_text(trace, o->trace).c_str());
    else std::printf("%s", trace_info_text(trace, o->trace).c_str());
  });
}

}  // namespace wisp::cli
