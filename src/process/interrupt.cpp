// Cleanup on SIGINT/SIGTERM. See interrupt.hpp. The handler only uses async-signal-safe calls:
// write, kill, fork, execv, waitpid, _exit; the staging directories are removed by /bin/rm.
#include "wisp/process/interrupt.hpp"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace wisp::interrupt {

namespace {

constexpr int kMaxChildren = 256;
constexpr int kMaxStaging = 32;
constexpr std::size_t kPathMax = 4096;

// Registered items; the handler reads them, owners change them with the signals blocked.
pid_t children[kMaxChildren];
int child_count = 0;
char staging[kMaxStaging][kPathMax];
int staging_count = 0;
char message[kPathMax];
bool has_message = false;

class Blocked {
 public:
  Blocked() {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigprocmask(SIG_BLOCK, &set, &old_);
  }
  ~Blocked() { sigprocmask(SIG_SETMASK, &old_, nullptr); }

 private:
  sigset_t old_;
};

void say(const char* text) {
  const ssize_t n = ::write(STDERR_FILENO, text, std::strlen(text));
  (void)n;
}

void remove_tree(const char* path) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    char rm[] = "/bin/rm", flags[] = "-rf", dashes[] = "--";
    char* argv[] = {rm, flags, dashes, const_cast<char*>(path), nullptr};
    ::execv(rm, argv);
    ::_exit(127);
  }
  if (pid > 0) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  }
}

void on_signal(int sig) {
  if (has_message)
    say(message);
  else
    say(sig == SIGINT ? "wisp: interrupted (SIGINT): stopping the simulations and removing unfinished output\n"
                      : "wisp: terminated (SIGTERM): stopping the simulations and removing unfinished output\n");
  for (int i = 0; i < child_count; ++i) ::kill(children[i], SIGKILL);
  for (int i = 0; i < child_count; ++i) ::waitpid(children[i], nullptr, 0);
  for (int i = 0; i < staging_count; ++i) remove_tree(staging[i]);
  ::_exit(128 + sig);
}

}  // namespace

void install() {
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaddset(&sa.sa_mask, SIGINT);
  sigaddset(&sa.sa_mask, SIGTERM);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

void add_child(pid_t pid) {
  Blocked b;
  if (child_count < kMaxChildren) children[child_count++] = pid;
}

void remove_child(pid_t pid) {
  Blocked b;
  for (int i = 0; i < child_count; ++i)
    if (children[i] == pid) {
      children[i] = children[--child_count];
      return;
    }
}

void add_staging(const std::filesystem::path& dir) {
  Blocked b;
  const std::string s = dir.string();
  if (staging_count < kMaxStaging && s.size() < kPathMax) std::strcpy(staging[staging_count++], s.c_str());
}

void remove_staging(const std::filesystem::path& dir) {
  Blocked b;
  const std::string s = dir.string();
  for (int i = 0; i < staging_count; ++i)
    if (s == staging[i]) {
      if (i != --staging_count) std::strcpy(staging[i], staging[staging_count]);
      return;
    }
}

void set_message(const std::string& line) {
  Blocked b;
  const std::string text = line.empty() ? line : line.substr(0, kPathMax - 2) + "\n";
  std::strcpy(message, text.c_str());
  has_message = true;
}

void clear_message() {
  Blocked b;
  has_message = false;
}

void child_started() {
  const pid_t parent = ::getppid();
  child_count = 0;
  staging_count = 0;
  has_message = false;
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(1);  // the parent died before prctl
  for (int sig : {SIGINT, SIGTERM}) ::signal(sig, SIG_DFL);
}

}  // namespace wisp::interrupt
