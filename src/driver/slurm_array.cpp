// Slurm job-array scripts. See slurm_array.hpp.
#include "wisp/driver/slurm_array.hpp"

#include <fmt/format.h>
#include <sys/stat.h>

#include "wisp/driver/sweep_parts.hpp"

namespace wisp::driver {

namespace fs = std::filesystem;

namespace {

// A path as one bash word.
std::string quoted(const fs::path& p) {
  std::string out = "'";
  for (const char c : p.string()) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string array_script(const SlurmArray& a) {
  std::string slices;
  for (const PointSlice& s : split_points(a.points, a.tasks)) slices += fmt::format(" {}-{}", s.begin, s.end - 1);
  const std::size_t tasks = split_points(a.points, a.tasks).size();
  // #SBATCH lines are not read by the shell: the log paths there are written as they are.
  return fmt::format(
      "#!/bin/bash\n"
      "# wisp sweep {name}: {points} points in {tasks} slices, one Slurm array task each; task K writes\n"
      "# parts/K (a retried task continues with --resume). Queue it with submit.sh, which also queues\n"
      "# the merge. Add your site's #SBATCH lines (account, partition, time) below.\n"
      "#SBATCH --job-name=wisp-{name}\n"
      "#SBATCH --array=0-{last}\n"
      "#SBATCH --ntasks=1\n"
      "#SBATCH --cpus-per-task=1\n"
      "#SBATCH --output={raw}/logs/array-%A_%a.out\n"
      "set -euo pipefail\n"
      "SLICES=({slices} )\n"
      "export WISP_NO_MPI=1  # one wisp per task; --jobs uses the task's cores\n"
      "exec {wisp} -q run {scenario} --points \"${{SLICES[$SLURM_ARRAY_TASK_ID]}}\" --resume \\\n"
      "  --jobs \"${{SLURM_CPUS_PER_TASK:-1}}\" -o {dir}/parts/\"$SLURM_ARRAY_TASK_ID\"\n",
      fmt::arg("name", a.name), fmt::arg("points", a.points), fmt::arg("tasks", tasks), fmt::arg("last", tasks - 1),
      fmt::arg("dir", quoted(a.dir)), fmt::arg("raw", a.dir.string()), fmt::arg("slices", slices),
      fmt::arg("wisp", quoted(a.wisp)), fmt::arg("scenario", quoted(a.scenario)));
}

std::string merge_script(const SlurmArray& a) {
  std::string parts;
  for (std::size_t k = 0; k < split_points(a.points, a.tasks).size(); ++k)
    (parts += ' ') += quoted(a.dir / "parts" / std::to_string(k));
  return fmt::format(
      "#!/bin/bash\n"
      "# wisp sweep {name}: merges the array's parts into result/ (report.json, report.txt, sweep.csv,\n"
      "# report.html, the best point's traces), as one `wisp run` writes them.\n"
      "#SBATCH --job-name=wisp-{name}-merge\n"
      "#SBATCH --ntasks=1\n"
      "#SBATCH --output={raw}/logs/merge-%j.out\n"
      "set -euo pipefail\n"
      "export WISP_NO_MPI=1\n"
      "exec {wisp} merge{parts} -o {dir}/result --force\n",
      fmt::arg("name", a.name), fmt::arg("dir", quoted(a.dir)), fmt::arg("raw", a.dir.string()),
      fmt::arg("wisp", quoted(a.wisp)), fmt::arg("parts", parts));
}

std::string submit_script(const SlurmArray& a) {
  return fmt::format(
      "#!/bin/bash\n"
      "# Queues the sweep's job array and, once every task succeeded, the merge.\n"
      "set -euo pipefail\n"
      "cd {dir}\n"
      "array=$(sbatch --parsable sweep-array.sbatch)\n"
      "merge=$(sbatch --parsable --dependency=afterok:\"${{array%%;*}}\" sweep-merge.sbatch)\n"
      "echo \"queued: array job $array, merge job $merge; results in {result}\"\n",
      fmt::arg("dir", quoted(a.dir)), fmt::arg("result", (a.dir / "result").string()));
}

}  // namespace

void write_slurm_scripts(const SlurmArray& a, AtomicDirectory& out) {
  fs::create_directories(out.staging() / "logs");
  fs::create_directories(out.staging() / "parts");
  for (const auto& [file, text] :
       {std::pair{"sweep-array.sbatch", array_script(a)}, std::pair{"sweep-merge.sbatch", merge_script(a)},
        std::pair{"submit.sh", submit_script(a)}}) {
    write_file_atomically(out.staging() / file, text);
    ::chmod((out.staging() / file).c_str(), 0755);
  }
  out.commit();
}

}  // namespace wisp::driver
