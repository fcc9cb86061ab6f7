// wisp's one error type: a one-line message naming the file and place and what was expected.
// Thrown for bad input (missing/corrupt trace, malformed scenario, ...); the CLI prints it and
// exits non-zero. Anomalies that do not prevent a correct result are reported, not thrown.
#pragma once

#include <stdexcept>
#include <string>

namespace wisp {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace wisp
