// `wisp simulate TRACE -o DIR`: the trace replayed on a SimGrid platform (a platform file, else one
// calibrated from the trace, as a scenario's platform is resolved), the simulated OTF2 trace
// written, and measured against simulated runtime per rank with the identity error and residuals.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "wisp/driver/written.hpp"

namespace wisp::driver {

struct SimulateOptions {
  std::filesystem::path trace;
  std::filesystem::path output;                // the simulated OTF2 archive
  std::filesystem::path platform;              // SimGrid platform XML (default: calibrated from the trace)
  std::string coll_algo;                       // e.g. "analytic" or "allreduce=ring,bcast=binomial"
  std::filesystem::path hostfile;              // rank → host: one host (or host:N) per line
  std::string costs = "anchored";              // or "model": the platform's costs only
  std::filesystem::path chrome_trace;          // also the measured and simulated timelines
  std::optional<std::uint64_t> eager;          // largest message sent eagerly [bytes]
  bool zero_communication = false;             // every message has zero bytes and no latency
  std::vector<std::string> exports;            // pairs: format ("smpi-ti", "goal"), path (exports.hpp)
  std::string export_collectives = "actions";  // smpi-ti: "actions" (SMPI's, on the world) or "messages"
  std::string export_time_unit = "ns";         // goal: "ns" or "ps"
  bool force = false;
};

// Throws wisp::Error (a deadlocking replay named by the trace).
Written simulate(const SimulateOptions& options);

}  // namespace wisp::driver
