// `wisp info`: a summary of a trace as JSON and as text. See trace_info.hpp.
#include "wisp/report/trace_info.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>

#include "wisp/analysis/flat_profile.hpp"
#include "wisp/scenario/region_names.hpp"

namespace wisp {

namespace {

struct Counts {
  std::array<std::uint64_t, kEventKindCount> by_kind{};
  std::map<RegionKind, std::uint32_t> regions_by_kind;
  std::map<CollectiveOp, std::uint64_t> collectives_by_op;
  std::uint64_t message_bytes = 0;
  double start = 0, end = 0;
};

Counts count(const Trace& t) {
  Counts c;
  for (const auto& rt : t.ranks)
    for (const Event& e : rt.events) ++c.by_kind[static_cast<std::size_t>(e.kind)];
  c.start = t.start_time();
  c.end = t.end_time();
  std::vector<bool> used(t.defs.regions.size(), false);
  for (const auto& cp : t.defs.callpaths) used[cp.region] = true;
  for (RegionId r = 0; r < t.defs.regions.size(); ++r)
    if (used[r]) ++c.regions_by_kind[t.defs.regions[r].kind];
  for (const auto& inst : t.collectives) ++c.collectives_by_op[inst.op];
  for (const auto& m : t.messages) c.message_bytes += t.send_of(m).bytes;
  return c;
}

// The other locations of the ranks' processes (hybrid traces).
struct OtherLocations {
  std::uint64_t threads = 0, streams = 0, records = 0;
  std::uint32_t min_threads = 0, max_threads = 0, min_streams = 0, max_streams = 0;
};

OtherLocations other_locations(const Trace& t) {
  OtherLocations o;
  for (Rank r = 0; r < t.rank_count(); ++r) {
    std::uint32_t threads = 0, streams = 0;
    for (const ThreadLocation& l : t.defs.ranks[r].others) {
      (l.kind == LocationKind::CpuThread ? threads : streams) += 1;
      o.records += l.records;
    }
    o.threads += threads;
    o.streams += streams;
    o.min_threads = r == 0 ? threads : std::min(o.min_threads, threads);
    o.max_threads = std::max(o.max_threads, threads);
    o.min_streams = r == 0 ? streams : std::min(o.min_streams, streams);
    o.max_streams = std::max(o.max_streams, streams);
  }
  return o;
}

std::string range(std::uint32_t lo, std::uint32_t hi) {
  return lo == hi ? fmt::format("{}", lo) : fmt::format("{}-{}", lo, hi);
}

// "2 (per rank: master thread + 3 threads + 1 accelerator stream; ...)" for hybrid traces.
std::string ranks_text(const Trace& t) {
  const OtherLocations o = other_locations(t);
  if (o.threads + o.streams == 0) return fmt::format("{}", t.rank_count());
  return fmt::format(
      "{} (per rank: master thread + {} other thread{} + {} accelerator stream{}; of their {} records "
      "the regions and thread records follow the master's timeline, the rest is counted: analyses "
      "and replay use the "
      "master threads)",
      t.rank_count(), range(o.min_threads, o.max_threads), o.max_threads == 1 ? "" : "s",
      range(o.min_streams, o.max_streams), o.max_streams == 1 ? "" : "s", o.records);
}

// Thread records kept, by kind, over every location (masters included), in OTF2's names.
std::map<std::string, std::uint64_t> thread_record_counts(const Trace& t) {
  std::map<std::string, std::uint64_t> out;
  for (const RankTrace& rt : t.ranks)
    for (const auto& location : rt.thread_records)
      for (const ThreadRecord& r : location) ++out[std::string(to_string(r.kind))];
  return out;
}

// Teams of threads (OpenMP, ...), not the accelerator teams the RMA windows refer to.
std::size_t thread_team_count(const Trace& t) {
  return static_cast<std::size_t>(std::count_if(t.defs.thread_teams.begin(), t.defs.thread_teams.end(),
                                                [](const ThreadTeam& team) { return !team.accelerator; }));
}

std::string thread_records_text(const Trace& t) {
  std::string out;
  std::uint64_t total = 0;
  for (const auto& [kind, n] : thread_record_counts(t)) {
    out += fmt::format("{}{} {}", out.empty() ? "" : ", ", n, kind);
    total += n;
  }
  const std::size_t teams = thread_team_count(t);
  return fmt::format("{} thread records in {} team{}: {}", total, teams, teams == 1 ? "" : "s", out);
}

// Per anomaly kind that occurred: its count and examples.
std::string anomaly_examples(const Anomalies& anomalies) {
  std::string out;
  for (int k = 0; k < kAnomalyKindCount; ++k) {
    const auto& a = anomalies[static_cast<AnomalyKind>(k)];
    if (!a.count) continue;
    out += fmt::format("  {} ({}):\n", to_string(static_cast<AnomalyKind>(k)), a.count);
    for (const auto& e : a.examples) out += fmt::format("    {}\n", e);
    if (a.count > a.examples.size()) out += fmt::format("    ... and {} more\n", a.count - a.examples.size());
  }
  return out;
}

// "N what, ..." of the OTF2 records wisp does not model, or "none".
std::string skipped_text(const Trace& t) {
  if (t.skipped_records.empty()) return "none";
  std::string skipped;
  for (const auto& [what, n] : t.skipped_records)
    skipped += fmt::format("{}{} {}", skipped.empty() ? "" : ", ", n, what);
  return skipped;
}

// OTF2's paradigm of a region as wisp info names it (OTF2_Paradigm values, OTF2_GeneralDefinitions.h).
std::string paradigm_of(const Region& r) {
  if (is_mpi(r.kind)) return "MPI";
  if (r.kind == RegionKind::Measurement) return "measurement";
  switch (r.otf2_paradigm) {
    case 2:
      return "compiler";
    case 3:
      return "OpenMP";
    case 5:
      return "CUDA";
    case 7:
      return "pthreads";
    case 13:
      return "SHMEM";
    case 18:
      return "OpenACC";
    case 19:
      return "OpenCL";
    case 23:
      return "HIP";
    case 24:
      return "Kokkos";
    default:
      return "user";
  }
}

double share(double part, double whole) { return whole > 0 ? part / whole : 0.0; }

}  // namespace

nlohmann::json flat_profile_json(const Trace& t) {
  const FlatProfile p = flat_profile(t);
  nlohmann::json rows = nlohmann::json::array();
  for (const RegionProfileRow& row : p.rows) {
    const Region& r = t.defs.regions[row.region];
    rows.push_back({{"region", r.name},
                    {"short_name", short_name(r.name)},
                    {"paradigm", paradigm_of(r)},
                    {"visits", row.visits},
                    {"exclusive_time", row.time},
                    {"max_rank_time", row.max_time},
                    {"max_rank", row.max_rank},
                    {"share", share(row.time, p.total)},
                    {"source", source_location(r)}});
  }
  return {{"time", "exclusive"}, {"total", p.total}, {"rows", std::move(rows)}};
}

std::string flat_profile_text(const Trace& t, const std::string& source) {
  const FlatProfile p = flat_profile(t);
  std::string out = fmt::format(
      "{}: flat profile, exclusive time (a region's own time, without the regions it calls) "
      "of the {} ranks' master threads, {:.6f} s in all\n",
      source, t.rank_count(), p.total);
  out += fmt::format("  {:>14} {:>7} {:>14} {:>6} {:>10}  {:<11} {}\n", "exclusive [s]", "share", "max rank [s]",
                     "rank", "visits", "paradigm", "region (short name = full name)");
  for (const RegionProfileRow& row : p.rows) {
    const Region& r = t.defs.regions[row.region];
    const std::string shorter = short_name(r.name);
    std::string name = shorter == r.name ? r.name : fmt::format("{} = {}", shorter, middle_shortened(r.name, 100));
    if (std::string at = source_location(r); !at.empty())  // the file's tail: its name and line
      name.append("  (").append(at.size() > 60 ? "..." + at.substr(at.size() - 57) : at).append(")");
    out += fmt::format("  {:>14.6f} {:>6.2f}% {:>14.6f} {:>6} {:>10}  {:<11} {}\n", row.time,
                       100 * share(row.time, p.total), row.max_time, row.max_rank, row.visits, paradigm_of(r), name);
  }
  return out;
}

// Counter samples kept: on the master threads and on the metric locations.
struct MetricCounts {
  std::uint64_t master = 0, metric_locations = 0, locations = 0, other_threads = 0;
};
MetricCounts metric_counts(const Trace& t) {
  MetricCounts c;
  for (const Location& rank : t.defs.ranks) c.locations += rank.metric_locations.size();
  for (const RankTrace& rt : t.ranks)
    for (std::size_t l = 0; l < rt.metrics.size(); ++l)
      (l == 0 ? c.master : c.metric_locations) += rt.metrics[l].samples.size();
  for (const RankTrace& rt : t.ranks)
    for (const MetricSamples& location : rt.other_metrics) c.other_threads += location.samples.size();
  return c;
}

// "3 counters (PAPI_TOT_CYC, PAPI_L2_TCM, PAPI_BR_MSP) in 1 class; 84 samples on the master threads, ..."
std::string metrics_text(const Trace& t) {
  const MetricCounts c = metric_counts(t);
  std::string names;
  for (const MetricMember& m : t.defs.metric_members) names += (names.empty() ? "" : ", ") + m.name;
  const auto instances =
      static_cast<std::size_t>(std::count_if(t.defs.metric_classes.begin(), t.defs.metric_classes.end(),
                                             [](const MetricClass& k) { return k.is_instance(); }));
  const std::size_t classes = t.defs.metric_classes.size() - instances;
  return fmt::format(
      "{} counter{} ({}) in {} class{}{}; {} samples on the master threads, {}{} on {} metric location{}",
      t.defs.metric_members.size(), t.defs.metric_members.size() == 1 ? "" : "s", names, classes,
      classes == 1 ? "" : "es", instances ? fmt::format(" and {} instance(s)", instances) : "", c.master,
      c.other_threads ? fmt::format("{} on the other threads and streams, ", c.other_threads) : "", c.metric_locations,
      c.locations, c.locations == 1 ? "" : "s");
}

nlohmann::json metrics_json(const Trace& t) {
  const MetricCounts c = metric_counts(t);
  nlohmann::json members = nlohmann::json::array();
  for (const MetricMember& m : t.defs.metric_members)
    members.push_back({{"name", m.name}, {"description", m.description}, {"unit", m.unit}});
  return {
      {"members", members},
      {"classes", t.defs.metric_classes.size()},
      {"samples", {{"master", c.master}, {"other_threads", c.other_threads}, {"metric_locations", c.metric_locations}}},
      {"metric_locations", c.locations}};
}

// Kept attribute lists: the records that carry them and their values per attribute.
struct AttributeCounts {
  std::uint64_t records = 0;
  std::vector<std::uint64_t> values;  // per Definitions::attributes
};
AttributeCounts attribute_counts(const Trace& t) {
  AttributeCounts c;
  c.values.assign(t.defs.attributes.size(), 0);
  for (const RankTrace& rt : t.ranks)
    for (const LocationAttributes& location : rt.attributes) {
      c.records += location.records.size();
      for (const AttributeValue& v : location.values) ++c.values[v.attribute];
    }
  return c;
}

// "4 defined; 2 records carry them (ProcessId 2)"
std::string attributes_text(const Trace& t) {
  const AttributeCounts c = attribute_counts(t);
  std::string used;
  for (std::size_t a = 0; a < c.values.size(); ++a)
    if (c.values[a]) used += fmt::format("{}{} {}", used.empty() ? "" : ", ", t.defs.attributes[a].name, c.values[a]);
  return fmt::format("{} defined; {} records carry them{}", t.defs.attributes.size(), c.records,
                     used.empty() ? "" : " (" + used + ")");
}

nlohmann::json attributes_json(const Trace& t) {
  const AttributeCounts c = attribute_counts(t);
  nlohmann::json defined = nlohmann::json::array();
  for (std::size_t a = 0; a < c.values.size(); ++a)
    defined.push_back({{"name", t.defs.attributes[a].name},
                       {"description", t.defs.attributes[a].description},
                       {"values", c.values[a]}});
  return {{"defined", defined}, {"records", c.records}};
}

nlohmann::json trace_info_json(const Trace& t, const std::string& source) {
  const Counts c = count(t);
  nlohmann::json j;
  j["trace"] = source;
  j["creator"] = t.defs.creator;
  j["program"] = t.defs.program_name;
  j["program_arguments"] = t.defs.program_arguments;
  j["ranks"] = t.rank_count();
  j["paradigms"] = t.defs.paradigms;
  j["thread_records"] = thread_record_counts(t);
  j["thread_teams"] = thread_team_count(t);
  j["metrics"] = metrics_json(t);
  j["attributes"] = attributes_json(t);
  const OtherLocations o = other_locations(t);
  j["locations"] = {{"masters", t.rank_count()},
                    {"threads", o.threads},
                    {"streams", o.streams},
                    {"records", o.records},
                    {"per_rank", nlohmann::json::array()}};
  for (const Location& rank : t.defs.ranks) {
    nlohmann::json others = nlohmann::json::array();
    for (const ThreadLocation& l : rank.others)
      others.push_back({{"name", l.name},
                        {"kind", l.kind == LocationKind::CpuThread ? "thread" : "accelerator stream"},
                        {"records", l.records}});
    j["locations"]["per_rank"].push_back({{"master", rank.name}, {"others", others}});
  }
  j["clock"] = {{"ticks_per_second", t.defs.clock.ticks_per_second}, {"global_offset", t.defs.clock.global_offset}};
  j["start"] = c.start;
  j["end"] = c.end;
  j["duration"] = c.end - c.start;
  j["events"]["total"] = t.event_count();
  for (int k = 0; k < kEventKindCount; ++k)
    if (c.by_kind[k]) j["events"]["by_kind"][std::string(to_string(static_cast<EventKind>(k)))] = c.by_kind[k];
  for (const auto& [kind, n] : c.regions_by_kind) j["regions"][std::string(to_string(kind))] = n;
  j["callpaths"] = t.defs.callpaths.size();
  j["communicators"] = nlohmann::json::array();
  for (const auto& comm : t.defs.comms)
    j["communicators"].push_back({{"name", comm.name}, {"size", comm.size()}, {"self", comm.self}});
  j["messages"] = {{"matched", t.messages.size()}, {"bytes", c.message_bytes}};
  j["collectives"]["instances"] = t.collectives.size();
  for (const auto& [op, n] : c.collectives_by_op) j["collectives"]["by_operation"][std::string(to_string(op))] = n;
  j["anomalies"] = nlohmann::json::array();
  for (int k = 0; k < kAnomalyKindCount; ++k) {
    const auto& a = t.anomalies[static_cast<AnomalyKind>(k)];
    if (a.count)
      j["anomalies"].push_back({{"kind", std::string(to_string(static_cast<AnomalyKind>(k)))},
                                {"count", a.count},
                                {"examples", a.examples}});
  }
  j["skipped_records"] = nlohmann::json::object();
  for (const auto& [what, n] : t.skipped_records) j["skipped_records"][what] = n;
  j["flat_profile"] = flat_profile_json(t);
  return j;
}

std::string trace_info_text(const Trace& t, const std::string& source) {
  const Counts c = count(t);
  std::string out;
  const auto line = [&](std::string_view key, const std::string& value) {
    out += fmt::format("{:<14}{}\n", key, value);
  };
  line("trace", source);
  if (!t.defs.creator.empty()) line("creator", t.defs.creator);
  if (!t.defs.program_name.empty()) {
    std::string program = t.defs.program_name;
    for (const std::string& argument : t.defs.program_arguments) program += " " + argument;
    line("program", program);
  }
  line("ranks", ranks_text(t));
  if (!t.defs.paradigms.empty()) {
    std::string paradigms;
    for (const std::string& p : t.defs.paradigms) paradigms += (paradigms.empty() ? "" : ", ") + p;
    line("paradigms", paradigms);
  }
  if (!thread_record_counts(t).empty()) line("threading", thread_records_text(t));
  if (!t.defs.metric_members.empty()) line("metrics", metrics_text(t));
  if (!t.defs.attributes.empty()) line("attributes", attributes_text(t));
  line("duration", fmt::format("{:.6f} s (first event at {:.6f} s, last at {:.6f} s; clock {} ticks/s)",
                               c.end - c.start, c.start, c.end, t.defs.clock.ticks_per_second));
  line("events", fmt::format("{}", t.event_count()));
  for (int k = 0; k < kEventKindCount; ++k)
    if (c.by_kind[k]) out += fmt::format("  {:<22}{:>12}\n", to_string(static_cast<EventKind>(k)), c.by_kind[k]);
  std::string regions;
  for (const auto& [kind, n] : c.regions_by_kind)
    regions += fmt::format("{}{} {}", regions.empty() ? "" : ", ", n, to_string(kind));
  line("regions", regions.empty() ? "none" : regions);
  line("call paths", fmt::format("{}", t.defs.callpaths.size()));
  std::string comms;
  for (const auto& comm : t.defs.comms)
    comms += fmt::format("{}{} ({})", comms.empty() ? "" : ", ", comm.name,
                         comm.self ? std::string("self") : fmt::format("{} ranks", comm.size()));
  line("communicators", comms);
  line("messages", fmt::format("{} matched, {} bytes", t.messages.size(), c.message_bytes));
  std::string colls = fmt::format("{} instances", t.collectives.size());
  for (const auto& [op, n] : c.collectives_by_op) colls += fmt::format(", {} {}", n, to_string(op));
  line("collectives", colls);
  line("anomalies", t.anomalies.total() == 0 ? std::string("none") : fmt::format("{}", t.anomalies.total()));
  out += anomaly_examples(t.anomalies);
  line("skipped", skipped_text(t));
  return out;
}

}  // namespace wisp
