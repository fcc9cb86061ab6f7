// Compiled as a source of the analysis layer (tests/CMakeLists.txt, layers_upward_include_fails):
// the scenario layer is above it, so this include must not be found.
#include "wisp/scenario/scenario.hpp"
