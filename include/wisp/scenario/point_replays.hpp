// Running one scenario point: resolve the platform (calibrated, file or generated) and the
// replay options, apply the transforms, replay the unmodified trace (identity) and the
// transformed one on the same platform. Gains are identity − scenario, so that the platform
// model's own error cancels out (src/scenario/README.md).
#pragma once

#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "wisp/replay/calibrate.hpp"
#include "wisp/replay/platform.hpp"
#include "wisp/replay/replay.hpp"
#include "wisp/replay/trust.hpp"
#include "wisp/scenario/gain_interval.hpp"
#include "wisp/scenario/platform_reach.hpp"
#include "wisp/scenario/scenario.hpp"
#include "wisp/scenario/transform.hpp"

namespace wisp {

struct ResolvedPlatform {
  Platform platform;
  std::string description;                 // one line for the report
  std::vector<std::string> notes;          // calibration fall-backs and degenerate fits
  CollectiveAlgorithms algorithms;         // calibrated: the ones the trace allows; else the defaults
  std::optional<Calibration> calibration;  // calibrated: the fit (latency, bandwidth, evidence)
};

// The identity platform of a scenario (or of `wisp simulate`), built for `trace`: calibration reads
// the trace (with `call_costs`, model-only, it also fits the typical call costs). Errors name
// spec.where (none if it is empty: a spec made from a command line).
ResolvedPlatform resolve_platform(const PlatformSpec& spec, const Trace& trace, bool call_costs = false);
// Replay options from the scenario's replay section (collective algorithms starting from
// `algorithms`); errors name its place in the file.
ReplayOptions replay_options(const ReplaySpec& spec, const CollectiveAlgorithms& algorithms = {});

// The platform with the network the change gives in absolute numbers (PlatformChange::latency,
// bandwidth, overhead): a crossbar of one host per rank (`ranks`) whose every route has that
// latency and bandwidth end to end and every MPI call that overhead. A value not given keeps the
// platform's own where it is a generated crossbar (calibrated platforms are); for any other
// platform latency and bandwidth must both be given (wisp::Error). The size factors, fitted to the
// old network, are dropped; hosts run at the reference speed, so computation keeps its time.
Platform with_network(Platform platform, const PlatformChange& change, std::uint32_t ranks);

// The platform with the network infinitely fast: no latency, no per-call or per-message overhead, no
// typical excess, bandwidth without bound; hosts, speeds and placement as they were. Replayed with
// the identity's residuals less their typical network excess, every call keeps its software cost.
Platform infinitely_fast_network(Platform platform);

// The gain interval's hypothesis (b): the platform without typical call costs, replays without
// residuals (the calibrated minima model alone).
Platform minima_platform(Platform platform);
ReplayOptions model_only(ReplayOptions options);

// The three runtimes of a point and the estimated gain: identity − scenario, so that the platform
// model's own error cancels out.
struct Runtimes {
  double measured = 0;  // runtime of the input trace [s]
  double identity = 0;  // simulated runtime of the unmodified trace [s]
  double scenario = 0;  // simulated runtime of the transformed trace [s]

  double gain() const { return identity - scenario; }
  double gain_percent() const { return identity > 0 ? 100.0 * gain() / identity : 0.0; }
  double identity_error() const { return wisp::identity_error(measured, identity); }
};

struct PointResult : Runtimes {
  std::string name;
  std::string platform;           // description of the identity platform
  std::string scenario_platform;  // description of the scenario's, if different
  std::vector<TransformEffect> effects;
  std::string costs;                         // "trace-anchored" or "model only"
  std::optional<ResidualSummary> residuals;  // trace-anchored costs: what the model left per class
  std::vector<std::string> warnings;         // how far to trust the identity (one line each)
  GainInterval interval;                     // not available: `note` says why
  // Trust: the share of the scenario's critical path that runs through residual time kept as
  // fixed cost of its calls (unset: not computed, e.g. model-only costs or no critical path).
  std::optional<double> kept_residual_share;
  // A platform change: the part of the traced MPI time it can act on (platform_reach.hpp).
  std::optional<PlatformReach> platform_reach;
  // A platform change, beside the scenario: the two ideal networks, named by what each assumes
  // (scenarios/README.md). POP's T_ideal of the identity: transfers and MPI calls take no time; and
  // the unmodified trace replayed with the network infinitely fast while every call keeps its
  // software cost (its residual): the most a platform what-if can gain [s]; unset: not computed.
  std::optional<double> pop_ideal_network, infinitely_fast_network;
  ReplayResult identity_replay;
  ReplayResult scenario_replay;
  // What the scenario replay replayed, kept only when the scenario asks for exports.
  struct Input {
    Trace trace;  // the transformed trace
    Platform platform;
    ReplayOptions options;
  };
  std::shared_ptr<const Input> scenario_input;
};

// The unmodified trace replayed on the scenario's platform: shared by every sweep point with the
// same platform and replay options.
struct IdentityRun {
  ResolvedPlatform platform;
  ReplayOptions options;
  ReplayResult replay;
  std::optional<ResidualSummary> residuals;  // anchored identity: what the model left per class
  std::vector<std::string> warnings;         // calibration notes and the identity-error warning
  // The gain interval's minima model replayed on the unmodified trace [s], once for every point that
  // shares this identity (NaN: not made; a point with the interval then replays it itself).
  double minima_runtime = std::nan("");
};
IdentityRun run_identity(const Scenario& scenario, const Trace& measured);
// The identity run up to its replay: its platform (calibrated on `measured` unless given) and
// replay options. Deterministic: a rank of an MPI job that is sent another rank's replay makes
// the same (identity_share.hpp).
IdentityRun identity_setup(const Scenario& scenario, const Trace& measured);
// Text that is equal for two scenarios exactly when their identity runs are the same.
std::string identity_key(const Scenario& scenario);

// Replays the transformed trace (apply_transforms of `measured`) next to a given identity run
// (throws wisp::Error, ReplayDeadlock).
PointResult run_scenario(const Scenario& scenario, const Trace& measured, const Transformed& transformed,
                         const IdentityRun& identity);
// The variability side of a point's gain interval: the scenario trace against the identity's.
GainVariability point_variability(const IdentityRun& identity, const Trace& measured, const Trace& scenario_trace);
// The gain interval of a point whose scenario a replay without the interval already gave (its
// runtime and point_variability): only the interval's two hypotheses are replayed.
GainInterval scenario_interval(const Scenario& scenario, const Trace& measured, const Transformed& transformed,
                               const IdentityRun& identity, double scenario_runtime,
                               const GainVariability& variability);
// Both replays of one point; the transforms are applied once.
PointResult run_point(const Scenario& scenario, const Trace& measured);

// run_point() in stages, so that the caller can work while the replays run in their child
// processes (the caller's own threads must have ended before each stage: the replays fork).
// Construction applies the transforms and starts the identity replay (with model-only costs on
// several cores the scenario replay too); identity() waits for the identity and starts the scenario
// replay (trace-anchored costs need the identity's residuals), then frees the transformed trace
// where it can (the replays' child processes have it); finish() waits for the scenario.
// A point dropped before finish() kills the replays still running.
class PointRun {
 public:
  // `owned`: the measured trace itself, if the run may free it as soon as it is no longer read (in
  // identity(), unless other locations follow its master: then it stays to the end).
  PointRun(const Scenario& scenario, const Trace& measured, Trace* owned = nullptr);
  ~PointRun();
  PointRun(const PointRun&) = delete;
  PointRun& operator=(const PointRun&) = delete;

  const ReplayResult& identity();
  // What each transform did (known from construction on; finish()'s result holds them too).
  const std::vector<TransformEffect>& effects() const { return transformed_.effects; }
  // Drops the identity's simulated trace (its runtime and residuals stay) unless the scenario's is to
  // be built on it (the measured trace freed); finish()'s result then holds an empty trace.
  void release_identity_trace();
  // Waits for the scenario's replays and reads the scenario's simulated times without building its
  // trace (finish() does): the caller analyses the identity's trace after it, once the replays'
  // processes have ended, not beside them (their copies of the transformed trace).
  void wait_replays();
  PointResult finish();

 private:
  void start_scenario();
  void start_hypotheses();
  bool scenario_on_measured() const;
  GainInterval finish_interval(const ReplayResult& scenario);

  const Scenario& scenario_;
  const Trace& measured_;  // read until the identity's trace is built (then freed if owned_)
  Trace* owned_;
  double measured_end_;
  IdentityRun identity_;  // calibrated before the transforms are applied: not beside their trace
  Transformed transformed_;
  bool identity_done_ = false;
  std::optional<StartedReplay> identity_replay_, scenario_replay_;
  // The gain interval's cost hypotheses: the minima model alone (identity and scenario), fixed
  // residuals (scenario; its identity is the anchored one, replayed here too for model-only costs).
  std::optional<StartedReplay> minima_identity_, minima_scenario_, anchored_identity_, fixed_scenario_,
      scaled_scenario_;
  // A platform what-if: the unmodified trace with the network infinitely fast (infinitely_fast_network).
  std::optional<StartedReplay> fast_network_;
  std::optional<double> fast_network_runtime_;
  std::vector<std::string> hypothesis_notes_;
  std::optional<double> anchored_runtime_;  // the identity of the fixed-costs hypothesis
  SyncIntervals identity_sync_;             // the identity side of the interval's variability
  // Waited for (wait_replays): the scenario's result without its trace, its times and structure,
  // and the hypotheses' runtimes.
  ReplayResult scenario_result_;
  std::vector<std::vector<double>> scenario_times_;
  const Trace* scenario_structure_ = nullptr;
  std::optional<double> minima_identity_runtime_, minima_scenario_runtime_, fixed_scenario_runtime_,
      scaled_scenario_runtime_;
  bool identity_is_structure_ = false;
  Platform scenario_platform_;
  ReplayOptions scenario_options_;
  std::string scenario_description_;
};

}  // namespace wisp
