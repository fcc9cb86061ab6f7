// POP's hybrid factors. See pop_hybrid.hpp.
#include "wisp/analysis/pop_hybrid.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "wisp/trace/trace_summary.hpp"

namespace wisp {

namespace {

// The master's time in MPI calls and in OpenMP barriers.
struct MasterTimes {
  double mpi = 0, barrier = 0;
};

MasterTimes master_times(const Trace& t, Rank r) {
  MasterTimes m;
  const auto& events = t.ranks[r].events;
  for (const CallSpan& call : t.ranks[r].mpi_calls) m.mpi += events[call.leave].time - events[call.enter].time;
  std::vector<double> open;  // enters of the open barrier visits
  for (const Event& e : events) {
    if ((e.kind != EventKind::Enter && e.kind != EventKind::Leave) ||
        !is_openmp_barrier(t.defs.region_of(e.callpath())))
      continue;
    if (e.kind == EventKind::Enter) {
      open.push_back(e.time);
    } else if (!open.empty()) {
      if (open.size() == 1) m.barrier += e.time - open.back();  // nested barriers count once
      open.pop_back();
    }
  }
  return m;
}

// A thread's useful time: inside its regions, outside OpenMP barriers.
double thread_useful(const Definitions& defs, const std::vector<LocationEvent>& events) {
  double useful = 0, last = 0;
  int depth = 0, barriers = 0;
  for (const LocationEvent& e : events) {
    if (depth > 0 && barriers == 0) useful += e.time - last;
    last = e.time;
    const bool barrier = is_openmp_barrier(defs.regions[e.region]);
    depth += e.enter ? 1 : -1;
    barriers += barrier ? (e.enter ? 1 : -1) : 0;
    depth = std::max(depth, 0), barriers = std::max(barriers, 0);
  }
  return useful;
}

// A rank's part of the factors: its master's time in MPI calls and in OpenMP barriers, and the
// useful time of each of its CPU threads (none: not hybrid).
struct RankPart {
  double mpi = 0, barrier = 0;
  std::vector<double> threads;
};

RankPart rank_part(const Trace& t, Rank r) {
  const MasterTimes m = master_times(t, r);
  RankPart part{m.mpi, m.barrier, {}};
  for (std::size_t k = 0; k < t.ranks[r].others.size(); ++k)
    if (t.defs.ranks[r].others[k].kind == LocationKind::CpuThread)
      part.threads.push_back(thread_useful(t.defs, t.ranks[r].others[k]));
  return part;
}

// The factors from every rank's part, summed in rank order.
std::optional<HybridPopFactors> combine(double runtime, const std::vector<RankPart>& parts) {
  HybridPopFactors f;
  f.runtime = runtime;
  double useful = 0, outside_sum = 0, outside_max = 0;
  bool hybrid = false;
  for (const RankPart& part : parts) {
    const double outside = f.runtime - part.mpi;
    outside_sum += outside;
    outside_max = std::max(outside_max, outside);
    useful += outside - part.barrier;
    f.threads += 1;
    for (const double thread : part.threads) {
      hybrid = true;
      f.threads += 1;
      useful += thread;
    }
  }
  if (!hybrid || f.runtime <= 0) return std::nullopt;
  f.hybrid_parallel_efficiency = useful / (static_cast<double>(f.threads) * f.runtime);
  f.mpi_communication_efficiency = outside_max / f.runtime;
  f.mpi_load_balance = outside_max > 0 ? outside_sum / static_cast<double>(parts.size()) / outside_max : 0;
  f.mpi_parallel_efficiency = f.mpi_load_balance * f.mpi_communication_efficiency;
  f.openmp_parallel_efficiency =
      f.mpi_parallel_efficiency > 0 ? f.hybrid_parallel_efficiency / f.mpi_parallel_efficiency : 0;
  return f;
}

// Whether any rank has a CPU thread besides its master (else the factors are none, and no rank's
// events need reading).
bool any_threads(const Definitions& defs) {
  for (const auto& rank : defs.ranks)
    for (const auto& other : rank.others)
      if (other.kind == LocationKind::CpuThread) return true;
  return false;
}

}  // namespace

std::optional<HybridPopFactors> hybrid_pop_factors(const Trace& t) {
  if (!any_threads(t.defs)) return std::nullopt;
  std::vector<RankPart> parts;
  for (Rank r = 0; r < t.rank_count(); ++r) parts.push_back(rank_part(t, r));
  return combine(t.span(), parts);
}

std::optional<HybridPopFactors> hybrid_pop_factors(const Trace& t, const TraceSummary& whole, ProcessGroup& group) {
  if (!any_threads(t.defs)) return std::nullopt;  // the same on every process: the definitions
  Packer mine;
  for (Rank r = t.share->first; r < t.share->last; ++r) {
    const RankPart part = rank_part(t, r);
    mine.put(part.mpi).put(part.barrier).put_vector(part.threads);
  }
  std::vector<RankPart> parts;
  for (const std::string& packet : all_gather(group, mine.take())) {
    Unpacker in(packet);
    while (!in.done()) {
      RankPart part;
      part.mpi = in.get<double>();
      part.barrier = in.get<double>();
      part.threads = in.get_vector<double>();
      parts.push_back(std::move(part));
    }
  }
  return combine(whole.span(), parts);
}

}  // namespace wisp
