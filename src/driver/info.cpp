// `wisp info`. See info.hpp.
#include "wisp/driver/info.hpp"

#include "wisp/io/otf2_reader.hpp"
#include "wisp/report/trace_info.hpp"

namespace wisp::driver {

Written info(const InfoOptions& o) {
  const Trace trace = read_otf2(o.trace);
  const std::string source = o.trace.string();
  if (o.json) return Written{trace_info_json(trace, source), {}, {}, {}, {}};
  return Written{{}, o.regions ? flat_profile_text(trace, source) : trace_info_text(trace, source), {}, {}, {}};
}

}  // namespace wisp::driver
