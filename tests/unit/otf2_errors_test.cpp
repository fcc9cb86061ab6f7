// Bad input to the OTF2 reader: each case gets one clear line naming the file and the problem,
// through the library (wisp::Error) and through the CLI (non-zero exit, one line on stderr).
#include <catch2/catch.hpp>

#include <otf2/otf2.h>

#include <fstream>

#include "helpers.hpp"
#include "wisp/error.hpp"
#include "wisp/generate/generators.hpp"
#include "wisp/io/otf2_reader.hpp"
#include "wisp/io/otf2_writer.hpp"
#include "wisp/trace/builder.hpp"

using namespace wisp;
using wisp::test::run_wisp;
using wisp::test::TempDir;
namespace fs = std::filesystem;

namespace {

fs::path small_trace(const TempDir& dir, const std::string& name) {
  gen::ImbalanceOptions o;
  o.ranks = 2;
  o.iterations = 50;
  write_otf2(gen::generate_imbalance(o), dir / name);
  return dir / name;
}

OTF2_FlushType pre_flush(void*, OTF2_FileType, OTF2_LocationRef, void*, bool) { return OTF2_FLUSH; }
OTF2_TimeStamp post_flush(void*, OTF2_FileType, OTF2_LocationRef) { return 0; }

// A new archive for writing, its event files open (serial, no compression).
OTF2_Archive* open_archive(const fs::path& dir) {
  static OTF2_FlushCallbacks flush{pre_flush, post_flush};
  OTF2_Archive* a = OTF2_Archive_Open(dir.c_str(), "traces", OTF2_FILEMODE_WRITE, 1 << 20, 1 << 22,
                                      OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
  OTF2_Archive_SetFlushCallbacks(a, &flush, nullptr);
  OTF2_Archive_SetSerialCollectiveCallbacks(a);
  OTF2_Archive_OpenEvtFiles(a);
  return a;
}

// MPI_COMM_WORLD of one rank on location 0, named by string `name`: its location and rank groups
// and the communicator (id 0).
void write_one_rank_world(OTF2_GlobalDefWriter* d, OTF2_StringRef name) {
  const uint64_t locations[] = {0};
  const uint64_t ranks[] = {0};
  OTF2_GlobalDefWriter_WriteGroup(d, 0, 0, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, 1,
                                  locations);
  OTF2_GlobalDefWriter_WriteGroup(d, 1, 0, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, 1,
                                  ranks);
  OTF2_GlobalDefWriter_WriteComm(d, 0, name, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
}

// A hand-written archive: `threads` CPU threads in one process (thread 0 the MPI rank), with or
// without MPI groups; optionally thread 1 calls MPI_Send, the last thread belongs to a second
// process without an MPI rank, and a string definition with id `bad_string_id` (a corrupt id).
void write_raw_archive(const fs::path& dir, int threads, bool with_mpi, std::uint64_t bad_string_id = 0,
                       bool mpi_on_thread = false, bool last_elsewhere = false, std::uint64_t extra_declared = 0,
                       bool metric_location = false) {
  OTF2_Archive* a = open_archive(dir);
  for (int t = 0; t < threads; ++t) {
    OTF2_EvtWriter* w = OTF2_Archive_GetEvtWriter(a, t);
    if (metric_location && t == threads - 1) {  // no records at all
      OTF2_Archive_CloseEvtWriter(a, w);
      continue;
    }
    OTF2_EvtWriter_Enter(w, nullptr, 10, 0);
    if (t == 1 && mpi_on_thread) {
      OTF2_EvtWriter_Enter(w, nullptr, 12, 1);
      OTF2_EvtWriter_Leave(w, nullptr, 14, 1);
    }
    OTF2_EvtWriter_Leave(w, nullptr, 20, 0);
    OTF2_Archive_CloseEvtWriter(a, w);
  }
  OTF2_Archive_CloseEvtFiles(a);
  OTF2_GlobalDefWriter* d = OTF2_Archive_GetGlobalDefWriter(a);
  OTF2_GlobalDefWriter_WriteClockProperties(d, 1000, 0, 30, OTF2_UNDEFINED_TIMESTAMP);
  OTF2_GlobalDefWriter_WriteString(d, 0, "");
  OTF2_GlobalDefWriter_WriteString(d, 1, "main");
  OTF2_GlobalDefWriter_WriteString(d, 2, "Process");
  OTF2_GlobalDefWriter_WriteString(d, 3, "thread");
  OTF2_GlobalDefWriter_WriteString(d, 4, "MPI_COMM_WORLD");
  OTF2_GlobalDefWriter_WriteString(d, 5, "MPI_Send");
  if (bad_string_id) OTF2_GlobalDefWriter_WriteString(d, bad_string_id, "corrupt");
  OTF2_GlobalDefWriter_WriteRegion(d, 0, 1, 1, 0, OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER, OTF2_REGION_FLAG_NONE,
                                   0, 0, 0);
  OTF2_GlobalDefWriter_WriteRegion(d, 1, 5, 5, 0, OTF2_REGION_ROLE_POINT2POINT, OTF2_PARADIGM_MPI,
                                   OTF2_REGION_FLAG_NONE, 0, 0, 0);
  OTF2_GlobalDefWriter_WriteSystemTreeNode(d, 0, 2, 2, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
  OTF2_GlobalDefWriter_WriteLocationGroup(d, 0, 2, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0, OTF2_UNDEFINED_LOCATION_GROUP);
  if (last_elsewhere)
    OTF2_GlobalDefWriter_WriteLocationGroup(d, 1, 2, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                            OTF2_UNDEFINED_LOCATION_GROUP);
  // extra_declared: the last location's definition declares that many events more than it holds
  // (metric_location: it is a METRIC location, and holds none).
  for (int t = 0; t < threads; ++t) {
    const bool last = t == threads - 1;
    OTF2_GlobalDefWriter_WriteLocation(
        d, t, 3, last && metric_location ? OTF2_LOCATION_TYPE_METRIC : OTF2_LOCATION_TYPE_CPU_THREAD,
        (t == 1 && mpi_on_thread ? 4 : 2) + (last ? extra_declared : 0), last_elsewhere && last ? 1 : 0);
  }
  if (with_mpi) write_one_rank_world(d, 4);
  OTF2_Archive_CloseGlobalDefWriter(a, d);
  OTF2_Archive_Close(a);
}

void truncate_file(const fs::path& p, double keep) {
  const auto size = fs::file_size(p);
  fs::resize_file(p, static_cast<std::uintmax_t>(size * keep));
}

}  // namespace

TEST_CASE("a missing path is one clear error") {
  CHECK_THROWS_WITH(read_otf2("/nonexistent/run42"), "/nonexistent/run42: no such file or directory");
}

TEST_CASE("a file that is not an OTF2 anchor is rejected") {
  TempDir dir;
  std::ofstream(dir / "notes.otf2") << "this is not OTF2\n";
  CHECK_THROWS_WITH(read_otf2(dir / "notes.otf2"),
                    Catch::StartsWith((dir / "notes.otf2").string()) && Catch::Contains("not an OTF2 anchor file"));
  TempDir empty;
  CHECK_THROWS_WITH(read_otf2(empty.path()), Catch::Contains("no OTF2 anchor file"));
}

TEST_CASE("a truncated event file is detected") {
  TempDir dir;
  const fs::path trace = small_trace(dir, "t");
  truncate_file(trace / "traces" / "1.evt", 0.5);
  CHECK_THROWS_WITH(read_otf2(trace),
                    Catch::Contains("rank 1") && (Catch::Contains("truncated") || Catch::Contains("corrupt")));
}

TEST_CASE("an emptied event file is detected") {
  TempDir dir;
  const fs::path trace = small_trace(dir, "t");
  truncate_file(trace / "traces" / "0.evt", 0.0);
  CHECK_THROWS_WITH(read_otf2(trace), Catch::Contains("rank 0"));
}

TEST_CASE("corrupt global definitions are detected") {
  TempDir dir;
  const fs::path trace = small_trace(dir, "t");
  truncate_file(trace / "traces.def", 0.4);
  CHECK_THROWS_WITH(read_otf2(trace), Catch::Contains("definitions"));
}

TEST_CASE("a trace without an MPI communicator is rejected") {
  TempDir dir;
  write_raw_archive(dir / "nompi", 1, false);
  CHECK_THROWS_WITH(read_otf2(dir / "nompi"), Catch::Contains("no MPI communicator"));
}

TEST_CASE("a process's other threads belong to its rank; MPI from a non-master thread is one clear error") {
  TempDir dir;
  write_raw_archive(dir / "omp", 3, true);
  const Trace t = read_otf2(dir / "omp");
  REQUIRE(t.rank_count() == 1);
  REQUIRE(t.defs.ranks[0].others.size() == 2);
  CHECK(t.defs.ranks[0].others[0].kind == LocationKind::CpuThread);
  CHECK(t.defs.ranks[0].others[0].records == 2);  // its Enter and Leave, counted
  CHECK(t.defs.ranks[0].others[1].otf2_id == 2);
  write_raw_archive(dir / "stray", 3, true, 0, false, true);  // thread 2 in a process without a rank
  const Trace stray = read_otf2(dir / "stray");
  CHECK(stray.defs.ranks[0].others.size() == 1);
  CHECK(stray.anomalies[AnomalyKind::StrayLocation].count == 1);
  CHECK_THAT(stray.anomalies[AnomalyKind::StrayLocation].examples[0], Catch::Contains("thread 'thread' (location 2)"));
  write_raw_archive(dir / "multiple", 2, true, 0, true);
  CHECK_THROWS_WITH(
      read_otf2(dir / "multiple"),
      Catch::Contains("rank 0, thread 'thread' (location 1)") && Catch::Contains("MPI_Send at 0.012") &&
          Catch::Contains("MPI calls from threads other than the master (MPI_THREAD_MULTIPLE) are not modelled"));
}

TEST_CASE("a thread or metric location with fewer records than declared: a warning, its records read") {
  // A CUDA+OpenACC CloverLeaf archive's 'Per process metrics' location declares 61 events and holds
  // fewer; otf2-print reads it. Written here with the OTF2 writer: the last location declares 3 more.
  TempDir dir;
  write_raw_archive(dir / "thread", 2, true, 0, false, false, 3);
  const auto thread = run_wisp("info " + (dir / "thread").string());
  INFO(thread.err);
  CHECK(thread.exit_code == 0);
  CHECK_THAT(thread.err, Catch::Contains("rank 0, thread 'thread' (location 1): its event file holds 2 of the 5 "
                                         "events its definition declares: the 2 present are read"));
  const Trace t = read_otf2(dir / "thread");
  REQUIRE(t.defs.ranks[0].others.size() == 1);
  CHECK(t.defs.ranks[0].others[0].records == 2);
  write_raw_archive(dir / "metric", 2, true, 0, false, false, 3, true);
  const auto metric = run_wisp("info " + (dir / "metric").string());
  INFO(metric.err);
  CHECK(metric.exit_code == 0);
  CHECK_THAT(metric.err, Catch::Contains("metric location 'thread' (location 1): its event file holds 0 of the 5"));
  // The rank's own (master) location stays an error: its records are what the replay needs.
  write_raw_archive(dir / "master", 1, true, 0, false, false, 3);
  CHECK_THROWS_WITH(read_otf2(dir / "master"),
                    Catch::Contains("records end or break before the 5 events the definitions declare"));
}

TEST_CASE("the CLI prints one line and exits non-zero on bad input") {
  TempDir dir;
  const auto missing = test::run_wisp("info /nonexistent/trace");
  CHECK(missing.exit_code == 1);
  CHECK(missing.err == "wisp: error: /nonexistent/trace: no such file or directory\n");
  const fs::path trace = small_trace(dir, "t");
  truncate_file(trace / "traces" / "1.evt", 0.5);
  const auto truncated = test::run_wisp("info " + trace.string());
  CHECK(truncated.exit_code == 1);
  CHECK(std::count(truncated.err.begin(), truncated.err.end(), '\n') == 1);
  CHECK_THAT(truncated.err, Catch::StartsWith("wisp: error: " + (trace / "traces.otf2").string()));
  const auto usage = test::run_wisp("info");
  CHECK(usage.exit_code == 2);
}

TEST_CASE("anomalies written to OTF2 are found again by the reader and printed by wisp info") {
  TempDir dir;
  Definitions d;
  d.ranks.resize(2);
  d.world = d.add_comm(Communicator{"MPI_COMM_WORLD", {0, 1}, false, kNone});
  d.add_region(make_region("main"));
  d.add_region(make_region("MPI_Send"));
  d.add_region(make_region("MPI_Recv"));
  d.add_region(make_region("MPI_Barrier"));
  TraceBuilder b(d);
  b.rank(0).enter(0, 0);
  b.rank(0).send(1.0, 1, d.world, 3, 64);  // received 2 us before it is sent
  b.rank(0).send(2.0, 1, d.world, 4, 64);  // never received
  b.rank(0).collective_begin(3.0);         // rank 1 never joins
  b.rank(0).collective_end(3.5, CollectiveOp::Barrier, d.world, kNone, 0, 0);
  b.rank(0).leave(4.0, 0);
  b.rank(1).enter(0, 0);
  b.rank(1).recv(0.999998, 0, d.world, 3, 64);
  b.rank(1).recv(2.5, 0, d.world, 9, 64);  // never sent
  b.rank(1).leave(4.0, 0);
  write_otf2(b.finish(), dir / "anomalies");
  const Trace t = read_otf2(dir / "anomalies");
  CHECK(t.anomalies[AnomalyKind::ReceiveBeforeSend].count == 1);
  CHECK(t.anomalies[AnomalyKind::UnmatchedSend].count == 1);
  CHECK(t.anomalies[AnomalyKind::UnmatchedReceive].count == 1);
  CHECK(t.anomalies[AnomalyKind::IncompleteCollective].count == 1);
  const auto info = test::run_wisp("info " + (dir / "anomalies").string());
  CHECK(info.exit_code == 0);
  CHECK_THAT(info.out, Catch::Contains("receive completes before its send starts (1)"));
  CHECK_THAT(info.out, Catch::Contains("2.000 us before its send starts"));
  CHECK_THAT(info.out, Catch::Contains("BARRIER on MPI_COMM_WORLD (instance 0): 1 of 2 members"));
}

TEST_CASE("a definition id far out of range is refused before it is allocated") {
  // A flipped bit in a string id made the reader size a table to it: 128 GB, std::bad_alloc.
  TempDir dir;
  write_raw_archive(dir / "t", 1, true, 0x7fffffff);
  CHECK_THROWS_WITH(read_otf2(dir / "t"), Catch::StartsWith((dir / "t" / "traces.otf2").string()) &&
                                              Catch::Contains("string definition id 2147483647 is out of range"));
  const auto cli = test::run_wisp("info " + (dir / "t").string());
  CHECK(cli.exit_code == 1);
  CHECK_THAT(cli.err, Catch::StartsWith("wisp: error: ") && Catch::Contains("out of range"));
}

namespace {

// One MPI rank whose MPI_Barrier record names MPI_COMM_WORLD by the local id 7, mapped to the
// global id 0 in its local definitions (traces/0.def), as Score-P writes them.
void write_mapped_archive(const fs::path& dir) {
  OTF2_Archive* a = open_archive(dir);
  OTF2_EvtWriter* w = OTF2_Archive_GetEvtWriter(a, 0);
  OTF2_EvtWriter_Enter(w, nullptr, 10, 0);
  OTF2_EvtWriter_Enter(w, nullptr, 11, 1);
  OTF2_EvtWriter_MpiCollectiveBegin(w, nullptr, 11);
  OTF2_EvtWriter_MpiCollectiveEnd(w, nullptr, 12, OTF2_COLLECTIVE_OP_BARRIER, 7, OTF2_UNDEFINED_UINT32, 0, 0);
  OTF2_EvtWriter_Leave(w, nullptr, 12, 1);
  OTF2_EvtWriter_Leave(w, nullptr, 20, 0);
  OTF2_Archive_CloseEvtWriter(a, w);
  OTF2_Archive_CloseEvtFiles(a);
  OTF2_Archive_OpenDefFiles(a);
  OTF2_DefWriter* local = OTF2_Archive_GetDefWriter(a, 0);
  OTF2_IdMap* map = OTF2_IdMap_Create(OTF2_ID_MAP_SPARSE, 1);
  OTF2_IdMap_AddIdPair(map, 7, 0);
  OTF2_DefWriter_WriteMappingTable(local, OTF2_MAPPING_COMM, map);
  OTF2_IdMap_Free(map);
  OTF2_Archive_CloseDefWriter(a, local);
  OTF2_Archive_CloseDefFiles(a);
  OTF2_GlobalDefWriter* d = OTF2_Archive_GetGlobalDefWriter(a);
  OTF2_GlobalDefWriter_WriteClockProperties(d, 1000, 0, 30, OTF2_UNDEFINED_TIMESTAMP);
  const char* strings[] = {"", "main", "MPI_Barrier", "Process", "rank", "MPI_COMM_WORLD"};
  for (uint32_t i = 0; i < 6; ++i) OTF2_GlobalDefWriter_WriteString(d, i, strings[i]);
  OTF2_GlobalDefWriter_WriteRegion(d, 0, 1, 1, 0, OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER, OTF2_REGION_FLAG_NONE,
                                   0, 0, 0);
  OTF2_GlobalDefWriter_WriteRegion(d, 1, 2, 2, 0, OTF2_REGION_ROLE_BARRIER, OTF2_PARADIGM_MPI, OTF2_REGION_FLAG_NONE, 0,
                                   0, 0);
  OTF2_GlobalDefWriter_WriteRegion(d, 1, 5, 5, 0, OTF2_REGION_ROLE_POINT2POINT, OTF2_PARADIGM_MPI,
                                   OTF2_REGION_FLAG_NONE, 0, 0, 0);
  OTF2_GlobalDefWriter_WriteSystemTreeNode(d, 0, 3, 3, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
  OTF2_GlobalDefWriter_WriteLocationGroup(d, 0, 3, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0, OTF2_UNDEFINED_LOCATION_GROUP);
  OTF2_GlobalDefWriter_WriteLocation(d, 0, 4, OTF2_LOCATION_TYPE_CPU_THREAD, 6, 0);
  write_one_rank_world(d, 5);
  OTF2_Archive_CloseGlobalDefWriter(a, d);
  OTF2_Archive_Close(a);
}

}  // namespace

TEST_CASE("a missing or empty local definitions file is an error, not dropped MPI records") {
  // Without traces/N.def the rank's MPI records were skipped as "MPI record on a
  // non-MPI communicator" and `analyze` reported a ping-pong with 0 matched messages.
  TempDir dir;
  write_mapped_archive(dir / "t");
  const Trace t = read_otf2(dir / "t");
  REQUIRE(t.ranks[0].collectives.size() == 1);
  CHECK(t.ranks[0].collectives[0].comm == t.defs.world);
  fs::remove(dir / "t" / "traces" / "0.def");
  CHECK_THROWS_WITH(read_otf2(dir / "t"), Catch::Contains("rank 0") && Catch::Contains("traces/0.def") &&
                                              Catch::Contains("missing, empty or truncated"));
  std::ofstream(dir / "t" / "traces" / "0.def");  // empty
  CHECK_THROWS_WITH(read_otf2(dir / "t"), Catch::Contains("rank 0"));
}
