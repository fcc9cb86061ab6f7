// Trace -> OTF2 archive in Score-P's layout. See otf2_writer.hpp.
#include "wisp/io/otf2_writer.hpp"

#include <otf2/otf2.h>

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <limits>
#include <stdexcept>
#include <unordered_map>

#include "otf2_attributes.hpp"
#include "otf2_cartesian_writer.hpp"
#include "otf2_errors.hpp"
#include "otf2_metrics.hpp"
#include "otf2_rma_records.hpp"
#include "otf2_thread_writer.hpp"
#include "wisp/error.hpp"
#include "wisp/io/atomic_output.hpp"

namespace wisp {

namespace {

using io::check_otf2;
using io::Otf2ErrorScope;

OTF2_FlushType pre_flush(void*, OTF2_FileType, OTF2_LocationRef, void*, bool) { return OTF2_FLUSH; }
OTF2_TimeStamp post_flush(void*, OTF2_FileType, OTF2_LocationRef) { return 0; }
OTF2_FlushCallbacks flush_callbacks{pre_flush, post_flush};

OTF2_RegionRole role_of(const Region& r) { return region_role(r); }
OTF2_Paradigm paradigm_of(const Region& r) { return region_paradigm(r); }

class StringTable {
 public:
  OTF2_StringRef operator()(const std::string& s) {
    if (sealed_) {
      const auto it = ids_.find(s);
      if (it == ids_.end()) throw std::logic_error("OTF2 string interned after the table was written: " + s);
      return it->second;
    }
    auto [it, inserted] = ids_.try_emplace(s, static_cast<OTF2_StringRef>(order_.size()));
    if (inserted) order_.push_back(&it->first);
    return it->second;
  }
  void write(OTF2_GlobalDefWriter* w) {
    sealed_ = true;
    for (OTF2_StringRef i = 0; i < order_.size(); ++i) OTF2_GlobalDefWriter_WriteString(w, i, order_[i]->c_str());
  }

 private:
  std::unordered_map<std::string, OTF2_StringRef> ids_;
  std::vector<const std::string*> order_;
  bool sealed_ = false;
};

// Communicator-local rank of every global rank, per communicator (kNone: not a member).
std::vector<std::vector<std::uint32_t>> local_ranks(const Trace& t) {
  std::vector<std::vector<std::uint32_t>> out(t.defs.comms.size());
  for (CommId c = 0; c < t.defs.comms.size(); ++c) {
    const auto& comm = t.defs.comms[c];
    if (comm.self) continue;
    out[c].assign(t.rank_count(), kNone);
    for (std::uint32_t l = 0; l < comm.members.size(); ++l) out[c][comm.members[l]] = l;
  }
  return out;
}

// OTF2 location ids: the ranks' (masters) first, then per rank its other threads and streams; the
// ids read from the trace when they are unique, else 0, 1, ... in that order.
struct LocationIds {
  std::vector<OTF2_LocationRef> ranks;
  std::vector<std::vector<OTF2_LocationRef>> others;   // by rank, as Location::others
  std::vector<std::vector<OTF2_LocationRef>> metrics;  // by rank, as Location::metric_locations
};

LocationIds location_ids(const Trace& t) {
  LocationIds ids;
  std::unordered_map<OTF2_LocationRef, int> seen;
  bool unique = true;
  for (const auto& loc : t.defs.ranks) {
    unique &= seen[loc.otf2_id]++ == 0;
    for (const auto& other : loc.others) unique &= seen[other.otf2_id]++ == 0;
    for (const auto& metric : loc.metric_locations) unique &= seen[metric.otf2_id]++ == 0;
  }
  OTF2_LocationRef next = t.rank_count();
  ids.others.resize(t.rank_count());
  ids.metrics.resize(t.rank_count());
  for (Rank r = 0; r < t.rank_count(); ++r) {
    ids.ranks.push_back(unique ? t.defs.ranks[r].otf2_id : r);
    for (const auto& other : t.defs.ranks[r].others) ids.others[r].push_back(unique ? other.otf2_id : next++);
  }
  for (Rank r = 0; r < t.rank_count(); ++r)
    for (const auto& metric : t.defs.ranks[r].metric_locations)
      ids.metrics[r].push_back(unique ? metric.otf2_id : next++);
  return ids;
}

struct EventWriter {
  const Trace& trace;
  const std::vector<std::vector<std::uint32_t>>& locals;
  Rank rank;
  OTF2_EvtWriter* w;
  OTF2_StringRef program;
  const std::vector<OTF2_StringRef>& arguments;

  std::uint32_t local(CommId comm, Rank global) const {
    if (global == kNone) return OTF2_UNDEFINED_UINT32;
    if (trace.defs.comms[comm].self) return 0;
    return locals[comm][global];
  }

  OTF2_ErrorCode write(const Event& e, OTF2_AttributeList* a) const {
    const auto& rt = trace.ranks[rank];
    const OTF2_TimeStamp t = trace.defs.clock.to_ticks(e.time);
    switch (e.kind) {
      case EventKind::ProgramBegin:
        return OTF2_EvtWriter_ProgramBegin(w, a, t, program, static_cast<uint32_t>(arguments.size()), arguments.data());
      case EventKind::ProgramEnd:
        return OTF2_EvtWriter_ProgramEnd(w, a, t, 0);
      case EventKind::Enter:
        return OTF2_EvtWriter_Enter(w, a, t, trace.defs.callpaths[e.callpath()].region);
      case EventKind::Leave:
        return OTF2_EvtWriter_Leave(w, a, t, trace.defs.callpaths[e.callpath()].region);
      case EventKind::MpiSend: {
        const P2P& p = rt.p2p[e.p2p()];
        return OTF2_EvtWriter_MpiSend(w, a, t, local(p.comm, p.peer), p.comm, static_cast<uint32_t>(p.tag), p.bytes);
      }
      case EventKind::MpiIsend: {
        const P2P& p = rt.p2p[e.p2p()];
        return OTF2_EvtWriter_MpiIsend(w, a, t, local(p.comm, p.peer), p.comm, static_cast<uint32_t>(p.tag), p.bytes,
                                       p.request);
      }
      case EventKind::MpiIsendComplete:
        return OTF2_EvtWriter_MpiIsendComplete(w, a, t, rt.p2p[e.p2p()].request);
      case EventKind::MpiIrecvRequest:
        return OTF2_EvtWriter_MpiIrecvRequest(w, a, t, rt.p2p[e.p2p()].request);
      case EventKind::MpiIrecv: {
        const P2P& p = rt.p2p[e.p2p()];
        return OTF2_EvtWriter_MpiIrecv(w, a, t, local(p.comm, p.peer), p.comm, static_cast<uint32_t>(p.tag), p.bytes,
                                       p.request);
      }
      case EventKind::MpiRecv: {
        const P2P& p = rt.p2p[e.p2p()];
        return OTF2_EvtWriter_MpiRecv(w, a, t, local(p.comm, p.peer), p.comm, static_cast<uint32_t>(p.tag), p.bytes);
      }
      case EventKind::MpiRequestTest:
        return OTF2_EvtWriter_MpiRequestTest(w, a, t, rt.p2p[e.p2p()].request);
      case EventKind::MpiRequestCancelled:
        return OTF2_EvtWriter_MpiRequestCancelled(w, a, t, rt.p2p[e.p2p()].request);
      case EventKind::MpiCollectiveBegin:
        return OTF2_EvtWriter_MpiCollectiveBegin(w, a, t);
      case EventKind::MpiCollectiveEnd: {
        const CollectiveRecord& c = rt.collectives[e.collective()];
        if (c.comm == kNone) return OTF2_SUCCESS;  // half record of a truncated trace
        return OTF2_EvtWriter_MpiCollectiveEnd(w, a, t, static_cast<OTF2_CollectiveOp>(c.op), c.comm,
                                               local(c.comm, c.root), c.sent, c.received);
      }
      case EventKind::CommCreate:
        return OTF2_EvtWriter_CommCreate(w, a, t, e.comm());
      case EventKind::CommDestroy:
        return OTF2_EvtWriter_CommDestroy(w, a, t, e.comm());
    }
    return OTF2_SUCCESS;
  }
};

// Entry `index` of a rank's per-location table (thread records, RMA records: 0 the master, k + 1
// its k-th other location; counter samples: k + 1 its k-th metric location), empty if absent.
template <class T>
const T& at_location(const std::vector<T>& table, std::size_t index) {
  static const T none;
  return index < table.size() ? table[index] : none;
}
const std::vector<ThreadRecord>& thread_records(const Trace& trace, Rank r, std::size_t index) {
  return at_location(trace.ranks[r].thread_records, index);
}
const std::vector<RmaRecord>& rma_records(const Trace& trace, Rank r, std::size_t index) {
  return at_location(trace.ranks[r].rma_records, index);
}
const MetricSamples& metric_samples(const Trace& trace, Rank r, std::size_t index) {
  return at_location(trace.ranks[r].metrics, index);
}

// The attribute lists of one location's records (as OTF2 lists, one reused): a cursor per table.
struct AttributeLists {
  const Definitions& defs;
  const io::AttributeRefs& refs;
  OTF2_AttributeList* list;
  AttributeCursor events, threads, rma, metrics;
  AttributeLists(const Trace& trace, const io::AttributeRefs& written, OTF2_AttributeList* reused, Rank r,
                 std::size_t location, AttributedTable event_table)
      : defs(trace.defs),
        refs(written),
        list(reused),
        events(trace.ranks[r].attributes, location, event_table),
        threads(trace.ranks[r].attributes, location, AttributedTable::ThreadRecord),
        rma(trace.ranks[r].attributes, location, AttributedTable::RmaRecord),
        metrics(trace.ranks[r].attributes, location, AttributedTable::MetricSample) {}
  // Record `i`'s list in `table`'s cursor, or null.
  OTF2_AttributeList* of(AttributeCursor& table, std::size_t i) {
    return io::fill_attributes(list, defs, refs, table.values(), table.at(static_cast<std::uint32_t>(i)));
  }
};

// Writes `events` (in time order, by `write_one(event, its attribute list)`) with the location's
// thread and RMA records merged in: those before an event's time before it, thread records first
// at equal times.
template <class Events, class Write>
void write_merged(OTF2_EvtWriter* w, const Trace& trace, const Events& events, const std::vector<ThreadRecord>& records,
                  const std::vector<RmaRecord>& rma, AttributeLists& lists, const Write& write_one,
                  const std::string& context, const Otf2ErrorScope& scope) {
  const OTF2_CommRef first_team = static_cast<OTF2_CommRef>(trace.defs.comms.size());
  const Clock& clock = trace.defs.clock;
  std::size_t k = 0, m = 0;
  const auto records_before = [&](double t) {
    while ((k < records.size() && records[k].time < t) || (m < rma.size() && rma[m].time < t)) {
      if (k < records.size() && records[k].time < t && (m == rma.size() || records[k].time <= rma[m].time)) {
        check_otf2(io::write_thread_record(w, lists.of(lists.threads, k), records[k], clock.to_ticks(records[k].time),
                                           first_team),
                   context, scope);
        ++k;
      } else {
        check_otf2(io::write_rma_record(w, lists.of(lists.rma, m), rma[m], clock.to_ticks(rma[m].time)), context,
                   scope);
        ++m;
      }
    }
  };
  for (std::size_t i = 0; i < events.size(); ++i) {
    records_before(events[i].time);
    check_otf2(write_one(events[i], lists.of(lists.events, i)), context, scope);
  }
  records_before(std::numeric_limits<double>::infinity());
}

// Attribute references as written: location ids (read -> written), strings through `str`.
io::AttributeRefs attribute_refs(const Trace& trace, const LocationIds& ids, StringTable& str) {
  io::AttributeRefs refs;
  for (Rank r = 0; r < trace.rank_count(); ++r) {
    const Location& loc = trace.defs.ranks[r];
    refs.location[loc.otf2_id] = ids.ranks[r];
    for (std::size_t k = 0; k < loc.others.size(); ++k) refs.location[loc.others[k].otf2_id] = ids.others[r][k];
    for (std::size_t k = 0; k < loc.metric_locations.size(); ++k)
      refs.location[loc.metric_locations[k].otf2_id] = ids.metrics[r][k];
  }
  refs.string = [&str](const std::string& s) { return str(s); };
  refs.first_team = static_cast<OTF2_CommRef>(trace.defs.comms.size());
  return refs;
}

// Where the event files go: the archive, how attribute references are written, one reusable list.
struct EventFiles {
  OTF2_Archive* archive;
  const io::AttributeRefs& refs;
  OTF2_AttributeList* list;
  const std::string& where;
  const Otf2ErrorScope& scope;
};

// Writes a location's counter samples in order: those taken before its event `event` (samples_before),
// then the rest (the remaining ones).
class SampleWriter {
 public:
  SampleWriter(OTF2_EvtWriter* w, const Definitions& defs, const MetricSamples& samples, AttributeLists& lists)
      : w_(w),
        defs_(defs),
        samples_(samples),
        attributes_([&lists](std::size_t s) { return lists.of(lists.metrics, s); }) {}
  OTF2_ErrorCode samples_before(std::size_t event) {
    const std::size_t from = next_;
    while (next_ < samples_.samples.size() && samples_.samples[next_].before <= event) ++next_;
    return io::write_metric_samples(w_, defs_, samples_, from, next_, attributes_);
  }
  OTF2_ErrorCode remaining() { return samples_before(std::numeric_limits<std::size_t>::max()); }

 private:
  OTF2_EvtWriter* w_;
  const Definitions& defs_;
  const MetricSamples& samples_;
  std::function<OTF2_AttributeList*(std::size_t)> attributes_;
  std::size_t next_ = 0;
};

// The kept events of a rank's other thread or stream: its region enters and leaves, thread, RMA and
// metric records.
void write_other_location(const EventFiles& out, const Trace& trace, Rank r, std::size_t k, OTF2_LocationRef id) {
  const std::string context = fmt::format("{}: rank {}, location {}", out.where, r, id);
  OTF2_EvtWriter* w = OTF2_Archive_GetEvtWriter(out.archive, id);
  if (!w) check_otf2(OTF2_ERROR_FILE_INTERACTION, context, out.scope);
  static const std::vector<LocationEvent> none;
  const auto& events = k < trace.ranks[r].others.size() ? trace.ranks[r].others[k] : none;
  AttributeLists lists(trace, out.refs, out.list, r, k + 1, AttributedTable::LocationEvent);
  SampleWriter samples(w, trace.defs, at_location(trace.ranks[r].other_metrics, k), lists);
  write_merged(
      w, trace, events, thread_records(trace, r, k + 1), rma_records(trace, r, k + 1), lists,
      [&](const LocationEvent& e, OTF2_AttributeList* a) {
        const OTF2_ErrorCode status = samples.samples_before(static_cast<std::size_t>(&e - events.data()));
        if (status != OTF2_SUCCESS) return status;
        const OTF2_TimeStamp t = trace.defs.clock.to_ticks(e.time);
        return e.enter ? OTF2_EvtWriter_Enter(w, a, t, e.region) : OTF2_EvtWriter_Leave(w, a, t, e.region);
      },
      context, out.scope);
  check_otf2(samples.remaining(), context, out.scope);
  check_otf2(OTF2_Archive_CloseEvtWriter(out.archive, w), context, out.scope);
}

// The counter samples of a rank's metric location (Score-P's per-process metrics).
void write_metric_location(const EventFiles& out, const Trace& trace, Rank r, std::size_t k, OTF2_LocationRef id) {
  const std::string context = fmt::format("{}: rank {}, metric location {}", out.where, r, id);
  OTF2_EvtWriter* w = OTF2_Archive_GetEvtWriter(out.archive, id);
  if (!w) check_otf2(OTF2_ERROR_FILE_INTERACTION, context, out.scope);
  const MetricSamples& samples = metric_samples(trace, r, k + 1);
  check_otf2(io::write_metric_samples(w, trace.defs, samples, 0, samples.samples.size()), context, out.scope);
  check_otf2(OTF2_Archive_CloseEvtWriter(out.archive, w), context, out.scope);
}

// A rank's master: its events with its counter samples and thread and RMA records merged in.
void write_master(const EventFiles& out, const Trace& trace, const EventWriter& writer) {
  const Rank r = writer.rank;
  OTF2_EvtWriter* w = writer.w;
  AttributeLists lists(trace, out.refs, out.list, r, 0, AttributedTable::Event);
  SampleWriter samples(w, trace.defs, metric_samples(trace, r, 0), lists);
  const Event* first = trace.ranks[r].events.data();
  const std::string context = fmt::format("{}: writing rank {}", out.where, r);
  write_merged(
      w, trace, trace.ranks[r].events, thread_records(trace, r, 0), rma_records(trace, r, 0), lists,
      [&](const Event& e, OTF2_AttributeList* a) {
        const OTF2_ErrorCode status = samples.samples_before(static_cast<std::size_t>(&e - first));
        return status != OTF2_SUCCESS ? status : writer.write(e, a);
      },
      context, out.scope);
  check_otf2(samples.remaining(), context, out.scope);
}

void write_events(const EventFiles& out, const Trace& trace, const LocationIds& ids, OTF2_StringRef program,
                  const std::vector<OTF2_StringRef>& arguments) {
  OTF2_Archive* archive = out.archive;
  const std::string& where = out.where;
  const Otf2ErrorScope& scope = out.scope;
  const auto locals = local_ranks(trace);
  check_otf2(OTF2_Archive_OpenEvtFiles(archive), where + ": cannot create event files", scope);
  for (Rank r = 0; r < trace.rank_count(); ++r) {
    OTF2_EvtWriter* w = OTF2_Archive_GetEvtWriter(archive, ids.ranks[r]);
    if (!w) check_otf2(OTF2_ERROR_FILE_INTERACTION, fmt::format("{}: rank {}", where, r), scope);
    write_master(out, trace, EventWriter{trace, locals, r, w, program, arguments});
    check_otf2(OTF2_Archive_CloseEvtWriter(archive, w), fmt::format("{}: rank {}", where, r), scope);
    for (std::size_t k = 0; k < trace.defs.ranks[r].others.size(); ++k)
      write_other_location(out, trace, r, k, ids.others[r][k]);
    for (std::size_t k = 0; k < trace.defs.ranks[r].metric_locations.size(); ++k)
      write_metric_location(out, trace, r, k, ids.metrics[r][k]);
  }
  check_otf2(OTF2_Archive_CloseEvtFiles(archive), where + ": closing event files", scope);
  check_otf2(OTF2_Archive_OpenDefFiles(archive), where + ": cannot create definition files", scope);
  std::vector<OTF2_LocationRef> all = ids.ranks;
  for (const auto& others : ids.others) all.insert(all.end(), others.begin(), others.end());
  for (const auto& metrics : ids.metrics) all.insert(all.end(), metrics.begin(), metrics.end());
  for (OTF2_LocationRef id : all) {
    OTF2_DefWriter* d = OTF2_Archive_GetDefWriter(archive, id);
    if (d) OTF2_Archive_CloseDefWriter(archive, d);
  }
  check_otf2(OTF2_Archive_CloseDefFiles(archive), where + ": closing definition files", scope);
}

std::uint64_t written_events(const Trace& trace, Rank r) {
  std::uint64_t n = 0;
  for (const Event& e : trace.ranks[r].events)
    n += !(e.kind == EventKind::MpiCollectiveEnd && trace.ranks[r].collectives[e.collective()].comm == kNone);
  return n + thread_records(trace, r, 0).size() + rma_records(trace, r, 0).size() +
         metric_samples(trace, r, 0).samples.size();
}

// The machine's nodes (system tree nodes 1..n under the machine, node 0) and each rank's node.
struct SystemTree {
  std::vector<std::string> nodes;
  std::vector<OTF2_SystemTreeNodeRef> node_of;  // by rank
};

SystemTree system_tree(const Trace& trace) {
  SystemTree t;
  t.node_of.resize(trace.rank_count());
  for (Rank r = 0; r < trace.rank_count(); ++r) {
    const std::string& n = trace.defs.ranks[r].node.empty() ? std::string("node") : trace.defs.ranks[r].node;
    auto it = std::find(t.nodes.begin(), t.nodes.end(), n);
    t.node_of[r] = static_cast<OTF2_SystemTreeNodeRef>(1 + (it - t.nodes.begin()));
    if (it == t.nodes.end()) t.nodes.push_back(n);
  }
  return t;
}

// Strings first: every name the records below refer to, in a fixed order (their ids).
void intern_strings(const Trace& trace, const SystemTree& tree, StringTable& str) {
  const Definitions& d = trace.defs;
  for (const char* s : {"", "MPI", "machine", "node", "wisp"}) str(s);
  for (const auto& n : tree.nodes) str(n);
  for (const auto& loc : d.ranks) {
    str(loc.name), str(loc.group_name);
    for (const auto& other : loc.others) str(other.name);
  }
  for (const auto& r : d.regions) str(r.name), str(r.canonical_name), str(r.file);
  for (const auto& c : d.comms) str(c.name);
  str("MPI Rank 0");
  for (Rank r = 0; r < trace.rank_count(); ++r) str(fmt::format("MPI Rank {}", r));
  io::intern_cartesian_strings(d, [&](const std::string& s) { str(s); });
  io::intern_metric_strings(d, [&](const std::string& s) { str(s); });
  for (const RmaWindow& win : d.rma_windows) str(win.name);
  for (const AttributeDef& a : d.attributes) str(a.name), str(a.description);
}

// Clock, paradigm, system tree, one location group (process) and one location per rank.
void write_locations(OTF2_GlobalDefWriter* w, const Trace& trace, const SystemTree& tree, const LocationIds& ids,
                     StringTable& str) {
  const Definitions& d = trace.defs;
  const Clock& clock = d.clock;
  const std::uint64_t length = clock.to_ticks(trace.end_time()) - clock.global_offset;
  OTF2_GlobalDefWriter_WriteClockProperties(w, clock.ticks_per_second, clock.global_offset, length,
                                            OTF2_UNDEFINED_TIMESTAMP);
  OTF2_GlobalDefWriter_WriteParadigm(w, OTF2_PARADIGM_MPI, str("MPI"), OTF2_PARADIGM_CLASS_PROCESS);
  OTF2_GlobalDefWriter_WriteSystemTreeNode(w, 0, str("wisp"), str("machine"), OTF2_UNDEFINED_SYSTEM_TREE_NODE);
  for (std::size_t n = 0; n < tree.nodes.size(); ++n)
    OTF2_GlobalDefWriter_WriteSystemTreeNode(w, static_cast<OTF2_SystemTreeNodeRef>(n + 1), str(tree.nodes[n]),
                                             str("node"), 0);
  for (Rank r = 0; r < trace.rank_count(); ++r) {
    const auto& loc = d.ranks[r];
    const std::string group = loc.group_name.empty() ? fmt::format("MPI Rank {}", r) : loc.group_name;
    OTF2_GlobalDefWriter_WriteLocationGroup(w, r, str(group), OTF2_LOCATION_GROUP_TYPE_PROCESS, tree.node_of[r],
                                            OTF2_UNDEFINED_LOCATION_GROUP);
  }
  for (Rank r = 0; r < trace.rank_count(); ++r)
    OTF2_GlobalDefWriter_WriteLocation(w, ids.ranks[r], str(d.ranks[r].name), OTF2_LOCATION_TYPE_CPU_THREAD,
                                       written_events(trace, r), r);
  for (Rank r = 0; r < trace.rank_count(); ++r)
    for (std::size_t k = 0; k < d.ranks[r].others.size(); ++k) {
      const ThreadLocation& other = d.ranks[r].others[k];
      OTF2_GlobalDefWriter_WriteLocation(
          w, ids.others[r][k], str(other.name),
          other.kind == LocationKind::CpuThread ? OTF2_LOCATION_TYPE_CPU_THREAD : OTF2_LOCATION_TYPE_ACCELERATOR_STREAM,
          (trace.ranks[r].others.size() > k ? trace.ranks[r].others[k].size() : 0) +
              thread_records(trace, r, k + 1).size() + rma_records(trace, r, k + 1).size() +
              at_location(trace.ranks[r].other_metrics, k).samples.size(),
          r);
    }
  for (Rank r = 0; r < trace.rank_count(); ++r)
    for (std::size_t k = 0; k < d.ranks[r].metric_locations.size(); ++k)
      OTF2_GlobalDefWriter_WriteLocation(w, ids.metrics[r][k], str(d.ranks[r].metric_locations[k].name),
                                         OTF2_LOCATION_TYPE_METRIC, metric_samples(trace, r, k + 1).samples.size(), r);
}

void write_regions(OTF2_GlobalDefWriter* w, const Definitions& d, StringTable& str) {
  for (RegionId i = 0; i < d.regions.size(); ++i) {
    const Region& r = d.regions[i];
    OTF2_GlobalDefWriter_WriteRegion(w, i, str(r.name), str(r.canonical_name), str(""), role_of(r), paradigm_of(r),
                                     OTF2_REGION_FLAG_NONE, r.file.empty() ? OTF2_UNDEFINED_STRING : str(r.file),
                                     r.begin_line, r.end_line);
  }
}

// Groups: 0 = all locations in rank order; then one group per communicator (id = 1 + comm).
void write_communicators(OTF2_GlobalDefWriter* w, const Definitions& d, const std::vector<OTF2_LocationRef>& ranks,
                         StringTable& str) {
  const OTF2_StringRef empty = str("");
  std::vector<std::uint64_t> members(ranks.begin(), ranks.end());
  OTF2_GlobalDefWriter_WriteGroup(w, 0, empty, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
                                  static_cast<uint32_t>(members.size()), members.data());
  for (CommId c = 0; c < d.comms.size(); ++c) {
    const auto& comm = d.comms[c];
    std::vector<std::uint64_t> comm_ranks(comm.members.begin(), comm.members.end());
    OTF2_GlobalDefWriter_WriteGroup(w, 1 + c, empty, comm.self ? OTF2_GROUP_TYPE_COMM_SELF : OTF2_GROUP_TYPE_COMM_GROUP,
                                    OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, static_cast<uint32_t>(comm_ranks.size()),
                                    comm_ranks.data());
  }
  for (CommId c = 0; c < d.comms.size(); ++c) {
    const auto& comm = d.comms[c];
    OTF2_GlobalDefWriter_WriteComm(
        w, c, str(comm.name), 1 + c, comm.parent == kNone ? OTF2_UNDEFINED_COMM : comm.parent,
        comm.create_destroy_events ? OTF2_COMM_FLAG_CREATE_DESTROY_EVENTS : OTF2_COMM_FLAG_NONE);
  }
}

void write_definitions(OTF2_Archive* archive, const Trace& trace, const LocationIds& ids, const io::AttributeRefs& refs,
                       StringTable& str, const std::string& where, const Otf2ErrorScope& scope) {
  OTF2_GlobalDefWriter* w = OTF2_Archive_GetGlobalDefWriter(archive);
  if (!w) check_otf2(OTF2_ERROR_FILE_INTERACTION, where + ": cannot create global definitions", scope);
  const SystemTree tree = system_tree(trace);
  intern_strings(trace, tree, str);
  str.write(w);
  write_locations(w, trace, tree, ids, str);
  write_regions(w, trace.defs, str);
  io::write_metric_definitions(
      w, trace.defs, [&](const std::string& s) { return str(s); },
      [&](std::uint64_t id) {
        const auto it = refs.location.find(id);
        return it != refs.location.end() ? it->second : OTF2_UNDEFINED_LOCATION;
      });
  io::write_attribute_definitions(w, trace.defs, [&](const std::string& s) { return str(s); });
  write_communicators(w, trace.defs, ids.ranks, str);
  io::RankLocationIds all(trace.rank_count());
  for (Rank r = 0; r < trace.rank_count(); ++r) {
    all[r].push_back(ids.ranks[r]);
    all[r].insert(all[r].end(), ids.others[r].begin(), ids.others[r].end());
  }
  const OTF2_GroupRef next_group =
      io::write_thread_teams(w, trace.defs, all, static_cast<OTF2_GroupRef>(1 + trace.defs.comms.size()),
                             static_cast<OTF2_CommRef>(trace.defs.comms.size()), str(""));
  io::write_rma_windows(w, trace.defs, static_cast<OTF2_CommRef>(trace.defs.comms.size()),
                        [&](const std::string& s) { return str(s); });
  io::write_cartesian(w, trace.defs, all,
                      {next_group, static_cast<OTF2_CommRef>(trace.defs.comms.size() + trace.defs.thread_teams.size())},
                      [&](const std::string& s) { return str(s); });
  check_otf2(OTF2_Archive_CloseGlobalDefWriter(archive, w), where + ": writing definitions", scope);
}

}  // namespace

std::string records_not_written(const Trace& trace) {
  std::string out;
  for (const auto& [what, n] : trace.skipped_records)
    out.append(out.empty() ? "" : ", ").append(fmt::format("{} {}", n, what));
  return out;
}

void write_otf2_into(const Trace& trace, const std::filesystem::path& dir, const WriteOptions& options) {
  const std::string where = dir.string();
  if (trace.defs.world == kNone) throw Error(where + ": the trace has no MPI_COMM_WORLD to write");
  Otf2ErrorScope scope;
  OTF2_Archive* archive = OTF2_Archive_Open(dir.c_str(), "traces", OTF2_FILEMODE_WRITE, 1024 * 1024, 4 * 1024 * 1024,
                                            OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
  if (!archive) check_otf2(OTF2_ERROR_FILE_INTERACTION, where + ": cannot create OTF2 archive", scope);
  struct Closer {
    OTF2_Archive* a;
    ~Closer() {
      if (a) OTF2_Archive_Close(a);
    }
  } closer{archive};
  check_otf2(OTF2_Archive_SetFlushCallbacks(archive, &flush_callbacks, nullptr), where, scope);
  check_otf2(OTF2_Archive_SetSerialCollectiveCallbacks(archive), where, scope);
  OTF2_Archive_SetCreator(archive, options.creator.c_str());
  if (!options.description.empty()) OTF2_Archive_SetDescription(archive, options.description.c_str());

  const auto ids = location_ids(trace);
  StringTable str;
  const OTF2_StringRef program = str(trace.defs.program_name.empty() ? "wisp" : trace.defs.program_name);
  const io::AttributeRefs refs = attribute_refs(trace, ids, str);
  const io::AttributeListHandle list;
  std::vector<OTF2_StringRef> arguments;
  for (const std::string& argument : trace.defs.program_arguments) arguments.push_back(str(argument));
  write_events({archive, refs, list.list, where, scope}, trace, ids, program, arguments);
  write_definitions(archive, trace, ids, refs, str, where, scope);
  closer.a = nullptr;
  check_otf2(OTF2_Archive_Close(archive), where + ": closing the archive", scope);
  // OTF2 does not always report a failed write of its small files (seen on a full disk: exit 0
  // and 0-byte traces.otf2 / traces.def); an empty one is never a valid archive.
  for (const char* name : {"traces.otf2", "traces.def"}) {
    std::error_code ec;
    const auto size = std::filesystem::file_size(dir / name, ec);
    if (ec || size == 0)
      throw Error(fmt::format("{}: writing {} failed ({}; is the disk full?)", where, name,
                              ec ? ec.message() : "the file is empty"));
  }
}

void write_otf2(const Trace& trace, const std::filesystem::path& dir, const WriteOptions& options) {
  AtomicDirectory out(dir, options.force);
  write_otf2_into(trace, out.staging(), options);
  out.commit();
}

}  // namespace wisp
