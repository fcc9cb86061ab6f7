// Calibration (paper 002's minimum durations) on a model ping-pong whose wait-free instances are
// known exactly, on the real Score-P trace, and the calibrated platform's XML round trip.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

#include "helpers.hpp"
#include "wisp/generate/model.hpp"
#include "wisp/io/otf2_reader.hpp"
#include "wisp/replay/calibrate.hpp"
#include "wisp/replay/replay.hpp"

using namespace wisp;

namespace {

// Ping-pong of 1 KiB .. 1 MiB, three times per size; each rank works 5 us before receiving, so
// every receive is posted after its send started (late receiver): the rendezvous receives are
// then exactly o + L + s/B and the eager ones find their message (duration o).
gen::ModelParams pingpong_params() {
  gen::ModelParams p;
  p.latency = 2e-6;
  p.bandwidth = 2e9;
  p.overhead = 1e-6;
  p.eager_limit = 16384;
  return p;
}

Trace model_pingpong() {
  gen::Model m(2, "pingpong");
  const RegionId work = m.region("work");
  for (int rep = 0; rep < 3; ++rep)
    for (std::uint64_t s = 1024; s <= (1u << 20); s *= 2) {
      m.rank(0).send(1, s, 1, m.world());
      m.rank(0).work(work, 5e-6);
      m.rank(0).recv(1, s, 2, m.world());
      m.rank(1).work(work, 5e-6);
      m.rank(1).recv(0, s, 1, m.world());
      m.rank(1).send(0, s, 2, m.world());
    }
  return m.run(pingpong_params());
}

}  // namespace

TEST_CASE("calibration recovers the model's latency, bandwidth, overheads and eager limit", "[replay][calibrate]") {
  const Trace t = model_pingpong();
  const Calibration c = calibrate(t);
  INFO(calibration_text(c));
  const gen::ModelParams p = pingpong_params();
  CHECK(c.bandwidth == Approx(p.bandwidth).epsilon(1e-6));
  CHECK(c.latency == Approx(p.latency).margin(1e-9));
  CHECK(c.platform.mpi.overheads.at("MPI_Recv") == Approx(p.overhead).margin(1e-9));
  CHECK(c.platform.mpi.overheads.at("MPI_Send") == Approx(p.overhead).margin(1e-9));
  // A call of a function the ping-pong does not have (another trace's MPI_Isend, MPI_Allreduce)
  // pays the model's o per message it sends and per message it receives.
  REQUIRE(c.platform.mpi.send_overhead);
  REQUIRE(c.platform.mpi.receive_overhead);
  CHECK(*c.platform.mpi.send_overhead == Approx(p.overhead).margin(1e-9));
  CHECK(*c.platform.mpi.receive_overhead == Approx(p.overhead).margin(1e-9));
  CHECK(c.platform.mpi.per_message("MPI_Isend"));
  CHECK_FALSE(c.platform.mpi.per_message("MPI_Send"));
  // Rendezvous evidence starts at 32 KiB (the first size above the 16 KiB limit); eager evidence
  // up to 16 KiB: the threshold lies in between.
  CHECK(c.eager_threshold >= p.eager_limit);
  CHECK(c.eager_threshold < 32768);
  REQUIRE(c.receivers.size() == 2);
  for (const ReceiverFit& r : c.receivers) {
    CHECK(r.bandwidth == Approx(p.bandwidth).epsilon(1e-6));
    CHECK(r.latency == Approx(p.latency).margin(1e-9));
  }
  // Identity replay on the calibrated platform reproduces the model (whose MPI_Finalize follows
  // the analytic barrier rule).
  ReplayOptions analytic;
  analytic.algorithms.set_all(CollectiveAlgorithm::Analytic);
  const ReplayResult r = replay(t, c.platform, analytic);
  double worst = 0;
  for (Rank k = 0; k < 2; ++k)
    for (std::size_t i = 0; i < t.ranks[k].events.size(); ++i)
      worst = std::max(worst, std::abs(t.ranks[k].events[i].time - r.trace.ranks[k].events[i].time));
  CHECK(worst < 1e-6);
}

TEST_CASE("identity replay of the real Score-P ping-pong on its calibrated platform", "[replay][calibrate][scorep]") {
  const auto path = test::real_trace("scorep-ping-pong");
  const Trace measured = read_otf2(path);
  const Calibration c = calibrate(measured);
  // Blocking sends of 64 KiB and more waited for their late receivers; none left early.
  CHECK(c.eager_threshold == 65535);
  CHECK(c.receivers.size() == 2);
  const ReplayResult r = replay(measured, c.platform);
  CHECK(std::abs(r.runtime - measured.end_time()) / measured.end_time() < 0.02);
  // Every message's receive completes within 2 % of the measured transfer (from the later of
  // send start and receive post to the end of the receive).
  REQUIRE(r.trace.messages.size() == measured.messages.size());
  std::vector<double> errors;
  for (std::size_t i = 0; i < measured.messages.size(); ++i) {
    auto transfer = [](const Trace& t, const Message& m) {
      const RankTrace& rr = t.ranks[m.receiver];
      const RankTrace& sr = t.ranks[m.sender];
      EventIndex recv_enter = t.recv_of(m).event, recv_leave = t.recv_of(m).event, send_enter = t.send_of(m).event;
      while (rr.events[recv_enter].kind != EventKind::Enter) --recv_enter;
      while (rr.events[recv_leave].kind != EventKind::Leave) ++recv_leave;
      while (sr.events[send_enter].kind != EventKind::Enter) --send_enter;
      return rr.events[recv_leave].time - std::max(rr.events[recv_enter].time, sr.events[send_enter].time);
    };
    const double a = transfer(measured, measured.messages[i]), b = transfer(r.trace, r.trace.messages[i]);
    errors.push_back(std::abs(b - a) / a);
  }
  std::sort(errors.begin(), errors.end());
  CHECK(errors.back() < 0.02);
}

TEST_CASE("a calibrated platform survives its XML form", "[replay][calibrate]") {
  const Trace t = model_pingpong();
  const Calibration c = calibrate(t);
  test::TempDir dir;
  const auto file = dir / "calibrated.xml";
  {
    std::FILE* f = std::fopen(file.c_str(), "w");
    const std::string xml = platform_xml(c.platform);
    std::fwrite(xml.data(), 1, xml.size(), f);
    std::fclose(f);
  }
  const Platform loaded = load_platform(file);
  CHECK(loaded.mpi.eager_threshold == c.platform.mpi.eager_threshold);
  CHECK(loaded.mpi.overheads.at("MPI_Send") == Approx(c.platform.mpi.overheads.at("MPI_Send")));
  REQUIRE(loaded.mpi.send_overhead);
  REQUIRE(loaded.mpi.receive_overhead);
  CHECK(*loaded.mpi.send_overhead == Approx(*c.platform.mpi.send_overhead));
  CHECK(*loaded.mpi.receive_overhead == Approx(*c.platform.mpi.receive_overhead));
  CHECK(loaded.size_factors.size() == c.platform.size_factors.size());
  const ReplayResult a = replay(t, c.platform), b = replay(t, loaded);
  CHECK(b.runtime == Approx(a.runtime).epsilon(1e-7));
}

namespace {

bool has_note(const Calibration& c, const std::string& text) {
  return std::any_of(c.notes.begin(), c.notes.end(),
                     [&](const std::string& n) { return n.find(text) != std::string::npos; });
}

}  // namespace

// Without blocking receives, the network is learnt from the messages themselves: a receiver
// waiting in MPI_Waitall leaves when its message arrives, send enter + o + L + s/B, so every
// size's fastest transfer after the send's overhead is L + s/B, and two sizes give both.
TEST_CASE("calibration learns the network from non-blocking messages", "[replay][calibrate]") {
  gen::ModelParams p = pingpong_params();
  p.eager_limit = 1 << 20;
  gen::Model m(2, "isend");
  const RegionId work = m.region("work");
  for (int rep = 0; rep < 60; ++rep)
    for (std::uint64_t s : {1024u, 32768u}) {
      m.rank(0).work(work, 5e-6);
      m.rank(0).waitall({m.rank(0).isend(1, s, 1, m.world())});
      m.rank(1).waitall({m.rank(1).irecv(0, s, 1, m.world())});
    }
  const Calibration c = calibrate(m.run(p));
  INFO(calibration_text(c));
  CHECK(c.latency == Approx(p.latency).margin(1e-9));
  CHECK(c.bandwidth == Approx(p.bandwidth).epsilon(1e-6));
  CHECK(c.network_evidence ==
        "fitted on the fastest transfers of point-to-point messages (2 size classes, 120 transfers)");
  CHECK(c.platform.network_one_size == 0);
  CHECK_FALSE(has_note(c, "default latency"));
}

// One message size cannot separate latency from bandwidth: the fit keeps the measured step (a
// 2-rank Allreduce's wait-free part, o + L + b/B by the model's rule) as latency, and says so;
// with too few instances it says why it fell back.
TEST_CASE("calibration from collectives of one size says what it could not separate", "[replay][calibrate]") {
  const gen::ModelParams p = pingpong_params();
  auto allreduces = [&](int count) {
    gen::Model m(2, "allreduce");
    const RegionId work = m.region("work");
    for (int i = 0; i < count; ++i) {
      m.rank(i % 2).work(work, 3e-6);
      for (Rank r = 0; r < 2; ++r) m.rank(r).allreduce(m.world(), 8);
    }
    return calibrate(m.run(p));
  };
  const Calibration c = allreduces(60);  // 120 calls
  INFO(calibration_text(c));
  CHECK(c.latency == Approx(p.overhead + p.transfer(8)).margin(1e-9));
  CHECK(has_note(c, "of one message size (8 bytes, 120 transfers)"));
  CHECK(has_note(c, "latency and bandwidth could not be separated"));
  CHECK(c.platform.network_one_size == 8);  // what a platform change from it warns about
  const Calibration few = allreduces(20);
  CHECK(few.latency == 1e-6);
  CHECK(few.platform.network_one_size == 0);
  CHECK(has_note(few, "too little communication to fit a network (0 messages, 40 collective calls; 100 needed)"));
}

TEST_CASE("a calibrated collective costs its fastest traced instance over the receivers' links",
          "[replay][calibrate][scorep]") {
  // The platform oracle's TCP ping-pong: its receivers' links (about 1 us, from the 8-byte messages
  // to waiting receivers) lie far below the line through its rendezvous receives (6.1 us). Its
  // barriers' overhead must be fitted against the links the replay charges, not against that line.
  const Trace measured = read_otf2(test::real_trace("platform/pingpong_tcp_A") / "traces.otf2");
  const Calibration c = calibrate(measured);
  INFO(calibration_text(c));
  // The fastest barrier's wait-free part, from the trace's events: a member's leave less the
  // instance's last enter of the call.
  const auto call_bound = [&](Rank r, EventIndex e, EventKind kind, int step) {
    while (measured.ranks[r].events[e].kind != kind) e = static_cast<EventIndex>(static_cast<int>(e) + step);
    return measured.ranks[r].events[e].time;
  };
  double fastest = std::numeric_limits<double>::infinity();
  for (const CollectiveInstance& in : measured.collectives) {
    if (in.op != CollectiveOp::Barrier || !in.complete) continue;
    double last_enter = 0;
    std::vector<double> leaves;
    for (std::uint32_t k = 0; k < in.count; ++k) {
      const CollectiveMember& m = measured.collective_members[in.first + k];
      const CollectiveRecord& rec = measured.ranks[m.rank].collectives[m.record];
      last_enter = std::max(last_enter, call_bound(m.rank, rec.begin, EventKind::Enter, -1));
      leaves.push_back(call_bound(m.rank, rec.end, EventKind::Leave, +1));
    }
    for (double leave : leaves) fastest = std::min(fastest, leave - last_enter);
  }
  REQUIRE(fastest > 5e-6);  // 6.93 us (otf2-print: the 10 barriers of each rank)
  double longest_down = 0;
  for (const HostLink& l : c.platform.host_links) longest_down = std::max(longest_down, l.down_latency);
  REQUIRE(longest_down < 1.5e-6);
  CHECK(c.platform.mpi.overheads.at("MPI_Barrier") == Approx(fastest - longest_down).margin(1e-10));

  // Two ranks entering one barrier together, replayed on the calibration (its minima, no typical
  // costs): the later one leaves after the fastest traced barrier, not 5 us before it.
  gen::Model m(2, "barrier");
  m.rank(0).barrier(m.world());
  m.rank(1).barrier(m.world());
  const Trace together = m.run(gen::ModelParams{});
  Platform minima = c.platform;
  minima.mpi.call_costs.clear();
  ReplayOptions model;
  model.anchor = false;
  model.algorithms = c.algorithms;
  const ReplayResult r = replay(together, minima, model);
  double slowest = 0;
  for (Rank k = 0; k < 2; ++k)
    for (const CallSpan& call : r.trace.ranks[k].mpi_calls) {
      const Event& enter = r.trace.ranks[k].events[call.enter];
      if (r.trace.defs.regions[r.trace.defs.callpaths[enter.callpath()].region].mpi != MpiFunction::Barrier) continue;
      slowest = std::max(slowest, r.trace.ranks[k].events[call.leave].time - enter.time);
    }
  CHECK(slowest == Approx(fastest).margin(1e-9));
}
