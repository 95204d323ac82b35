#!/usr/bin/env bash
# raypick's point picking beside three-mesh-bvh's PointsBVH, on the same 1M points and
# cursor rays, one thread each (BENCHMARKS.md, "Points and lines").
#
#   scripts/points_three.sh
#
# Installs three and three-mesh-bvh from npm into target/points-three (node 18 or later is
# needed), runs `points --export` (raypick's figures, and the data) and then the node script
# benches/tools/points_three.mjs on that data. Prints raypick's JSON line, then three's.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="${CARGO_TARGET_DIR:-$root/target}/points-three"
mkdir -p "$work/data"
if [ ! -d "$work/node_modules/three-mesh-bvh" ]; then
    (cd "$work" && npm install --silent --no-audit --no-fund three@0.181 three-mesh-bvh@0.9 >&2)
fi
# Node resolves `three` upwards from the script's directory: a copy under $work finds the
# packages installed there.
mkdir -p "$work/tools"
cp "$root/benches/tools/points_three.mjs" "$work/tools/points_three.mjs"
(cd "$root" && RAYON_NUM_THREADS=1 cargo run --release -q -p raypick-benches --bin points -- --export "$work/data")
node "$work/tools/points_three.mjs" "$work/data"
