// Writing the Cartesian topologies of a trace back to OTF2 (CartDimension, CartTopology,
// CartCoordinate), with the location communicators they refer to (Score-P's "Process x Threads CPU
// Locations"), so that a written trace carries the same topologies as the one read.
#pragma once

#include <otf2/otf2.h>

#include <functional>
#include <string>

#include "otf2_thread_writer.hpp"
#include "wisp/trace/definitions.hpp"

namespace wisp::io {

// Ids the records take: groups from first_group, communicators from first_comm (after the MPI
// communicators and the thread teams); an MPI communicator c keeps its id c.
struct CartesianIds {
  OTF2_GroupRef first_group = 0;
  OTF2_CommRef first_comm = 0;
};

// Every name the records use, for the string table (written before them).
void intern_cartesian_strings(const Definitions& defs, const std::function<void(const std::string&)>& intern);

// Location communicators whose locations all exist, topologies on a written communicator, and the
// coordinates that fit their topology and communicator; the rest of a transformed trace's
// topologies (e.g. after a change of rank count) are left out.
void write_cartesian(OTF2_GlobalDefWriter* w, const Definitions& defs, const RankLocationIds& ids, CartesianIds first,
                     const std::function<OTF2_StringRef(const std::string&)>& str);

}  // namespace wisp::io
