// `wisp analyze` output of all analyses. See trace_analysis_report.hpp.
#include "wisp/report/trace_analysis_report.hpp"

#include "wisp/report/analysis_report.hpp"
#include "wisp/report/pag_report.hpp"
#include "wisp/report/pop_report.hpp"
#include "wisp/report/wait_estimate_report.hpp"

namespace wisp {

nlohmann::json trace_analysis_json(const Trace& trace, const std::string& source, const TraceAnalysis& a) {
  nlohmann::json j = analysis_json(trace, source, a.wait_paths, a.table);
  if (a.parts.pag) {
    j["pag"] = pag_json(trace, a.pag);
    j["mbm"] = mbm_json(trace, a.pag);
  }
  if (a.parts.wait_estimate) j["wait_estimate"] = wait_estimate_json(trace, a.waits);
  if (a.parts.pop) j["pop"] = pop_json(a.pop);
  return j;
}

std::string trace_analysis_text(const Trace& trace, const std::string& source, const TraceAnalysis& a,
                                std::size_t top) {
  std::string out = analysis_text(trace, source, a.wait_paths, a.table, top);
  if (a.parts.pag) out += "\n" + near_critical_text(trace, a.pag, top) + "\n" + mbm_text(trace, a.pag, top);
  if (a.parts.wait_estimate) out += "\n" + wait_estimate_text(trace, a.waits);
  if (a.parts.pop) out += "\n" + pop_text(a.pop, top);
  return out;
}

}  // namespace wisp
