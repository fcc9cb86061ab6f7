// Candidate scenarios from the analyses of a measured trace. See hypotheses.hpp.
#include "wisp/scenario/hypotheses.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <set>

#include "wisp/analysis/delay.hpp"
#include "wisp/error.hpp"
#include "wisp/scenario/selection.hpp"
#include "wisp/scenario/thread_balance.hpp"
#include "wisp/scenario/transform.hpp"
#include "wisp/trace/short_names.hpp"

namespace wisp {

namespace {

using Ranked = std::vector<std::pair<CallpathId, double>>;  // call path, indicator value [s]

// A file-name friendly form of a name: letters, digits, '_', '.', others as one '-'.
std::string file_stem(const std::string& text) {
  std::string out;
  for (const char c : text) {
    const bool keep = std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
    if (keep)
      out += c;
    else if (!out.empty() && out.back() != '-')
      out += '-';
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out.substr(0, 48);
}

bool is_parallel_region(const Region& r) {
  constexpr std::uint8_t kParallel = 5, kOpenMP = 3;
  return (r.otf2_role == kParallel && r.otf2_paradigm == kOpenMP) || r.name.rfind("!$omp parallel", 0) == 0;
}

// User functions a transform may act on (not MPI, not OpenMP constructs).
bool user_callpath(const Definitions& defs, CallpathId cp) {
  if (cp >= defs.callpaths.size()) return false;  // the PAG's launch activities, the program root
  const Region& r = defs.regions[defs.callpaths[cp].region];
  return r.kind == RegionKind::User && !is_openmp_barrier(r) && !is_parallel_region(r);
}

// The call paths with the largest totals over ranks of `m` (at least `min` seconds), biggest first.
Ranked top_callpaths(const Definitions& defs, const CallpathMatrix& m, std::size_t top, double min,
                     bool (*wanted)(const Definitions&, CallpathId)) {
  Ranked all;
  for (std::uint32_t slot = 1; slot < m.slots; ++slot) {
    const CallpathId cp = callpath_of_slot(slot);
    const double v = m.total(slot);
    if (v > min && wanted(defs, cp)) all.emplace_back(cp, v);
  }
  std::stable_sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  if (all.size() > top) all.resize(top);
  return all;
}

// A selection of one call path: by region name when that region has no other call path (reads
// better and survives a renamed caller), else by the call path itself.
Selection select_callpath(const Definitions& defs, CallpathId cp) {
  const RegionId region = defs.callpaths[cp].region;
  const auto same = std::count_if(defs.callpaths.begin(), defs.callpaths.end(),
                                  [&](const Callpath& c) { return c.region == region; });
  Selection s;
  if (same == 1)
    s.region = defs.regions[region].name;
  else
    s.callpath = defs.callpath_name(cp);
  return s;
}
// Display names (trace/short_names.hpp) of what the hypotheses select.
struct Display {
  std::vector<std::string> regions, callpaths;
  explicit Display(const Definitions& defs)
      : regions(region_display_names(defs)), callpaths(callpath_display_names(defs)) {}
  // How select_callpath(cp) reads: its region's name or its call path's.
  std::string of(const Definitions& defs, CallpathId cp) const {
    return select_callpath(defs, cp).region.empty() ? callpaths[cp] : regions[defs.callpaths[cp].region];
  }
};

// What a hypothesis on call path `cp` changes: the full and the display name.
void set_subject(Hypothesis& h, const Definitions& defs, const Display& names, CallpathId cp) {
  const Selection s = select_callpath(defs, cp);
  h.subject = s.region.empty() ? s.callpath : s.region;
  h.short_subject = names.of(defs, cp);
}

Transform rebalance(const Selection& s, RebalanceMode mode, bool across_threads = false) {
  Transform t;
  t.kind = TransformKind::Rebalance;
  t.select = s;
  t.mode = mode;
  t.across_threads = across_threads;
  return t;
}

// Whether rebalancing in total is a hypothesis of its own: it gives other visit durations than per
// instance, and it changes some rank's total by more than `min` seconds (a rank whose computation
// moves by less cannot make the run measurably shorter).
bool totals_differ(const Trace& trace, const Selection& s, double min) {
  try {
    const std::vector<Visit> visits = select_visits(trace, s);
    const std::vector<double> c = computation(trace, visits);
    const std::vector<double> a = rebalance_instances(visits, c), b = rebalance_totals(visits, c);
    bool differ = false;
    std::map<Rank, double> moved;  // per rank: total after - total before
    for (std::size_t k = 0; k < a.size(); ++k) {
      differ |= std::abs(a[k] - b[k]) > 1e-9 + 1e-6 * std::abs(a[k]);
      moved[visits[k].rank] += b[k] - c[k];
    }
    return differ && std::any_of(moved.begin(), moved.end(), [&](const auto& m) { return std::abs(m.second) > min; });
  } catch (const Error&) {
    return false;
  }
}

std::string transforms_key(const std::vector<Transform>& ts) {
  std::string key;
  for (const Transform& t : ts)
    key += fmt::format("{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{};", to_string(t.kind), t.select.region, t.select.callpath,
                       t.to.region, t.to.callpath, to_string(t.mode), t.across_threads, t.fraction, t.communication,
                       t.platform.latency_factor, t.platform.bandwidth_factor, t.factor);
  return key;
}

// Adds `h`, or, if the same transforms are already proposed, its indicator to that one's `also`.
void add(std::vector<Hypothesis>& list, Hypothesis h) {
  const std::string key = transforms_key(h.transforms);
  for (Hypothesis& other : list)
    if (transforms_key(other.transforms) == key) {
      other.also.push_back(h.indicator);
      return;
    }
  list.push_back(std::move(h));
}

void add_rebalances(std::vector<Hypothesis>& list, const Trace& trace, const Display& names, const Ranked& top,
                    const std::string& indicator, const std::string& why, double min) {
  for (const auto& [cp, value] : top) {
    const Selection s = select_callpath(trace.defs, cp);
    const std::string path = trace.defs.callpath_name(cp);
    Hypothesis h;
    set_subject(h, trace.defs, names, cp);
    h.name = "rebalance-" + file_stem(h.short_subject);
    h.title = fmt::format("rebalance {} (per instance)", h.short_subject);
    h.reason = fmt::format("{} of {} is {:.6g} s: {}", indicator, names.callpaths[cp], value, why);
    h.indicator = {indicator, value};
    h.transforms = {rebalance(s, RebalanceMode::Instance)};
    h.touches = {path};
    add(list, h);
    if (!totals_differ(trace, s, min)) continue;
    h.name += "-total";
    h.title = fmt::format("rebalance {} (in total)", h.short_subject);
    h.transforms = {rebalance(s, RebalanceMode::Total)};
    add(list, h);
  }
}

// Delay costs per (call path, rank): every short- and long-term delay_* metric.
CallpathMatrix delay_costs(const Trace& trace, const DelayCosts& d) {
  CallpathMatrix sum(trace);
  for (int k = 0; k < kDelayCategoryCount; ++k)
    for (const CallpathMatrix* m : {&d.short_term[k], &d.long_term[k]})
      for (std::size_t i = 0; i < m->values.size() && i < sum.values.size(); ++i) sum.values[i] += m->values[i];
  return sum;
}

void add_bounds(std::vector<Hypothesis>& list, const Trace& trace, const Display& names, const TraceAnalysis& a,
                const HypothesisOptions& o, double min) {
  if (!a.pag) return;  // the activity graph left out
  Ranked rows;
  for (const MbmRow& r : a.pag->mbm) {
    const double v = a.pag->pag.seconds(r.mbm_all);
    if (r.callpath != kNone && v > min && user_callpath(trace.defs, r.callpath)) rows.emplace_back(r.callpath, v);
  }
  std::stable_sort(rows.begin(), rows.end(), [](const auto& x, const auto& y) { return x.second > y.second; });
  if (rows.size() > o.top) rows.resize(o.top);
  for (const auto& [cp, value] : rows) {
    Hypothesis h;
    h.role = HypothesisRole::Bound;
    h.transforms.emplace_back();
    h.transforms.back().kind = TransformKind::Zero;
    h.transforms.back().select = select_callpath(trace.defs, cp);
    set_subject(h, trace.defs, names, cp);
    h.name = "zero-" + file_stem(h.short_subject);
    h.title = fmt::format("zero {} (upper bound)", h.short_subject);
    h.reason =
        fmt::format("mbm_all of {} is {:.6g} s: the most the run gains by optimising it", names.callpaths[cp], value);
    h.indicator = {"mbm_all", value};
    h.touches = {trace.defs.callpath_name(cp)};
    add(list, h);
  }
}

Hypothesis platform_change(const std::string& name, const std::string& title, double latency, double bandwidth,
                           double loss) {
  Hypothesis h;
  h.name = name;
  h.title = title;
  h.reason = fmt::format(
      "the run loses {:.6g} s to MPI (POP transfer, T - T_ideal: transfers and MPI calls take no time); a "
      "platform change moves only the network's part of it",
      loss);
  h.indicator = {"T - T_ideal (POP: no MPI time)", loss};
  h.transforms.emplace_back();
  h.transforms.back().kind = TransformKind::Platform;
  h.transforms.back().platform.latency_factor = latency;
  h.transforms.back().platform.bandwidth_factor = bandwidth;
  h.touches = {latency != 1 ? "latency" : "bandwidth"};
  return h;
}

void add_communication(std::vector<Hypothesis>& list, const TraceAnalysis& a, double min) {
  if (!a.pop) return;  // POP left out
  const double loss = a.pop->whole.elapsed - a.pop->whole.ideal;
  if (!(loss > min)) return;
  Hypothesis zero;
  zero.name = "zero-communication";
  zero.title = "zero communication (upper bound)";
  zero.reason = fmt::format(
      "the run loses {:.6g} s to MPI (POP transfer, T - T_ideal: transfers and MPI calls take no time); a "
      "platform change moves only the network's part of it",
      loss);
  zero.indicator = {"T - T_ideal (POP: no MPI time)", loss};
  zero.role = HypothesisRole::Bound;
  zero.transforms.emplace_back();
  zero.transforms.back().kind = TransformKind::Zero;
  zero.transforms.back().communication = true;
  zero.touches = {"communication", "latency", "bandwidth"};
  add(list, zero);
  add(list, platform_change("bandwidth-x2", "bandwidth x2", 1, 2, loss));
  add(list, platform_change("latency-half", "latency / 2", 0.5, 1, loss));
}

// One partition's heaviest exclusive user call path and its work.
struct PartitionLoad {
  std::uint32_t partition = 0;
  CallpathId callpath = kNone;
  double work = 0;  // non-waiting seconds of that call path over the partition's ranks
  double ranks = 0;
  double load() const { return ranks > 0 ? work / ranks : 0; }
};

std::vector<PartitionLoad> partition_loads(const Trace& trace, const WaitPathAnalysis& w) {
  const Partitions& parts = w.partitions;
  const CallpathMatrix& L = w.imbalance.non_waiting;
  std::vector<PartitionLoad> out;
  for (std::uint32_t p = 0; p < parts.names.size(); ++p) {
    PartitionLoad best{p};
    for (Rank r = 0; r < trace.rank_count(); ++r) best.ranks += parts.of_rank[r] == p;
    for (std::uint32_t slot = 1; slot < L.slots; ++slot) {
      const CallpathId cp = callpath_of_slot(slot);
      if (!user_callpath(trace.defs, cp)) continue;
      double mine = 0, others = 0;
      for (Rank r = 0; r < trace.rank_count(); ++r) (parts.of_rank[r] == p ? mine : others) += L.at(slot, r);
      if (others == 0 && mine > best.work) best = {p, cp, mine, best.ranks};
    }
    if (best.callpath != kNone) out.push_back(best);
  }
  return out;
}

// Moving f of the heaviest partition's work A to the lightest B: the loads per rank meet where
// (1 − f)·W_A/P_A = (W_B + f·W_A)/P_B, f* = (W_A/P_A − W_B/P_B) / (W_A·(1/P_A + 1/P_B)); the gain
// the balance predicts at f is W_A/P_A − max((1 − f)·W_A/P_A, (W_B + f·W_A)/P_B).
void add_moves(std::vector<Hypothesis>& list, const Trace& trace, const Display& names, const TraceAnalysis& a,
               const HypothesisOptions& o, double min) {
  std::vector<PartitionLoad> loads = partition_loads(trace, a.wait_paths);
  if (loads.size() < 2) return;
  std::sort(loads.begin(), loads.end(), [](const auto& x, const auto& y) { return x.load() > y.load(); });
  const PartitionLoad& A = loads.front();
  const PartitionLoad& B = loads.back();
  const double best = (A.load() - B.load()) / (A.work * (1 / A.ranks + 1 / B.ranks));
  const auto predicted = [&](double f) {
    return A.load() - std::max((1 - f) * A.load(), (B.work + f * A.work) / B.ranks);
  };
  if (!(predicted(best) > min)) return;
  const Selection from = select_callpath(trace.defs, A.callpath), to = select_callpath(trace.defs, B.callpath);
  const std::string from_name = names.of(trace.defs, A.callpath), to_name = names.of(trace.defs, B.callpath);
  for (int k = -o.move_points; k <= o.move_points; ++k) {
    const double f = best + k * o.move_step;
    if (f <= 0 || f > 1) continue;
    Hypothesis h;
    set_subject(h, trace.defs, names, A.callpath);
    h.name = fmt::format("move-{}-to-{}-{:.3f}", file_stem(from_name), file_stem(to_name), f);
    h.title = fmt::format("move {:.4g} of {} to {}", f, from_name, to_name);
    h.reason = fmt::format(
        "partition {} ({} ranks) has {:.6g} s of {} per rank, partition {} ({} ranks) {:.6g} s of {}; "
        "they balance at fraction {:.4f} (searched in steps of {})",
        a.wait_paths.partitions.names[A.partition], A.ranks, A.load(), from_name,
        a.wait_paths.partitions.names[B.partition], B.ranks, B.load(), to_name, best, o.move_step);
    h.indicator = {"partition balance (W_A/P_A - max of the loads after the move)", predicted(f)};
    h.transforms.emplace_back();
    h.transforms.back().kind = TransformKind::Move;
    h.transforms.back().select = from;
    h.transforms.back().to = to;
    h.transforms.back().fraction = f;
    h.touches = {trace.defs.callpath_name(A.callpath), trace.defs.callpath_name(B.callpath)};
    add(list, h);
  }
}

bool hybrid(const Trace& trace) {
  for (const Location& l : trace.defs.ranks)
    for (const ThreadLocation& t : l.others)
      if (t.kind == LocationKind::CpuThread) return true;
  return false;
}

bool parallel_callpath(const Definitions& defs, CallpathId cp) {
  return is_parallel_region(defs.regions[defs.callpaths[cp].region]);
}

// Per parallel region: the worst rank's Σ over its visits of (slowest − mean thread work).
void add_thread_balance(std::vector<Hypothesis>& list, const Trace& trace, const Display& names, const TraceAnalysis& a,
                        const HypothesisOptions& o, double min) {
  Ranked rows;
  for (const auto& [cp, time] : top_callpaths(trace.defs, a.wait_paths.profile.time, 4 * o.top, 0, parallel_callpath)) {
    Selection s;
    s.callpath = trace.defs.callpath_name(cp);
    try {
      const std::vector<Visit> visits = select_visits(trace, s);
      const std::vector<TeamWork> teams = team_work(trace, visits);
      std::map<Rank, double> excess;
      for (std::size_t k = 0; k < visits.size(); ++k)
        if (teams[k].threads > 1) excess[visits[k].rank] += teams[k].max - teams[k].mean;
      double worst = 0;
      for (const auto& [r, v] : excess) worst = std::max(worst, v);
      if (worst > min) rows.emplace_back(cp, worst);
    } catch (const Error&) {}
  }
  std::stable_sort(rows.begin(), rows.end(), [](const auto& x, const auto& y) { return x.second > y.second; });
  if (rows.size() > o.top) rows.resize(o.top);
  for (const auto& [cp, value] : rows) {
    Hypothesis h;
    const Selection s = select_callpath(trace.defs, cp);
    set_subject(h, trace.defs, names, cp);
    h.name = "balance-threads-" + file_stem(h.short_subject);
    h.title = fmt::format("rebalance {} across threads", h.short_subject);
    h.reason = fmt::format("the slowest thread of {}'s teams is {:.6g} s above the team mean (worst rank, all visits)",
                           h.short_subject, value);
    h.indicator = {"team imbalance (max - mean thread work, worst rank)", value};
    h.transforms = {rebalance(s, RebalanceMode::Instance, true)};
    h.touches = {trace.defs.callpath_name(cp)};
    add(list, h);
  }
}

// User call paths entered more than once on every rank (the recognisable iterations), and call
// paths below the roots at all.
std::pair<std::size_t, std::size_t> repeated_callpaths(const Trace& trace, const Profile& profile) {
  std::size_t repeated = 0, below = 0;
  for (std::uint32_t slot = 1; slot < profile.visits.slots; ++slot) {
    const CallpathId cp = callpath_of_slot(slot);
    if (!user_callpath(trace.defs, cp) || trace.defs.callpaths[cp].parent == kNone) continue;
    ++below;
    bool every = true;
    for (Rank r = 0; r < trace.rank_count() && every; ++r) every = profile.visits.at(slot, r) >= 2;
    repeated += every;
  }
  return {repeated, below};
}

// Fixing the partition: every rank's computation to the mean, call path by call path (and so per
// iteration where iterations have a region), when POP load balance says the ranks' useful time differs.
void add_decomposition(std::vector<Hypothesis>& list, std::vector<std::string>& skipped, const Trace& trace,
                       const TraceAnalysis& a, const HypothesisOptions& o, double min) {
  if (!a.pop) {
    skipped.push_back("decomposition balance: no POP factors (POP left out)");
    return;
  }
  const PopFactors& pop = a.pop->whole;
  const double predicted = pop.max_useful - pop.mean_useful;
  if (!(pop.load_balance < o.balance_below) || !(predicted > min)) {
    skipped.push_back(
        fmt::format("decomposition balance: POP load balance {:.3f} is not below {} (max - mean useful "
                    "time {:.3g} s)",
                    pop.load_balance, o.balance_below, predicted));
    return;
  }
  const auto [repeated, below] = repeated_callpaths(trace, a.wait_paths.profile);
  if (repeated == 0)
    skipped.push_back(below > 0
                          ? "decomposition balance per iteration: no function is entered repeatedly on every rank "
                            "(balanced phase by phase instead)"
                          : "decomposition balance per iteration and per phase: no function below the program's "
                            "root (balanced in total instead)");
  Hypothesis h;
  h.name = "balance-decomposition";
  h.title = "balance the decomposition (every call path to the ranks' mean)";
  h.reason = fmt::format(
      "POP load balance is {:.3f}: the busiest rank computes {:.6g} s, the mean rank {:.6g} s; a balanced partition "
      "gives every rank the mean, {}",
      pop.load_balance, pop.max_useful, pop.mean_useful,
      repeated > 0
          ? fmt::format("per iteration ({} call paths entered repeatedly on every rank) and phase by phase", repeated)
      : below > 0 ? "phase by phase (no iterations recognisable: no function is entered repeatedly on every rank)"
                  : "in total (no iterations recognisable: no function below the program's root)");
  h.indicator = {"max - mean useful time (POP load balance)", predicted};
  h.transforms = {rebalance(Selection{}, RebalanceMode::Callpaths)};
  for (CallpathId cp = 0; cp < trace.defs.callpaths.size(); ++cp)
    if (trace.defs.callpaths[cp].parent == kNone && user_callpath(trace.defs, cp))
      h.touches.push_back(trace.defs.callpath_name(cp));
  add(list, h);
}

bool nested(const std::string& a, const std::string& b) {
  return a == b || a == "*" || b == "*" ||
         (b.size() > a.size() && b.compare(0, a.size(), a) == 0 && b[a.size()] == '/');
}

}  // namespace

std::string to_string(HypothesisRole role) {
  switch (role) {
    case HypothesisRole::Ranked:
      return "ranked";
    case HypothesisRole::Bound:
      return "bound";
    case HypothesisRole::Combined:
      return "combined";
  }
  return "?";
}

TraceAnalysisOptions hypothesis_analysis_options() {
  TraceAnalysisOptions o;
  o.parts.pag = true;
  o.parts.pop = true;
  o.parts.wait_estimate = false;
  return o;
}

Hypotheses generate_hypotheses(const Trace& trace, const TraceAnalysis& a, const HypothesisOptions& o) {
  Hypotheses out;
  const double min = o.min_share * trace.end_time();
  const WaitPathAnalysis& w = a.wait_paths;
  const Display names(trace.defs);
  const bool any_user = !top_callpaths(trace.defs, w.profile.time, 1, min, user_callpath).empty();
  if (!any_user)
    out.skipped.push_back(fmt::format(
        "balance, move and zero: the trace has no computation region (no user function above {:.3g} s)", min));
  if (trace.rank_count() < 2) {
    out.skipped.push_back(fmt::format(
        "decomposition balance, rebalancing, moves and communication: the trace has {} rank (nothing to balance, "
        "move or communicate)",
        trace.rank_count()));
  } else if (any_user) {
    add_decomposition(out.list, out.skipped, trace, a, o, min);
    add_rebalances(out.list, trace, names,
                   top_callpaths(trace.defs, w.imbalance.critical_path_imbalance, o.top, min, user_callpath),
                   "critical_path_imbalance", "the critical path spends that much more in it than the average rank",
                   min);
    add_rebalances(out.list, trace, names,
                   top_callpaths(trace.defs, delay_costs(trace, w.delays), o.top, min, user_callpath),
                   "delay_* (short- + long-term)", "its delays caused that much waiting elsewhere", min);
    add_moves(out.list, trace, names, a, o, min);
  }
  if (!hybrid(trace))
    out.skipped.push_back("thread balance: no OpenMP threads in the trace");
  else
    add_thread_balance(out.list, trace, names, a, o, min);
  if (trace.rank_count() >= 2) add_communication(out.list, a, min);
  if (any_user) add_bounds(out.list, trace, names, a, o, min);
  if (out.list.empty())
    out.none_reason = fmt::format(
        "no call path has critical-path imbalance, delay costs or mbm_all above {:.3g} s "
        "({:.2g} % of the run) and the run loses no time to communication",
        min, 100 * o.min_share);
  return out;
}

bool compatible(const Hypothesis& a, const Hypothesis& b) {
  if (a.role != HypothesisRole::Ranked || b.role != HypothesisRole::Ranked) return false;
  if (a.touches.empty() || b.touches.empty()) return false;
  for (const std::string& x : a.touches)
    for (const std::string& y : b.touches)
      if (nested(x, y) || nested(y, x)) return false;
  return true;
}

Hypothesis combine(const std::vector<const Hypothesis*>& parts, const std::vector<double>& gains) {
  Hypothesis h;
  h.role = HypothesisRole::Combined;
  h.name = "combined";
  double sum = 0;
  for (std::size_t k = 0; k < parts.size(); ++k) {
    const Hypothesis& p = *parts[k];
    h.name += "-" + p.name.substr(0, 24);
    h.title += (k ? " + " : "") + p.title;
    h.parts.push_back(p.title);
    h.transforms.insert(h.transforms.end(), p.transforms.begin(), p.transforms.end());
    h.touches.insert(h.touches.end(), p.touches.begin(), p.touches.end());
    sum += k < gains.size() ? gains[k] : 0;
  }
  h.name = file_stem(h.name);
  h.title = fmt::format("{} changes together: {}", parts.size(), h.title);
  h.reason =
      "the positive hypotheses that change different things, in order of gain, while each adds >= 1 % of the run";
  h.indicator = {fmt::format("sum of the {} simulated gains", parts.size()), sum};
  return h;
}

Scenario hypothesis_scenario(const Scenario& base, const Hypothesis& h) {
  Scenario s = base;
  s.name = h.name;
  s.description = h.title;
  s.transforms = h.transforms;
  s.sweep.clear();
  s.output.clear();
  return s;
}

}  // namespace wisp
