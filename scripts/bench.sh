#!/usr/bin/env bash
# The one command behind BENCHMARKS.md's table: exports the workloads, times Embree on them
# (scripts/embree.sh), then runs every peer side by side (the compare binary, which merges the
# Embree lines) and prints the page's header and table as markdown on stdout.
#
#   scripts/bench.sh [WORKLOAD...] > /tmp/bench.md      # default: every workload
#
# Environment: as scripts/embree.sh (EMBREE_VENV, RAYPICK_BENCH_DATA; EMBREE_PASSES, default 5,
# also sets the timed passes of every other peer).
set -euo pipefail
# shellcheck source=scripts/bench_env.sh
. "$(dirname "$0")/bench_env.sh"
workloads_from_args "$@"
list="$(IFS=,; echo "${workloads[*]}")"
(cd "$root" && cargo build --release -q -p raypick-benches --bin compare)
"$root/scripts/embree.sh" "${workloads[@]}" >&2
echo "- **Date:** $(date -u '+%Y-%m-%d %H:%M UTC'); **commit:** $(git -C "$root" rev-parse --short HEAD)"
echo "- **Machine:** $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) logical CPUs, $(free -g | awk '/Mem:/ {print $2}') GiB; $(rustc --version | cut -d' ' -f1-2); load average before the run: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "- **Command:** \`scripts/bench.sh\`"
echo
"$root/target/release/compare" --workloads "$list" --data "$data" --passes "${EMBREE_PASSES:-5}"
