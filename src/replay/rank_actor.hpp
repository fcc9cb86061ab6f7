// The actor of one rank: walks the rank's events in order, executes the computation between MPI
// calls, replays each MPI call (overhead, messages, request completions, collectives) and stamps
// every event with the simulated time.
#pragma once

#include <vector>

#include "collective_schedule.hpp"
#include "world.hpp"

namespace wisp::replay_impl {

class RankActor {
 public:
  RankActor(World& world, Rank rank);
  void run();

  // A posted transfer. An eager receive also names its channel and its place in the channel's
  // message order, which identify the send it completes (see retire_delivered). An eager receive
  // without a comm is deferred: an eager message travels when it is sent, whenever its receive
  // is posted, so the receive is posted when it is waited for (one simcall instead of two).
  struct Transfer {
    sg::CommPtr comm;
    std::uint32_t channel = kNone;  // kNone unless an eager receive
    std::uint64_t sequence = 0;
    bool fixed = false;  // an eager receive on a fixed route, its place taken (no comm)
  };
  // Messaging used by point-to-point calls and collective algorithms. An eager send completes at
  // once (an empty Transfer); otherwise the transfer completes with the message's arrival.
  Transfer send(std::uint32_t channel, bool eager, std::uint64_t bytes);
  Transfer receive(std::uint32_t channel, bool eager);
  Transfer deferred_receive(std::uint32_t channel);
  void wait(Transfer& t);
  // Posts a receive and waits for it in one simcall (cheaper than receive + wait).
  void receive_now(std::uint32_t channel, bool eager);
  // A transfer of `bytes` to `to` that nobody receives (an analytic collective's round): the rank
  // goes on when it arrives. A transfer whose time is fixed (fixed_transfers.hpp) only adds it.
  void transfer(sg::Host* to, std::uint64_t bytes);
  // The rank's local time: computation and per-call costs are kept as time the actor is ahead of
  // SimGrid's clock (`ahead_`) and slept at once when another actor could see it (catch_up(): before
  // a send, a rendezvous receive's post, a synchronisation, an announcement), not one sleep each.
  double local_now() const;
  void catch_up();
  bool sleeps_at_calls() const;
  World& world() { return w_; }
  Rank rank() const { return rank_; }
  sg::Host* host() const { return w_.host_of_rank[rank_]; }

 private:
  struct OpenRequest {
    std::uint32_t record;  // p2p record of the Isend/Irecv
    Transfer transfer;
  };

  void compute(double seconds);
  void spend(double seconds);
  bool starts_call(EventIndex i, EventIndex& last);
  EventIndex replay_call(EventIndex first, EventIndex last);
  // The call's sends, receives, completions and collectives, in event order.
  void post_operations(EventIndex first, EventIndex last, bool init);
  // Simulated times of the call's events: posting records at its enter, the rest at its end.
  void stamp_call(EventIndex first, EventIndex last, bool has_enter, double enter, double end);
  void replay_local(EventIndex first, EventIndex last);
  void post_send(std::uint32_t record, bool blocking);
  void post_receive(std::uint32_t record, bool blocking);
  void complete(std::uint32_t record);
  void cancel(std::uint32_t record);
  void initialize();
  void finalize_without_record();
  void wait_pending();
  void settle_residual(std::size_t call, EventIndex last, bool unmatched);
  void entered_call();
  double await_partner(std::size_t call, double residual);
  void start_deferred(std::uint32_t channel);
  std::uint64_t receive_and_wait(std::uint32_t channel, bool eager);
  void await_arrival(std::uint32_t channel, std::uint64_t sequence);
  // Eager messages on fixed routes (fixed_transfers.hpp): sent at the local time, received at the
  // send time plus the route's duration for the size.
  void send_fixed(std::uint32_t channel, std::uint64_t bytes);
  void receive_fixed(std::uint32_t channel, std::uint64_t sequence);
  double fixed_duration(sg::Host* from, sg::Host* to, std::uint64_t bytes);
  void probe_from_here(sg::Host* to, std::uint64_t bytes);
  void wait_for_wakeup();
  void delivered(std::uint32_t channel, std::uint64_t sequence);
  void retire_delivered();
  void retire_all_eager_sends();
  // The simulated time of event k: in the table, or (runtime only) kept for the last event alone.
  void stamp(EventIndex k, double t) {
    if (times_) times_[k] = t;
    if (end_ && k == last_event_) *end_ = t;
  }

  // Runs a blocking SimGrid call: the actor stays ahead by what its local time exceeds the time the
  // call returned (nothing where it returned later).
  template <typename Call>
  void block_on(Call&& call);

  World& w_;
  Rank rank_;
  const RankTrace& rt_;
  double* times_;          // this rank's row of the times table (null: runtime only)
  EventIndex last_event_;  // runtime only: the event whose time is kept, in *end_
  double* end_;
  std::size_t next_call_ = 0;  // index into rt_.mpi_calls
  // Trace-anchored costs: how much later than traced the last call ended because its model cost
  // exceeded the traced one; the following computation catches it up (see settle_residual).
  double late_ = 0;
  double ahead_ = 0;                   // local time not slept yet (local_now() = SimGrid's clock + ahead_)
  std::size_t next_wait_ = 0;          // into the rank's partner waits (sorted by call)
  std::vector<OpenRequest> requests_;  // posted and not yet completed
  std::vector<Transfer> pending_;      // to wait for before the current call returns
  // Eager sends not yet retired. SimGrid keeps a detached comm in one global list until it is
  // over and removes it with a scan of that list, twice per message; a comm the sender keeps and
  // waits for once its receive is done costs one scan of this rank's short list instead.
  struct EagerSend {
    std::uint32_t channel;
    std::uint64_t sequence;
    sg::CommPtr comm;
  };
  std::vector<EagerSend> eager_sends_;
  void* sink_ = nullptr;  // where received payloads land (ignored)
};

// Replays one collective operation of `self` with the replay's algorithm of its family
// (collectives.cpp).
void run_collective(RankActor& self, const CollectiveCall& call);

}  // namespace wisp::replay_impl
