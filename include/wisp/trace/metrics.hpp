// Hardware and software counters as OTF2 records them (MetricMember, MetricClass, METRIC locations
// and Metric events: PAPI, rusage, per-process metrics). wisp does not analyse them; it keeps them
// so that a simulated trace still holds them, moved with the timeline they were sampled on.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "wisp/trace/ids.hpp"

namespace wisp {

// One counter (OTF2 MetricMember); the enumerations keep OTF2's values.
struct MetricMember {
  bool operator==(const MetricMember&) const = default;
  std::string name, description, unit;  // "PAPI_TOT_CYC", "Total cycles.", "#"
  std::uint8_t type = 0;                // OTF2_MetricType: PAPI, RUSAGE, USER, OTHER
  std::uint8_t mode = 0;                // OTF2_MetricMode: ACCUMULATED_START, ABSOLUTE_POINT, ...
  std::uint8_t value_type = 0;          // OTF2_Type of its values: UINT64, INT64, DOUBLE
  std::uint8_t base = 0;                // OTF2_Base: binary or decimal
  std::int64_t exponent = 0;
};

// The counters sampled together in one Metric event (OTF2 MetricClass): strictly synchronous
// (at every enter and leave), synchronous or asynchronous.
// An instance of a class (OTF2 MetricInstance: the class's metric as one location records it for a
// scope) is an entry too, in the same id space as OTF2 has it: its class's members, occurrence and
// recorder kind, plus `instance_of` and where it is recorded.
struct MetricClass {
  bool operator==(const MetricClass&) const = default;
  std::vector<std::uint32_t> members;  // indices into Definitions::metric_members
  std::uint8_t occurrence = 0;         // OTF2_MetricOccurrence
  std::uint8_t recorder_kind = 0;      // OTF2_RecorderKind: CPU, ABSTRACT, ...
  std::uint32_t instance_of = kNone;   // instances: the class (index into Definitions::metric_classes)
  std::uint64_t recorder = 0;          // instances: the recording location's OTF2 id as read
  std::uint8_t scope_kind = 0;         // instances: OTF2_MetricScope (LOCATION or LOCATION_GROUP)
  std::uint64_t scope = 0;             // instances: LOCATION its OTF2 id as read, LOCATION_GROUP the rank
  bool is_instance() const { return instance_of != kNone; }
};

// A location that records a class (OTF2 MetricClassRecorder).
struct MetricRecorder {
  bool operator==(const MetricRecorder&) const = default;
  std::uint32_t metric_class = 0;  // index into Definitions::metric_classes
  std::uint64_t location = 0;      // its OTF2 id as read
};

// A location that records only metrics (OTF2 location type METRIC), e.g. Score-P's per-process
// metrics: it belongs to the rank whose process (location group) it is in.
struct MetricLocation {
  bool operator==(const MetricLocation&) const = default;
  std::string name;
  std::uint64_t otf2_id = 0;
  std::uint64_t declared_events = 0;
};

// One Metric event: the values of its class's members, in member order.
struct MetricSample {
  bool operator==(const MetricSample&) const = default;
  double time = 0;
  std::uint32_t metric_class = 0;  // index into Definitions::metric_classes
  std::uint32_t first = 0;         // its values: MetricSamples::values[first, first + members)
  EventIndex before = kNone;       // master samples: the master event it precedes in the trace
};

// The samples of one location, in time order, with their values (OTF2_MetricValue bits, typed by
// the member's value_type).
struct MetricSamples {
  bool operator==(const MetricSamples&) const = default;
  std::vector<MetricSample> samples;
  std::vector<std::uint64_t> values;
  bool empty() const { return samples.empty(); }
};

// Per rank: [0] its master's samples, [k + 1] those of Location::metric_locations[k]. Empty when
// the trace has none.
using RankMetrics = std::vector<MetricSamples>;

// Per other location of the rank (Location::others[k], same order): its samples, `before` naming
// the region enter or leave of RankTrace::others[k] it precedes. Empty when the rank has none.
using OtherLocationMetrics = std::vector<MetricSamples>;

// Moves a rank's samples from the master's old timeline (`before`, its event times) to its new one
// (`after`, the same events): a master sample taken at the event it precedes keeps that event's new
// time (the strictly synchronous mode: at every enter and leave); any other sample (asynchronous,
// or of a metric location) follows the master's timeline piecewise linearly (follow_master).
// move_other_locations calls it.
void move_metrics(const std::vector<double>& before, const std::vector<double>& after, RankMetrics& metrics);

}  // namespace wisp
