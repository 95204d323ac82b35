#!/usr/bin/env bash
# Closest-hit and any-hit ratios against Embree, one row at a time: for each workload and ray
# set, REPS rounds of (Embree robust and fast, closest hit then any hit, then raypick's 1-thread
# closest and any hit, one ray at a time and through the batch queries), back to back, so that
# both engines of a row see the same machine load. Prints every run as
# `workload set peer closest any` ("-" where a run times only one), then per row the best of
# each engine and their ratios (noise only slows a run down).
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
            "$venv/bin/python" "$root/scripts/embree_bench.py" "$data/$w.mesh" \
                "$data/${w}_$set.rays" --threads 1 --passes 5 2>/dev/null |
                "$venv/bin/python" -c '
import json, sys
for line in sys.stdin:
    d = json.loads(line)
    closest = d["query"] == "closest"
    print(sys.argv[1], sys.argv[2], d["peer"], d["mrays_s"] if closest else "-",
          "-" if closest else d["mrays_s"])' "$w" "$set" | tee -a "$runs"
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
import collections, statistics, sys
best = collections.defaultdict(dict)
order = []
# Per round: the runs of one (workload, set) up to its raypick-batch line.
cur, rounds = collections.defaultdict(dict), collections.defaultdict(list)
for line in open(sys.argv[1]):
    w, s, peer, closest, anyhit = line.split()
    if (w, s) not in best:
        order.append((w, s))
    b, c = best[(w, s)], cur[(w, s)]
    if closest != "-":
        b[peer] = max(b.get(peer, 0.0), float(closest))
        c[peer] = float(closest)
    if anyhit != "-":
        b[peer + " any"] = max(b.get(peer + " any", 0.0), float(anyhit))
        c[peer + " any"] = float(anyhit)
    if peer == "raypick-batch":
        rounds[(w, s)].append(cur.pop((w, s)))
nan = float("nan")
print()
print("Best run of each engine:")
print()
print("| workload | rays | raypick | closest | any | Embree robust closest / any | Embree fast closest / any | closest vs robust | closest vs fast | any vs robust | any vs fast |")
print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
for w, s in order:
    b = best[(w, s)]
    er, ef = b.get("embree-robust", nan), b.get("embree-fast", nan)
    ea, fa = b.get("embree-robust any", nan), b.get("embree-fast any", nan)
    for peer in ("raypick", "raypick-batch"):
        if peer in b:
            rp, ra = b[peer], b.get(peer + " any", nan)
            print(f"| {w} | {s} | {peer} | {rp:.2f} | {ra:.2f} | {er:.2f} / {ea:.2f} | {ef:.2f} / {fa:.2f} "
                  f"| {rp / er:.2f} | {rp / ef:.2f} | {ra / ea:.2f} | {ra / fa:.2f} |")
print()
print("Median (range) of the per-round ratios:")
print()
print("| workload | rays | raypick | closest vs robust | closest vs fast | any vs robust | any vs fast |")
print("|---|---|---|---:|---:|---:|---:|")
for w, s in order:
    for peer in ("raypick", "raypick-batch"):
        cells = []
        for mine, theirs in ((peer, "embree-robust"), (peer, "embree-fast"),
                             (peer + " any", "embree-robust any"), (peer + " any", "embree-fast any")):
            r = [d.get(mine, nan) / d.get(theirs, nan) for d in rounds[(w, s)]]
            r = [x for x in r if x == x]
            cells.append(f"{statistics.median(r):.2f} ({min(r):.2f}-{max(r):.2f})" if r else "-")
        print(f"| {w} | {s} | {peer} | " + " | ".join(cells) + " |")
EOF
