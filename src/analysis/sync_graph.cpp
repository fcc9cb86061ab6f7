// Synchronisation points and time maps, one forward pass per rank. See sync_graph.hpp.
#include "wisp/analysis/sync_graph.hpp"

#include <algorithm>

#include "wisp/analysis/profile.hpp"

namespace wisp {

namespace {

inline std::uint32_t later(std::uint32_t a, std::uint32_t b) {
  if (a == kNone) return b;
  if (b == kNone) return a;
  return std::max(a, b);
}

class RankPass {
 public:
  RankPass(const Trace& t, const CallIndex& c, const WaitStates& w, SyncGraph& g,
           std::vector<std::uint32_t>& finalize_wait, std::vector<std::vector<char>>& members)
      : trace_(t), calls_(c), waits_(w), graph_(g), finalize_wait_(finalize_wait), members_(members) {
    last_pair_.assign(t.rank_count(), kNone);
  }

  void run(Rank r) {
    r_ = r;
    const RankTrace& rt = trace_.ranks[r];
    RankSyncs& out = graph_.ranks[r];
    const RankCalls& rc = calls_.ranks[r];
    const EventIndex init_leave = rc.init == kNone ? kNone : rt.mpi_calls[rc.init].leave;
    const EventIndex finalize_leave = rc.finalize == kNone ? kNone : rt.mpi_calls[rc.finalize].leave;
    CallpathId current = kNone;
    EventIndex stamp = kNone;
    double stamp_time = rt.events.empty() ? 0.0 : rt.events.front().time;
    for (EventIndex i = 0; i < rt.events.size(); ++i) {
      const Event& e = rt.events[i];
      point_ = SyncPoint{};
      roles_.clear();
      if (i == init_leave || i == finalize_leave)
        init_finalize(i, i == init_leave);
      else if (e.kind == EventKind::MpiCollectiveEnd)
        collective(e.collective());
      else if (e.kind != EventKind::Enter && e.kind != EventKind::Leave && e.kind != EventKind::ProgramBegin &&
               e.kind != EventKind::ProgramEnd && e.kind != EventKind::MpiCollectiveBegin &&
               e.kind != EventKind::CommCreate && e.kind != EventKind::CommDestroy)
        p2p(i, e);
      if (has_point_) {
        flush(out);
        point_.event = i;
        point_.stamp = stamp;
        point_.tmap_end = static_cast<std::uint32_t>(out.entries.size());
        point_.callpath_slot = slot_of(current);
        group_sync(static_cast<std::uint32_t>(out.points.size()), out);
        link_and_update(static_cast<std::uint32_t>(out.points.size()));
        out.points.push_back(point_);
        has_point_ = false;
      }
      if (is_time_stamp(e.kind)) {
        acc_.add(slot_of(current), e.time - stamp_time);
        stamp_time = e.time;
        stamp = i;
        current = callpath_after(trace_.defs, e, current);
      }
    }
    flush(out);
    for (std::uint32_t q : touched_pairs_) last_pair_[q] = kNone;
    touched_pairs_.clear();
    comm_last_.clear();
  }

 private:
  // A peer this point synchronises with pairwise, and the wait state it links (kNone: none).
  struct Role {
    Rank peer;
    std::uint32_t wait;
    bool waiter;
  };

  void flush(RankSyncs& out) {
    for (std::uint32_t s : acc_.touched) out.entries.push_back(TimeEntry{acc_.value[s], s});
    acc_.clear();
  }

  double leave_of(Rank r, std::uint32_t call) const {
    return trace_.ranks[r].events[trace_.ranks[r].mpi_calls[call].leave].time;
  }
  double enter_of(Rank r, std::uint32_t call) const {
    return trace_.ranks[r].events[trace_.ranks[r].mpi_calls[call].enter].time;
  }
  // The MPI call a point-to-point event happens in.
  std::uint32_t call_of(Rank r, EventIndex i) const {
    const Event& e = trace_.ranks[r].events[i];
    const bool request = e.kind == EventKind::MpiIsendComplete || e.kind == EventKind::MpiIrecvRequest;
    return request ? calls_.ranks[r].p2p_request[e.p2p()] : calls_.ranks[r].p2p_event[e.p2p()];
  }

  void p2p(EventIndex i, const Event& e) {
    const std::uint32_t w = waits_.p2p_wait[r_][e.p2p()];
    if (w == kNone) return;
    const WaitState& ws = waits_.instances[w];
    if (!is_attributable(ws.kind)) return;
    const bool waiter = ws.rank == r_ && ws.event == i;
    const bool delayer = ws.delayer == r_ && ws.delayer_event == i;
    if (!waiter && !delayer) return;
    // Both calls exist (the wait state compared their times); the other side's Leave is in it.
    const std::uint32_t mine = call_of(r_, i);
    if (mine == kNone) return;
    has_point_ = true;
    const double my_leave = leave_of(r_, mine);
    const double other_leave = waiter ? ws.delayer_leave : ws.waiter_leave;
    const double completion = std::max(0.0, my_leave - other_leave);
    point_.prune = my_leave - enter_of(r_, mine) - completion;
    point_.prune_scalasca = point_.prune;
    if (waiter && ws.kind == WaitKind::LateReceiver)
      point_.prune_scalasca = my_leave - enter_of(r_, mine) - std::min(0.0, my_leave - other_leave);
    if (waiter) {
      point_.wait = ws.seconds;
      point_.waiter_of = w;
      roles_.push_back(Role{ws.delayer, w, true});
    }
    if (delayer) {
      point_.delayer_first = w;
      point_.delayer_count = 1;
      roles_.push_back(Role{ws.rank, w, false});
    }
  }

  void collective(std::uint32_t record) {
    const CollectiveRecord& rec = trace_.ranks[r_].collectives[record];
    if (rec.instance == kNone) return;
    const CollectiveSync& sync = waits_.collectives[rec.instance];
    if (!sync.analyzed) return;
    const std::uint32_t w = waits_.collective_wait[r_][record];
    const bool waiter = w != kNone && is_attributable(waits_.instances[w].kind);
    const bool delayer = sync.delayer == r_ && sync.wait_count > 0;
    if (!sync.group && !waiter && !delayer) return;
    const std::uint32_t call = calls_.ranks[r_].collective[record];
    const double end = trace_.ranks[r_].events[rec.end].time;
    has_point_ = true;
    const double completion = std::max(0.0, end - std::max(sync.earliest_end, std::min(sync.sync_begin, end)));
    point_.prune = leave_of(r_, call) - enter_of(r_, call) - completion;
    point_.prune_scalasca = point_.prune;
    if (sync.group) group_comm_ = rec.comm;
    if (waiter) {
      point_.wait = waits_.instances[w].seconds;
      point_.waiter_of = w;
      roles_.push_back(Role{sync.delayer, w, true});
    }
    if (delayer) {
      delayer_comm_ = rec.comm;
      point_.delayer_first = sync.first_wait;
      point_.delayer_count = sync.wait_count;
      for (std::uint32_t k = 0; k < sync.wait_count; ++k)
        roles_.push_back(Role{waits_.instances[sync.first_wait + k].rank, sync.first_wait + k, false});
    }
    // An N×N operation without full overlap synchronises every waiting member with every other
    // one and the latest sender, as Scalasca's synchronising-rank sets say.
    if (!sync.group && sync.wait_count > 0 && waits_.instances[sync.first_wait].kind == WaitKind::WaitNxN) {
      for (std::uint32_t k = 0; k < sync.wait_count; ++k) {
        const Rank q = waits_.instances[sync.first_wait + k].rank;
        if (q != r_) roles_.push_back(Role{q, kNone, false});
      }
      if (!delayer && sync.delayer != r_) roles_.push_back(Role{sync.delayer, kNone, false});
    }
  }

  void init_finalize(EventIndex i, bool init) {
    const InitFinalizeSync& s = init ? waits_.init : waits_.finalize;
    const RankCalls& rc = calls_.ranks[r_];
    const std::uint32_t call = init ? rc.init : rc.finalize;
    const double leave = trace_.ranks[r_].events[i].time;
    const double completion = std::max(0.0, leave - std::max(s.earliest_leave, std::min(s.latest_enter, leave)));
    has_point_ = true;
    point_.prune = leave - enter_of(r_, call) - completion;
    point_.prune_scalasca = point_.prune;
    point_.init = init;
    point_.finalize = !init;
    if (!init && finalize_wait_[r_] != kNone) point_.wait = waits_.instances[finalize_wait_[r_]].seconds;
    group_comm_ = trace_.defs.world;
  }

  bool member(CommId c, Rank q) {
    if (c == trace_.defs.world) return true;
    std::vector<char>& bits = members_[c];
    if (bits.empty()) {
      bits.assign(trace_.rank_count(), 0);
      for (Rank m : trace_.defs.comms[c].members)
        if (m < bits.size()) bits[m] = 1;
    }
    return q < bits.size() && bits[q];
  }

  // The last point before this one at which rank r_ synchronised with q.
  std::uint32_t previous_with(Rank q) {
    std::uint32_t best = last_pair_[q];
    for (const auto& [comm, idx] : comm_last_)
      if (member(comm, q)) best = later(best, idx);
    return best;
  }

  // The delayer of a collective: its previous synchronisation with the whole group (GroupSync).
  void group_sync(std::uint32_t idx, RankSyncs& out) {
    const CommId comm = delayer_comm_;
    delayer_comm_ = kNone;
    if (comm == kNone || point_.delayer_count == 0) return;
    GroupSync g;
    g.point = idx;
    g.key_first = static_cast<std::uint32_t>(out.group_keys.size());
    bool none = false;  // a member never met before: the group interval starts at the rank's first event
    std::uint32_t earliest = kNone;
    for (Rank q = 0; q < trace_.rank_count(); ++q) {
      if (q == r_ || !member(comm, q)) continue;
      const std::uint32_t p = previous_with(q);
      if (p == kNone)
        none = true;
      else if (earliest == kNone || p < earliest)
        earliest = p;
      if (p != kNone) out.group_keys.push_back(p);
    }
    g.group_prev = none ? kNone : earliest;
    auto first = out.group_keys.begin() + g.key_first;
    std::sort(first, out.group_keys.end());
    out.group_keys.erase(std::unique(first, out.group_keys.end()), out.group_keys.end());
    if (first != out.group_keys.end() && !none && *first == earliest) out.group_keys.erase(first);
    g.key_count = static_cast<std::uint32_t>(out.group_keys.size()) - g.key_first;
    out.groups.push_back(g);
  }

  void link_and_update(std::uint32_t idx) {
    for (const Role& role : roles_) {
      if (role.wait == kNone) continue;  // synchronises without a wait state to link
      WaitLink& link = graph_.links[role.wait];
      if (role.waiter) {
        link.waiter_sync = idx;
        link.waiter_prev = previous_with(role.peer);
      } else {
        link.delayer_sync = idx;
        link.delayer_prev = previous_with(role.peer);
      }
    }
    for (const Role& role : roles_) {
      if (last_pair_[role.peer] == kNone) touched_pairs_.push_back(role.peer);
      last_pair_[role.peer] = idx;
    }
    if (group_comm_ != kNone) {
      auto it =
          std::find_if(comm_last_.begin(), comm_last_.end(), [&](const auto& p) { return p.first == group_comm_; });
      if (it == comm_last_.end())
        comm_last_.emplace_back(group_comm_, idx);
      else
        it->second = idx;
      group_comm_ = kNone;
    }
  }

  const Trace& trace_;
  const CallIndex& calls_;
  const WaitStates& waits_;
  SyncGraph& graph_;
  std::vector<std::uint32_t>& finalize_wait_;
  std::vector<std::vector<char>>& members_;
  Rank r_ = 0;
  SyncPoint point_;
  bool has_point_ = false;
  CommId group_comm_ = kNone;
  CommId delayer_comm_ = kNone;  // the communicator of a collective this point is the delayer of
  std::vector<Role> roles_;
  SlotTimes acc_{graph_.slots};
  std::vector<std::uint32_t> last_pair_;
  std::vector<std::uint32_t> touched_pairs_;
  std::vector<std::pair<CommId, std::uint32_t>> comm_last_;
};

}  // namespace

SyncGraph build_sync_graph(const Trace& trace, const CallIndex& calls, const WaitStates& waits) {
  SyncGraph g;
  g.slots = static_cast<std::uint32_t>(trace.defs.callpaths.size() + 1);
  g.ranks.resize(trace.rank_count());
  g.links.assign(waits.instances.size(), WaitLink{});
  std::vector<std::uint32_t> finalize_wait(trace.rank_count(), kNone);
  for (std::uint32_t w = 0; w < waits.instances.size(); ++w)
    if (waits.instances[w].kind == WaitKind::FinalizeWait) finalize_wait[waits.instances[w].rank] = w;
  std::vector<std::vector<char>> members(trace.defs.comms.size());
  RankPass pass(trace, calls, waits, g, finalize_wait, members);
  for (Rank r = 0; r < trace.rank_count(); ++r)
    if (trace.holds(r)) pass.run(r);
  return g;
}

SyncGraph build_sync_graph(const Trace& trace, const CallIndex& calls, const WaitStates& waits, ProcessGroup& group) {
  SyncGraph g = build_sync_graph(trace, calls, waits);
  if (!trace.share) return g;
  // Each side of a wait state set its half of the link: the halves cross to the other side.
  const std::vector<RankShare> shares = gather_shares(group, *trace.share);
  const auto P = static_cast<std::size_t>(group.processes());
  std::vector<Packer> out(P);
  std::vector<std::pair<WaitKey, std::uint32_t>> split;  // (key, instance) with a side elsewhere
  for (std::uint32_t w = 0; w < waits.instances.size(); ++w) {
    const WaitState& ws = waits.instances[w];
    const bool waiter = trace.holds(ws.rank), delayer = trace.holds(ws.delayer);
    if (waiter == delayer || ws.delayer == kNone) continue;
    split.emplace_back(wait_key(ws), w);
    const WaitLink& l = g.links[w];
    const Rank there = waiter ? ws.delayer : ws.rank;
    out[static_cast<std::size_t>(owner_of(shares, there))]
        .put(wait_key(ws))
        .put(waiter ? l.waiter_sync : l.delayer_sync)
        .put(waiter ? l.waiter_prev : l.delayer_prev);
  }
  std::sort(split.begin(), split.end());
  std::vector<std::string> packets(P);
  for (std::size_t p = 0; p < P; ++p) packets[p] = out[p].take();
  for (const std::string& packet : group.exchange(std::move(packets))) {
    Unpacker in(packet);
    while (!in.done()) {
      const auto key = in.get<WaitKey>();
      const auto sync = in.get<std::uint32_t>();
      const auto prev = in.get<std::uint32_t>();
      const auto it = std::lower_bound(split.begin(), split.end(), std::make_pair(key, std::uint32_t(0)));
      if (it == split.end() || it->first != key) continue;  // a collective wait not followed here
      WaitLink& l = g.links[it->second];
      if (trace.holds(waits.instances[it->second].rank))
        l.delayer_sync = sync, l.delayer_prev = prev;
      else
        l.waiter_sync = sync, l.waiter_prev = prev;
    }
  }
  return g;
}

const GroupSync* RankSyncs::group_at(std::uint32_t point) const {
  const auto it = std::lower_bound(groups.begin(), groups.end(), point,
                                   [](const GroupSync& g, std::uint32_t p) { return g.point < p; });
  return it != groups.end() && it->point == point ? &*it : nullptr;
}

void add_interval_times(const RankSyncs& rs, std::uint32_t from, std::uint32_t to, SlotTimes& acc) {
  const std::uint32_t begin = from == kNone ? 0 : rs.points[from].tmap_end;
  const std::uint32_t end = to == kNone ? static_cast<std::uint32_t>(rs.entries.size()) : rs.points[to].tmap_end;
  for (std::uint32_t k = begin; k < end; ++k) acc.add(rs.entries[k].slot, rs.entries[k].seconds);
}

}  // namespace wisp
