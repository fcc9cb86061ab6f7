// `wisp generate KIND [options] -o DIR`: synthetic traces whose timing follows the analytic
// model of include/wisp/generate/model.hpp (ground truth for tests and demos).
#include <spdlog/spdlog.h>

#include <memory>

#include "generate_command.hpp"
#include "wisp/generate/command_line.hpp"
#include "wisp/io/otf2_writer.hpp"

namespace wisp::cli {

namespace {

struct Output {
  std::string dir;
  bool force = false;
};

void write(const Trace& trace, const Output& out, const CLI::App& cmd) {
  WriteOptions w;
  w.force = out.force;
  w.creator = "wisp generate";
  w.description = "wisp generate " + cmd.get_name() + "\n" + cmd.config_to_str(false, false);
  write_otf2(trace, out.dir, w);
  spdlog::info("wrote {} events of {} ranks to {} (runtime {:.6f} s)", trace.event_count(), trace.rank_count(), out.dir,
               trace.end_time());
}

}  // namespace

void add_generate_command(CLI::App& app) {
  CLI::App* generate = app.add_subcommand("generate", "write a synthetic trace with an exact analytic model");
  generate->require_subcommand(1);
  auto out = std::make_shared<Output>();
  gen::add_generator_commands(*generate, [out](Trace t, const CLI::App& cmd) { write(t, *out, cmd); });
  for (CLI::App* kind : generate->get_subcommands({})) {
    kind->add_option("-o,--output", out->dir, "directory to write the OTF2 archive into")->required();
    kind->add_flag("--force", out->force, "replace an existing output directory");
  }
}

}  // namespace wisp::cli
