// The ideal-network clock replay over processes. See ideal_clock_spread.hpp.
//
// It computes what the PAG's ideal variant gives without building a graph: a rank's clock advances
// by its computation time between events outside MPI calls and takes the max with the clocks its
// dependencies bring (which ones: clock_plan.hpp, decided before); the ranks advance, their clocks
// crossing point to point or in rounds (clock_post.hpp), until every rank is done (or, in rounds,
// none can go on: a cycle).
#include "wisp/analysis/ideal_clock_spread.hpp"

#include <algorithm>
#include <unordered_map>

#include <spdlog/spdlog.h>

#include "analysis/clock_plan.hpp"
#include "analysis/pop_timers.hpp"
#include "wisp/error.hpp"
#include "wisp/group/clock_post.hpp"
#include "wisp/trace/trace_summary.hpp"

namespace wisp {

namespace {

using namespace clock;

class ClockReplay {
 public:
  ClockReplay(const Trace& trace, ProcessGroup& group, std::size_t round_bytes, ClockTransport transport,
              ClockPlan plan, PopSamples& samples)
      : trace_(trace),
        group_(group),
        round_bytes_(round_bytes),
        transport_(transport),
        me_(group.process()),
        tps_(static_cast<double>(trace.defs.clock.ticks_per_second)),
        plan_(std::move(plan)),
        sink_(samples),
        feed_(trace, plan_.calls, tps_, sink_) {}

  // The largest clock of this process's ranks; nullopt on a cycle.
  std::optional<Ticks> run() {
    if (transport_ == ClockTransport::Automatic) {
      std::uint64_t tight = 0;
      for (const std::string& part : all_gather(group_, packed(plan_.tight)))
        tight += Unpacker(part).get<std::uint64_t>();
      transport_ = tight == 0 ? ClockTransport::PointToPoint : ClockTransport::Rounds;
      spdlog::debug("POP over processes, process {}: {} tight dependencies, clocks cross {}", me_, tight,
                    tight == 0 ? "point to point" : "in rounds");
    }
    // Point to point: a process's clocks go out when its ranks all wait (or many are ready), and it
    // waits for the next message; no cycle (no tight dependency), so every process finishes.
    Post<Ticks> post(group_, transport_ == ClockTransport::PointToPoint, round_bytes_);
    cursor_.resize(trace_.rank_count());
    if (!post.run(trace_.share->first, trace_.share->last, [&](Rank r) { return advance(r, post); }))
      return std::nullopt;  // rounds: every rank waits, a cycle
    feed_.finish();
    return length_;
  }

 private:
  Ticks at(Rank r, EventIndex i) const { return ticks_at(trace_, r, i); }

  struct Cursor {
    EventIndex next = 0;
    Ticks previous = 0;     // the clock at event next - 1
    Ticks previous_at = 0;  // its time stamp
    std::size_t dep = 0, pub = 0, call = 0;
  };

  // Rank r as far as it goes: true when it is done, false when it waits for a clock or pauses.
  bool advance(Rank r, Post<Ticks>& post) {
    Cursor& c = cursor_[r];
    const std::vector<Event>& events = trace_.ranks[r].events;
    const std::vector<Dep>& deps = plan_.deps[r];
    while (c.next < events.size()) {
      if (post.pause(r)) return false;
      const EventIndex i = c.next;
      const Ticks here = at(r, i);
      Ticks clock = i == 0 ? 0 : std::max<Ticks>(0, c.previous + (in_call(r, c, i - 1) ? 0 : here - c.previous_at));
      if (i > 0 && replaced(r, i)) clock = 0;  // the hub alone leads to it
      std::size_t d = c.dep;
      for (; d < deps.size() && deps[d].target == i; ++d)
        if (!clock_of(deps[d], post, r, clock)) return false;
      for (; c.dep < d; ++c.dep) taken(deps[c.dep], post);
      const std::vector<Publication>& pubs = plan_.pubs[r];
      for (; c.pub < pubs.size() && pubs[c.pub].event == i; ++c.pub) publish(pubs[c.pub], clock, post);
      feed_.visit(r, i, clock);
      length_ = std::max(length_, clock);
      c.previous = clock;
      c.previous_at = here;
      ++c.next;
    }
    return true;
  }

  // Whether the chain v -> v + 1 is inside an MPI call (no time on the ideal clock) rather than
  // computation (its whole duration).
  bool in_call(Rank r, Cursor& c, EventIndex v) const {
    const std::vector<PagCall>& calls = plan_.calls[r];
    while (c.call < calls.size() && calls[c.call].leave <= v) ++c.call;
    return c.call < calls.size() && calls[c.call].enter <= v;
  }
  // The chain begin -> end of a collective belongs to its hub.
  bool replaced(Rank r, EventIndex i) const {
    const std::vector<Event>& ev = trace_.ranks[r].events;
    return ev[i].kind == EventKind::MpiCollectiveEnd && ev[i - 1].kind == EventKind::MpiCollectiveBegin &&
           plan_.replaced[r][ev[i].collective()] != 0;
  }

  // The clock of `key` into `into` (max), or false and rank r waits for it.
  static bool value(Post<Ticks>& post, Rank r, std::uint64_t key, Ticks& into) {
    const Ticks* v = post.find(key);
    if (v == nullptr) {
      post.wait(key, r);
      return false;
    }
    into = std::max(into, *v);
    return true;
  }
  // The clock a dependency brings, into `clock` (false: not arrived).
  bool clock_of(const Dep& d, Post<Ticks>& post, Rank r, Ticks& clock) const {
    Ticks brought = 0;
    bool ok = true;
    if (d.kind == DepKind::Start || d.kind == DepKind::Post) {
      ok = value(post, r, key_of(d.kind == DepKind::Start ? kStart : kPost, d.a), brought);
    } else if (const Instance& inst = plan_.instances.at(d.a); inst.prefix) {
      for (std::uint32_t j = 0; ok && j <= d.b; ++j) ok = value(post, r, key_of(kMember, d.a, j), brought);
    } else {
      for (std::size_t k = 0; ok && k < inst.feeders.size(); ++k)
        ok = value(post, r, key_of(kPartial, d.a, static_cast<std::uint64_t>(inst.feeders[k])), brought);
    }
    if (ok) clock = std::max(clock, brought);
    return ok;
  }
  void taken(const Dep& d, Post<Ticks>& post) {
    if (d.kind != DepKind::Hub) return post.erase(key_of(d.kind == DepKind::Start ? kStart : kPost, d.a));
    const auto it = plan_.instances.find(d.a);
    Instance& inst = it->second;
    if (--inst.consumers > 0) return;
    if (inst.prefix)
      for (std::uint32_t j = 0; j < inst.count; ++j) post.erase(key_of(kMember, d.a, j));
    else
      for (const int p : inst.feeders) post.erase(key_of(kPartial, d.a, static_cast<std::uint64_t>(p)));
    if (inst.local_feeders == 0) plan_.instances.erase(it);
  }

  void publish(const Publication& p, Ticks clock, Post<Ticks>& post) {
    if (p.key == kMember) {
      for (const int to : plan_.instances.at(p.a).owners_from(p.b)) post.send(to, key_of(kMember, p.a, p.b), clock);
      return;
    }
    if (p.key != kPartial) return post.send(p.to, key_of(p.key, p.a), clock);
    const auto it = plan_.instances.find(p.a);
    Instance& inst = it->second;
    inst.partial = std::max(inst.partial, clock);
    if (--inst.local_feeders > 0) return;
    for (const int to : inst.partial_to)
      post.send(to, key_of(kPartial, p.a, static_cast<std::uint64_t>(me_)), inst.partial);
    if (inst.consumers == 0) plan_.instances.erase(it);
  }

  const Trace& trace_;
  ProcessGroup& group_;
  std::size_t round_bytes_;
  ClockTransport transport_;
  int me_;
  double tps_;
  ClockPlan plan_;
  SampleSink sink_;
  TimerFeed<SampleSink> feed_;
  std::vector<Cursor> cursor_;
  Ticks length_ = 0;
};

}  // namespace

std::optional<PopSamples> pop_samples(const Trace& trace, const TraceSummary& whole, std::uint64_t eager_limit,
                                      std::vector<double> times, ProcessGroup& group, std::size_t round_bytes,
                                      ClockTransport transport) {
  if (!trace.share) throw Error("POP over processes: the trace was not read spread over them");
  PopSamples out = unsampled(trace.rank_count(), std::move(times));
  const std::vector<RankShare> shares = gather_shares(group, *trace.share);
  clock::ClockPlan plan = clock::plan_clocks(trace, RendezvousRule::EagerLimit, eager_limit, group, shares);
  const std::optional<Ticks> length = ClockReplay(trace, group, round_bytes, transport, std::move(plan), out).run();
  // Every process's rows and largest clock, to every process.
  const RankShare own = *trace.share;
  const std::size_t n = out.times.size();
  Packer mine;
  mine.put<std::uint8_t>(length ? 1 : 0).put<Ticks>(length.value_or(0));
  mine.put_vector(std::vector<double>(out.useful.begin() + own.first * n, out.useful.begin() + own.last * n));
  mine.put_vector(std::vector<double>(out.ideal.begin() + own.first * n, out.ideal.begin() + own.last * n));
  Ticks largest = 0;
  bool cycle = false;
  const std::vector<std::string> parts = all_gather(group, mine.take());
  for (std::size_t p = 0; p < parts.size(); ++p) {
    Unpacker in(parts[p]);
    cycle |= in.get<std::uint8_t>() == 0;
    largest = std::max(largest, in.get<Ticks>());
    const std::vector<double> useful = in.get_vector<double>(), ideal = in.get_vector<double>();
    if (useful.size() != shares[p].size() * n || ideal.size() != useful.size())
      throw Error("POP over processes: a process's timers do not cover its ranks");
    std::copy(useful.begin(), useful.end(), out.useful.begin() + shares[p].first * n);
    std::copy(ideal.begin(), ideal.end(), out.ideal.begin() + shares[p].first * n);
  }
  if (cycle) return std::nullopt;
  out.start = whole.start_time();
  out.end = whole.end_time();
  out.ideal_runtime = static_cast<double>(largest) / static_cast<double>(trace.defs.clock.ticks_per_second);
  return out;
}

}  // namespace wisp
