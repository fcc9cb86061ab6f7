// Trace-wide queries: event counts, start and end time, memory footprint.
#include "wisp/trace/trace.hpp"

#include <algorithm>

namespace wisp {

std::uint64_t Trace::event_count() const {
  std::uint64_t n = 0;
  for (const auto& r : ranks) n += r.events.size();
  return n;
}

double Trace::start_time() const {
  double start = 0;
  bool any = false;
  for (const auto& r : ranks) {
    if (r.events.empty()) continue;
    start = any ? std::min(start, r.events.front().time) : r.events.front().time;
    any = true;
  }
  return start;
}

double Trace::end_time() const {
  double end = 0;
  for (const auto& r : ranks)
    if (!r.events.empty()) end = std::max(end, r.events.back().time);
  return end;
}

double Trace::span() const {
  double last = 0;
  bool any = false;
  for (const auto& r : ranks) {
    if (r.events.empty()) continue;
    last = any ? std::max(last, r.events.back().time) : r.events.back().time;
    any = true;
  }
  return last - start_time();
}

namespace {
template <typename T>
std::uint64_t bytes(const std::vector<T>& v) {
  return v.capacity() * sizeof(T);
}
}  // namespace

std::uint64_t memory_footprint(const Trace& trace) {
  std::uint64_t n = sizeof(Trace);
  for (const auto& r : trace.ranks)
    n += sizeof(RankTrace) + bytes(r.events) + bytes(r.p2p) + bytes(r.collectives) +
         bytes(r.mpi_calls);
  n += bytes(trace.messages) + bytes(trace.collectives) + bytes(trace.collective_members);
  const Definitions& d = trace.defs;
  n += bytes(d.ranks) + bytes(d.regions) + bytes(d.callpaths) + bytes(d.comms);
  for (const auto& r : d.regions) n += r.name.capacity() + r.canonical_name.capacity();
  for (const auto& c : d.comms) n += bytes(c.members);
  return n;
}

}  // namespace wisp
