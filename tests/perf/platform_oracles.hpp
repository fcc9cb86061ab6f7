// The platform oracle (../shared/traces/platform/README.md): the same 2-rank runs over Open MPI's
// shared memory (vader) and over TCP. A case replays one transport's run A with the other described
// in one of three ways and compares the predicted change of the run with the measured one. Shared
// by the accuracy benchmark (platform_oracle_accuracy.cpp) and, once its limits hold, its test.
#pragma once

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "wisp/driver/calibrate.hpp"
#include "wisp/error.hpp"
#include "wisp/io/otf2_reader.hpp"
#include "wisp/scenario/point_replays.hpp"
#include "wisp/scenario/scenario.hpp"

namespace wisp::platform_oracle {

namespace fs = std::filesystem;

// How the target network (and, in b and c, the source's) is described.
enum class Way {
  CalibratedFile,  // (a) the target's ping-pong calibrated by `wisp calibrate`, the source calibrated from the app
                   // trace
  BothFiles,       // (b) the same, the source given as its own ping-pong's calibration
  Numbers,         // (c) latency (8-byte one-way) and bandwidth (4 MiB) of MICROBENCH.txt, overhead 0
  Placement,       // one platform of nodes: the TCP ping-pong's calibration between nodes, the shared-memory
                   // ping-pong's inside them; the source run placed as it ran, the target's placement the change
};
inline const char* to_string(Way w) {
  return w == Way::CalibratedFile ? "a" : w == Way::BothFiles ? "b" : w == Way::Numbers ? "c" : "placement";
}

struct Case {
  std::string app, source, target;  // "halo", "vader", "tcp"
  Way way = Way::CalibratedFile;
  std::string name() const { return app + " " + source + "->" + target + " (" + to_string(way) + ")"; }
};

// Every case: 4 programs x 2 directions x 3 ways.
inline std::vector<Case> cases() {
  std::vector<Case> out;
  for (const char* app : {"allreduce", "halo", "minife40", "pingpong"})
    for (const auto& [source, target] : {std::pair{"vader", "tcp"}, std::pair{"tcp", "vader"}})
      for (Way w : {Way::CalibratedFile, Way::BothFiles, Way::Numbers}) out.push_back(Case{app, source, target, w});
  return out;
}

// The placement question on the same runs ("one node or two?"): 4 programs x 2 directions.
inline std::vector<Case> placement_cases() {
  std::vector<Case> out;
  for (const char* app : {"allreduce", "halo", "minife40", "pingpong"})
    for (const auto& [source, target] : {std::pair{"vader", "tcp"}, std::pair{"tcp", "vader"}})
      out.push_back(Case{app, source, target, Way::Placement});
  return out;
}

// POSTINIT.txt: seconds from the last rank's MPI_Init exit to the last event, by archive name.
inline std::map<std::string, double> post_init(const fs::path& dir) {
  std::ifstream in(dir / "POSTINIT.txt");
  if (!in) throw Error((dir / "POSTINIT.txt").string() + ": cannot read");
  std::map<std::string, double> out;
  std::string name;
  double seconds = 0;
  while (in >> name >> seconds) out[name] = seconds;
  return out;
}

// MICROBENCH.txt: per transport, the 8-byte one-way time [s] and the 4 MiB bandwidth [bytes/s].
struct Microbench {
  double latency = 0, bandwidth = 0;
};
inline std::map<std::string, Microbench> microbench(const fs::path& dir) {
  std::ifstream in(dir / "MICROBENCH.txt");
  if (!in) throw Error((dir / "MICROBENCH.txt").string() + ": cannot read");
  std::map<std::string, Microbench> out;
  std::string line, transport;
  while (std::getline(in, line)) {
    if (line.rfind("== ", 0) == 0) {
      transport = line.substr(3);
      continue;
    }
    std::istringstream words(line);  // "8 bytes: one-way 0.265 us, 0.030 GB/s"
    double bytes = 0, us = 0, gbs = 0;
    std::string unit, oneway, us_unit;
    if (!(words >> bytes >> unit >> oneway >> us >> us_unit >> gbs)) continue;
    if (bytes == 8) out[transport].latency = us * 1e-6;
    if (bytes == 4194304) out[transport].bandwidth = gbs * 1e9;
  }
  return out;
}

struct Outcome {
  double measured = 0;  // mean post-MPI_Init time of the target's runs A and B − the source run A's [s]
  double spread = 0;    // |target A − target B| [s]
  PointResult point;    // predicted change: scenario − identity; the interval is on the gain (−change)
  double predicted() const { return point.scenario - point.identity; }
  double error() const { return (predicted() - measured) / std::abs(measured); }
  double low() const { return -point.interval.high - spread; }
  double high() const { return -point.interval.low + spread; }
  bool holds() const { return point.interval.available && low() <= measured && measured <= high(); }
  bool within_limit() const { return std::abs(predicted() - measured) <= std::max(0.25 * std::abs(measured), spread); }
  bool sign_right() const { return std::abs(measured) <= spread || (predicted() > 0) == (measured > 0); }
};

// The ping-pong calibration of `transport` (run A), written once into `work`.
inline fs::path calibration(const fs::path& dir, const std::string& transport, const fs::path& work) {
  const fs::path file = work / ("pingpong_" + transport + ".xml");
  if (!fs::exists(file))
    driver::calibrate(driver::CalibrateOptions{dir / ("pingpong_" + transport + "_A") / "traces.otf2", file, true});
  return file;
}

inline std::string network_yaml(const Microbench& m) {
  std::ostringstream s;
  s.precision(17);
  s << "{latency: " << m.latency << ", bandwidth: " << m.bandwidth << ", overhead: 0}";
  return s.str();
}

// Runs one case (replays and interval, no analyses) with calibrations kept in `work`.
inline Outcome evaluate(const fs::path& dir, const Case& c, const fs::path& work) {
  const auto times = post_init(dir);
  Outcome out;
  const double a = times.at(c.app + "_" + c.target + "_A"), b = times.at(c.app + "_" + c.target + "_B");
  out.measured = (a + b) / 2 - times.at(c.app + "_" + c.source + "_A");
  out.spread = std::abs(a - b);
  const fs::path archive = dir / (c.app + "_" + c.source + "_A") / "traces.otf2";
  std::string yaml = "wisp: 1\nname: " + c.app + "\ntrace: \"" + archive.string() + "\"\n";
  if (c.way == Way::Placement) {
    // Over shared memory the two ranks shared a node, over TCP each had one: 2 nodes of 2 cores.
    yaml += "platform: {file: \"" + calibration(dir, "tcp", work).string() + "\", cores: 2, intra: {file: \"" +
            calibration(dir, "vader", work).string() + "\"}}\n";
    if (c.source == "tcp") yaml += "replay: {placement: cyclic}\n";
    yaml += std::string("transforms:\n  - placement: ") + (c.target == "tcp" ? "cyclic" : "block") + "\n";
  } else if (c.way == Way::Numbers) {
    const auto m = microbench(dir);
    yaml += "platform: " + network_yaml(m.at(c.source)) +
            "\ntransforms:\n  - platform: " + network_yaml(m.at(c.target)) + "\n";
  } else {
    if (c.way == Way::BothFiles) yaml += "platform: {file: \"" + calibration(dir, c.source, work).string() + "\"}\n";
    yaml += "transforms:\n  - platform: {file: \"" + calibration(dir, c.target, work).string() + "\"}\n";
  }
  const Scenario s = parse_scenario(yaml, work / "oracle.yaml");
  const Trace measured = read_otf2(archive);
  out.point = PointRun(s, measured).finish();
  return out;
}

}  // namespace wisp::platform_oracle
