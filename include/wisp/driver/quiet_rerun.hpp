// A rerun of a point the output has reported (the best sweep point, replayed again for its traces
// and cubes): its log lines, the identity's warnings above all, would be printed a second time, so
// while it lives the log says errors only. One info line says what runs.
#pragma once

#include <spdlog/spdlog.h>

#include <string>

namespace wisp::driver {

class QuietRerun {
 public:
  explicit QuietRerun(const std::string& what) : level_(spdlog::get_level()) {
    spdlog::info("{}", what);
    if (level_ < spdlog::level::err) spdlog::set_level(spdlog::level::err);
  }
  ~QuietRerun() { spdlog::set_level(level_); }
  QuietRerun(const QuietRerun&) = delete;
  QuietRerun& operator=(const QuietRerun&) = delete;

 private:
  spdlog::level::level_enum level_;
};

}  // namespace wisp::driver
