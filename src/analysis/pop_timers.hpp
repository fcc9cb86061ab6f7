// POP's timers fed event by event from an ideal-network clock replay: the PAG's sweep in one
// process (pop.cpp) and the ghost sweep over processes (ghost_sweep.hpp) give the same
// values to the same code, so that their samples are equal. Internal to the analysis layer.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include "wisp/analysis/pag.hpp"
#include "wisp/analysis/pop.hpp"
#include "wisp/error.hpp"

namespace wisp {

// Samples of `ranks` ranks at `times` (sorted and made distinct here), every value 0 until fed.
inline PopSamples unsampled(Rank ranks, std::vector<double> times) {
  std::sort(times.begin(), times.end());
  times.erase(std::unique(times.begin(), times.end()), times.end());
  PopSamples out;
  out.rank_count = ranks;
  out.times = std::move(times);
  out.useful.assign(out.rank_count * out.times.size(), 0);
  out.ideal.assign(out.useful.size(), 0);
  return out;
}

// Per rank, in order: sink.first(r, point) at its first event, sink.call(r, call) at each call's
// leave, sink.last(r, point) at its last event. `calls[r]`: rank r's outermost MPI calls with their
// ideal release (PagCall), for the ranks that are visited.
template <typename Sink>
class TimerFeed {
 public:
  TimerFeed(const Trace& trace, const std::vector<std::vector<PagCall>>& calls, double ticks_per_second, Sink& sink)
      : trace_(trace), calls_(calls), ticks_per_second_(ticks_per_second), sink_(sink), state_(trace.rank_count()) {}

  // The ideal clock of rank r's event e [ticks]; each rank's events in their order.
  void visit(Rank r, EventIndex e, Ticks value) {
    RankState& st = state_[r];
    if (st.last_seen != kNone && e <= st.last_seen) in_order_ = false;
    st.last_seen = e;
    const std::vector<Event>& events = trace_.ranks[r].events;
    const double clock = seconds(value);
    if (e == 0) {
      st.previous = events.front().time;
      sink_.first(r, PopTimeline::Point{st.previous, 0, clock});
    }
    const auto& calls = calls_[r];
    if (st.next_call < calls.size() && e == calls[st.next_call].enter) {
      st.useful += events[e].time - st.previous;
      st.ideal_enter = clock;
    } else if (st.next_call < calls.size() && e == calls[st.next_call].leave) {
      const PagCall& c = calls[st.next_call++];
      const double enter = events[c.enter].time, leave = events[c.leave].time;
      const double release = std::clamp(seconds(c.ideal_release), enter, leave);
      sink_.call(r, PopTimeline::Call{enter, release, leave, st.useful, st.ideal_enter, clock});
      st.previous = leave;
    }
    if (e + 1 == events.size()) {
      st.useful += events.back().time - st.previous;
      sink_.last(r, PopTimeline::Point{events.back().time, st.useful, clock});
    }
  }

  // Every visited rank's calls were all met, in order (else wisp::Error).
  void finish() const {
    bool in_order = in_order_;
    for (Rank q = 0; q < state_.size(); ++q)
      if (q < calls_.size() && state_[q].next_call != calls_[q].size()) in_order = false;
    if (!in_order) throw Error("POP: the ideal-network sweep did not meet a rank's events in their order");
  }

 private:
  struct RankState {
    std::size_t next_call = 0;
    EventIndex last_seen = kNone;
    double useful = 0, previous = 0, ideal_enter = 0;
  };
  double seconds(Ticks t) const { return static_cast<double>(t) / ticks_per_second_; }

  const Trace& trace_;
  const std::vector<std::vector<PagCall>>& calls_;
  double ticks_per_second_;
  Sink& sink_;
  std::vector<RankState> state_;
  bool in_order_ = true;
};

// Keeps the timers at the sample times only: interpolate() as the breakpoints stream by (the
// value at t is resolved by the first breakpoint later than t, with the one before it).
class SampleSink {
 public:
  explicit SampleSink(PopSamples& s) : s_(s), ranks_(s.rank_count) {}
  void first(Rank r, const PopTimeline::Point& p) {
    RankSampler& q = ranks_[r];
    const std::size_t n = s_.times.size();
    while (q.next < n && s_.times[q.next] <= p.time) set(r, q.next++, p.useful, p.ideal);
    q.previous = p;
  }
  void call(Rank r, const PopTimeline::Call& c) {
    feed(r, {c.enter, c.useful, c.ideal_enter});
    feed(r, {c.release, c.useful, c.ideal_leave});
    feed(r, {c.leave, c.useful, c.ideal_leave});
  }
  void last(Rank r, const PopTimeline::Point& p) {
    feed(r, p);
    RankSampler& q = ranks_[r];
    while (q.next < s_.times.size()) set(r, q.next++, p.useful, p.ideal);  // at or after the last
  }

 private:
  struct RankSampler {
    std::size_t next = 0;  // the first sample time not resolved yet
    PopTimeline::Point previous;
  };
  void set(Rank r, std::size_t i, double useful, double ideal) {
    s_.useful[r * s_.times.size() + i] = useful;
    s_.ideal[r * s_.times.size() + i] = ideal;
  }
  void feed(Rank r, const PopTimeline::Point& b) {
    RankSampler& q = ranks_[r];
    const PopTimeline::Point& a = q.previous;
    const double span = b.time - a.time;
    for (; q.next < s_.times.size() && s_.times[q.next] < b.time; ++q.next) {
      const double t = s_.times[q.next];
      const auto at = [&](double fa, double fb) { return span > 0 ? fa + (fb - fa) * (t - a.time) / span : fb; };
      set(r, q.next, at(a.useful, b.useful), at(a.ideal, b.ideal));
    }
    q.previous = b;
  }
  PopSamples& s_;
  std::vector<RankSampler> ranks_;
};

}  // namespace wisp
