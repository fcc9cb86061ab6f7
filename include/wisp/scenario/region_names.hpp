// A scenario's `region:` resolved as users type it: C++ codes give regions their full demangled
// signatures ("void miniFE::cg_solve(OperatorType&, ...) [with ...]"), a scenario says
// `region: cg_solve` (the short forms are trace/short_names.hpp's).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "wisp/trace/definitions.hpp"
#include "wisp/trace/short_names.hpp"

namespace wisp {

// The regions (by id) a scenario's `region:` text selects, in this order of rules:
//  1. regions whose full name is `wanted`;
//  2. else, if `wanted` has glob characters (* ? [), regions whose full name matches the glob;
//  3. else regions whose qualified short form is `wanted` ("miniFE::cg_solve");
//  4. else regions whose short name is `wanted` ("cg_solve");
//  5. else regions whose short name starts with `wanted` ("matvec" -> "matvec_std").
// Rules 3-5 must find one region: several is an error listing them. Only regions that occur
// in a call path count. Nothing found is an error with the closest short names (full names cut).
// Errors are thrown as wisp::Error without a place; the caller prefixes it.
std::vector<bool> resolve_region(const Definitions& defs, const std::string& wanted);

}  // namespace wisp
