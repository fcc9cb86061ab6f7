// A rank's other threads and accelerator streams. See otf2_other_locations.hpp.
#include "otf2_other_locations.hpp"

#include <fmt/format.h>

#include "otf2_metrics.hpp"
#include "otf2_rma_records.hpp"
#include "otf2_thread_records.hpp"
#include "wisp/error.hpp"

namespace wisp::io {

namespace {

struct OtherLocationReader {
  const ArchiveDefinitions* archive;
  std::vector<LocationEvent>* events;
  std::string first_mpi;  // "MPI_Send at 1.234567 s" once found
  ThreadRecordSink threads;
  RmaRecordSink rma;
  AttributeSink attributes;
  MetricSamples* metrics;
};

OtherLocationReader& ctx(void* user) { return *static_cast<OtherLocationReader*>(user); }

double seconds(const OtherLocationReader& r, OTF2_TimeStamp t) { return r.archive->defs.clock.to_seconds(t); }

OTF2_CallbackCode mpi_call(void* user, OTF2_TimeStamp t, std::string_view what) {
  OtherLocationReader& r = ctx(user);
  r.first_mpi = fmt::format("{} at {:.6f} s", what, seconds(r, t));
  return OTF2_CALLBACK_INTERRUPT;
}

// A kept enter or leave, with its attribute list.
OTF2_CallbackCode keep_event(void* user, OTF2_TimeStamp t, OTF2_AttributeList* a, RegionId id, bool enter) {
  OtherLocationReader& r = ctx(user);
  r.events->push_back({seconds(r, t), id, enter});
  r.attributes.keep(AttributedTable::LocationEvent, r.events->size() - 1, a);
  return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode on_enter(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* user, OTF2_AttributeList* a,
                           OTF2_RegionRef ref) {
  const ArchiveDefinitions& defs = *ctx(user).archive;
  const RegionId id = ref < defs.region.size() ? defs.region[ref] : kNone;
  if (id == kNone) return OTF2_CALLBACK_SUCCESS;  // counted; an undefined region of a thread is not fatal
  const Region& region = defs.defs.regions[id];
  if (region.mpi != MpiFunction::None || region.kind == RegionKind::MpiOther) return mpi_call(user, t, region.name);
  return keep_event(user, t, a, id, true);
}
OTF2_CallbackCode on_leave(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* user, OTF2_AttributeList* a,
                           OTF2_RegionRef ref) {
  const ArchiveDefinitions& defs = *ctx(user).archive;
  const RegionId id = ref < defs.region.size() ? defs.region[ref] : kNone;
  return id != kNone ? keep_event(user, t, a, id, false) : OTF2_CALLBACK_SUCCESS;
}
// A counter sample (e.g. PAPI per OpenMP thread): kept before the region event that follows it.
OTF2_CallbackCode on_metric(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* user, OTF2_AttributeList* a,
                            OTF2_MetricRef metric, uint8_t n, const OTF2_Type* types, const OTF2_MetricValue* values) {
  OtherLocationReader& r = ctx(user);
  const auto before = static_cast<EventIndex>(r.events->size());
  if (keep_metric(*r.archive, *r.metrics, seconds(r, t), before, metric, n, types, values))
    r.attributes.keep(AttributedTable::MetricSample, r.metrics->samples.size() - 1, a);
  return OTF2_CALLBACK_SUCCESS;  // else counted with the location's other unkept records
}

OTF2_CallbackCode on_send(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* user, OTF2_AttributeList*, uint32_t,
                          OTF2_CommRef, uint32_t, uint64_t) {
  return mpi_call(user, t, "an MPI send record");
}
OTF2_CallbackCode on_recv(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* user, OTF2_AttributeList*, uint32_t,
                          OTF2_CommRef, uint32_t, uint64_t) {
  return mpi_call(user, t, "an MPI receive record");
}
OTF2_CallbackCode on_collective(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* user, OTF2_AttributeList*) {
  return mpi_call(user, t, "an MPI collective record");
}

OTF2_EvtReaderCallbacks* make_callbacks() {
  OTF2_EvtReaderCallbacks* cb = OTF2_EvtReaderCallbacks_New();
  OTF2_EvtReaderCallbacks_SetEnterCallback(cb, on_enter);
  OTF2_EvtReaderCallbacks_SetLeaveCallback(cb, on_leave);
  OTF2_EvtReaderCallbacks_SetMpiSendCallback(cb, on_send);
  OTF2_EvtReaderCallbacks_SetMpiRecvCallback(cb, on_recv);
  OTF2_EvtReaderCallbacks_SetMpiCollectiveBeginCallback(cb, on_collective);
  OTF2_EvtReaderCallbacks_SetMetricCallback(cb, on_metric);
  set_thread_record_callbacks<OtherLocationReader>(cb);
  set_rma_record_callbacks<OtherLocationReader>(cb);
  return cb;
}

void read_one(OTF2_Reader* reader, OTF2_EvtReaderCallbacks* callbacks, const ArchiveDefinitions& archive, Rank r,
              ThreadLocation& location, const std::string& where, const Otf2ErrorScope& scope, OtherLocations& out) {
  const std::string context =
      fmt::format("{}: rank {}, {} '{}' (location {})", where, r,
                  location.kind == LocationKind::CpuThread ? "thread" : "stream", location.name, location.otf2_id);
  OTF2_EvtReader* events = OTF2_Reader_GetEvtReader(reader, location.otf2_id);
  if (!events) check_otf2(OTF2_ERROR_FILE_INTERACTION, context + ": no event file", scope);
  std::vector<LocationEvent>& kept = out.events[r].emplace_back();
  OtherLocationReader ctx{&archive,
                          &kept,
                          {},
                          {&archive, &out.thread_records[r].emplace_back(), 0},
                          {&archive, &out.rma_records[r].emplace_back(), 0},
                          {&archive, &out.attributes[r].emplace_back(), 0},
                          &out.metrics[r].emplace_back()};
  check_otf2(OTF2_Reader_RegisterEvtCallbacks(reader, events, callbacks, &ctx), context, scope);
  uint64_t read = 0;
  const OTF2_ErrorCode status = OTF2_Reader_ReadAllLocalEvents(reader, events, &read);
  if (status == OTF2_ERROR_INTERRUPTED_BY_CALLBACK)
    throw Error(
        fmt::format("{}: {}: MPI calls from threads other than the master (MPI_THREAD_MULTIPLE) "
                    "are not modelled",
                    context, ctx.first_mpi));
  check_side_event_file(status, read, location.declared_events, context, scope);
  OTF2_Reader_CloseEvtReader(reader, events);
  location.records = read;
  out.unknown_team += ctx.threads.unknown_team;
  out.unkept_attributes += ctx.attributes.unkept;
  out.unkept += read - kept.size() - out.thread_records[r].back().size() - ctx.threads.unknown_team -
                out.rma_records[r].back().size() - out.metrics[r].back().samples.size();
}

}  // namespace

std::vector<std::uint64_t> locations_to_read(const ArchiveDefinitions& archive, RankShare share) {
  std::vector<std::uint64_t> out(archive.rank_location.begin() + share.first,
                                 archive.rank_location.begin() + share.last);
  for (Rank r = share.first; r < share.last; ++r)
    for (const ThreadLocation& other : archive.defs.ranks[r].others) out.push_back(other.otf2_id);
  for (Rank r = share.first; r < share.last; ++r)
    for (const MetricLocation& location : archive.defs.ranks[r].metric_locations) out.push_back(location.otf2_id);
  return out;
}

OtherLocations read_other_locations(OTF2_Reader* reader, ArchiveDefinitions& archive, RankShare share,
                                    const std::string& where, const Otf2ErrorScope& scope) {
  OtherLocations out;
  out.events.resize(archive.defs.ranks.size());
  out.thread_records.resize(archive.defs.ranks.size());
  out.rma_records.resize(archive.defs.ranks.size());
  out.attributes.resize(archive.defs.ranks.size());
  out.metrics.resize(archive.defs.ranks.size());
  OTF2_EvtReaderCallbacks* callbacks = make_callbacks();
  try {
    for (Rank r = share.first; r < share.last; ++r)
      for (ThreadLocation& other : archive.defs.ranks[r].others)
        read_one(reader, callbacks, archive, r, other, where, scope, out);
  } catch (...) {
    OTF2_EvtReaderCallbacks_Delete(callbacks);
    throw;
  }
  OTF2_EvtReaderCallbacks_Delete(callbacks);
  return out;
}

}  // namespace wisp::io
