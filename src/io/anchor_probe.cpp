// Loading an anchor file in a child process with a deadline. See anchor_probe.hpp.
#include "anchor_probe.hpp"

#include <otf2/otf2.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>

#include "wisp/error.hpp"
#include "wisp/io/interrupt.hpp"

namespace wisp::io {

namespace {

// At most 2 GiB more address space than the process has now: a corrupt length field made
// libotf2 calloc 30 GB. (Not under AddressSanitizer, which reserves terabytes of address space.)
void limit_memory() {
#ifndef WISP_SANITIZED
  long pages = 0;
  if (std::FILE* f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%ld", &pages) != 1) pages = 0;
    std::fclose(f);
  }
  const rlim_t limit = static_cast<rlim_t>(pages) * static_cast<rlim_t>(::sysconf(_SC_PAGESIZE)) + (rlim_t{2} << 30);
  const struct rlimit r{limit, limit};
  ::setrlimit(RLIMIT_AS, &r);
#endif
}

[[noreturn]] void load_in_child(const std::filesystem::path& anchor) {
  interrupt::child_started();
  limit_memory();
  for (int sig : {SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL}) ::signal(sig, SIG_DFL);
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
  ::_exit(ok ? 0 : 1);
}

}  // namespace

void probe_anchor(const std::filesystem::path& anchor, double deadline_seconds) {
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) return;  // cannot isolate: the reader goes on unprotected
  if (pid == 0) load_in_child(anchor);
  interrupt::add_child(pid);
  const auto start = std::chrono::steady_clock::now();
  int status = 0;
  pid_t done = 0;
  while ((done = ::waitpid(pid, &status, WNOHANG)) == 0) {
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > deadline_seconds) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      interrupt::remove_child(pid);
      throw Error(fmt::format("{}: corrupt OTF2 anchor file: the OTF2 library did not finish reading it "
                              "within {:g} s", anchor.string(), deadline_seconds));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  interrupt::remove_child(pid);
  if (done > 0 && WIFSIGNALED(status))
    throw Error(fmt::format("{}: corrupt OTF2 anchor file: the OTF2 library crashed reading it ({})",
                            anchor.string(), strsignal(WTERMSIG(status))));
  // An anchor the library could not load in the child is never loaded here: it may have needed
  // unbounded memory (the child's limit) or failed in a way that repeats.
  if (done > 0 && WIFEXITED(status) && WEXITSTATUS(status) != 0)
    throw Error(anchor.string() + ": not an OTF2 anchor file (the OTF2 library cannot read it)");
}

}  // namespace wisp::io
