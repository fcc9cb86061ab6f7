// Loading an anchor file in a child process with a deadline. See anchor_probe.hpp.
#include "anchor_probe.hpp"

#include <otf2/otf2.h>
#include <signal.h>
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

[[noreturn]] void load_in_child(const std::filesystem::path& anchor) {
  interrupt::child_started();
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
}

}  // namespace wisp::io
