// Hybrid MPI+OpenMP+CUDA traces written by Score-P 1.3/1.4 (tests/data/other-writers/casita-2_*):
// every location is read — the ranks' master threads into the model, their OpenMP threads and CUDA
// streams counted — and the counts agree with OTF2's own otf2-print record by record; every MPI
// message is matched; the master threads replay to the measured runtime.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>

#include "helpers.hpp"
#include "tiny_trace.hpp"
#include "wisp/analysis/pop_hybrid.hpp"
#include "wisp/analysis/thread_profile.hpp"
#include "wisp/analysis/wait_path_analysis.hpp"
#include "wisp/generate/generators.hpp"
#include "wisp/io/otf2_reader.hpp"
#include "wisp/io/otf2_writer.hpp"
#include "wisp/replay/calibrate.hpp"
#include "wisp/replay/replay.hpp"
#include "wisp/replay/trust.hpp"
#include "wisp/scenario/evaluate.hpp"
#include "wisp/scenario/scenario.hpp"
#include "wisp/scenario/selection.hpp"
#include "wisp/scenario/thread_balance.hpp"
#include "wisp/scenario/trace_source.hpp"
#include "wisp/scenario/transform.hpp"
#include "wisp/trace/builder.hpp"

using namespace wisp;

namespace {

// THREAD_* records (fork/join, teams, locks, tasks) of one location, by otf2-print's record name.
std::map<std::string, std::uint64_t> thread_counts(const std::map<std::string, std::uint64_t>& by_record) {
  std::map<std::string, std::uint64_t> out;
  for (const auto& [record, count] : by_record)
    if (record.starts_with("THREAD_")) out[record] = count;
  return out;
}
std::map<std::string, std::uint64_t> thread_counts(const std::vector<ThreadRecord>& records) {
  std::map<std::string, std::uint64_t> out;
  for (const ThreadRecord& r : records) ++out[std::string(to_string(r.kind))];
  return out;
}
const std::vector<ThreadRecord>& records_of(const Trace& t, Rank r, std::size_t location) {
  static const std::vector<ThreadRecord> none;
  return location < t.ranks[r].thread_records.size() ? t.ranks[r].thread_records[location] : none;
}

std::uint64_t sum(const std::map<std::string, std::uint64_t>& by_record, bool modelled_only) {
  std::uint64_t n = 0;
  for (const auto& [record, count] : by_record)
    if (!modelled_only || record == "ENTER" || record == "LEAVE" || record.starts_with("MPI_")) n += count;
  return n;
}

}  // namespace

TEST_CASE("hybrid traces: every location read and counted as otf2-print counts it, every message matched",
          "[otf2][hybrid][real]") {
  for (const char* name : {"other-writers/casita-2_cuda_simple", "other-writers/casita-2_jacobi_blame_cpu_015"}) {
    const auto dir = test::real_trace(name);
    INFO(name);
    const Trace t = read_otf2(dir);
    const auto printed = test::otf2_print_counts(dir / "traces.otf2");
    INFO("otf2-print is the Debian package otf2-tools (bash scripts/setup.sh installs it)");
    REQUIRE(printed);
    REQUIRE(t.rank_count() == 2);
    CHECK(t.defs.paradigms == std::vector<std::string>{"OpenMP", "MPI", "CUDA"});
    std::uint64_t sends = 0;
    for (Rank r = 0; r < 2; ++r) {
      const Location& rank = t.defs.ranks[r];
      const auto& master = printed->at(rank.otf2_id);
      CHECK(t.ranks[r].events.size() == sum(master, true));                // Enter, Leave and MPI records
      CHECK(thread_counts(records_of(t, r, 0)) == thread_counts(master));  // fork/join, teams, locks
      CHECK(thread_counts(master).count("THREAD_FORK") == 1);
      sends += master.count("MPI_SEND") ? master.at("MPI_SEND") : 0;
      std::size_t streams = 0;
      for (const ThreadLocation& other : rank.others) {
        INFO(other.name);
        CHECK(other.records == sum(printed->at(other.otf2_id), false));
        const std::size_t k = static_cast<std::size_t>(&other - rank.others.data());
        CHECK(thread_counts(records_of(t, r, k + 1)) == thread_counts(printed->at(other.otf2_id)));
        streams += other.kind == LocationKind::AcceleratorStream;
      }
      CHECK(streams == 1);
      CHECK(rank.others.size() + 1 == printed->size() / 2);  // both processes: master + the same others
    }
    CHECK(t.messages.size() == sends);
    CHECK(t.anomalies.total() == 0);
  }
}

TEST_CASE("hybrid traces: the anchored identity of the master threads is the measured run", "[replay][hybrid][real]") {
  for (const char* name : {"other-writers/casita-2_cuda_simple", "other-writers/casita-2_jacobi_blame_cpu_015"}) {
    const auto dir = test::real_trace(name);
    INFO(name);
    const Trace measured = read_otf2(dir);
    const ReplayResult id = test::anchored_identity(measured);
    CHECK(std::abs(identity_error(measured.end_time(), id.runtime)) < 1e-3);
  }
}

TEST_CASE("another location's time follows the master's timeline, piecewise linearly", "[trace][hybrid]") {
  const std::vector<double> before{1, 2, 4}, after{1, 3, 4};
  CHECK(follow_master(before, after, 0.5) == Approx(0.5));  // before the master: its first shift (0)
  CHECK(follow_master(before, after, 1.5) == Approx(2.0));  // 1..2 became 1..3: twice as long
  CHECK(follow_master(before, after, 3.0) == Approx(3.5));  // 2..4 became 3..4: half as long
  CHECK(follow_master(before, after, 5.0) == Approx(5.0));  // after the master: its last shift (0)
  CHECK(follow_master(before, {2, 4, 5}, 0.0) == Approx(1.0));
  CHECK(follow_master(before, {2, 4, 5}, 6.0) == Approx(7.0));
  CHECK(follow_master({}, {}, 6.0) == 6.0);
}

TEST_CASE("a transform of the master moves its threads' regions with it; the writer keeps them", "[trace][hybrid]") {
  // Rank 0's master works 0..10 s in compute(); its OpenMP thread 1 works 2..8 s inside it.
  test::TinyTrace tiny(1);
  tiny.work(0, "compute", 0, 10e6);
  Trace t = tiny.finish(10e6);
  const RegionId thread_work = t.defs.add_region(make_region("compute_omp_fn.0"));
  t.defs.ranks[0].others.push_back(ThreadLocation{"OMP thread 1", LocationKind::CpuThread, 77, 2, 2});
  t.ranks[0].others = {{{2.0, thread_work, true}, {8.0, thread_work, false}}};
  Transform half;
  half.kind = TransformKind::Scale;
  half.select.region = "compute";
  half.factor = 0.5;
  const Trace scaled = apply_transforms(t, {half}).trace;
  REQUIRE(scaled.ranks[0].others.size() == 1);
  CHECK(scaled.ranks[0].others[0][0].time == Approx(1.0));  // compute now 0..5 s
  CHECK(scaled.ranks[0].others[0][1].time == Approx(4.0));
  test::TempDir dir;
  write_otf2(scaled, dir / "t");
  const Trace back = read_otf2(dir / "t");
  REQUIRE(back.defs.ranks[0].others.size() == 1);
  CHECK(back.defs.ranks[0].others[0].name == "OMP thread 1");
  CHECK(back.defs.ranks[0].others[0].records == 2);
  REQUIRE(back.ranks[0].others[0].size() == 2);
  CHECK(back.defs.regions[back.ranks[0].others[0][0].region].name == "compute_omp_fn.0");
  CHECK(back.ranks[0].others[0][1].time == Approx(4.0));
}

// Every kind of thread record, on the master and on a thread, survives write and read with its
// fields, its team (rebuilt as an OpenMP communicator of the rank's locations) and its time.
TEST_CASE("thread records round trip: fork/join, teams, locks and tasks with their fields", "[otf2][hybrid]") {
  test::TinyTrace tiny(1);
  tiny.work(0, "compute", 0, 10e6);
  Trace t = tiny.finish(10e6);
  t.defs.ranks[0].others.push_back(ThreadLocation{"OMP thread 1", LocationKind::CpuThread, 77, 0, 0});
  t.ranks[0].others = {{}};
  t.defs.thread_teams = {ThreadTeam{0, {0, 1}, 3, false}};  // paradigm 3: OTF2_PARADIGM_OPENMP
  using K = ThreadRecordKind;
  t.ranks[0].thread_records = {{{1.0, 2, 0, kNone, 3, K::Fork},
                                {1.5, 0, 0, 0, 0, K::TeamBegin},
                                {2.0, 7, 0, 0, 0, K::TaskCreate},
                                {2.5, 7, 0, 0, 0, K::TaskSwitch},
                                {3.0, 7, 0, 0, 0, K::TaskComplete},
                                {4.0, 0, 0, 0, 0, K::TeamEnd},
                                {5.0, 0, 0, kNone, 3, K::Join}},
                               {{1.6, 0, 0, 0, 0, K::TeamBegin},
                                {2.2, 1, 42, kNone, 3, K::AcquireLock},
                                {2.4, 1, 42, kNone, 3, K::ReleaseLock},
                                {3.9, 0, 0, 0, 0, K::TeamEnd}}};
  test::TempDir dir;
  write_otf2(t, dir / "t");
  const Trace back = read_otf2(dir / "t");
  REQUIRE(back.defs.thread_teams.size() == 1);
  CHECK(back.defs.thread_teams[0].rank == 0);
  CHECK(back.defs.thread_teams[0].members == std::vector<std::uint32_t>{0, 1});
  CHECK(back.defs.thread_teams[0].paradigm == 3);
  REQUIRE(back.ranks[0].thread_records.size() == 2);
  for (std::size_t l = 0; l < 2; ++l) {
    const auto& a = t.ranks[0].thread_records[l];
    const auto& b = back.ranks[0].thread_records[l];
    REQUIRE(a.size() == b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
      INFO(to_string(a[i].kind));
      CHECK(b[i].kind == a[i].kind);
      CHECK(b[i].time == Approx(a[i].time));
      CHECK(b[i].number == a[i].number);
      CHECK(b[i].id == a[i].id);
      CHECK(b[i].team == a[i].team);
      CHECK(b[i].paradigm == a[i].paradigm);
    }
  }
  if (const auto printed = test::otf2_print_counts(dir / "t" / "traces.otf2")) {  // OTF2's own reader agrees
    CHECK(thread_counts(printed->at(77)) == thread_counts(t.ranks[0].thread_records[1]));
    CHECK(printed->begin()->second.at("THREAD_TASK_SWITCH") == 1);
  }
}

TEST_CASE("hybrid traces: the identity replay keeps every thread's regions where they were", "[replay][hybrid][real]") {
  const auto dir = test::real_trace("other-writers/casita-2_cuda_simple");
  const Trace measured = read_otf2(dir);
  const ReplayResult id = test::anchored_identity(measured);
  double worst = 0;
  std::size_t events = 0;
  for (Rank r = 0; r < measured.rank_count(); ++r) {
    REQUIRE(id.trace.ranks[r].others.size() == measured.ranks[r].others.size());
    for (std::size_t k = 0; k < measured.ranks[r].others.size(); ++k) {
      REQUIRE(id.trace.ranks[r].others[k].size() == measured.ranks[r].others[k].size());
      for (std::size_t i = 0; i < measured.ranks[r].others[k].size(); ++i, ++events)
        worst = std::max(worst, std::abs(id.trace.ranks[r].others[k][i].time - measured.ranks[r].others[k][i].time));
    }
  }
  CHECK(events > 400);
  CHECK(worst < 2e-6);  // the masters' anchored identity is within a microsecond of the trace
}

// The written identity keeps every thread record: otf2-print counts the same records per location
// in it as in the measured trace, each within 2 us of its measured time, in its own rank's team.
TEST_CASE("hybrid traces: the written identity keeps fork/join, team and lock records", "[otf2][hybrid][real]") {
  const auto dir = test::real_trace("other-writers/casita-2_jacobi_blame_cpu_015");
  test::TempDir out;
  const test::WrittenIdentity w = test::written_identity(dir, out);
  const Trace& measured = w.measured;
  std::uint64_t records = 0;
  for (const auto& [location, counts] : w.before) {
    INFO("location " << location);
    REQUIRE(w.after.count(location));
    CHECK(thread_counts(w.after.at(location)) == thread_counts(counts));
    records += sum(thread_counts(counts), false);
  }
  CHECK(records == 56090);  // otf2-print: 2 x 4009 forks/joins, 2 x 16036 team begins/ends, 2 x 8000 locks
  const Trace back = read_otf2(out / "id");
  REQUIRE(back.defs.thread_teams.size() == 4);  // otf2-print -G: 2 OpenMP teams, 2 CUDA_GROUP comms
  CHECK(std::count_if(back.defs.thread_teams.begin(), back.defs.thread_teams.end(),
                      [](const ThreadTeam& t) { return t.accelerator; }) == 2);
  double worst = 0;
  for (Rank r = 0; r < 2; ++r)
    for (std::size_t l = 0; l < measured.ranks[r].thread_records.size(); ++l) {
      const auto& a = records_of(measured, r, l);
      const auto& b = records_of(back, r, l);
      REQUIRE(a.size() == b.size());
      for (std::size_t i = 0; i < a.size(); ++i) {
        worst = std::max(worst, std::abs(a[i].time - b[i].time));
        CHECK(b[i].kind == a[i].kind);
        if (b[i].team != kNone) CHECK(back.defs.thread_teams[b[i].team].rank == r);
      }
    }
  CHECK(worst < 2e-6);
}

namespace {

// The visits of one region, every other field of the selection left empty.
Selection region_selection(const std::string& region) {
  Selection s;
  s.region = region;
  return s;
}

}  // namespace

namespace {

// One rank whose master runs a parallel region 0..10 s (entered at `master_enter`; its own work
// until 4 s, then the implicit barrier) with two OpenMP threads entering at 1 ms and working until
// 10 s and 7.001 s; main ends at 12 s.
Trace parallel_team(double master_enter = 0) {
  Definitions d;
  d.ranks.resize(1);
  d.world = d.add_comm(Communicator{"MPI_COMM_WORLD", {0}, false, kNone});
  const RegionId main = d.add_region(make_region("main"));
  Region par = make_region("!$omp parallel @a.c:1");
  par.otf2_role = 5, par.otf2_paradigm = 3;
  Region bar = make_region("!$omp implicit barrier @a.c:9");
  bar.otf2_role = 16, bar.otf2_paradigm = 3;
  const RegionId p = d.add_region(par), b = d.add_region(bar);
  d.ranks[0].others = {ThreadLocation{"OMP thread 1", LocationKind::CpuThread, 1, 4, 4},
                       ThreadLocation{"OMP thread 2", LocationKind::CpuThread, 2, 4, 4}};
  TraceBuilder builder(d);
  RankBuilder& m = builder.rank(0);
  m.enter(0, main), m.enter(master_enter, p), m.enter(4, b), m.leave(10, b), m.leave(10, p), m.leave(12, main);
  Trace t = builder.finish();
  t.ranks[0].others = {{{0.001, p, true}, {10.0, b, true}, {10.0, b, false}, {10.0, p, false}},
                       {{0.001, p, true}, {7.001, b, true}, {10.0, b, false}, {10.0, p, false}}};
  return t;
}

}  // namespace

TEST_CASE("rebalance across threads: each team meets at its barrier when the mean work is done", "[scenario][hybrid]") {
  const Trace t = parallel_team();
  const std::vector<TeamWork> teams = team_work(t, select_visits(t, region_selection("!$omp parallel @a.c:1")));
  REQUIRE(teams.size() == 1);
  CHECK(teams[0].threads == 3);
  // Threads may stamp their enter a little before the master's: still the same team.
  const Trace early = parallel_team(0.002);
  CHECK(team_work(early, select_visits(early, region_selection("!$omp parallel @a.c:1")))[0].threads == 3);
  CHECK(teams[0].max == Approx(9.999));
  CHECK(teams[0].mean == Approx((4 + 9.999 + 7) / 3));
  const Scenario s = parse_scenario(
      "wisp: 1\ntrace: t\ntransforms:\n  - rebalance: {region: \"!$omp parallel @a.c:1\", across: threads}\n",
      "s.yaml");
  const Transformed balanced = apply_transforms(t, s.transforms);
  const double saved = 9.999 - (4 + 9.999 + 7) / 3;
  CHECK(balanced.trace.end_time() == Approx(12 - saved));
  CHECK(balanced.effects[0].before == Approx(10));
  CHECK(balanced.effects[0].after == Approx(10 - saved));
  CHECK_THAT(balanced.effects[0].description, Catch::Contains("across threads") && Catch::Contains("teams of up to 3"));
  // The threads' regions follow the shorter master visit, and every member now works the mean:
  // its barrier enter is its region enter + (4 + 9.999 + 7) / 3, each waits only the entry skew.
  CHECK(balanced.trace.ranks[0].others[0].back().time == Approx(10 - saved));
  const double mean = (4 + 9.999 + 7) / 3, scale = (10 - saved) / 10;  // the visit's uniform stretch
  for (const auto& thread : balanced.trace.ranks[0].others) {
    CHECK(thread[0].time == Approx(0.001 * scale));
    CHECK(thread[1].time == Approx(0.001 * scale + mean));  // barrier enter
    CHECK(thread[2].time == Approx(10 - saved));            // the team leaves together
  }
  const auto& master = balanced.trace.ranks[0].events;  // main, parallel, barrier enters; leaves
  CHECK(master[2].time == Approx(mean));
  CHECK(master[3].time == Approx(10 - saved));
  // Without other threads there is nothing to balance: one clear error at the transform.
  Trace single = t;
  single.ranks[0].others.clear();
  single.defs.ranks[0].others.clear();
  CHECK_THROWS_WITH(apply_transforms(single, s.transforms),
                    Catch::StartsWith("s.yaml:4:") && Catch::Contains("no thread but the master"));
  CHECK_THROWS_WITH(
      parse_scenario("wisp: 1\ntrace: t\ntransforms:\n  - rebalance: {region: x, across: cores}\n", "s.yaml"),
      Catch::Contains("across must be ranks or threads"));
}

namespace {

// 2 ranks of 3 threads, 5 iterations; the last thread +50 %, rank 0 +20 %.
gen::HybridOptions small_hybrid() {
  gen::HybridOptions o;
  o.ranks = 2;
  o.threads = 3;
  o.iterations = 5;
  o.thread_imbalance = 0.5;
  o.rank_imbalance = 0.2;
  return o;
}

}  // namespace

TEST_CASE("the hybrid generator: every thread works as the model says, the master waits for its team",
          "[generator][hybrid]") {
  const gen::HybridOptions o = small_hybrid();
  const Trace t = gen::generate_hybrid(o);
  REQUIRE(t.defs.ranks[1].others.size() == 2);
  const auto visits = select_visits(t, region_selection("!$omp parallel @hybrid.c:10"));
  REQUIRE(visits.size() == 10);
  for (const TeamWork& team : team_work(t, visits)) CHECK(team.threads == 3);
  const std::vector<TeamWork> teams = team_work(t, visits);
  CHECK(teams[0].max == Approx(0.01 * 1.2 * 1.5));  // rank 0, its last thread
  CHECK(teams[0].mean == Approx(0.01 * 1.2 * (2 + 1.5) / 3));
  CHECK(teams[9].max == Approx(0.01 * 1.5));  // rank 1
  const auto& master = t.ranks[1].events;
  CHECK(master[visits[5].leave].time - master[visits[5].enter].time == Approx(0.015));  // its team's longest
  // Thread 1 of rank 1 reaches the barrier after its own work and leaves with the team.
  const auto& thread = t.ranks[1].others[0];
  CHECK(thread[1].time - thread[0].time == Approx(0.01));
  CHECK(thread[3].time - thread[0].time == Approx(0.015));
  // Written and read back, the threads are there.
  test::TempDir dir;
  write_otf2(t, dir / "h");
  const Trace back = read_otf2(dir / "h");
  CHECK(back.defs.ranks[1].others[1].records == 20);
  CHECK(back.defs.paradigms == std::vector<std::string>{"OpenMP", "MPI"});
}

TEST_CASE("OpenMP wait states of the hybrid generator: barrier waits and idle threads as the model says",
          "[analysis][hybrid]") {
  const gen::HybridOptions o = small_hybrid();
  const Trace t = gen::generate_hybrid(o);
  const WaitPathAnalysis a = analyze_wait_paths(t);
  const MetricTable table = metric_table(a);
  // Each instance: two threads work w, the last 1.5 w; both wait 0.5 w at the implicit barrier.
  const CallpathId barrier = test::callpath(t, "main/!$omp parallel @hybrid.c:10/!$omp implicit barrier @hybrid.c:20");
  CHECK(metric_value(table, "omp_ibarrier_wait", barrier, 0) == Approx(5 * 0.012));
  CHECK(metric_value(table, "omp_ibarrier_wait", barrier, 1) == Approx(5 * 0.01));
  CHECK(metric_value(table, "omp_ebarrier_wait") == 0);
  // Idle threads: 2 threads beside the master, idle whenever the master is outside the region.
  for (Rank r = 0; r < 2; ++r) {
    const auto& events = t.ranks[r].events;
    const double longest = gen::hybrid_thread_work(o, r, 2);
    double idle = 0;
    for (const MetricRecord& rec : table.records)
      if (table.metrics[rec.metric] == "omp_idle_threads" && rec.rank == r) idle += rec.value;
    CHECK(idle == Approx(2 * (events.back().time - events.front().time - 5 * longest)).epsilon(1e-9));
  }
  // A single-threaded trace has none of these metrics.
  const MetricTable plain = metric_table(analyze_wait_paths(gen::generate_imbalance(gen::ImbalanceOptions{})));
  CHECK(std::find(plain.metrics.begin(), plain.metrics.end(), "omp_idle_threads") == plain.metrics.end());
}

TEST_CASE("per-thread time in every call path: the threads' rows line up with the master's call paths",
          "[analysis][hybrid]") {
  const gen::HybridOptions o = small_hybrid();
  const Trace t = gen::generate_hybrid(o);
  const std::vector<ThreadTime> rows = thread_profile(t);
  const std::string region = "main/!$omp parallel @hybrid.c:10";
  const std::string barrier = region + "/!$omp implicit barrier @hybrid.c:20";
  std::size_t checked = 0;
  for (const ThreadTime& row : rows) {
    const double work = gen::hybrid_thread_work(o, row.rank, row.location + 1);
    const double longest = gen::hybrid_thread_work(o, row.rank, o.threads - 1);
    INFO(row.rank << " " << row.location << " " << row.callpath);
    if (row.callpath == region) {
      CHECK(row.seconds == Approx(5 * work));
      ++checked;
    } else if (row.callpath == barrier) {
      CHECK(row.seconds == Approx(5 * (longest - work)).margin(1e-12));
      ++checked;
    } else {
      FAIL("unexpected call path");
    }
  }
  CHECK(checked >= 4 * 1 + 2);  // 2 ranks x 2 threads in the region; the slowest waits 0 in the barrier
  CHECK(thread_profile(gen::generate_imbalance(gen::ImbalanceOptions{})).empty());
}

TEST_CASE("POP's hybrid factors of the hybrid generator, by hand", "[analysis][pop][hybrid]") {
  const gen::HybridOptions o = small_hybrid();
  const Trace t = gen::generate_hybrid(o);
  const auto f = hybrid_pop_factors(t);
  REQUIRE(f);
  const double runtime = t.span();
  double useful = 0, outside_sum = 0, outside_max = 0;
  for (Rank r = 0; r < 2; ++r) {
    double in_mpi = 0, entered = 0;
    for (const Event& e : t.ranks[r].events) {  // MPI time: every MPI_* region's visits
      if (e.kind != EventKind::Enter && e.kind != EventKind::Leave) continue;
      if (!t.defs.region_of(e.ref).name.starts_with("MPI_")) continue;
      if (e.kind == EventKind::Enter)
        entered = e.time;
      else
        in_mpi += e.time - entered;
    }
    const double outside = runtime - in_mpi;
    outside_sum += outside;
    outside_max = std::max(outside_max, outside);
    const double longest = gen::hybrid_thread_work(o, r, 2);
    useful += outside - 5 * (longest - gen::hybrid_thread_work(o, r, 0));  // the master's barrier waits
    for (std::uint32_t k = 1; k < 3; ++k) useful += 5 * gen::hybrid_thread_work(o, r, k);
  }
  CHECK(f->threads == 6);
  CHECK(f->hybrid_parallel_efficiency == Approx(useful / (6 * runtime)));
  CHECK(f->mpi_parallel_efficiency == Approx(outside_sum / 2 / runtime));
  CHECK(f->mpi_load_balance * f->mpi_communication_efficiency == Approx(f->mpi_parallel_efficiency));
  CHECK(f->mpi_communication_efficiency == Approx(outside_max / runtime));
  CHECK(f->openmp_parallel_efficiency == Approx(useful / (6 * runtime) / (outside_sum / 2 / runtime)));
  CHECK_FALSE(hybrid_pop_factors(gen::generate_imbalance(gen::ImbalanceOptions{})));
}

TEST_CASE("scaling a parallel region is a faster team: the generator with less work per thread", "[scenario][hybrid]") {
  const Scenario s = parse_scenario(R"(wisp: 1
trace: {generate: "hybrid --ranks 2 --threads 3 --iterations 5 --thread-imbalance 0.5 --rank-imbalance 0.2"}
transforms:
  - scale: {region: "!$omp parallel @hybrid.c:10", factor: 0.5}
)",
                                    "s.yaml");
  const ScenarioTrace in = load_trace(s);
  std::vector<LocationEvent> thread;  // thread 1 of rank 1 in the simulated scenario trace
  const PointEvaluation p =
      evaluate_point(s, in.trace, [&](const std::string& name, const Trace& trace, const TraceAnalysis&) {
        if (name == "scenario") thread = trace.ranks[1].others[0];
      });
  gen::HybridOptions half = small_hybrid();
  half.work /= 2;
  const Trace expected = gen::generate_hybrid(half);  // every thread's work halved: the model's run
  CHECK(p.result.scenario == Approx(expected.end_time()).epsilon(1e-6));
  // The threads follow: thread 1 of rank 1 now reaches the barrier after 5 ms.
  REQUIRE(thread.size() > 1);
  CHECK(thread[1].time - thread[0].time == Approx(half.work).epsilon(1e-6));
}

TEST_CASE("hybrid anomalies: a thread region without its master's, a team that changes size", "[trace][hybrid]") {
  Trace t = parallel_team();
  check_teams(t);
  CHECK(t.anomalies.total() == 0);
  const RegionId par = *t.defs.find_region("!$omp parallel @a.c:1");
  // Thread 1 enters the parallel region again at 11 s, after the master's only visit ended.
  t.ranks[0].others[0].push_back({11.0, par, true});
  t.ranks[0].others[0].push_back({11.5, par, false});
  check_teams(t);
  CHECK(t.anomalies[AnomalyKind::OrphanThreadRegion].count == 1);
  CHECK_THAT(t.anomalies[AnomalyKind::OrphanThreadRegion].examples[0], Catch::Contains("rank 0, OMP thread 1"));

  // Two visits of the master; only thread 1 joins the second: the team shrinks from 3 to 2.
  Definitions d = parallel_team().defs;
  d.callpaths.clear();
  TraceBuilder builder(d);
  const RegionId main = *d.find_region("main");
  RankBuilder& m = builder.rank(0);
  m.enter(0, main), m.enter(0, par), m.leave(10, par), m.enter(12, par), m.leave(14, par), m.leave(15, main);
  Trace two = builder.finish();
  two.ranks[0].others = {{{0.001, par, true}, {10, par, false}, {12.001, par, true}, {14, par, false}},
                         {{0.001, par, true}, {10, par, false}}};
  check_teams(two);
  CHECK(two.anomalies[AnomalyKind::TeamSizeChange].count == 1);
  CHECK_THAT(two.anomalies[AnomalyKind::TeamSizeChange].examples[0],
             Catch::Contains("has 2 threads, the one before 3"));
  CHECK(two.anomalies[AnomalyKind::OrphanThreadRegion].count == 0);
}

// Old Score-P records CUDA memory copies as RMA records on the streams, on windows over a CUDA
// communicator of a rank's master and stream: the written identity holds every one of them, so
// otf2-print counts the same records per location and name as in the measured archive.
TEST_CASE("hybrid traces: the written identity keeps the RMA records of CUDA memory copies", "[otf2][hybrid][real]") {
  for (const char* name : {"other-writers/casita-2_cuda_simple", "other-writers/casita-2_jacobi_blame_cpu_015"}) {
    INFO(name);
    test::TempDir out;
    const test::WrittenIdentity w = test::written_identity(test::real_trace(name), out);
    CHECK(w.after == w.before);
    std::uint64_t rma = 0;
    for (const auto& [location, counts] : w.before)
      for (const auto& [record, n] : counts) rma += record.starts_with("RMA_") ? n : 0;
    CHECK(rma > 0);
    // otf2-print -G: two windows, each on its rank's CUDA_GROUP communicator.
    REQUIRE(w.measured.defs.rma_windows.size() == 2);
    CHECK(w.measured.defs.rma_windows[1].on_team);
    CHECK(w.measured.defs.thread_teams[w.measured.defs.rma_windows[1].comm].rank == 1);
    CHECK(w.measured.skipped_records.count("Rma*") == 0);
  }
}
