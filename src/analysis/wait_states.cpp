// Wait-state detection over messages, collective instances and MPI_Init/Finalize, with
// Scalasca's formulas (MPI.pattern): the times compared are the Enter/Leave times of the MPI
// calls (collectives: MpiCollectiveBegin/End), waits are limited to the time spent in the call.
#include "wisp/analysis/wait_states.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <map>
#include <set>

#include "wisp/analysis/metric_catalogue.hpp"
#include "wisp/error.hpp"

namespace wisp {

std::string_view metric_name(WaitKind k) { return wait_metric(WaitRole::Time, k); }

std::string_view count_metric_name(WaitKind k) { return wait_metric(WaitRole::Count, k); }

bool is_attributable(WaitKind k) { return k != WaitKind::EarlyScan && k != WaitKind::FinalizeWait; }

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// A multi-completion call (Waitall, ...) reports only its largest wait (Scalasca).
struct Candidate {
  double seconds = 0;
  WaitState state;
};
using CallKey = std::pair<Rank, std::uint32_t>;  // (rank, call index)

// One side of a message as the search reads it: the MPI calls its event and its request event
// happen in (ids index the side's rank's mpi_calls; kNone: in no call).
struct SideCalls {
  CallTimes event_call, request_call;
  std::uint32_t event_call_id = kNone, request_call_id = kNone;
  EventIndex event = kNone, request_event = kNone;
  double event_time = 0;  // the event's time (a send's: what Late Sender, wrong order compares)
  bool blocking = false;  // an MpiSend / MpiRecv event
};

// Which calls' times a search reads: its event's, the one completing it (the event's if blocking,
// else the request's), or both (what crosses to another process).
enum class Want : std::uint8_t { Event, Completion, Both };

SideCalls side_calls(const Trace& trace, const CallIndex& calls, Rank r, std::uint32_t record, Want want = Want::Both) {
  const P2P& p = trace.ranks[r].p2p[record];
  SideCalls s;
  s.event_call_id = calls.ranks[r].p2p_event[record];
  s.request_call_id = calls.ranks[r].p2p_request[record];
  s.event = p.event;
  s.request_event = p.request_event;
  s.blocking = p.event != kNone && (trace.event(r, p.event).kind == EventKind::MpiSend ||
                                    trace.event(r, p.event).kind == EventKind::MpiRecv);
  if (p.event != kNone) s.event_time = trace.event(r, p.event).time;
  const bool event = want == Want::Both || want == Want::Event || s.blocking;
  const bool request = want == Want::Both || (want == Want::Completion && !s.blocking);
  if (event && s.event_call_id != kNone) s.event_call = call_times(trace, r, s.event_call_id);
  if (request && s.request_call_id != kNone) s.request_call = call_times(trace, r, s.request_call_id);
  return s;
}

// What the search reads of a collective member: its record's begin and end, the call's path.
struct MemberFacts {
  double begin = 0, end = 0;
  CallpathId callpath = kNone;
  EventIndex end_event = kNone;
  bool usable = false;  // in an MPI call other than MPI_Init / MPI_Finalize
};

// MPI_Init and MPI_Finalize of one rank.
struct InitFinalizeFacts {
  CallTimes init, finalize;
  EventIndex finalize_leave = kNone;
  bool has_init = false, has_finalize = false;
};

// Where an instance comes in the single-process order: the phase that finds it (Late Sender,
// its multi-completion calls, Late Receiver, theirs, collectives, MPI_Finalize), then its
// message, (rank, call), (instance, member) or rank.
struct OrderKey {
  std::uint32_t phase = 0, a = 0, b = 0;
  auto operator<=>(const OrderKey&) const = default;
};

// What crossed between the processes of the group: the facts of the other processes' message
// sides, the members of collective instances on several processes (this process's own members
// too: read in one pass per rank) and every rank's MPI_Init / MPI_Finalize (all empty when nothing
// crosses).
struct Crossed {
  std::vector<std::pair<std::uint64_t, SideCalls>> sides;  // by (message << 1 | is receiver)
  std::vector<MemberFacts> members;                        // like Trace::collective_members
  std::vector<char> crossed_member;                        // per member: its facts are in `members`
  std::vector<InitFinalizeFacts> ranks;                    // by rank
};

// One search over the ranks this process holds (all of them in a group of one): a rule reads a
// fact where it is, here or crossed, and the group's exchanges (gather_facts, merge_instances)
// are the only steps where one process and many differ.
class Detector {
 public:
  Detector(const Trace& t, const CallIndex& c, WaitStates& out, ProcessGroup& group)
      : trace_(t), calls_(c), out_(out), group_(group), shares_(gather_shares(group, t.held())) {}

  void run() {
    const Rank P = trace_.rank_count();
    out_.p2p_wait.resize(P);
    out_.collective_wait.resize(P);
    for (Rank r = 0; r < P; ++r) {
      out_.p2p_wait[r].assign(trace_.ranks[r].p2p.size(), kNone);
      out_.collective_wait[r].assign(trace_.ranks[r].collectives.size(), kNone);
    }
    gather_facts();
    late_senders();
    late_receivers();
    collectives();
    finalize();
    merge_instances();
    assign_sides();
    totals();
    wrong_order();
  }

 private:
  bool holds(Rank r) const { return trace_.holds(r); }
  bool nothing_crosses() const { return group_.processes() == 1; }

  std::uint32_t emit(const WaitState& w, OrderKey key, std::uint32_t record = kNone) {
    out_.instances.push_back(w);
    keyed_.emplace_back(key, record);
    return static_cast<std::uint32_t>(out_.instances.size() - 1);
  }

  // Side of messages[k] (number trace_.message_id(k)), here or crossed.
  SideCalls side(std::uint32_t k, bool receiver, Want want) const {
    const Message& msg = trace_.messages[k];
    const std::uint32_t m = trace_.message_id(k);
    const Rank r = receiver ? msg.receiver : msg.sender;
    if (holds(r)) return side_calls(trace_, calls_, r, receiver ? msg.recv : msg.send, want);
    const std::uint64_t key = std::uint64_t(m) << 1 | (receiver ? 1u : 0u);
    const auto& sides = crossed_.sides;
    const auto it = std::lower_bound(sides.begin(), sides.end(), key,
                                     [](const auto& e, std::uint64_t wanted) { return e.first < wanted; });
    if (it == sides.end() || it->first != key) throw Error("wait states: a message side crossed to no process");
    return it->second;
  }

  // The records side() reads for messages[k + kAhead] (and earlier stages of those after it), in
  // three dependent stages a few messages apart: consecutive messages' sides lie on scattered
  // ranks and events, so that a search reading them in turn waits on a cache miss at each step
  // (10^8 events: Late Sender 1.78 -> 0.90 s, Late Receiver 2.06 -> 0.75 s; 4 apart is fastest).
  // Always inlined: GCC drops a call to a function whose only effect is a prefetch.
  static constexpr std::uint32_t kAhead = 4;
  // `crossing`: only the messages whose other side is on another process.
  [[gnu::always_inline]] void prefetch_sides(std::uint32_t k, bool crossing = false) const {
    for (std::uint32_t stage = 0; stage < 3; ++stage) {
      const std::uint32_t j = k + (3 - stage) * kAhead;
      if (j >= trace_.messages.size()) continue;
      const Message& msg = trace_.messages[j];
      if (crossing && holds(msg.sender) == holds(msg.receiver)) continue;
      prefetch_side(msg.sender, msg.send, stage);
      prefetch_side(msg.receiver, msg.recv, stage);
    }
  }
  [[gnu::always_inline]] void prefetch_side(Rank r, std::uint32_t record, std::uint32_t stage) const {
    if (!holds(r)) return;
    const RankTrace& rt = trace_.ranks[r];
    const RankCalls& rc = calls_.ranks[r];
    if (stage == 0) {
      __builtin_prefetch(&rt.p2p[record]);
      __builtin_prefetch(&rc.p2p_event[record]);
      __builtin_prefetch(&rc.p2p_request[record]);
      return;
    }
    if (stage == 1 && rt.p2p[record].event != kNone) __builtin_prefetch(&rt.events[rt.p2p[record].event]);
    for (const std::uint32_t call : {rc.p2p_event[record], rc.p2p_request[record]}) {
      if (call == kNone) continue;
      if (stage == 1) {
        __builtin_prefetch(&rt.mpi_calls[call]);
      } else {
        __builtin_prefetch(&rt.events[rt.mpi_calls[call].enter]);
        __builtin_prefetch(&rt.events[rt.mpi_calls[call].leave]);
      }
    }
  }

  // Late Sender: idle = min(enter of the send call, leave of the receive) - enter of the call
  // completing the receive. Test calls never wait. Found where the receiver is.
  void late_senders() {
    std::map<CallKey, Candidate> multi;
    for (std::uint32_t k = 0; k < trace_.messages.size(); ++k) {
      prefetch_sides(k);
      const Message& msg = trace_.messages[k];
      const std::uint32_t m = trace_.message_id(k);
      if (!holds(msg.receiver)) continue;
      const SideCalls r = side(k, true, Want::Event);
      if (r.event_call_id == kNone) continue;
      const CallTimes& rc = r.event_call;
      if (is_test(rc.function)) continue;
      const SideCalls s = side(k, false, Want::Event);
      if (s.event_call_id == kNone) continue;
      const CallTimes& sc = s.event_call;
      const double idle = std::min(sc.enter, rc.leave) - rc.enter;
      if (!(idle > 0)) continue;
      WaitState w{idle, msg.receiver,         r.event,  msg.sender, s.event, rc.callpath,
                  m,    WaitKind::LateSender, rc.leave, sc.leave};
      if (is_wait_multi(rc.function)) {
        Candidate& c = multi[{msg.receiver, r.event_call_id}];
        if (idle > c.seconds) c = Candidate{idle, w};
        continue;
      }
      emit(w, OrderKey{0, m, 0});
    }
    for (const auto& [key, c] : multi) {
      ls_multi_calls_.insert(key);
      emit(c.state, OrderKey{1, key.first, key.second});
    }
  }

  // Late Receiver (Scalasca's convention, also for blocking MPI_Send): idle = enter of the call
  // posting the receive - enter of the call completing the send, if that call is left after the
  // receive was posted. Multi-completion calls that already wait as Late Sender are skipped.
  // Found where the sender is.
  void late_receivers() {
    std::map<CallKey, Candidate> multi;
    for (std::uint32_t k = 0; k < trace_.messages.size(); ++k) {
      prefetch_sides(k);
      const Message& msg = trace_.messages[k];
      const std::uint32_t m = trace_.message_id(k);
      if (!holds(msg.sender)) continue;
      const SideCalls s = side(k, false, Want::Completion);
      const SideCalls r = side(k, true, Want::Completion);
      const std::uint32_t cmp_call = s.blocking ? s.event_call_id : s.request_call_id;
      const std::uint32_t req_call = r.blocking ? r.event_call_id : r.request_call_id;
      if (cmp_call == kNone || req_call == kNone) continue;
      const CallTimes& cmp = s.blocking ? s.event_call : s.request_call;
      const bool single = is_blocking_send(cmp.function) || is_wait_single(cmp.function);
      const bool several = is_wait_multi(cmp.function);
      if (!single && !several) continue;
      const CallTimes& req = r.blocking ? r.event_call : r.request_call;
      const double idle = cmp.leave <= req.enter ? 0.0 : req.enter - cmp.enter;
      if (!(idle > 0)) continue;
      WaitState w{idle,
                  msg.sender,
                  s.blocking ? s.event : s.request_event,
                  msg.receiver,
                  r.blocking ? r.event : r.request_event,
                  cmp.callpath,
                  m,
                  WaitKind::LateReceiver,
                  cmp.leave,
                  req.leave};
      if (w.event == kNone || w.delayer_event == kNone) continue;
      if (several) {
        if (ls_multi_calls_.count({msg.sender, cmp_call})) continue;
        Candidate& c = multi[{msg.sender, cmp_call}];
        if (idle > c.seconds) c = Candidate{idle, w};
        continue;
      }
      emit(w, OrderKey{2, m, 0});
    }
    for (const auto& [key, c] : multi) emit(c.state, OrderKey{3, key.first, key.second});
  }

  struct Member {
    Rank rank;
    std::uint32_t record;
    double begin, end;
    CallpathId callpath;
    EventIndex end_event;
  };

  MemberFacts member_facts(Rank r, std::uint32_t record) const {
    const RankCalls& rc = calls_.ranks[r];
    const std::uint32_t call = rc.collective[record];
    MemberFacts f;
    if (call == kNone || call == rc.init || call == rc.finalize) return f;
    const RankTrace& rt = trace_.ranks[r];
    const CollectiveRecord& rec = rt.collectives[record];
    return MemberFacts{rt.events[rec.begin].time, rt.events[rec.end].time,
                       rt.events[rt.mpi_calls[call].enter].callpath(), rec.end, true};
  }

  // Members of an analysable instance, or empty.
  std::vector<Member> members_of(const CollectiveInstance& inst) const {
    std::vector<Member> out;
    if (!inst.complete || inst.count < 2) return out;
    const CollectiveMember* m = trace_.members(inst);
    for (std::uint32_t k = 0; k < inst.count; ++k) {
      const std::uint32_t slot = inst.first + k;
      const bool crossed = !crossed_.crossed_member.empty() && crossed_.crossed_member[slot];
      if (!crossed && !holds(m[k].rank)) throw Error("wait states: a collective member's facts crossed to no process");
      const MemberFacts f = crossed ? crossed_.members[slot] : member_facts(m[k].rank, m[k].record);
      if (!f.usable) return {};
      out.push_back(Member{m[k].rank, m[k].record, f.begin, f.end, f.callpath, f.end_event});
    }
    return out;
  }

  void wait_on(CollectiveSync& sync, const Member& waiter, const Member& delayer, double idle, WaitKind kind,
               std::uint32_t instance) {
    if (!(idle > 0)) return;
    emit(WaitState{idle, waiter.rank, waiter.end_event, delayer.rank, delayer.end_event, waiter.callpath, instance,
                   kind},
         OrderKey{4, instance, sync.wait_count}, waiter.record);
    ++sync.wait_count;
  }

  static std::size_t latest_of(const std::vector<Member>& m, std::size_t upto) {
    std::size_t best = 0;
    for (std::size_t k = 1; k < upto; ++k)
      if (m[k].begin > m[best].begin) best = k;
    return best;
  }

  // An instance none of whose members is here is left out (another process finds it).
  bool has_member_here(const CollectiveInstance& inst) const {
    const CollectiveMember* m = trace_.members(inst);
    for (std::uint32_t k = 0; k < inst.count; ++k)
      if (holds(m[k].rank)) return true;
    return false;
  }

  void collectives() {
    out_.barrier_completion = CallpathMatrix(trace_);
    out_.nxn_completion = CallpathMatrix(trace_);
    out_.collectives.assign(trace_.collectives.size(), CollectiveSync{});
    for (std::uint32_t i = 0; i < trace_.collectives.size(); ++i) {
      const CollectiveInstance& inst = trace_.collectives[i];
      if (!has_member_here(inst)) continue;
      const std::vector<Member> m = members_of(inst);
      if (m.empty()) continue;
      CollectiveSync& sync = out_.collectives[i];
      sync.analyzed = true;
      sync.first_wait = static_cast<std::uint32_t>(out_.instances.size());
      const CollectiveClass cls = classify(inst.op);
      if (cls == CollectiveClass::OneToN)
        one_to_n(inst, m, sync, i);
      else if (cls == CollectiveClass::NToOne)
        n_to_one(inst, m, sync, i);
      else if (cls == CollectiveClass::Prefix)
        prefix(m, sync, i);
      else
        all_to_all(cls == CollectiveClass::Barrier ? WaitKind::WaitBarrier : WaitKind::WaitNxN, m, sync, i);
      if (cls == CollectiveClass::Barrier || cls == CollectiveClass::NxN)
        for (const Member& x : m)
          if (holds(x.rank))
            (cls == CollectiveClass::Barrier ? out_.barrier_completion : out_.nxn_completion)
                .at(slot_of(x.callpath), x.rank) += completion(x.end, sync.sync_begin, sync.earliest_end);
    }
  }

  // Scalasca's completion time of a member leaving at `end`: after the earliest leave, not before
  // the latest enter (MPI.pattern, PRE_SYNC_COLL / PRE_COLL_N2N / PRE_INIT).
  static double completion(double end, double latest_begin, double earliest_end) {
    return std::max(0.0, end - std::max(earliest_end, std::min(latest_begin, end)));
  }

  // Barrier, N×N and communicator management: everyone waits for the latest begin.
  void all_to_all(WaitKind kind, const std::vector<Member>& m, CollectiveSync& sync, std::uint32_t i) {
    const std::size_t last = latest_of(m, m.size());
    sync.delayer = m[last].rank;
    sync.sync_begin = m[last].begin;
    sync.earliest_end = kInf;
    for (const Member& x : m) sync.earliest_end = std::min(sync.earliest_end, x.end);
    sync.group = kind == WaitKind::WaitBarrier || sync.sync_begin < sync.earliest_end;
    for (std::size_t k = 0; k < m.size(); ++k)
      if (k != last) wait_on(sync, m[k], m[last], std::min(sync.sync_begin, m[k].end) - m[k].begin, kind, i);
  }

  // 1→N: members entering before the root wait for it.
  void one_to_n(const CollectiveInstance& inst, const std::vector<Member>& m, CollectiveSync& sync, std::uint32_t i) {
    std::size_t root = m.size();
    for (std::size_t k = 0; k < m.size(); ++k)
      if (m[k].rank == inst.root) root = k;
    if (root == m.size()) return;
    sync.delayer = m[root].rank;
    sync.sync_begin = m[root].begin;
    sync.earliest_end = kInf;
    for (std::size_t k = 0; k < m.size(); ++k) {
      if (k == root || !(m[k].begin < sync.sync_begin)) continue;
      sync.earliest_end = std::min(sync.earliest_end, m[k].end);
      wait_on(sync, m[k], m[root], std::min(sync.sync_begin, m[k].end) - m[k].begin, WaitKind::LateBroadcast, i);
    }
  }

  // N→1: the root waits for the latest sender.
  void n_to_one(const CollectiveInstance& inst, const std::vector<Member>& m, CollectiveSync& sync, std::uint32_t i) {
    std::size_t root = m.size();
    for (std::size_t k = 0; k < m.size(); ++k)
      if (m[k].rank == inst.root) root = k;
    if (root == m.size()) return;
    const std::size_t last = latest_of(m, m.size());
    sync.delayer = m[last].rank;
    sync.sync_begin = m[last].begin;
    sync.earliest_end = std::min(m[root].end, m[last].end);
    if (last != root)
      wait_on(sync, m[root], m[last], std::min(sync.sync_begin, m[root].end) - m[root].begin, WaitKind::EarlyReduce, i);
  }

  // Scan/Exscan: member k waits for the latest of members 0..k (reported, not followed).
  void prefix(const std::vector<Member>& m, CollectiveSync& sync, std::uint32_t i) {
    std::size_t last = 0;
    std::uint32_t n = 0;
    for (std::size_t k = 1; k < m.size(); ++k) {
      if (m[k].begin > m[last].begin) {
        last = k;
        continue;
      }
      if (!(m[last].begin > m[k].begin)) continue;
      emit(WaitState{std::min(m[last].begin, m[k].end) - m[k].begin, m[k].rank, m[k].end_event, m[last].rank,
                     m[last].end_event, m[k].callpath, i, WaitKind::EarlyScan},
           OrderKey{4, i, n++}, m[k].record);
    }
    sync.analyzed = false;  // Scan is not a synchronisation point (as in Scalasca)
    sync.wait_count = 0;
  }

  InitFinalizeFacts rank_facts(Rank r) const {
    InitFinalizeFacts f;
    const RankCalls& rc = calls_.ranks[r];
    f.has_init = rc.init != kNone;
    f.has_finalize = rc.finalize != kNone;
    if (f.has_init) f.init = call_times(trace_, r, rc.init);
    if (f.has_finalize) {
      f.finalize = call_times(trace_, r, rc.finalize);
      f.finalize_leave = trace_.ranks[r].mpi_calls[rc.finalize].leave;
    }
    return f;
  }
  InitFinalizeFacts facts_of(Rank r) const { return holds(r) ? rank_facts(r) : crossed_.ranks.at(r); }

  // MPI_Init / MPI_Finalize across ranks: latest Enter, earliest Leave.
  InitFinalizeSync init_finalize(bool finalize) const {
    InitFinalizeSync s;
    s.latest_enter = -kInf;
    s.earliest_leave = kInf;
    for (Rank r = 0; r < trace_.rank_count(); ++r) {
      const InitFinalizeFacts f = facts_of(r);
      if (!(finalize ? f.has_finalize : f.has_init)) continue;
      const CallTimes& c = finalize ? f.finalize : f.init;
      s.present = true;
      if (c.enter > s.latest_enter) {
        s.latest_enter = c.enter;
        s.latest = r;
      }
      s.earliest_leave = std::min(s.earliest_leave, c.leave);
    }
    return s;
  }

  void finalize() {
    out_.init = init_finalize(false);
    out_.finalize = init_finalize(true);
    out_.init_completion = CallpathMatrix(trace_);
    for (Rank r = 0; r < trace_.rank_count() && out_.init.present; ++r) {
      if (!holds(r)) continue;
      const InitFinalizeFacts rf = rank_facts(r);
      if (rf.has_init)
        out_.init_completion.at(slot_of(rf.init.callpath), r) +=
            completion(rf.init.leave, out_.init.latest_enter, out_.init.earliest_leave);
    }
    const InitFinalizeSync& f = out_.finalize;
    if (!f.present) return;
    const EventIndex latest_leave = facts_of(f.latest).finalize_leave;
    for (Rank r = 0; r < trace_.rank_count(); ++r) {
      const InitFinalizeFacts rf = facts_of(r);
      if (!rf.has_finalize || r == f.latest || !(holds(r) || holds(f.latest))) continue;
      const CallTimes& c = rf.finalize;
      const double idle = std::min(f.latest_enter, c.leave) - c.enter;
      if (idle > 0)
        emit(WaitState{idle, r, rf.finalize_leave, f.latest, latest_leave, c.callpath, kNone, WaitKind::FinalizeWait},
             OrderKey{5, r, 0});
    }
  }

  // Every instance's sides point at it; the last instance of a message wins, as found in order.
  void assign_sides() {
    for (std::uint32_t w = 0; w < out_.instances.size(); ++w) {
      const WaitState& ws = out_.instances[w];
      const std::uint32_t record = keyed_[w].second;
      if (ws.kind == WaitKind::LateSender || ws.kind == WaitKind::LateReceiver) {
        const Message& msg = trace_.message(ws.source);
        if (holds(msg.receiver)) out_.p2p_wait[msg.receiver][msg.recv] = w;
        if (holds(msg.sender)) out_.p2p_wait[msg.sender][msg.send] = w;
      } else if (record != kNone && holds(ws.rank)) {
        out_.collective_wait[ws.rank][record] = w;
      }
    }
    keyed_ = {};
  }

  // The bytes of message `id` as its receiver recorded them (the sender's on another process: equal).
  std::uint64_t message_bytes(std::uint32_t id) const {
    const Message& msg = trace_.message(id);
    return holds(msg.receiver) ? trace_.recv_of(msg).bytes : trace_.send_of(msg).bytes;
  }

  void totals() {
    out_.late_sender_syncs = CallpathMatrix(trace_);
    out_.late_receiver_syncs = CallpathMatrix(trace_);
    for (int k = 0; k < kWaitKindCount; ++k) {
      out_.seconds[k] = CallpathMatrix(trace_);
      out_.counts[k] = CallpathMatrix(trace_);
    }
    for (const WaitState& w : out_.instances) {
      if (!holds(w.rank)) continue;
      const int k = static_cast<int>(w.kind);
      out_.seconds[k].at(slot_of(w.callpath), w.rank) += w.seconds;
      // Point-to-point instances of empty messages are synchronisations (Counts.pattern)
      const bool p2p = w.kind == WaitKind::LateSender || w.kind == WaitKind::LateReceiver;
      if (p2p && message_bytes(w.source) == 0)
        (w.kind == WaitKind::LateSender ? out_.late_sender_syncs : out_.late_receiver_syncs)
            .at(slot_of(w.callpath), w.rank) += 1;
      else
        out_.counts[k].at(slot_of(w.callpath), w.rank) += 1;
    }
  }

  // Late Sender, wrong order (MPI.pattern, MPI_LATESENDER_WO): per receiving rank, its last 100
  // Late Senders in the order Scalasca reports them (at the receive; a Wait*'s largest at the
  // call's Leave). A receive whose message was sent before a buffered Late Sender's makes that one
  // a wrong-order Late Sender (from the receive's source or another) and leaves the buffer.
  void wrong_order() {
    WrongOrder& wo = out_.wrong_order;
    for (CallpathMatrix* m : {&wo.different, &wo.same, &wo.communications, &wo.synchronizations})
      *m = CallpathMatrix(trace_);
    std::vector<std::vector<std::pair<EventIndex, std::uint32_t>>> reported(trace_.rank_count());
    for (std::uint32_t w = 0; w < out_.instances.size(); ++w) {
      const WaitState& ws = out_.instances[w];
      if (ws.kind != WaitKind::LateSender || !holds(ws.rank)) continue;
      const std::uint32_t call = calls_.ranks[ws.rank].p2p_event[trace_.message(ws.source).recv];
      const bool multi = is_wait_multi(call_times(trace_, ws.rank, call).function);
      reported[ws.rank].emplace_back(multi ? trace_.ranks[ws.rank].mpi_calls[call].leave : ws.event, w);
    }
    for (Rank r = 0; r < trace_.rank_count(); ++r)
      if (holds(r)) wrong_order_on(r, reported[r]);
  }

  void wrong_order_on(Rank r, std::vector<std::pair<EventIndex, std::uint32_t>>& reported) {
    struct Buffered {
      double sent, idle;
      Rank source;
      CallpathId callpath;
      bool synchronization;
    };
    std::deque<Buffered> buffer;
    double latest = -kInf;  // the latest send time in the buffer: a receive sent after it finds nothing
    const auto find_latest = [&] {
      latest = -kInf;
      for (const Buffered& b : buffer) latest = std::max(latest, b.sent);
    };
    std::sort(reported.begin(), reported.end());
    std::size_t next = 0;
    const std::vector<Event>& events = trace_.ranks[r].events;
    for (EventIndex i = 0; i < events.size() && (next < reported.size() || !buffer.empty()); ++i) {
      for (; next < reported.size() && reported[next].first == i; ++next) {
        const WaitState& ws = out_.instances[reported[next].second];
        const Message& msg = trace_.message(ws.source);
        const bool drop_latest = buffer.size() == 100 && buffer.front().sent == latest;
        if (buffer.size() == 100) buffer.pop_front();
        if (drop_latest) find_latest();
        buffer.push_back({send_time(ws.source), ws.seconds, msg.sender, ws.callpath, trace_.recv_of(msg).bytes == 0});
        latest = std::max(latest, buffer.back().sent);
      }
      if (events[i].kind != EventKind::MpiRecv && events[i].kind != EventKind::MpiIrecv) continue;
      const P2P& recv = trace_.ranks[r].p2p[events[i].p2p()];
      if (recv.message == kNone || buffer.empty()) continue;
      const double sent = send_time(recv.message);
      if (!(latest > sent)) continue;
      const Rank source = trace_.message(recv.message).sender;
      for (auto it = buffer.begin(); it != buffer.end();) {
        if (!(it->sent > sent)) {
          ++it;
          continue;
        }
        const std::uint32_t slot = slot_of(it->callpath);
        (it->source == source ? out_.wrong_order.same : out_.wrong_order.different).at(slot, r) += it->idle;
        (it->synchronization ? out_.wrong_order.synchronizations : out_.wrong_order.communications).at(slot, r) += 1;
        it = buffer.erase(it);
      }
      find_latest();
    }
  }

  // The time of message `id`'s send event, here or crossed.
  double send_time(std::uint32_t id) const {
    const Message& msg = trace_.message(id);
    if (holds(msg.sender)) return trace_.event(msg.sender, trace_.send_of(msg).event).time;
    std::uint32_t k = id;
    if (!trace_.message_ids.empty())
      k = static_cast<std::uint32_t>(std::lower_bound(trace_.message_ids.begin(), trace_.message_ids.end(), id) -
                                     trace_.message_ids.begin());
    return side(k, false, Want::Event).event_time;
  }

  // The facts of message sides, collective members and MPI_Init / MPI_Finalize calls that another
  // process reads cross to it: sides to the other side's process, the members of an instance
  // with members on several processes and every rank's MPI_Init / MPI_Finalize to all.
  void gather_facts();
  // Instances found here whose delayer is elsewhere go there; every process's list is then the
  // one-process list restricted to what concerns its ranks, in the same order.
  void merge_instances();

  const Trace& trace_;
  const CallIndex& calls_;
  WaitStates& out_;
  ProcessGroup& group_;
  const std::vector<RankShare> shares_;
  Crossed crossed_;
  std::vector<std::pair<OrderKey, std::uint32_t>> keyed_;  // per instance: (order key, collective record or kNone)
  std::set<CallKey> ls_multi_calls_;
};

void Detector::gather_facts() {
  if (nothing_crosses()) return;
  const auto P = static_cast<std::size_t>(group_.processes());
  std::vector<Packer> out(P);
  // Message sides: to the process of the other side.
  for (std::uint32_t k = 0; k < trace_.messages.size(); ++k) {
    prefetch_sides(k, true);
    const Message& msg = trace_.messages[k];
    const std::uint32_t m = trace_.message_id(k);
    for (const bool receiver : {false, true}) {
      const Rank here = receiver ? msg.receiver : msg.sender;
      const Rank there = receiver ? msg.sender : msg.receiver;
      if (!holds(here) || holds(there)) continue;
      out[static_cast<std::size_t>(owner_of(shares_, there))]
          .put(std::uint64_t(m) << 1 | (receiver ? 1u : 0u))
          .put(side_calls(trace_, calls_, here, receiver ? msg.recv : msg.send));
    }
  }
  std::vector<std::string> packets(P);
  for (std::size_t p = 0; p < P; ++p) packets[p] = out[p].take();
  for (const std::string& packet : group_.exchange(std::move(packets))) {
    Unpacker in(packet);
    while (!in.done()) {
      const auto key = in.get<std::uint64_t>();
      crossed_.sides.emplace_back(key, in.get<SideCalls>());
    }
  }
  std::sort(crossed_.sides.begin(), crossed_.sides.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  // Members of instances with members on several processes, and MPI_Init / MPI_Finalize: to every
  // process. Each rank's members are read in its records' order (its events in time order: one
  // pass, not a jump per member).
  std::vector<std::vector<std::uint32_t>> member_slot(trace_.rank_count());  // per rank, per record
  for (Rank r = 0; r < trace_.rank_count(); ++r)
    if (holds(r)) member_slot[r].assign(trace_.ranks[r].collectives.size(), kNone);
  for (const CollectiveInstance& inst : trace_.collectives) {
    const CollectiveMember* m = trace_.members(inst);
    const bool here = has_member_here(inst);
    bool elsewhere = false;
    for (std::uint32_t k = 0; k < inst.count && here && !elsewhere; ++k) elsewhere = !holds(m[k].rank);
    if (!elsewhere) continue;
    for (std::uint32_t k = 0; k < inst.count; ++k)
      if (holds(m[k].rank)) member_slot[m[k].rank].at(m[k].record) = inst.first + k;
  }
  Packer mine;
  for (Rank r = 0; r < trace_.rank_count(); ++r)
    for (std::uint32_t j = 0; j < member_slot[r].size(); ++j)
      if (member_slot[r][j] != kNone) mine.put(member_slot[r][j]).put(member_facts(r, j));
  member_slot = {};
  mine.put(kNone);
  for (Rank r = 0; r < trace_.rank_count(); ++r)
    if (holds(r)) mine.put(r).put(rank_facts(r));
  crossed_.members.assign(trace_.collective_members.size(), MemberFacts{});
  crossed_.crossed_member.assign(trace_.collective_members.size(), 0);
  crossed_.ranks.assign(trace_.rank_count(), InitFinalizeFacts{});
  for (const std::string& packet : all_gather(group_, mine.take())) {
    Unpacker in(packet);
    for (auto slot = in.get<std::uint32_t>(); slot != kNone; slot = in.get<std::uint32_t>()) {
      crossed_.members.at(slot) = in.get<MemberFacts>();
      crossed_.crossed_member[slot] = 1;  // this process's own too: read in one pass per rank
    }
    while (!in.done()) {
      const auto r = in.get<Rank>();
      crossed_.ranks.at(r) = in.get<InitFinalizeFacts>();
    }
  }
}

void Detector::merge_instances() {
  if (nothing_crosses()) return;
  const auto P = static_cast<std::size_t>(group_.processes());
  std::vector<Packer> out(P);
  for (std::uint32_t w = 0; w < out_.instances.size(); ++w) {
    const WaitState& ws = out_.instances[w];
    const bool p2p = ws.kind == WaitKind::LateSender || ws.kind == WaitKind::LateReceiver;
    if (p2p && !holds(ws.delayer))
      out[static_cast<std::size_t>(owner_of(shares_, ws.delayer))].put(keyed_[w].first).put(ws);
  }
  std::vector<std::string> packets(P);
  for (std::size_t p = 0; p < P; ++p) packets[p] = out[p].take();
  // Every list is in key order (this process's as found, the others' as sent): merged, not sorted.
  // The others' arrive in one table, each packet freed once read; runs are ranges of it.
  std::vector<std::pair<OrderKey, WaitState>> theirs;
  std::vector<std::pair<std::size_t, std::size_t>> runs;  // (next, end) in theirs
  std::vector<std::string> received = group_.exchange(std::move(packets));
  for (std::string& packet : received) {
    Unpacker in(packet);
    const std::size_t first = theirs.size();
    while (!in.done()) {
      const auto key = in.get<OrderKey>();
      theirs.emplace_back(key, in.get<WaitState>());
    }
    if (theirs.size() > first) runs.emplace_back(first, theirs.size());
    std::string().swap(packet);
  }
  if (runs.empty()) return;  // the list found here is whole
  std::vector<WaitState> mine = std::move(out_.instances);
  std::vector<std::pair<OrderKey, std::uint32_t>> mine_keyed = std::move(keyed_);
  out_.instances.clear();
  keyed_.clear();
  out_.instances.reserve(mine.size() + theirs.size());
  keyed_.reserve(mine.size() + theirs.size());
  std::size_t at = 0;
  for (;;) {
    int best = -1;  // -1: this process's next, else runs[best]'s
    const OrderKey* key = at < mine.size() ? &mine_keyed[at].first : nullptr;
    for (std::size_t k = 0; k < runs.size(); ++k)
      if (runs[k].first < runs[k].second && (!key || theirs[runs[k].first].first < *key)) {
        key = &theirs[runs[k].first].first;
        best = static_cast<int>(k);
      }
    if (!key) break;
    if (best < 0) {
      out_.instances.push_back(mine[at]);
      keyed_.push_back(mine_keyed[at++]);
    } else {
      const auto& item = theirs[runs[static_cast<std::size_t>(best)].first++];
      out_.instances.push_back(item.second);
      keyed_.emplace_back(item.first, kNone);
    }
  }
  // Each collective's waits start where its keys do.
  for (auto w = static_cast<std::uint32_t>(out_.instances.size()); w-- > 0;)
    if (keyed_[w].first.phase == 4) out_.collectives[keyed_[w].first.a].first_wait = w;
}

}  // namespace

void drop_instances(WaitStates& waits) {
  waits.instances = {};
  waits.p2p_wait = {};
  waits.collective_wait = {};
  waits.collectives = {};
}

WaitStates find_wait_states(const Trace& trace, const CallIndex& calls, ProcessGroup& group) {
  WaitStates out;
  Detector(trace, calls, out, group_for(trace, group)).run();
  return out;
}

WaitStates find_wait_states(const Trace& trace, const CallIndex& calls) {
  SoloProcess alone;
  return find_wait_states(trace, calls, alone);
}

double wait_state_error(const WaitStates& reference, const WaitStates& other, WaitKind kind) {
  const CallpathMatrix& a = reference.seconds[static_cast<int>(kind)];
  const CallpathMatrix& b = other.seconds[static_cast<int>(kind)];
  if (a.values.size() != b.values.size())
    throw Error("wait_state_error: the traces have different call paths or ranks");
  double distance = 0, total = 0;
  for (std::size_t i = 0; i < a.values.size(); ++i) {
    distance += std::abs(a.values[i] - b.values[i]);
    total += std::abs(a.values[i]);
  }
  return total > 0 ? distance / total : (distance > 0 ? 1.0 : 0.0);
}

}  // namespace wisp
