// Delay analysis by backward replay over the synchronisation points. See delay.hpp.
#include "wisp/analysis/delay.hpp"

#include <algorithm>
#include <deque>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "wisp/error.hpp"

#include "wisp/analysis/metric_catalogue.hpp"

namespace wisp {

std::string_view short_term_metric(WaitKind k) { return wait_metric(WaitRole::ShortTermDelay, k); }
std::string_view long_term_metric(WaitKind k) { return wait_metric(WaitRole::LongTermDelay, k); }
std::string_view aggregate_delay_metric(WaitKind k) { return wait_metric(WaitRole::DelayAggregate, k); }
std::string_view direct_wait_metric(WaitKind k) { return wait_metric(WaitRole::DirectWait, k); }
std::string_view indirect_wait_metric(WaitKind k) { return wait_metric(WaitRole::IndirectWait, k); }

std::string_view to_string(DelayRules r) { return r == DelayRules::Scalasca ? "scalasca" : "paper"; }

namespace {

constexpr int K = kDelayCategoryCount;

// One side's pruned time per call path since the previous synchronisation with the other side.
struct IntervalTimes {
  SlotTimes times;
  double sum = 0;
  double waiting = 0;                                   // Ws: waiting time in the interval
  std::vector<std::pair<std::uint32_t, double>> waits;  // (point, wait) of the waits in it

  explicit IntervalTimes(std::uint32_t slots) : times(slots) {}

  // Time of (from, to] on rank rs minus the waits at the points strictly between, with the
  // previous point's call counted only from its completion on (Scalasca's pruning).
  void compute(const RankSyncs& rs, std::uint32_t from, std::uint32_t to, DelayRules rules) {
    times.clear();
    waits.clear();
    waiting = 0;
    add_interval_times(rs, from, to, times);
    // (through add(), so that clear() resets the slot even where the interval had no time in it)
    for (std::uint32_t k = from == kNone ? 0 : from + 1; k < to; ++k) {
      const SyncPoint& p = rs.points[k];
      if (!(p.wait > 0)) continue;
      times.add(p.callpath_slot, -p.wait);
      waiting += p.wait;
      if (p.waiter_of != kNone) waits.emplace_back(k, p.wait);
    }
    if (from != kNone) {
      const SyncPoint& p = rs.points[from];
      times.add(p.callpath_slot, -(rules == DelayRules::Scalasca ? p.prune_scalasca : p.prune));
    }
    sum = 0;
    for (std::uint32_t s : times.touched) {
      times.value[s] = std::max(times.value[s], 0.0);
      sum += times.value[s];
    }
  }
};

// One backward replay, whatever group it runs in (as Scalasca's): each process replays its own
// ranks (all of them in a group of one); a wait state whose two sides are on two processes crosses
// between them in the exchanges (share_wait_states, deliver, latest_over_processes,
// return_shares), the only steps where one process and many differ.
class DelayReplay {
 public:
  DelayReplay(const Trace& t, const WaitStates& w, const SyncGraph& g, DelayRules rules, DelayCosts& out,
              ProcessGroup& group, std::size_t round_bytes)
      : trace_(t),
        waits_(w),
        graph_(g),
        rules_(rules),
        out_(out),
        delayer_(g.slots),
        waiter_(g.slots),
        outgoing_(g.slots),
        group_(group),
        round_bytes_(round_bytes) {
    share_wait_states();
  }

  void run() {
    const Rank P = trace_.rank_count();
    const auto W = static_cast<std::uint32_t>(waits_.instances.size());
    costs_.assign(std::size_t(W) * K, 0.0);
    done_.assign(W, 0);
    waiter_share_.assign(W, Shares{});
    propagating_.assign(W, 0.0);
    sums_.assign(P, RankSums{});
    pending_.resize(P);
    next_.resize(P);
    blocked_.assign(P, 0);
    for (Rank r = 0; r < P; ++r) {
      const auto& points = graph_.ranks[r].points;
      pending_[r].assign(points.size(), 0);
      next_[r] = static_cast<std::int64_t>(points.size()) - 1;
    }
    for (std::uint32_t w = 0; w < W; ++w) {
      const WaitState& ws = waits_.instances[w];
      if (!is_attributable(ws.kind)) continue;
      if (trace_.holds(ws.rank)) sums_[ws.rank].total_wait += ws.seconds;
      const WaitLink& link = graph_.links[w];
      if (link.waiter_sync == kNone || link.delayer_sync == kNone) {
        // no synchronisation point to follow (e.g. MPI call not found)
        if (trace_.holds(ws.rank)) unattributed(w, ws.rank);
        continue;
      }
      if (trace_.holds(ws.delayer)) ++pending_[ws.delayer][link.delayer_sync];
    }
    for (Rank r = P; r-- > 0;)
      if (trace_.holds(r)) ready_.push_back(r);
    while (true) {
      while (!ready_.empty()) {
        const Rank r = ready_.back();
        ready_.pop_back();
        advance(r);
      }
      if (deliver()) continue;
      if (!break_cycle()) break;
    }
    if (group_.processes() > 1)
      spdlog::debug("delay costs, process {}: {} exchanges of releases", group_.process(), exchanges_);
    return_shares();
    finish();
  }

 private:
  double* costs_of(std::uint32_t w) { return costs_.data() + std::size_t(w) * K; }

  // The sums over all wait states, in a fixed order whatever order the replay took (and however
  // many processes shared it): the waiting sides' direct and indirect parts instance by instance,
  // the scalars rank by rank.
  void finish() {
    for (std::uint32_t w = 0; w < waits_.instances.size(); ++w) {
      const Shares& s = waiter_share_[w];
      const WaitState& ws = waits_.instances[w];
      if (!s.set || !trace_.holds(ws.rank)) continue;
      out_.direct_wait[static_cast<int>(ws.kind)].at(slot_of(ws.callpath), ws.rank) += s.direct;
      if (s.has_indirect) out_.indirect_wait[static_cast<int>(ws.kind)].at(slot_of(ws.callpath), ws.rank) += s.indirect;
      if (propagating_[w] > 0 && (ws.kind == WaitKind::LateSender || ws.kind == WaitKind::LateReceiver))
        out_.propagating[ws.kind == WaitKind::LateSender ? 0 : 1].at(slot_of(ws.callpath), ws.rank) += propagating_[w];
    }
    for (const RankSums& r : sums_) {
      out_.total_wait += r.total_wait;
      out_.short_sum += r.short_sum;
      out_.long_sum += r.long_sum;
      out_.unattributed += r.unattributed;
    }
  }

  void advance(Rank r) {
    const auto& points = graph_.ranks[r].points;
    while (next_[r] >= 0) {
      if (outbox_bytes_ >= round_bytes_) {  // this round's releases are many: the rest next round
        deferred_.push_back(r);
        return;
      }
      const auto k = static_cast<std::uint32_t>(next_[r]);
      const SyncPoint& p = points[k];
      if (pending_[r][k] > 0) {
        blocked_[r] = 1;
        return;
      }
      for (std::uint32_t w = p.delayer_first; w < p.delayer_first + p.delayer_count; ++w)
        if (!done_[w] && graph_.links[w].delayer_sync == k && waits_.instances[w].delayer == r) attribute(w);
      if (p.waiter_of != kNone) release(p.waiter_of);
      --next_[r];
    }
    blocked_[r] = 0;
  }

  // The waiting side has reached the wait state: its costs are complete.
  void release(std::uint32_t w) {
    const WaitState& ws = waits_.instances[w];
    if (!trace_.holds(ws.delayer)) return send_release(w);
    unblock(w);
  }
  void unblock(std::uint32_t w) {
    const WaitState& ws = waits_.instances[w];
    const std::uint32_t k = graph_.links[w].delayer_sync;
    if (k == kNone || pending_[ws.delayer][k] == 0) return;
    if (--pending_[ws.delayer][k] == 0 && blocked_[ws.delayer] && next_[ws.delayer] == k) {
      blocked_[ws.delayer] = 0;
      ready_.push_back(ws.delayer);
    }
  }

  // Inconsistent traces can make the replay wait in a circle: release the blocked rank whose
  // pending point is latest in time and count it.
  bool break_cycle() {
    Rank best = kNone;
    double latest = 0;
    for (Rank r = 0; r < trace_.rank_count(); ++r) {
      if (!trace_.holds(r) || !blocked_[r] || next_[r] < 0) continue;
      const SyncPoint& p = graph_.ranks[r].points[next_[r]];
      const double t = trace_.ranks[r].events[p.event].time;
      if (best == kNone || t > latest) {
        best = r;
        latest = t;
      }
    }
    if (!latest_over_processes(best, latest)) return false;
    if (!trace_.holds(best)) return true;  // another process releases it
    pending_[best][next_[best]] = 0;
    blocked_[best] = 0;
    ++out_.cycles_broken;
    ready_.push_back(best);
    return true;
  }

  // Wait state w has nothing to blame; the rank whose sums take it: its own before the replay,
  // its delayer's during it.
  void unattributed(std::uint32_t w, Rank at) {
    const WaitState& ws = waits_.instances[w];
    const double* c = costs_of(w);
    double carried = 0;
    for (int k = 0; k < K; ++k) carried += c[k];
    sums_[at].unattributed += ws.seconds + carried;
    ++out_.unattributed_waits;
    waiter_share_[w] = Shares{ws.seconds, 0.0, true, false};
    done_[w] = 1;
  }

  void attribute(std::uint32_t w) {
    const WaitState& ws = waits_.instances[w];
    const WaitLink& link = graph_.links[w];
    const Rank s = ws.delayer;
    if (cached_rank_ != s || cached_from_ != link.delayer_prev || cached_to_ != link.delayer_sync) {
      delayer_.compute(graph_.ranks[s], link.delayer_prev, link.delayer_sync, rules_);
      cached_rank_ = s;
      cached_from_ = link.delayer_prev;
      cached_to_ = link.delayer_sync;
    }
    if (trace_.holds(ws.rank))
      waiter_.compute(graph_.ranks[ws.rank], link.waiter_prev, link.waiter_sync, rules_);
    else
      take_arrived(w);
    if (rules_ == DelayRules::Scalasca) return attribute_scalasca(w);

    const double delay = std::max(delayer_.sum - waiter_.sum, 0.0);  // D of the heuristic
    double positive = 0;                                             // Σ d⁺
    for (std::uint32_t c : delayer_.times.touched)
      positive += std::max(delayer_.times.value[c] - waiter_.times.value[c], 0.0);
    const double direct = positive > 0 ? delay : 0.0;
    const double denom = direct + delayer_.waiting;
    if (!(denom > 0)) {
      unattributed(w, s);
      return;
    }
    const int kind = static_cast<int>(ws.kind);
    const double* carried = costs_of(w);
    const double fd = direct / denom, fi = delayer_.waiting / denom;
    if (direct > 0) {
      for (std::uint32_t c : delayer_.times.touched) {
        const double d = delayer_.times.value[c] - waiter_.times.value[c];
        if (!(d > 0)) continue;
        const double share = fd * d / positive;
        out_.short_term[kind].at(c, s) += ws.seconds * share;
        sums_[s].short_sum += ws.seconds * share;
        for (int k = 0; k < K; ++k) {
          if (carried[k] == 0) continue;
          out_.long_term[k].at(c, s) += carried[k] * share;
          sums_[s].long_sum += carried[k] * share;
        }
      }
    }
    if (fi > 0) {
      propagate(ws, carried, fi, s);
      mark_propagating(ws, std::min(ws.seconds / denom, 1.0));
    }
    waiter_share_[w] = Shares{ws.seconds * fd, ws.seconds * fi, true, true};
    done_[w] = 1;
  }

  // Scalasca 2.6 (Delay.MPI.pattern, MpiDelayOps.cpp): d⁺ over the delayer's call paths; the wait
  // passes on scale_w = W / (S + Ws), clipped at 1 for point-to-point waits, carried costs
  // C / (S + Ws); every wait of the delayer in the interval receives (scale_w + scale_c) × its size.
  void attribute_scalasca(std::uint32_t w) {
    const WaitState& ws = waits_.instances[w];
    const Rank s = ws.delayer;
    double positive = 0;  // S = Σ d⁺
    for (std::uint32_t c : delayer_.times.touched)
      positive += std::max(delayer_.times.value[c] - waiter_.times.value[c], 0.0);
    const double denom = positive + delayer_.waiting;
    if (!(denom > 0)) {
      unattributed(w, s);
      return;
    }
    const int kind = static_cast<int>(ws.kind);
    const bool p2p = ws.kind == WaitKind::LateSender || ws.kind == WaitKind::LateReceiver;
    const double scale_w = p2p ? std::min(ws.seconds / denom, 1.0) : ws.seconds / denom;
    const double* carried = costs_of(w);
    for (std::uint32_t c : delayer_.times.touched) {
      const double d = delayer_.times.value[c] - waiter_.times.value[c];
      if (!(d > 0)) continue;
      out_.short_term[kind].at(c, s) += scale_w * d;
      sums_[s].short_sum += scale_w * d;
      for (int k = 0; k < K; ++k) {
        if (carried[k] == 0) continue;
        out_.long_term[k].at(c, s) += carried[k] / denom * d;
        sums_[s].long_sum += carried[k] / denom * d;
      }
    }
    const double passed = scale_w * denom;  // < W only where the scale was clipped
    sums_[s].unattributed += ws.seconds - passed;
    if (delayer_.waiting > 0) {
      propagate(ws, carried, delayer_.waiting / denom, s, passed, scalasca_group_start(w));
      mark_propagating(ws, scale_w);
    }
    const double indirect = scale_w * delayer_.waiting;
    waiter_share_[w] = Shares{ws.seconds - indirect, indirect, true, true};
    done_[w] = 1;
  }

  // Scalasca 2.6 (MpiDelayOps.cpp, CalculateScales) hands a collective member's share to the
  // delayer's waits after the delayer's previous synchronisation with the whole group, except for
  // a member met in between (at a point after it): its share starts at the next such point of
  // another member and is lost after the last one. The first of the delayer's points (by index)
  // that receives wait state w's share: 0 for all, kNone for none.
  std::uint32_t scalasca_group_start(std::uint32_t w) const {
    const WaitLink& link = graph_.links[w];
    const RankSyncs& rs = graph_.ranks[waits_.instances[w].delayer];
    const GroupSync* g = rs.group_at(link.delayer_sync);
    if (!g || link.delayer_prev == g->group_prev || link.delayer_prev == kNone) return 0;
    const auto first = rs.group_keys.begin() + g->key_first, last = first + g->key_count;
    const auto next = std::upper_bound(first, last, link.delayer_prev);
    return next == last ? kNone : *next;
  }

  // Scalasca's propagating wait states (Waitstates.MPI.pattern, DELAY_LATE_SENDER/RECEIVER): a
  // point-to-point wait's scale min(W / (S + Ws), 1) times the size of each of the delayer's waits in
  // the interval; a wait keeps the largest part any wait it caused marks.
  void mark_propagating(const WaitState& ws, double scale) {
    if (ws.kind != WaitKind::LateSender && ws.kind != WaitKind::LateReceiver) return;
    if (!(scale > 0)) return;
    const auto& points = graph_.ranks[ws.delayer].points;
    for (const auto& [k, wait] : delayer_.waits) {
      double& p = propagating_[points[k].waiter_of];
      p = std::max(p, scale * wait);
    }
  }

  // The indirect part goes to the delayer's own wait states in the interval, by their size.
  void propagate(const WaitState& ws, const double* carried, double fi, Rank s) {
    propagate(ws, carried, fi, s, ws.seconds, 0);
  }
  // The same, passing on `passed` of the wait (Scalasca's clipped scale) instead of all of it, to
  // the delayer's waits at points from `start` on (the rest is unattributed).
  void propagate(const WaitState& ws, const double* carried, double fi, Rank s, double passed, std::uint32_t start) {
    const int kind = static_cast<int>(ws.kind);
    const auto& points = graph_.ranks[s].points;
    for (const auto& [k, wait] : delayer_.waits) {
      const double f = fi * wait / delayer_.waiting;
      double moved = passed * f;
      for (int c = 0; c < K; ++c) moved += carried[c] * f;
      if (start == kNone || k < start) {
        sums_[s].unattributed += moved;
        continue;
      }
      const std::uint32_t j = points[k].waiter_of;
      double* cj = costs_of(j);
      cj[kind] += passed * f;
      for (int c = 0; c < K; ++c) cj[c] += carried[c] * f;
      if (done_[j]) sums_[s].unattributed += moved;  // only after a broken cycle: arrives too late
    }
  }

  // A wait state's waiting side and delayer may be on two processes: when the waiting side
  // reaches it, its carried costs and the waiting rank's interval cross to the delayer's process
  // (a release), which attributes it; the direct and indirect parts of its waiting time come back
  // at the end (return_shares).
  void share_wait_states() {
    shares_ = gather_shares(group_, trace_.held());
    const auto P = static_cast<std::size_t>(group_.processes());
    outbox_.resize(P);
    // The wait states two processes share, in WaitKey order on both: a release names one by its
    // place in that list (no key to look up as it arrives).
    // (In a group of one, both sides of every wait state are here.)
    std::vector<std::pair<WaitKey, std::uint32_t>> keys;
    for (std::uint32_t w = 0; w < waits_.instances.size() && P > 1; ++w) {
      const WaitState& ws = waits_.instances[w];
      if (trace_.holds(ws.rank) != trace_.holds(ws.delayer)) keys.emplace_back(wait_key(ws), w);
    }
    std::sort(keys.begin(), keys.end());
    shared_.resize(P);
    if (!keys.empty()) {
      place_.assign(waits_.instances.size(), kNone);
      arrived_.assign(waits_.instances.size(), Arrived{});
    }
    for (const auto& [key, w] : keys) {
      const WaitState& ws = waits_.instances[w];
      auto& list = shared_[static_cast<std::size_t>(owner_of(shares_, trace_.holds(ws.rank) ? ws.delayer : ws.rank))];
      place_[w] = static_cast<std::uint32_t>(list.size());
      list.push_back(w);
    }
    std::vector<std::string> counts(P);
    for (std::size_t p = 0; p < P; ++p) counts[p] = packed<std::uint64_t>(shared_[p].size());
    const std::vector<std::string> theirs = group_.exchange(std::move(counts));
    for (std::size_t p = 0; p < P; ++p)
      if (Unpacker(theirs[p]).get<std::uint64_t>() != shared_[p].size())
        throw Error(fmt::format("delay costs: processes {} and {} disagree on the wait states between them",
                                group_.process(), p));
  }
  // The wait state process `from` named by its place in their shared list.
  std::uint32_t shared_wait(std::size_t from, std::uint32_t place) const {
    if (place >= shared_[from].size()) throw Error("delay costs: a wait state crossed to the wrong process");
    return shared_[from][place];
  }
  Packer& to_owner(Rank r) { return outbox_[static_cast<std::size_t>(owner_of(shares_, r))]; }

  void send_release(std::uint32_t w) {
    const WaitState& ws = waits_.instances[w];
    const WaitLink& link = graph_.links[w];
    IntervalTimes& times = outgoing_;  // one table for every release: no allocation each
    times.compute(graph_.ranks[ws.rank], link.waiter_prev, link.waiter_sync, rules_);
    Packer& out = to_owner(ws.delayer);
    const std::size_t before = out.size();
    out.put(place_[w]);
    for (int k = 0; k < K; ++k) out.put(costs_of(w)[k]);
    out.put(times.sum).put<std::uint64_t>(times.times.touched.size());
    for (std::uint32_t c : times.times.touched) out.put(c).put(times.times.value[c]);
    outbox_bytes_ += out.size() - before;
    ++sent_;
  }

  // The waiting side's interval of wait state w, as it arrived, in waiter_.
  void take_arrived(std::uint32_t w) {
    const Arrived& a = arrived_.at(w);
    waiter_.times.clear();
    for (std::uint32_t k = a.first; k < a.first + a.count; ++k)
      waiter_.times.add(arrived_slot_[k], arrived_seconds_[k]);
    waiter_.sum = a.sum;
  }

  // One exchange of releases; false when no process had any to send or any deferred (nothing
  // more can arrive). Each packet ends with its sender's count of both; every received packet is
  // freed once read (the first rounds carry most releases).
  bool deliver() {
    std::vector<std::string> packets(outbox_.size());
    for (std::size_t p = 0; p < packets.size(); ++p)
      packets[p] = outbox_[p].put<std::uint64_t>(sent_ + deferred_.size()).take();
    sent_ = outbox_bytes_ = 0;
    ++exchanges_;
    std::uint64_t more = 0;
    std::vector<std::string> received = group_.exchange(std::move(packets));
    for (std::size_t from = 0; from < received.size(); ++from) {
      std::string& packet = received[from];
      const std::string_view text = packet;
      if (text.size() < sizeof(std::uint64_t)) throw Error("delay costs: a truncated exchange of releases");
      more += Unpacker(text.substr(text.size() - sizeof(std::uint64_t))).get<std::uint64_t>();
      Unpacker in(text.substr(0, text.size() - sizeof(std::uint64_t)));
      while (!in.done()) {
        const std::uint32_t w = shared_wait(from, in.get<std::uint32_t>());
        for (int k = 0; k < K; ++k) costs_of(w)[k] = in.get<double>();
        Arrived& a = arrived_[w];
        a.sum = in.get<double>();
        if (arrived_slot_.size() >= kNone)
          throw Error("delay costs: more releases' call paths than 32-bit ids can hold");
        a.first = static_cast<std::uint32_t>(arrived_slot_.size());
        for (auto n = in.get<std::uint64_t>(); n > 0; --n, ++a.count) {
          arrived_slot_.push_back(in.get<std::uint32_t>());
          arrived_seconds_.push_back(in.get<double>());
        }
        unblock(w);
      }
      std::string().swap(packet);
    }
    ready_.insert(ready_.end(), deferred_.rbegin(), deferred_.rend());
    deferred_.clear();
    return more > 0;
  }

  // Every process's latest blocked point: the one of them all that the single-process replay would
  // release (the latest, the lowest rank among equals). False when no rank is blocked anywhere.
  bool latest_over_processes(Rank& best, double& latest) {
    Packer mine;
    if (best != kNone) mine.put(best).put(latest);
    best = kNone;
    for (const std::string& packet : all_gather(group_, mine.take())) {
      if (packet.empty()) continue;
      Unpacker in(packet);
      const auto r = in.get<Rank>();
      const auto t = in.get<double>();
      if (best == kNone || t > latest) best = r, latest = t;
    }
    return best != kNone;
  }

  // The waiting sides' parts go home; the scalar sums and counts are added over processes.
  void return_shares() {
    for (std::uint32_t w = 0; w < place_.size(); ++w) {  // place_: empty when none is shared
      const WaitState& ws = waits_.instances[w];
      if (waiter_share_[w].set && !trace_.holds(ws.rank)) to_owner(ws.rank).put(place_[w]).put(waiter_share_[w]);
    }
    std::vector<std::string> packets(outbox_.size());
    for (std::size_t p = 0; p < packets.size(); ++p) packets[p] = outbox_[p].take();
    const std::vector<std::string> received = group_.exchange(std::move(packets));
    for (std::size_t from = 0; from < received.size(); ++from) {
      Unpacker in(received[from]);
      while (!in.done()) {
        const std::uint32_t w = shared_wait(from, in.get<std::uint32_t>());
        waiter_share_[w] = in.get<Shares>();
      }
    }
    Packer mine;
    const RankShare here = shares_[static_cast<std::size_t>(group_.process())];
    mine.put(out_.unattributed_waits).put(out_.cycles_broken).put(here);
    for (Rank r = here.first; r < here.last; ++r) mine.put(sums_[r]);
    out_.unattributed_waits = out_.cycles_broken = 0;
    for (const std::string& packet : all_gather(group_, mine.take())) {
      Unpacker in(packet);
      out_.unattributed_waits += in.get<std::uint64_t>();
      out_.cycles_broken += in.get<std::uint64_t>();
      const auto share = in.get<RankShare>();
      for (Rank r = share.first; r < share.last; ++r) sums_[r] = in.get<RankSums>();
    }
  }

  const Trace& trace_;
  const WaitStates& waits_;
  const SyncGraph& graph_;
  const DelayRules rules_;
  DelayCosts& out_;
  IntervalTimes delayer_, waiter_, outgoing_;  // outgoing_: a release's waiting side
  Rank cached_rank_ = kNone;
  std::uint32_t cached_from_ = kNone, cached_to_ = kNone;
  // A wait state's waiting time split into the part its delayer caused directly and the part it
  // passed on from its own waiting (indirect: none for an unattributed one).
  struct Shares {
    double direct = 0, indirect = 0;
    bool set = false, has_indirect = false;
  };
  // A rank's part of the scalar sums: total_wait as the waiting side, the rest as the delayer.
  struct RankSums {
    double total_wait = 0, short_sum = 0, long_sum = 0, unattributed = 0;
  };
  std::vector<Shares> waiter_share_;  // per wait state
  std::vector<double> propagating_;   // per wait state: its part that causes point-to-point waits elsewhere
  std::vector<RankSums> sums_;        // per rank
  ProcessGroup& group_;               // the processes the replay runs on, and what crosses between them:
  std::vector<RankShare> shares_;
  std::vector<std::vector<std::uint32_t>> shared_;  // by process: the wait states shared with it, in key order
  std::vector<std::uint32_t> place_;                // per wait state: its place there (empty: none shared)
  std::vector<Packer> outbox_;                      // by process
  std::uint64_t sent_ = 0;                          // releases in the outbox
  std::uint64_t exchanges_ = 0;                     // rounds of deliver()
  // The waiting sides' intervals that crossed over: per wait state a range of (slot, seconds).
  struct Arrived {
    std::uint32_t first = 0, count = 0;
    double sum = 0;
  };
  std::vector<Arrived> arrived_;            // per wait state (empty: none shared)
  std::deque<std::uint32_t> arrived_slot_;  // in chunks: no copy of them all as they grow
  std::deque<double> arrived_seconds_;
  std::size_t round_bytes_;  // a round's releases stop at about this many bytes sent
  std::size_t outbox_bytes_ = 0;
  std::vector<Rank> deferred_;
  std::vector<double> costs_;  // per wait state: accumulated long-term costs per category
  std::vector<char> done_;
  std::vector<std::vector<std::uint32_t>> pending_;
  std::vector<std::int64_t> next_;
  std::vector<char> blocked_;
  std::vector<Rank> ready_;
};

}  // namespace

DelayCosts analyze_delays(const Trace& trace, const WaitStates& waits, const SyncGraph& graph, DelayRules rules,
                          ProcessGroup& group, std::size_t round_bytes) {
  DelayCosts out;
  out.rules = rules;
  for (int k = 0; k < K; ++k) {
    out.short_term[k] = CallpathMatrix(trace);
    out.long_term[k] = CallpathMatrix(trace);
    out.direct_wait[k] = CallpathMatrix(trace);
    out.indirect_wait[k] = CallpathMatrix(trace);
  }
  for (CallpathMatrix& m : out.propagating) m = CallpathMatrix(trace);
  DelayReplay(trace, waits, graph, rules, out, group_for(trace, group), round_bytes).run();
  return out;
}

DelayCosts analyze_delays(const Trace& trace, const WaitStates& waits, const SyncGraph& graph, DelayRules rules) {
  SoloProcess alone;
  return analyze_delays(trace, waits, graph, rules, alone);
}

}  // namespace wisp
