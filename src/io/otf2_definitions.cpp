// Global OTF2 definitions -> wisp Definitions. See otf2_definitions.hpp.
//
// How Score-P's definitions map onto the model:
// - ranks: the members of the MPI paradigm's COMM_LOCATIONS group, in order (= MPI_COMM_WORLD
//   rank): the master threads; the other CPU threads and accelerator streams of a rank's location
//   group become its `others` (hybrid MPI+OpenMP/CUDA traces); metric locations are skipped;
// - communicators: every Comm whose group belongs to the MPI paradigm; COMM_GROUP members are
//   indices into the COMM_LOCATIONS group, i.e. global ranks; COMM_SELF groups become self comms;
// - regions: all of them, classified by name (MPI_*) unless the paradigm is the measurement
//   system; names are kept verbatim (demangled C++ signatures with commas, templates, operators);
// - Cartesian topologies: dimensions, topologies and coordinates as they are, with the communicator
//   they refer to: an MPI one, or (Score-P's "Process x Thread" topology) a communicator over
//   locations of another paradigm, kept as a LocationComm so that the writer can write it back.
#include "otf2_definitions.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <unordered_map>

#include "wisp/error.hpp"

namespace wisp::io {

namespace {

struct RawGroup {
  OTF2_StringRef name = OTF2_UNDEFINED_STRING;
  OTF2_GroupType type = OTF2_GROUP_TYPE_UNKNOWN;
  OTF2_Paradigm paradigm = OTF2_PARADIGM_UNKNOWN;
  std::vector<std::uint64_t> members;
  bool defined = false;
};
struct RawComm {
  OTF2_StringRef name = OTF2_UNDEFINED_STRING;
  OTF2_GroupRef group = OTF2_UNDEFINED_GROUP;
  OTF2_CommRef parent = OTF2_UNDEFINED_COMM;
  bool defined = false;
  OTF2_CommFlag flags = OTF2_COMM_FLAG_NONE;
};
struct RawLocation {
  OTF2_LocationRef id;
  OTF2_StringRef name;
  OTF2_LocationType type;
  std::uint64_t events;
  OTF2_LocationGroupRef group;
};
struct RawLocationGroup {
  OTF2_StringRef name = OTF2_UNDEFINED_STRING;
  OTF2_LocationGroupType type = OTF2_LOCATION_GROUP_TYPE_UNKNOWN;
  OTF2_SystemTreeNodeRef node = OTF2_UNDEFINED_SYSTEM_TREE_NODE;
};
struct RawRegion {
  OTF2_StringRef name, canonical, file;
  OTF2_RegionRole role;
  OTF2_Paradigm paradigm;
  std::uint32_t begin, end;
  bool defined = false;
};

struct RawCartTopology {
  OTF2_StringRef name = OTF2_UNDEFINED_STRING;
  OTF2_CommRef comm = OTF2_UNDEFINED_COMM;
  std::vector<OTF2_CartDimensionRef> dimensions;
  bool defined = false;
};
struct RawCartCoordinate {
  OTF2_CartTopologyRef topology;
  std::uint32_t rank;
  std::vector<std::uint32_t> coordinates;
};

struct RawMetricMember {
  MetricMember member;
  bool defined = false;
};
struct RawMetricClass {
  MetricClass metric_class;
  bool defined = false;
  bool instance = false;  // a MetricInstance: metric_class.instance_of is its class's OTF2 ref
};

struct RawRmaWin {
  OTF2_StringRef name = OTF2_UNDEFINED_STRING;
  OTF2_CommRef comm = OTF2_UNDEFINED_COMM;
  OTF2_RmaWinFlag flags = 0;
  bool defined = false;
};

struct RawAttribute {
  AttributeDef def;
  bool defined = false;
};

struct RawDefinitions {
  bool have_clock = false;
  Clock clock;
  std::vector<std::string> strings;
  std::vector<OTF2_StringRef> node_name;
  std::vector<RawLocationGroup> location_groups;
  std::vector<RawLocation> locations;
  std::vector<RawRegion> regions;
  std::vector<RawGroup> groups;
  std::vector<RawComm> comms;
  std::uint64_t inter_comms = 0;
  std::vector<CartDimension> cart_dimensions;
  std::vector<bool> cart_dimension_defined;
  std::vector<RawCartTopology> cart_topologies;
  std::vector<RawCartCoordinate> cart_coordinates;
  std::vector<RawMetricMember> metric_members;
  std::vector<RawMetricClass> metric_classes;  // by OTF2 metric ref (shared with metric instances)
  std::vector<std::pair<OTF2_MetricRef, OTF2_LocationRef>> metric_class_recorders;
  std::vector<RawRmaWin> rma_windows;
  std::vector<RawAttribute> attributes;
  std::uint64_t records = 0;  // definition records read so far
  std::string error;          // set by a callback that interrupted the reading
};

RawDefinitions& raw(void* user) { return *static_cast<RawDefinitions*>(user); }

// Definition ids index dense tables. Writers number each kind 0, 1, 2, ...; an id far beyond the
// records read so far is corruption, refused before it becomes a huge allocation.
constexpr std::uint64_t kIdSlack = 1 << 16;

template <typename T>
T* slot(void* user, std::vector<T>& v, std::uint64_t id, const char* kind) {
  RawDefinitions& r = raw(user);
  ++r.records;
  if (id >= v.size()) {
    if (id > kIdSlack + 16 * r.records) {
      r.error = fmt::format("{} definition id {} is out of range after {} definition records (corrupt file?)", kind, id,
                            r.records);
      return nullptr;
    }
    v.resize(id + 1);
  }
  return &v[id];
}

// Strings precede the records that use them (OTF2 writes them first).
std::string text_of(const RawDefinitions& r, OTF2_StringRef s) {
  return s < r.strings.size() ? r.strings[s] : std::string();
}

OTF2_CallbackCode on_clock(void* u, uint64_t resolution, uint64_t offset, uint64_t length, uint64_t) {
  raw(u).clock = Clock{resolution, offset, length};
  raw(u).have_clock = true;
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode on_string(void* u, OTF2_StringRef self, const char* s) {
  auto* x = slot(u, raw(u).strings, self, "string");
  if (!x) return OTF2_CALLBACK_INTERRUPT;
  *x = s ? s : "";
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode on_node(void* u, OTF2_SystemTreeNodeRef self, OTF2_StringRef name, OTF2_StringRef,
                          OTF2_SystemTreeNodeRef) {
  auto* x = slot(u, raw(u).node_name, self, "system tree node");
  if (!x) return OTF2_CALLBACK_INTERRUPT;
  *x = name;
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode on_location_group(void* u, OTF2_LocationGroupRef self, OTF2_StringRef name,
                                    OTF2_LocationGroupType type, OTF2_SystemTreeNodeRef node, OTF2_LocationGroupRef) {
  auto* x = slot(u, raw(u).location_groups, self, "location group");
  if (!x) return OTF2_CALLBACK_INTERRUPT;
  *x = RawLocationGroup{name, type, node};
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode on_location(void* u, OTF2_LocationRef self, OTF2_StringRef name, OTF2_LocationType type,
                              uint64_t events, OTF2_LocationGroupRef group) {
  raw(u).locations.push_back(RawLocation{self, name, type, events, group});
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode on_region(void* u, OTF2_RegionRef self, OTF2_StringRef name, OTF2_StringRef canonical, OTF2_StringRef,
                            OTF2_RegionRole role, OTF2_Paradigm paradigm, OTF2_RegionFlag, OTF2_StringRef file,
                            uint32_t begin, uint32_t end) {
  auto* x = slot(u, raw(u).regions, self, "region");
  if (!x) return OTF2_CALLBACK_INTERRUPT;
  *x = RawRegion{name, canonical, file, role, paradigm, begin, end, true};
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode on_group(void* u, OTF2_GroupRef self, OTF2_StringRef name, OTF2_GroupType type,
                           OTF2_Paradigm paradigm, OTF2_GroupFlag, uint32_t n, const uint64_t* members) {
  auto* x = slot(u, raw(u).groups, self, "group");
  if (!x) return OTF2_CALLBACK_INTERRUPT;
  *x = RawGroup{name, type, paradigm, std::vector<std::uint64_t>(members, members + n), true};
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode on_comm(void* u, OTF2_CommRef self, OTF2_StringRef name, OTF2_GroupRef group, OTF2_CommRef parent,
                          OTF2_CommFlag flags) {
  auto* x = slot(u, raw(u).comms, self, "communicator");
  if (!x) return OTF2_CALLBACK_INTERRUPT;
  *x = RawComm{name, group, parent, true, flags};
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode on_inter_comm(void* u, OTF2_CommRef, OTF2_StringRef, OTF2_GroupRef, OTF2_GroupRef, OTF2_CommRef,
                                OTF2_CommFlag) {
  ++raw(u).inter_comms;
  return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode on_cart_dimension(void* u, OTF2_CartDimensionRef self, OTF2_StringRef name, uint32_t size,
                                    OTF2_CartPeriodicity periodicity) {
  RawDefinitions& r = raw(u);
  auto* x = slot(u, r.cart_dimensions, self, "cartesian dimension");
  if (!x) return OTF2_CALLBACK_INTERRUPT;
  *x = CartDimension{text_of(r, name), size, periodicity == OTF2_CART_PERIODIC_TRUE};
  r.cart_dimension_defined.resize(r.cart_dimensions.size());
  r.cart_dimension_defined[self] = true;
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode on_cart_topology(void* u, OTF2_CartTopologyRef self, OTF2_StringRef name, OTF2_CommRef comm,
                                   uint8_t n, const OTF2_CartDimensionRef* dimensions) {
  auto* x = slot(u, raw(u).cart_topologies, self, "cartesian topology");
  if (!x) return OTF2_CALLBACK_INTERRUPT;
  *x = RawCartTopology{name, comm, std::vector<OTF2_CartDimensionRef>(dimensions, dimensions + n), true};
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode on_cart_coordinate(void* u, OTF2_CartTopologyRef topology, uint32_t rank, uint8_t n,
                                     const uint32_t* coordinates) {
  ++raw(u).records;
  raw(u).cart_coordinates.push_back({topology, rank, std::vector<std::uint32_t>(coordinates, coordinates + n)});
  return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode on_metric_member(void* u, OTF2_MetricMemberRef self, OTF2_StringRef name, OTF2_StringRef description,
                                   OTF2_MetricType type, OTF2_MetricMode mode, OTF2_Type value_type, OTF2_Base base,
                                   int64_t exponent, OTF2_StringRef unit) {
  RawDefinitions& r = raw(u);
  auto* x = slot(u, r.metric_members, self, "metric member");
  if (!x) return OTF2_CALLBACK_INTERRUPT;
  *x = RawMetricMember{
      MetricMember{text_of(r, name), text_of(r, description), text_of(r, unit), type, mode, value_type, base, exponent},
      true};
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode on_metric_class(void* u, OTF2_MetricRef self, uint8_t n, const OTF2_MetricMemberRef* members,
                                  OTF2_MetricOccurrence occurrence, OTF2_RecorderKind recorder_kind) {
  auto* x = slot(u, raw(u).metric_classes, self, "metric class");
  if (!x) return OTF2_CALLBACK_INTERRUPT;
  x->metric_class.members.assign(members, members + n);
  x->metric_class.occurrence = occurrence;
  x->metric_class.recorder_kind = recorder_kind;
  x->defined = true;
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode on_rma_win(void* u, OTF2_RmaWinRef self, OTF2_StringRef name, OTF2_CommRef comm,
                             OTF2_RmaWinFlag flags) {
  auto* x = slot(u, raw(u).rma_windows, self, "RMA window");
  if (!x) return OTF2_CALLBACK_INTERRUPT;
  *x = RawRmaWin{name, comm, flags, true};
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode on_attribute(void* u, OTF2_AttributeRef self, OTF2_StringRef name, OTF2_StringRef description,
                               OTF2_Type type) {
  RawDefinitions& r = raw(u);
  auto* x = slot(u, r.attributes, self, "attribute");
  if (!x) return OTF2_CALLBACK_INTERRUPT;
  *x = RawAttribute{AttributeDef{text_of(r, name), text_of(r, description), type}, true};
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode on_metric_instance(void* u, OTF2_MetricRef self, OTF2_MetricRef metric_class,
                                     OTF2_LocationRef recorder, OTF2_MetricScope scope_kind, uint64_t scope) {
  auto* x = slot(u, raw(u).metric_classes, self, "metric instance");
  if (!x) return OTF2_CALLBACK_INTERRUPT;
  x->metric_class.instance_of = metric_class;
  x->metric_class.recorder = recorder;
  x->metric_class.scope_kind = scope_kind;
  x->metric_class.scope = scope;
  x->defined = x->instance = true;
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode on_metric_class_recorder(void* u, OTF2_MetricRef metric, OTF2_LocationRef recorder) {
  raw(u).metric_class_recorders.emplace_back(metric, recorder);
  return OTF2_CALLBACK_SUCCESS;
}

RawDefinitions read_raw(OTF2_Reader* reader, const std::string& where, const Otf2ErrorScope& scope) {
  RawDefinitions r;
  OTF2_GlobalDefReader* defs = OTF2_Reader_GetGlobalDefReader(reader);
  if (!defs) check_otf2(OTF2_ERROR_FILE_INTERACTION, where + ": cannot open global definitions", scope);
  OTF2_GlobalDefReaderCallbacks* cb = OTF2_GlobalDefReaderCallbacks_New();
  OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(cb, on_clock);
  OTF2_GlobalDefReaderCallbacks_SetStringCallback(cb, on_string);
  OTF2_GlobalDefReaderCallbacks_SetSystemTreeNodeCallback(cb, on_node);
  OTF2_GlobalDefReaderCallbacks_SetLocationGroupCallback(cb, on_location_group);
  OTF2_GlobalDefReaderCallbacks_SetLocationCallback(cb, on_location);
  OTF2_GlobalDefReaderCallbacks_SetRegionCallback(cb, on_region);
  OTF2_GlobalDefReaderCallbacks_SetGroupCallback(cb, on_group);
  OTF2_GlobalDefReaderCallbacks_SetCommCallback(cb, on_comm);
  OTF2_GlobalDefReaderCallbacks_SetInterCommCallback(cb, on_inter_comm);
  OTF2_GlobalDefReaderCallbacks_SetCartDimensionCallback(cb, on_cart_dimension);
  OTF2_GlobalDefReaderCallbacks_SetCartTopologyCallback(cb, on_cart_topology);
  OTF2_GlobalDefReaderCallbacks_SetCartCoordinateCallback(cb, on_cart_coordinate);
  OTF2_GlobalDefReaderCallbacks_SetMetricMemberCallback(cb, on_metric_member);
  OTF2_GlobalDefReaderCallbacks_SetRmaWinCallback(cb, on_rma_win);
  OTF2_GlobalDefReaderCallbacks_SetMetricClassCallback(cb, on_metric_class);
  OTF2_GlobalDefReaderCallbacks_SetMetricInstanceCallback(cb, on_metric_instance);
  OTF2_GlobalDefReaderCallbacks_SetAttributeCallback(cb, on_attribute);
  OTF2_GlobalDefReaderCallbacks_SetMetricClassRecorderCallback(cb, on_metric_class_recorder);
  OTF2_Reader_RegisterGlobalDefCallbacks(reader, defs, cb, &r);
  OTF2_GlobalDefReaderCallbacks_Delete(cb);
  uint64_t count = 0;
  const OTF2_ErrorCode status = OTF2_Reader_ReadAllGlobalDefinitions(reader, defs, &count);
  if (!r.error.empty()) {
    OTF2_Reader_CloseGlobalDefReader(reader, defs);
    throw Error(where + ": " + r.error);
  }
  check_otf2(status, where + ": corrupt or truncated global definitions", scope);
  OTF2_Reader_CloseGlobalDefReader(reader, defs);
  return r;
}

const std::string& text(const RawDefinitions& r, OTF2_StringRef s) {
  static const std::string empty;
  return s < r.strings.size() ? r.strings[s] : empty;
}

// Index of the MPI paradigm's COMM_LOCATIONS group (the ranks of MPI_COMM_WORLD).
std::uint64_t find_mpi_locations(const RawDefinitions& r, const std::string& where) {
  for (std::uint64_t g = 0; g < r.groups.size(); ++g)
    if (r.groups[g].defined && r.groups[g].type == OTF2_GROUP_TYPE_COMM_LOCATIONS &&
        r.groups[g].paradigm == OTF2_PARADIGM_MPI)
      return g;
  throw Error(where + ": no MPI communicator is defined (not a trace of an MPI program)");
}

// Every CPU thread and accelerator stream that is not a rank's master joins the rank whose master
// shares its location group; others (metric locations, groups without a rank) are skipped.
void attach_other_locations(const RawDefinitions& r, ArchiveDefinitions& out,
                            const std::unordered_map<OTF2_LocationGroupRef, Rank>& rank_of_group) {
  std::unordered_map<std::uint64_t, bool> is_master;
  for (std::uint64_t id : out.rank_location) is_master[id] = true;
  for (const auto& loc : r.locations) {
    if (is_master.count(loc.id)) continue;
    const auto rank = rank_of_group.find(loc.group);
    const bool thread = loc.type == OTF2_LOCATION_TYPE_CPU_THREAD;
    if (loc.type == OTF2_LOCATION_TYPE_METRIC && rank != rank_of_group.end()) {
      out.defs.ranks[rank->second].metric_locations.push_back(MetricLocation{text(r, loc.name), loc.id, loc.events});
      continue;
    }
    if (!thread && loc.type != OTF2_LOCATION_TYPE_ACCELERATOR_STREAM) {
      ++out.skipped[loc.type == OTF2_LOCATION_TYPE_METRIC ? "location (metric)" : "location (unknown type)"];
      continue;
    }
    if (rank == rank_of_group.end()) {  // an anomaly: counted and reported, its events not read
      out.stray_locations.push_back(
          fmt::format("{} '{}' (location {})", thread ? "thread" : "stream", text(r, loc.name), loc.id));
      continue;
    }
    ThreadLocation t;
    t.name = text(r, loc.name);
    t.kind = thread ? LocationKind::CpuThread : LocationKind::AcceleratorStream;
    t.otf2_id = loc.id;
    t.declared_events = loc.events;
    out.defs.ranks[rank->second].others.push_back(std::move(t));
  }
}

void convert_ranks(const RawDefinitions& r, const RawGroup& world_locations, const std::string& where,
                   ArchiveDefinitions& out) {
  std::unordered_map<std::uint64_t, const RawLocation*> by_id;
  for (const auto& loc : r.locations) by_id[loc.id] = &loc;
  std::unordered_map<OTF2_LocationGroupRef, Rank> rank_of_group;
  for (std::uint64_t id : world_locations.members) {
    const auto it = by_id.find(id);
    if (it == by_id.end())
      throw Error(fmt::format("{}: MPI rank {} refers to undefined location {}", where, out.defs.ranks.size(), id));
    const RawLocation& loc = *it->second;
    Location l;
    l.name = text(r, loc.name);
    l.otf2_id = loc.id;
    if (loc.group < r.location_groups.size()) {
      const auto& g = r.location_groups[loc.group];
      l.group_name = text(r, g.name);
      if (g.node < r.node_name.size()) l.node = text(r, r.node_name[g.node]);
    }
    if (loc.type != OTF2_LOCATION_TYPE_CPU_THREAD)
      throw Error(
          fmt::format("{}: MPI rank {} is location '{}', not a CPU thread", where, out.defs.ranks.size(), l.name));
    if (!rank_of_group.emplace(loc.group, static_cast<Rank>(out.defs.ranks.size())).second)
      throw Error(fmt::format("{}: MPI ranks {} and {} share the location group '{}'", where,
                              rank_of_group.at(loc.group), out.defs.ranks.size(), l.group_name));
    out.defs.ranks.push_back(std::move(l));
    out.rank_location.push_back(loc.id);
    out.declared_events.push_back(loc.events);
  }
  if (out.defs.ranks.empty()) throw Error(where + ": the MPI communicator has no ranks");
  attach_other_locations(r, out, rank_of_group);
}

void convert_comms(const RawDefinitions& r, const std::string& where, ArchiveDefinitions& out) {
  const auto rank_count = static_cast<std::uint64_t>(out.defs.ranks.size());
  out.comm.assign(r.comms.size(), kNone);
  for (std::uint64_t c = 0; c < r.comms.size(); ++c) {
    const RawComm& rc = r.comms[c];
    if (!rc.defined || rc.group >= r.groups.size()) continue;
    const RawGroup& g = r.groups[rc.group];
    if (g.paradigm != OTF2_PARADIGM_MPI) continue;
    Communicator comm;
    comm.name = text(r, rc.name);
    comm.create_destroy_events = (rc.flags & OTF2_COMM_FLAG_CREATE_DESTROY_EVENTS) != 0;
    if (g.type == OTF2_GROUP_TYPE_COMM_SELF) {
      comm.self = true;
    } else if (g.type == OTF2_GROUP_TYPE_COMM_GROUP) {
      for (std::uint64_t m : g.members) {
        if (m >= rank_count)
          throw Error(fmt::format("{}: communicator '{}' lists rank {} of {}", where, comm.name, m, rank_count));
        comm.members.push_back(static_cast<Rank>(m));
      }
    } else {
      continue;
    }
    if (comm.name.empty()) comm.name = fmt::format("Comm {}", c);
    out.comm[c] = out.defs.add_comm(std::move(comm));
  }
  for (std::uint64_t c = 0; c < r.comms.size(); ++c)  // parents, once all ids are known
    if (out.comm[c] != kNone && r.comms[c].parent < out.comm.size())
      out.defs.comms[out.comm[c]].parent = out.comm[r.comms[c].parent];
  if (out.defs.comms.empty()) throw Error(where + ": no MPI communicator is defined");
  auto& comms = out.defs.comms;
  for (CommId c = 0; c < comms.size() && out.defs.world == kNone; ++c)
    if (comms[c].name == "MPI_COMM_WORLD") out.defs.world = c;
  for (CommId c = 0; c < comms.size() && out.defs.world == kNone; ++c)
    if (!comms[c].self && comms[c].members.size() == rank_count) out.defs.world = c;
  // No communicator of all ranks (Score-P 1.x defines only the communicators a run used, e.g. the
  // self-like ones of a one-rank run, or the halves of a split): the world is implied by the MPI
  // locations group that defines the ranks. No record refers to it.
  if (out.defs.world == kNone) {
    std::vector<Rank> all(rank_count);
    for (Rank i = 0; i < rank_count; ++i) all[i] = i;
    out.defs.world = out.defs.add_comm(Communicator{"MPI_COMM_WORLD (implied)", all, false, kNone, false});
  }
  if (r.inter_comms) out.skipped["InterComm definition"] = r.inter_comms;
}

// Accelerator paradigms: their communicators (a rank's master and its streams) are kept as teams
// for the RMA windows of old Score-P CUDA traces.
bool is_accelerator(OTF2_Paradigm p) {
  return p == OTF2_PARADIGM_CUDA || p == OTF2_PARADIGM_OPENCL || p == OTF2_PARADIGM_HIP;
}

bool is_threading(OTF2_Paradigm p) {
  return p == OTF2_PARADIGM_OPENMP || p == OTF2_PARADIGM_PTHREAD || p == OTF2_PARADIGM_OMPSS ||
         p == OTF2_PARADIGM_WINTHREAD || p == OTF2_PARADIGM_QTTHREAD || p == OTF2_PARADIGM_TBBTHREAD;
}

// Thread teams: communicators whose COMM_GROUP belongs to a threading paradigm; their members index
// that paradigm's COMM_LOCATIONS group. A team whose locations are not all of one rank is skipped
// (counted); its records then count as skipped too.
void convert_teams(const RawDefinitions& r, ArchiveDefinitions& out) {
  std::unordered_map<std::uint64_t, std::pair<Rank, std::uint32_t>> member_of;  // location -> (rank, index)
  for (Rank k = 0; k < out.defs.ranks.size(); ++k) {
    member_of[out.rank_location[k]] = {k, 0};
    for (std::uint32_t o = 0; o < out.defs.ranks[k].others.size(); ++o)
      member_of[out.defs.ranks[k].others[o].otf2_id] = {k, o + 1};
  }
  out.team.assign(r.comms.size(), kNone);
  for (std::uint64_t c = 0; c < r.comms.size(); ++c) {
    if (!r.comms[c].defined || r.comms[c].group >= r.groups.size()) continue;
    const RawGroup& g = r.groups[r.comms[c].group];
    if (!(is_threading(g.paradigm) || is_accelerator(g.paradigm)) || g.type != OTF2_GROUP_TYPE_COMM_GROUP) continue;
    const RawGroup* locations = nullptr;
    for (const RawGroup& l : r.groups)
      if (l.defined && l.type == OTF2_GROUP_TYPE_COMM_LOCATIONS && l.paradigm == g.paradigm) locations = &l;
    ThreadTeam team;
    team.paradigm = static_cast<std::uint8_t>(g.paradigm);
    team.accelerator = is_accelerator(g.paradigm);
    bool one_rank = locations != nullptr;
    for (std::uint64_t m : g.members) {
      const auto it =
          locations && m < locations->members.size() ? member_of.find(locations->members[m]) : member_of.end();
      if (it == member_of.end() || (team.rank != kNone && it->second.first != team.rank)) {
        one_rank = false;
        break;
      }
      team.rank = it->second.first;
      team.members.push_back(it->second.second);
    }
    if (!one_rank || team.members.empty()) {
      ++out.skipped["thread team across processes (definition)"];
      continue;
    }
    out.team[c] = static_cast<std::uint32_t>(out.defs.thread_teams.size());
    out.defs.thread_teams.push_back(std::move(team));
  }
}

void convert_regions(const RawDefinitions& r, ArchiveDefinitions& out) {
  out.region.assign(r.regions.size(), kNone);
  for (std::uint64_t i = 0; i < r.regions.size(); ++i) {
    const RawRegion& rr = r.regions[i];
    if (!rr.defined) continue;
    Region region = make_region(text(r, rr.name));
    region.canonical_name = text(r, rr.canonical);
    region.file = text(r, rr.file);
    region.begin_line = rr.begin;
    region.end_line = rr.end;
    region.otf2_role = static_cast<std::uint8_t>(rr.role);
    region.otf2_paradigm = static_cast<std::uint8_t>(rr.paradigm);
    if (rr.paradigm == OTF2_PARADIGM_MEASUREMENT_SYSTEM || rr.role == OTF2_REGION_ROLE_ARTIFICIAL) {
      region.kind = RegionKind::Measurement;
      region.mpi = MpiFunction::None;
    } else if (rr.paradigm != OTF2_PARADIGM_MPI && rr.paradigm != OTF2_PARADIGM_UNKNOWN) {
      region.kind = RegionKind::User;  // a user function that happens to be called MPI_something
      region.mpi = MpiFunction::None;
    }
    out.region[i] = out.defs.add_region(std::move(region));
  }
}

// Where each location is: (rank, 0) for a master thread, (rank, k) for its others[k - 1].
std::unordered_map<std::uint64_t, LocationRef> location_refs(const ArchiveDefinitions& out) {
  std::unordered_map<std::uint64_t, LocationRef> at;
  for (Rank k = 0; k < out.defs.ranks.size(); ++k) {
    at[out.rank_location[k]] = {k, 0};
    for (std::uint32_t o = 0; o < out.defs.ranks[k].others.size(); ++o)
      at[out.defs.ranks[k].others[o].otf2_id] = {k, o + 1};
  }
  return at;
}

// The communicator of a non-MPI, non-threading COMM_GROUP over locations (its members index the
// paradigm's COMM_LOCATIONS group), or nothing if one of its locations is not a rank's.
std::optional<LocationComm> location_comm(const RawDefinitions& r, const RawComm& rc,
                                          const std::unordered_map<std::uint64_t, LocationRef>& at) {
  if (rc.group >= r.groups.size()) return std::nullopt;
  const RawGroup& g = r.groups[rc.group];
  if (!g.defined || g.type != OTF2_GROUP_TYPE_COMM_GROUP || g.paradigm == OTF2_PARADIGM_MPI ||
      is_threading(g.paradigm) || is_accelerator(g.paradigm))
    return std::nullopt;
  const RawGroup* locations = nullptr;
  for (const RawGroup& l : r.groups)
    if (l.defined && l.type == OTF2_GROUP_TYPE_COMM_LOCATIONS && l.paradigm == g.paradigm) locations = &l;
  if (!locations) return std::nullopt;
  LocationComm comm{
      text(r, rc.name), text(r, g.name), text(r, locations->name), static_cast<std::uint8_t>(g.paradigm), {}};
  for (std::uint64_t m : g.members) {
    const auto it = m < locations->members.size() ? at.find(locations->members[m]) : at.end();
    if (it == at.end()) return std::nullopt;
    comm.members.push_back(it->second);
  }
  return comm;
}

// A topology's communicator in the model: an MPI communicator, or a LocationComm added once.
std::optional<std::pair<bool, std::uint32_t>> topology_comm(const RawDefinitions& r, OTF2_CommRef c,
                                                            ArchiveDefinitions& out,
                                                            std::unordered_map<OTF2_CommRef, std::uint32_t>& kept) {
  if (c < out.comm.size() && out.comm[c] != kNone) return std::make_pair(false, out.comm[c]);
  if (const auto it = kept.find(c); it != kept.end()) return std::make_pair(true, it->second);
  if (c >= r.comms.size() || !r.comms[c].defined) return std::nullopt;
  std::optional<LocationComm> comm = location_comm(r, r.comms[c], location_refs(out));
  if (!comm) return std::nullopt;
  const auto index = static_cast<std::uint32_t>(out.defs.location_comms.size());
  out.defs.location_comms.push_back(std::move(*comm));
  kept[c] = index;
  return std::make_pair(true, index);
}

// Cartesian topologies whose communicator and dimensions are known, and their coordinates; the
// rest are counted as skipped.
void convert_cartesian(const RawDefinitions& r, ArchiveDefinitions& out) {
  out.defs.cart_dimensions = r.cart_dimensions;
  std::unordered_map<OTF2_CommRef, std::uint32_t> kept;
  std::vector<std::uint32_t> topology(r.cart_topologies.size(), kNone);
  for (std::size_t t = 0; t < r.cart_topologies.size(); ++t) {
    const RawCartTopology& raw_topology = r.cart_topologies[t];
    if (!raw_topology.defined) continue;
    const bool dimensions_known =
        std::all_of(raw_topology.dimensions.begin(), raw_topology.dimensions.end(),
                    [&](auto d) { return d < r.cart_dimension_defined.size() && r.cart_dimension_defined[d]; });
    const auto comm = dimensions_known ? topology_comm(r, raw_topology.comm, out, kept) : std::nullopt;
    if (!comm) {
      ++out.skipped["CartTopology definition (unknown communicator or dimension)"];
      continue;
    }
    topology[t] = static_cast<std::uint32_t>(out.defs.cart_topologies.size());
    out.defs.cart_topologies.push_back(
        {text(r, raw_topology.name), comm->first, comm->second,
         std::vector<std::uint32_t>(raw_topology.dimensions.begin(), raw_topology.dimensions.end())});
  }
  for (const RawCartCoordinate& c : r.cart_coordinates) {
    const std::uint32_t t = c.topology < topology.size() ? topology[c.topology] : kNone;
    if (t == kNone || c.coordinates.size() != out.defs.cart_topologies[t].dimensions.size()) {
      ++out.skipped["CartCoordinate definition (unknown topology or wrong dimensions)"];
      continue;
    }
    out.defs.cart_coordinates.push_back({t, c.rank, c.coordinates});
  }
}

std::string_view paradigm_name(OTF2_Paradigm p) {
  switch (p) {
    case OTF2_PARADIGM_MPI:
      return "MPI";
    case OTF2_PARADIGM_OPENMP:
      return "OpenMP";
    case OTF2_PARADIGM_PTHREAD:
      return "pthreads";
    case OTF2_PARADIGM_CUDA:
      return "CUDA";
    case OTF2_PARADIGM_OPENCL:
      return "OpenCL";
    case OTF2_PARADIGM_OPENACC:
      return "OpenACC";
    case OTF2_PARADIGM_HIP:
      return "HIP";
    case OTF2_PARADIGM_SHMEM:
      return "SHMEM";
    case OTF2_PARADIGM_KOKKOS:
      return "Kokkos";
    default:
      return "";  // user code, compiler instrumentation, the measurement system, ...
  }
}

// The programming models the archive's regions and groups belong to, in OTF2's paradigm order.
std::vector<std::string> paradigms_of(const RawDefinitions& r) {
  std::vector<bool> seen(OTF2_PARADIGM_KOKKOS + 1, false);
  for (const RawRegion& region : r.regions)
    if (region.defined && region.paradigm < seen.size()) seen[region.paradigm] = true;
  for (const RawGroup& group : r.groups)
    if (group.defined && group.paradigm < seen.size()) seen[group.paradigm] = true;
  std::vector<std::string> out;
  for (std::size_t p = 0; p < seen.size(); ++p)
    if (std::string_view name = paradigm_name(static_cast<OTF2_Paradigm>(p)); seen[p] && !name.empty())
      out.emplace_back(name);
  return out;
}

// The rank of each OTF2 location group that holds one.
std::unordered_map<std::uint64_t, Rank> rank_of_location_group(const RawDefinitions& r, const ArchiveDefinitions& out) {
  std::unordered_map<std::uint64_t, Rank> rank_of_location;
  for (Rank rank = 0; rank < out.rank_location.size(); ++rank) rank_of_location[out.rank_location[rank]] = rank;
  std::unordered_map<std::uint64_t, Rank> out_map;
  for (const RawLocation& loc : r.locations)
    if (const auto it = rank_of_location.find(loc.id); it != rank_of_location.end()) out_map[loc.group] = it->second;
  return out_map;
}

// Metric instances (after the classes): the class's members and kinds, where it is recorded; one
// whose class is unknown or whose scope is a system tree node or group is counted as skipped.
void convert_metric_instances(const RawDefinitions& r, ArchiveDefinitions& out) {
  const auto rank_of_group = rank_of_location_group(r, out);
  for (std::size_t c = 0; c < r.metric_classes.size(); ++c) {
    if (!r.metric_classes[c].defined || !r.metric_classes[c].instance) continue;
    MetricClass k = r.metric_classes[c].metric_class;
    const std::uint64_t of = k.instance_of;
    const bool known = of < out.metric_class.size() && out.metric_class[of] != kNone &&
                       !out.defs.metric_classes[out.metric_class[of]].is_instance();
    if (k.scope_kind == OTF2_SCOPE_LOCATION_GROUP) {
      const auto it = rank_of_group.find(k.scope);
      k.scope = it != rank_of_group.end() ? it->second : kNone;
    }
    if (!known || (k.scope_kind != OTF2_SCOPE_LOCATION && k.scope_kind != OTF2_SCOPE_LOCATION_GROUP) ||
        k.scope == kNone) {
      ++out.skipped["MetricInstance definition (unknown class, or a node or group scope)"];
      continue;
    }
    const MetricClass& of_class = out.defs.metric_classes[out.metric_class[of]];
    k.instance_of = out.metric_class[of];
    k.members = of_class.members, k.occurrence = of_class.occurrence, k.recorder_kind = of_class.recorder_kind;
    out.metric_class[c] = static_cast<std::uint32_t>(out.defs.metric_classes.size());
    out.defs.metric_classes.push_back(std::move(k));
  }
  for (const auto& [metric, location] : r.metric_class_recorders) {
    if (metric < out.metric_class.size() && out.metric_class[metric] != kNone)
      out.defs.metric_recorders.push_back({out.metric_class[metric], location});
    else
      ++out.skipped["MetricClassRecorder definition (unknown class)"];
  }
}

// Metric members and classes, renumbered densely; a class naming an undefined member is counted as
// skipped (its events then too). Then the instances and recorders.
void convert_metrics(const RawDefinitions& r, ArchiveDefinitions& out) {
  std::vector<std::uint32_t> member(r.metric_members.size(), kNone);
  for (std::size_t m = 0; m < r.metric_members.size(); ++m) {
    if (!r.metric_members[m].defined) continue;
    member[m] = static_cast<std::uint32_t>(out.defs.metric_members.size());
    out.defs.metric_members.push_back(r.metric_members[m].member);
  }
  out.metric_class.assign(r.metric_classes.size(), kNone);
  for (std::size_t c = 0; c < r.metric_classes.size(); ++c) {
    if (!r.metric_classes[c].defined || r.metric_classes[c].instance) continue;
    MetricClass k = r.metric_classes[c].metric_class;
    bool known = true;
    for (std::uint32_t& m : k.members) {
      known = known && m < member.size() && member[m] != kNone;
      if (known) m = member[m];
    }
    if (!known) {
      ++out.skipped["MetricClass definition (unknown member)"];
      continue;
    }
    out.metric_class[c] = static_cast<std::uint32_t>(out.defs.metric_classes.size());
    out.defs.metric_classes.push_back(std::move(k));
  }
  convert_metric_instances(r, out);
}

// RMA windows on an MPI communicator or a kept team; others are counted as skipped.
void convert_rma_windows(const RawDefinitions& r, ArchiveDefinitions& out) {
  out.rma_window.assign(r.rma_windows.size(), kNone);
  for (std::size_t w = 0; w < r.rma_windows.size(); ++w) {
    const RawRmaWin& raw_win = r.rma_windows[w];
    if (!raw_win.defined) continue;
    RmaWindow win{text(r, raw_win.name), kNone, false, raw_win.flags};
    if (raw_win.comm < out.comm.size() && out.comm[raw_win.comm] != kNone) {
      win.comm = out.comm[raw_win.comm];
    } else if (raw_win.comm < out.team.size() && out.team[raw_win.comm] != kNone) {
      win.comm = out.team[raw_win.comm], win.on_team = true;
    } else {
      ++out.skipped["RmaWin definition (unknown communicator)"];
      continue;
    }
    out.rma_window[w] = static_cast<std::uint32_t>(out.defs.rma_windows.size());
    out.defs.rma_windows.push_back(std::move(win));
  }
}

// Attributes, renumbered densely.
void convert_attributes(const RawDefinitions& r, ArchiveDefinitions& out) {
  out.attribute.assign(r.attributes.size(), kNone);
  for (std::size_t a = 0; a < r.attributes.size(); ++a) {
    if (!r.attributes[a].defined) continue;
    out.attribute[a] = static_cast<std::uint32_t>(out.defs.attributes.size());
    out.defs.attributes.push_back(r.attributes[a].def);
  }
}

}  // namespace

ArchiveDefinitions read_global_definitions(OTF2_Reader* reader, const std::string& where, const Otf2ErrorScope& scope) {
  RawDefinitions r = read_raw(reader, where, scope);
  if (!r.have_clock) throw Error(where + ": the definitions lack the ClockProperties record");
  if (r.clock.ticks_per_second == 0) throw Error(where + ": clock resolution is 0 ticks/s");
  ArchiveDefinitions out;
  out.defs.clock = r.clock;
  const RawGroup& world_locations = r.groups[find_mpi_locations(r, where)];
  convert_ranks(r, world_locations, where, out);
  convert_comms(r, where, out);
  convert_teams(r, out);
  convert_regions(r, out);
  convert_cartesian(r, out);
  convert_metrics(r, out);
  convert_rma_windows(r, out);
  convert_attributes(r, out);
  out.defs.paradigms = paradigms_of(r);
  out.strings = std::move(r.strings);
  return out;
}

}  // namespace wisp::io
