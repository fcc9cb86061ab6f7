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

CommMatrix communication_matrix(const Trace& trace, ProcessGroup& group) {
  if (!trace.share) return communication_matrix(trace);
  const CommMatrix mine = communication_matrix(trace);  // the messages this process's ranks sent
  CommMatrix m;
  m.ranks = trace.rank_count();
  Packer pairs;
  pairs.put_vector(mine.pairs);
  for (const std::string& packet : all_gather(group, pairs.take())) {
    Unpacker in(packet);
    for (const CommPair& p : in.get_vector<CommPair>()) {
      m.messages += p.messages;
      m.bytes += p.bytes;
      m.pairs.push_back(p);
    }
  }
  return m;
}

}  // namespace wisp
