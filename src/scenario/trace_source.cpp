// A scenario's trace. See trace_source.hpp.
#include "wisp/scenario/trace_source.hpp"

#include "wisp/error.hpp"
#include "wisp/generate/command_line.hpp"
#include "wisp/io/otf2_reader.hpp"

namespace wisp {

ScenarioTrace load_trace(const Scenario& s) {
  try {
    if (!s.trace.generate.empty())
      return {gen::generate_from_command_line(s.trace.generate), "generate " + s.trace.generate, {}};
    return {read_otf2(s.trace.path), s.trace.path.string(), s.trace.path};
  } catch (const Error& e) {
    throw Error(s.trace.where.str() + ": trace: " + e.what());
  }
}

}  // namespace wisp
