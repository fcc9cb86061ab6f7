// libotf2 3.0 crashes (a heap overflow: "double free or corruption") or spins for seconds on some
// corrupt anchor files. Before wisp's own process hands an anchor to the library, a forked child
// loads it with a deadline; a crash or a timeout becomes a clear error naming the file.
#pragma once

#include <filesystem>

namespace wisp::io {

// Throws wisp::Error if loading `anchor` fails, crashes the OTF2 library, needs more than 2 GiB
// or takes longer than `deadline_seconds`; returns normally when the anchor loads.
void probe_anchor(const std::filesystem::path& anchor, double deadline_seconds = 3.0);

}  // namespace wisp::io
