#!/usr/bin/env bash
# Embree reference figures on raypick's benchmark workloads.
#
# Runs scripts/embree_bench.py (Embree 4 through embreex, single thread) on every exported
# mesh / ray set pair in bench-data/ and writes its JSON lines (per Embree mode, robust and
# fast: closest hit, and any hit as "query": "occluded", which `compare` shows in the Embree
# rows' any-hit column) to bench-data/embree.jsonl (rewritten on each run).
#
#   scripts/embree.sh [WORKLOAD...]        # default: every *.mesh in bench-data/
#
# Sets up Embree and exports the exchange files (cargo run --release -p raypick-benches --bin
# export) when they are missing (scripts/bench_env.sh). Environment: EMBREE_VENV (default ~/.cache/raypick-embree), RAYPICK_BENCH_DATA (default
# bench-data at the repository root), EMBREE_PASSES (default 5).
set -euo pipefail
# shellcheck source=scripts/bench_env.sh
. "$(dirname "$0")/bench_env.sh"
passes="${EMBREE_PASSES:-5}"
workloads_from_args "$@"

out="$data/embree.jsonl"
: > "$out"
for w in "${workloads[@]}"; do
    for set in pick random; do
        rays="$data/${w}_${set}.rays"
        if [ ! -f "$data/$w.mesh" ] || [ ! -f "$rays" ]; then
            echo "embree.sh: missing $data/$w.mesh or $rays" >&2
            exit 1
        fi
        "$venv/bin/python" "$root/scripts/embree_bench.py" "$data/$w.mesh" "$rays" \
            --threads 1 --passes "$passes" | tee -a "$out"
    done
done
echo "embree.sh: wrote $out" >&2
