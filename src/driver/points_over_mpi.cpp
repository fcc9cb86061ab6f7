// Scenario points over MPI ranks with shared identity runs. See points_over_mpi.hpp.
//
// Pool items: point numbers, and identity runs as kIdentity + k. What goes to a worker:
// "KIND ITEM SIZE\n" + SIZE bytes of the point's text + (points) what it needs of the identity:
// "-" (it has it), "B" + encode_identity's bytes, or "E" + the identity's error. Answers: a point's
// row ("MEASURED IDENTITY SCENARIO\n" + error) or an identity ("K" + bytes, or "E" + error).
#include "wisp/driver/points_over_mpi.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "wisp/driver/identity_share.hpp"
#include "wisp/error.hpp"

namespace wisp {

namespace {

namespace fs = std::filesystem;

constexpr std::size_t kIdentity = std::size_t{1} << 62;

// Rank 0's record of one identity run: which point makes it, its bytes once made, who has them.
struct Share {
  std::size_t first = 0;
  bool done = false;
  std::string bytes;
  std::string error;
  std::set<int> holders;
};

std::string row_text(const SweepRow& r) { return row_numbers(r) + "\n" + r.error; }

SweepRow row_of(const std::string& text) {
  SweepRow r;
  const std::size_t split = text.find('\n');
  read_row_numbers(text.substr(0, split), r);
  r.error = split == std::string::npos ? "the worker's answer is cut short" : text.substr(split + 1);
  return r;
}

SweepRow error_row(const std::string& why) {
  SweepRow row;
  row.error = why;
  return row;
}

// A failure outside the replay (the work directory, say) is the point's error: the worker must answer.
SweepRow compute_point(const Scenario& point, const Trace& measured, const fs::path& work, IdentityRuns& identities) {
  try {
    return run_points({point}, measured, PointsOptions{1, false, true, {}}, work, identities).at(0);
  } catch (const std::exception& e) {
    return error_row(e.what());
  }
}

// Rank 0: the identity runs of the batch, one per key, in the order of their first point.
struct Shares {
  std::map<std::string, Share> by_key;
  std::map<std::size_t, std::string> key_of;  // point -> key
  std::vector<std::string> keys;              // identity k -> key
};

Shares shares_of(const MpiPoints& work) {
  Shares s;
  for (const std::size_t item : work.items) {
    const std::string key = identity_key(work.point(item));
    s.key_of[item] = key;
    if (s.by_key.count(key)) continue;
    Share share;
    share.first = item;
    if (work.identities && work.identities->count(key)) {
      share.done = true;
      share.bytes = encode_identity(work.identities->at(key));
    }
    s.by_key.emplace(key, std::move(share));
    s.keys.push_back(key);
  }
  return s;
}

std::string framed(char kind, std::size_t item, const std::string& text) {
  return fmt::format("{} {} {}\n", kind, item, text.size()) + text;
}

// What a worker needs of a point's identity run, remembering that it has it now.
std::string identity_part(Share& share, int rank) {
  if (!share.error.empty()) return "E" + share.error;
  if (!share.holders.insert(rank).second) return "-";
  return "B" + share.bytes;
}

// The points out on the workers; an identity run stands for the point it is made for.
std::vector<std::size_t> points_of(const std::vector<std::size_t>& running, const Shares& s) {
  std::vector<std::size_t> out;
  for (const std::size_t item : running)
    out.push_back(item < kIdentity ? item : s.by_key.at(s.keys.at(item - kIdentity)).first);
  return out;
}

PoolWork rank0_pool(const MpiPoints& work, Shares& s) {
  PoolWork pool;
  pool.ready = [&](std::size_t item) { return item >= kIdentity || s.by_key.at(s.key_of.at(item)).done; };
  pool.attach = [&](std::size_t item, int rank) {
    if (item >= kIdentity) {
      const std::size_t first = s.by_key.at(s.keys.at(item - kIdentity)).first;
      return framed('I', first, work.text(first));
    }
    return framed('P', item, work.text(item)) + identity_part(s.by_key.at(s.key_of.at(item)), rank);
  };
  pool.finished = [&](std::size_t item, int rank, const std::string& answer) {
    if (item < kIdentity) return work.on_row(item, row_of(answer));
    Share& share = s.by_key.at(s.keys.at(item - kIdentity));
    share.done = true;
    if (answer.empty() || answer[0] != 'K')
      share.error = answer.empty() ? "the identity run failed" : answer.substr(1);
    else
      share.bytes = answer.substr(1), share.holders.insert(rank);
  };
  pool.unfinished = [&](const std::vector<std::size_t>& running) { work.unfinished(points_of(running, s)); };
  pool.lost = [&](const std::vector<std::size_t>& running, const std::string& why) {
    work.lost(points_of(running, s), why);
  };
  return pool;
}

}  // namespace

void schedule_points(const MpiSession& session, const MpiPoints& work) {
  Shares s = shares_of(work);
  std::vector<std::size_t> items;
  for (std::size_t k = 0; k < s.keys.size(); ++k)
    if (!s.by_key.at(s.keys[k]).done) items.push_back(kIdentity + k);
  items.insert(items.end(), work.items.begin(), work.items.end());
  const std::size_t made_here = s.keys.size() - (items.size() - work.items.size());
  spdlog::info("{} point(s) over {} worker rank(s), {} identity run(s) shared{}", work.items.size(), session.size() - 1,
               s.keys.size(), made_here ? fmt::format(" ({} made by rank 0)", made_here) : "");
  mpi_schedule(session, items, rank0_pool(work, s));
}

namespace {

// A worker's state: its identity runs (made or received) and a work directory.
struct Worker {
  const Trace& measured;
  const MpiPoints& work;
  IdentityRuns identities;
  fs::path dir = fs::temp_directory_path() / fmt::format("wisp-worker-{}", ::getpid());
};

std::string make_identity(Worker& w, const Scenario& point) {
  try {
    IdentityRun id = run_identity(point, w.measured);
    std::string bytes = "K";  // appended: GCC 12 warns falsely (-Wrestrict) on "K" + std::string&&
    bytes += encode_identity(id);
    w.identities.emplace(identity_key(point), std::move(id));
    return bytes;
  } catch (const std::exception& e) {
    return std::string("E") + e.what();
  }
}

std::string run_point_item(Worker& w, const Scenario& point, const std::string& identity) {
  if (!identity.empty() && identity[0] == 'E') return row_text(error_row(identity.substr(1)));
  try {
    if (!identity.empty() && identity[0] == 'B')
      w.identities.emplace(identity_key(point), decode_identity(identity.substr(1), point, w.measured));
  } catch (const std::exception& e) {
    return row_text(error_row(e.what()));
  }
  return row_text(compute_point(point, w.measured, w.dir, w.identities));
}

// One work message; a point whose text does not make a scenario answers with that error.
std::string compute(Worker& w, const std::string& message) {
  char kind = 0;
  std::size_t item = 0, size = 0;
  std::istringstream header(message.substr(0, message.find('\n')));
  header >> kind >> item >> size;
  const std::size_t body = message.find('\n') + 1;
  const bool identity = kind == 'I';
  if (!header || body == 0 || size > message.size() - body)
    return identity ? "Ea malformed work message" : row_text(error_row("a malformed work message"));
  std::optional<Scenario> point;
  try {
    point = w.work.make(item, message.substr(body, size));
  } catch (const std::exception& e) {
    return identity ? std::string("E") + e.what() : row_text(error_row(e.what()));
  }
  if (identity) return make_identity(w, *point);
  return run_point_item(w, *point, message.substr(body + size));
}

}  // namespace

void serve_points(const MpiSession& session, const Trace& measured, const MpiPoints& work) {
  Worker w{measured, work, {}};
  PoolWork pool;
  pool.compute = [&](std::size_t, const std::string& message) { return compute(w, message); };
  mpi_serve(session, pool);
  std::error_code ec;
  fs::remove_all(w.dir, ec);
}

}  // namespace wisp
