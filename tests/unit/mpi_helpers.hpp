// For the tests that launch wisp under mpirun: the mpirun command line (oversubscribed, as root if
// need be; skipped when this wisp was built without MPI); run it with test::shell (helpers.hpp).
#pragma once

#include <fmt/format.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "helpers.hpp"
#include "wisp/driver/mpi_pool.hpp"

namespace wisp::test {

// `mpirun -n N wisp ARGS`, or "" when this wisp was built without MPI (a build option). A missing
// mpirun fails: the test command installs it.
inline std::string mpirun(int ranks, const std::string& btl, const std::string& args) {
  if (!built_with_mpi()) {
    WARN("SKIPPED: this wisp was built without MPI");
    return "";
  }
  INFO("mpirun is the Debian package openmpi-bin (bash scripts/setup.sh installs it)");
  REQUIRE(std::system("command -v mpirun >/dev/null 2>&1") == 0);
  return fmt::format(
      "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun --oversubscribe -n {} "
      "--mca btl {} --mca btl_vader_single_copy_mechanism none {} {}",
      ranks, btl, WISP_CLI, args);
}

// A JSON report without its "timings" (wall seconds differ from run to run): what is compared.
inline nlohmann::json without_timings(nlohmann::json j) {
  if (j.is_object()) {
    j.erase("timings");
    for (auto& [key, value] : j.items()) value = without_timings(value);
  } else if (j.is_array()) {
    for (auto& value : j) value = without_timings(value);
  }
  return j;
}

}  // namespace wisp::test
