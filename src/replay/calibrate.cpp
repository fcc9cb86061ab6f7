// Calibration by minimum durations (paper 002). See calibrate.hpp and src/replay/README.md ("Calibration")
// ("Calibration") for the method; each step is one function below.
#include "wisp/replay/calibrate.hpp"

#include "wisp/replay/residuals.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <tuple>

namespace wisp {

namespace {

// A fitted latency: differences of minima leave rounding noise below SimGrid's time precision
// (1 ns), and a latency cannot be negative.
double without_noise(double latency) { return latency < 1e-9 ? 0.0 : latency; }

}  // namespace

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// Seconds per byte of a bandwidth the trace could not observe: 1 PB/s, never the limit.
constexpr double kUnlimitedSlope = 1e-15;

enum class Kind { Local, Send, Receive, Collective, Init, Other };

// One MPI call instance.
struct Sample {
  RegionId region = kNone;
  Rank rank = kNone;
  Kind kind = Kind::Other;
  double duration = 0;
  std::uint64_t bytes = 0;
  std::uint32_t comm_size = 1;
};

bool is_p2p(EventKind k) { return k >= EventKind::MpiSend && k <= EventKind::MpiRequestCancelled; }

Kind kind_of(const Region& region, bool communicates) {
  switch (region.mpi) {
    case MpiFunction::Send:
    case MpiFunction::Bsend:
    case MpiFunction::Rsend:
    case MpiFunction::Ssend:
      return Kind::Send;
    case MpiFunction::Recv:
    case MpiFunction::Sendrecv:
    case MpiFunction::SendrecvReplace:
      return Kind::Receive;
    case MpiFunction::Init:
    case MpiFunction::InitThread:
      return Kind::Init;
    case MpiFunction::Finalize:
      return Kind::Collective;
    default:
      break;
  }
  if (region.kind == RegionKind::MpiCollective) return Kind::Collective;
  if (region.kind == RegionKind::MpiOther && !communicates) return Kind::Local;
  return Kind::Other;
}

const CallSpan* enclosing_call(const RankTrace& rt, EventIndex e);

// When each collective instance's members stop waiting, as Scalasca's wait states define it: the
// latest enter of all members (Barrier, N×N, and the root of an N→1 operation) or the root's enter
// (the other members of a 1→N operation). Indexed by Trace::collectives.
struct CollectiveEnters {
  std::vector<double> latest, root;
};

CollectiveEnters collective_enters(const Trace& t) {
  CollectiveEnters out{std::vector<double>(t.collectives.size(), -kInf),
                       std::vector<double>(t.collectives.size(), -kInf)};
  for (Rank r = 0; r < t.rank_count(); ++r)
    for (const CollectiveRecord& c : t.ranks[r].collectives) {
      const CallSpan* call = c.begin == kNone ? nullptr : enclosing_call(t.ranks[r], c.begin);
      if (!call || c.instance >= t.collectives.size()) continue;
      const double enter = t.ranks[r].events[call->enter].time;
      out.latest[c.instance] = std::max(out.latest[c.instance], enter);
      if (r == c.root) out.root[c.instance] = enter;
    }
  return out;
}

// The time a member of a collective instance waits for, by the operation's class (-inf: none).
double collective_wait_end(const Trace& t, const CollectiveEnters& enters, Rank r, const CollectiveRecord& c) {
  if (c.instance >= t.collectives.size()) return -kInf;
  const CollectiveInstance& instance = t.collectives[c.instance];
  if (!instance.complete || instance.count < 2) return -kInf;
  switch (classify(c.op)) {
    case CollectiveClass::Barrier:
    case CollectiveClass::NxN:
      return enters.latest[c.instance];
    case CollectiveClass::OneToN:
      return r == c.root ? -kInf : enters.root[c.instance];
    case CollectiveClass::NToOne:
      return r == c.root ? enters.latest[c.instance] : -kInf;
    default:
      return -kInf;
  }
}

// One sample per MPI call. A collective's duration is its wait-free part (from the moment its
// wait state ends): the fastest member of an instance is then the one that did not wait, and the
// fitted cost bounds every member's traced non-wait cost from below (no call overruns its trace).
std::vector<Sample> collect_samples(const Trace& t) {
  std::vector<Sample> out;
  const CollectiveEnters enters = collective_enters(t);
  for (Rank r = 0; r < t.rank_count(); ++r) {
    const RankTrace& rt = t.ranks[r];
    for (const CallSpan& call : rt.mpi_calls) {
      Sample s;
      s.rank = r;
      s.region = t.defs.callpaths[rt.events[call.enter].callpath()].region;
      const double enter = rt.events[call.enter].time, leave = rt.events[call.leave].time;
      s.duration = leave - enter;
      s.bytes = call_bytes(t, r, call);
      bool communicates = false, collective = false;
      for (EventIndex k = call.enter; k <= call.leave; ++k) {
        const Event& e = rt.events[k];
        if (is_p2p(e.kind)) {
          communicates = true;
        } else if (e.kind == EventKind::MpiCollectiveEnd) {
          const CollectiveRecord& c = rt.collectives[e.collective()];
          communicates = collective = true;
          if (c.comm < t.defs.comms.size()) s.comm_size = t.defs.comms[c.comm].size();
          s.duration = std::max(0.0, leave - std::max(enter, collective_wait_end(t, enters, r, c)));
        }
      }
      const Region& region = t.defs.regions[s.region];
      s.kind = kind_of(region, communicates);
      if (s.kind == Kind::Collective && !collective && t.defs.world < t.defs.comms.size())
        s.comm_size = t.defs.comms[t.defs.world].size();  // Finalize without records
      out.push_back(s);
    }
  }
  return out;
}

const CallSpan* enclosing_call(const RankTrace& rt, EventIndex e) {
  auto it = std::upper_bound(rt.mpi_calls.begin(), rt.mpi_calls.end(), e,
                             [](EventIndex i, const CallSpan& c) { return i < c.enter; });
  while (it != rt.mpi_calls.begin()) {
    --it;
    if (it->leave >= e) return &*it;
  }
  return nullptr;
}

// What the blocking sends to late receivers show: how many went eagerly and the largest of
// them, and the sizes of those that waited for their receive to complete.
struct EagerEvidence {
  std::uint64_t eager_max = 0;
  std::size_t eager_count = 0;
  std::vector<std::uint64_t> waited;
};

// When the message a Sendrecv receives was sent: its sender's enter (+inf if unknown).
double own_receive_sent(const Trace& t, Rank rank, const CallSpan& call) {
  const RankTrace& rt = t.ranks[rank];
  for (EventIndex k = call.enter; k <= call.leave; ++k) {
    const Event& e = rt.events[k];
    if (e.kind != EventKind::MpiRecv) continue;
    const P2P& p = rt.p2p[e.p2p()];
    if (p.message == kNone) return kInf;
    const Message& m = t.messages[p.message];
    const CallSpan* send_call = enclosing_call(t.ranks[m.sender], t.send_of(m).event);
    return send_call ? t.ranks[m.sender].events[send_call->enter].time : kInf;
  }
  return -kInf;  // no receive in the call
}

EagerEvidence late_receiver_sends(const Trace& t) {
  EagerEvidence out;
  for (const Message& m : t.messages) {
    const RankTrace& srt = t.ranks[m.sender];
    const RankTrace& rrt = t.ranks[m.receiver];
    const P2P& sp = srt.p2p[m.send];
    const P2P& rp = rrt.p2p[m.recv];
    if (srt.events[sp.event].kind != EventKind::MpiSend) continue;
    const CallSpan* send_call = enclosing_call(srt, sp.event);
    if (!send_call) continue;
    const MpiFunction f = t.defs.region_of(srt.events[send_call->enter].callpath()).mpi;
    const bool sendrecv = f == MpiFunction::Sendrecv || f == MpiFunction::SendrecvReplace;
    if (f != MpiFunction::Send && f != MpiFunction::Bsend && f != MpiFunction::Rsend && !sendrecv) continue;
    double posted;
    if (rrt.events[rp.event].kind == EventKind::MpiRecv) {
      const CallSpan* recv_call = enclosing_call(rrt, rp.event);
      if (!recv_call) continue;
      posted = rrt.events[recv_call->enter].time;
    } else if (rp.request_event != kNone) {
      posted = rrt.events[rp.request_event].time;
    } else {
      continue;
    }
    const double send_enter = srt.events[send_call->enter].time;
    const double send_leave = srt.events[send_call->leave].time;
    const double completed = rrt.events[rp.event].time;
    if (posted <= send_enter) continue;  // the receiver was there first: no evidence
    // A Sendrecv also waits for its own receive: its leave tells about the send only if that
    // receive's message had been sent before the send's receiver came.
    if (sendrecv && own_receive_sent(t, m.sender, *send_call) >= posted) continue;
    if (send_leave < posted) {
      out.eager_max = std::max(out.eager_max, sp.bytes);
      ++out.eager_count;
    } else if (send_leave >= completed) {
      out.waited.push_back(sp.bytes);
    }
  }
  return out;
}

// Eager threshold: a blocking send whose receiver came late and that left before the receiver
// arrived went eagerly; one that left only after the receive completed may have waited
// (rendezvous) or, in a run with more ranks than cores, only lost its core. A rendezvous send
// cannot leave before its receiver arrives, so the eager evidence wins: only sends larger than
// every eager one count as rendezvous evidence.
std::uint64_t eager_threshold(const Trace& t, std::string& evidence) {
  const auto [eager_max, eager_count, waited] = late_receiver_sends(t);
  std::uint64_t rendezvous_min = std::numeric_limits<std::uint64_t>::max();
  std::size_t rendezvous_count = 0, overruled = 0;
  for (std::uint64_t b : waited) {
    if (eager_count > 0 && b <= eager_max) {
      ++overruled;
      continue;
    }
    rendezvous_min = std::min(rendezvous_min, b);
    ++rendezvous_count;
  }
  const std::string eager_text =
      eager_count ? fmt::format("{} of at most {} bytes left before their receiver arrived", eager_count, eager_max)
                  : std::string("none left before its receiver arrived");
  const std::string overruled_text =
      overruled ? fmt::format(" ({} send(s) of at most {} bytes that waited do not count: sends as large went eagerly)",
                              overruled, eager_max)
                : std::string();
  if (rendezvous_count > 0) {
    evidence = fmt::format("{} blocking send(s) of {} bytes or more waited for their late receiver to complete; {}{}",
                           rendezvous_count, rendezvous_min, eager_text, overruled_text);
    return rendezvous_min > 0 ? rendezvous_min - 1 : 0;
  }
  if (eager_count > 0) {
    evidence = fmt::format(
        "{} blocking send(s) up to {} bytes left before their receiver arrived; no rendezvous "
        "evidence above, so at least 65536{}",
        eager_count, eager_max, overruled_text);
    return std::max<std::uint64_t>(eager_max, 65536);
  }
  evidence = "no blocking send met a late receiver: default 65536";
  return 65536;
}

struct Minimum {
  double duration = kInf;
  std::uint64_t bytes = 0;
  std::uint64_t count = 0;
  std::uint32_t comm_size = 1;
};

// key: (region, rank or kNone, size class)
using Minima = std::map<std::tuple<RegionId, Rank, std::uint32_t>, Minimum>;

void add(Minima& m, const Sample& s, Rank rank) {
  Minimum& x = m[{s.region, rank, size_class(s.bytes)}];
  ++x.count;
  if (s.duration < x.duration) {
    x.duration = s.duration;
    x.bytes = s.bytes;
    x.comm_size = s.comm_size;
  }
}

struct LinearFit {
  double intercept = 0, slope = 0;
  bool ok = false;
};

// Least squares of t = a + b·s weighted by 1/t² (relative residuals).
LinearFit fit(const std::vector<std::pair<double, double>>& points) {
  LinearFit f;
  if (points.size() < 2) return f;
  double sw = 0, sx = 0, sy = 0;
  for (const auto& [x, y] : points) {
    const double w = 1.0 / std::max(y * y, 1e-30);
    sw += w;
    sx += w * x;
    sy += w * y;
  }
  const double mx = sx / sw, my = sy / sw;
  double sxx = 0, sxy = 0;
  for (const auto& [x, y] : points) {
    const double w = 1.0 / std::max(y * y, 1e-30);
    sxx += w * (x - mx) * (x - mx);
    sxy += w * (x - mx) * (y - my);
  }
  if (sxx <= 0) return f;
  f.slope = sxy / sxx;
  f.intercept = my - f.slope * mx;
  f.ok = true;
  return f;
}

double median(std::vector<double> v) {
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

// A minimum that still contains waiting lies above the line of the wait-free ones (paper 002's
// assumption failed for that class). Theil-Sen (median of pairwise slopes, median intercept)
// finds the line despite such points; those more than max(2 %, 4 x the median relative
// residual) above it are dropped, and fit() runs on the rest.
LinearFit robust_fit(std::vector<std::pair<double, double>> points,
                     std::vector<std::pair<double, double>>* dropped = nullptr) {
  if (points.size() < 3) return fit(points);
  std::vector<double> slopes;
  for (std::size_t i = 0; i < points.size(); ++i)
    for (std::size_t j = i + 1; j < points.size(); ++j)
      if (points[j].first != points[i].first)
        slopes.push_back((points[j].second - points[i].second) / (points[j].first - points[i].first));
  if (slopes.empty()) return fit(points);
  const double slope = median(slopes);
  std::vector<double> intercepts;
  for (const auto& [x, y] : points) intercepts.push_back(y - slope * x);
  const double intercept = median(intercepts);
  std::vector<double> rel, magnitude;
  for (const auto& [x, y] : points) {
    const double model = intercept + slope * x;
    rel.push_back(model > 0 ? (y - model) / model : 0);
    magnitude.push_back(std::abs(rel.back()));
  }
  const double limit = std::max(0.02, 4 * median(magnitude));
  std::vector<std::pair<double, double>> kept;
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (rel[i] > limit) {
      if (dropped) dropped->push_back(points[i]);
    } else {
      kept.push_back(points[i]);
    }
  }
  return fit(kept);
}

// Points (bytes, duration) of one region's rendezvous classes, global (rank kNone) or one rank's.
std::vector<std::pair<double, double>> rendezvous_points(const Minima& minima, RegionId region, Rank rank,
                                                         std::uint64_t eager) {
  std::vector<std::pair<double, double>> pts;
  for (const auto& [key, m] : minima)
    if (std::get<0>(key) == region && std::get<1>(key) == rank && m.bytes > eager)
      pts.emplace_back(static_cast<double>(m.bytes), m.duration);
  return pts;
}

// Every message whose receiver was waiting when the send started (any message with `waiting_only`
// false), as visit(receiver, bytes, transfer): its arrival after the send's overhead, i.e. the
// network transfer as the replay sees it (eager or rendezvous alike: with the receive posted, the
// transfer starts when the send is ready).
template <class Visit>
void visit_transfers(const Trace& t, const std::map<RegionId, double>& overhead, bool waiting_only, Visit&& visit) {
  for (const Message& m : t.messages) {
    const RankTrace& srt = t.ranks[m.sender];
    const RankTrace& rrt = t.ranks[m.receiver];
    const P2P& sp = srt.p2p[m.send];
    const P2P& rp = rrt.p2p[m.recv];
    if (sp.bytes == 0) continue;
    const CallSpan* send_call = enclosing_call(srt, sp.event);
    const CallSpan* recv_call = enclosing_call(rrt, rp.event);
    if (!send_call || !recv_call) continue;
    const RegionId send_region = t.defs.callpaths[srt.events[send_call->enter].callpath()].region;
    if (t.defs.regions[send_region].mpi == MpiFunction::Ssend) continue;
    const double posted =
        rp.request_event != kNone ? rrt.events[rp.request_event].time : rrt.events[recv_call->enter].time;
    const double start = srt.events[send_call->enter].time;
    if (waiting_only && posted > start) continue;  // the receiver came later: the arrival is not observed
    const auto o = overhead.find(send_region);
    visit(m.receiver, sp.bytes, rrt.events[recv_call->leave].time - start - (o == overhead.end() ? 0 : o->second));
  }
}

// Per (receiver, size class) of the transfers above: the fastest.
std::map<std::pair<Rank, std::uint32_t>, Minimum> waiting_receiver_minima(const Trace& t,
                                                                          const std::map<RegionId, double>& overhead,
                                                                          bool waiting_only = true) {
  std::map<std::pair<Rank, std::uint32_t>, Minimum> out;
  visit_transfers(t, overhead, waiting_only, [&](Rank receiver, std::uint64_t bytes, double transfer) {
    Minimum& x = out[{receiver, size_class(bytes)}];
    ++x.count;
    if (transfer > 0 && transfer < x.duration) {
      x.duration = transfer;
      x.bytes = bytes;
    }
  });
  for (auto it = out.begin(); it != out.end();) it = it->second.duration == kInf ? out.erase(it) : std::next(it);
  return out;
}

// Values a fit reached only by a bound are reported, never used silently.
void note_degenerate_fits(Calibration& c, const std::vector<Rank>& zero_latency,
                          const std::vector<std::string>& clamped) {
  if (c.latency == 0)
    c.notes.push_back(
        "latency fitted to 0 (the receive fit's intercept is not above the receive overhead): "
        "messages cost size/bandwidth only");
  if (!zero_latency.empty())
    c.notes.push_back(fmt::format("receiver link latency fitted to 0 on rank(s) {}", fmt::join(zero_latency, ", ")));
  if (!clamped.empty())
    c.notes.push_back(
        fmt::format("size factors clamped to [1/64, 64] (the linear fit does not describe these "
                    "classes): {}",
                    fmt::join(clamped, ", ")));
}

// What the steps of calibrate() share, filled in step order.
struct Fitting {
  std::vector<Sample> samples;
  std::uint64_t eager = 0;              // E, step 2
  Minima global, local;                 // step 3: per (function, class), and per rank for receives
  RegionId recv_region = kNone;         // MPI_Recv's region, step 4
  double recv_overhead = 0;             // step 5
  double latency = 0, beta = 0;         // L and 1/B, steps 4-5
  double round_latency = 0;             // a collective round's message as replayed: L, or the links' (step 8b)
  std::map<RegionId, double> overhead;  // step 6
};

// The kind of a region's MPI calls (its first sample's).
Kind kind_of_region(const std::vector<Sample>& samples, RegionId region) {
  for (const Sample& s : samples)
    if (s.region == region) return s.kind;
  return Kind::Other;
}

// 1. The fastest MPI call without communication bounds every call's overhead from below.
double base_overhead(const std::vector<Sample>& samples) {
  double base = kInf;
  for (const Sample& s : samples)
    if (s.kind == Kind::Local) base = std::min(base, s.duration);
  return base == kInf ? 0 : base;
}

// 3. Minima per (function, class): global for every function, per rank for receives.
void collect_minima(Fitting& f) {
  for (const Sample& s : f.samples) {
    if (s.kind == Kind::Local || s.kind == Kind::Init) continue;
    add(f.global, s, kNone);
    if (s.kind == Kind::Receive) add(f.local, s, s.rank);
  }
}

// One point of the network fit: the fastest wait-free transfer of a size class, and how many
// transfers the class holds.
struct TransferPoint {
  double bytes = 0, seconds = 0;
  std::uint64_t count = 0;
};

// A class with fewer transfers is not a point of the fit (one fast outlier is not a network), and
// fewer transfers in all leave the network unobserved.
constexpr std::uint64_t kPointTransfers = 10;
constexpr std::uint64_t kObservedTransfers = 100;

// Messages per size class over all receivers: the fastest arrival after the send's overhead (the
// transfer as the replay computes it: L + s/B). Any message bounds L + s/B from above (a receiver
// that came late only lengthens what is measured), so no message of the anchored identity arrives
// later in the model than it completed in the trace.
std::vector<TransferPoint> message_transfer_points(const Trace& t, const Fitting& f);

// Collective instances: the wait-free part of each call (from the end of its wait state) per step
// of the algorithm's ceil(log2 n) rounds of b bytes, the fastest per size class.
std::vector<TransferPoint> collective_transfer_points(const Fitting& f, const std::vector<Region>& regions) {
  std::map<std::uint32_t, TransferPoint> classes;
  for (const Sample& s : f.samples) {
    if (s.kind != Kind::Collective || s.comm_size < 2 || regions[s.region].mpi == MpiFunction::Finalize) continue;
    TransferPoint& p = classes[size_class(s.bytes)];
    const double step = s.duration / ceil_log2(s.comm_size);
    if (p.count++ == 0 || step < p.seconds) {
      p.seconds = step;
      p.bytes = static_cast<double>(s.bytes);
    }
  }
  std::vector<TransferPoint> out;
  for (const auto& [k, p] : classes) out.push_back(p);
  return out;
}

std::uint64_t transfers(const std::vector<TransferPoint>& points) {
  std::uint64_t n = 0;
  for (const TransferPoint& p : points) n += p.count;
  return n;
}

// t = L + s/B over the classes with enough transfers; with a single size the line is not
// determined: its transfer time is all latency, which the notes say.
LinearFit fit_transfers(Calibration& c, const std::vector<TransferPoint>& points, const std::string& source) {
  std::vector<std::pair<double, double>> xy;
  const TransferPoint* most = nullptr;
  for (const TransferPoint& p : points) {
    if (p.count < kPointTransfers) continue;
    xy.emplace_back(p.bytes, p.seconds);
    if (!most || p.count > most->count) most = &p;
  }
  LinearFit net = robust_fit(xy);
  if (net.ok && net.slope > 0) {
    // The line bounds every class's fastest transfer from below, so that no call of the anchored
    // identity ends later in the model than traced.
    for (const TransferPoint& p : points) net.intercept = std::min(net.intercept, p.seconds - net.slope * p.bytes);
    net.intercept = std::max(0.0, net.intercept);
    c.network_evidence = fmt::format("fitted on the fastest transfers of {} ({} size classes, {} transfers)", source,
                                     xy.size(), transfers(points));
    return net;
  }
  if (!most) return LinearFit{};
  double fastest = most->seconds;
  for (const TransferPoint& p : points) fastest = std::min(fastest, p.seconds);
  c.notes.push_back(fmt::format(
      "network fitted on {} of one message size ({} bytes, {} transfers): its fastest transfer, {:.3f} us, is "
      "all latency; latency and bandwidth could not be separated (bandwidth taken as not limiting)",
      source, most->bytes, most->count, fastest * 1e6));
  c.network_evidence = fmt::format("fitted on the fastest transfer of {} of one message size", source);
  c.platform.network_one_size = static_cast<std::uint64_t>(most->bytes);
  return LinearFit{fastest, kUnlimitedSlope, true};
}

// 4. Network: t = a + s/B over the rendezvous classes of the blocking receives (their fastest
//    instance found the sender waiting, so it is one whole transfer), else over the sends; else
//    over the fastest transfers of messages and collective steps, below all of them. The intercept of the
//    first two includes the receive overhead (`latency_from_intercept`). A trace with fewer than 100
//    observed transfers gets a default, noted.
LinearFit fit_network(Calibration& c, Fitting& f, const Trace& trace, bool& defaulted, bool& from_receives) {
  const std::vector<Region>& regions = trace.defs.regions;
  std::vector<std::pair<double, double>> recv_points;
  if (f.recv_region != kNone) recv_points = rendezvous_points(f.global, f.recv_region, kNone, f.eager);
  LinearFit net = robust_fit(recv_points);
  if (!net.ok || net.slope <= 0) {
    for (RegionId r = 0; r < regions.size() && !(net.ok && net.slope > 0); ++r)
      if (regions[r].mpi == MpiFunction::Send || regions[r].mpi == MpiFunction::Ssend)
        net = robust_fit(rendezvous_points(f.global, r, kNone, f.eager));
    if (net.ok && net.slope > 0)
      c.notes.push_back("fewer than two rendezvous MPI_Recv classes: network fitted on sends");
  }
  from_receives = net.ok && net.slope > 0;
  c.network_evidence = "fitted on the fastest blocking receives (or sends) of the rendezvous size classes";
  if (from_receives) return net;
  std::vector<TransferPoint> points = message_transfer_points(trace, f);
  const std::uint64_t messages = transfers(points);
  const std::vector<TransferPoint> collective = collective_transfer_points(f, regions);
  points.insert(points.end(), collective.begin(), collective.end());
  if (transfers(points) >= kObservedTransfers)
    net = fit_transfers(c, points,
                        messages && transfers(collective)
                            ? "point-to-point messages and collective instances"
                            : (messages ? "point-to-point messages" : "collective instances"));
  if (net.ok) return net;
  defaulted = true;
  c.network_evidence = "default (too little communication)";
  c.notes.push_back(
      fmt::format("too little communication to fit a network ({} messages, {} collective calls; {} needed): default "
                  "latency 1 us, bandwidth 10 GB/s",
                  messages, transfers(collective), kObservedTransfers));
  return LinearFit{1e-6 + c.base_overhead, 1e-10, true};
}

// 5. The receive overhead: the fastest eager receive (its message had arrived), else the base.
double receive_overhead(const Fitting& f, double base) {
  double recv_overhead = kInf;
  for (const auto& [key, m] : f.global)
    if (std::get<0>(key) == f.recv_region && m.bytes <= f.eager) recv_overhead = std::min(recv_overhead, m.duration);
  if (recv_overhead == kInf) recv_overhead = base;
  return std::max(0.0, recv_overhead);
}

// 6. The overhead of one region's calls, by their kind.
double call_overhead(const Fitting& f, const std::vector<Region>& regions, RegionId region) {
  double o = kInf;
  switch (kind_of_region(f.samples, region)) {
    case Kind::Init:
      return 0;  // the replay takes MPI_Init's cost from the trace itself
    case Kind::Receive:
      return f.recv_overhead;
    case Kind::Send: {
      const bool synchronous = regions[region].mpi == MpiFunction::Ssend;
      double eager = kInf, rendezvous = kInf;
      for (const auto& [key, m] : f.global) {
        if (std::get<0>(key) != region) continue;
        if (m.bytes <= f.eager && !synchronous)
          eager = std::min(eager, m.duration);
        else
          rendezvous = std::min(rendezvous, m.duration - f.latency - static_cast<double>(m.bytes) * f.beta);
      }
      return eager < kInf ? eager : std::max(0.0, rendezvous);
    }
    case Kind::Collective:
      for (const Sample& s : f.samples)
        if (s.region == region)
          o = std::min(o,
                       s.duration - ceil_log2(s.comm_size) * (f.round_latency + static_cast<double>(s.bytes) * f.beta));
      return std::max(0.0, o);
    default:
      for (const Sample& s : f.samples)
        if (s.region == region) o = std::min(o, s.duration);
      return o;
  }
}

// 6. Per-call overheads of every region with communicating calls.
std::map<RegionId, double> call_overheads(const Fitting& f, const std::vector<Region>& regions) {
  std::map<RegionId, double> overhead;
  for (const Sample& s : f.samples)
    if (s.kind != Kind::Local && !overhead.count(s.region)) overhead[s.region] = kInf;
  for (auto& [region, o] : overhead) o = call_overhead(f, regions, region);
  return overhead;
}

std::vector<TransferPoint> message_transfer_points(const Trace& t, const Fitting& f) {
  // Step 4 runs before L and 1/B are known (both still 0): these are the overheads of eager and
  // non-blocking sends, which do not depend on the network.
  std::map<std::uint32_t, TransferPoint> classes;
  for (const auto& [key, m] : waiting_receiver_minima(t, call_overheads(f, t.defs.regions), false)) {
    TransferPoint& p = classes[key.second];
    if (p.count == 0 || m.duration < p.seconds) {
      p.seconds = m.duration;
      p.bytes = static_cast<double>(m.bytes);
    }
    p.count += m.count;
  }
  std::vector<TransferPoint> out;
  for (const auto& [k, p] : classes) out.push_back(p);
  return out;
}

// 7. Fitted value of every class minimum (what the replay charges a wait-free instance).
void add_fitted_points(Calibration& c, Fitting& f, const std::vector<Region>& regions) {
  auto fitted = [&](RegionId region, const Minimum& m, double o) {
    const double transfer = f.latency + static_cast<double>(m.bytes) * f.beta;
    switch (kind_of_region(f.samples, region)) {
      case Kind::Receive:
        return m.bytes > f.eager ? o + transfer : -1.0;
      case Kind::Send:
        return m.bytes <= f.eager && regions[region].mpi != MpiFunction::Ssend ? o : o + transfer;
      case Kind::Collective:
        return o + ceil_log2(m.comm_size) * (transfer - f.latency + f.round_latency);
      default:
        return o;
    }
  };
  std::vector<CalibrationPoint> global;  // before the receivers' rows (step 8)
  for (const auto& [key, m] : f.global) {
    const RegionId region = std::get<0>(key);
    global.push_back(CalibrationPoint{regions[region].name, kNone, std::get<2>(key), m.bytes, m.count, m.duration,
                                      fitted(region, m, f.overhead[region])});
  }
  c.points.insert(c.points.begin(), global.begin(), global.end());
}

// Step 8's results over all receivers.
struct ReceiverLinks {
  std::vector<HostLink> links;
  double fastest = 0;  // the highest receiver bandwidth
  std::vector<Rank> zero_latency;
  std::vector<std::string> clamped;
};
using WaitingMinima = std::map<std::pair<Rank, std::uint32_t>, Minimum>;

// 8, for receiver r: its link from its own receive minima, then per size class a factor on the
// simulated bytes that makes the replay hit the class minimum exactly: rendezvous classes from
// the receive minima, eager ones (and rendezvous ones without a usable receive minimum) from
// messages whose receiver already waited (arrival − send start − send overhead).
void fit_receiver(Calibration& c, const Fitting& f, const std::string& recv_name, Rank r,
                  const WaitingMinima& waiting_transfers, ReceiverLinks& out) {
  std::vector<std::pair<double, double>> dropped;
  const auto points = rendezvous_points(f.local, f.recv_region, r, f.eager);
  const LinearFit fit = robust_fit(points, &dropped);
  if (!fit.ok || fit.slope <= 0) return;
  ReceiverFit rf{r, without_noise(fit.intercept - f.recv_overhead), 1.0 / fit.slope, points.size() - dropped.size()};
  // The link's latency is at most what its eager messages took to a waiting receiver: the line
  // through the large rendezvous receives can cross zero bytes above them (TCP: 14 us, where
  // 8 bytes arrive in 3.5 us); the rendezvous classes keep their minima through their size factors.
  for (const auto& [key, m] : waiting_transfers)
    if (key.first == r && m.bytes <= f.eager)
      rf.latency = std::min(rf.latency, std::max(0.0, m.duration - static_cast<double>(m.bytes) / rf.bandwidth));
  c.receivers.push_back(rf);
  out.links[r].down_latency = rf.latency;
  out.links[r].down_bandwidth = rf.bandwidth;
  out.fastest = std::max(out.fastest, rf.bandwidth);
  if (rf.latency == 0) out.zero_latency.push_back(r);
  auto& factors = c.platform.size_factors[fmt::format("node-{}", r)];
  auto set_factor = [&](std::uint32_t k, double bytes, double transfer) {
    const double f_k = (transfer - rf.latency) * rf.bandwidth / bytes;
    if (!(bytes > 0 && f_k > 0)) return;
    factors[k] = std::clamp(f_k, 1.0 / 64, 64.0);
    if (factors[k] != f_k) out.clamped.push_back(fmt::format("rank {} class {} ({:.3g})", r, k, f_k));
  };
  for (const auto& [key, m] : f.local) {
    if (std::get<0>(key) != f.recv_region || std::get<1>(key) != r) continue;
    const bool used =
        m.bytes > f.eager && std::find(dropped.begin(), dropped.end(),
                                       std::make_pair(static_cast<double>(m.bytes), m.duration)) == dropped.end();
    c.points.push_back(CalibrationPoint{recv_name, r, std::get<2>(key), m.bytes, m.count, m.duration,
                                        used ? f.recv_overhead + rf.latency + m.bytes * fit.slope : -1.0});
    if (used) set_factor(std::get<2>(key), static_cast<double>(m.bytes), m.duration - f.recv_overhead);
  }
  // Rendezvous classes too when no receive minimum of theirs was usable (e.g. every receive of the
  // class also waited for its sender).
  for (const auto& [key, m] : waiting_transfers)
    if (key.first == r && (m.bytes <= f.eager || !factors.count(key.second)))
      set_factor(key.second, static_cast<double>(m.bytes), m.duration);
  if (factors.empty()) c.platform.size_factors.erase(fmt::format("node-{}", r));
}

// 8. Per-receiver links from each rank's own minima (paper 002: local minima for
//    point-to-point): the network is not symmetric in general.
ReceiverLinks fit_receivers(Calibration& c, const Fitting& f, const Trace& trace) {
  ReceiverLinks out;
  out.links.assign(trace.rank_count(), HostLink{0, f.latency, c.bandwidth, c.bandwidth});
  out.fastest = c.bandwidth;
  const WaitingMinima waiting_transfers = waiting_receiver_minima(trace, f.overhead);
  for (Rank r = 0; r < trace.rank_count() && f.recv_region != kNone; ++r)
    fit_receiver(c, f, trace.defs.regions[f.recv_region].name, r, waiting_transfers, out);
  for (HostLink& l : out.links) l.up_bandwidth = out.fastest;  // senders never limit below receivers
  return out;
}

// 8b. A collective's overhead is its fastest wait-free part less the rounds' transfer as the replay
//     charges it: over the receivers' links (any sender's up link and any receiver's down link, the
//     longest) once step 8 has fitted them below L, so that a replayed collective costs what its
//     fastest instance took, not less.
void collective_overheads_on_links(Fitting& f, const std::vector<HostLink>& links, const std::vector<Region>& regions) {
  double up = 0, down = 0;
  for (const HostLink& l : links) up = std::max(up, l.up_latency), down = std::max(down, l.down_latency);
  if (links.empty() || up + down >= f.latency) return;
  f.round_latency = up + down;
  for (auto& [region, o] : f.overhead)
    if (kind_of_region(f.samples, region) == Kind::Collective) o = call_overhead(f, regions, region);
}

// The per-message overheads its file charges a function it does not list (another trace's
// MPI_Isend, MPI_Waitall, MPI_Allreduce): the mean overhead of the trace's sending calls, blocking
// and not, and the overhead of its blocking receives. Unset without such calls.
void per_message_overheads(MpiCosts& mpi, const Fitting& f, const std::vector<Region>& regions) {
  double sum = 0;
  std::size_t n = 0;
  for (const auto& [region, o] : f.overhead) {
    const MpiFunction m = regions[region].mpi;
    const bool sends =
        (m >= MpiFunction::Send && m <= MpiFunction::Rsend) || (m >= MpiFunction::Isend && m <= MpiFunction::Irsend);
    if (sends) sum += o, ++n;
  }
  if (n) mpi.send_overhead = sum / static_cast<double>(n);
  if (f.recv_region != kNone) mpi.receive_overhead = f.recv_overhead;
}

// 10. The typical excess: per size class of wait-free transfers (messages to a waiting receiver,
//     collective steps) with enough of them, the median minus the fastest (what the model prices);
//     a line a + s·b over the classes, weighted by their transfers, neither part negative.
struct ExcessClass {
  double bytes = 0, excess = 0;
  std::size_t transfers = 0;
};

ExcessClass excess_class(std::vector<std::pair<std::uint64_t, double>> transfers) {
  std::vector<double> seconds;
  double bytes = 0;
  for (const auto& [b, t] : transfers) seconds.push_back(t), bytes += static_cast<double>(b);
  const double fastest = *std::min_element(seconds.begin(), seconds.end());
  return ExcessClass{bytes / static_cast<double>(seconds.size()), median(seconds) - fastest, seconds.size()};
}

std::vector<ExcessClass> excess_classes(const Fitting& f, const Trace& trace) {
  std::map<std::pair<bool, std::uint32_t>, std::vector<std::pair<std::uint64_t, double>>> classes;
  visit_transfers(trace, f.overhead, true, [&](Rank, std::uint64_t bytes, double transfer) {
    classes[{false, size_class(bytes)}].emplace_back(bytes, transfer);
  });
  for (const Sample& s : f.samples)
    if (s.kind == Kind::Collective && s.comm_size >= 2 && trace.defs.regions[s.region].mpi != MpiFunction::Finalize)
      classes[{true, size_class(s.bytes)}].emplace_back(s.bytes, s.duration / ceil_log2(s.comm_size));
  std::vector<ExcessClass> out;
  for (auto& [key, transfers] : classes)
    if (transfers.size() >= kPointTransfers) out.push_back(excess_class(std::move(transfers)));
  return out;
}

void fit_typical_excess(Calibration& c, const Fitting& f, const Trace& trace) {
  const std::vector<ExcessClass> classes = excess_classes(f, trace);
  double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (const ExcessClass& k : classes) {
    const double w = static_cast<double>(k.transfers);
    n += w, sx += w * k.bytes, sy += w * k.excess, sxx += w * k.bytes * k.bytes, sxy += w * k.bytes * k.excess;
  }
  if (n < kObservedTransfers) return;
  const double det = n * sxx - sx * sx;
  MpiCosts::TypicalExcess e;
  e.per_byte = det > 0 ? std::max(0.0, (n * sxy - sx * sy) / det) : 0.0;
  e.latency = std::max(0.0, (sy - e.per_byte * sx) / n);
  c.platform.mpi.typical_excess = e;
  std::string detail;
  for (const ExcessClass& k : classes)
    detail += fmt::format("{}{:.0f} B: +{:.3f} us", detail.empty() ? "" : ", ", k.bytes, k.excess * 1e6);
  c.typical_evidence = fmt::format("median minus fastest of {:.0f} wait-free transfers in {} size classes ({})", n,
                                   classes.size(), detail);
}

// 11. The eager copy (LogGOPS's O): per sending function that does not wait for its receiver
//     (standard, buffered, ready, blocking or not), the line through the fastest call of each eager
//     size class with enough calls; its slope is what a byte more costs the sender. The functions'
//     slopes weighted by their eager calls, up to the largest size a line was fitted on.
bool sends_without_waiting(MpiFunction m) {
  return m == MpiFunction::Send || m == MpiFunction::Bsend || m == MpiFunction::Rsend || m == MpiFunction::Isend ||
         m == MpiFunction::Ibsend || m == MpiFunction::Irsend;
}

void fit_eager_copy(Calibration& c, const Fitting& f, const std::vector<Region>& regions) {
  std::map<RegionId, std::vector<std::pair<double, double>>> points;
  std::map<RegionId, std::uint64_t> calls;
  for (const auto& [key, m] : f.global) {
    const RegionId region = std::get<0>(key);
    if (!sends_without_waiting(regions[region].mpi) || m.bytes > f.eager || m.count < kPointTransfers) continue;
    points[region].emplace_back(static_cast<double>(m.bytes), m.duration);
    calls[region] += m.count;
  }
  double weighted = 0, weight = 0, up_to = 0;
  std::string detail;
  for (const auto& [region, pts] : points) {
    const LinearFit line = fit(pts);
    if (!line.ok) continue;
    const double w = static_cast<double>(calls[region]);
    weighted += w * std::max(0.0, line.slope), weight += w;
    for (const auto& [bytes, seconds] : pts) up_to = std::max(up_to, bytes);
    detail += fmt::format("{}{} {:.4g} ns/KiB over {} classes", detail.empty() ? "" : ", ", regions[region].name,
                          std::max(0.0, line.slope) * 1024e9, pts.size());
  }
  if (weight < kObservedTransfers) return;
  c.platform.mpi.eager_copy = MpiCosts::EagerCopy{weighted / weight, static_cast<std::uint64_t>(up_to)};
  c.copy_evidence = fmt::format("fastest eager send per size class, {:.0f} calls: {}", weight, detail);
}

// 9. The calibrated platform: a crossbar with one host per rank, the fitted links and overheads.
void describe_platform(Calibration& c, const Fitting& f, const Trace& trace, std::vector<HostLink> links) {
  Platform& p = c.platform;
  p.topology = Topology::Crossbar;
  p.hosts = std::max<std::uint32_t>(trace.rank_count(), 1);
  p.speed = 1e9;
  p.latency = f.latency;
  p.bandwidth = c.bandwidth;
  p.contention = true;
  p.host_links = std::move(links);
  p.mpi.eager_threshold = f.eager;
  p.mpi.default_overhead = c.base_overhead;
  for (const auto& [region, o] : f.overhead) p.mpi.overheads[trace.defs.regions[region].name] = o;
  per_message_overheads(p.mpi, f, trace.defs.regions);
}

}  // namespace

Calibration calibrate(const Trace& trace) {
  Calibration c;
  const auto& regions = trace.defs.regions;
  Fitting f;
  f.samples = collect_samples(trace);
  c.base_overhead = base_overhead(f.samples);

  // 2. Eager threshold from late receivers; 2b. the rooted collective algorithms the trace allows.
  c.eager_threshold = eager_threshold(trace, c.eager_evidence);
  if (c.eager_evidence.rfind("no blocking send", 0) == 0) c.notes.push_back("eager threshold: " + c.eager_evidence);
  f.eager = c.eager_threshold;
  c.algorithms = calibrate_collectives(trace, c.algorithm_evidence);

  collect_minima(f);
  for (RegionId r = 0; r < regions.size(); ++r)
    if (regions[r].mpi == MpiFunction::Recv) f.recv_region = r;
  f.recv_overhead = receive_overhead(f, c.base_overhead);
  bool defaulted = false;      // the default network: its latency is 1 us whatever the receive overhead
  bool from_receives = false;  // the intercept includes the receive overhead
  const LinearFit net = fit_network(c, f, trace, defaulted, from_receives);
  c.bandwidth = 1.0 / net.slope;
  c.latency = defaulted       ? 1e-6
              : from_receives ? without_noise(net.intercept - f.recv_overhead)
                              : without_noise(net.intercept);
  f.latency = f.round_latency = c.latency;
  f.beta = 1.0 / c.bandwidth;
  f.overhead = call_overheads(f, regions);
  ReceiverLinks receivers = fit_receivers(c, f, trace);
  collective_overheads_on_links(f, receivers.links, regions);
  add_fitted_points(c, f, regions);
  note_degenerate_fits(c, receivers.zero_latency, receivers.clamped);
  describe_platform(c, f, trace, std::move(receivers.links));
  fit_typical_excess(c, f, trace);
  fit_eager_copy(c, f, regions);
  return c;
}

namespace {

std::string us(double s) { return fmt::format("{:.3f} us", s * 1e6); }
std::string rate(double b) { return fmt::format("{:.4g} GB/s", b / 1e9); }

std::string receiver_links_text(const Calibration& c) {
  if (c.receivers.empty()) return {};
  std::string out = "receiver links (each rank's own MPI_Recv minima)\n";
  for (const ReceiverFit& r : c.receivers) {
    out += fmt::format("  rank {:<5} L {}  B {}  ({} classes)", r.rank, us(r.latency), rate(r.bandwidth), r.classes);
    const auto it = c.platform.size_factors.find(fmt::format("node-{}", r.rank));
    if (it != c.platform.size_factors.end()) {
      out += "  size factors";
      for (const auto& [k, f] : it->second) out += fmt::format(" {}:{:.3f}", k, f);
    }
    out += "\n";
  }
  return out;
}

std::string class_minima_text(const Calibration& c) {
  std::string out = "class minima and fit residuals\n";
  out += fmt::format("  {:<20} {:>5} {:>5} {:>10} {:>6} {:>14} {:>14} {:>9}\n", "function", "rank", "class", "bytes",
                     "calls", "measured", "fitted", "residual");
  double worst = 0;
  for (const CalibrationPoint& p : c.points) {
    std::string fitted = "-", residual = "-";
    if (p.fitted >= 0) {
      fitted = us(p.fitted);
      const double rel = p.measured > 0 ? (p.fitted - p.measured) / p.measured : 0;
      residual = fmt::format("{:+.1f} %", rel * 100);
      worst = std::max(worst, std::abs(rel));
    }
    out += fmt::format("  {:<20} {:>5} {:>5} {:>10} {:>6} {:>14} {:>14} {:>9}\n", p.function,
                       p.rank == kNone ? std::string("all") : std::to_string(p.rank), p.size_class, p.bytes,
                       p.instances, us(p.measured), fitted, residual);
  }
  out += fmt::format("largest relative residual {:.1f} %\n", worst * 100);
  return out;
}

std::string call_costs_text(const Calibration& c) {
  if (c.call_costs.empty()) return {};
  std::string out =
      "typical call costs beyond the network model (mean trace-anchored residual; spread of single calls)\n";
  out += fmt::format("  {:<20} {:>5} {:>5} {:>7} {:>12} {:>12} {:>12} {:>12}\n", "function", "rank", "class", "calls",
                     "cost (mean)", "median", "p90", "max");
  for (const CallCost& cc : c.call_costs)
    out += fmt::format("  {:<20} {:>5} {:>5} {:>7} {:>12} {:>12} {:>12} {:>12}\n", cc.function, cc.rank, cc.size_class,
                       cc.calls, us(cc.mean), us(cc.median), us(cc.p90), us(cc.max));
  return out;
}

}  // namespace

std::string calibration_text(const Calibration& c) {
  std::string out;
  out +=
      "calibration: fastest instance per MPI function and log2 size class taken as wait-free "
      "(paper 002), t = o + L + s/B\n";
  out += fmt::format("  latency L        {}\n", us(c.latency));
  out += fmt::format("  bandwidth B      {} ({:.6g} bytes/s)\n", rate(c.bandwidth), c.bandwidth);
  if (!c.network_evidence.empty()) out += fmt::format("  network          {}\n", c.network_evidence);
  out += fmt::format("  eager threshold  {} bytes: {}\n", c.eager_threshold, c.eager_evidence);
  out += fmt::format("  base overhead    {} (fastest MPI call without communication)\n", us(c.base_overhead));
  const MpiCosts& mpi = c.platform.mpi;
  if (mpi.send_overhead || mpi.receive_overhead)
    out += fmt::format("  per message      send {}, receive {} (what a call of a function not listed below pays)\n",
                       mpi.send_overhead ? us(*mpi.send_overhead) : "-",
                       mpi.receive_overhead ? us(*mpi.receive_overhead) : "-");
  if (const auto& e = mpi.eager_copy)
    out += fmt::format("  eager copy       {:.4g} ns/KiB per eager send, up to {} bytes: {}\n", e->per_byte * 1024e9,
                       e->up_to, c.copy_evidence);
  if (const auto& e = mpi.typical_excess)
    out += fmt::format("  typical excess   {} + {:.4g} ns/KiB beyond the fastest transfer: {}\n", us(e->latency),
                       e->per_byte * 1024e9, c.typical_evidence);
  for (const std::string& n : c.notes) out += "  note: " + n + "\n";
  out += fmt::format("  collectives      {}\n", format_collective_algorithms(c.algorithms));
  for (const std::string& e : c.algorithm_evidence) out += "    " + e + "\n";
  out += "per-call overheads o\n";
  for (const auto& [name, o] : c.platform.mpi.overheads) out += fmt::format("  {:<24} {}\n", name, us(o));
  return out + receiver_links_text(c) + class_minima_text(c) + call_costs_text(c);
}

}  // namespace wisp
