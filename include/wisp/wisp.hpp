// wisp as a library, in one include: read (or generate) a trace, analyse it, replay it on a
// platform, and evaluate a what-if scenario against it. Link wisp::wisp. examples/what_if.cpp shows
// the four steps; each layer's own headers (include/wisp/LAYER/) hold the rest.
#pragma once

#include "wisp/error.hpp"
// read and write traces (OTF2), or generate synthetic ones whose timing is known exactly
#include "wisp/generate/generators.hpp"
#include "wisp/io/otf2_reader.hpp"
#include "wisp/io/otf2_writer.hpp"
#include "wisp/trace/trace.hpp"
// analyse: wait states, critical path, delay costs, near-critical paths and MBM, POP factors
#include "wisp/analysis/trace_analysis.hpp"
// simulate: a platform calibrated from the trace, the SimGrid replay
#include "wisp/replay/calibrate.hpp"
#include "wisp/replay/replay.hpp"
// evaluate: a scenario (YAML) replayed beside the identity and analysed, with its gain interval
#include "wisp/scenario/evaluate.hpp"
#include "wisp/scenario/scenario.hpp"
#include "wisp/scenario/trace_source.hpp"
