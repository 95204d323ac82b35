#!/usr/bin/env bash
# Closest-hit ratios against Embree, one row at a time: for each workload and ray set, REPS
# rounds of (Embree robust and fast, then raypick's 1-thread closest and any hit, one ray at a
# time and through the batch queries), back to back, so that both engines of a row see the
# same machine load. Prints every run, then per row the best of each engine and their ratios
# (noise only slows a run down).
#
#   scripts/ratios.sh [REPS] [WORKLOAD...]      # default: 5 rounds, every *.mesh in bench-data/
#
# Sets up Embree and exports the exchange files when they are missing (as embree.sh does), and
# builds the compare binary itself. Environment: EMBREE_VENV (default ~/.cache/raypick-embree),
# RAYPICK_BENCH_DATA (default bench-data at the repository root).
set -euo pipefail
reps="${1:-5}"
[ "$#" -gt 0 ] && shift
# shellcheck source=scripts/bench_env.sh
. "$(dirname "$0")/bench_env.sh"
workloads_from_args "$@"
(cd "$root" && cargo build --release -q -p raypick-benches --bin compare)
compare="$root/target/release/compare"

runs="$(mktemp)"
trap 'rm -f "$runs"' EXIT
for w in "${workloads[@]}"; do
    for set in pick random; do
        for _ in $(seq "$reps"); do
            "$venv/bin/python" "$peers/embree_ref.py" "$data/$w.mesh" "$data/${w}_$set.rays" \
                --threads 1 --passes 5 2>/dev/null |
                "$venv/bin/python" -c '
import json, sys
for line in sys.stdin:
    d = json.loads(line)
    print(sys.argv[1], sys.argv[2], d["peer"], d["mrays_s"], "-")' "$w" "$set" | tee -a "$runs"
            "$compare" --workloads "$w" --sets "$set" --peers raypick,raypick-batch --no-mt \
                --points 0 --passes 5 --brute-budget 0 --data "$data" 2>/dev/null |
                awk -F'|' -v w="$w" -v s="$set" 'NF > 10 && $4 ~ /raypick/ {
                    gsub(/ /, "", $4); gsub(/ /, "", $9); gsub(/ /, "", $11)
                    print w, s, $4, $9, $11 }' |
                tee -a "$runs"
        done
    done
done

"$venv/bin/python" - "$runs" <<'EOF'
import collections, sys
best = collections.defaultdict(dict)
order = []
for line in open(sys.argv[1]):
    w, s, peer, closest, anyhit = line.split()
    if (w, s) not in best:
        order.append((w, s))
    b = best[(w, s)]
    b[peer] = max(b.get(peer, 0.0), float(closest))
    if anyhit != "-":
        b[peer + " any"] = max(b.get(peer + " any", 0.0), float(anyhit))
print()
print("| workload | rays | raypick | closest | any | Embree robust | Embree fast | vs robust | vs fast |")
print("|---|---|---|---:|---:|---:|---:|---:|---:|")
for w, s in order:
    b = best[(w, s)]
    er, ef = b["embree-robust"], b["embree-fast"]
    for peer in ("raypick", "raypick-batch"):
        if peer in b:
            rp = b[peer]
            print(f"| {w} | {s} | {peer} | {rp:.2f} | {b[peer + ' any']:.2f} | {er:.2f} | {ef:.2f} | {rp / er:.2f} | {rp / ef:.2f} |")
EOF
