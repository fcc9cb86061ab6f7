// The synthetic load-imbalance benchmark of paper 000 §IV-A. See generators.hpp.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "wisp/generate/common.hpp"

namespace wisp::gen {

double imbalance_balanced_runtime(const ImbalanceOptions& o) {
  const ModelParams& p = o.model;
  const auto launch = launch_times(o, o.ranks);
  const double start = *std::max_element(launch.begin(), launch.end());  // MPI_Init waits for it
  const double barrier = p.overhead + p.collective(o.ranks, 0);
  return start + p.overhead + p.init_time + o.iterations * (o.work + barrier) + barrier;
}

Trace generate_imbalance(const ImbalanceOptions& o) {
  const char* kind = "imbalance";
  require(o.ranks >= 1, kind, "--ranks must be at least 1");
  require(o.iterations >= 1, kind, "--iterations must be at least 1");
  require(o.work > 0, kind, "--work must be positive");
  require_sane(o, kind, o.ranks, o.iterations);
  require(o.percent >= 0, kind, "--percent must not be negative");
  const bool balanced = o.mode == "balanced";
  require(balanced || o.mode == "static" || o.mode == "dynamic" || o.mode == "mixed", kind,
          "--mode must be balanced, static, dynamic or mixed (got '" + o.mode + "')");
  require(balanced || o.ranks >= 2, kind, "imbalanced modes need at least 2 ranks");

  const std::uint32_t P = o.ranks, N = o.iterations;
  const double w = o.work;
  const double e = balanced ? 0.0 : o.percent / 100.0 * imbalance_balanced_runtime(o) / N;
  const double under = P > 1 ? e / (P - 1) : 0.0;
  require(w - e > 0 && w - under > 0, kind, "--percent is too large for --work (negative work)");

  // Overloaded rank per iteration (dynamic, mixed).
  std::vector<Rank> hot(N, 0);
  if (o.mode == "dynamic") {
    std::mt19937_64 rng(o.seed);
    std::vector<Rank> perm(P);
    for (std::uint32_t k = 0; k < N; ++k) {
      if (k % P == 0) {
        std::iota(perm.begin(), perm.end(), 0);
        std::shuffle(perm.begin(), perm.end(), rng);
      }
      hot[k] = perm[k % P];
    }
  } else if (o.mode == "mixed") {
    for (std::uint32_t k = 0; k < N; ++k) hot[k] = k < N / 2 ? 0 : P - 1;
  }

  Model m(P, "imbalance");
  apply_launch_jitter(m, o);
  const RegionId work = m.region("work");
  for (Rank r = 0; r < P; ++r) {
    RankProgram& prog = m.rank(r);
    for (std::uint32_t k = 0; k < N; ++k) {
      double d = w;
      if (o.mode == "static")
        d = w + e * (2.0 * r / (P - 1) - 1.0);
      else if (!balanced)
        d = hot[k] == r ? w + e : w - under;
      prog.work(work, d);
      prog.barrier(m.world());
    }
  }
  return m.run(o.model);
}

}  // namespace wisp::gen
