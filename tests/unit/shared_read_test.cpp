// Reading a trace spread over processes (read_otf2 with a ProcessGroup; threads stand in for MPI
// ranks): every process holds its share's ranks exactly as a whole read has them, nothing of the
// others, and the same call-path ids, matching, collective instances, anomalies and skipped
// records; the shares cover the ranks once, in order, balanced by events; more processes than
// ranks leave the extra ones empty. Each process's message table holds the messages with a side on
// its ranks.
#include <catch2/catch.hpp>

#include <mutex>

#include "helpers.hpp"
#include "thread_group.hpp"
#include "trace_compare.hpp"
#include "wisp/generate/generators.hpp"
#include "wisp/io/otf2_reader.hpp"
#include "wisp/io/otf2_writer.hpp"

using namespace wisp;
using wisp::test::TempDir;
namespace fs = std::filesystem;

namespace {

// Every process's trace of `path` read over `processes` processes.
std::vector<Trace> read_spread(const fs::path& path, int processes) {
  std::vector<Trace> out(static_cast<std::size_t>(processes));
  test::on_processes(processes, [&](ProcessGroup& group) {
    ReadOptions o;
    o.group = &group;
    o.threads = 1;
    out[static_cast<std::size_t>(group.process())] = read_otf2(path, o);
  });
  return out;
}

void require_spread_like_whole(const fs::path& path) {
  const Trace whole = read_otf2(path);
  for (int processes : {1, 2, 3, 4, 9}) {
    INFO(path.string() << " over " << processes << " processes");
    const std::vector<Trace> parts = read_spread(path, processes);
    Rank next = 0;
    for (const Trace& part : parts) {
      REQUIRE(part.share.has_value());
      REQUIRE(part.share->first == std::min(next, whole.rank_count()));
      next = part.share->last;
      test::require_share_of(part, whole);
    }
    REQUIRE(next == whole.rank_count());
    const int with_ranks = clamped_processes(whole.rank_count(), processes);
    for (int p = 0; p < processes; ++p) CHECK((parts[p].share->size() > 0) == (p < with_ranks));
  }
}

}  // namespace

TEST_CASE("rank shares are contiguous, cover every rank once and follow the events", "[trace][processes]") {
  const std::vector<std::uint64_t> events{100, 100, 100, 100, 400, 0, 0, 100};
  Rank next = 0;
  for (int p = 0; p < 3; ++p) {
    const RankShare s = share_of(events, p, 3);
    CHECK(s.first == next);
    CHECK(s.size() > 0);
    next = s.last;
  }
  CHECK(next == 8);
  CHECK(share_of(events, 1, 3).owns(4));  // the heavy rank starts the middle share's half
  CHECK(clamped_processes(8, 20) == 8);
  CHECK(share_of(events, 12, 20).size() == 0);
  CHECK(share_of(events, 7, 20).first == 7);
}

TEST_CASE("real traces read over processes hold their share as a whole read does", "[otf2][processes]") {
  for (const char* name : {"apps/sweep3d_50c_6r", "apps/cloverleaf_bm_short_4r", "apps/minife_100c_imb20_4r",
                           "other-writers/sstmacro-otf2_test_traces", "other-writers/casita-2_jacobi_blame_cpu_015",
                           "other-writers/casita-10_scorep_mpi_tags", "scorep-ping-pong-papi"})
    require_spread_like_whole(test::real_trace(name));
}

TEST_CASE("generated traces read over processes hold their share as a whole read does", "[otf2][processes]") {
  TempDir dir;
  gen::HaloOptions halo;
  halo.dims = {4, 3};
  halo.steps = 30;
  halo.overload_ranks = {5};
  halo.overload = 0.3;
  write_otf2(gen::generate_halo(halo), dir / "halo");
  require_spread_like_whole(dir / "halo");
  gen::MpmdOptions mpmd;  // two codes: their ranks find their call paths in different orders
  write_otf2(gen::generate_mpmd(mpmd), dir / "mpmd");
  require_spread_like_whole(dir / "mpmd");
}
