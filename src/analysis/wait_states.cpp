// Wait-state detection over messages, collective instances and MPI_Init/Finalize, with
// Scalasca's formulas (MPI.pattern): the times compared are the Enter/Leave times of the MPI
// calls (collectives: MpiCollectiveBegin/End), waits are limited to the time spent in the call.
#include "wisp/analysis/wait_states.hpp"

#include <algorithm>
#include <cmath>
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

class Detector {
 public:
  Detector(const Trace& t, const CallIndex& c, WaitStates& out) : trace_(t), calls_(c), out_(out) {}

  void run() {
    const Rank P = trace_.rank_count();
    out_.p2p_wait.resize(P);
    out_.collective_wait.resize(P);
    for (Rank r = 0; r < P; ++r) {
      out_.p2p_wait[r].assign(trace_.ranks[r].p2p.size(), kNone);
      out_.collective_wait[r].assign(trace_.ranks[r].collectives.size(), kNone);
    }
    late_senders();
    late_receivers();
    collectives();
    finalize();
    totals();
  }

 private:
  std::uint32_t emit(const WaitState& w) {
    out_.instances.push_back(w);
    return static_cast<std::uint32_t>(out_.instances.size() - 1);
  }

  // Late Sender: idle = min(enter of the send call, leave of the receive) - enter of the call
  // completing the receive. Test calls never wait.
  void late_senders() {
    std::map<CallKey, Candidate> multi;
    for (std::uint32_t m = 0; m < trace_.messages.size(); ++m) {
      const Message& msg = trace_.messages[m];
      const std::uint32_t send_call = calls_.ranks[msg.sender].p2p_event[msg.send];
      const std::uint32_t recv_call = calls_.ranks[msg.receiver].p2p_event[msg.recv];
      if (send_call == kNone || recv_call == kNone) continue;
      const CallTimes rc = call_times(trace_, msg.receiver, recv_call);
      if (is_test(rc.function)) continue;
      const CallTimes sc = call_times(trace_, msg.sender, send_call);
      const double idle = std::min(sc.enter, rc.leave) - rc.enter;
      if (!(idle > 0)) continue;
      WaitState w{idle,
                  msg.receiver,
                  trace_.recv_of(msg).event,
                  msg.sender,
                  trace_.send_of(msg).event,
                  rc.callpath,
                  m,
                  WaitKind::LateSender,
                  rc.leave,
                  sc.leave};
      if (is_wait_multi(rc.function)) {
        Candidate& c = multi[{msg.receiver, recv_call}];
        if (idle > c.seconds) c = Candidate{idle, w};
        continue;
      }
      out_.p2p_wait[msg.receiver][msg.recv] = out_.p2p_wait[msg.sender][msg.send] = emit(w);
    }
    for (const auto& [key, c] : multi) {
      ls_multi_calls_.insert(key);
      const Message& msg = trace_.messages[c.state.source];
      out_.p2p_wait[msg.receiver][msg.recv] = out_.p2p_wait[msg.sender][msg.send] = emit(c.state);
    }
  }

  // Late Receiver (Scalasca's convention, also for blocking MPI_Send): idle = enter of the call
  // posting the receive - enter of the call completing the send, if that call is left after the
  // receive was posted. Multi-completion calls that already wait as Late Sender are skipped.
  void late_receivers() {
    std::map<CallKey, Candidate> multi;
    for (std::uint32_t m = 0; m < trace_.messages.size(); ++m) {
      const Message& msg = trace_.messages[m];
      const P2P& sp = trace_.send_of(msg);
      const P2P& rp = trace_.recv_of(msg);
      const RankCalls& sc = calls_.ranks[msg.sender];
      const RankCalls& rc = calls_.ranks[msg.receiver];
      const bool blocking_send = trace_.event(msg.sender, sp.event).kind == EventKind::MpiSend;
      const bool blocking_recv = trace_.event(msg.receiver, rp.event).kind == EventKind::MpiRecv;
      const std::uint32_t cmp_call = blocking_send ? sc.p2p_event[msg.send] : sc.p2p_request[msg.send];
      const std::uint32_t req_call = blocking_recv ? rc.p2p_event[msg.recv] : rc.p2p_request[msg.recv];
      if (cmp_call == kNone || req_call == kNone) continue;
      const CallTimes cmp = call_times(trace_, msg.sender, cmp_call);
      const bool single = is_blocking_send(cmp.function) || is_wait_single(cmp.function);
      const bool several = is_wait_multi(cmp.function);
      if (!single && !several) continue;
      const CallTimes req = call_times(trace_, msg.receiver, req_call);
      const double idle = cmp.leave <= req.enter ? 0.0 : req.enter - cmp.enter;
      if (!(idle > 0)) continue;
      WaitState w{idle,
                  msg.sender,
                  blocking_send ? sp.event : sp.request_event,
                  msg.receiver,
                  blocking_recv ? rp.event : rp.request_event,
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
      out_.p2p_wait[msg.receiver][msg.recv] = out_.p2p_wait[msg.sender][msg.send] = emit(w);
    }
    for (const auto& [key, c] : multi) {
      const Message& msg = trace_.messages[c.state.source];
      out_.p2p_wait[msg.receiver][msg.recv] = out_.p2p_wait[msg.sender][msg.send] = emit(c.state);
    }
  }

  struct Member {
    Rank rank;
    std::uint32_t record;
    double begin, end;
    CallpathId callpath;
    EventIndex end_event;
  };

  // Members of an analysable instance, or empty.
  std::vector<Member> members_of(const CollectiveInstance& inst) const {
    std::vector<Member> out;
    if (!inst.complete || inst.count < 2) return out;
    const CollectiveMember* m = trace_.members(inst);
    for (std::uint32_t k = 0; k < inst.count; ++k) {
      const RankCalls& rc = calls_.ranks[m[k].rank];
      const std::uint32_t call = rc.collective[m[k].record];
      if (call == kNone || call == rc.init || call == rc.finalize) return {};
      const CollectiveRecord& rec = trace_.ranks[m[k].rank].collectives[m[k].record];
      const RankTrace& rt = trace_.ranks[m[k].rank];
      out.push_back(Member{m[k].rank, m[k].record, rt.events[rec.begin].time, rt.events[rec.end].time,
                           rt.events[rt.mpi_calls[call].enter].ref, rec.end});
    }
    return out;
  }

  void wait_on(CollectiveSync& sync, const Member& waiter, const Member& delayer, double idle, WaitKind kind,
               std::uint32_t instance) {
    if (!(idle > 0)) return;
    out_.collective_wait[waiter.rank][waiter.record] = emit(WaitState{
        idle, waiter.rank, waiter.end_event, delayer.rank, delayer.end_event, waiter.callpath, instance, kind});
    ++sync.wait_count;
  }

  static std::size_t latest_of(const std::vector<Member>& m, std::size_t upto) {
    std::size_t best = 0;
    for (std::size_t k = 1; k < upto; ++k)
      if (m[k].begin > m[best].begin) best = k;
    return best;
  }

  void collectives() {
    out_.collectives.assign(trace_.collectives.size(), CollectiveSync{});
    for (std::uint32_t i = 0; i < trace_.collectives.size(); ++i) {
      const CollectiveInstance& inst = trace_.collectives[i];
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
    }
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
    for (std::size_t k = 1; k < m.size(); ++k) {
      if (m[k].begin > m[last].begin) {
        last = k;
        continue;
      }
      if (!(m[last].begin > m[k].begin)) continue;
      out_.collective_wait[m[k].rank][m[k].record] =
          emit(WaitState{std::min(m[last].begin, m[k].end) - m[k].begin, m[k].rank, m[k].end_event, m[last].rank,
                         m[last].end_event, m[k].callpath, i, WaitKind::EarlyScan});
    }
    sync.analyzed = false;  // Scan is not a synchronisation point (as in Scalasca)
    sync.wait_count = 0;
  }

  // MPI_Init / MPI_Finalize across ranks: latest Enter, earliest Leave.
  InitFinalizeSync init_finalize(bool finalize) const {
    InitFinalizeSync s;
    s.latest_enter = -kInf;
    s.earliest_leave = kInf;
    for (Rank r = 0; r < trace_.rank_count(); ++r) {
      const std::uint32_t call = finalize ? calls_.ranks[r].finalize : calls_.ranks[r].init;
      if (call == kNone) continue;
      const CallTimes c = call_times(trace_, r, call);
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
    const InitFinalizeSync& f = out_.finalize;
    if (!f.present) return;
    const EventIndex latest_leave = trace_.ranks[f.latest].mpi_calls[calls_.ranks[f.latest].finalize].leave;
    for (Rank r = 0; r < trace_.rank_count(); ++r) {
      const std::uint32_t call = calls_.ranks[r].finalize;
      if (call == kNone || r == f.latest) continue;
      const CallTimes c = call_times(trace_, r, call);
      const double idle = std::min(f.latest_enter, c.leave) - c.enter;
      if (idle > 0)
        emit(WaitState{idle, r, trace_.ranks[r].mpi_calls[call].leave, f.latest, latest_leave, c.callpath, kNone,
                       WaitKind::FinalizeWait});
    }
  }

  void totals() {
    for (int k = 0; k < kWaitKindCount; ++k) {
      out_.seconds[k] = CallpathMatrix(trace_);
      out_.counts[k] = CallpathMatrix(trace_);
    }
    for (const WaitState& w : out_.instances) {
      const int k = static_cast<int>(w.kind);
      out_.seconds[k].at(slot_of(w.callpath), w.rank) += w.seconds;
      out_.counts[k].at(slot_of(w.callpath), w.rank) += 1;
    }
  }

  const Trace& trace_;
  const CallIndex& calls_;
  WaitStates& out_;
  std::set<CallKey> ls_multi_calls_;
};

}  // namespace

void drop_instances(WaitStates& waits) {
  waits.instances = {};
  waits.p2p_wait = {};
  waits.collective_wait = {};
  waits.collectives = {};
}

WaitStates find_wait_states(const Trace& trace, const CallIndex& calls) {
  WaitStates out;
  Detector(trace, calls, out).run();
  return out;
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
