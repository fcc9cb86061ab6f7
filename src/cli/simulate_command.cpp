// `wisp simulate TRACE [--platform P.xml] [--eager BYTES] [--coll-algo ...] [--chrome-trace FILE] -o OUT_DIR`:
// the trace replayed on SimGrid, the simulated OTF2 trace written and runtimes compared per rank
// (driver/simulate.hpp).
#include <memory>

#include "commands.hpp"
#include "wisp/driver/simulate.hpp"

namespace wisp::cli {

Command simulate_command() {
  auto o = std::make_shared<driver::SimulateOptions>();
  Command cmd{"simulate", "replay a trace on a SimGrid platform and write the simulated trace"};
  cmd.option("trace", o->trace, "OTF2 anchor file or the directory holding it").required();
  cmd.option("-o,--output", o->output, "directory for the simulated OTF2 trace").required();
  cmd.option("--force", o->force, "replace an existing output directory");
  cmd.option("--platform", o->platform, "SimGrid platform XML (default: calibrated from the trace)");
  cmd.option("--eager", o->eager, "largest message sent eagerly [bytes] (default: the platform's)");
  cmd.option("--coll-algo", o->coll_algo, "collective algorithms, e.g. analytic or allreduce=ring,bcast=binomial");
  cmd.option("--hostfile", o->hostfile, "rank→host mapping: one host (or host:N) per line");
  cmd.option("--costs", o->costs,
             "anchored: every MPI call keeps its traced cost (default); model: "
             "the platform's costs only")
      .one_of({"anchored", "model"});
  cmd.option("--chrome-trace", o->chrome_trace,
             "also write the measured and the simulated timelines to FILE (Chrome/Perfetto trace JSON)");
  cmd.option("--export", o->exports,
             "also write the trace for another simulator: smpi-ti DIR (SimGrid time-independent trace) or "
             "goal FILE (LogGOPSim schedule); repeatable")
      .pairs();
  cmd.option("--export-collectives", o->export_collectives,
             "smpi-ti: collectives on MPI_COMM_WORLD as SMPI's actions (default) or as wisp's messages")
      .one_of({"actions", "messages"});
  cmd.option("--export-time-unit", o->export_time_unit, "goal: times in ns (default) or ps (for G below 1 ns/byte)")
      .one_of({"ns", "ps"});
  cmd.option("--zero-communication", o->zero_communication, "every message has zero bytes and no latency");
  cmd.run = [o] { print(driver::simulate(*o), false); };
  return cmd;
}

}  // namespace wisp::cli
