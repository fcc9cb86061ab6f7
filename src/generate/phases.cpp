// Four-phase run for time-resolved metrics (paper 003 §5.1). See generators.hpp.
#include "wisp/generate/common.hpp"

namespace wisp::gen {

namespace {
// Non-blocking exchange with the left and right neighbour on a line of ranks.
void exchange(RankProgram& prog, Rank r, std::uint32_t P, std::uint64_t bytes, CommId world) {
  std::vector<Request> requests;
  if (r > 0) requests.push_back(prog.irecv(r - 1, bytes, 1, world));
  if (r + 1 < P) requests.push_back(prog.irecv(r + 1, bytes, 0, world));
  if (r > 0) requests.push_back(prog.isend(r - 1, bytes, 0, world));
  if (r + 1 < P) requests.push_back(prog.isend(r + 1, bytes, 1, world));
  prog.waitall(requests);
}
}  // namespace

Trace generate_phases(const PhasesOptions& o) {
  const char* kind = "phases";
  require(o.ranks >= 2, kind, "--ranks must be at least 2");
  require(o.iterations >= 1, kind, "--iterations must be at least 1");
  require_sane(o, kind, o.ranks, o.iterations);
  require(o.work > 0 && o.imbalance >= 0, kind, "--work must be positive, --imbalance not negative");
  const std::uint32_t P = o.ranks;
  Model m(P, "phases");
  apply_launch_jitter(m, o);
  const RegionId relax = m.region("relax");
  const CommId world = m.world();
  for (Rank r = 0; r < P; ++r) {
    RankProgram& prog = m.rank(r);
    for (std::uint32_t k = 0; k < o.iterations; ++k) {  // 1: balanced
      prog.work(relax, o.work);
      exchange(prog, r, P, o.small_bytes, world);
      prog.allreduce(world, 8);
    }
    const double heavy = r >= P / 2 ? 1.0 + o.imbalance : 1.0;
    for (std::uint32_t k = 0; k < o.iterations; ++k) {  // 2: compute imbalance
      prog.work(relax, o.work * heavy);
      exchange(prog, r, P, o.small_bytes, world);
      prog.allreduce(world, 8);
    }
    for (std::uint32_t k = 0; k < o.iterations; ++k) {  // 3: serialisation
      if (r > 0) prog.recv(r - 1, 8, 2, world);
      prog.work(relax, o.work);
      if (r + 1 < P) prog.send(r + 1, 8, 2, world);
      prog.allreduce(world, 8);
    }
    for (std::uint32_t k = 0; k < o.iterations; ++k) {  // 4: slow transfers
      prog.work(relax, o.work);
      exchange(prog, r, P, o.big_bytes, world);
      prog.allreduce(world, 8);
    }
  }
  return m.run(o.model);
}

}  // namespace wisp::gen
