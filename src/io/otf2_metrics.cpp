// Metric events and definitions. See otf2_metrics.hpp.
#include "otf2_metrics.hpp"

#include <fmt/format.h>

#include "wisp/error.hpp"

namespace wisp::io {

bool keep_metric(const ArchiveDefinitions& archive, MetricSamples& out, double time, EventIndex before,
                 OTF2_MetricRef metric, uint8_t n, const OTF2_Type* types, const OTF2_MetricValue* values) {
  const std::uint32_t c = metric < archive.metric_class.size() ? archive.metric_class[metric] : kNone;
  if (c == kNone) return false;
  const MetricClass& k = archive.defs.metric_classes[c];
  if (n != k.members.size()) return false;
  for (uint8_t i = 0; i < n; ++i)
    if (types[i] != archive.defs.metric_members[k.members[i]].value_type) return false;
  out.samples.push_back({time, c, static_cast<std::uint32_t>(out.values.size()), before});
  for (uint8_t i = 0; i < n; ++i) out.values.push_back(values[i].unsigned_int);
  return true;
}

namespace {

struct MetricLocationSink {
  const ArchiveDefinitions* archive;
  MetricSamples* out;
  std::uint64_t unkept = 0, attributes = 0;
};

OTF2_CallbackCode on_location_metric(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* user, OTF2_AttributeList* a,
                                     OTF2_MetricRef metric, uint8_t n, const OTF2_Type* types,
                                     const OTF2_MetricValue* values) {
  auto& r = *static_cast<MetricLocationSink*>(user);
  if (a && OTF2_AttributeList_GetNumberOfElements(a) > 0) ++r.attributes;  // not kept on metric locations
  if (!keep_metric(*r.archive, *r.out, r.archive->defs.clock.to_seconds(t), kNone, metric, n, types, values))
    ++r.unkept;
  return OTF2_CALLBACK_SUCCESS;
}

}  // namespace

std::vector<std::vector<MetricSamples>> read_metric_locations(OTF2_Reader* reader, const ArchiveDefinitions& archive,
                                                              RankShare share, MetricLocationSkips& skipped,
                                                              const std::string& where, const Otf2ErrorScope& scope) {
  std::vector<std::vector<MetricSamples>> out(archive.defs.ranks.size());
  OTF2_EvtReaderCallbacks* cb = OTF2_EvtReaderCallbacks_New();
  OTF2_EvtReaderCallbacks_SetMetricCallback(cb, on_location_metric);
  try {
    for (Rank r = share.first; r < share.last; ++r)
      for (const MetricLocation& location : archive.defs.ranks[r].metric_locations) {
        const std::string context =
            fmt::format("{}: rank {}, metric location '{}' (location {})", where, r, location.name, location.otf2_id);
        OTF2_EvtReader* events = OTF2_Reader_GetEvtReader(reader, location.otf2_id);
        if (!events) check_otf2(OTF2_ERROR_FILE_INTERACTION, context + ": no event file", scope);
        MetricLocationSink ctx{&archive, &out[r].emplace_back(), 0, 0};
        check_otf2(OTF2_Reader_RegisterEvtCallbacks(reader, events, cb, &ctx), context, scope);
        uint64_t read = 0;
        check_side_event_file(OTF2_Reader_ReadAllLocalEvents(reader, events, &read), read, location.declared_events,
                              context, scope);
        OTF2_Reader_CloseEvtReader(reader, events);
        skipped.records += read - ctx.out->samples.size();  // unkept metrics and records other than metrics
        skipped.attributes += ctx.attributes;
      }
  } catch (...) {
    OTF2_EvtReaderCallbacks_Delete(cb);
    throw;
  }
  OTF2_EvtReaderCallbacks_Delete(cb);
  return out;
}

OTF2_ErrorCode write_metric_samples(OTF2_EvtWriter* w, const Definitions& defs, const MetricSamples& samples,
                                    std::size_t from, std::size_t to,
                                    const std::function<OTF2_AttributeList*(std::size_t)>& attributes) {
  std::vector<OTF2_Type> types;
  std::vector<OTF2_MetricValue> values;
  for (std::size_t s = from; s < to; ++s) {
    const MetricSample& sample = samples.samples[s];
    const MetricClass& k = defs.metric_classes[sample.metric_class];
    types.resize(k.members.size());
    values.resize(k.members.size());
    for (std::size_t i = 0; i < k.members.size(); ++i) {
      types[i] = defs.metric_members[k.members[i]].value_type;
      values[i].unsigned_int = samples.values[sample.first + i];
    }
    const OTF2_ErrorCode status =
        OTF2_EvtWriter_Metric(w, attributes ? attributes(s) : nullptr, defs.clock.to_ticks(sample.time),
                              sample.metric_class, static_cast<uint8_t>(k.members.size()), types.data(), values.data());
    if (status != OTF2_SUCCESS) return status;
  }
  return OTF2_SUCCESS;
}

void intern_metric_strings(const Definitions& defs, const std::function<void(const std::string&)>& string) {
  for (const MetricMember& m : defs.metric_members) string(m.name), string(m.description), string(m.unit);
  for (const Location& rank : defs.ranks)
    for (const MetricLocation& location : rank.metric_locations) string(location.name);
}

void write_metric_definitions(OTF2_GlobalDefWriter* w, const Definitions& defs,
                              const std::function<OTF2_StringRef(const std::string&)>& string,
                              const std::function<OTF2_LocationRef(std::uint64_t)>& location) {
  for (std::size_t i = 0; i < defs.metric_members.size(); ++i) {
    const MetricMember& m = defs.metric_members[i];
    OTF2_GlobalDefWriter_WriteMetricMember(w, static_cast<OTF2_MetricMemberRef>(i), string(m.name),
                                           string(m.description), m.type, m.mode, m.value_type, m.base, m.exponent,
                                           string(m.unit));
  }
  for (std::size_t c = 0; c < defs.metric_classes.size(); ++c) {
    const MetricClass& k = defs.metric_classes[c];
    if (k.is_instance()) {
      const std::uint64_t scope = k.scope_kind == OTF2_SCOPE_LOCATION ? location(k.scope) : k.scope;  // group: rank
      OTF2_GlobalDefWriter_WriteMetricInstance(w, static_cast<OTF2_MetricRef>(c), k.instance_of, location(k.recorder),
                                               k.scope_kind, scope);
      continue;
    }
    std::vector<OTF2_MetricMemberRef> members(k.members.begin(), k.members.end());
    OTF2_GlobalDefWriter_WriteMetricClass(w, static_cast<OTF2_MetricRef>(c), static_cast<uint8_t>(members.size()),
                                          members.data(), k.occurrence, k.recorder_kind);
  }
  for (const MetricRecorder& r : defs.metric_recorders)
    OTF2_GlobalDefWriter_WriteMetricClassRecorder(w, r.metric_class, location(r.location));
}

}  // namespace wisp::io
