// Hand-built tiny traces for the replay tests: every rank runs main from time 0; calls are added
// with their traced enter/leave times and their records. Times in the tests are microseconds.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "wisp/replay/platform.hpp"
#include "wisp/trace/builder.hpp"

namespace wisp::test {

inline double us(double x) { return x * 1e-6; }

class TinyTrace {
 public:
  // Ranks 0..ranks-1, MPI_COMM_WORLD (comm 0), MPI_COMM_SELF (comm 1), then `subcomms` (comm 2...).
  explicit TinyTrace(std::uint32_t ranks, const std::vector<std::vector<Rank>>& subcomms = {}) {
    Definitions d;
    d.clock = Clock{1'000'000'000, 0, 0};
    std::vector<Rank> all;
    for (Rank r = 0; r < ranks; ++r) {
      Location loc;
      loc.group_name = "MPI Rank " + std::to_string(r);
      loc.otf2_id = r;
      d.ranks.push_back(loc);
      all.push_back(r);
    }
    d.world = d.add_comm(Communicator{"MPI_COMM_WORLD", all, false, kNone});
    d.add_comm(Communicator{"MPI_COMM_SELF", {}, true, kNone});
    for (std::size_t i = 0; i < subcomms.size(); ++i)
      d.add_comm(Communicator{"sub" + std::to_string(i), subcomms[i], false, d.world});
    builder_ = std::make_unique<TraceBuilder>(std::move(d));
    main_ = region("main");
    for (Rank r = 0; r < ranks; ++r) {
      builder_->rank(r).program_begin(0);
      builder_->rank(r).enter(0, main_);
    }
    ends_.assign(ranks, 0);
  }

  CommId world() const { return 0; }
  CommId sub(std::size_t i) const { return static_cast<CommId>(2 + i); }

  RegionId region(const std::string& name) {
    auto& d = builder_->defs();
    if (auto id = d.find_region(name)) return *id;
    return d.add_region(make_region(name));
  }

  // An MPI call on rank r from `enter` to `leave` [us]; `inner(builder)` appends its records.
  template <typename Inner>
  void call(Rank r, const std::string& function, double enter, double leave, Inner inner) {
    RankBuilder& b = builder_->rank(r);
    const RegionId id = region(function);
    b.enter(us(enter), id);
    inner(b);
    b.leave(us(leave), id);
  }
  void call(Rank r, const std::string& function, double enter, double leave) {
    call(r, function, enter, leave, [](RankBuilder&) {});
  }
  // A collective call with its Score-P records for per-rank buffer `buffer` (root: global rank).
  void collective(Rank r, const std::string& function, CollectiveOp op, CommId comm, double enter, double leave,
                  std::uint64_t buffer, Rank root = kNone) {
    const auto n = builder_->defs().comms[comm].size();
    const auto bytes = collective_bytes(op, buffer, n, r == root);
    call(r, function, enter, leave, [&](RankBuilder& b) {
      b.collective_begin(us(enter));
      b.collective_end(us(leave), op, comm, root, bytes.sent, bytes.received);
    });
  }
  // A user region (computation) on rank r.
  void work(Rank r, const std::string& name, double enter, double leave) {
    RankBuilder& b = builder_->rank(r);
    b.enter(us(enter), region(name));
    b.leave(us(leave), region(name));
  }
  RankBuilder& rank(Rank r) { return builder_->rank(r); }

  // Leaves main at `end` [us] on every rank (or later, as each rank's last event) and finishes.
  Trace finish(double end) {
    for (Rank r = 0; r < ends_.size(); ++r) {
      builder_->rank(r).leave(us(end), main_);
      builder_->rank(r).program_end(us(end));
    }
    return builder_->finish();
  }

 private:
  std::unique_ptr<TraceBuilder> builder_;
  RegionId main_ = kNone;
  std::vector<double> ends_;
};

// L = 10 us end to end, B = 1 GB/s (1 ns per byte), overhead o, eager threshold E, one host
// per rank, no contention.
inline Platform tiny_platform(std::uint32_t ranks, double overhead_us, std::uint64_t eager) {
  return contention_free_crossbar(ranks, us(10), 1e9, us(overhead_us), eager);
}

// Time [us] of the Leave of rank r's k-th MPI call (0 = first).
inline double call_leave(const Trace& t, Rank r, std::size_t k) {
  return t.ranks[r].events[t.ranks[r].mpi_calls.at(k).leave].time * 1e6;
}
inline double call_enter(const Trace& t, Rank r, std::size_t k) {
  return t.ranks[r].events[t.ranks[r].mpi_calls.at(k).enter].time * 1e6;
}
// Time [us] of the first event of `kind` on rank r.
inline double first_event(const Trace& t, Rank r, EventKind kind) {
  for (const Event& e : t.ranks[r].events)
    if (e.kind == kind) return e.time * 1e6;
  return -1;
}
// Time [us] of the first Leave of region `name` on rank r.
inline double region_leave(const Trace& t, Rank r, const std::string& name) {
  for (const Event& e : t.ranks[r].events)
    if (e.kind == EventKind::Leave && t.defs.region_of(e.ref).name == name) return e.time * 1e6;
  return -1;
}
// Both ranks receive first (rendezvous-sized messages, 4096 bytes): a classic deadlock once the sends
// come after the receives (with an eager limit below 4096). Rank 2 waits in a barrier the others never reach.
inline Trace deadlocking_trace() {
  TinyTrace t(3);
  for (Rank r = 0; r < 2; ++r) {
    t.call(r, "MPI_Recv", 100, 200, [&](RankBuilder& b) { b.recv(us(200), 1 - r, t.world(), 7, 4096); });
    t.call(r, "MPI_Send", 300, 400, [&](RankBuilder& b) { b.send(us(300), 1 - r, t.world(), 7, 4096); });
  }
  t.collective(2, "MPI_Barrier", CollectiveOp::Barrier, t.world(), 100, 200, 0);
  return t.finish(1000);
}

inline double end_of(const Trace& t, Rank r) { return t.ranks[r].events.back().time * 1e6; }

}  // namespace wisp::test
