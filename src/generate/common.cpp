// Helpers shared by the generators. See common.hpp.
#include "wisp/generate/common.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "wisp/error.hpp"
#include "wisp/generate/generators.hpp"
#include "wisp/trace/trace.hpp"

namespace wisp::gen {

std::vector<double> launch_times(const CommonOptions& o, std::uint32_t ranks) {
  std::vector<double> t(ranks, 0.0);
  if (o.launch_jitter <= 0) return t;
  std::mt19937_64 rng(o.seed ^ 0x6c61756e6368ull);
  std::uniform_real_distribution<double> u(0.0, o.launch_jitter);
  for (auto& x : t) x = u(rng);
  return t;
}

void apply_launch_jitter(Model& model, const CommonOptions& o) {
  const auto t = launch_times(o, model.rank_count());
  for (Rank r = 0; r < model.rank_count(); ++r) model.set_launch(r, t[r]);
}

void require(bool ok, const char* kind, const std::string& what) {
  if (!ok) throw Error(std::string("generate ") + kind + ": " + what);
}

void require_sane(const CommonOptions& o, const char* kind, double ranks, double repetitions) {
  const ModelParams& m = o.model;
  auto in = [](double v, double lo, double hi) { return std::isfinite(v) && v >= lo && v <= hi; };
  require(in(m.latency, 0, 1e3) && in(m.overhead, 0, 1e3) && in(m.init_time, 0, 1e6), kind,
          "--latency, --overhead and --init-time must be finite and not negative");
  require(in(m.bandwidth, 1, 1e21), kind, "--bandwidth must be between 1 and 1e21 bytes/s");
  require(in(o.launch_jitter, 0, 1e6), kind, "--launch-jitter must be finite and not negative");
  require(ranks <= (1 << 20), kind, fmt::format("{:.0f} ranks are more than wisp models (at most 1048576)", ranks));
  require(ranks * repetitions * 64 <= 1e9, kind,
          fmt::format("about {:.3g} events are more than a generated trace may hold (at most 1e9)",
                      ranks * repetitions * 64));
}

void add_cycle_counter(Trace& trace) {
  constexpr double kHertz = 2e9;
  // OTF2's values (the generate layer does not include otf2.h): METRIC_TYPE_OTHER,
  // METRIC_ACCUMULATED_START, TYPE_UINT64, BASE_DECIMAL, METRIC_SYNCHRONOUS_STRICT, RECORDER_KIND_CPU.
  constexpr std::uint8_t kOther = 0, kAccumulatedStart = 0, kUint64 = 4, kDecimal = 1, kStrictlySynchronous = 0,
                         kCpu = 2;
  Definitions& d = trace.defs;
  const auto member = static_cast<std::uint32_t>(d.metric_members.size());
  d.metric_members.push_back({"cycles", "Cycles of a 2 GHz clock since the rank's first event", "#", kOther,
                              kAccumulatedStart, kUint64, kDecimal, 0});
  const auto metric_class = static_cast<std::uint32_t>(d.metric_classes.size());
  MetricClass cycles;
  cycles.members = {member};
  cycles.occurrence = kStrictlySynchronous;
  cycles.recorder_kind = kCpu;
  d.metric_classes.push_back(cycles);
  for (RankTrace& rt : trace.ranks) {
    if (rt.events.empty()) continue;
    if (rt.metrics.empty()) rt.metrics.resize(1);
    MetricSamples& m = rt.metrics[0];
    const double start = rt.events.front().time;
    for (EventIndex i = 0; i < rt.events.size(); ++i) {
      const Event& e = rt.events[i];
      if (e.kind != EventKind::Enter && e.kind != EventKind::Leave) continue;
      m.samples.push_back({e.time, metric_class, static_cast<std::uint32_t>(m.values.size()), i});
      m.values.push_back(static_cast<std::uint64_t>((e.time - start) * kHertz));
    }
    rt.other_metrics.resize(rt.others.size());  // hybrid traces: every thread counts its own cycles
    for (std::size_t k = 0; k < rt.others.size(); ++k) {
      MetricSamples& o = rt.other_metrics[k];
      for (EventIndex i = 0; i < rt.others[k].size(); ++i) {
        const double t = rt.others[k][i].time;
        o.samples.push_back({t, metric_class, static_cast<std::uint32_t>(o.values.size()), i});
        o.values.push_back(static_cast<std::uint64_t>(std::max(0.0, t - start) * kHertz));
      }
    }
  }
}

}  // namespace wisp::gen
