// `wisp analyze` output of all analyses. See trace_analysis_report.hpp.
#include "wisp/report/trace_analysis_report.hpp"

#include "wisp/report/analysis_report.hpp"
#include "wisp/report/pag_report.hpp"
#include "wisp/report/pop_report.hpp"
#include "wisp/report/wait_estimate_report.hpp"

namespace wisp {

nlohmann::json trace_analysis_json(const Trace& trace, const std::string& source, const TraceAnalysis& a) {
  nlohmann::json j = analysis_json(trace, source, a.analysis, a.table);
  j["pag"] = pag_json(trace, a.pag);
  j["mbm"] = mbm_json(trace, a.pag);
  j["wait_estimate"] = wait_estimate_json(trace, a.waits);
  j["pop"] = pop_json(a.pop);
  return j;
}

std::string trace_analysis_text(const Trace& trace, const std::string& source, const TraceAnalysis& a,
                                std::size_t top) {
  std::string out = analysis_text(trace, source, a.analysis, a.table, top);
  out += "\n" + near_critical_text(trace, a.pag, top);
  out += "\n" + mbm_text(trace, a.pag, top);
  out += "\n" + wait_estimate_text(trace, a.waits);
  out += "\n" + pop_text(a.pop, top);
  return out;
}

}  // namespace wisp
