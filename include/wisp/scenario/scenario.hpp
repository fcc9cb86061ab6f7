// A what-if scenario as written in YAML (schema version `wisp: 1`): which trace, which platform,
// replay options, an ordered list of transforms, optional sweep axes, analyses and output.
// load_scenario() checks the whole file and reports problems as "file:line:column: what".
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "wisp/replay/export.hpp"
#include "wisp/replay/placement.hpp"
#include "wisp/trace/ids.hpp"

namespace wisp {

// A place in a scenario file, for error messages.
struct Where {
  std::string file;
  int line = 0;             // 1-based
  int column = 0;           // 1-based
  std::string str() const;  // "FILE:LINE:COL"
};

// Which region visits a transform acts on. Empty fields select everything.
struct Selection {
  std::string region;       // exact name or glob (*, ?, [..])
  std::string callpath;     // "main/solve/work" or a glob over call-path names
  std::vector<Rank> ranks;  // empty: all ranks (parsed once the trace is known)
  std::string ranks_text;   // as written: "0-15,32"
  std::optional<std::pair<std::uint32_t, std::uint32_t>> iterations;  // k-th visits, inclusive
  std::optional<std::pair<double, double>> time;                      // visits entered within [t0, t1] seconds
  Where where;
};

struct PlatformChange {
  double speed_factor = 1;
  double latency_factor = 1;
  double bandwidth_factor = 1;
  std::filesystem::path file;  // another platform file instead (empty: keep)
  // The network in absolute numbers, as a Dimemas user types them (with_network in
  // point_replays.hpp): end-to-end latency [s], bandwidth [bytes/s], per-call overhead [s].
  std::optional<double> latency, bandwidth, overhead;
  bool absolute() const { return latency || bandwidth || overhead; }
  // Whether the platform differs from the identity's at all.
  bool changes() const {
    return !file.empty() || absolute() || speed_factor != 1 || latency_factor != 1 || bandwidth_factor != 1;
  }
};

enum class TransformKind { Rebalance, Scale, Set, Zero, Move, Platform, Placement };

// How `rebalance` balances: the k-th visits of the selection to their mean (instance), every
// rank's total to the mean (total), or every call path inside the selection, its k-th visits'
// exclusive computation to their mean (callpaths: a decomposition balanced phase by phase).
enum class RebalanceMode { Instance, Total, Callpaths };
std::string to_string(RebalanceMode mode);

struct Transform {
  TransformKind kind = TransformKind::Scale;
  Selection select;                              // rebalance/scale/set/zero: what; move: from
  Selection to;                                  // move: where the work goes
  RebalanceMode mode = RebalanceMode::Instance;  // rebalance
  bool across_threads = false;                   // rebalance: the threads of each visit's team (hybrid traces)
  double factor = 1;                             // scale
  double seconds = 0;                            // set
  double fraction = 0;                           // move
  bool communication = false;                    // zero: all communication instead of a region
  PlatformChange platform;                       // platform
  Placement placement = Placement::Cyclic;       // placement: block or cyclic over the platform's hosts,
  std::filesystem::path hostfile;                // or this hostfile's mapping (replay.hpp)
  Where where;
};
std::string to_string(TransformKind kind);

// The platform the replay runs on.
struct PlatformSpec {
  enum class Kind { Calibrated, File, Generated } kind = Kind::Calibrated;
  std::filesystem::path file;
  std::uint32_t hosts = 0;     // generated: nodes, 0 = one per rank
  std::uint32_t cores = 1;     // generated: cores per node
  double speed = 1e9;          // flop/s
  double latency = 1e-6;       // s
  double bandwidth = 1.25e10;  // bytes/s
  std::string topology = "crossbar";
  std::string parameters;  // SimGrid topology parameters (fat-tree, torus, dragonfly)
  double overhead = 0;     // per MPI call [s]
  std::uint64_t eager_threshold = 65536;
  bool contention = true;  // false: every flow gets the full bandwidth (FATPIPE links)
  // Generated: the network inside a node (Platform::intra), `intra: {latency, bandwidth,
  // overhead}`; the keys above are then the network between nodes.
  std::optional<Platform::NodeNetwork> intra;
  std::optional<double> intra_overhead;  // `intra: {overhead}` (MpiCosts::intra_overhead)
  // `intra: {file}`: a `wisp calibrate` file as the network inside a node (Platform::intra_calibration),
  // with generated parameters or a calibration `file` with `nodes` and `cores` (platform.hpp as_nodes).
  std::filesystem::path intra_file;
  PlatformChange change;  // factors applied to identity and scenario alike
  Where where;
};

struct ReplaySpec {
  // "anchored" (default): every MPI call keeps its traced cost, the platform model computes its
  // part; "model": the platform's costs only (platform studies of traces from other machines).
  std::string costs = "anchored";
  std::optional<std::uint64_t> eager_threshold;    // bytes
  std::map<std::string, std::string> collectives;  // operation (or "default") -> algorithm
  std::filesystem::path hostfile;                  // rank -> host mapping (SMPI hostfile); "" = round robin
  Placement placement = Placement::Traced;         // the identity's placement without a hostfile (placement.hpp)
  // The gain interval (gain_interval.hpp): two more cost hypotheses replayed beside the point
  // estimate. `interval: false` (or `--no-interval`) turns it off.
  bool interval = true;
  Where where;
};

// The trace: a file, or a `wisp generate` command line run in memory.
struct TraceSource {
  std::filesystem::path path;
  std::string generate;  // e.g. "halo --dims 4x4 --overload-ranks 0-3 --overload 0.5"
  Where where;
};

struct SweepAxis {
  std::string key;  // "platform.bandwidth_factor", "transforms[0].factor"
  std::vector<YAML::Node> values;
  Where where;
};

// How a sweep's axes make its points: every combination (cartesian, the default), one axis at a
// time with the others as the scenario sets them (a one-factor study: the sum of the axes' lengths),
// or the axes' k-th values together (zipped: axes of one length, one point per position).
enum class SweepDesign { Cartesian, OneAtATime, Zipped };

struct Scenario {
  std::filesystem::path file;
  std::string name;
  std::string description;
  TraceSource trace;
  PlatformSpec platform;
  ReplaySpec replay;
  std::vector<Transform> transforms;
  std::vector<SweepAxis> sweep;
  SweepDesign sweep_design = SweepDesign::Cartesian;  // `sweep: {design: ...}`
  std::vector<std::string> analyses;                  // keys of analysis_keys() (metric_catalogue.hpp); default: all
  std::filesystem::path output;                       // "" = decided by the runner
  std::vector<ExportRequest> exports;  // `export:` the scenario trace for other simulators (paths in the output)
  YAML::Node source;                   // the parsed document (sweeps edit copies of it)
};

// Reads and checks a scenario file; throws wisp::Error("file:line:col: ..."). The files it names
// (platform files, hostfiles, sweep values that are files) are read and checked too, and export
// paths must not be one of the run's own outputs (run_output_names), all before any replay.
Scenario load_scenario(const std::filesystem::path& file);
// The same from text (`file` names it in messages and anchors relative paths).
Scenario parse_scenario(const std::string& text, const std::filesystem::path& file);

// What `wisp run` of one point writes into its output directory (an export may not take these names).
const std::vector<std::string>& run_output_names();

// One point of the sweep: the scenario with every axis set to the given value index (kUnset: the
// axis keeps the scenario's own value).
inline constexpr std::size_t kUnset = static_cast<std::size_t>(-1);
Scenario sweep_point(const Scenario& base, const std::vector<std::size_t>& value_index);
// All points of the design (SweepDesign): cartesian, first axis slowest; one at a time, the first
// axis's values, then the second's; zipped, position by position.
std::vector<std::vector<std::size_t>> sweep_points(const Scenario& s);

}  // namespace wisp
