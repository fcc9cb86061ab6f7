// Cartesian topologies -> OTF2 definitions. See otf2_cartesian_writer.hpp.
#include "otf2_cartesian_writer.hpp"

#include <algorithm>
#include <map>

namespace wisp::io {

namespace {

bool exists(const LocationRef& l, const RankLocationIds& ids) {
  return l.rank < ids.size() && l.index < ids[l.rank].size();
}

bool writable(const LocationComm& c, const RankLocationIds& ids) {
  return std::all_of(c.members.begin(), c.members.end(), [&](const LocationRef& l) { return exists(l, ids); });
}

// Per paradigm one COMM_LOCATIONS group of the communicators' locations, then per communicator its
// COMM_GROUP (indices into that group) and the communicator. comm_id[k]: the id of location_comms[k]
// (OTF2_UNDEFINED_COMM when it cannot be written).
std::vector<OTF2_CommRef> write_location_comms(OTF2_GlobalDefWriter* w, const Definitions& defs,
                                               const RankLocationIds& ids, CartesianIds first,
                                               const std::function<OTF2_StringRef(const std::string&)>& str) {
  std::map<std::uint8_t, std::vector<std::uint64_t>> locations;
  std::map<std::uint8_t, std::string> names;
  for (const LocationComm& c : defs.location_comms) {
    if (!writable(c, ids)) continue;
    auto& list = locations[c.paradigm];
    names.emplace(c.paradigm, c.locations_name);
    for (const LocationRef& l : c.members)
      if (std::find(list.begin(), list.end(), ids[l.rank][l.index]) == list.end()) list.push_back(ids[l.rank][l.index]);
  }
  OTF2_GroupRef group = first.first_group;
  for (const auto& [paradigm, list] : locations)
    OTF2_GlobalDefWriter_WriteGroup(w, group++, str(names[paradigm]), OTF2_GROUP_TYPE_COMM_LOCATIONS, paradigm,
                                    OTF2_GROUP_FLAG_NONE, static_cast<uint32_t>(list.size()), list.data());
  std::vector<OTF2_CommRef> comm_id(defs.location_comms.size(), OTF2_UNDEFINED_COMM);
  OTF2_CommRef comm = first.first_comm;
  for (std::size_t k = 0; k < defs.location_comms.size(); ++k) {
    const LocationComm& c = defs.location_comms[k];
    if (!writable(c, ids)) continue;
    const auto& list = locations[c.paradigm];
    std::vector<std::uint64_t> members;
    for (const LocationRef& l : c.members)
      members.push_back(
          static_cast<std::uint64_t>(std::find(list.begin(), list.end(), ids[l.rank][l.index]) - list.begin()));
    OTF2_GlobalDefWriter_WriteGroup(w, group, str(c.group_name), OTF2_GROUP_TYPE_COMM_GROUP, c.paradigm,
                                    OTF2_GROUP_FLAG_NONE, static_cast<uint32_t>(members.size()), members.data());
    OTF2_GlobalDefWriter_WriteComm(w, comm, str(c.name), group++, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
    comm_id[k] = comm++;
  }
  return comm_id;
}

// The topology's communicator id and size, or OTF2_UNDEFINED_COMM.
std::pair<OTF2_CommRef, std::size_t> comm_of(const CartTopology& t, const Definitions& defs,
                                             const std::vector<OTF2_CommRef>& location_comm_id,
                                             std::size_t rank_count) {
  if (t.on_locations)
    return t.comm < location_comm_id.size()
               ? std::make_pair(location_comm_id[t.comm], defs.location_comms[t.comm].members.size())
               : std::make_pair(OTF2_UNDEFINED_COMM, std::size_t{0});
  if (t.comm >= defs.comms.size()) return {OTF2_UNDEFINED_COMM, 0};
  const Communicator& c = defs.comms[t.comm];
  const bool fits = std::all_of(c.members.begin(), c.members.end(), [&](Rank r) { return r < rank_count; });
  return fits ? std::make_pair(static_cast<OTF2_CommRef>(t.comm), std::size_t{c.size()})
              : std::make_pair(OTF2_UNDEFINED_COMM, std::size_t{0});
}

}  // namespace

void intern_cartesian_strings(const Definitions& defs, const std::function<void(const std::string&)>& intern) {
  for (const LocationComm& c : defs.location_comms) intern(c.name), intern(c.group_name), intern(c.locations_name);
  for (const CartDimension& d : defs.cart_dimensions) intern(d.name);
  for (const CartTopology& t : defs.cart_topologies) intern(t.name);
}

void write_cartesian(OTF2_GlobalDefWriter* w, const Definitions& defs, const RankLocationIds& ids, CartesianIds first,
                     const std::function<OTF2_StringRef(const std::string&)>& str) {
  if (defs.cart_topologies.empty()) return;
  const std::vector<OTF2_CommRef> location_comm_id = write_location_comms(w, defs, ids, first, str);
  for (std::size_t d = 0; d < defs.cart_dimensions.size(); ++d) {
    const CartDimension& dim = defs.cart_dimensions[d];
    OTF2_GlobalDefWriter_WriteCartDimension(w, static_cast<OTF2_CartDimensionRef>(d), str(dim.name), dim.size,
                                            dim.periodic ? OTF2_CART_PERIODIC_TRUE : OTF2_CART_PERIODIC_FALSE);
  }
  std::vector<std::size_t> comm_size(defs.cart_topologies.size(), 0);  // 0: not written
  for (std::size_t t = 0; t < defs.cart_topologies.size(); ++t) {
    const CartTopology& topology = defs.cart_topologies[t];
    const auto [comm, size] = comm_of(topology, defs, location_comm_id, ids.size());
    const bool dimensions_known = std::all_of(topology.dimensions.begin(), topology.dimensions.end(),
                                              [&](std::uint32_t d) { return d < defs.cart_dimensions.size(); });
    if (comm == OTF2_UNDEFINED_COMM || !dimensions_known || topology.dimensions.size() > 255) continue;
    std::vector<OTF2_CartDimensionRef> dims(topology.dimensions.begin(), topology.dimensions.end());
    OTF2_GlobalDefWriter_WriteCartTopology(w, static_cast<OTF2_CartTopologyRef>(t), str(topology.name), comm,
                                           static_cast<uint8_t>(dims.size()), dims.data());
    comm_size[t] = size;
  }
  for (const CartCoordinate& c : defs.cart_coordinates)
    if (c.topology < comm_size.size() && c.rank < comm_size[c.topology] &&
        c.coordinates.size() == defs.cart_topologies[c.topology].dimensions.size())
      OTF2_GlobalDefWriter_WriteCartCoordinate(w, c.topology, c.rank, static_cast<uint8_t>(c.coordinates.size()),
                                               c.coordinates.data());
}

}  // namespace wisp::io
