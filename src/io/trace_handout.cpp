// A trace handed out as shares. See trace_handout.hpp. Each structure's fields are listed once
// (`fields`), for packing and unpacking alike.
#include "wisp/io/trace_handout.hpp"

#include <map>

#include "wisp/trace/derive.hpp"

namespace wisp {

namespace {

// Writes (Packer) or reads (Unpacker) values: plain ones as bytes, strings, vectors and maps by
// their size, structures by their `fields`.
template <typename Stream>
struct Io {
  Stream& s;
  static constexpr bool kReading = std::is_same_v<Stream, Unpacker>;

  template <typename... T>
  void operator()(T&... values) {
    (one(values), ...);
  }

  template <typename T>
  void one(T& value) {
    if constexpr (std::is_trivially_copyable_v<T>) {
      if constexpr (kReading)
        value = s.template get<T>();
      else
        s.put(value);
    } else {
      fields(*this, value);
    }
  }
  void one(std::string& text) {
    if constexpr (kReading)
      text = s.get_string();
    else
      s.put_string(text);
  }
  template <typename T>
  void one(std::vector<T>& values) {
    if constexpr (std::is_trivially_copyable_v<T>) {
      if constexpr (kReading)
        values = s.template get_vector<T>();
      else
        s.put_vector(values);
    } else {
      std::uint64_t n = values.size();
      one(n);
      if constexpr (kReading) {
        if (n > (std::uint64_t{1} << 40)) throw Error("trace hand-out: a truncated message");
        values.resize(n);
      }
      for (T& v : values) one(v);
    }
  }
  template <typename K, typename V>
  void one(std::map<K, V>& values) {
    std::uint64_t n = values.size();
    one(n);
    if constexpr (kReading) {
      for (std::uint64_t i = 0; i < n; ++i) {
        K key{};
        one(key);
        one(values[key]);
      }
    } else {
      for (auto& [key, value] : values) {
        K k = key;
        one(k);
        one(value);
      }
    }
  }
};

template <typename Io>
void fields(Io& io, Location& l) {
  io(l.name, l.group_name, l.node, l.otf2_id, l.others, l.metric_locations);
}
template <typename Io>
void fields(Io& io, ThreadLocation& l) {
  io(l.name, l.kind, l.otf2_id, l.declared_events, l.records);
}
template <typename Io>
void fields(Io& io, MetricLocation& l) {
  io(l.name, l.otf2_id, l.declared_events);
}
template <typename Io>
void fields(Io& io, Region& r) {
  io(r.name, r.canonical_name, r.file, r.begin_line, r.end_line, r.kind, r.mpi, r.otf2_role, r.otf2_paradigm);
}
template <typename Io>
void fields(Io& io, Communicator& c) {
  io(c.name, c.members, c.self, c.parent, c.create_destroy_events);
}
template <typename Io>
void fields(Io& io, ThreadTeam& t) {
  io(t.rank, t.members, t.paradigm, t.accelerator);
}
template <typename Io>
void fields(Io& io, LocationComm& c) {
  io(c.name, c.group_name, c.locations_name, c.paradigm, c.members);
}
template <typename Io>
void fields(Io& io, CartDimension& d) {
  io(d.name, d.size, d.periodic);
}
template <typename Io>
void fields(Io& io, CartTopology& t) {
  io(t.name, t.on_locations, t.comm, t.dimensions);
}
template <typename Io>
void fields(Io& io, CartCoordinate& c) {
  io(c.topology, c.rank, c.coordinates);
}
template <typename Io>
void fields(Io& io, MetricMember& m) {
  io(m.name, m.description, m.unit, m.type, m.mode, m.value_type, m.base, m.exponent);
}
template <typename Io>
void fields(Io& io, MetricClass& m) {
  io(m.members, m.occurrence, m.recorder_kind, m.instance_of, m.recorder, m.scope_kind, m.scope);
}
template <typename Io>
void fields(Io& io, RmaWindow& w) {
  io(w.name, w.comm, w.on_team, w.flags);
}
template <typename Io>
void fields(Io& io, AttributeDef& a) {
  io(a.name, a.description, a.type);
}
template <typename Io>
void fields(Io& io, Definitions& d) {
  io(d.clock, d.program_name, d.program_arguments, d.creator, d.ranks, d.paradigms, d.regions, d.callpaths, d.comms,
     d.world, d.thread_teams, d.location_comms, d.cart_dimensions, d.cart_topologies, d.cart_coordinates,
     d.metric_members, d.metric_classes, d.metric_recorders, d.rma_windows, d.attributes, d.attribute_strings);
}
template <typename Io>
void fields(Io& io, MetricSamples& m) {
  io(m.samples, m.values);
}
template <typename Io>
void fields(Io& io, LocationAttributes& a) {
  io(a.records, a.values);
}
// A rank's records; the derived call spans are derived again.
template <typename Io>
void fields(Io& io, RankTrace& r) {
  io(r.events, r.p2p, r.collectives, r.others, r.thread_records, r.metrics, r.other_metrics, r.rma_records,
     r.attributes);
}

std::string packet_for(const Trace& whole, RankShare share) {
  Packer out;
  Io<Packer> io{out};
  out.put(whole.rank_count()).put(share);
  pack_definitions(out, whole.defs);
  pack_anomalies(out, whole.anomalies);
  auto skipped = whole.skipped_records;
  io(skipped);
  for (Rank r = share.first; r < share.last; ++r) io(const_cast<RankTrace&>(whole.ranks[r]));
  return out.take();
}

}  // namespace

void pack_definitions(Packer& out, const Definitions& defs) {
  Io<Packer> io{out};
  io(const_cast<Definitions&>(defs));  // packing reads only
}

Definitions unpack_definitions(Unpacker& in) {
  Io<Unpacker> io{in};
  Definitions defs;
  io(defs);
  return defs;
}

// One exchange per process, each carrying only its packet: the handing process holds one share's
// bytes at a time, not a second copy of the whole trace.
Trace hand_out(const Trace* whole, ProcessGroup& group, int from) {
  const int P = group.processes();
  const bool handing = group.process() == from;
  if (handing && !whole) throw Error("trace hand-out: the handing process has no trace");
  std::vector<std::uint64_t> events;
  if (handing)
    for (const RankTrace& r : whole->ranks) events.push_back(r.events.size());
  std::string packet;
  for (int p = 0; p < P; ++p) {
    std::vector<std::string> outgoing(static_cast<std::size_t>(P));
    if (handing) outgoing[static_cast<std::size_t>(p)] = packet_for(*whole, share_of(events, p, P));
    std::string arrived = std::move(group.exchange(std::move(outgoing))[static_cast<std::size_t>(from)]);
    if (p == group.process()) packet = std::move(arrived);
  }
  Unpacker in(packet);
  Io<Unpacker> io{in};
  Trace trace;
  trace.ranks.resize(in.get<Rank>());
  const auto share = in.get<RankShare>();
  trace.defs = unpack_definitions(in);
  trace.anomalies = unpack_anomalies(in);
  io(trace.skipped_records);
  for (Rank r = share.first; r < share.last; ++r) io(trace.ranks[r]);
  if (!in.done()) throw Error("trace hand-out: a message with bytes left over");
  trace.share = share;
  derive(trace, group);
  return trace;
}

}  // namespace wisp
