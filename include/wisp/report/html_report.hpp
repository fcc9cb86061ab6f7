// report.html: one self-contained page (d3, script, style sheet and data inline; opens offline)
// rendering what the layers below computed: the timelines with the critical path, runtimes and
// gain with the trust warnings, per-rank time split, call-path comparison, sweep charts, POP factors,
// and `wisp suggest`'s ranked hypotheses.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "wisp/analysis/timeline.hpp"
#include "wisp/analysis/trace_analysis.hpp"
#include "wisp/scenario/evaluate.hpp"
#include "wisp/scenario/scenario.hpp"
#include "wisp/scenario/suggestion.hpp"
#include "wisp/scenario/sweep.hpp"

namespace wisp {

// One scenario point; `timelines` in the order shown (e.g. identity, scenario, measured).
std::string point_html(const Scenario& scenario, const std::string& trace_source, const PointEvaluation& point,
                       const std::vector<NamedTimeline>& timelines);
// The same page written to `out` as it is made (its timelines' data is never held as one string);
// `timeline_note` (if any) is shown above the timelines (a summary or a window, report_views.hpp).
void write_point_html(std::ostream& out, const Scenario& scenario, const std::string& trace_source,
                      const PointEvaluation& point, const std::vector<NamedTimeline>& timelines,
                      const std::string& timeline_note = "");
// A sweep: gain against every axis, the best point marked.
std::string sweep_html(const Scenario& scenario, const std::string& trace_source, const SweepResult& sweep);
// `wisp suggest -o`: the ranked hypotheses (suggest.json's rows) with a chart of their gains.
std::string suggest_html(const SuggestResult& result);
// `wisp analyze -o`: the measured trace alone.
std::string analysis_html(const std::string& trace_path, const TraceSummary& trace, const TraceAnalysis& analysis,
                          const Timeline& timeline);
// The same page written to `out` as it is made (a large trace's data is never held whole).
void write_analysis_html(std::ostream& out, const std::string& trace_path, const TraceSummary& trace,
                         const TraceAnalysis& analysis, const Timeline& timeline,
                         const std::string& timeline_note = "");

}  // namespace wisp
