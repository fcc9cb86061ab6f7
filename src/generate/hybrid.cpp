// The hybrid MPI+OpenMP generator. See generators.hpp.
#include <algorithm>

#include "wisp/generate/common.hpp"

namespace wisp::gen {

namespace {

constexpr const char* kParallel = "!$omp parallel @hybrid.c:10";
constexpr const char* kBarrier = "!$omp implicit barrier @hybrid.c:20";

// Per thread of rank r, its work in an iteration (after balancing, if asked).
std::vector<double> team(const HybridOptions& o, Rank r) {
  std::vector<double> work(o.threads);
  for (std::uint32_t t = 0; t < o.threads; ++t) work[t] = hybrid_thread_work(o, r, t);
  if (o.balanced_threads) {
    double mean = 0;
    for (double w : work) mean += w / o.threads;
    std::fill(work.begin(), work.end(), mean);
  }
  return work;
}

// OpenMP roles and paradigm, as Score-P defines these regions.
void mark_openmp(Trace& t) {
  Region& par = t.defs.regions[*t.defs.find_region(kParallel)];
  par.otf2_role = 5, par.otf2_paradigm = 3;  // PARALLEL, OpenMP
  Region& bar = t.defs.regions[*t.defs.find_region(kBarrier)];
  bar.otf2_role = 16, bar.otf2_paradigm = 3;  // IMPLICIT_BARRIER, OpenMP
}

// The other threads' regions in every instance the master entered at time T0.
void add_threads(const HybridOptions& o, Trace& t) {
  const RegionId par = *t.defs.find_region(kParallel), bar = *t.defs.find_region(kBarrier);
  for (Rank r = 0; r < o.ranks; ++r) {
    const std::vector<double> work = team(o, r);
    const double longest = *std::max_element(work.begin(), work.end());
    t.ranks[r].others.assign(o.threads - 1, {});
    for (const Event& e : t.ranks[r].events) {
      if (e.kind != EventKind::Enter || t.defs.callpaths[e.callpath()].region != par) continue;
      for (std::uint32_t k = 1; k < o.threads; ++k)
        t.ranks[r].others[k - 1].insert(t.ranks[r].others[k - 1].end(), {{e.time, par, true},
                                                                         {e.time + work[k], bar, true},
                                                                         {e.time + longest, bar, false},
                                                                         {e.time + longest, par, false}});
    }
    for (std::uint32_t k = 1; k < o.threads; ++k) {
      const std::uint64_t records = t.ranks[r].others[k - 1].size();
      t.defs.ranks[r].others.push_back(ThreadLocation{"OMP thread " + std::to_string(k), LocationKind::CpuThread,
                                                      (std::uint64_t{k} << 32) + r, records, records});
    }
  }
}

}  // namespace

double hybrid_thread_work(const HybridOptions& o, Rank r, std::uint32_t t) {
  return o.work * (r == 0 ? 1 + o.rank_imbalance : 1) * (t + 1 == o.threads ? 1 + o.thread_imbalance : 1);
}

Trace generate_hybrid(const HybridOptions& o) {
  const char* kind = "hybrid";
  require(o.ranks >= 1 && o.threads >= 1 && o.iterations >= 1, kind,
          "--ranks, --threads and --iterations must be at least 1");
  require(o.threads <= 1024, kind, "--threads must be at most 1024");
  require_sane(o, kind, static_cast<double>(o.ranks) * o.threads, o.iterations);
  require(o.work > 0 && o.thread_imbalance >= 0 && o.rank_imbalance >= 0, kind,
          "--work must be positive, the imbalances not negative");
  Model m(o.ranks, "hybrid");
  apply_launch_jitter(m, o);
  const RegionId par = m.region(kParallel), bar = m.region(kBarrier);
  for (Rank r = 0; r < o.ranks; ++r) {
    const std::vector<double> work = team(o, r);
    const double longest = *std::max_element(work.begin(), work.end());
    RankProgram& prog = m.rank(r);
    for (std::uint32_t i = 0; i < o.iterations; ++i) {
      prog.enter(par);
      prog.compute(work[0]);
      prog.work(bar, longest - work[0]);  // the master waits for its team
      prog.leave(par);
      prog.allreduce(m.world(), 8);
    }
  }
  Trace t = m.run(o.model);
  mark_openmp(t);
  add_threads(o, t);
  return t;
}

}  // namespace wisp::gen
