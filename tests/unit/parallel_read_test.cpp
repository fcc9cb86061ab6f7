// Reading the ranks on several threads: read_otf2 with N threads gives the very trace
// one thread gives (events, call-path ids, records, matching, anomalies, skipped records), for real
// and generated archives; errors are the one a serial read reports; TraceBuilder's concurrent
// mode equals its shared one.
#include <catch2/catch.hpp>

#include <atomic>
#include <thread>

#include "helpers.hpp"
#include "io/parallel_ranks.hpp"
#include "trace_compare.hpp"
#include "wisp/error.hpp"
#include "wisp/generate/generators.hpp"
#include "wisp/io/otf2_reader.hpp"
#include "wisp/io/otf2_writer.hpp"
#include "wisp/trace/builder.hpp"

using namespace wisp;
using wisp::test::require_identical;
using wisp::test::TempDir;
namespace fs = std::filesystem;

namespace {

Trace read_with(const fs::path& trace, unsigned threads) {
  ReadOptions o;
  o.threads = threads;
  return read_otf2(trace, o);
}

void require_same_with_threads(const fs::path& trace) {
  const Trace one = read_with(trace, 1);
  for (unsigned threads : {2u, 3u, 8u}) {
    INFO(trace.string() << " with " << threads << " threads");
    require_identical(one, read_with(trace, threads));
  }
}

std::string error_of(const fs::path& trace, unsigned threads) {
  try {
    read_with(trace, threads);
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("real traces read on several threads are the trace one thread reads", "[otf2][parallel]") {
  for (const char* name : {"apps/sweep3d_50c_6r", "apps/cloverleaf_bm_short_4r", "apps/minife_100c_imb20_4r",
                           "other-writers/sstmacro-otf2_test_traces", "other-writers/casita-2_jacobi_blame_cpu_015",
                           "scorep-ping-pong-papi"}) {
    const fs::path trace = test::real_trace(name);
    require_same_with_threads(trace);
  }
}

TEST_CASE("generated traces read on several threads are the trace one thread reads", "[otf2][parallel]") {
  TempDir dir;
  gen::HaloOptions halo;
  halo.dims = {4, 3};
  halo.steps = 40;
  halo.overload_ranks = {5};
  halo.overload = 0.3;
  write_otf2(gen::generate_halo(halo), dir / "halo");
  require_same_with_threads(dir / "halo");
  gen::MpmdOptions mpmd;  // two codes: their ranks find their call paths in different orders
  write_otf2(gen::generate_mpmd(mpmd), dir / "mpmd");
  require_same_with_threads(dir / "mpmd");
}

TEST_CASE("a broken event file gives the serial read's error on any number of threads", "[otf2][parallel]") {
  TempDir dir;
  gen::ImbalanceOptions o;
  o.ranks = 8;
  o.iterations = 200;
  write_otf2(gen::generate_imbalance(o), dir / "t");
  // The serial read's error names `rank`, and every number of threads gives that very error.
  const auto require_serial_error = [&](const char* rank) {
    const std::string serial = error_of(dir / "t", 1);
    CHECK_THAT(serial, Catch::Contains(rank));
    for (unsigned threads : {2u, 4u, 8u}) CHECK(error_of(dir / "t", threads) == serial);
  };
  fs::resize_file(dir / "t" / "traces" / "6.evt", fs::file_size(dir / "t" / "traces" / "6.evt") / 2);
  require_serial_error("rank 6");
  // One line whatever OTF2 decoded past the cut (it reads uninitialised bytes of a short chunk).
  CHECK_THAT(error_of(dir / "t", 1), Catch::Contains("rank 6 (location 6): corrupt or truncated event file: its "
                                                     "records end or break before the"));
  fs::resize_file(dir / "t" / "traces" / "2.evt", 0);  // a lower rank broken too: its error wins
  require_serial_error("rank 2");
}

TEST_CASE("progress counts the ranks read, one call at a time", "[otf2][parallel]") {
  TempDir dir;
  gen::ImbalanceOptions o;
  o.ranks = 6;
  o.iterations = 20;
  write_otf2(gen::generate_imbalance(o), dir / "t");
  std::vector<std::size_t> seen;
  ReadOptions options;
  options.threads = 3;
  options.progress = [&](std::size_t done, std::size_t total) {
    CHECK(total == 6);
    seen.push_back(done);
  };
  read_otf2(dir / "t", options);
  CHECK(seen == std::vector<std::size_t>{1, 2, 3, 4, 5, 6});
}

TEST_CASE("for_each_rank rethrows the lowest failed rank's error and starts no rank after a failure",
          "[otf2][parallel]") {
  std::atomic<int> started{0};
  const auto fail_at_2 = [&](std::size_t r, const io::RankStop& stop) {
    ++started;
    if (r == 2) throw Error("rank 2");
    while (r > 2 && !stop.requested()) std::this_thread::yield();  // until told that rank 2 failed
  };
  CHECK_THROWS_WITH(io::for_each_rank(100, 4, fail_at_2, [](std::size_t) {}), "rank 2");
  CHECK(started <= 3 + 3);  // ranks 0 to 2, and at most one more on each other thread
  std::size_t done = 0;
  io::for_each_rank(
      50, 4, [](std::size_t, const io::RankStop&) {}, [&](std::size_t n) { done = std::max(done, n); });
  CHECK(done == 50);
}

TEST_CASE("TraceBuilder's concurrent mode builds the trace of the shared mode", "[trace][parallel]") {
  Definitions d;
  d.ranks.resize(3);
  d.world = d.add_comm(Communicator{"MPI_COMM_WORLD", {0, 1, 2}, false, kNone});
  for (const char* name : {"main", "solve", "io", "MPI_Send", "MPI_Recv"}) d.add_region(make_region(name));
  // Rank 0 meets main/solve first, rank 1 main/io first, rank 2 leaves a region it never entered,
  // goes back in time and leaves main open.
  const auto append = [](RankBuilder& b) {
    const Rank r = b.rank();
    b.enter(0, 0);
    b.enter(1, r == 1 ? 2 : 1);
    if (r == 0) b.send(1.5, 1, 0, 7, 64);
    if (r == 1) b.recv(1.6, 0, 0, 7, 64);
    b.leave(2, r == 1 ? 2 : 1);
    b.enter(3, r == 1 ? 1 : 2);
    b.leave(r == 2 ? 2.5 : 4, r == 1 ? 1 : 2);
    if (r == 2) b.leave(5, 3);
    if (r != 2) b.leave(6, 0);
  };
  TraceBuilder shared(d);
  for (Rank r = 0; r < 3; ++r) append(shared.rank(r));
  TraceBuilder concurrent(d, RankAppend::Concurrent);
  {
    std::vector<std::jthread> threads;
    for (Rank r = 0; r < 3; ++r) threads.emplace_back([&, r] { append(concurrent.rank(r)); });
  }
  const Trace a = shared.finish();
  const Trace b = concurrent.finish();
  require_identical(a, b);
  CHECK(a.anomalies[AnomalyKind::UnmatchedLeave].count == 1);
  CHECK(a.anomalies[AnomalyKind::UnclosedRegion].count == 1);
  CHECK(a.messages.size() == 1);
}
