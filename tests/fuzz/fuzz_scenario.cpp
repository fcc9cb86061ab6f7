// libFuzzer target: the scenario parser (YAML text → Scenario, sweep points, the identity key that
// dumps its YAML again). Bad input must end in wisp::Error; anything else (a crash, another
// exception, a hang) is a bug. scripts/fuzz.sh gives it tests/fuzz/scenario.dict.
#include <cstddef>
#include <cstdint>
#include <string>

#include "wisp/error.hpp"
#include "wisp/scenario/point_replays.hpp"
#include "wisp/scenario/scenario.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const wisp::Scenario s = wisp::parse_scenario(std::string(reinterpret_cast<const char*>(data), size), "fuzz.yaml");
    (void)wisp::identity_key(s);
    if (!s.sweep.empty() && wisp::sweep_points(s).size() < 64)
      for (const auto& point : wisp::sweep_points(s)) wisp::sweep_point(s, point);
  } catch (const wisp::Error&) {}
  return 0;
}
