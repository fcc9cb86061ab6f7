// Atomic output directories and files. See atomic_output.hpp.
#include "wisp/io/atomic_output.hpp"

#include <signal.h>
#include <unistd.h>

#include <cerrno>

#include <cstdlib>
#include <fstream>

#include "wisp/error.hpp"
#include "wisp/process/interrupt.hpp"

namespace wisp {

namespace fs = std::filesystem;

namespace {
fs::path sibling(const fs::path& target, const char* what) {
  const fs::path parent = target.has_parent_path() ? target.parent_path() : fs::path(".");
  // Appended piece by piece: GCC 12 warns falsely (-Wrestrict) on "literal" + std::string&&.
  std::string name = ".";
  ((((name += target.filename().string()) += '.') += what) += '-') += std::to_string(getpid());
  return parent / name;
}

// Staging directories of runs that were killed (kill -9, power loss): `.NAME.partial-PID` whose
// process is gone. Removed before a new run writes the same target.
void remove_stale_staging(const fs::path& target) {
  const fs::path parent = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::string prefix = ".";  // appended: see sibling()
  (prefix += target.filename().string()) += ".partial-";
  std::error_code ec;
  for (fs::directory_iterator it(parent, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.rfind(prefix, 0) != 0) continue;
    char* rest = nullptr;
    const long pid = std::strtol(name.c_str() + prefix.size(), &rest, 10);
    if (pid <= 0 || *rest != '\0' || pid == getpid()) continue;
    if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;  // still running
    std::error_code rm;
    fs::remove_all(it->path(), rm);
  }
}

bool exists_nonempty(const fs::path& p) {
  std::error_code ec;
  if (!fs::exists(p, ec)) return false;
  if (!fs::is_directory(p, ec)) return true;
  return !fs::is_empty(p, ec);
}
}  // namespace

AtomicDirectory::AtomicDirectory(fs::path target, bool force) : target_(std::move(target)), force_(force) {
  if (target_.filename().empty()) target_ = target_.parent_path();  // "out/" -> "out"
  if (!force_ && exists_nonempty(target_))
    throw Error(target_.string() +
                ": output directory exists and is not empty (use --force to "
                "replace it)");
  std::error_code ec;
  const fs::path parent = target_.has_parent_path() ? target_.parent_path() : fs::path(".");
  for (fs::path p = parent; !p.empty() && !fs::exists(p, ec); p = p.parent_path()) {
    created_ = p;  // the outermost directory this output creates (removed again if it fails)
    if (p == p.parent_path()) break;
  }
  fs::create_directories(parent, ec);
  remove_stale_staging(target_);
  staging_ = sibling(target_, "partial");
  fs::remove_all(staging_, ec);
  interrupt::add_staging(staging_);
  if (!fs::create_directory(staging_, ec)) {
    interrupt::remove_staging(staging_);
    throw Error(target_.string() + ": cannot create output directory (" + ec.message() + ")");
  }
}

AtomicDirectory::~AtomicDirectory() {
  if (committed_) return;
  std::error_code ec;
  fs::remove_all(staging_, ec);
  interrupt::remove_staging(staging_);
  // Parent directories this output created, if nothing else was put into them meanwhile.
  if (created_.empty()) return;
  for (fs::path p = target_.parent_path(); !p.empty(); p = p.parent_path()) {
    if (!fs::remove(p, ec) || p == created_) break;  // remove() fails on a non-empty directory
  }
}

void AtomicDirectory::commit() {
  std::error_code ec;
  fs::path old;
  // Checked again: another run may have written the target since this one started.
  if (!force_ && exists_nonempty(target_))
    throw Error(target_.string() +
                ": output directory was written by another run meanwhile (use --force "
                "to replace it)");
  if (fs::exists(target_, ec)) {
    old = sibling(target_, "old");
    fs::remove_all(old, ec);
    fs::rename(target_, old, ec);
    if (ec) throw Error(target_.string() + ": cannot replace (" + ec.message() + ")");
  }
  fs::rename(staging_, target_, ec);
  if (ec) throw Error(target_.string() + ": cannot move output into place (" + ec.message() + ")");
  committed_ = true;
  interrupt::remove_staging(staging_);
  if (!old.empty()) fs::remove_all(old, ec);
}

void write_file_atomically(const fs::path& path, const std::string& content) {
  write_file_atomically(path, [&](std::ostream& out) { out << content; });
}

void write_file_atomically(const fs::path& path, const std::function<void(std::ostream&)>& write) {
  const fs::path tmp = sibling(path, "tmp");
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    try {
      write(out);
    } catch (...) {
      out.close();
      std::error_code ec;
      fs::remove(tmp, ec);
      throw;
    }
    out.flush();
    if (!out) {
      std::error_code ec;
      fs::remove(tmp, ec);
      throw Error(path.string() + ": cannot write file");
    }
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) {
    fs::remove(tmp, ec);
    throw Error(path.string() + ": cannot write file (" + ec.message() + ")");
  }
}

}  // namespace wisp
