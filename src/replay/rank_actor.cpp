// The per-rank replay loop and point-to-point semantics. See rank_actor.hpp and src/replay/README.md.
#include "rank_actor.hpp"

#include "call_shape.hpp"

#include <algorithm>
#include <cmath>

namespace wisp::replay_impl {

namespace {

char token;  // payload of every simulated message (SimGrid needs a non-null pointer)

double now() { return sg::Engine::get_clock(); }

// Residuals smaller than SimGrid's time precision are rounding, not cost.
constexpr double kResidualResolution = 1e-9;
// What an actor is ahead of the clock after a blocking call, below this: rounding of the sums.
constexpr double kAheadResolution = 1e-12;

// Records that happen when the call starts (Score-P writes them on entry); all others happen
// when the call's communication is over.
bool is_posting(EventKind k) {
  return k == EventKind::MpiSend || k == EventKind::MpiIsend || k == EventKind::MpiIrecvRequest ||
         k == EventKind::MpiCollectiveBegin;
}

}  // namespace

double RankActor::local_now() const { return now() + ahead_; }

// Sleeps what the actor is ahead (SimGrid rounds sleeps up to its 1 ns precision: a shorter time
// is an execution at the host's speed, which it does not round).
void RankActor::catch_up() {
  const double t = ahead_;
  ahead_ = 0;
  if (t >= 1e-8)
    sg::this_actor::sleep_for(t);
  else if (t > 0)
    sg::this_actor::execute(t * host()->get_speed());
}

// Anchored and residual replays sleep at the same places (a call's enter, before its residual), so
// that a change of nothing replays as the identity to the last bit.
bool RankActor::sleeps_at_calls() const { return !w_.residuals.empty() || w_.given_residuals != nullptr; }

template <typename Call>
void RankActor::block_on(Call&& call) {
  const double local = local_now();
  w_.blocked_at[rank_] = local;
  call();
  ahead_ = local - now();
  if (ahead_ < kAheadResolution) ahead_ = 0;
}

RankActor::RankActor(World& world, Rank rank)
    : w_(world),
      rank_(rank),
      rt_(world.trace.ranks[rank]),
      times_(world.runtime_only ? nullptr : world.times[rank].data()),
      last_event_(static_cast<EventIndex>(rt_.events.size()) - 1),
      end_(world.runtime_only ? &world.ends[rank] : nullptr) {}

void RankActor::run() {
  const auto& events = rt_.events;
  if (!events.empty()) {
    if (events[0].time > 0) sg::this_actor::sleep_until(events[0].time);
    double previous = events[0].time;
    for (EventIndex i = 0; i < events.size(); ++i) {
      compute(events[i].time - previous);
      EventIndex last = i;
      if (starts_call(i, last)) {
        i = replay_call(i, last);
      } else {
        stamp(i, local_now());
        ++w_.stats.events;
      }
      previous = events[i].time;
    }
  }
  catch_up();
  retire_all_eager_sends();
  w_.finished[rank_] = 1;
}

// Traced seconds become flops at the reference speed, executed on the rank's host. A rank alone
// on its cores is ahead by exactly flops / host speed instead: the same time without a CPU action.
void RankActor::compute(double seconds) {
  if (seconds <= 0) return;
  double flops = seconds * w_.flops_per_second;
  double duration = flops / host()->get_speed();
  if (late_ > 0) {  // catch up a call whose model cost exceeded the traced one
    const double caught = std::min(late_, duration);
    late_ -= caught;
    duration -= caught;
    flops = duration * host()->get_speed();
    if (flops <= 0) return;
  }
  if (w_.exclusive_host[rank_]) {
    ahead_ += duration;
    return;
  }
  catch_up();  // shared cores: the execution's share depends on when it starts
  sg::this_actor::execute(flops);
}

// A per-call overhead: local time that CPU speeds do not scale.
void RankActor::spend(double seconds) {
  if (seconds > 0) ahead_ += seconds;
}

bool RankActor::starts_call(EventIndex i, EventIndex& last) {
  const auto& calls = rt_.mpi_calls;
  while (next_call_ < calls.size() && calls[next_call_].enter < i) ++next_call_;
  const EventKind kind = rt_.events[i].kind;
  if (kind == EventKind::Enter) {
    if (next_call_ == calls.size() || calls[next_call_].enter != i) return false;
    last = calls[next_call_++].leave;
    return true;
  }
  return is_communication(kind);  // a record outside any MPI region: a call of its own
}

void RankActor::replay_local(EventIndex first, EventIndex last) {
  const auto& events = rt_.events;
  stamp(first, local_now());
  for (EventIndex k = first + 1; k <= last; ++k) {
    compute(events[k].time - events[k - 1].time);
    stamp(k, local_now());
  }
  w_.stats.events += last - first + 1;
}

EventIndex RankActor::replay_call(EventIndex first, EventIndex last) {
  const CallShape c = shape_of(rt_, w_.trace.defs, first, last);
  // MPI calls without communication (Comm_rank, Wtime, ...) keep their traced duration.
  if (c.has_enter && !c.communicates && !c.init && !c.finalize &&
      w_.trace.defs.regions[c.region].kind == RegionKind::MpiOther) {
    replay_local(first, last);
    return last;
  }
  w_.stats.mpi_operations += c.operations + (c.completes ? 1 : 0) + (c.operations == 0 && !c.completes);

  retire_delivered();
  const double enter = local_now();
  if (c.has_enter) entered_call();
  if (c.has_enter && !w_.residuals.empty()) w_.anchored_calls.enter[rank_][next_call_ - 1] = enter;
  w_.in_call[rank_] = first;
  const bool on_host = c.has_enter && !c.init && (w_.intra_overhead || w_.inside) &&
                       w_.stays_on_host(rank_, first, last, c.finalize && !c.has_collective);
  const CallPrices& prices = on_host && w_.inside ? w_.inside->prices : w_.prices;  // the calibration inside hosts'
  const MessageOverhead per_message = c.has_enter && prices.per_message_region[c.region]
                                          ? message_overhead(c, prices.send_overhead, prices.receive_overhead)
                                          : MessageOverhead{};
  if (c.has_enter)
    spend((on_host && w_.intra_overhead ? *w_.intra_overhead : prices.overhead_of_region[c.region]) +
          per_message.before);
  if (c.init) initialize();
  post_operations(first, last, c.init);
  if (c.finalize && !c.has_collective) finalize_without_record();
  wait_pending();
  spend(per_message.after);
  if (c.has_enter) settle_residual(next_call_ - 1, last, c.unmatched);
  stamp_call(first, last, c.has_enter, enter, local_now());
  w_.in_call[rank_] = kNone;
  w_.stats.events += last - first + 1;
  return last;
}

void RankActor::post_operations(EventIndex first, EventIndex last, bool init) {
  for (EventIndex k = first; k <= last; ++k) {
    const Event& e = rt_.events[k];
    switch (e.kind) {
      case EventKind::MpiSend:
        post_send(e.p2p(), true);
        break;
      case EventKind::MpiIsend:
        post_send(e.p2p(), false);
        break;
      case EventKind::MpiRecv:
        post_receive(e.p2p(), true);
        break;
      case EventKind::MpiIrecvRequest:
        post_receive(e.p2p(), false);
        break;
      case EventKind::MpiIsendComplete:
      case EventKind::MpiIrecv:
        complete(e.p2p());
        break;
      case EventKind::MpiRequestCancelled:
        cancel(e.p2p());
        break;
      case EventKind::MpiCollectiveEnd: {
        const CollectiveRecord& c = rt_.collectives[e.collective()];
        if (init || c.instance == kNone || c.comm == kNone) break;  // Init: synchronised before
        run_collective(*this, collective_call(c));
        break;
      }
      default:
        break;
    }
  }
}

void RankActor::stamp_call(EventIndex first, EventIndex last, bool has_enter, double enter, double end) {
  bool posting = true;
  for (EventIndex k = first; k <= last; ++k) {
    if (k == first && has_enter) {
      stamp(k, enter);
    } else if (posting && is_posting(rt_.events[k].kind)) {
      stamp(k, enter);
    } else {
      posting = false;
      stamp(k, end);
    }
  }
}

void RankActor::transfer(sg::Host* to, std::uint64_t bytes) {
  if (w_.fixed_transfers.fixed_route(host(), to)) {
    ++w_.stats.without_activity;
    probe_from_here(to, bytes);
    const double sent = local_now();
    return spend(sent + fixed_duration(host(), to, bytes) - local_now());
  }
  catch_up();  // it leaves now
  sg::Comm::sendto(host(), to, bytes);
}

// Starts the probe of a transfer from this rank's host unless one has started, after a catch-up: it
// leaves when the transfer it stands for would have, so that probes of new sizes are no more
// concurrent than those transfers were as activities (SimGrid's solver slows down with many flows
// on one link).
void RankActor::probe_from_here(sg::Host* to, std::uint64_t bytes) {
  if (w_.fixed_transfers.started(host(), to, bytes)) return;
  catch_up();
  w_.fixed_transfers.probe(host(), to, bytes);
}

// Waits for the transfer's probe, which its sender started (probe_from_here) before the transfer it
// stands for left: it is over no later than that transfer arrives.
double RankActor::fixed_duration(sg::Host* from, sg::Host* to, std::uint64_t bytes) {
  FixedTransfers& f = w_.fixed_transfers;
  std::optional<double> d = f.duration(from, to, bytes);
  while (!d) {
    f.when_known(from, to, bytes, [this] { w_.wakeup[rank_]->release(); });
    wait_for_wakeup();
    d = f.duration(from, to, bytes);
  }
  return *d;
}

void RankActor::wait_for_wakeup() {
  block_on([&] { w_.wakeup[rank_]->acquire(); });
}

// The probe of a new size starts first, so that the receiver always finds it.
void RankActor::send_fixed(std::uint32_t channel, std::uint64_t bytes) {
  ++w_.stats.without_activity;
  const Rank receiver = w_.channels[channel].receiver;
  if (bytes > 0 && bytes != w_.channels[channel].known_bytes) probe_from_here(w_.host_of_rank[receiver], bytes);
  Channel& c = w_.channels[channel];  // after the probe's simcalls: other ranks may have added channels
  const std::uint64_t sequence = c.eager_sent++;
  c.in_flight.push_back(Channel::Sent{local_now(), bytes});
  if (c.awaited == sequence) {
    c.awaited = Channel::kNoSequence;
    w_.wakeup[receiver]->release();
  }
}

namespace {

// Drops the received messages at the front of the channel's in-flight list, in batches: amortised
// O(1) per message however far behind its sender the receiver is.
void drop_received(Channel& c) {
  auto& v = c.in_flight;
  while (c.taken_in_front < v.size() && v[c.taken_in_front].taken) ++c.taken_in_front;
  if (c.taken_in_front == v.size() || (c.taken_in_front >= 64 && 2 * c.taken_in_front >= v.size())) {
    v.erase(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(c.taken_in_front));
    c.first_in_flight += c.taken_in_front;
    c.taken_in_front = 0;
  }
}

}  // namespace

// The message arrives at its send time plus the route's duration for its size (an empty one: the
// route's latency, as await_arrival); the rank waits for it to be sent first.
void RankActor::receive_fixed(std::uint32_t channel, std::uint64_t sequence) {
  while (sequence >= w_.channels[channel].first_in_flight + w_.channels[channel].in_flight.size()) {
    w_.channels[channel].awaited = sequence;
    wait_for_wakeup();  // other ranks run: channels may grow
  }
  Channel& c = w_.channels[channel];
  Channel::Sent& m = c.in_flight[sequence - c.first_in_flight];
  m.taken = true;
  const double sent = m.time;
  const std::uint64_t bytes = m.bytes;
  drop_received(c);
  if (bytes == 0) return spend(sent + w_.latency(channel) - local_now());
  if (bytes != c.known_bytes) {
    const double d = fixed_duration(w_.host_of_rank[c.sender], host(), bytes);
    w_.channels[channel].known_bytes = bytes;  // the wait may have moved the channels
    w_.channels[channel].known_duration = d;
  }
  spend(sent + w_.channels[channel].known_duration - local_now());
}

RankActor::Transfer RankActor::send(std::uint32_t channel, bool eager, std::uint64_t bytes) {
  ++w_.stats.messages;
  if (w_.host_of_rank[w_.channels[channel].receiver] != host()) w_.stats.bytes_between_hosts += bytes;
  bytes = w_.simulated_bytes(rank_, w_.channels[channel].receiver, bytes);
  if (eager && w_.fixed(channel)) {
    send_fixed(channel, bytes);
    return Transfer{};
  }
  catch_up();  // the message leaves now
  sg::Mailbox* box = w_.mailbox(channel, eager);
  const std::uint64_t sequence = eager ? w_.channels[channel].eager_sent++ : 0;
  if (eager && bytes == 0) w_.channels[channel].empty_messages.emplace_back(sequence, now());
  sg::CommPtr c = box->put_async(&token, bytes);
  if (!eager) return Transfer{std::move(c)};
  eager_sends_.push_back(EagerSend{channel, sequence, std::move(c)});
  return Transfer{};
}

// An eager message travels when it is sent (its mailbox has a receiver), whenever the receive is
// posted; a rendezvous starts when both sides are posted.
RankActor::Transfer RankActor::receive(std::uint32_t channel, bool eager) {
  if (eager && w_.fixed(channel)) return Transfer{nullptr, channel, w_.channels[channel].eager_received++, true};
  if (!eager) catch_up();
  sg::Mailbox* box = w_.mailbox(channel, eager);
  const std::uint64_t sequence = eager ? w_.channels[channel].eager_received++ : 0;
  return Transfer{box->get_async<void>(&sink_), eager ? channel : kNone, sequence};
}

RankActor::Transfer RankActor::deferred_receive(std::uint32_t channel) {
  start_deferred(channel);
  return Transfer{nullptr, channel, 0};
}

// Receives on one channel must be posted in order: at most one of them, the latest, is deferred.
void RankActor::start_deferred(std::uint32_t channel) {
  auto start = [&](Transfer& t) {
    if (t.comm || t.fixed || t.channel != channel) return false;
    t = receive(channel, true);
    return true;
  };
  for (OpenRequest& r : requests_)
    if (start(r.transfer)) return;
  for (Transfer& t : pending_)
    if (start(t)) return;
}

void RankActor::wait(Transfer& t) {
  if (!t.comm && t.channel != kNone && !t.fixed && w_.fixed(t.channel))  // deferred on a fixed route
    t = Transfer{nullptr, t.channel, w_.channels[t.channel].eager_received++, true};
  if (t.fixed) return receive_fixed(t.channel, t.sequence);
  if (!t.comm) {  // deferred
    t.sequence = receive_and_wait(t.channel, true);
  } else {
    block_on([&] { t.comm->wait(); });
  }
  if (t.channel == kNone) return;
  await_arrival(t.channel, t.sequence);
  delivered(t.channel, t.sequence);
}

// An empty eager message arrives one route latency after it was sent.
void RankActor::await_arrival(std::uint32_t channel, std::uint64_t sequence) {
  auto& empty = w_.channels[channel].empty_messages;
  for (std::size_t i = 0; i < empty.size(); ++i) {
    if (empty[i].first != sequence) continue;
    const double arrival = empty[i].second + w_.latency(channel);
    empty.erase(empty.begin() + static_cast<std::ptrdiff_t>(i));
    spend(arrival - local_now());
    return;
  }
}

void RankActor::receive_now(std::uint32_t channel, bool eager) {
  if (!eager) {
    receive_and_wait(channel, false);
    return;
  }
  Transfer t = deferred_receive(channel);
  wait(t);
}

// Posts a receive and waits for it in one simcall (a comm waited for before it started); returns
// its place in the channel's eager order.
std::uint64_t RankActor::receive_and_wait(std::uint32_t channel, bool eager) {
  if (!eager) catch_up();
  sg::Mailbox* box = w_.mailbox(channel, eager);
  const std::uint64_t sequence = eager ? w_.channels[channel].eager_received++ : 0;
  block_on([&] { box->get_init()->set_dst_data(&sink_, sizeof(void*))->wait(); });
  return sequence;
}

// Once the receive is over, the eager send is over too: its sender may wait for it without
// blocking.
void RankActor::delivered(std::uint32_t channel, std::uint64_t sequence) {
  w_.delivered[w_.channels[channel].sender].push_back(Delivery{channel, sequence});
}

void RankActor::retire_delivered() {
  auto& done = w_.delivered[rank_];
  while (!done.empty()) {
    const Delivery d = done.back();
    done.pop_back();
    for (std::size_t i = 0; i < eager_sends_.size(); ++i) {
      if (eager_sends_[i].sequence != d.sequence || eager_sends_[i].channel != d.channel) continue;
      sg::CommPtr c = std::move(eager_sends_[i].comm);
      eager_sends_[i] = std::move(eager_sends_.back());
      eager_sends_.pop_back();
      block_on([&] { c->wait(); });  // a simcall: other ranks may deliver more meanwhile
      break;
    }
  }
}

// An actor's unfinished comms are cancelled when it ends: its eager messages must arrive first.
void RankActor::retire_all_eager_sends() {
  w_.delivered[rank_].clear();
  while (!eager_sends_.empty()) {
    sg::CommPtr c = std::move(eager_sends_.back().comm);
    eager_sends_.pop_back();
    block_on([&] { c->wait(); });
  }
}

void RankActor::post_send(std::uint32_t record, bool blocking) {
  const std::uint32_t route = w_.p2p_route[rank_][record];
  if (route == kNone) return;
  const std::uint64_t bytes = w_.options.zero_communication ? 0 : rt_.p2p[record].bytes;
  Transfer t = send(route >> 1, route & 1, bytes);
  if (!t.comm) return;  // eager: the request is complete
  if (blocking)
    pending_.push_back(std::move(t));
  else
    requests_.push_back(OpenRequest{record, std::move(t)});
}

void RankActor::post_receive(std::uint32_t record, bool blocking) {
  const std::uint32_t route = w_.p2p_route[rank_][record];
  if (route == kNone) return;
  Transfer t = route & 1 ? deferred_receive(route >> 1) : receive(route >> 1, false);
  if (blocking)
    pending_.push_back(std::move(t));
  else
    requests_.push_back(OpenRequest{record, std::move(t)});
}

void RankActor::complete(std::uint32_t record) {
  for (std::size_t i = 0; i < requests_.size(); ++i) {
    if (requests_[i].record != record) continue;
    pending_.push_back(std::move(requests_[i].transfer));
    requests_[i] = std::move(requests_.back());
    requests_.pop_back();
    return;
  }
  // Not open: an eager send (complete since it was posted), or a receive whose request was never
  // recorded (an anomaly): receive it now.
  const P2P& p = rt_.p2p[record];
  if (p.event != kNone && rt_.events[p.event].kind == EventKind::MpiIrecv && p.request_event == kNone)
    post_receive(record, true);
}

void RankActor::cancel(std::uint32_t record) {
  for (std::size_t i = 0; i < requests_.size(); ++i) {
    if (requests_[i].record != record) continue;
    if (requests_[i].transfer.comm) requests_[i].transfer.comm->cancel();  // else never posted
    requests_[i] = std::move(requests_.back());
    requests_.pop_back();
    return;
  }
}

// Trace-anchored costs: an anchored replay keeps the call's traced end where the model ends it
// earlier and records the difference; other replays add the recorded residual (see residuals.hpp).
// A negative residual (the model ended the call later than traced) makes the rank that much late;
// its next computation is shortened by as much (never below zero), so the run stays anchored to the
// trace instead of shifting every later event of the rank and of ranks waiting for it.
void RankActor::settle_residual(std::size_t call, EventIndex last, bool unmatched) {
  double r = 0;
  if (sleeps_at_calls()) catch_up();
  if (!w_.residuals.empty()) {
    w_.anchored_calls.model_end[rank_][call] = local_now();
    r = unmatched ? 0.0 : rt_.events[last].time - local_now();
    if (std::abs(r) < kResidualResolution) r = 0;
    w_.residuals[rank_][call] = r;
  } else if (w_.given_residuals) {
    r = await_partner(call, (*w_.given_residuals)[rank_][call]);
  } else {
    return;
  }
  if (r > 0) spend(r);
  late_ = std::max(0.0, -r);
}

// Scenario replays with partner waits: every call entered is announced to the ranks waiting for it.
void RankActor::entered_call() {
  if (sleeps_at_calls()) catch_up();
  if (!w_.partner_waits) return;
  const auto entered = static_cast<std::uint32_t>(next_call_);
  w_.calls_entered[rank_] = entered;
  auto& waiters = w_.call_waiters[rank_];
  std::vector<Rank> wake;
  for (std::size_t i = 0; i < waiters.size();) {
    if (waiters[i].first < entered) {
      wake.push_back(waiters[i].second);
      waiters[i] = waiters.back();
      waiters.pop_back();
    } else {
      ++i;
    }
  }
  for (Rank r : wake) w_.wakeup[r]->release();  // simcalls: the state is updated first
}

// A call whose traced end waited for a partner's arrival (residual_causes.cpp) waits for that
// partner to enter its call in this replay; the rest of the residual is the call's own cost.
double RankActor::await_partner(std::size_t call, double residual) {
  if (!w_.partner_waits) return residual;
  const auto& waits = (*w_.partner_waits)[rank_];
  while (next_wait_ < waits.size() && waits[next_wait_].call < call) ++next_wait_;
  if (next_wait_ == waits.size() || waits[next_wait_].call != call) return residual;
  const PartnerWait& pw = waits[next_wait_];
  if (w_.calls_entered[pw.partner] <= pw.partner_call) {
    w_.call_waiters[pw.partner].emplace_back(pw.partner_call, rank_);
    w_.wakeup[rank_]->acquire();
  }
  return std::max(0.0, residual - pw.dependent);
}

void RankActor::wait_pending() {
  for (Transfer& t : pending_) wait(t);
  pending_.clear();
}

void RankActor::initialize() {
  catch_up();
  SyncPoint& s = w_.sync(kInitSyncKey, w_.trace.rank_count(), kNone);  // indexed by rank
  s.size = w_.init_ranks;                                              // complete when all came
  arrive(w_, s, rank_);
  wait_for_all(w_, s, rank_);
  leave(w_, kInitSyncKey);
  spend(w_.init_cost[rank_]);
}

void RankActor::finalize_without_record() {
  const CommId world = w_.trace.defs.world;
  if (world == kNone) return;
  run_collective(*this, CollectiveCall{CollectiveOp::DestroyHandle, world, kNone, 0, 0, kFinalizeSyncKey, kNone});
}

}  // namespace wisp::replay_impl
