// Trace-wide queries: event counts, start and end time, the summary, memory footprint, release.
#include "wisp/trace/trace.hpp"

#include "wisp/error.hpp"

#include "wisp/trace/trace_summary.hpp"

#ifdef __GLIBC__
#include <malloc.h>
#endif

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <tuple>
#include <utility>

namespace wisp {

std::uint64_t Trace::event_count() const {
  std::uint64_t n = 0;
  for (const auto& r : ranks) n += r.events.size();
  return n;
}

namespace {
// Over the ranks with events: the earliest first event and the latest last event ({0, 0} when
// no rank has events).
std::pair<double, double> event_range(const std::vector<RankTrace>& ranks) {
  double first = 0, last = 0;
  bool any = false;
  for (const auto& r : ranks) {
    if (r.events.empty()) continue;
    first = any ? std::min(first, r.events.front().time) : r.events.front().time;
    last = any ? std::max(last, r.events.back().time) : r.events.back().time;
    any = true;
  }
  return {first, last};
}
}  // namespace

double Trace::start_time() const { return event_range(ranks).first; }

double Trace::end_time() const {
  double end = 0;
  for (const auto& r : ranks)
    if (!r.events.empty()) end = std::max(end, r.events.back().time);
  return end;
}

double Trace::span() const {
  const auto [first, last] = event_range(ranks);
  return last - first;
}

TraceSummary::TraceSummary(const Trace& trace)
    : defs(trace.defs), ranks(trace.rank_count()), events(trace.event_count()) {
  std::tie(first, last) = event_range(trace.ranks);
}

const Message& Trace::message(std::uint32_t id) const {
  if (message_ids.empty()) return messages[id];
  const auto it = std::lower_bound(message_ids.begin(), message_ids.end(), id);
  if (it == message_ids.end() || *it != id) throw Error("message " + std::to_string(id) + " has no side here");
  return messages[static_cast<std::size_t>(it - message_ids.begin())];
}

TraceSummary summary_over(const Trace& trace, ProcessGroup& group) {
  TraceSummary whole(trace);
  if (!trace.share) return whole;
  struct Part {
    std::uint64_t events = 0;
    double first = 0, last = 0;
    bool any = false;
  };
  const Part mine{whole.events, whole.first, whole.last, whole.events > 0};
  whole.events = 0;
  bool any = false;
  for (const std::string& packet : all_gather(group, packed(mine))) {
    Unpacker in(packet);
    const auto p = in.get<Part>();
    whole.events += p.events;
    if (!p.any) continue;
    whole.first = any ? std::min(whole.first, p.first) : p.first;
    whole.last = any ? std::max(whole.last, p.last) : p.last;
    any = true;
  }
  return whole;
}

namespace {
template <typename T>
std::uint64_t bytes(const std::vector<T>& v) {
  return v.capacity() * sizeof(T);
}
}  // namespace

std::uint64_t memory_footprint(const Trace& trace) {
  std::uint64_t n = sizeof(Trace);
  for (const auto& r : trace.ranks) {
    n += sizeof(RankTrace) + bytes(r.events) + bytes(r.p2p) + bytes(r.collectives) + bytes(r.mpi_calls) +
         bytes(r.others) + bytes(r.thread_records);
    for (const auto& location : r.others) n += bytes(location);
    for (const auto& location : r.thread_records) n += bytes(location);
    n += bytes(r.metrics) + bytes(r.rma_records);
    for (const auto& location : r.rma_records) n += bytes(location);
    for (const auto& location : r.metrics) n += bytes(location.samples) + bytes(location.values);
    n += bytes(r.other_metrics);
    for (const auto& location : r.other_metrics) n += bytes(location.samples) + bytes(location.values);
    n += bytes(r.attributes);
    for (const auto& location : r.attributes) n += bytes(location.records) + bytes(location.values);
  }
  n += bytes(trace.messages) + bytes(trace.collectives) + bytes(trace.collective_members);
  const Definitions& d = trace.defs;
  n += bytes(d.ranks) + bytes(d.regions) + bytes(d.callpaths) + bytes(d.comms);
  for (const auto& r : d.regions) n += r.name.capacity() + r.canonical_name.capacity();
  for (const auto& c : d.comms) n += bytes(c.members);
  return n;
}

void return_free_memory() {
#ifdef __GLIBC__
  malloc_trim(0);
#endif
}

namespace {
// The whole pages inside v's buffer, back to the kernel (this process's copy of them).
template <typename T>
void forget(const std::vector<T>& v) {
  const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  const auto begin = (reinterpret_cast<std::uintptr_t>(v.data()) + page - 1) / page * page;
  const auto end = (reinterpret_cast<std::uintptr_t>(v.data()) + v.capacity() * sizeof(T)) / page * page;
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_DONTNEED);
}
}  // namespace

void forget_pages(const Trace& trace) {
  for (const RankTrace& r : trace.ranks) {
    forget(r.events);
    forget(r.p2p);
    forget(r.collectives);
    forget(r.mpi_calls);
  }
  forget(trace.messages);
  forget(trace.collectives);
  forget(trace.collective_members);
}

void release(Trace& trace) {
  trace = Trace{};
  return_free_memory();
}

}  // namespace wisp
