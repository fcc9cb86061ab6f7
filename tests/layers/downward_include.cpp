// Compiled as a source of the analysis layer (tests/CMakeLists.txt, layers_downward_include_builds):
// the trace layer is below it, so this include is found and the file compiles.
#include "wisp/trace/trace.hpp"

wisp::Rank first_rank(const wisp::Trace&) { return 0; }
