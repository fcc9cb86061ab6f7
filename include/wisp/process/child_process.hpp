// Running work in a forked child process: the replay (SimGrid allows one engine per process), the
// anchor probe (libotf2 may crash or loop on a corrupt file) and the sweep workers. The child is
// registered with interrupt's child tracking, so SIGINT/SIGTERM stop it and it dies with wisp.
#pragma once

#include <sys/types.h>

#include <functional>
#include <string>

namespace wisp {

// How a child process ended.
struct ChildExit {
  pid_t pid = -1;       // -1: there was no child to wait for
  bool exited = false;  // it returned or called _exit: `code` is its exit code
  int code = 0;
  bool killed = false;  // a signal ended it: `signal` says which
  int signal = 0;
  bool timed_out = false;  // it outlived the deadline and was killed (SIGKILL)
};

// Forks a child that runs `body` and exits with the code it returns (1 if it throws). Stdio is
// flushed before the fork and in the child before it exits; the child resets the crash handlers
// a parent may have installed (a test framework's) and calls interrupt::child_started(). The
// parent registers the child (interrupt::add_child). Returns its pid, or -1 when fork failed
// (errno says why).
pid_t start_child(const std::function<int()>& body);

// Waits for `pid` to end (retrying after signals) and unregisters it.
ChildExit wait_for_child(pid_t pid);
// The same, but a child still running after `deadline_seconds` is killed and reported timed_out.
ChildExit wait_for_child(pid_t pid, double deadline_seconds);
// Waits for whichever started child ends first (a worker pool maps the pid to its work item) and
// unregisters it. pid -1 when no child is left.
ChildExit wait_for_any_child();

// What a child wrote to its pipe, and how it ended.
struct ChildAnswer {
  std::string data;
  ChildExit exit;
};
// Runs `body` in a child that writes its answer to the file descriptor it is given (a pipe),
// reads everything until the child closes it, and waits for the child. Throws wisp::Error
// ("WHAT: cannot create a pipe: ..." / "WHAT: cannot start a child process: ...") when the
// system refuses.
ChildAnswer run_in_child(const std::string& what, const std::function<int(int answer_fd)>& body);

// run_in_child() in two halves, so that several children run at once (the identity and scenario
// replays of `wisp run`): start_answering_child() forks and returns at once; collect_answer()
// reads the child's pipe to its end and waits for it; abandon_child() kills it instead (SIGKILL)
// and waits. Each started child must be collected or abandoned exactly once.
struct AnsweringChild {
  pid_t pid = -1;
  int fd = -1;  // read end of the child's pipe
};
AnsweringChild start_answering_child(const std::string& what, const std::function<int(int answer_fd)>& body);
ChildAnswer collect_answer(const AnsweringChild& child);
void abandon_child(const AnsweringChild& child);
// For a caller that reads child.fd itself (the replay decodes its answer as it arrives, without a
// copy): reads and discards whatever the child still writes (a decoding error then does not turn
// into a broken pipe), closes the read end and waits for the child.
ChildExit close_answering_child(const AnsweringChild& child);

}  // namespace wisp
