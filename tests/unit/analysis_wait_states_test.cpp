// Wait states on hand-built traces whose waiting times follow from the numbers written in the
// test (Scalasca's definitions: Late Sender = min(enter of send, leave of receive) - enter of the
// receive call; Late Receiver = enter of the receive-posting call - enter of the send-completing
// call, if the latter ends after the former; collectives compare begin times), and on the
// imbalance generator, whose barrier waits follow from its analytic model.
#include <catch2/catch.hpp>

#include "hand_trace.hpp"
#include "wisp/analysis/wait_path_analysis.hpp"
#include "wisp/generate/generators.hpp"

using namespace wisp;
using test::HandTrace;

using test::callpath;

namespace {

double waited(const Trace& t, const WaitStates& w, WaitKind k, const std::string& cp, Rank r) {
  return w.seconds[static_cast<int>(k)].at(slot_of(callpath(t, cp)), r);
}
double count(const Trace& t, const WaitStates& w, WaitKind k, const std::string& cp, Rank r) {
  return w.counts[static_cast<int>(k)].at(slot_of(callpath(t, cp)), r);
}
double total(const WaitStates& w, WaitKind k) { return w.seconds[static_cast<int>(k)].sum(); }

WaitStates waits_of(const Trace& t) { return find_wait_states(t, index_mpi_calls(t)); }

}  // namespace

TEST_CASE("Late Sender in a blocking receive", "[analysis][waitstates]") {
  HandTrace h(2);
  h.enter(0, 0, "main");
  h.work(0, 0, 5, "foo");
  h.send(0, 5, 5.1, 1, 0);
  h.recv(0, 6, 6.5, 1, 1);  // its sender (5.3) is early: no wait
  h.leave(0, 7, "main");
  h.enter(1, 0, "main");
  h.recv(1, 2, 5.2, 0, 0);  // waits from 2 until the send starts at 5
  h.send(1, 5.3, 5.4, 0, 1);
  h.leave(1, 7, "main");
  const Trace t = h.finish();
  const WaitStates w = waits_of(t);
  CHECK(waited(t, w, WaitKind::LateSender, "main/MPI_Recv", 1) == Approx(3.0));
  CHECK(count(t, w, WaitKind::LateSender, "main/MPI_Recv", 1) == 1);
  CHECK(waited(t, w, WaitKind::LateSender, "main/MPI_Recv", 0) == 0);
  CHECK(total(w, WaitKind::LateReceiver) == 0);  // both sends end before their receive is posted
  REQUIRE(w.instances.size() == 1);
  CHECK(w.instances[0].delayer == 0);
  CHECK(t.event(0, w.instances[0].delayer_event).kind == EventKind::MpiSend);
  CHECK(t.event(1, w.instances[0].event).kind == EventKind::MpiRecv);
}

TEST_CASE("Late Sender in MPI_Waitall (largest wait only) and MPI_Wait", "[analysis][waitstates]") {
  HandTrace h(3);
  for (Rank r = 0; r < 3; ++r) h.enter(r, 0, "main");
  const auto a = h.irecv(0, 1, 1.1, 1, 0);
  const auto b = h.irecv(0, 1.1, 1.2, 2, 0);
  h.wait(0, 2, 5.5, {a, b});  // sends start at 4 (wait 2) and 5 (wait 3): Scalasca counts 3
  const auto c = h.irecv(0, 6, 6.1, 1, 1);
  h.wait(0, 7, 8.2, {c});  // send starts at 8: wait 1
  h.send(1, 4, 4.1, 0, 0);
  h.send(1, 8, 8.1, 0, 1);
  h.send(2, 5, 5.1, 0, 0);
  for (Rank r = 0; r < 3; ++r) h.leave(r, 9, "main");
  const Trace t = h.finish();
  const WaitStates w = waits_of(t);
  CHECK(waited(t, w, WaitKind::LateSender, "main/MPI_Waitall", 0) == Approx(3.0));
  CHECK(count(t, w, WaitKind::LateSender, "main/MPI_Waitall", 0) == 1);
  CHECK(waited(t, w, WaitKind::LateSender, "main/MPI_Wait", 0) == Approx(1.0));
  CHECK(total(w, WaitKind::LateSender) == Approx(4.0));
  CHECK(total(w, WaitKind::LateReceiver) == 0);
  for (const WaitState& s : w.instances)
    if (s.callpath == callpath(t, "main/MPI_Waitall")) CHECK(s.delayer == 2);
}

TEST_CASE("Late Receiver in a blocking send and in MPI_Wait on an Isend", "[analysis][waitstates]") {
  HandTrace h(2);
  h.enter(0, 0, "main");
  h.send(0, 1, 5, 1, 0);  // rendezvous: leaves only after the receive (posted at 4)
  const auto x = h.isend(0, 6, 6.1, 1, 1);
  h.wait(0, 6.5, 9, {x});  // the Irecv is posted at 8
  h.leave(0, 10, "main");
  h.enter(1, 0, "main");
  h.recv(1, 4, 5.2, 0, 0);
  const auto y = h.irecv(1, 8, 8.1, 0, 1);
  h.wait(1, 8.2, 9.1, {y});
  h.leave(1, 10, "main");
  const Trace t = h.finish();
  const WaitStates w = waits_of(t);
  CHECK(waited(t, w, WaitKind::LateReceiver, "main/MPI_Send", 0) == Approx(3.0));  // 4 - 1
  CHECK(waited(t, w, WaitKind::LateReceiver, "main/MPI_Wait", 0) == Approx(1.5));  // 8 - 6.5
  CHECK(count(t, w, WaitKind::LateReceiver, "main/MPI_Send", 0) == 1);
  CHECK(total(w, WaitKind::LateSender) == 0);
  for (const WaitState& s : w.instances) CHECK(s.delayer == 1);
}

TEST_CASE("Collective wait states on MPI_COMM_WORLD and a sub-communicator", "[analysis][waitstates]") {
  HandTrace h(4);
  const CommId sub = h.comm({0, 2});
  for (Rank r = 0; r < 4; ++r) {
    h.enter(r, 0, "main");
    h.init(r, 0, 0.5);
  }
  h.collective(0, 1, 3.5, "MPI_Barrier", sub);
  h.collective(2, 3, 3.5, "MPI_Barrier", sub);
  const double allreduce[4] = {4, 5, 4.5, 7.5};
  for (Rank r = 0; r < 4; ++r) h.collective(r, allreduce[r], 8, "MPI_Allreduce", h.world());
  const double bcast[4][2] = {{9, 12}, {11, 11.5}, {10, 12.5}, {11.5, 12}};
  for (Rank r = 0; r < 4; ++r) h.collective(r, bcast[r][0], bcast[r][1], "MPI_Bcast", h.world(), 1);
  const double reduce[4][2] = {{13, 17}, {14, 14.5}, {16, 16.5}, {15, 15.5}};
  for (Rank r = 0; r < 4; ++r) h.collective(r, reduce[r][0], reduce[r][1], "MPI_Reduce", h.world(), 0);
  const double scan[4][2] = {{19, 19.5}, {18, 19.6}, {18.5, 19.7}, {20, 20.1}};
  for (Rank r = 0; r < 4; ++r) h.collective(r, scan[r][0], scan[r][1], "MPI_Scan", h.world());
  const double finalize[4] = {21, 23, 22, 21.5};
  for (Rank r = 0; r < 4; ++r) {
    h.finalize(r, finalize[r], 24);
    h.leave(r, 25, "main");
  }
  const Trace t = h.finish();
  const WaitStates w = waits_of(t);

  CHECK(waited(t, w, WaitKind::WaitBarrier, "main/MPI_Barrier", 0) == Approx(2.0));
  CHECK(waited(t, w, WaitKind::WaitBarrier, "main/MPI_Barrier", 2) == 0);
  CHECK(total(w, WaitKind::WaitBarrier) == Approx(2.0));
  // Allreduce: everyone waits for rank 3, which begins at 7.5
  CHECK(waited(t, w, WaitKind::WaitNxN, "main/MPI_Allreduce", 0) == Approx(3.5));
  CHECK(waited(t, w, WaitKind::WaitNxN, "main/MPI_Allreduce", 1) == Approx(2.5));
  CHECK(waited(t, w, WaitKind::WaitNxN, "main/MPI_Allreduce", 2) == Approx(3.0));
  CHECK(waited(t, w, WaitKind::WaitNxN, "main/MPI_Allreduce", 3) == 0);
  CHECK(count(t, w, WaitKind::WaitNxN, "main/MPI_Allreduce", 1) == 1);
  // Bcast from rank 1 (begins at 11): ranks 0 and 2 begin earlier, rank 3 later
  CHECK(waited(t, w, WaitKind::LateBroadcast, "main/MPI_Bcast", 0) == Approx(2.0));
  CHECK(waited(t, w, WaitKind::LateBroadcast, "main/MPI_Bcast", 2) == Approx(1.0));
  CHECK(total(w, WaitKind::LateBroadcast) == Approx(3.0));
  // Reduce to rank 0 (begins at 13); the last sender, rank 2, begins at 16
  CHECK(waited(t, w, WaitKind::EarlyReduce, "main/MPI_Reduce", 0) == Approx(3.0));
  CHECK(total(w, WaitKind::EarlyReduce) == Approx(3.0));
  // Scan: rank 1 waits for rank 0 (19 - 18), rank 2 for rank 0 (19 - 18.5)
  CHECK(waited(t, w, WaitKind::EarlyScan, "main/MPI_Scan", 1) == Approx(1.0));
  CHECK(waited(t, w, WaitKind::EarlyScan, "main/MPI_Scan", 2) == Approx(0.5));
  CHECK(total(w, WaitKind::EarlyScan) == Approx(1.5));
  // Finalize: rank 1 enters last (23)
  CHECK(waited(t, w, WaitKind::FinalizeWait, "main/MPI_Finalize", 0) == Approx(2.0));
  CHECK(waited(t, w, WaitKind::FinalizeWait, "main/MPI_Finalize", 2) == Approx(1.0));
  CHECK(waited(t, w, WaitKind::FinalizeWait, "main/MPI_Finalize", 3) == Approx(1.5));
  CHECK(total(w, WaitKind::FinalizeWait) == Approx(4.5));
  CHECK(total(w, WaitKind::LateSender) + total(w, WaitKind::LateReceiver) == 0);
  // MPI_Init's CREATE_HANDLE is not a collective wait
  CHECK(w.init.present);
  CHECK(w.finalize.latest == 1);

  for (const WaitState& s : w.instances) {
    if (s.kind == WaitKind::WaitNxN) CHECK(s.delayer == 3);
    if (s.kind == WaitKind::LateBroadcast) CHECK(s.delayer == 1);
    if (s.kind == WaitKind::EarlyReduce) CHECK(s.delayer == 2);
    if (s.kind == WaitKind::WaitBarrier) CHECK(s.delayer == 2);
  }
}

TEST_CASE("Barrier waits of the imbalance generator follow its model", "[analysis][waitstates]") {
  // Static mode: rank r works w + e(2r/(P-1) - 1) per iteration, every barrier begins one
  // overhead after the work, so rank r waits e(2 - 2r/(P-1)) per iteration; summed over the
  // ranks that is e·P, over N iterations N·e·P with e = percent/100 · T_balanced / N.
  gen::ImbalanceOptions o;
  o.mode = "static";
  o.ranks = 8;
  o.iterations = 40;
  const Trace t = gen::generate_imbalance(o);
  const WaitStates w = waits_of(t);
  const double e = o.percent / 100.0 * gen::imbalance_balanced_runtime(o) / o.iterations;
  CHECK(total(w, WaitKind::WaitBarrier) == Approx(o.iterations * e * o.ranks).margin(1e-6));
  const double per_iteration_rank0 = 2 * e;  // the fastest rank
  CHECK(waited(t, w, WaitKind::WaitBarrier, "main/MPI_Barrier", 0) ==
        Approx(o.iterations * per_iteration_rank0).margin(1e-6));
  CHECK(waited(t, w, WaitKind::WaitBarrier, "main/MPI_Barrier", 7) == Approx(0).margin(1e-6));
  CHECK(total(w, WaitKind::FinalizeWait) == Approx(0).margin(1e-6));
}

TEST_CASE("completion times: a member's time in a barrier, N x N or MPI_Init after the first one left",
          "[analysis][wait_states]") {
  // MPI_Init: ranks 0-2 in [0, 0.5], [0, 0.8], [0.1, 0.6]: the last enters at 0.1, the first
  // leaves at 0.5 -> completion 0, 0.3, 0.1. Barrier [1, 3], [2, 4], [2.5, 3.5]: last enter 2.5,
  // first leave 3 -> 0, 1.0, 0.5. Allreduce [5, 6], [5.2, 7], [4, 6.5]: 5.2 and 6 -> 0, 1.0, 0.5.
  test::HandTrace h(3);
  const double init_leave[3] = {0.5, 0.8, 0.6}, init_enter[3] = {0, 0, 0.1};
  const double bar[3][2] = {{1, 3}, {2, 4}, {2.5, 3.5}}, all[3][2] = {{5, 6}, {5.2, 7}, {4, 6.5}};
  for (Rank r = 0; r < 3; ++r) {
    h.enter(r, 0, "main");
    h.init(r, init_enter[r], init_leave[r]);
    h.collective(r, bar[r][0], bar[r][1], "MPI_Barrier", 0);
    h.collective(r, all[r][0], all[r][1], "MPI_Allreduce", 0);
    h.finalize(r, 8, 9);
    h.leave(r, 9, "main");
  }
  const Trace t = h.finish();
  const MetricTable table = metric_table(analyze_wait_paths(t));
  const double expected[3] = {0, 1.0, 0.5}, init[3] = {0, 0.3, 0.1};
  for (Rank r = 0; r < 3; ++r) {
    INFO("rank " << r);
    CHECK(test::metric_of(t, table, "mpi_barrier_completion", "main/MPI_Barrier", r) == Approx(expected[r]));
    CHECK(test::metric_of(t, table, "mpi_nxn_completion", "main/MPI_Allreduce", r) == Approx(expected[r]));
    CHECK(test::metric_of(t, table, "mpi_init_completion", "main/MPI_Init", r) == Approx(init[r]).margin(1e-12));
  }
}

TEST_CASE("Late Sender, wrong order: a message received after a later-sent one, from another source or the same",
          "[analysis][wait_states]") {
  // Rank 0 receives from rank 1 in [1, 5.5] (sent at 5: Late Sender 4.0), then from rank 2 in
  // [5.5, 5.6] (sent at 1, before): the first Late Sender was a wrong order from a different source.
  // Then from rank 1 with tag 7 in [6, 9.5] (sent at 9: Late Sender 3.0, 0 bytes), then with tag 8
  // in [9.5, 9.6] (sent at 8.5): wrong order from the same source, of an empty message.
  test::HandTrace h(3);
  for (Rank r = 0; r < 3; ++r) h.enter(r, 0, "main");
  h.recv(0, 1, 5.5, 1, 0, 8);
  h.recv(0, 5.5, 5.6, 2, 0, 8);
  h.send(1, 5, 5.1, 0, 0, 8);
  h.send(2, 1, 1.1, 0, 0, 8);
  h.send(1, 8.5, 8.6, 0, 8, 8);
  h.send(1, 9, 9.1, 0, 7, 0);
  h.recv(0, 6, 9.5, 1, 7, 0);
  h.recv(0, 9.5, 9.6, 1, 8, 8);
  for (Rank r = 0; r < 3; ++r) h.leave(r, 10, "main");
  const Trace t = h.finish();
  const MetricTable table = metric_table(analyze_wait_paths(t));
  CHECK(test::metric_of(t, table, "mpi_latesender", "main/MPI_Recv", 0) == Approx(7.0));
  CHECK(test::metric_of(t, table, "mpi_lswo_different", "main/MPI_Recv", 0) == Approx(4.0));
  CHECK(test::metric_of(t, table, "mpi_lswo_same", "main/MPI_Recv", 0) == Approx(3.0));
  CHECK(test::metric_of(t, table, "mpi_latesender_wo", "main/MPI_Recv", 0) == Approx(7.0));
  CHECK(test::metric_of(t, table, "mpi_clswo_count", "main/MPI_Recv", 0) == 1);
  CHECK(test::metric_of(t, table, "mpi_slswo_count", "main/MPI_Recv", 0) == 1);
  // The empty message's Late Sender is a synchronisation's, the other a communication's.
  CHECK(test::metric_of(t, table, "mpi_cls_count", "main/MPI_Recv", 0) == 1);
  CHECK(test::metric_of(t, table, "mpi_sls_count", "main/MPI_Recv", 0) == 1);
}
