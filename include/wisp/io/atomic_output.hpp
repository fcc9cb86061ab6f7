// Output directories written completely or not at all: everything goes into a hidden staging
// directory next to the target, which replaces the target only on commit(). If the writer fails
// (exception, crash of the step), the staging directory is removed and the target is untouched.
#pragma once

#include <filesystem>
#include <functional>
#include <ostream>
#include <string>

namespace wisp {

class AtomicDirectory {
 public:
  // Throws wisp::Error if `target` exists and is not empty, unless `force` is set.
  AtomicDirectory(std::filesystem::path target, bool force);
  ~AtomicDirectory();
  AtomicDirectory(const AtomicDirectory&) = delete;
  AtomicDirectory& operator=(const AtomicDirectory&) = delete;

  const std::filesystem::path& staging() const { return staging_; }
  const std::filesystem::path& target() const { return target_; }
  // Moves the staging directory to the target (replacing it when forced).
  void commit();

 private:
  std::filesystem::path target_;
  std::filesystem::path staging_;
  bool force_;
  bool committed_ = false;
  std::filesystem::path created_;  // outermost parent directory created for this output, if any
};

// Writes `content` to `path` via a temporary file and rename (complete or absent).
void write_file_atomically(const std::filesystem::path& path, const std::string& content);
// The same with the content written by `write` as it is made (if it throws, nothing is left).
void write_file_atomically(const std::filesystem::path& path, const std::function<void(std::ostream&)>& write);

}  // namespace wisp
