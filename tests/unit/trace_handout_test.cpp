// A whole trace handed out to a group of processes (trace_handout.hpp; threads stand in for MPI
// ranks): every process's share equals what read_otf2 over the same group reads of the trace
// written to disk (definitions, events, every other record, messages, instances, anomalies), on
// real traces (hybrid with CUDA streams, PAPI counters) and generated ones (halo, hybrid OpenMP),
// with more processes than ranks; the definitions survive their bytes field for field.
#include <catch2/catch.hpp>

#include "helpers.hpp"
#include "spread_traces.hpp"
#include "thread_group.hpp"
#include "trace_compare.hpp"
#include "wisp/io/otf2_reader.hpp"
#include "wisp/io/otf2_writer.hpp"
#include "wisp/io/trace_handout.hpp"

using namespace wisp;
namespace fs = std::filesystem;

namespace {

// `whole` handed out over 1-4 and 9 processes: each share is the whole trace's.
void require_handed_out_like_whole(const Trace& whole, const std::string& what) {
  for (int processes : {1, 2, 3, 4, 9}) {
    INFO(what << " over " << processes << " processes");
    std::vector<Trace> parts(static_cast<std::size_t>(processes));
    test::on_processes(processes, [&](ProcessGroup& group) {
      parts[static_cast<std::size_t>(group.process())] = hand_out(group.process() == 0 ? &whole : nullptr, group);
    });
    Rank next = 0;
    for (const Trace& part : parts) {
      test::require_share_of(part, whole);
      CHECK(part.share->first == std::min(next, whole.rank_count()));
      next = part.share->last;
    }
    CHECK(next == whole.rank_count());
  }
}

}  // namespace

TEST_CASE("a handed-out trace: every share equals the whole trace's, on real traces", "[trace][processes]") {
  for (const char* name :
       {"apps/sweep3d_50c_6r", "apps/npb_lu_W_4r", "other-writers/casita-2_cuda_simple",
        "other-writers/sstmacro-otf2_test_traces", "scorep-ping-pong-papi", "whatif/imb8_ring/static"})
    require_handed_out_like_whole(read_otf2(test::real_trace(name)), name);
}

TEST_CASE("a handed-out trace: generated halo and hybrid traces, as read back from disk too", "[trace][processes]") {
  test::TempDir dir;
  const Trace made = gen::generate_halo(test::spread_halo());
  require_handed_out_like_whole(made, "generated halo");
  gen::HybridOptions hybrid;
  hybrid.ranks = 3;
  hybrid.threads = 3;
  hybrid.iterations = 4;
  require_handed_out_like_whole(gen::generate_hybrid(hybrid), "generated hybrid");
  // The shares of the whole trace equal those read_otf2 reads over the same group.
  write_otf2(made, dir / "halo");
  const Trace read = read_otf2(dir / "halo");
  test::on_processes(3, [&](ProcessGroup& group) {
    const Trace handed = hand_out(group.process() == 0 ? &read : nullptr, group);
    ReadOptions o;
    o.group = &group;
    o.threads = 1;
    const Trace spread = read_otf2(dir / "halo", o);
    REQUIRE((handed.share->first == spread.share->first && handed.share->last == spread.share->last));
    CHECK(handed.defs == spread.defs);
    test::require_same_derived(handed, spread);
    for (Rank r = handed.share->first; r < handed.share->last; ++r) {
      test::require_same_events(handed.ranks[r], spread.ranks[r], r);
      test::require_same_records(handed.ranks[r], spread.ranks[r]);
    }
  });
}

TEST_CASE("definitions through bytes: every field back", "[trace][processes]") {
  for (const char* name : {"other-writers/casita-2_cuda_simple", "scorep-ping-pong-papi", "apps/cloverleaf_2r"}) {
    INFO(name);
    const Trace t = read_otf2(test::real_trace(name));
    Packer out;
    pack_definitions(out, t.defs);
    const std::string bytes = out.take();
    Unpacker in(bytes);
    CHECK(unpack_definitions(in) == t.defs);
    CHECK(in.done());
    Unpacker cut(std::string_view(bytes).substr(0, bytes.size() / 2));
    CHECK_THROWS_AS(unpack_definitions(cut), Error);  // a truncated message is an error, not a read past it
  }
}
