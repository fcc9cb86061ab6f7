// Forked child processes and waiting for them. See child_process.hpp.
#include "wisp/process/child_process.hpp"

#include <fmt/format.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <thread>

#include "wisp/error.hpp"
#include "wisp/process/interrupt.hpp"

namespace wisp {

namespace {

ChildExit decode(pid_t pid, int status) {
  ChildExit out;
  out.pid = pid;
  if (pid <= 0) return out;
  out.exited = WIFEXITED(status);
  out.code = out.exited ? WEXITSTATUS(status) : 0;
  out.killed = WIFSIGNALED(status);
  out.signal = out.killed ? WTERMSIG(status) : 0;
  return out;
}

std::string read_until_closed(int fd) {
  std::string data;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    data.append(buffer, static_cast<std::size_t>(n));
  }
  return data;
}

// Reads and discards what is left, until the writer closes its end.
void drain(int fd) {
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
  }
}

}  // namespace

pid_t start_child(const std::function<int()>& body) {
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    // The parent's crash handlers (e.g. a test framework's) must not report for the child.
    for (int sig : {SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL}) std::signal(sig, SIG_DFL);
    interrupt::child_started();
    int code = 1;
    try {
      code = body();
    } catch (...) {}
    std::fflush(nullptr);
    ::_exit(code);
  }
  interrupt::add_child(pid);
  return pid;
}

ChildExit wait_for_child(pid_t pid) {
  int status = 0;
  pid_t done = 0;
  while ((done = ::waitpid(pid, &status, 0)) < 0 && errno == EINTR) {}
  interrupt::remove_child(pid);
  ChildExit out = decode(done, status);
  out.pid = pid;
  return out;
}

ChildExit wait_for_child(pid_t pid, double deadline_seconds) {
  const auto start = std::chrono::steady_clock::now();
  int status = 0;
  pid_t done = 0;
  while ((done = ::waitpid(pid, &status, WNOHANG)) == 0) {
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > deadline_seconds) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      interrupt::remove_child(pid);
      ChildExit out = decode(pid, status);
      out.timed_out = true;
      return out;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  interrupt::remove_child(pid);
  ChildExit out = decode(done, status);
  out.pid = pid;
  return out;
}

ChildExit wait_for_any_child() {
  int status = 0;
  pid_t done = 0;
  while ((done = ::waitpid(-1, &status, 0)) < 0 && errno == EINTR) {}
  if (done > 0) interrupt::remove_child(done);
  return decode(done, status);
}

AnsweringChild start_answering_child(const std::string& what, const std::function<int(int answer_fd)>& body) {
  int fds[2];
  if (::pipe(fds) != 0) throw Error(fmt::format("{}: cannot create a pipe: {}", what, std::strerror(errno)));
  const pid_t pid = start_child([&] {
    ::close(fds[0]);
    const int code = body(fds[1]);
    ::close(fds[1]);
    return code;
  });
  if (pid < 0) {
    const int error = errno;
    ::close(fds[0]);
    ::close(fds[1]);
    throw Error(fmt::format("{}: cannot start a child process: {}", what, std::strerror(error)));
  }
  ::close(fds[1]);
  return AnsweringChild{pid, fds[0]};
}

ChildAnswer collect_answer(const AnsweringChild& child) {
  ChildAnswer out;
  out.data = read_until_closed(child.fd);
  ::close(child.fd);
  out.exit = wait_for_child(child.pid);
  return out;
}

ChildExit close_answering_child(const AnsweringChild& child) {
  drain(child.fd);  // a child still writing ends as it would have, not on a broken pipe
  ::close(child.fd);
  return wait_for_child(child.pid);
}

void abandon_child(const AnsweringChild& child) {
  ::kill(child.pid, SIGKILL);
  ::close(child.fd);
  wait_for_child(child.pid);
}

ChildAnswer run_in_child(const std::string& what, const std::function<int(int answer_fd)>& body) {
  return collect_answer(start_answering_child(what, body));
}

}  // namespace wisp
