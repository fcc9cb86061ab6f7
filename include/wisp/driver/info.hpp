// `wisp info TRACE`: what a trace contains (ranks, events, regions, communicators, messages,
// anomalies), or with `regions` its flat profile.
#pragma once

#include <filesystem>

#include "wisp/driver/written.hpp"

namespace wisp::driver {

struct InfoOptions {
  std::filesystem::path trace;
  bool json = false;     // the JSON form only (it holds the flat profile too)
  bool regions = false;  // the text is the flat profile (exclusive time, visits, paradigm per region)
};

Written info(const InfoOptions& options);

}  // namespace wisp::driver
