// Loading an anchor file in a child process with a deadline. See anchor_probe.hpp.
#include "anchor_probe.hpp"

#include <otf2/otf2.h>
#include <sys/resource.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cstdio>
#include <cstring>

#include "wisp/error.hpp"
#include "wisp/process/child_process.hpp"

namespace wisp::io {

namespace {

// At most 2 GiB more address space than the process has now: a corrupt length field can make
// libotf2 calloc tens of GB. (Not under AddressSanitizer, which reserves terabytes of address space.)
void limit_memory() {
#ifndef WISP_SANITIZED
  long pages = 0;
  if (std::FILE* f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%ld", &pages) != 1) pages = 0;
    std::fclose(f);
  }
  const rlim_t limit = static_cast<rlim_t>(pages) * static_cast<rlim_t>(::sysconf(_SC_PAGESIZE)) + (rlim_t{2} << 30);
  const struct rlimit r { limit, limit };
  ::setrlimit(RLIMIT_AS, &r);
#endif
}

// The child: 0 if libotf2 opened the anchor and read its location count and creator.
int load_in_child(const std::filesystem::path& anchor) {
  limit_memory();
  std::freopen("/dev/null", "w", stderr);  // libotf2's own complaints: the parent says it
  OTF2_Error_RegisterCallback(nullptr, nullptr);
  OTF2_Reader* reader = OTF2_Reader_Open(anchor.c_str());
  int ok = 0;
  if (reader) {
    uint64_t locations = 0;
    char* creator = nullptr;
    ok = OTF2_Reader_GetNumberOfLocations(reader, &locations) == OTF2_SUCCESS &&
         OTF2_Reader_GetCreator(reader, &creator) == OTF2_SUCCESS;
    OTF2_Reader_Close(reader);
  }
  return ok ? 0 : 1;
}

}  // namespace

void probe_anchor(const std::filesystem::path& anchor, double deadline_seconds) {
  const pid_t pid = start_child([&] { return load_in_child(anchor); });
  if (pid < 0) return;  // cannot isolate: the reader goes on unprotected
  const ChildExit end = wait_for_child(pid, deadline_seconds);
  if (end.timed_out)
    throw Error(
        fmt::format("{}: corrupt OTF2 anchor file: the OTF2 library did not finish reading it "
                    "within {:g} s",
                    anchor.string(), deadline_seconds));
  if (end.killed)
    throw Error(fmt::format("{}: corrupt OTF2 anchor file: the OTF2 library crashed reading it ({})", anchor.string(),
                            strsignal(end.signal)));
  // An anchor the library could not load in the child is never loaded here: it may have needed
  // unbounded memory (the child's limit) or failed in a way that repeats.
  if (end.exited && end.code != 0)
    throw Error(anchor.string() + ": not an OTF2 anchor file (the OTF2 library cannot read it)");
}

}  // namespace wisp::io
