// See timeline_summary.hpp.
#include "wisp/analysis/timeline_summary.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace wisp {

namespace {

// One bin of a summary lane: summed over the group's ranks.
struct Bin {
  double computation = 0, mpi = 0, waiting = 0;  // mpi includes waiting
  std::uint32_t computation_label = kNone, mpi_label = kNone;
  double computation_piece = 0, mpi_piece = 0;  // the largest single piece behind each label
};

void add_to_bins(const Timeline& full, const TimelineLane& lane, double width, std::vector<Bin>& bins) {
  const auto last = static_cast<std::int64_t>(bins.size()) - 1;
  for (std::size_t i = 0; i < lane.start.size(); ++i) {
    const double s = lane.start[i], e = lane.end[i], d = e - s;
    if (d <= 0) continue;
    const bool mpi = lane.label[i] < full.labels.size() && full.labels[lane.label[i]].mpi;
    const auto first = std::clamp<std::int64_t>(static_cast<std::int64_t>((s - full.start) / width), 0, last);
    const auto final = std::clamp<std::int64_t>(static_cast<std::int64_t>((e - full.start) / width), 0, last);
    for (std::int64_t b = first; b <= final; ++b) {
      const double lo = full.start + static_cast<double>(b) * width;
      const double part = std::min(e, lo + width) - std::max(s, lo);
      if (part <= 0) continue;
      Bin& bin = bins[static_cast<std::size_t>(b)];
      if (mpi) {
        bin.mpi += part;
        bin.waiting += lane.wait[i] * part / d;
        if (part > bin.mpi_piece) bin.mpi_piece = part, bin.mpi_label = lane.label[i];
      } else {
        bin.computation += part;
        if (part > bin.computation_piece) bin.computation_piece = part, bin.computation_label = lane.label[i];
      }
    }
  }
}

void write_bins(const std::vector<Bin>& bins, double start, double width, double ranks, TimelineLane& out) {
  for (std::size_t b = 0; b < bins.size(); ++b) {
    double at = start + static_cast<double>(b) * width;
    const Bin& bin = bins[b];
    if (bin.computation > 0) {
      out.start.push_back(at);
      at += bin.computation / ranks;
      out.end.push_back(at);
      out.label.push_back(bin.computation_label);
      out.wait.push_back(0);
      out.critical.push_back(0);
    }
    if (bin.mpi > 0) {
      out.start.push_back(at);
      out.end.push_back(at + bin.mpi / ranks);
      out.label.push_back(bin.mpi_label);
      out.wait.push_back(bin.waiting / ranks);
      out.critical.push_back(0);
    }
  }
}

// Consecutive segments on one rank become one.
std::vector<PathSegment> runs_per_rank(const std::vector<PathSegment>& path) {
  std::vector<PathSegment> out;
  for (const PathSegment& s : path) {
    if (!out.empty() && out.back().rank == s.rank) {
      out.back().end = std::max(out.back().end, s.end);
      continue;
    }
    out.push_back(s);
  }
  return out;
}

}  // namespace

Timeline summarize_timeline(const Timeline& full, std::uint32_t bins, std::uint32_t group) {
  Timeline s;
  s.start = full.start;
  s.end = full.end;
  s.labels = full.labels;
  s.ranks = full.ranks;
  s.critical_path = runs_per_rank(full.critical_path);
  bins = std::max<std::uint32_t>(bins, 1);
  group = std::max<std::uint32_t>(group, 1);
  const double width = std::max(full.end - full.start, 1e-9) / bins;
  std::vector<const TimelineLane*> master;
  for (const TimelineLane& l : full.lanes)
    if (l.master && l.rank != kNone) {
      if (master.size() <= l.rank) master.resize(l.rank + 1, nullptr);
      master[l.rank] = &l;
    }
  for (Rank first = 0; first < master.size(); first += group) {
    const Rank last = std::min<Rank>(static_cast<Rank>(master.size()), first + group) - 1;
    TimelineLane lane;
    lane.rank = first;
    lane.name = first == last ? fmt::format("rank {}", first) : fmt::format("ranks {}-{}", first, last);
    std::vector<Bin> sums(bins);
    for (Rank r = first; r <= last; ++r) {
      if (!master[r]) continue;
      lane.members.push_back(r);
      add_to_bins(full, *master[r], width, sums);
    }
    if (lane.members.empty()) continue;
    write_bins(sums, full.start, width, static_cast<double>(lane.members.size()), lane);
    s.lanes.push_back(std::move(lane));
  }
  return s;
}

Timeline timeline_window(const Timeline& full, double t0, double t1) {
  Timeline w;
  w.start = t0;
  w.end = t1;
  w.labels = full.labels;
  w.ranks = full.ranks;
  for (const TimelineLane& l : full.lanes) {
    TimelineLane lane;
    lane.rank = l.rank;
    lane.name = l.name;
    lane.master = l.master;
    lane.members = l.members;
    const auto from = std::upper_bound(l.end.begin(), l.end.end(), t0) - l.end.begin();
    for (auto i = static_cast<std::size_t>(from); i < l.start.size() && l.start[i] < t1; ++i) {
      const double s = std::max(l.start[i], t0), e = std::min(l.end[i], t1);
      lane.start.push_back(s);
      lane.end.push_back(e);
      lane.label.push_back(l.label[i]);
      lane.wait.push_back(std::min(l.wait[i], e - s));
      lane.critical.push_back(l.critical[i]);
    }
    w.lanes.push_back(std::move(lane));
  }
  for (const TimelineMessage& m : full.messages)
    if (m.send >= t0 && m.send < t1) w.messages.push_back(m);
  for (const PathSegment& p : full.critical_path)
    if (p.end > t0 && p.start < t1)
      w.critical_path.push_back(PathSegment{p.rank, p.callpath, std::max(p.start, t0), std::min(p.end, t1)});
  return w;
}

std::size_t intervals_overlapping(const Timeline& t, double from, double end) {
  std::size_t n = 0;
  for (const TimelineLane& l : t.lanes) {
    const auto first = std::upper_bound(l.end.begin(), l.end.end(), from) - l.end.begin();
    const auto last = std::lower_bound(l.start.begin(), l.start.end(), end) - l.start.begin();
    n += last > first ? static_cast<std::size_t>(last - first) : 0;
  }
  return n;
}

double window_end(const std::function<std::size_t(double end)>& count, double from, double last,
                  std::size_t max_intervals) {
  double lo = from, hi = std::max(from, last);
  if (count(hi) <= max_intervals) return hi;
  for (int k = 0; k < 60; ++k) {
    const double mid = 0.5 * (lo + hi);
    (count(mid) <= max_intervals ? lo : hi) = mid;
  }
  return std::max(lo, from + 1e-9);
}

double window_end(const std::vector<const Timeline*>& timelines, std::size_t max_intervals, double from) {
  double last = from;
  for (const Timeline* t : timelines) last = std::max(last, t->end);
  return window_end(
      [&](double end) {
        std::size_t n = 0;
        for (const Timeline* t : timelines) n += intervals_overlapping(*t, from, end);
        return n;
      },
      from, last, max_intervals);
}

}  // namespace wisp
