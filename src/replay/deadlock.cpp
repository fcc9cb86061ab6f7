// The deadlock report of a replay that cannot finish. See replay.hpp.
#include "wisp/replay/replay.hpp"

#include <fmt/format.h>

#include <cmath>

#include "simulation_answer.hpp"

namespace wisp {

using replay_impl::kLongestSimulation;

ReplayDeadlock::ReplayDeadlock(double time, std::vector<BlockedRank> blocked)
    : Error([&] {
        std::string s =
            std::isfinite(time) && time <= kLongestSimulation
                ? fmt::format("replay deadlocked at simulated time {:.9f} s: {} rank(s) blocked", time, blocked.size())
                : fmt::format(
                      "replay stopped after the simulated clock overflowed (a factor or time "
                      "too large): {} rank(s) blocked",
                      blocked.size());
        for (std::size_t i = 0; i < blocked.size() && i < 16; ++i) {
          const BlockedRank& b = blocked[i];
          s += fmt::format("{} rank {} in {} (event {}) waiting for {}", i ? ";" : ":", b.rank, b.call, b.event,
                           b.waiting_for);
        }
        if (blocked.size() > 16) s += fmt::format("; and {} more", blocked.size() - 16);
        return s;
      }()),
      time_(time),
      blocked_(std::move(blocked)) {}

}  // namespace wisp
