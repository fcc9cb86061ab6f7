// Global definitions of a trace: clock, ranks, regions, call paths, communicators.
// They mirror OTF2's definition records (ClockProperties, Location(Group), Region, Comm + Group)
// closely enough that a written-then-read trace is identical; call paths are wisp's own, built
// from Enter/Leave nesting while events are read or built.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "wisp/trace/attributes.hpp"
#include "wisp/trace/ids.hpp"
#include "wisp/trace/metrics.hpp"
#include "wisp/trace/rma_records.hpp"
#include "wisp/trace/thread_records.hpp"

namespace wisp {

// OTF2 clock properties. Times in the model are seconds since global_offset; conversion both
// ways goes through these two functions only, so that write -> read is exact.
struct Clock {
  bool operator==(const Clock&) const = default;
  std::uint64_t ticks_per_second = 1'000'000'000;
  std::uint64_t global_offset = 0;
  std::uint64_t length = 0;  // ticks from global_offset to the last event

  double to_seconds(std::uint64_t ticks) const;
  std::uint64_t to_ticks(double seconds) const;
  double snap(double seconds) const { return to_seconds(to_ticks(seconds)); }
};

enum class RegionKind : std::uint8_t {
  User,             // application function
  MpiPointToPoint,  // MPI_Send, MPI_Irecv, MPI_Wait*, MPI_Test*, ...
  MpiCollective,    // MPI_Barrier, MPI_Allreduce, ...
  MpiInitFinalize,  // MPI_Init, MPI_Init_thread, MPI_Finalize
  MpiOther,         // MPI calls without communication: MPI_Comm_rank, MPI_Wtime, MPI_Comm_split, ...
  Measurement,      // artificial regions of the measurement system (buffer flush, ...)
};
std::string_view to_string(RegionKind kind);
inline bool is_mpi(RegionKind k) {
  return k == RegionKind::MpiPointToPoint || k == RegionKind::MpiCollective || k == RegionKind::MpiInitFinalize ||
         k == RegionKind::MpiOther;
}

// The MPI functions whose semantics replay and analysis need to know; everything else is Other.
enum class MpiFunction : std::uint8_t {
  None,  // not an MPI function
  Send,
  Bsend,
  Ssend,
  Rsend,
  Recv,
  Sendrecv,
  SendrecvReplace,
  Isend,
  Ibsend,
  Issend,
  Irsend,
  Irecv,
  Wait,
  Waitall,
  Waitany,
  Waitsome,
  Test,
  Testall,
  Testany,
  Testsome,
  Probe,
  Iprobe,
  Start,
  Startall,
  Cancel,
  RequestFree,
  Barrier,
  Bcast,
  Gather,
  Gatherv,
  Scatter,
  Scatterv,
  Allgather,
  Allgatherv,
  Alltoall,
  Alltoallv,
  Alltoallw,
  Allreduce,
  Reduce,
  ReduceScatter,
  ReduceScatterBlock,
  Scan,
  Exscan,
  Init,
  InitThread,
  Finalize,
  Other,
};
MpiFunction mpi_function_from_name(std::string_view name);
RegionKind region_kind_of(MpiFunction f);
std::string_view to_string(MpiFunction f);

struct Region {
  bool operator==(const Region&) const = default;
  std::string name;            // display name (C++ codes: full demangled signature)
  std::string canonical_name;  // OTF2 canonical name (e.g. mangled or plain "main")
  std::string file;
  std::uint32_t begin_line = 0;
  std::uint32_t end_line = 0;
  RegionKind kind = RegionKind::User;
  MpiFunction mpi = MpiFunction::None;
  std::uint8_t otf2_role = 0;      // OTF2_RegionRole, kept for round trips
  std::uint8_t otf2_paradigm = 0;  // OTF2_Paradigm, kept for round trips
};

// Builds a region definition with the role and paradigm Score-P gives it.
Region make_region(std::string name);

// A region's OTF2 role and paradigm (OTF2_RegionRole, OTF2_Paradigm): as read from OTF2, else the
// ones Score-P gives a region of its kind (regions of generated traces and other writers').
std::uint8_t region_role(const Region& r);
std::uint8_t region_paradigm(const Region& r);

// An OpenMP barrier, implicit (end of a parallel region or worksharing construct) or explicit:
// where the threads of a team meet (OTF2 roles IMPLICIT_BARRIER and BARRIER, paradigm OpenMP).
inline bool is_openmp_barrier(const Region& r) {
  constexpr std::uint8_t kBarrier = 15, kImplicitBarrier = 16, kOpenMP = 3;
  return (r.otf2_role == kBarrier || r.otf2_role == kImplicitBarrier) && r.otf2_paradigm == kOpenMP;
}

struct Callpath {
  bool operator==(const Callpath&) const = default;
  RegionId region = kNone;
  CallpathId parent = kNone;  // kNone for a root (the outermost region of a rank)
  std::uint32_t depth = 0;    // 0 for a root
};

struct Communicator {
  bool operator==(const Communicator&) const = default;
  std::string name;
  std::vector<Rank> members;  // global ranks in communicator-rank order (empty for self)
  bool self = false;          // MPI_COMM_SELF-like: every rank alone; members are not listed
  CommId parent = kNone;
  bool create_destroy_events =
      false;  // OTF2_COMM_FLAG_CREATE_DESTROY_EVENTS: CommCreate/Destroy events mark its lifetime
  std::uint32_t size() const { return self ? 1u : static_cast<std::uint32_t>(members.size()); }
};

// One OTF2 location (the master thread of one MPI rank).
// Another location of a rank's process (hybrid traces): an OpenMP or pthreads thread, or an
// accelerator stream (CUDA, OpenCL, ...). Its records are read and counted; the analyses and the
// replay work on the rank's master thread (a parallel region is computation of the master).
enum class LocationKind : std::uint8_t { CpuThread, AcceleratorStream };
struct ThreadLocation {
  bool operator==(const ThreadLocation&) const = default;
  std::string name;  // "OMP thread 1", "CUDA[0:7]"
  LocationKind kind = LocationKind::CpuThread;
  std::uint64_t otf2_id = 0;
  std::uint64_t declared_events = 0;  // as its Location definition says
  std::uint64_t records = 0;          // event records read
};

struct Location {
  bool operator==(const Location&) const = default;
  std::string name = "Master thread";
  std::string group_name;  // "MPI Rank N"
  std::string node;        // system tree node the process ran on (e.g. host name)
  std::uint64_t otf2_id = 0;
  std::vector<ThreadLocation> others;            // the process's other threads and accelerator streams
  std::vector<MetricLocation> metric_locations;  // its locations that record only metrics
};

// A communicator over locations outside MPI, kept for the Cartesian topologies that refer to it:
// Score-P's "Process x Threads CPU Locations" (paradigm measurement system) over every CPU location.
struct LocationRef {
  bool operator==(const LocationRef&) const = default;
  Rank rank = kNone;
  std::uint32_t index = 0;  // 0: the rank's master thread, k: its others[k - 1]
};
struct LocationComm {
  bool operator==(const LocationComm&) const = default;
  std::string name;                  // "Process x Threads CPU Locations"
  std::string group_name;            // its COMM_GROUP: "PROCESSXTHREADS_GROUP"
  std::string locations_name;        // its paradigm's COMM_LOCATIONS group: "PROCESSXTHREADS_GROUP_LOCATIONS"
  std::uint8_t paradigm = 0;         // OTF2 paradigm of both groups
  std::vector<LocationRef> members;  // in communicator-rank order
};

// Cartesian topologies as OTF2 defines them (CartDimension, CartTopology, CartCoordinate): read and
// written back unchanged; no analysis uses them.
struct CartDimension {
  bool operator==(const CartDimension&) const = default;
  std::string name;  // "Process"
  std::uint32_t size = 0;
  bool periodic = false;
};
struct CartTopology {
  bool operator==(const CartTopology&) const = default;
  std::string name;           // "Process x Thread"
  bool on_locations = false;  // `comm` indexes location_comms, else comms (an MPI communicator)
  std::uint32_t comm = kNone;
  std::vector<std::uint32_t> dimensions;  // indices into cart_dimensions
};
struct CartCoordinate {
  bool operator==(const CartCoordinate&) const = default;
  std::uint32_t topology = 0;              // index into cart_topologies
  std::uint32_t rank = 0;                  // the rank in the topology's communicator
  std::vector<std::uint32_t> coordinates;  // one per dimension
};

struct Definitions {
  bool operator==(const Definitions&) const = default;
  Clock clock;
  std::string program_name;                    // from ProgramBegin (Score-P: the executable)
  std::vector<std::string> program_arguments;  // from ProgramBegin: its command-line arguments
  std::string creator;                         // OTF2 anchor "Creator" (e.g. "Score-P 8.1")
  std::vector<Location> ranks;
  std::vector<std::string> paradigms;  // of the regions and groups: "MPI", "OpenMP", "CUDA", ...
  std::vector<Region> regions;
  std::vector<Callpath> callpaths;
  std::vector<Communicator> comms;
  CommId world = kNone;
  std::vector<ThreadTeam> thread_teams;      // hybrid traces: the OpenMP (Pthread, ...) thread teams
  std::vector<LocationComm> location_comms;  // communicators of Cartesian topologies outside MPI
  std::vector<CartDimension> cart_dimensions;
  std::vector<CartTopology> cart_topologies;
  std::vector<CartCoordinate> cart_coordinates;
  std::vector<MetricMember> metric_members;  // counters (PAPI, rusage, ...): kept, not analysed
  std::vector<MetricClass> metric_classes;   // and metric instances
  std::vector<MetricRecorder> metric_recorders;
  std::vector<RmaWindow> rma_windows;          // one-sided windows (old Score-P CUDA memory copies): kept
  std::vector<AttributeDef> attributes;        // event attributes (attributes.hpp): kept
  std::vector<std::string> attribute_strings;  // the strings STRING attribute values name

  RegionId add_region(Region region);
  CommId add_comm(Communicator comm);
  std::optional<RegionId> find_region(std::string_view name) const;
  // The call path whose callpath_name() is `name` ("main/solve/MPI_Recv").
  std::optional<CallpathId> find_callpath(std::string_view name) const;
  const Region& region_of(CallpathId cp) const { return regions[callpaths[cp].region]; }
  // "main/solve/MPI_Recv": region names from the outermost region down, joined by `sep`.
  std::string callpath_name(CallpathId cp, std::string_view sep = "/") const;
};

// Maps a communicator-local rank to a global rank. `caller` resolves self communicators.
Rank global_rank(const Communicator& comm, std::uint32_t local, Rank caller);

}  // namespace wisp
