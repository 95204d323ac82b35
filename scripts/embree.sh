#!/usr/bin/env bash
# Embree reference figures on raypick's benchmark workloads.
#
# Runs ../shared/peers/embree_ref.py (Embree 4 through embreex, single thread) on every
# exported mesh / ray set pair in bench-data/ and appends one JSON line per Embree mode
# (robust, fast) to bench-data/embree.jsonl (the file is rewritten on each run).
#
#   scripts/embree.sh [WORKLOAD...]        # default: every *.mesh in bench-data/
#
# Export the exchange files first if they are missing:
#   cargo run --release -p raypick-benches --bin export
# Environment: EMBREE_VENV (default ~/.cache/raypick-embree), RAYPICK_BENCH_DATA (default
# bench-data at the repository root), EMBREE_PASSES (default 5).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
peers="$(cd "$root/../shared/peers" && pwd)"
venv="${EMBREE_VENV:-$HOME/.cache/raypick-embree}"
data="${RAYPICK_BENCH_DATA:-$root/bench-data}"
passes="${EMBREE_PASSES:-5}"

if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c "import embreex.rtcore_scene" 2>/dev/null; then
    echo "embree.sh: setting up $venv" >&2
    EMBREE_VENV="$venv" "$peers/setup.sh" >&2
fi

if ! ls "$data"/*.mesh >/dev/null 2>&1; then
    echo "embree.sh: no meshes in $data; exporting them" >&2
    (cd "$root" && cargo run --release -q -p raypick-benches --bin export -- --out "$data") >&2
fi

if [ "$#" -gt 0 ]; then
    workloads=("$@")
else
    workloads=()
    for m in "$data"/*.mesh; do workloads+=("$(basename "$m" .mesh)"); done
fi

out="$data/embree.jsonl"
: > "$out"
for w in "${workloads[@]}"; do
    for set in pick random; do
        rays="$data/${w}_${set}.rays"
        if [ ! -f "$data/$w.mesh" ] || [ ! -f "$rays" ]; then
            echo "embree.sh: missing $data/$w.mesh or $rays" >&2
            exit 1
        fi
        "$venv/bin/python" "$peers/embree_ref.py" "$data/$w.mesh" "$rays" \
            --threads 1 --passes "$passes" | tee -a "$out"
    done
done
echo "embree.sh: wrote $out" >&2
