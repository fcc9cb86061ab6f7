// Generated and hand-built traces the analyses spread over processes are tested on (spread_*_test.cpp).
#pragma once

#include "hand_trace.hpp"
#include "wisp/generate/generators.hpp"

namespace wisp::test {

// A small imbalanced halo (12 ranks, one overloaded, launch jitter) the spread tests generate.
inline gen::HaloOptions spread_halo() {
  gen::HaloOptions halo;
  halo.dims = {4, 3};
  halo.steps = 20;
  halo.overload_ranks = {5};
  halo.overload = 0.3;
  halo.launch_jitter = 0.001;
  return halo;
}

// Every kind of dependency the ideal network has, on 5 ranks (times in seconds).
inline Trace every_dependency() {
  test::HandTrace h(5);
  const CommId sub = h.comm({1, 2, 4});
  for (Rank r = 0; r < 5; ++r) {
    h.enter(r, 0.0 + 0.1 * r, "main");
    h.init(r, 0.5 + 0.1 * r, 1.0 + 0.1 * r);
  }
  // Small and large blocking messages: 0 -> 1 small, 2 -> 3 large (rendezvous), 3 -> 2 large received early.
  h.send(0, 2.0, 2.1, 1, 0, 64);
  h.recv(1, 1.5, 2.2, 0, 0, 64);
  h.send(2, 2.0, 3.0, 3, 0, 1 << 20);
  h.recv(3, 2.5, 3.1, 2, 0, 1 << 20);
  h.ssend(4, 2.0, 2.4, 0, 1, 1 << 18);
  h.recv(0, 2.3, 2.5, 4, 1, 1 << 18);
  // A receive that ends before its send starts (clock skew): no dependency.
  h.send(1, 3.4, 3.5, 4, 2, 8);
  h.recv(4, 3.0, 3.3, 1, 2, 8);
  // Non-blocking, large, completed by MPI_Wait / MPI_Waitall.
  const auto s0 = h.isend(0, 3.6, 3.7, 2, 3, 1 << 20);
  const auto r2 = h.irecv(2, 3.2, 3.3, 0, 3, 1 << 20);
  const auto s3 = h.isend(3, 3.4, 3.5, 1, 4, 1 << 10);
  const auto r1 = h.irecv(1, 3.6, 3.7, 3, 4, 1 << 10);
  h.wait(0, 3.8, 4.0, {s0});
  h.wait(2, 3.4, 4.1, {r2});
  h.wait(3, 3.6, 3.9, {s3});
  h.wait(1, 3.8, 4.2, {r1});
  h.sendrecv(4, 3.5, 4.3, 3, 3, 5, 1 << 19);
  h.sendrecv(3, 4.0, 4.4, 4, 4, 5, 1 << 19);
  // Collectives of every class.
  const double bcast[5] = {4.5, 4.6, 4.7, 4.8, 4.5};
  for (Rank r = 0; r < 5; ++r) h.collective(r, bcast[r], 5.0 + 0.01 * r, "MPI_Bcast", h.world(), 2);
  const double reduce[5] = {5.2, 5.5, 5.3, 5.1, 5.4};
  for (Rank r = 0; r < 5; ++r) h.collective(r, reduce[r], r == 1 ? 5.8 : reduce[r] + 0.05, "MPI_Reduce", h.world(), 1);
  const double scan[5] = {6.0, 6.3, 6.1, 6.5, 6.2};
  for (Rank r = 0; r < 5; ++r) h.collective(r, scan[r], 6.6 + 0.01 * r, "MPI_Scan", h.world());
  for (Rank r : {1, 2, 4}) h.collective(r, 6.8 + 0.1 * r, 7.5, "MPI_Allreduce", sub);
  for (Rank r = 0; r < 5; ++r) h.collective(r, 7.6 + 0.05 * r, 8.0, "MPI_Barrier", h.world());
  for (Rank r = 0; r < 5; ++r) {
    h.work(r, 8.0, 8.5 + 0.2 * r, "compute");
    h.finalize(r, 9.5, 10.0);
    h.leave(r, 10.1, "main");
  }
  Trace t = h.finish();
  t.defs.world = h.world();  // to be written
  return t;
}

// Both ranks send a large message, then receive: the rendezvous (as observed, and on the ideal
// network) wait for each other's receive, posted at the same instant as the sends complete (a cycle).
inline Trace ideal_cycle() {
  test::HandTrace h(2);
  for (Rank r = 0; r < 2; ++r) {
    h.enter(r, 0.0, "main");
    h.send(r, 1.0, 2.0, 1 - r, 0, 1 << 20);
    h.recv(r, 2.0, 3.0, 1 - r, 0, 1 << 20);
    h.leave(r, 4.0, "main");
  }
  Trace t = h.finish();
  t.defs.world = h.world();
  return t;
}

}  // namespace wisp::test
