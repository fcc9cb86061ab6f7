// Scenario transforms. See transform.hpp.
#include "wisp/scenario/transform.hpp"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <numeric>
#include <set>

#include "wisp/error.hpp"
#include "wisp/scenario/callpath_balance.hpp"
#include "wisp/scenario/selection.hpp"
#include "wisp/scenario/thread_balance.hpp"
#include "wisp/trace/short_names.hpp"

namespace wisp {

namespace {

double sum(const std::vector<double>& v) { return std::accumulate(v.begin(), v.end(), 0.0); }

std::string describe(const Selection& s) {
  std::string d = s.region.empty() ? (s.callpath.empty() ? "all computation" : short_path(s.callpath))
                                   : (s.region.find('(') != std::string::npos ? short_name(s.region) : s.region);
  if (!s.ranks_text.empty()) d += " on ranks " + s.ranks_text;
  if (s.iterations) d += fmt::format(", visits {}-{}", s.iterations->first, s.iterations->second);
  if (s.time) d += fmt::format(", entered in [{}, {}] s", s.time->first, s.time->second);
  return d;
}

std::vector<CallpathId> callpaths_of(const Trace& t, const std::vector<Visit>& visits) {
  std::set<CallpathId> callpaths;
  for (const Visit& v : visits) callpaths.insert(t.ranks[v.rank].events[v.enter].callpath());
  return {callpaths.begin(), callpaths.end()};
}

std::size_t rank_count(const std::vector<Visit>& visits) {
  std::set<Rank> ranks;
  for (const Visit& v : visits) ranks.insert(v.rank);
  return ranks.size();
}

// ", latency 3.5e-06 s, bandwidth 7.7e+09 bytes/s, overhead 0 s" for the absolute values given.
std::string network_text(const PlatformChange& c) {
  std::string t;
  if (c.latency) t += fmt::format(", latency {:g} s", *c.latency);
  if (c.bandwidth) t += fmt::format(", bandwidth {:g} bytes/s", *c.bandwidth);
  if (c.overhead) t += fmt::format(", overhead {:g} s", *c.overhead);
  return t;
}

TransformEffect apply_platform(Transformed& out, const Transform& tr) {
  out.platform.speed_factor *= tr.platform.speed_factor;
  out.platform.latency_factor *= tr.platform.latency_factor;
  out.platform.bandwidth_factor *= tr.platform.bandwidth_factor;
  if (!tr.platform.file.empty()) out.platform.file = tr.platform.file;
  if (tr.platform.latency) out.platform.latency = tr.platform.latency;
  if (tr.platform.bandwidth) out.platform.bandwidth = tr.platform.bandwidth;
  if (tr.platform.overhead) out.platform.overhead = tr.platform.overhead;
  TransformEffect effect;
  effect.description =
      fmt::format("platform: speed x{}, latency x{}, bandwidth x{}{}{}", tr.platform.speed_factor,
                  tr.platform.latency_factor, tr.platform.bandwidth_factor,
                  tr.platform.file.empty() ? "" : ", file " + tr.platform.file.string(), network_text(tr.platform));
  return effect;
}

TransformEffect apply_placement(Transformed& out, const Transform& tr) {
  out.placement = Transformed::PlacementChange{tr.placement, tr.hostfile};
  TransformEffect effect;
  effect.description = tr.hostfile.empty()
                           ? fmt::format("placement: {} over the platform's hosts", to_string(tr.placement))
                           : "placement: hostfile " + tr.hostfile.string();
  return effect;
}

// `move`: a fraction of the computation of `select` goes to the visits of `to`, in proportion.
TransformEffect apply_move(const Trace& in, Transformed& out, const Transform& tr, const std::vector<Visit>& visits,
                           const std::vector<double>& c) {
  const auto where = tr.where.str();
  const std::vector<Visit> to = select_visits(in, tr.to);
  const std::vector<double> ct = computation(in, to);
  for (const Visit& a : visits)
    for (const Visit& b : to)
      if (a.rank == b.rank && a.enter < b.leave && b.enter < a.leave)
        throw Error(where + ": move 'from' and 'to' select the same visit (rank " + std::to_string(a.rank) + ")");
  const double moved = tr.fraction * sum(c);
  const double grown = sum(ct);
  if (grown <= 0 && moved > 0) throw Error(where + ": move 'to' (" + describe(tr.to) + ") has no computation to grow");
  std::vector<double> target(c.size());
  for (std::size_t k = 0; k < c.size(); ++k) target[k] = c[k] * (1 - tr.fraction);
  std::vector<double> to_target(ct.size());
  for (std::size_t k = 0; k < ct.size(); ++k) to_target[k] = grown > 0 ? ct[k] * (1 + moved / grown) : ct[k];
  out.trace = retime(in, to, to_target);
  TransformEffect effect;
  effect.description =
      fmt::format("move {:.6f} s ({} %) of {} to {}", moved, 100 * tr.fraction, describe(tr.select), describe(tr.to));
  effect.visits = visits.size() + to.size();
  effect.before = sum(c) + grown;
  effect.after = sum(target) + sum(to_target);
  out.trace = retime(out.trace, visits, target);
  return effect;
}

// Rebalance call path by call path: every instance's exclusive computation to the ranks' mean.
TransformEffect apply_callpath_balance(const Trace& in, Transformed& out, const Transform& tr,
                                       const std::vector<Visit>& visits, const std::vector<double>& c) {
  const CallpathBalance balance = balance_callpaths(in, visits);
  out.trace = retime(in, balance.gaps);
  TransformEffect effect;
  effect.description = fmt::format(
      "rebalance {} (call path by call path) on {} ranks: {} call paths ({} repeated, {} instances balanced)",
      describe(tr.select), rank_count(visits), balance.callpaths, balance.repeated, balance.instances);
  effect.visits = visits.size();
  effect.before = sum(c);
  effect.after = sum(computation(out.trace, visits));
  return effect;
}

// Rebalance across threads: each visit (a team's instance) ends when the mean work is done.
std::vector<double> balance_threads(const Transform& tr, const std::vector<TeamWork>& teams,
                                    const std::vector<Visit>& visits, const std::vector<double>& c,
                                    std::string& description) {
  std::vector<double> target(c.size());
  std::size_t threads = 0;
  for (std::size_t k = 0; k < c.size(); ++k) {
    target[k] = std::max(0.0, c[k] - (teams[k].max - teams[k].mean));
    threads = std::max(threads, teams[k].threads);
  }
  if (threads < 2)
    throw Error(tr.where.str() + ": rebalance across threads: no thread but the master visits " + describe(tr.select) +
                " (a hybrid trace's OpenMP threads are needed; see wisp info)");
  description = fmt::format("rebalance {} across threads (per instance) on {} ranks, teams of up to {} threads",
                            describe(tr.select), rank_count(visits), threads);
  return target;
}

// The new computation of every selected visit under rebalance, scale, set or zero.
std::vector<double> targets(const Transform& tr, const Trace& trace, const std::vector<Visit>& visits,
                            const std::vector<double>& c, std::string& description) {
  std::vector<double> target(c.size());
  switch (tr.kind) {
    case TransformKind::Rebalance:
      description = fmt::format("rebalance {} ({}) on {} ranks", describe(tr.select),
                                tr.mode == RebalanceMode::Instance ? "per instance" : "totals", rank_count(visits));
      return tr.mode == RebalanceMode::Instance ? rebalance_instances(visits, c) : rebalance_totals(visits, c);
    case TransformKind::Scale:
      for (std::size_t k = 0; k < c.size(); ++k) target[k] = c[k] * tr.factor;
      description = fmt::format("scale {} by {}", describe(tr.select), tr.factor);
      break;
    case TransformKind::Set:
      std::fill(target.begin(), target.end(), tr.seconds);
      description = fmt::format("set {} to {} s per visit", describe(tr.select), tr.seconds);
      break;
    case TransformKind::Zero:
      description = fmt::format("zero {}", describe(tr.select));
      break;
    default:
      break;
  }
  return target;
}

// Whether a transform changes the trace (the others change the platform or the replay's options).
bool retimes(const Transform& tr) {
  return tr.kind != TransformKind::Platform && tr.kind != TransformKind::Placement &&
         !(tr.kind == TransformKind::Zero && tr.communication);
}

// A visit whose new computation is within SimGrid's time precision (1 ns) of its old one keeps the
// old: rounding is not a change, and a transform that changes nothing leaves the trace as it was
// (a region balanced to the nanosecond stays the identity's trace, replayed alike).
std::vector<double> unless_below_resolution(std::vector<double> target, const std::vector<double>& c) {
  constexpr double kResolution = 1e-9;
  for (std::size_t k = 0; k < target.size() && k < c.size(); ++k)
    if (std::abs(target[k] - c[k]) < kResolution) target[k] = c[k];
  return target;
}

// `in` is the trace before the transform; a transform that retimes it writes out.trace.
TransformEffect apply_one(const Trace& in, Transformed& out, const Transform& tr) {
  if (tr.kind == TransformKind::Platform) return apply_platform(out, tr);
  if (tr.kind == TransformKind::Placement) return apply_placement(out, tr);
  TransformEffect effect;
  if (tr.kind == TransformKind::Zero && tr.communication) {
    out.zero_communication = true;
    effect.description = "zero communication: every message zero-byte and latency-free";
    return effect;
  }
  const std::vector<Visit> visits = select_visits(in, tr.select);
  const std::vector<double> c = computation(in, visits);
  if (tr.kind == TransformKind::Move) {
    effect = apply_move(in, out, tr, visits, c);
  } else if (tr.kind == TransformKind::Rebalance && tr.mode == RebalanceMode::Callpaths) {
    effect = apply_callpath_balance(in, out, tr, visits, c);
  } else {
    const bool threads = tr.kind == TransformKind::Rebalance && tr.across_threads;
    const std::vector<TeamWork> teams = threads ? team_work(in, visits) : std::vector<TeamWork>{};
    const std::vector<double> target = threads ? balance_threads(tr, teams, visits, c, effect.description)
                                               : targets(tr, in, visits, c, effect.description);
    effect.visits = visits.size();
    effect.before = sum(c);
    effect.after = sum(target);
    out.trace = retime(in, visits, unless_below_resolution(target, c));
    if (threads) balance_team_events(out.trace, visits, teams);
  }
  effect.callpaths = callpaths_of(out.trace, visits);
  return effect;
}

}  // namespace

// The k-th visits of all selected ranks get their mean.
std::vector<double> rebalance_instances(const std::vector<Visit>& visits, const std::vector<double>& c) {
  std::map<std::uint32_t, std::pair<double, std::size_t>> by_index;
  for (std::size_t k = 0; k < visits.size(); ++k) {
    auto& [total, n] = by_index[visits[k].index];
    total += c[k];
    ++n;
  }
  std::vector<double> target(visits.size());
  for (std::size_t k = 0; k < visits.size(); ++k) {
    const auto& [total, n] = by_index[visits[k].index];
    target[k] = total / static_cast<double>(n);
  }
  return target;
}

// Every selected rank gets the mean total, spread over its visits in proportion to them.
std::vector<double> rebalance_totals(const std::vector<Visit>& visits, const std::vector<double>& c) {
  std::map<Rank, std::pair<double, std::size_t>> by_rank;
  for (std::size_t k = 0; k < visits.size(); ++k) {
    by_rank[visits[k].rank].first += c[k];
    ++by_rank[visits[k].rank].second;
  }
  double mean = 0;
  for (const auto& [r, tn] : by_rank) mean += tn.first;
  mean /= static_cast<double>(by_rank.size());
  std::vector<double> target(visits.size());
  for (std::size_t k = 0; k < visits.size(); ++k) {
    const auto& [total, n] = by_rank[visits[k].rank];
    target[k] = total > 0 ? c[k] * mean / total : mean / static_cast<double>(n);
  }
  return target;
}

// The input is read, not copied, until a transform retimes it: one trace less at the peak.
Transformed apply_transforms(const Trace& trace, const std::vector<Transform>& transforms) {
  Transformed out{Trace{}, false, {}, std::nullopt, {}};
  const Trace* in = &trace;
  for (const Transform& t : transforms) {
    out.effects.push_back(apply_one(*in, out, t));
    if (retimes(t)) in = &out.trace;
  }
  if (in == &trace) out.trace = trace;
  return out;
}

}  // namespace wisp
