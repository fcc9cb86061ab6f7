// Sweep3D-like wavefront. See generators.hpp.
#include <algorithm>

#include "wisp/generate/common.hpp"

namespace wisp::gen {

Trace generate_wavefront(const WavefrontOptions& o) {
  const char* kind = "wavefront";
  require(o.px >= 1 && o.py >= 1, kind, "--px and --py must be at least 1");
  require(o.iterations >= 1 && o.blocks >= 1, kind, "--iterations and --blocks must be at least 1");
  require(o.work > 0 && o.extra >= 0, kind, "--work must be positive and --extra not negative");
  require_sane(o, kind, static_cast<double>(o.px) * o.py, static_cast<double>(o.iterations) * o.blocks);
  const std::uint32_t P = o.px * o.py;
  for (Rank r : o.extra_ranks) require(r < P, kind, "--extra-ranks names a rank beyond the grid");

  Model m(P, "wavefront");
  apply_launch_jitter(m, o);
  const RegionId sweep = m.region("sweep");
  const CommId world = m.world();
  const int corners[4][2] = {{+1, +1}, {-1, +1}, {+1, -1}, {-1, -1}};
  for (Rank r = 0; r < P; ++r) {
    RankProgram& prog = m.rank(r);
    const int x = static_cast<int>(r % o.px), y = static_cast<int>(r / o.px);
    const bool slow = std::find(o.extra_ranks.begin(), o.extra_ranks.end(), r) != o.extra_ranks.end();
    const double w = o.work * (slow ? 1.0 + o.extra : 1.0);
    const auto at = [&](int cx, int cy) { return static_cast<Rank>(cy * static_cast<int>(o.px) + cx); };
    const auto inside = [&](int cx, int cy) {
      return cx >= 0 && cy >= 0 && cx < static_cast<int>(o.px) && cy < static_cast<int>(o.py);
    };
    for (std::uint32_t it = 0; it < o.iterations; ++it) {
      for (int s = 0; s < 4; ++s) {
        const int dx = corners[s][0], dy = corners[s][1];
        const std::int32_t tag_x = 2 * s, tag_y = 2 * s + 1;
        for (std::uint32_t b = 0; b < o.blocks; ++b) {
          if (inside(x - dx, y)) prog.recv(at(x - dx, y), o.bytes, tag_x, world);
          if (inside(x, y - dy)) prog.recv(at(x, y - dy), o.bytes, tag_y, world);
          prog.work(sweep, w);
          if (inside(x + dx, y)) prog.send(at(x + dx, y), o.bytes, tag_x, world);
          if (inside(x, y + dy)) prog.send(at(x, y + dy), o.bytes, tag_y, world);
        }
      }
      prog.allreduce(world, 8);
    }
  }
  return m.run(o.model);
}

}  // namespace wisp::gen
