// `wisp merge`. See merge.hpp.
#include "wisp/driver/merge.hpp"

#include <fmt/format.h>

#include "wisp/driver/sweep_outputs.hpp"
#include "wisp/driver/sweep_parts.hpp"
#include "wisp/error.hpp"
#include "wisp/io/atomic_output.hpp"
#include "wisp/scenario/trace_source.hpp"

namespace wisp::driver {

namespace {

// The sweep the parts were made of, named as `wisp run` was given it; an edited file is an error.
Scenario scenario_of(const PartManifest& m) {
  Scenario s = load_scenario(m.scenario_path);
  if (part_manifest(s, m.trace, m.slice).digest != m.digest)
    throw Error(fmt::format("{}: the scenario file changed since the parts were made; rerun them", m.scenario_path));
  s.file = m.scenario;
  return s;
}

}  // namespace

Written merge(const MergeOptions& o) {
  const MergedSweep merged = merge_parts(o.parts);
  const Scenario s = scenario_of(merged.manifest);
  AtomicDirectory out(o.output, o.force);
  if (!o.no_traces) write_best_traces(s, load_trace(s).trace, merged.result, out.staging());
  return write_sweep_outputs(s, merged.manifest.trace, merged.result, out);
}

}  // namespace wisp::driver
