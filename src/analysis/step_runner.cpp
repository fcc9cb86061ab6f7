// The default step runner. See step_runner.hpp.
#include "wisp/analysis/step_runner.hpp"

namespace wisp {

StepRunner& one_after_another() {
  static StepRunner serial;  // stateless
  return serial;
}

}  // namespace wisp
