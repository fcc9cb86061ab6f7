// The shared state of one simulation (inside the replay's child process): the trace, the costs,
// the rank→host map, the mailboxes that carry messages and the synchronisation points of the
// analytic collectives. Actors run one at a time (SimGrid contexts), so no locking is needed, but
// every simcall (any S4U call that may block, and Mailbox::by_name) lets other actors run: no
// reference into a growing container may be held across one.
#pragma once

#include <simgrid/s4u.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "call_prices.hpp"
#include "fixed_transfers.hpp"
#include "wisp/replay/replay.hpp"

namespace wisp::replay_impl {

namespace sg = simgrid::s4u;

// One FIFO message stream: a point-to-point (communicator, source, destination, tag) channel or
// the collective traffic of one (communicator, source, destination) pair. Per MPI's
// non-overtaking rule its messages match in order; each protocol has its own mailbox, and both
// sides agree on the protocol of every message.
struct Channel {
  Channel(Rank from, Rank to) : sender(from), receiver(to) {}
  Rank sender = kNone;
  Rank receiver = kNone;
  sg::Mailbox* eager = nullptr;       // permanent receiver: the transfer starts when sent
  sg::Mailbox* rendezvous = nullptr;  // the transfer starts when both sides are there
  // Eager messages sent and receives started: both sides match in this order, so the n-th
  // receive completes the n-th send.
  std::uint64_t eager_sent = 0, eager_received = 0;
  // Eager messages of 0 bytes in flight: (place in the order, send time). SimGrid 3.32 completes
  // a receive that finds such a message on its way at once (nothing remains to transfer), so
  // the receiver waits for the latency itself (RankActor::await_arrival).
  std::vector<std::pair<std::uint64_t, double>> empty_messages;
  double latency = -1;  // of the route sender -> receiver, once needed [s]
  // Eager messages on a fixed route (fixed_transfers.hpp) travel without a SimGrid activity: the
  // sender leaves each one's send time and size here, in order, and the receiver takes them.
  static constexpr std::uint64_t kNoSequence = ~std::uint64_t{0};
  signed char fixed = -1;  // whether the route is fixed; -1: not asked yet
  struct Sent {
    double time;
    std::uint64_t bytes;
    bool taken = false;
  };
  std::vector<Sent> in_flight;          // a vector (an empty deque would allocate, for every channel)
  std::uint64_t first_in_flight = 0;    // place in the order of in_flight.front()
  std::size_t taken_in_front = 0;       // in_flight's leading entries already received
  std::uint64_t awaited = kNoSequence;  // the place the receiver waits to be sent
  std::uint64_t known_bytes = 0;        // the last size (> 0) whose duration is known, and that duration
  double known_duration = 0;
};
// An eager message whose receive is over: its sender may retire the send.
struct Delivery {
  std::uint32_t channel;
  std::uint64_t sequence;
};

// Members arriving at an analytic collective (or MPI_Init); waiters sleep on their rank's
// semaphore until their class condition holds.
struct SyncPoint {
  std::uint32_t size = 0;
  std::uint32_t arrived = 0;
  std::uint32_t prefix = 0;  // members [0, prefix) have all arrived
  std::uint32_t left = 0;
  std::uint32_t root = kNone;
  std::vector<char> present;
  std::vector<Rank> wait_all, wait_root;
  std::vector<Rank> wait_prefix;  // by member: the rank waiting for members up to it, or kNone
};

struct World {
  World(const Trace& replayed, const ReplayOptions& replay_options) : trace(replayed), options(replay_options) {}

  const Trace& trace;
  const ReplayOptions& options;
  std::uint64_t eager_threshold = 65536;
  double flops_per_second = 1e9;         // reference speed / speed factor
  CallPrices prices;                     // what each function's call costs
  std::optional<double> intra_overhead;  // a call whose messages stay on its host (Platform::intra)
  // What the calls whose messages all stay on their host pay, and how those messages go, when a
  // calibration prices the network inside hosts (Platform::intra_calibration).
  struct Inside {
    CallPrices prices;
    std::uint64_t eager_threshold = 65536;
    std::vector<std::vector<double>> size_factor;  // by receiving rank, as World::size_factor
  };
  std::optional<Inside> inside;
  std::vector<double> init_cost;  // by rank [s]
  std::uint32_t init_ranks = 0;   // ranks whose trace has an MPI_Init
  std::vector<sg::Host*> host_of_rank;
  // By rank: true if it has a core of its own (no more ranks on its host than cores), so that its
  // computation can be a sleep of the same length instead of a CPU execution (cheaper to solve).
  std::vector<char> exclusive_host;
  // By rank: factor on the simulated bytes of messages it receives, by log2 size class (empty:
  // none; see Platform::size_factors).
  std::vector<std::vector<double>> size_factor;
  std::vector<sg::ActorPtr> actors;
  std::vector<sg::SemaphorePtr> wakeup;    // by rank
  std::vector<std::vector<double>> times;  // by rank, by event: simulated time (empty: runtime_only)
  bool runtime_only = false;               // only each rank's last event's time is kept: `ends`
  std::vector<double> ends;                // by rank (runtime_only)
  // Trace-anchored costs: derived (options.anchor) or given (options.residuals), by rank and call.
  std::vector<std::vector<double>> residuals;
  AnchoredCalls anchored_calls;  // anchored: each call's simulated enter and model end (residual_causes.cpp)
  const std::vector<std::vector<double>>* given_residuals = nullptr;
  std::vector<std::vector<double>> typical;  // model-only: the platform's call cost of every call
  // Scenario replays: calls that wait for a partner's arrival before their kept residual
  // (CallResiduals::waits); by rank, the number of its MPI calls entered so far, and the ranks
  // waiting for it to enter a call: (call, waiting rank).
  const std::vector<std::vector<PartnerWait>>* partner_waits = nullptr;
  std::vector<std::uint32_t> calls_entered;
  std::vector<std::vector<std::pair<std::uint32_t, Rank>>> call_waiters;

  std::vector<Channel> channels;
  // By sender rank: its eager messages whose receive is over, for it to retire.
  std::vector<std::vector<Delivery>> delivered;
  // By rank, by p2p record: channel index << 1 | 1 if the message goes eagerly (kNone: none).
  std::vector<std::vector<std::uint32_t>> p2p_route;
  // Collective channels by communicator: a dense (source, destination) table of local ranks for
  // communicators up to 2048 members, else a map of packed (comm, source, destination) keys.
  std::vector<std::vector<std::uint32_t>> collective_table;
  std::unordered_map<std::uint64_t, std::uint32_t> collective_channels;

  std::vector<std::vector<std::uint32_t>> local_ranks;  // by comm (filled on first use): global → local
  std::unordered_map<std::uint64_t, SyncPoint> syncs;

  // Deadlock diagnosis: the Enter event of the MPI call each rank is in (kNone outside calls).
  std::vector<EventIndex> in_call;
  std::vector<double> blocked_at;  // per rank: its local time when it last waited (ahead of the clock)
  std::vector<char> finished;

  ReplayStatistics stats;
  FixedTransfers fixed_transfers{false};  // enabled by the simulation for platforms constant in time

  sg::Mailbox* mailbox(std::uint32_t channel, bool eager);
  std::uint64_t simulated_bytes(Rank sender, Rank receiver, std::uint64_t bytes) const;
  bool same_host(Rank a, Rank b) const { return host_of_rank[a] == host_of_rank[b]; }
  // Whether every message the call [first, last] of `rank` sends, receives or completes (a
  // collective: every member; the barrier of an MPI_Finalize without a record: every rank) has its
  // other side on the rank's host.
  bool stays_on_host(Rank rank, EventIndex first, EventIndex last, bool finalize_barrier) const;
  // The largest message from `sender` to `receiver` that goes eagerly.
  std::uint64_t eager_threshold_between(Rank sender, Rank receiver) const {
    return inside && same_host(sender, receiver) ? inside->eager_threshold : eager_threshold;
  }
  double latency(std::uint32_t channel);
  bool fixed(std::uint32_t channel);  // whether the channel's route is fixed (fixed_transfers.hpp)
  // The latest arrival of an eager message on a fixed route not yet received (0: none); with the
  // engine's clock, when a replay that can go no further ends.
  double last_arrival_in_flight();
  std::uint32_t collective_channel(CommId comm, Rank source, Rank destination);
  const std::vector<std::uint32_t>& local_rank_of(CommId comm);
  SyncPoint& sync(std::uint64_t key, std::uint32_t size, std::uint32_t root);
};

// Sync keys of operations that are not collective instances of the trace.
inline constexpr std::uint64_t kInitSyncKey = 1ull << 40;
inline constexpr std::uint64_t kFinalizeSyncKey = 2ull << 40;

// Arrival of member `local`; wakes the ranks whose condition now holds.
void arrive(World& w, SyncPoint& s, std::uint32_t local);
// Blocks the calling rank until every member / the root / members [0, local] arrived.
void wait_for_all(World& w, SyncPoint& s, Rank me);
void wait_for_root(World& w, SyncPoint& s, Rank me);
void wait_for_prefix(World& w, SyncPoint& s, std::uint32_t local, Rank me);
// The member leaves; the last one frees the sync point.
void leave(World& w, std::uint64_t key);

}  // namespace wisp::replay_impl
