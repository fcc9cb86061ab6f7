// Metric events (trace/metrics.hpp) read from the master locations and from METRIC locations
// (Score-P's per-process metrics), and written back.
#pragma once

#include <otf2/otf2.h>

#include <functional>
#include <string>
#include <vector>

#include "otf2_definitions.hpp"
#include "otf2_errors.hpp"
#include "wisp/group/rank_share.hpp"
#include "wisp/trace/metrics.hpp"

namespace wisp::io {

// Keeps one Metric event in `out`; `before` is the master event it precedes (kNone elsewhere).
// Returns false (the caller counts it as skipped) for a metric that is not a known class (an
// instance) or whose values do not match the class's members in number and type.
bool keep_metric(const ArchiveDefinitions& archive, MetricSamples& out, double time, EventIndex before,
                 OTF2_MetricRef metric, uint8_t n, const OTF2_Type* types, const OTF2_MetricValue* values);

// The samples of every rank's metric locations: [rank][k] for Location::metric_locations[k]. Their
// other records and unkept metrics, and the samples whose attribute lists are not kept (attributes
// of metric locations are not), are added to `skipped`.
struct MetricLocationSkips {
  std::uint64_t records = 0, attributes = 0;
};
std::vector<std::vector<MetricSamples>> read_metric_locations(OTF2_Reader* reader, const ArchiveDefinitions& archive,
                                                              RankShare share, MetricLocationSkips& skipped,
                                                              const std::string& where, const Otf2ErrorScope& scope);

// Writes `samples` [from, to) (those of one location, in order) to `w`, each with the attribute
// list `attributes` gives for its index (null: none).
OTF2_ErrorCode write_metric_samples(OTF2_EvtWriter* w, const Definitions& defs, const MetricSamples& samples,
                                    std::size_t from, std::size_t to,
                                    const std::function<OTF2_AttributeList*(std::size_t)>& attributes = {});

// The strings the metric definitions name, then the definitions (members, classes and instances,
// ids: their indices; class recorders), written with the string and location ids `string` and
// `location` give (a location group scope is the rank: the writer's location group id).
void intern_metric_strings(const Definitions& defs, const std::function<void(const std::string&)>& string);
void write_metric_definitions(OTF2_GlobalDefWriter* w, const Definitions& defs,
                              const std::function<OTF2_StringRef(const std::string&)>& string,
                              const std::function<OTF2_LocationRef(std::uint64_t)>& location);

}  // namespace wisp::io
