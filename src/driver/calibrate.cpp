// `wisp calibrate`. See calibrate.hpp.
#include "wisp/driver/calibrate.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "wisp/error.hpp"
#include "wisp/io/atomic_output.hpp"
#include "wisp/io/otf2_reader.hpp"
#include "wisp/replay/calibrate.hpp"

namespace wisp::driver {

Written calibrate(const CalibrateOptions& o) {
  if (std::filesystem::exists(o.output) && !o.force)
    throw Error(o.output.string() + ": exists (use --force to replace it)");
  const Trace trace = read_otf2(o.trace);
  Calibration c = wisp::calibrate(trace);
  calibrate_call_costs(trace, c);
  for (const std::string& note : c.notes) spdlog::warn("calibration: {}", note);
  write_file_atomically(o.output, platform_xml(c.platform));
  return Written{
      {}, calibration_text(c), fmt::format("wrote {} ({} hosts)\n", o.output.string(), c.platform.hosts), {}, {}};
}

}  // namespace wisp::driver
