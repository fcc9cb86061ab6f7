// One scenario point: platform, replay options, transforms, identity and scenario replays.
// See point_replays.hpp.
#include "wisp/scenario/point_replays.hpp"

#include "wisp/replay/retime.hpp"

#include <cmath>

#include <fmt/format.h>

#include <spdlog/spdlog.h>
#include <algorithm>

#include <thread>

#include "wisp/error.hpp"
#include "wisp/replay/calibrate.hpp"
#include "wisp/replay/collective_algorithm.hpp"
#include "wisp/replay/trust.hpp"
#include "wisp/scenario/network_scaling.hpp"

namespace wisp {

namespace {

std::string factors(const Platform& p) {
  if (p.speed_factor == 1 && p.latency_factor == 1 && p.bandwidth_factor == 1) return "";
  return fmt::format("; speed x{}, latency x{}, bandwidth x{}", p.speed_factor, p.latency_factor, p.bandwidth_factor);
}

// The place of an error in a scenario file ("FILE:LINE:COL: platform: "); none for a spec made
// from a command line (`wisp simulate`), whose errors name their file themselves.
std::string in(const Where& where, const char* section) {
  return where.file.empty() ? std::string() : where.str() + ": " + section + ": ";
}

std::string absolute_network_text(const PlatformChange& c) {
  std::vector<std::string> parts;
  if (c.latency) parts.push_back(fmt::format("latency {:g} s", *c.latency));
  if (c.bandwidth) parts.push_back(fmt::format("bandwidth {:g} bytes/s", *c.bandwidth));
  if (c.overhead) parts.push_back(fmt::format("overhead {:g} s per call", *c.overhead));
  return fmt::format("{}", fmt::join(parts, ", "));
}

void apply(Platform& p, const PlatformChange& c) {
  p.speed_factor *= c.speed_factor;
  p.latency_factor *= c.latency_factor;
  p.bandwidth_factor *= c.bandwidth_factor;
}

// The identity side of the interval's variability. The anchored identity reproduces the measured
// trace, which every process of a sweep has (an identity sent by another rank of an MPI job has no
// trace): the measured one, so that the outputs do not depend on where a point ran.
// Records of other locations (threads, streams, metrics, one-sided records) that follow their
// master's events when a trace is retimed: a simulated trace must be built on the measured one.
bool has_followers(const Trace& t) {
  return std::any_of(t.ranks.begin(), t.ranks.end(), [](const RankTrace& r) {
    return !r.others.empty() || !r.thread_records.empty() || !r.metrics.empty() || !r.other_metrics.empty() ||
           !r.rma_records.empty() || !r.attributes.empty();
  });
}

const Trace& identity_trace(const IdentityRun& identity, const Trace& measured) {
  return identity.options.anchor || identity.replay.trace.ranks.empty() ? measured : identity.replay.trace;
}

}  // namespace

Platform with_network(Platform p, const PlatformChange& c, std::uint32_t ranks) {
  if (!c.absolute()) return p;
  const bool crossbar = p.file.empty() && p.topology == Topology::Crossbar;
  if (!crossbar && !(c.latency && c.bandwidth))
    throw Error(
        "a platform given as a file or another topology than a crossbar takes the network in absolute numbers "
        "only with both latency and bandwidth");
  if (!crossbar) {
    Platform g =
        contention_free_crossbar(ranks, *c.latency, *c.bandwidth, p.mpi.default_overhead, p.mpi.eager_threshold);
    g.contention = true;
    g.mpi = p.mpi;
    g.speed_factor = p.speed_factor, g.latency_factor = p.latency_factor, g.bandwidth_factor = p.bandwidth_factor;
    p = std::move(g);
  }
  if (c.latency) {
    p.latency = *c.latency;
    for (HostLink& l : p.host_links) l.up_latency = l.down_latency = *c.latency / 2;
  }
  if (c.bandwidth) {
    p.bandwidth = *c.bandwidth;
    for (HostLink& l : p.host_links) l.up_bandwidth = l.down_bandwidth = *c.bandwidth;
  }
  if (c.overhead) {
    p.mpi.default_overhead = *c.overhead;
    p.mpi.overheads.clear();
    p.mpi.send_overhead.reset(), p.mpi.receive_overhead.reset();
  }
  p.size_factors.clear();
  return p;
}

Platform infinitely_fast_network(Platform p) {
  p.intra_calibration.reset();  // inside hosts too
  p.mpi.intra_overhead.reset();
  p.latency_factor = 0;
  p.bandwidth_factor = 1e9;  // 1e9 times any link: a 10 GB/s link moves 1e19 bytes/s
  p.mpi.default_overhead = 0;
  p.mpi.overheads.clear();
  p.mpi.send_overhead.reset(), p.mpi.receive_overhead.reset();
  p.mpi.typical_excess.reset(), p.mpi.eager_copy.reset();
  p.size_factors.clear();
  return p;
}

Platform minima_platform(Platform p) {
  p.mpi.call_costs.clear();
  if (p.intra_calibration && !p.intra_calibration->mpi.call_costs.empty()) {
    Platform inside = *p.intra_calibration;
    inside.mpi.call_costs.clear();
    p.intra_calibration = std::make_shared<const Platform>(std::move(inside));
  }
  return p;
}

ReplayOptions model_only(ReplayOptions o) {
  o.anchor = false;
  o.residuals.reset();
  o.progress_interval = 0;
  return o;
}

namespace {

// The anchored identity of the fixed-costs hypothesis, when the point's identity is model-only.
ReplayOptions anchored_options(const ReplayOptions& identity) {
  ReplayOptions a = model_only(identity);
  a.anchor = true;
  return a;
}

// The scenario of the fixed-costs hypothesis: every residual as fixed cost of its call, no partner waits.
ReplayOptions fixed_costs_options(const ReplayOptions& scenario, const CallResiduals& anchored) {
  ReplayOptions f = model_only(scenario);
  f.residuals = std::make_shared<const CallResiduals>(fixed_residuals(anchored));
  return f;
}

// A platform with where a replay with `options` puts the ranks, when a calibration prices the network
// inside its hosts (network_scaling.hpp).
PlacedPlatform placed(const Trace& trace, const Platform& p, const ReplayOptions& options) {
  return PlacedPlatform(p, p.intra_calibration ? planned_hosts(trace, p, options) : std::vector<std::size_t>{});
}

// Whether the scenario moves the network: a platform change, or a placement change on a platform with
// a calibration inside its hosts.
bool moves_network(const Transformed& t, const Platform& identity, const Platform& scenario) {
  return t.platform.changes() || (t.placement && (identity.intra_calibration || scenario.intra_calibration));
}

// The residuals a replay on `target` keeps of the identity's (on `source`): the typical network
// excess moved (network_scaling.hpp); the same residuals when there is none to move.
std::shared_ptr<const CallResiduals> with_typical_network(const Trace& trace,
                                                          std::shared_ptr<const CallResiduals> residuals,
                                                          const PlacedPlatform& source, const PlacedPlatform& target) {
  if (!residuals) return residuals;
  auto moved = residuals_with_typical_network(trace, *residuals, source, target);
  return moved ? std::make_shared<const CallResiduals>(std::move(*moved)) : residuals;
}

// The scenario of hypothesis (c): a platform change with the identity's residuals scaled with the
// network (network_scaling.hpp); nothing without residuals, a platform change, or networks in numbers.
// A network without numbers (a SimGrid file other than a calibrated crossbar) adds a note saying so.
std::optional<ReplayOptions> network_scaled_options(const Trace& measured, const Transformed& t,
                                                    const IdentityRun& identity, const Platform& scenario_platform,
                                                    const ReplayOptions& scenario_options,
                                                    std::vector<std::string>& notes) {
  if (!moves_network(t, identity.platform.platform, scenario_platform) || !identity.replay.residuals ||
      scenario_options.zero_communication)
    return std::nullopt;
  auto scaled = residuals_scaled_with_network(measured, *identity.replay.residuals,
                                              placed(measured, identity.platform.platform, identity.options),
                                              placed(measured, scenario_platform, scenario_options));
  if (!scaled) {
    notes.push_back(
        "no reading of the residuals scaled with the network: a platform file other than a wisp calibrate crossbar "
        "has no latency and bandwidth in numbers");
    return std::nullopt;
  }
  ReplayOptions o = model_only(scenario_options);
  o.residuals = std::make_shared<const CallResiduals>(std::move(*scaled));
  return o;
}

// The interval from the hypotheses' gains, the variability of the two traces and the failed replays' notes.
GainInterval interval_of(double point, const CostHypotheses& hypotheses, const SyncIntervals& identity,
                         const Trace& scenario, const std::vector<std::string>& notes) {
  GainInterval g = gain_interval(point, hypotheses, gain_variability(identity, sync_intervals(scenario)));
  for (const std::string& n : notes) g.note += (g.note.empty() ? "" : "; ") + n;
  return g;
}

}  // namespace

ResolvedPlatform resolve_platform(const PlatformSpec& spec, const Trace& trace, bool call_costs) {
  ResolvedPlatform r;
  try {
    switch (spec.kind) {
      case PlatformSpec::Kind::Calibrated: {
        Calibration c = calibrate(trace);
        if (call_costs) calibrate_call_costs(trace, c);
        r.platform = c.platform;
        r.notes = c.notes;
        r.algorithms = c.algorithms;
        r.calibration = c;
        r.description = fmt::format(
                            "calibrated from the trace: latency {:.3f} us, bandwidth {:.3f} GB/s, "
                            "call overhead {:.3f} us, eager threshold {} bytes",
                            c.latency * 1e6, c.bandwidth / 1e9, c.base_overhead * 1e6, c.eager_threshold) +
                        (call_costs ? ", typical call costs per rank, function and size class" : "");
        break;
      }
      case PlatformSpec::Kind::File: {
        r.platform = load_platform(spec.file);
        r.description = "file " + spec.file.string();
        if (spec.hosts || spec.cores != 1 || !spec.intra_file.empty()) {
          as_nodes(r.platform, spec.hosts, spec.cores);
          r.description += fmt::format(" as {} nodes of {} cores, node h with the links and costs of its host h mod H",
                                       r.platform.hosts, r.platform.cores);
        } else if (const std::string fit = fit_to_ranks(r.platform, trace.rank_count()); !fit.empty()) {
          r.description += "; " + fit;
        }
        break;
      }
      case PlatformSpec::Kind::Generated: {
        Platform& p = r.platform;
        p.topology = topology_from_name(spec.topology);
        p.topology_parameters = spec.parameters;
        p.hosts = spec.hosts;
        p.cores = spec.cores;
        p.intra = spec.intra;
        p.mpi.intra_overhead = spec.intra_overhead;
        p.speed = spec.speed;
        p.latency = spec.latency;
        p.bandwidth = spec.bandwidth;
        p.contention = spec.contention;
        p.mpi.default_overhead = spec.overhead;
        p.mpi.eager_threshold = spec.eager_threshold;
        r.description = fmt::format(
            "generated {}{}{}: {} hosts, speed {:.4g} flop/s, latency {:.3g} s, "
            "bandwidth {:.4g} bytes/s, overhead {:.3g} s, eager threshold {} bytes",
            spec.contention ? "" : "contention-free ", spec.topology,
            spec.parameters.empty() ? "" : " " + spec.parameters, spec.hosts == 0 ? trace.rank_count() : spec.hosts,
            spec.speed, spec.latency, spec.bandwidth, spec.overhead, spec.eager_threshold);
        if (spec.cores != 1) r.description += fmt::format(", {} cores per host", spec.cores);
        if (spec.intra)
          r.description += fmt::format(
              ", inside a host latency {:.3g} s, bandwidth {:.4g} bytes/s{}", spec.intra->latency,
              spec.intra->bandwidth,
              spec.intra_overhead ? fmt::format(", overhead {:.3g} s", *spec.intra_overhead) : std::string());
        break;
      }
    }
    if (!spec.intra_file.empty()) {
      with_intra_calibration(r.platform, load_platform(spec.intra_file));
      r.description += fmt::format("; inside a node the calibration {} (latency {:.3g} s, bandwidth {:.4g} bytes/s)",
                                   spec.intra_file.string(), r.platform.intra->latency, r.platform.intra->bandwidth);
    }
  } catch (const ReplayDeadlock&) {
    throw;
  } catch (const Error& e) {
    throw Error(in(spec.where, "platform") + e.what());
  }
  apply(r.platform, spec.change);
  r.description += factors(r.platform);
  return r;
}

ReplayOptions replay_options(const ReplaySpec& spec, const CollectiveAlgorithms& algorithms) {
  ReplayOptions o;
  o.algorithms = algorithms;
  o.anchor = spec.costs == "anchored";
  o.eager_threshold = spec.eager_threshold;
  o.placement = spec.placement;
  if (!spec.collectives.empty()) {
    std::string text;  // the default first, so that named collectives win
    for (const auto& [op, algorithm] : spec.collectives)
      if (op == "all" || op == "default") text += (text.empty() ? "" : ",") + algorithm;
    for (const auto& [op, algorithm] : spec.collectives)
      if (op != "all" && op != "default") text += (text.empty() ? "" : ",") + op + "=" + algorithm;
    try {
      o.algorithms = parse_collective_algorithms(text, algorithms);
    } catch (const Error& e) {
      throw Error(in(spec.where, "replay collectives") + e.what());
    }
  }
  if (!spec.hostfile.empty()) {
    try {
      o.hosts = read_hostfile(spec.hostfile);
    } catch (const Error& e) {
      throw Error(in(spec.where, "replay") + e.what());
    }
  }
  return o;
}

IdentityRun identity_setup(const Scenario& scenario, const Trace& measured) {
  IdentityRun id;
  id.platform = resolve_platform(scenario.platform, measured, scenario.replay.costs == "model");
  id.options = replay_options(scenario.replay, id.platform.algorithms);
  return id;
}

namespace {

// The identity run up to its replay, said in the log.
void log_identity_start(const Scenario& scenario, const Trace& measured) {
  spdlog::info("{}: replaying the unmodified trace ({} ranks, {} events)", scenario.name, measured.rank_count(),
               measured.event_count());
}

IdentityRun prepare_identity(const Scenario& scenario, const Trace& measured) {
  IdentityRun id = identity_setup(scenario, measured);
  log_identity_start(scenario, measured);
  return id;
}

// The identity run after its replay: the residual summary and the warnings.
void conclude_identity(const Scenario& scenario, const Trace& measured, IdentityRun& id) {
  if (id.replay.residuals) {
    id.residuals = summarize(measured, *id.replay.residuals);
    if (changes_platform(scenario))  // only a platform change reports it: a pass over the calls
      id.residuals->typical_excess =
          typical_excess_seconds(measured, *id.replay.residuals, placed(measured, id.platform.platform, id.options));
  }
  for (const std::string& note : id.platform.notes) id.warnings.push_back("calibration: " + note);
  if (changes_platform(scenario))
    if (std::string w = one_size_source_warning(id.platform.platform); !w.empty()) id.warnings.push_back(std::move(w));
  const double error = identity_error(measured.end_time(), id.replay.runtime);
  if (std::string w = identity_warning(error, id.residuals ? &*id.residuals : nullptr); !w.empty())
    id.warnings.push_back(std::move(w));
  if (std::string w = hybrid_warning(measured); !w.empty()) id.warnings.push_back(std::move(w));
  if (std::string w = placement_warning(id.replay.statistics, "identity"); !w.empty())
    id.warnings.push_back(std::move(w));
  for (const std::string& w : id.warnings) spdlog::warn("identity replay: {}", w);  // shared by every point
}

// The scenario replay's platform and options (from the identity's platform and options, and its
// residuals: with trace-anchored costs the scenario replay needs the identity replayed first).
struct ScenarioSetup {
  Platform platform;
  ReplayOptions options;
  std::string description;  // of the platform, if it differs from the identity's
};

// The scenario's placement, in place of the identity's.
void place(ReplayOptions& o, const Transformed::PlacementChange& change, const Scenario& scenario) {
  o.placement = change.placement;
  o.hosts.clear();
  if (change.hostfile.empty()) return;
  try {
    o.hosts = read_hostfile(change.hostfile);
  } catch (const Error& e) {
    throw Error(scenario.file.string() + ": placement transform: " + e.what());
  }
}

ScenarioSetup scenario_setup(const Scenario& scenario, const Transformed& t, const IdentityRun& identity) {
  ScenarioSetup s;
  s.platform = identity.platform.platform;
  if (!t.platform.file.empty()) {
    s.platform = load_platform(t.platform.file);
    s.description = "file " + t.platform.file.string();
    if (const std::string fit = fit_to_ranks(s.platform, t.trace.rank_count()); !fit.empty())
      s.description += "; " + fit;
  }
  if (t.platform.absolute()) {
    try {
      s.platform = with_network(std::move(s.platform), t.platform, t.trace.rank_count());
    } catch (const Error& e) {
      throw Error(scenario.file.string() + ": platform transform: " + e.what());
    }
    s.description =
        (s.description.empty() ? "" : s.description + "; ") + "network " + absolute_network_text(t.platform);
  }
  apply(s.platform, t.platform);
  if (t.platform.changes())
    s.description = (s.description.empty() ? identity.platform.description : s.description) + factors(s.platform);
  s.options = identity.options;
  if (t.placement) place(s.options, *t.placement, scenario);
  s.options.zero_communication = t.zero_communication;
  s.options.anchor = false;
  s.options.residuals = identity.replay.residuals;
  if (moves_network(t, identity.platform.platform, s.platform) && !t.zero_communication)
    s.options.residuals = with_typical_network(t.trace, s.options.residuals,
                                               placed(t.trace, identity.platform.platform, identity.options),
                                               placed(t.trace, s.platform, s.options));
  spdlog::info("{}: replaying the scenario", scenario.name);
  return s;
}

// `identity_replay` is the identity's replay result (a copy when sweep points share it, moved
// from a single point's run: a trace is the largest thing a point holds).
PointResult point_result(const Scenario& scenario, double measured_end, const Transformed& t,
                         const IdentityRun& identity, ReplayResult identity_replay, std::string scenario_platform,
                         ReplayResult replayed) {
  PointResult r;
  r.name = scenario.name;
  r.measured = measured_end;
  r.platform = identity.platform.description;
  r.scenario_platform = std::move(scenario_platform);
  r.effects = t.effects;
  r.identity_replay = std::move(identity_replay);
  r.costs = identity.options.anchor ? "trace-anchored" : "model only";
  r.residuals = identity.residuals;
  r.warnings = identity.warnings;
  r.scenario_replay = std::move(replayed);
  if (!r.scenario_platform.empty())  // a platform of its own: the identity's warning does not cover it
    if (std::string w = placement_warning(r.scenario_replay.statistics, "scenario"); !w.empty())
      r.warnings.push_back(std::move(w));
  r.identity = r.identity_replay.runtime;  // its trace's end (an identity sent by another rank has no trace)
  r.scenario = r.scenario_replay.trace.end_time();
  return r;
}

}  // namespace

IdentityRun run_identity(const Scenario& scenario, const Trace& measured) {
  IdentityRun id = prepare_identity(scenario, measured);
  std::optional<StartedReplay> minima;  // in a child process, beside the identity replay
  if (scenario.replay.interval) {
    try {
      minima =
          start_replay(measured, minima_platform(id.platform.platform), model_only(id.options), ReplayAnswer::Runtime);
    } catch (const Error&) {  // each point replays it again and says why its interval lacks it
    }
  }
  try {
    id.replay = replay(measured, id.platform.platform, id.options);
  } catch (...) {
    if (minima) abandon_replay(*minima);
    throw;
  }
  if (minima) {
    try {
      id.minima_runtime = finish_replay_runtime(*minima);
    } catch (const Error&) {}
  }
  conclude_identity(scenario, measured, id);
  return id;
}

// Points with and without the gain interval share one identity (the interval's own identity
// replay is made once, when the first point that needs it comes).
std::string identity_key(const Scenario& s) {
  YAML::Node replay = YAML::Clone(s.source["replay"]);
  if (replay.IsMap()) replay.remove("interval");
  return YAML::Dump(s.source["platform"]) + "\n--\n" + YAML::Dump(replay);
}

namespace {

// A hypothesis of the interval replayed for its runtime (and residuals) only.
ReplayResult hypothesis(const Trace& trace, const Platform& platform, const ReplayOptions& options) {
  return finish_replay(start_replay(trace, platform, options, ReplayAnswer::Runtime));
}

// The interval of a sweep point: its hypotheses replayed one after the other (the sweep's points
// already run side by side).
GainInterval point_interval(const Trace& measured, const Transformed& t, const IdentityRun& identity,
                            const ScenarioSetup& setup, double scenario_runtime, const GainVariability& variability) {
  const double point = identity.replay.runtime - scenario_runtime;
  std::vector<std::string> notes;
  std::optional<double> minima, fixed;
  try {
    const double minima_identity =
        std::isnan(identity.minima_runtime)
            ? hypothesis(measured, minima_platform(identity.platform.platform), model_only(identity.options)).runtime
            : identity.minima_runtime;
    minima = minima_identity - hypothesis(t.trace, minima_platform(setup.platform), model_only(setup.options)).runtime;
  } catch (const Error& e) {
    notes.push_back(std::string("minima model: ") + e.what());
  }
  try {
    std::shared_ptr<const CallResiduals> residuals = identity.replay.residuals;
    double anchored = identity.replay.runtime;
    if (!residuals) {
      const ReplayResult r = hypothesis(measured, identity.platform.platform, anchored_options(identity.options));
      residuals = r.residuals;
      anchored = r.runtime;
    }
    if (setup.options.zero_communication) {
      fixed = point;
    } else if (residuals) {
      fixed = anchored - hypothesis(t.trace, setup.platform, fixed_costs_options(setup.options, *residuals)).runtime;
    }
  } catch (const Error& e) {
    notes.push_back(std::string("fixed costs: ") + e.what());
  }
  std::optional<double> scaled;
  try {
    if (auto o = network_scaled_options(measured, t, identity, setup.platform, setup.options, notes))
      scaled = identity.replay.runtime - hypothesis(t.trace, setup.platform, *o).runtime;
  } catch (const Error& e) {
    notes.push_back(std::string("residuals scaled with the network: ") + e.what());
  }
  GainInterval g = gain_interval(point, CostHypotheses{fixed, minima, scaled}, variability);
  for (const std::string& n : notes) g.note += (g.note.empty() ? "" : "; ") + n;
  return g;
}

}  // namespace

GainVariability point_variability(const IdentityRun& identity, const Trace& measured, const Trace& scenario_trace) {
  return gain_variability(identity_trace(identity, measured), scenario_trace);
}

GainInterval scenario_interval(const Scenario& scenario, const Trace& measured, const Transformed& t,
                               const IdentityRun& identity, double scenario_runtime,
                               const GainVariability& variability) {
  GainInterval g =
      point_interval(measured, t, identity, scenario_setup(scenario, t, identity), scenario_runtime, variability);
  g.point = identity.replay.runtime - scenario_runtime;
  return g;
}

PointResult run_scenario(const Scenario& scenario, const Trace& measured, const Transformed& t,
                         const IdentityRun& identity) {
  const ScenarioSetup setup = scenario_setup(scenario, t, identity);
  ReplayResult replayed = replay(t.trace, setup.platform, setup.options);
  GainInterval interval;
  if (scenario.replay.interval)
    interval = point_interval(measured, t, identity, setup, replayed.runtime,
                              point_variability(identity, measured, replayed.trace));
  else
    interval.note = "no gain interval: turned off (--no-interval)";
  interval.point = identity.replay.runtime - replayed.runtime;
  PointResult r =
      point_result(scenario, measured.end_time(), t, identity, identity.replay, setup.description, std::move(replayed));
  r.interval = std::move(interval);
  if (!scenario.exports.empty())
    r.scenario_input =
        std::make_shared<const PointResult::Input>(PointResult::Input{t.trace, setup.platform, setup.options});
  return r;
}

PointResult run_point(const Scenario& scenario, const Trace& measured) { return PointRun(scenario, measured).finish(); }

// Transforms are applied (and so checked) before the possibly long identity replay. With
// model-only costs the scenario replay needs nothing from the identity replay: both run at once,
// each in its own child process. Otherwise the transformed trace is freed before the identity's
// replays fork (they would keep its pages) and made again when the scenario's replays start
// (identity()): it is not alive beside the measured trace's analyses.
PointRun::PointRun(const Scenario& scenario, const Trace& measured, Trace* owned)
    : scenario_(scenario),
      measured_(measured),
      owned_(owned),
      measured_end_(measured.end_time()),
      identity_(identity_setup(scenario, measured)),
      transformed_(apply_transforms(measured, scenario.transforms)) {
  log_identity_start(scenario, measured);
  const bool together = scenario.replay.costs == "model" && std::thread::hardware_concurrency() > 1;
  if (!together) release(transformed_.trace);
  identity_replay_ = start_replay(measured, identity_.platform.platform, identity_.options);
  if (scenario.replay.interval) {
    minima_identity_ = start_replay(measured, minima_platform(identity_.platform.platform),
                                    model_only(identity_.options), ReplayAnswer::Runtime);
    if (!identity_.options.anchor)
      anchored_identity_ = start_replay(measured, identity_.platform.platform, anchored_options(identity_.options),
                                        ReplayAnswer::Runtime);
  }
  if (together) start_scenario();
}

PointRun::~PointRun() {
  for (auto* r : {&identity_replay_, &scenario_replay_, &minima_identity_, &minima_scenario_, &anchored_identity_,
                  &fixed_scenario_, &scaled_scenario_, &fast_network_})
    if (*r) abandon_replay(**r);
}

// The scenario replays of the interval's hypotheses, once the scenario's platform is known (and,
// for fixed costs, the anchored identity's residuals).
void PointRun::start_hypotheses() {
  if (changes_platform(scenario_) && identity_.replay.residuals) {
    ReplayOptions fast = model_only(identity_.options);
    const Platform fast_platform = infinitely_fast_network(identity_.platform.platform);
    fast.residuals =
        with_typical_network(measured_, identity_.replay.residuals,
                             placed(measured_, identity_.platform.platform, identity_.options), fast_platform);
    try {
      fast_network_ = start_replay(measured_, fast_platform, fast, ReplayAnswer::Runtime);
    } catch (const Error& e) {
      hypothesis_notes_.push_back(std::string("infinitely fast network: ") + e.what());
    }
  }
  if (!scenario_.replay.interval) return;
  ReplayOptions minima = model_only(scenario_options_);
  minima_scenario_ =
      start_replay(transformed_.trace, minima_platform(scenario_platform_), minima, ReplayAnswer::Runtime, &measured_);
  std::shared_ptr<const CallResiduals> residuals = identity_.replay.residuals;
  if (anchored_identity_) {
    const StartedReplay started = *anchored_identity_;
    anchored_identity_.reset();
    try {
      const ReplayResult anchored = finish_replay(started);
      anchored_runtime_ = anchored.runtime;
      residuals = anchored.residuals;
    } catch (const Error& e) {
      hypothesis_notes_.push_back(std::string("fixed costs: the anchored identity failed: ") + e.what());
    }
  } else {
    anchored_runtime_ = identity_.replay.runtime;
  }
  if (auto o = network_scaled_options(measured_, transformed_, identity_, scenario_platform_, scenario_options_,
                                      hypothesis_notes_))
    scaled_scenario_ = start_replay(transformed_.trace, scenario_platform_, *o, ReplayAnswer::Runtime, &measured_);
  if (!residuals || scenario_options_.zero_communication) return;
  fixed_scenario_ = start_replay(transformed_.trace, scenario_platform_,
                                 fixed_costs_options(scenario_options_, *residuals), ReplayAnswer::Runtime, &measured_);
}

void PointRun::start_scenario() {
  ScenarioSetup setup = scenario_setup(scenario_, transformed_, identity_);
  scenario_platform_ = std::move(setup.platform);
  scenario_options_ = std::move(setup.options);
  scenario_description_ = std::move(setup.description);
  scenario_replay_ =
      start_replay(transformed_.trace, scenario_platform_, scenario_options_, ReplayAnswer::Trace, &measured_);
}

const ReplayResult& PointRun::identity() {
  if (identity_done_) return identity_.replay;
  if (!scenario_replay_) transformed_ = apply_transforms(measured_, scenario_.transforms);  // freed in the constructor
  const StartedReplay started = *identity_replay_;
  identity_replay_.reset();                // waited for below, whatever happens: never abandoned after that
  std::vector<std::vector<double>> times;  // the identity's trace is built last, once the transformed one is freed
  identity_.replay = finish_replay(started, times);
  conclude_identity(scenario_, measured_, identity_);
  identity_done_ = true;
  if (!scenario_replay_) start_scenario();
  start_hypotheses();
  // What the gain interval's variability reads of the identity side, taken while the trace is there.
  const bool anchored_side = identity_.options.anchor;
  if (scenario_.replay.interval && anchored_side) identity_sync_ = sync_intervals(measured_);
  // The simulated traces have the measured trace's records at new times. Where the measured trace
  // may go (owned, and no other locations that follow its master), it is freed now and the
  // identity's trace built on the transformed one (the same records), the scenario's on the
  // identity's; else both on the measured trace. The transformed trace is freed here unless the
  // scenario's trace is built on it: one trace less while the replays run (their processes have it).
  const bool free_measured = owned_ && !has_followers(measured_);
  if (free_measured) release(*owned_);
  identity_.replay.trace = retimed(free_measured ? transformed_.trace : measured_, std::move(times));
  if (scenario_on_measured()) {
    scenario_replay_->trace = free_measured ? &identity_.replay.trace : &measured_;
    identity_is_structure_ = free_measured;
    release(transformed_.trace);
  }
  if (scenario_.replay.interval && !anchored_side) identity_sync_ = sync_intervals(identity_.replay.trace);
  return identity_.replay;
}

// Unless a transform moved threads' events apart from their master (rebalance across threads) or
// the exports want the transformed trace.
bool PointRun::scenario_on_measured() const {
  const bool threads_moved = std::any_of(scenario_.transforms.begin(), scenario_.transforms.end(),
                                         [](const Transform& t) { return t.across_threads; });
  return !threads_moved && scenario_.exports.empty();
}

void PointRun::release_identity_trace() {
  if (identity_is_structure_) return;  // the scenario's trace is built on it
  release(identity_.replay.trace);
}

namespace {

// The runtime of a hypothesis' replay, or nothing (and a note) if it failed.
std::optional<double> runtime_of(std::optional<StartedReplay>& started, const char* what,
                                 std::vector<std::string>& notes) {
  if (!started) return std::nullopt;
  const StartedReplay s = *started;
  started.reset();
  try {
    return finish_replay_runtime(s);
  } catch (const Error& e) {
    notes.push_back(fmt::format("{}: {}", what, e.what()));
    return std::nullopt;
  }
}

}  // namespace

void PointRun::wait_replays() {
  identity();
  if (!scenario_replay_) return;  // waited for already
  const StartedReplay started = *scenario_replay_;
  scenario_replay_.reset();
  scenario_structure_ = started.trace;
  scenario_result_ = finish_replay(started, scenario_times_);
  minima_identity_runtime_ = runtime_of(minima_identity_, "minima model identity", hypothesis_notes_);
  minima_scenario_runtime_ = runtime_of(minima_scenario_, "minima model scenario", hypothesis_notes_);
  fixed_scenario_runtime_ = runtime_of(fixed_scenario_, "fixed costs scenario", hypothesis_notes_);
  scaled_scenario_runtime_ = runtime_of(scaled_scenario_, "residuals scaled with the network", hypothesis_notes_);
  fast_network_runtime_ = runtime_of(fast_network_, "infinitely fast network", hypothesis_notes_);
}

PointResult PointRun::finish() {
  wait_replays();
  ReplayResult replayed = std::move(scenario_result_);
  replayed.trace = retimed(*scenario_structure_, std::move(scenario_times_));
  GainInterval interval = finish_interval(replayed);
  PointResult r = point_result(scenario_, measured_end_, transformed_, identity_, std::move(identity_.replay),
                               scenario_description_, std::move(replayed));
  r.interval = std::move(interval);
  r.infinitely_fast_network = fast_network_runtime_;
  // The run is over: the transformed trace goes to the exports, or is freed before the analyses.
  if (!scenario_.exports.empty())
    r.scenario_input = std::make_shared<const PointResult::Input>(
        PointResult::Input{std::move(transformed_.trace), scenario_platform_, scenario_options_});
  transformed_.trace = Trace{};
  return r;
}

GainInterval PointRun::finish_interval(const ReplayResult& scenario) {
  const double point = identity_.replay.runtime - scenario.runtime;
  if (!scenario_.replay.interval) {
    GainInterval off;
    off.point = point;
    off.note = "no gain interval: turned off (--no-interval)";
    return off;
  }
  std::optional<double> minima, fixed;
  if (minima_identity_runtime_ && minima_scenario_runtime_)
    minima = *minima_identity_runtime_ - *minima_scenario_runtime_;
  if (fixed_scenario_runtime_ && anchored_runtime_) fixed = *anchored_runtime_ - *fixed_scenario_runtime_;
  if (scenario_options_.zero_communication) fixed = point;  // no residual is kept: (a) is the point
  std::optional<double> scaled;
  if (scaled_scenario_runtime_) scaled = identity_.replay.runtime - *scaled_scenario_runtime_;
  return interval_of(point, CostHypotheses{fixed, minima, scaled}, identity_sync_, scenario.trace, hypothesis_notes_);
}

}  // namespace wisp
