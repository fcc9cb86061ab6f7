// The machine a trace is replayed on: a SimGrid XML platform file or a platform generated from a
// few parameters, the MPI software costs (per-call overheads, eager threshold) and the what-if
// factors scenarios apply. Plain data: the SimGrid platform itself is only built inside a replay.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace wisp {

// MPI software model. In an XML file these are zone properties:
//   <prop id="wisp:eager-threshold" value="65536"/>
//   <prop id="wisp:overhead" value="1e-6"/>            (every MPI function without its own value)
//   <prop id="wisp:overhead:MPI_Send" value="2e-6"/>   (one MPI function)
//   <prop id="wisp:reference-speed" value="1e9"/>      (see Platform::reference_speed)
struct MpiCosts {
  double default_overhead = 0;              // [s] before the communication of every MPI call
  std::map<std::string, double> overheads;  // [s] by MPI function name ("MPI_Send")
  std::uint64_t eager_threshold = 65536;    // largest message sent eagerly [bytes]
  // Typical cost beyond the network model, after the communication: host → MPI function → log2
  // size class → seconds (model-only calibration, calibrate.hpp: the mean trace-anchored residual of
  // the class). Model-only replays add it; anchored replays use each call's own residual instead.
  // XML: <prop id="wisp:call-costs:node-3:MPI_Send" value="12:3.1e-6;13:4e-6"/>.
  std::map<std::string, std::map<std::string, std::map<std::uint32_t, double>>> call_costs;
  // LogGP's per-message overhead o, for an MPI function without an overhead of its own: each
  // message a call sends costs `send_overhead` before its communication, each it receives (a
  // receive, a completed receive request, a collective's round) `receive_overhead` after it.
  // Unset: such a function costs `default_overhead` per call. `wisp calibrate` fits them from a
  // trace's sends and receives, so that its file prices the calls another trace makes.
  // XML: <prop id="wisp:message-overhead:send" value="2e-6"/> (and :receive).
  std::optional<double> send_overhead, receive_overhead;
  // What a typical message's transfer takes beyond the fastest one, which the network model
  // prices: `latency` + bytes × `per_byte` [s] (`wisp calibrate`: the median minus the fastest
  // wait-free transfer per size class). A platform change replaces the source's by the target's in
  // every receiving call (scenario/network_scaling.hpp). Unset: none (a network typed in numbers moves its own share
  // instead: typed_network). XML: <prop id="wisp:typical-excess:latency" value="3e-6"/> (and :per-byte).
  struct TypicalExcess {
    double latency = 0, per_byte = 0;
  };
  std::optional<TypicalExcess> typical_excess;
  // LogGOPS's O: what an eager send pays per byte of its message beyond its overhead (its copy
  // into the transport), for messages up to `up_to` bytes (larger ones pay `up_to`'s: no line is
  // extrapolated beyond the sizes it was fitted on). `wisp calibrate` fits it from the fastest eager
  // sends per size class. Like the typical excess, a platform change replaces the source's by the
  // target's in every eager send. Unset: no such cost.
  // XML: <prop id="wisp:eager-copy:per-byte" value="2e-10"/> (and :up-to, in bytes).
  struct EagerCopy {
    double per_byte = 0;
    std::uint64_t up_to = 0;
  };
  std::optional<EagerCopy> eager_copy;

  // What an MPI call pays instead of its own overhead when every message it sends, receives or
  // completes (a collective: every member) has its other side on the call's host (a node's shared
  // memory; Platform::intra); MPI_Init keeps its own. Unset: its own. XML: <prop id="wisp:intra-node-overhead"
  // value="5e-7"/>.
  std::optional<double> intra_overhead;

  double overhead(const std::string& function) const;
  // Whether `function`'s calls pay per message (it has no overhead of its own and the costs have
  // per-message overheads); its per-call overhead is then 0.
  bool per_message(const std::string& function) const;
};

// Network shape of a generated platform.
enum class Topology : std::uint8_t {
  Crossbar,   // every host has a private link to a non-blocking switch (SimGrid star zone)
  FatTree,    // SimGrid fat-tree, parameters like "2;4,4;1,2;1,2"
  Torus,      // SimGrid torus, dimensions like "4,4,4"
  Dragonfly,  // SimGrid dragonfly, parameters like "3,4;4,3;5,1;2"
};
std::string_view to_string(Topology t);
Topology topology_from_name(std::string_view name);  // throws wisp::Error on unknown names

// Private link of one host of a generated crossbar, when hosts differ (calibrated platforms).
struct HostLink {
  double up_latency = 0, down_latency = 0;      // [s]
  double up_bandwidth = 0, down_bandwidth = 0;  // [bytes/s]
};

struct Platform {
  // A SimGrid XML file; when empty the platform is generated from the fields below.
  std::filesystem::path file;
  // The file changes its resources over time (a bandwidth, latency, speed or state profile): a
  // transfer's time then depends on when it starts. Set by load_platform().
  bool varies_in_time = false;

  // Generated platform. Crossbar: a message between two hosts sees `latency` and `bandwidth`
  // end to end (each private link carries half of the latency). Other topologies: per link.
  Topology topology = Topology::Crossbar;
  std::string topology_parameters;  // required for FatTree, Torus, Dragonfly
  std::uint32_t hosts = 0;          // 0: one host per rank (crossbar only)
  double speed = 1e9;               // [flop/s] of every host
  std::uint32_t cores = 1;
  double latency = 1e-6;             // [s]
  double bandwidth = 1e10;           // [bytes/s]
  bool contention = true;            // false: FATPIPE links (every flow gets the full bandwidth)
  std::vector<HostLink> host_links;  // crossbar only: per-host links (index = host), overrides above
  // The network inside a host (a node's shared memory), for ranks placed on one host: its latency
  // [s] and bandwidth [bytes/s] end to end, one link per host shared by its messages. Unset: such
  // a message takes the host's up and down links like any other. (Its MPI overhead:
  // MpiCosts::intra_overhead.)
  struct NodeNetwork {
    double latency = 0, bandwidth = 0;
  };
  std::optional<NodeNetwork> intra;
  // The network inside a host measured by `wisp calibrate` (`intra: {file}`, with_intra_calibration):
  // its MPI costs price the calls whose messages all stay on their host, and those messages go by its
  // protocol (eager threshold) and its size factors (rank r: those of its host r mod H, H its
  // `hosts`); `intra` holds its links' latency and bandwidth. Unset: `mpi` prices every call.
  std::shared_ptr<const struct Platform> intra_calibration;

  // Flop/s that one second of traced computation represents; 0: the speed of the first host
  // (in natural name order, see replay.hpp). Scaling host speeds therefore scales computation.
  double reference_speed = 0;

  // `wisp calibrate` fitted the network on messages or collective steps of this one size only
  // [bytes] (its latency is their fastest transfer, the bandwidth unlimited), which cannot tell the
  // network from the transport's protocol and software; 0: not so. A platform change from it warns
  // (platform_reach.hpp). XML: <prop id="wisp:network-one-size" value="4096"/>.
  std::uint64_t network_one_size = 0;

  MpiCosts mpi;

  // Per receiving host and log2 size class (see calibrate.hpp): a message of that class to that
  // host is simulated with bytes × factor, so that the replay hits the class's measured minimum
  // where a linear latency + size/bandwidth model does not (like SMPI's piecewise bw-factor).
  // XML: <prop id="wisp:size-factors:node-3" value="17:1.25;18:0.93"/>.
  std::map<std::string, std::map<std::uint32_t, double>> size_factors;

  // What-if factors (scenarios): speeds, link latencies and link bandwidths are multiplied.
  double speed_factor = 1;
  double latency_factor = 1;
  double bandwidth_factor = 1;
};

// A platform read from a SimGrid XML file: checks that it exists and reads the wisp:* properties
// into `mpi` (throws wisp::Error naming the file and line on a malformed value).
Platform load_platform(const std::filesystem::path& file);

// A platform file with fewer hosts (cores) than the trace has ranks that describes a network, not a
// machine: a crossbar as `wisp calibrate` writes it (a calibration of a 2-rank ping-pong has 2
// hosts). It becomes a generated crossbar of one host per rank, rank r with the links, size factors
// and call costs of host r mod H, and the returned line says so; any other platform is left as it
// is (its ranks go round robin over its hosts; placement_warning says when they share cores).
std::string fit_to_ranks(Platform& platform, std::uint32_t ranks);

// The per-host links of a platform file that is a crossbar as `wisp calibrate` writes it (index =
// host); nothing for a generated platform or any other file.
std::optional<std::vector<HostLink>> crossbar_links(const Platform& platform);

// A crossbar's routes end to end: the mean of a host's up plus another's down link latency, the
// lower of the mean up and mean down bandwidths.
Platform::NodeNetwork mean_route(const std::vector<HostLink>& links);

// A platform file that is a `wisp calibrate` crossbar as a machine of `nodes` hosts (0: as many as
// the file has) of `cores` cores each: a generated crossbar whose host h has the links, size factors
// and call costs of the file's host h mod H. Throws wisp::Error for any other platform.
void as_nodes(Platform& platform, std::uint32_t nodes, std::uint32_t cores);

// The network inside the platform's hosts taken from `calibration`, a `wisp calibrate` crossbar
// file (Platform::intra_calibration): its links' mean latency (up plus down) and lower mean
// bandwidth become `intra`. Throws wisp::Error when it is not such a file.
void with_intra_calibration(Platform& platform, const Platform& calibration);

// A contention-free crossbar: `hosts` hosts of `speed` flop/s, end-to-end `latency` and
// `bandwidth`, FATPIPE links, every MPI call costing `overhead`. With the generators' model
// parameters (and the "analytic" collective algorithm) a replay reproduces their traces exactly.
Platform contention_free_crossbar(std::uint32_t hosts, double latency, double bandwidth, double overhead,
                                  std::uint64_t eager_threshold, double speed = 1e9);

// The platform as SimGrid XML (generated crossbar platforms only; used by `wisp calibrate`),
// including the wisp:* properties.
std::string platform_xml(const Platform& platform);

}  // namespace wisp
