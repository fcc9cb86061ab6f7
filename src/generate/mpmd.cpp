// Two coupled partitions (MPMD). See generators.hpp.
#include <numeric>

#include "wisp/generate/common.hpp"

namespace wisp::gen {

Trace generate_mpmd(const MpmdOptions& o) {
  const char* kind = "mpmd";
  require(o.particle_ranks >= 1 && o.mesh_ranks >= 1, kind, "both partitions need at least 1 rank");
  require(o.steps >= 1, kind, "--steps must be at least 1");
  require_sane(o, kind, static_cast<double>(o.particle_ranks) + o.mesh_ranks, o.steps);
  require(o.particle_work > 0 && o.mesh_work > 0, kind, "partition work must be positive");
  require(o.shift >= 0 && o.shift < 1, kind, "--shift must be in [0, 1)");
  const std::uint32_t Pp = o.particle_ranks, Pm = o.mesh_ranks, P = Pp + Pm;

  Model m(P, "mpmd");
  apply_launch_jitter(m, o);
  std::vector<Rank> particles(Pp), mesh(Pm);
  std::iota(particles.begin(), particles.end(), 0);
  std::iota(mesh.begin(), mesh.end(), Pp);
  const CommId particle_comm = m.add_comm("particle partition", particles);
  const CommId mesh_comm = m.add_comm("mesh partition", mesh);
  const RegionId push = m.region("particle_push");
  const RegionId solve = m.region("mesh_solve");
  const double moved = o.shift * o.mesh_work;
  const double particle_step = (o.particle_work + moved) / Pp;
  const double mesh_step = (o.mesh_work - moved) / Pm;
  const CommId world = m.world();

  for (Rank r = 0; r < P; ++r) {
    RankProgram& prog = m.rank(r);
    const bool is_particle = r < Pp;
    prog.comm_split(world, is_particle ? particle_comm : mesh_comm);
    for (std::uint32_t s = 0; s < o.steps; ++s) {
      if (is_particle) {
        const Rank partner = Pp + r % Pm;
        prog.work(push, particle_step);
        prog.allreduce(particle_comm, 8);
        prog.send(partner, o.bytes, 1, world);
        prog.recv(partner, o.bytes, 2, world);
      } else {
        const std::uint32_t q = r - Pp;
        prog.work(solve, mesh_step);
        prog.allreduce(mesh_comm, 8);
        for (Rank i = q; i < Pp; i += Pm) prog.recv(i, o.bytes, 1, world);
        for (Rank i = q; i < Pp; i += Pm) prog.send(i, o.bytes, 2, world);
      }
    }
  }
  return m.run(o.model);
}

}  // namespace wisp::gen
