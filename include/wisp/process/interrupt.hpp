// What an interrupted wisp must undo. SIGINT and SIGTERM stop the simulation children and sweep
// workers it started and remove the staging directories of unfinished outputs, say so in one line
// and exit with 128 + the signal; owners register and unregister what they create. A child also
// dies with its parent (PR_SET_PDEATHSIG), so even `kill -9` leaves no simulation running.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <string>

namespace wisp::interrupt {

// Installs the SIGINT/SIGTERM handlers (the CLI does, once).
void install();

void add_child(pid_t pid);
void remove_child(pid_t pid);
void add_staging(const std::filesystem::path& dir);
void remove_staging(const std::filesystem::path& dir);

// The line the handler prints instead of its own (an MPI job's rank 0 says which points were
// lost when the launcher ends the job); an empty line prints nothing. clear_message() restores
// the default.
void set_message(const std::string& line);
void clear_message();

// In a freshly forked child: die with the parent, and default signal handling.
void child_started();

}  // namespace wisp::interrupt
