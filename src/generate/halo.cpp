// Non-blocking halo exchange on a periodic grid. See generators.hpp.
#include <algorithm>

#include "wisp/generate/common.hpp"

namespace wisp::gen {

std::string halo_compute_name(bool cxx) {
  return cxx ? "void Stencil<double, 3>::compute(std::vector<double, std::allocator<double> >&, int)" : "compute";
}
std::string halo_boundary_name(bool cxx) {
  return cxx ? "Halo::operator()(Field const&, std::pair<int, int>) const" : "boundary";
}

namespace {

// Coordinates of rank r on the grid (first dimension fastest) and back.
std::vector<std::uint32_t> coords_of(Rank r, const std::vector<std::uint32_t>& dims) {
  std::vector<std::uint32_t> c(dims.size());
  for (std::size_t d = 0; d < dims.size(); ++d) {
    c[d] = r % dims[d];
    r /= dims[d];
  }
  return c;
}
Rank rank_of(const std::vector<std::uint32_t>& c, const std::vector<std::uint32_t>& dims) {
  Rank r = 0;
  for (std::size_t d = dims.size(); d-- > 0;) r = r * dims[d] + c[d];
  return r;
}

// A message travelling + along dimension d has tag 2d+1, one travelling - has tag 2d.
struct Neighbour {
  Rank rank;
  std::int32_t recv_tag, send_tag;
};

// For each dimension of size > 1, the neighbour below (-) and above (+), periodic.
std::vector<Neighbour> neighbours_of(Rank r, const std::vector<std::uint32_t>& dims) {
  std::vector<Neighbour> neighbours;
  const auto c = coords_of(r, dims);
  for (std::size_t d = 0; d < dims.size(); ++d) {
    if (dims[d] < 2) continue;
    auto below = c, above = c;
    below[d] = (c[d] + dims[d] - 1) % dims[d];
    above[d] = (c[d] + 1) % dims[d];
    const auto dd = static_cast<std::int32_t>(d);
    neighbours.push_back({rank_of(below, dims), 2 * dd + 1, 2 * dd});
    neighbours.push_back({rank_of(above, dims), 2 * dd, 2 * dd + 1});
  }
  return neighbours;
}

// Checks the options; returns the number of ranks.
std::uint32_t checked_ranks(const HaloOptions& o) {
  const char* kind = "halo";
  require(o.dims.size() == 2 || o.dims.size() == 3, kind, "--dims must be 2-D or 3-D (e.g. 4x4)");
  double ranks = 1;
  for (auto d : o.dims) {
    require(d >= 1, kind, "--dims must be at least 1 in every dimension");
    ranks *= d;
  }
  require(o.steps >= 1, kind, "--steps must be at least 1");
  require_sane(o, kind, ranks, o.steps);
  const auto P = static_cast<std::uint32_t>(ranks);
  require(o.work > 0 && o.boundary_work >= 0 && o.overload >= 0, kind,
          "work must be positive and --overload not negative");
  require(o.overload_region == "compute" || o.overload_region == "boundary", kind,
          "--overload-region must be compute or boundary");
  for (Rank r : o.overload_ranks) require(r < P, kind, "--overload-ranks names a rank beyond the grid");
  return P;
}

}  // namespace

Trace generate_halo(const HaloOptions& o) {
  const std::uint32_t P = checked_ranks(o);
  Model m(P, "halo");
  apply_launch_jitter(m, o);
  const RegionId compute = m.region(halo_compute_name(o.cxx_names));
  const RegionId boundary = m.region(halo_boundary_name(o.cxx_names));
  const CommId world = m.world();
  const double share = static_cast<double>(o.overload_ranks.size()) / P;
  const bool on_compute = o.overload_region == "compute";

  for (Rank r = 0; r < P; ++r) {
    const bool hot = std::find(o.overload_ranks.begin(), o.overload_ranks.end(), r) != o.overload_ranks.end();
    const double factor = o.balanced ? 1.0 + o.overload * share : (hot ? 1.0 + o.overload : 1.0);
    const double w_compute = o.work * (on_compute ? factor : 1.0);
    const double w_boundary = o.boundary_work * (on_compute ? 1.0 : factor);
    const std::vector<Neighbour> neighbours = neighbours_of(r, o.dims);
    RankProgram& prog = m.rank(r);
    for (std::uint32_t s = 0; s < o.steps; ++s) {
      prog.work(compute, w_compute);
      std::vector<Request> requests;
      for (const auto& n : neighbours) requests.push_back(prog.irecv(n.rank, o.bytes, n.recv_tag, world));
      for (const auto& n : neighbours) requests.push_back(prog.isend(n.rank, o.bytes, n.send_tag, world));
      prog.waitall(requests);
      if (w_boundary > 0) prog.work(boundary, w_boundary);
      prog.allreduce(world, 8);
    }
  }
  return m.run(o.model);
}

}  // namespace wisp::gen
