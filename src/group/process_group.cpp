// Process groups. See process_group.hpp.
#include "wisp/group/process_group.hpp"

#include "wisp/error.hpp"

namespace wisp {

void ProcessGroup::send(int, std::string) { throw Error("process group: this group has no point-to-point messages"); }
std::string ProcessGroup::receive() { throw Error("process group: this group has no point-to-point messages"); }

std::vector<std::string> all_gather(ProcessGroup& group, const std::string& mine) {
  return group.exchange(std::vector<std::string>(static_cast<std::size_t>(group.processes()), mine));
}

}  // namespace wisp
