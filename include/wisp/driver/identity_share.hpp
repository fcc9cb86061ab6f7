// An identity run passed between the ranks of an MPI job, so that a sweep or `wisp suggest` replays
// each distinct identity once for the whole job: what a scenario replay needs from it (the
// identity's runtime and, with trace-anchored costs, every call's residual, network part and
// partner wait) as bytes.
#pragma once

#include <string>

#include "wisp/scenario/point_replays.hpp"

namespace wisp {

std::string encode_identity(const IdentityRun& identity);
// The identity run of `scenario` on `measured` from encode_identity's bytes: platform and options
// made again (identity_setup), runtime and residuals from the bytes, no simulated trace. Throws
// wisp::Error on bytes that do not decode.
IdentityRun decode_identity(const std::string& bytes, const Scenario& scenario, const Trace& measured);

}  // namespace wisp
