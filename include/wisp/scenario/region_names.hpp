// Region names as users type them: C++ codes give regions their full demangled signatures
// ("void miniFE::cg_solve(OperatorType&, ...) [with ...]"), a scenario says `region: cg_solve`.
// The short forms, the resolution rules of a scenario's `region:` and the suggestions use them.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "wisp/trace/definitions.hpp"

namespace wisp {

// The name without return type, template arguments, parameters, qualifiers and GCC's
// "[with ...]": "void miniFE::matvec_std<M, V>::operator()(M&) [with M = ...]" ->
// "miniFE::matvec_std::operator()". Names that are not C++-like come back unchanged.
std::string qualified_short_form(std::string_view name);

// The last component of qualified_short_form(), or for a call operator the class's:
// "cg_solve", "matvec_std"; Fortran "pack_kernel_module::clover_pack_message_left" ->
// "clover_pack_message_left".
std::string short_name(std::string_view name);

// `name` cut in the middle to at most `width` characters ("void miniFE::cg...Matvec = matvec_std<...>]").
std::string middle_shortened(std::string_view name, std::size_t width = 80);

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
