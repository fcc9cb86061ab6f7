// This process's memory, for the benchmarks' peak figures: a /proc/self/status field and
// resetting the peak (VmHWM) so that the next reading is the peak after now.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

namespace wisp::bench {

// kB of a /proc/self/status field such as "VmRSS:" or "VmHWM:" (0 if absent).
inline long status_kb(const char* field) {
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind(field, 0) == 0) return std::atol(line.c_str() + std::strlen(field));
  return 0;
}

// Resets VmHWM to the current RSS (Linux >= 4.0).
inline void reset_peak() {
  const int fd = open("/proc/self/clear_refs", O_WRONLY);
  if (fd < 0) return;
  if (write(fd, "5", 1) != 1) std::fprintf(stderr, "cannot reset VmHWM\n");
  close(fd);
}

}  // namespace wisp::bench
