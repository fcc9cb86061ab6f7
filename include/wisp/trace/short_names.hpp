// Short names of regions and call paths for reading: C++ codes name their regions with full
// demangled signatures ("void miniFE::cg_solve(OperatorType&, ...) [with ...]"); reports, file
// names and the suggestions show "cg_solve" and "cg_solve/dot", the full name on hover or in JSON.
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

// A call path's text ("int main(int, char**)/void cg_solve(...)") with every component's short
// name ("main/cg_solve"); components are split at '/' outside brackets.
std::string short_path(std::string_view path);

// Where a region's source is, "file:line" (the file as the trace gives it), or "" when the trace
// does not say (no file, or no line).
std::string source_location(const Region& region);

// A name per region for display: its short name, or where regions that occur in call paths share
// it, the shortest form that tells them apart: the qualified short form, then the short name with
// GCC's "[with ...]" bindings or its parameter list, then the full name.
std::vector<std::string> region_display_names(const Definitions& defs);

// A name per call path for display: the shortest suffix of its path of display names that no
// other call path's path ends with ("cg_solve/dot", "dot/MPI_Allreduce"); the whole path when
// there is none.
std::vector<std::string> callpath_display_names(const Definitions& defs);

}  // namespace wisp
