// The communication matrix. See comm_matrix.hpp.
#include "wisp/analysis/comm_matrix.hpp"

#include <map>

namespace wisp {

CommMatrix communication_matrix(const Trace& t) {
  std::map<std::pair<Rank, Rank>, CommPair> pairs;
  CommMatrix m;
  m.ranks = t.rank_count();
  for (const Message& msg : t.messages) {
    if (msg.sender >= t.rank_count() || msg.send >= t.ranks[msg.sender].p2p.size()) continue;
    CommPair& p = pairs[{msg.sender, msg.receiver}];
    p.from = msg.sender;
    p.to = msg.receiver;
    ++p.messages;
    p.bytes += t.ranks[msg.sender].p2p[msg.send].bytes;
  }
  for (auto& [key, p] : pairs) {
    m.messages += p.messages;
    m.bytes += p.bytes;
    m.pairs.push_back(p);
  }
  return m;
}

}  // namespace wisp
