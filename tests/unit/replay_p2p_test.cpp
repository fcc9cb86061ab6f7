// Point-to-point semantics of the replay on hand-built traces with hand-computed times.
// Platform (tiny_trace.hpp): L = 10 us, 1 ns per byte, overhead o = 1 us unless said otherwise.
// A call entered at t is ready at t + o; an eager message leaves its sender at ready and arrives
// L + s/B later; a rendezvous transfer starts when both sides are ready.
#include <catch2/catch.hpp>

#include "tiny_trace.hpp"
#include "wisp/replay/replay.hpp"

using namespace wisp;
using namespace wisp::test;

namespace {

// Rank 0: MPI_Send (or `send_fn`) of `bytes` entered at 1000 us (traced leave 1100), then 900 us
// of work until main ends. Rank 1: MPI_Recv entered at `recv_at` (traced 100 us long), 900 us of
// work after it.
Trace send_recv(std::uint64_t bytes, double recv_at, const char* send_fn = "MPI_Send") {
  TinyTrace t(2);
  t.call(0, send_fn, 1000, 1100, [&](RankBuilder& b) { b.send(us(1000), 1, t.world(), 5, bytes); });
  t.work(0, "after", 1100, 2000);
  t.call(1, "MPI_Recv", recv_at, recv_at + 100,
         [&](RankBuilder& b) { b.recv(us(recv_at + 100), 0, t.world(), 5, bytes); });
  t.work(1, "after", recv_at + 100, recv_at + 1000);
  return t.finish(recv_at + 1000 > 2000 ? recv_at + 1000 : 2000);
}

}  // namespace

TEST_CASE("eager send returns at once, the late receiver finds the message", "[replay][p2p]") {
  const Trace in = send_recv(500, 3000);
  const ReplayResult r = replay(in, tiny_platform(2, 1, 1000));
  CHECK(call_enter(r.trace, 0, 0) == Approx(1000));
  CHECK(first_event(r.trace, 0, EventKind::MpiSend) == Approx(1000));  // recorded on entry
  CHECK(call_leave(r.trace, 0, 0) == Approx(1001));                    // ready = enter + o
  CHECK(region_leave(r.trace, 0, "after") == Approx(1001 + 900));      // 900 us of work after it
  CHECK(call_leave(r.trace, 1, 0) == Approx(3001));                    // message arrived at 1011.5
  CHECK(first_event(r.trace, 1, EventKind::MpiRecv) == Approx(3001));
  CHECK(r.runtime * 1e6 == Approx(3001 + 900));
}

TEST_CASE("eager message to an early receiver arrives L + s/B after the send is ready", "[replay][p2p]") {
  const ReplayResult r = replay(send_recv(500, 500), tiny_platform(2, 1, 1000));
  CHECK(call_leave(r.trace, 1, 0) == Approx(1001 + 10 + 0.5));
  CHECK(call_leave(r.trace, 0, 0) == Approx(1001));
}

TEST_CASE("an empty message arrives L after its send, also for a receive posted meanwhile", "[replay][p2p]") {
  // Send ready at 1001, arrival at 1011: the receiver, ready at 1006, waits until then; one ready
  // at 1016 finds it there.
  CHECK(call_leave(replay(send_recv(0, 1005), tiny_platform(2, 1, 1000)).trace, 1, 0) == Approx(1011));
  CHECK(call_leave(replay(send_recv(0, 1015), tiny_platform(2, 1, 1000)).trace, 1, 0) == Approx(1016));
  CHECK(call_leave(replay(send_recv(0, 500), tiny_platform(2, 1, 1000)).trace, 1, 0) == Approx(1011));
}

TEST_CASE("rendezvous transfer starts when both sides are ready", "[replay][p2p]") {
  const ReplayResult r = replay(send_recv(2000, 3000), tiny_platform(2, 1, 1000));
  // max(1001, 3001) + 10 + 2
  CHECK(call_leave(r.trace, 0, 0) == Approx(3013));
  CHECK(call_leave(r.trace, 1, 0) == Approx(3013));
  CHECK(region_leave(r.trace, 0, "after") == Approx(3013 + 900));
}

TEST_CASE("the eager threshold option turns the rendezvous message eager", "[replay][p2p]") {
  ReplayOptions o;
  o.eager_threshold = 4000;
  const ReplayResult r = replay(send_recv(2000, 3000), tiny_platform(2, 1, 1000), o);
  CHECK(call_leave(r.trace, 0, 0) == Approx(1001));
  CHECK(call_leave(r.trace, 1, 0) == Approx(3001));
}

TEST_CASE("MPI_Ssend waits for the receiver even below the eager threshold", "[replay][p2p]") {
  const ReplayResult r = replay(send_recv(500, 3000, "MPI_Ssend"), tiny_platform(2, 1, 1000));
  CHECK(call_leave(r.trace, 0, 0) == Approx(3001 + 10.5));
  CHECK(call_leave(r.trace, 1, 0) == Approx(3001 + 10.5));
}

TEST_CASE("zero communication keeps only the synchronisation", "[replay][p2p]") {
  ReplayOptions o;
  o.zero_communication = true;
  const ReplayResult r = replay(send_recv(2000, 3000), tiny_platform(2, 1, 1000), o);
  CHECK(call_leave(r.trace, 0, 0) == Approx(3001));  // rendezvous, zero bytes, zero latency
  CHECK(call_leave(r.trace, 1, 0) == Approx(3001));
}

TEST_CASE("messages on one channel match in FIFO order", "[replay][p2p]") {
  // Rank 0 sends 2000 B (rendezvous) then 100 B (eager) with the same tag; rank 1 receives both
  // late. FIFO: the first receive takes the big message, the second the small one.
  TinyTrace t(2);
  t.call(0, "MPI_Send", 1000, 1100, [&](RankBuilder& b) { b.send(us(1000), 1, t.world(), 5, 2000); });
  t.call(0, "MPI_Send", 1200, 1300, [&](RankBuilder& b) { b.send(us(1200), 1, t.world(), 5, 100); });
  t.call(1, "MPI_Recv", 3000, 3100, [&](RankBuilder& b) { b.recv(us(3100), 0, t.world(), 5, 2000); });
  t.call(1, "MPI_Recv", 3200, 3300, [&](RankBuilder& b) { b.recv(us(3300), 0, t.world(), 5, 100); });
  const ReplayResult r = replay(t.finish(4000), tiny_platform(2, 1, 1000));
  // Big one: max(1001, 3001) + 12 = 3013 (sender blocked until then). Then the sender computes
  // 100 us (1100 -> 1200), enters at 3113, ready 3114, the small message arrives at 3124.1; the
  // receiver computes 100 us after 3013, enters its second receive at 3113, ready 3114.
  CHECK(call_leave(r.trace, 0, 0) == Approx(3013));
  CHECK(call_leave(r.trace, 1, 0) == Approx(3013));
  CHECK(call_leave(r.trace, 0, 1) == Approx(3114));
  CHECK(call_leave(r.trace, 1, 1) == Approx(3124.1));
}

TEST_CASE("Isend/Irecv complete where the trace completes them (Wait*, Test*)", "[replay][p2p]") {
  TinyTrace t(2);
  // Rank 0: Isend 2000 B (request 7) at 1000, an unsuccessful MPI_Test at 1100, MPI_Testall
  // completing it at 1500. Rank 1: Irecv (request 3) at 1200, MPI_Waitsome completing it at 2500.
  t.call(0, "MPI_Isend", 1000, 1010, [&](RankBuilder& b) { b.isend(us(1000), 1, t.world(), 0, 2000, 7); });
  t.call(0, "MPI_Test", 1100, 1101, [&](RankBuilder& b) { b.request_test(us(1101), 7); });
  t.call(0, "MPI_Testall", 1500, 1600, [&](RankBuilder& b) { b.isend_complete(us(1600), 7); });
  t.call(1, "MPI_Irecv", 1200, 1210, [&](RankBuilder& b) { b.irecv_request(us(1200), 3); });
  t.call(1, "MPI_Waitsome", 2500, 2600, [&](RankBuilder& b) { b.irecv(us(2600), 0, t.world(), 0, 2000, 3); });
  const ReplayResult r = replay(t.finish(3000), tiny_platform(2, 1, 1000));
  // Isend: 1000 -> 1001. Test: entered 1001 + 90 = 1091, leaves 1092 (overhead only).
  // Irecv: 1200 -> 1201; transfer max(1001, 1201) + 12 = 1213.
  // Testall: entered 1092 + 399 = 1491, ready 1492 > 1213 -> 1492.
  // Waitsome: entered 1201 + 1290 = 2491, ready 2492 -> 2492.
  CHECK(call_leave(r.trace, 0, 0) == Approx(1001));
  CHECK(call_enter(r.trace, 0, 1) == Approx(1091));
  CHECK(call_leave(r.trace, 0, 1) == Approx(1092));
  CHECK(call_leave(r.trace, 0, 2) == Approx(1492));
  CHECK(first_event(r.trace, 0, EventKind::MpiIsendComplete) == Approx(1492));
  CHECK(first_event(r.trace, 1, EventKind::MpiIrecvRequest) == Approx(1200));
  CHECK(call_leave(r.trace, 1, 1) == Approx(2492));
  CHECK(r.trace.messages.size() == 1);
}

TEST_CASE("a Wait blocks until the rendezvous transfer ends", "[replay][p2p]") {
  TinyTrace t(2);
  t.call(0, "MPI_Isend", 1000, 1010, [&](RankBuilder& b) { b.isend(us(1000), 1, t.world(), 0, 5000, 1); });
  t.call(0, "MPI_Wait", 1020, 1030, [&](RankBuilder& b) { b.isend_complete(us(1030), 1); });
  t.call(1, "MPI_Irecv", 3000, 3010, [&](RankBuilder& b) { b.irecv_request(us(3000), 1); });
  t.call(1, "MPI_Waitany", 3020, 3030, [&](RankBuilder& b) { b.irecv(us(3030), 0, t.world(), 0, 5000, 1); });
  const ReplayResult r = replay(t.finish(4000), tiny_platform(2, 1, 1000));
  // Transfer: max(1001, 3001) + 10 + 5 = 3016. Wait on rank 0 entered 1011 -> 3016.
  // Waitany on rank 1 entered 3001 + 10 = 3011, ready 3012 -> 3016.
  CHECK(call_leave(r.trace, 0, 1) == Approx(3016));
  CHECK(call_leave(r.trace, 1, 1) == Approx(3016));
}

TEST_CASE("per-message overheads: a send's before it, a receive's once it arrived", "[replay][p2p]") {
  TinyTrace t(2);
  t.call(0, "MPI_Isend", 1000, 1010, [&](RankBuilder& b) { b.isend(us(1000), 1, t.world(), 0, 500, 1); });
  t.call(0, "MPI_Wait", 1020, 1030, [&](RankBuilder& b) { b.isend_complete(us(1030), 1); });
  t.call(1, "MPI_Irecv", 900, 910, [&](RankBuilder& b) { b.irecv_request(us(900), 1); });
  t.call(1, "MPI_Waitany", 920, 930, [&](RankBuilder& b) { b.irecv(us(930), 0, t.world(), 0, 500, 1); });
  Platform p = tiny_platform(2, 1, 1000);  // the 1 us per call is not paid: no function has its own
  p.mpi.send_overhead = us(2);
  p.mpi.receive_overhead = us(3);
  const Trace in = t.finish(4000);
  const ReplayResult r = replay(in, p);
  // Isend: 2 us for its message, which leaves at 1002 and arrives 1002 + 10 + 0.5 = 1012.5.
  CHECK(call_leave(r.trace, 0, 0) == Approx(1002));
  // Irecv posts (no message yet): 900 -> 900. Waitany entered 910, the message arrives at 1012.5,
  // then 3 us to receive it.
  CHECK(call_leave(r.trace, 1, 0) == Approx(900));
  CHECK(call_leave(r.trace, 1, 1) == Approx(1015.5));
  // A function with an overhead of its own pays it per call instead.
  p.mpi.overheads["MPI_Waitany"] = us(1);
  CHECK(call_leave(replay(in, p).trace, 1, 1) == Approx(1012.5));
}

TEST_CASE("MPI_Sendrecv posts both sides before waiting (no deadlock)", "[replay][p2p]") {
  TinyTrace t(2);
  for (Rank r = 0; r < 2; ++r) {
    const double at = r == 0 ? 1000 : 1100;
    t.call(r, "MPI_Sendrecv", at, at + 50, [&](RankBuilder& b) {
      b.send(us(at), 1 - r, t.world(), 1, 2000);
      b.recv(us(at + 50), 1 - r, t.world(), 1, 2000);
    });
  }
  const ReplayResult r = replay(t.finish(2000), tiny_platform(2, 1, 1000));
  // Both transfers start at max(1001, 1101) and take 12 us.
  CHECK(call_leave(r.trace, 0, 0) == Approx(1113));
  CHECK(call_leave(r.trace, 1, 0) == Approx(1113));
}

TEST_CASE("MPI calls without communication keep their traced duration", "[replay][p2p]") {
  TinyTrace t(1);
  t.call(0, "MPI_Comm_rank", 100, 103);
  t.work(0, "solve", 103, 1103);
  const ReplayResult r = replay(t.finish(1200), tiny_platform(1, 50, 1000));
  CHECK(call_enter(r.trace, 0, 0) == Approx(100));
  CHECK(call_leave(r.trace, 0, 0) == Approx(103));  // not the 50 us overhead
  CHECK(end_of(r.trace, 0) == Approx(1200));
}

TEST_CASE("computation scales with the speed factor and host sharing", "[replay][p2p]") {
  TinyTrace t(2);
  t.work(0, "solve", 0, 1000);
  t.work(1, "solve", 0, 1000);
  const Trace in = t.finish(1000);
  Platform p = tiny_platform(2, 0, 1000);
  p.speed_factor = 2;
  CHECK(replay(in, p).runtime * 1e6 == Approx(500));
  ReplayOptions o;
  o.hosts = {"node-0"};  // both ranks on one single-core host: they share it
  CHECK(replay(in, tiny_platform(2, 0, 1000), o).runtime * 1e6 == Approx(2000));
}

TEST_CASE("latency and bandwidth factors scale the links", "[replay][p2p]") {
  Platform p = tiny_platform(2, 1, 1000);
  p.latency_factor = 2;
  p.bandwidth_factor = 0.5;
  const ReplayResult r = replay(send_recv(2000, 3000), p);
  CHECK(call_leave(r.trace, 1, 0) == Approx(3001 + 20 + 4));
}

TEST_CASE("ranks start at their first event's time", "[replay][p2p]") {
  TinyTrace t(2);
  t.work(0, "solve", 0, 10);
  Trace in = t.finish(50);
  for (Event& e : in.ranks[1].events) e.time += us(30);  // rank 1 launched 30 us later
  const ReplayResult r = replay(in, tiny_platform(2, 0, 1000));
  CHECK(r.trace.ranks[1].events.front().time * 1e6 == Approx(30));
  CHECK(end_of(r.trace, 1) == Approx(80));
  CHECK(end_of(r.trace, 0) == Approx(50));
}
