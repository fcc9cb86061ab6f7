// Definitions: clock conversion, MPI function classification, call-path names.
#include "wisp/trace/definitions.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <utility>

namespace wisp {

double Clock::to_seconds(std::uint64_t ticks) const {
  const auto delta = static_cast<std::int64_t>(ticks - global_offset);
  return static_cast<double>(delta) / static_cast<double>(ticks_per_second);
}

std::uint64_t Clock::to_ticks(double seconds) const {
  const auto delta = std::llround(seconds * static_cast<double>(ticks_per_second));
  return global_offset + static_cast<std::uint64_t>(delta);
}

namespace {

struct MpiName {
  std::string_view name;
  MpiFunction function;
};

// Sorted by name for binary search.
constexpr std::array kMpiNames = std::to_array<MpiName>({
    {"MPI_Allgather", MpiFunction::Allgather},
    {"MPI_Allgatherv", MpiFunction::Allgatherv},
    {"MPI_Allreduce", MpiFunction::Allreduce},
    {"MPI_Alltoall", MpiFunction::Alltoall},
    {"MPI_Alltoallv", MpiFunction::Alltoallv},
    {"MPI_Alltoallw", MpiFunction::Alltoallw},
    {"MPI_Barrier", MpiFunction::Barrier},
    {"MPI_Bcast", MpiFunction::Bcast},
    {"MPI_Bsend", MpiFunction::Bsend},
    {"MPI_Cancel", MpiFunction::Cancel},
    {"MPI_Exscan", MpiFunction::Exscan},
    {"MPI_Finalize", MpiFunction::Finalize},
    {"MPI_Gather", MpiFunction::Gather},
    {"MPI_Gatherv", MpiFunction::Gatherv},
    {"MPI_Ibsend", MpiFunction::Ibsend},
    {"MPI_Init", MpiFunction::Init},
    {"MPI_Init_thread", MpiFunction::InitThread},
    {"MPI_Iprobe", MpiFunction::Iprobe},
    {"MPI_Irecv", MpiFunction::Irecv},
    {"MPI_Irsend", MpiFunction::Irsend},
    {"MPI_Isend", MpiFunction::Isend},
    {"MPI_Issend", MpiFunction::Issend},
    {"MPI_Probe", MpiFunction::Probe},
    {"MPI_Recv", MpiFunction::Recv},
    {"MPI_Reduce", MpiFunction::Reduce},
    {"MPI_Reduce_scatter", MpiFunction::ReduceScatter},
    {"MPI_Reduce_scatter_block", MpiFunction::ReduceScatterBlock},
    {"MPI_Request_free", MpiFunction::RequestFree},
    {"MPI_Rsend", MpiFunction::Rsend},
    {"MPI_Scan", MpiFunction::Scan},
    {"MPI_Scatter", MpiFunction::Scatter},
    {"MPI_Scatterv", MpiFunction::Scatterv},
    {"MPI_Send", MpiFunction::Send},
    {"MPI_Sendrecv", MpiFunction::Sendrecv},
    {"MPI_Sendrecv_replace", MpiFunction::SendrecvReplace},
    {"MPI_Ssend", MpiFunction::Ssend},
    {"MPI_Start", MpiFunction::Start},
    {"MPI_Startall", MpiFunction::Startall},
    {"MPI_Test", MpiFunction::Test},
    {"MPI_Testall", MpiFunction::Testall},
    {"MPI_Testany", MpiFunction::Testany},
    {"MPI_Testsome", MpiFunction::Testsome},
    {"MPI_Wait", MpiFunction::Wait},
    {"MPI_Waitall", MpiFunction::Waitall},
    {"MPI_Waitany", MpiFunction::Waitany},
    {"MPI_Waitsome", MpiFunction::Waitsome},
});

constexpr bool names_sorted() {
  for (std::size_t i = 1; i < kMpiNames.size(); ++i)
    if (!(kMpiNames[i - 1].name < kMpiNames[i].name)) return false;
  return true;
}
static_assert(names_sorted(), "kMpiNames must be sorted by name");

// Collectives wisp does not replay specially (non-blocking, neighbourhood, ...) still count as
// collective communication for the region kind.
bool looks_collective(std::string_view name) {
  static constexpr std::array<std::string_view, 12> stems{"barrier",   "bcast",     "gather",    "scatter",
                                                          "reduce",    "alltoall",  "allgather", "scan",
                                                          "neighbor_", "allreduce", "exscan",    "ibarrier"};
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return std::any_of(stems.begin(), stems.end(),
                     [&](std::string_view s) { return lower.find(s) != std::string::npos; });
}

bool looks_point_to_point(std::string_view name) {
  static constexpr std::array<std::string_view, 10> stems{"send",  "recv",  "Wait",    "Test",   "probe",
                                                          "Probe", "Start", "Request", "Cancel", "mprobe"};
  return std::any_of(stems.begin(), stems.end(), [&](std::string_view s) { return name.find(s) != std::string::npos; });
}

}  // namespace

MpiFunction mpi_function_from_name(std::string_view name) {
  if (!name.starts_with("MPI_")) return MpiFunction::None;
  const auto it = std::lower_bound(kMpiNames.begin(), kMpiNames.end(), name,
                                   [](const MpiName& a, std::string_view b) { return a.name < b; });
  if (it != kMpiNames.end() && it->name == name) return it->function;
  return MpiFunction::Other;
}

RegionKind region_kind_of(MpiFunction f) {
  if (f == MpiFunction::None) return RegionKind::User;
  if (f == MpiFunction::Init || f == MpiFunction::InitThread || f == MpiFunction::Finalize)
    return RegionKind::MpiInitFinalize;
  if (f >= MpiFunction::Barrier && f <= MpiFunction::Exscan) return RegionKind::MpiCollective;
  if (f >= MpiFunction::Send && f <= MpiFunction::RequestFree) return RegionKind::MpiPointToPoint;
  return RegionKind::MpiOther;
}

std::string_view to_string(MpiFunction f) {
  if (f == MpiFunction::None) return "";
  if (f == MpiFunction::Other) return "MPI_*";
  for (const auto& n : kMpiNames)
    if (n.function == f) return n.name;
  return "MPI_*";
}

std::string_view to_string(RegionKind kind) {
  switch (kind) {
    case RegionKind::User:
      return "user";
    case RegionKind::MpiPointToPoint:
      return "mpi_p2p";
    case RegionKind::MpiCollective:
      return "mpi_collective";
    case RegionKind::MpiInitFinalize:
      return "mpi_init_finalize";
    case RegionKind::MpiOther:
      return "mpi_other";
    case RegionKind::Measurement:
      return "measurement";
  }
  return "?";
}

Region make_region(std::string name) {
  Region r;
  r.mpi = mpi_function_from_name(name);
  r.kind = region_kind_of(r.mpi);
  if (r.mpi == MpiFunction::Other) {
    if (looks_collective(name))
      r.kind = RegionKind::MpiCollective;
    else if (looks_point_to_point(name))
      r.kind = RegionKind::MpiPointToPoint;
  }
  r.canonical_name = name;
  r.name = std::move(name);
  return r;
}

std::uint8_t region_role(const Region& r) {
  // OTF2_Definitions.h: FUNCTION 1, BARRIER 15, COLL_ONE2ALL 23, COLL_ALL2ONE 24, COLL_ALL2ALL 25,
  // COLL_OTHER 26, POINT2POINT 28, ARTIFICIAL 31.
  if (r.otf2_role != 0) return r.otf2_role;
  switch (r.kind) {
    case RegionKind::MpiPointToPoint:
      return 28;
    case RegionKind::MpiCollective:
      switch (r.mpi) {
        case MpiFunction::Barrier:
          return 15;
        case MpiFunction::Bcast:
        case MpiFunction::Scatter:
        case MpiFunction::Scatterv:
          return 23;
        case MpiFunction::Reduce:
        case MpiFunction::Gather:
        case MpiFunction::Gatherv:
          return 24;
        case MpiFunction::Scan:
        case MpiFunction::Exscan:
          return 26;
        default:
          return 25;
      }
    case RegionKind::Measurement:
      return 31;
    default:
      return 1;
  }
}

std::uint8_t region_paradigm(const Region& r) {
  // OTF2_GeneralDefinitions.h: USER 1, MPI 4, MEASUREMENT_SYSTEM 6.
  if (r.otf2_paradigm != 0) return r.otf2_paradigm;
  if (is_mpi(r.kind)) return 4;
  if (r.kind == RegionKind::Measurement) return 6;
  return 1;
}

RegionId Definitions::add_region(Region region) {
  regions.push_back(std::move(region));
  return static_cast<RegionId>(regions.size() - 1);
}

CommId Definitions::add_comm(Communicator comm) {
  comms.push_back(std::move(comm));
  return static_cast<CommId>(comms.size() - 1);
}

std::optional<RegionId> Definitions::find_region(std::string_view name) const {
  for (std::size_t i = 0; i < regions.size(); ++i)
    if (regions[i].name == name) return static_cast<RegionId>(i);
  return std::nullopt;
}

std::optional<CallpathId> Definitions::find_callpath(std::string_view name) const {
  for (CallpathId c = 0; c < callpaths.size(); ++c)
    if (callpath_name(c) == name) return c;
  return std::nullopt;
}

std::string Definitions::callpath_name(CallpathId cp, std::string_view sep) const {
  std::vector<CallpathId> chain;
  for (CallpathId c = cp; c != kNone; c = callpaths[c].parent) chain.push_back(c);
  std::string out;
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    if (!out.empty()) out += sep;
    out += regions[callpaths[*it].region].name;
  }
  return out;
}

Rank global_rank(const Communicator& comm, std::uint32_t local, Rank caller) {
  if (comm.self) return local == 0 ? caller : kNone;
  return local < comm.members.size() ? comm.members[local] : kNone;
}

}  // namespace wisp
