# Shared set-up of the benchmark scripts (sourced by embree.sh and ratios.sh, not run).
#
# Sets `root`, `venv` (EMBREE_VENV, default ~/.cache/raypick-embree) and `data`
# (RAYPICK_BENCH_DATA, default bench-data at the repository root); makes the Embree venv and
# the exchange files when they are missing; `workloads_from_args "$@"` sets `workloads` to the
# arguments, or to every *.mesh in `data`. `script` names the caller in messages.
script="$(basename "$0")"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${EMBREE_VENV:-$HOME/.cache/raypick-embree}"
data="${RAYPICK_BENCH_DATA:-$root/bench-data}"

if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c "import embreex.rtcore_scene" 2>/dev/null; then
    echo "$script: setting up $venv (numpy and embreex from the package index)" >&2
    python3 -m venv "$venv" >&2
    "$venv/bin/pip" install -q numpy embreex >&2
fi

if ! ls "$data"/*.mesh >/dev/null 2>&1; then
    echo "$script: no meshes in $data; exporting them" >&2
    (cd "$root" && cargo run --release -q -p raypick-benches --bin export -- --out "$data") >&2
fi

workloads_from_args() {
    if [ "$#" -gt 0 ]; then
        workloads=("$@")
    else
        workloads=()
        for m in "$data"/*.mesh; do workloads+=("$(basename "$m" .mesh)"); done
    fi
}
