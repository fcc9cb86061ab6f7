// Anomaly names and totals.
#include "wisp/trace/anomaly.hpp"

namespace wisp {

std::string_view to_string(AnomalyKind kind) {
  switch (kind) {
    case AnomalyKind::UnmatchedSend:
      return "unmatched send";
    case AnomalyKind::UnmatchedReceive:
      return "unmatched receive";
    case AnomalyKind::ReceiveBeforeSend:
      return "receive completes before its send starts";
    case AnomalyKind::IncompleteCollective:
      return "collective with missing members";
    case AnomalyKind::MismatchedCollective:
      return "collective with mismatched operations";
    case AnomalyKind::NonMonotonicTime:
      return "non-monotonic timestamp";
    case AnomalyKind::UnclosedRegion:
      return "region never left";
    case AnomalyKind::UnmatchedLeave:
      return "leave without matching enter";
    case AnomalyKind::UnknownRequest:
      return "request event for an unknown request";
    case AnomalyKind::UnfinishedRequest:
      return "request never completed";
    case AnomalyKind::OrphanThreadRegion:
      return "thread region outside its master's parallel region";
    case AnomalyKind::TeamSizeChange:
      return "parallel region team size changes";
    case AnomalyKind::StrayLocation:
      return "location outside every MPI process";
  }
  return "?";
}

void Anomalies::merge(const Anomalies& other) {
  for (std::size_t k = 0; k < items_.size(); ++k) {
    Anomaly& a = items_[k];
    for (const std::string& example : other.items_[k].examples)
      if (a.examples.size() < kMaxExamples) a.examples.push_back(example);
    a.count += other.items_[k].count;
  }
}

std::uint64_t Anomalies::total() const {
  std::uint64_t n = 0;
  for (const auto& a : items_) n += a.count;
  return n;
}

void pack_anomalies(Packer& out, const Anomalies& anomalies) {
  for (int k = 0; k < kAnomalyKindCount; ++k) {
    const Anomaly& a = anomalies[AnomalyKind(k)];
    out.put(a.count).put<std::uint64_t>(a.examples.size());
    for (const std::string& e : a.examples) out.put_string(e);
  }
}

Anomalies unpack_anomalies(Unpacker& in) {
  Anomalies anomalies;
  for (int k = 0; k < kAnomalyKindCount; ++k) {
    Anomaly a;
    a.count = in.get<std::uint64_t>();
    const auto n = in.get<std::uint64_t>();
    for (std::uint64_t i = 0; i < n && i <= Anomalies::kMaxExamples; ++i) a.examples.push_back(in.get_string());
    anomalies.set(AnomalyKind(k), std::move(a));
  }
  return anomalies;
}

}  // namespace wisp
