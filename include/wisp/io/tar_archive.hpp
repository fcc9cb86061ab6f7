// A POSIX ustar archive of in-memory files, as Cube 4's .cubex container is (anchor.xml and the
// metrics' index and data files, uncompressed): written in one pass, read back by the tests.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace wisp {

struct TarMember {
  std::string name;  // at most 100 bytes, no directories
  std::string content;
};

// Writes the members (mode 0644, mtime 0: the same members give the same bytes) and the
// end-of-archive blocks.
void write_tar(std::ostream& out, const std::vector<TarMember>& members);

// The members of an archive write_tar (or any ustar writer without extensions) produced; throws
// wisp::Error naming `where` if it is not one.
std::vector<TarMember> read_tar(const std::string& bytes, const std::string& where);

}  // namespace wisp
