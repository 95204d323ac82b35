#!/usr/bin/env bash
# Runs the cargo-fuzz targets (see docs/fuzzing.md).
#
#   scripts/fuzz.sh TARGET SECONDS [LIBFUZZER_ARG...]   # one target, e.g. `stl 60`
#   scripts/fuzz.sh all SECONDS [LIBFUZZER_ARG...]      # every target, one after another
#   scripts/fuzz.sh build                               # build every target only (CI)
#
# Each run starts from target/fuzz-corpus/TARGET (target/ is $CARGO_TARGET_DIR when set),
# seeded with the repository's files of the target's format, and ends with one line
# `fuzz TARGET: N executions in S s, C crashes` (its full log: target/fuzz-logs/TARGET.log).
# Exits non-zero on a crash (libFuzzer stops at the first one and writes the input under the
# fuzz crate's artifacts/). Extra arguments go to libFuzzer, e.g. `-runs=10000000`; the last
# of a repeated flag wins. Inputs are cut at 4 KiB unless `-max_len=N` is given: longer seeds
# (the bunny) keep their first 4 KiB, and runs stay at thousands of executions per second
# rather than hundreds.
#
# FUZZ_DEV=1 builds and runs without optimizations: slower fuzzing, a much faster cold build
# (CI's short smoke runs). FUZZ_QUIET=1 keeps libFuzzer's output in the log only, printing
# its end on a crash.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"

# The crate whose fuzz/ directory holds each target. A new target: one line here.
declare -A crate_of=(
    [obj]=crates/io
    [gltf]=crates/io
    [glb]=crates/io
    [ply]=crates/io
    [stl]=crates/io
    [differential]=crates/query
    [solid]=crates/query
    [scene]=crates/query
    [rpk]=crates/io
)
# The order of `all` and `build`; targets whose source does not exist yet are skipped.
order=(obj gltf glb ply stl differential solid scene rpk)
# File extensions that seed each target's corpus (none: libFuzzer starts from nothing).
declare -A seed_ext=(
    [obj]="obj"
    [gltf]="gltf glb"
    [glb]="glb gltf"
    [ply]="ply"
    [stl]="stl"
    [differential]=""
    [solid]=""
    [scene]=""
    [rpk]="rpk"
)

usage() {
    echo "usage: $0 TARGET|all SECONDS [LIBFUZZER_ARG...] | $0 build" >&2
    echo "targets: ${order[*]}" >&2
    exit 2
}

# Stable rustc accepts cargo-fuzz's nightly flags (-Z sanitizer, ...) with this set.
export RUSTC_BOOTSTRAP=1
# Builds, corpora and logs all go under the target directory.
work="${CARGO_TARGET_DIR:-$root/target}"
fuzz_target_dir="$work/fuzz"
build_flags=(--target-dir "$fuzz_target_dir")
if [ "${FUZZ_DEV:-0}" = 1 ]; then
    build_flags+=(--dev)
fi

ensure_cargo_fuzz() {
    if ! cargo fuzz --version >/dev/null 2>&1; then
        cargo install cargo-fuzz --locked
    fi
}

exists() {
    [ -f "$root/${crate_of[$1]}/fuzz/fuzz_targets/$1.rs" ]
}

available() {
    local t
    for t in "${order[@]}"; do
        if exists "$t"; then
            echo "$t"
        fi
    done
}

# Copies the repository's files of the target's formats into its corpus directory.
seed() {
    local target="$1" corpus="$2" ext f
    mkdir -p "$corpus"
    for ext in ${seed_ext[$target]}; do
        while IFS= read -r -d '' f; do
            cp -n "$f" "$corpus/seed-$(basename "$f")"
        done < <(find "$root" \( -path "$root/target" -o -path "$root/.git" \
            -o -name artifacts -o -name corpus -o -path "$root/bench-data" \) -prune \
            -o -type f -iname "*.$ext" -print0)
    done
}

run_one() {
    local target="$1" seconds="$2"
    shift 2
    local dir="$root/${crate_of[$target]}"
    local corpus="$work/fuzz-corpus/$target"
    local log="$work/fuzz-logs/$target.log"
    seed "$target" "$corpus"
    mkdir -p "$(dirname "$log")"
    local start status=0
    start=$(date +%s)
    local out=/dev/stdout
    if [ "${FUZZ_QUIET:-0}" = 1 ]; then
        out=/dev/null
    fi
    (cd "$dir" && cargo fuzz run "$target" "${build_flags[@]}" "$corpus" -- \
        -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=4096 \
        -print_final_stats=1 "$@") \
        2>&1 | tee "$log" >"$out" || status=$?
    if [ "$status" -ne 0 ] && [ "$out" = /dev/null ]; then
        tail -n 60 "$log"
    fi
    local elapsed=$(($(date +%s) - start))
    local runs
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    local crashes=0
    if [ "$status" -ne 0 ]; then
        crashes=1
    fi
    echo "fuzz $target: ${runs:-?} executions in $elapsed s, $crashes crashes"
    return "$status"
}

main() {
    [ $# -ge 1 ] || usage
    case "$1" in
    build)
        [ $# -eq 1 ] || usage
        ensure_cargo_fuzz
        for dir in $(for t in $(available); do echo "${crate_of[$t]}"; done | sort -u); do
            echo "== cargo fuzz build ($dir)"
            (cd "$root/$dir" && cargo fuzz build "${build_flags[@]}")
        done
        ;;
    all)
        [ $# -ge 2 ] || usage
        seconds="$2"
        shift 2
        case "$seconds" in *[!0-9]* | "") usage ;; esac
        ensure_cargo_fuzz
        failed=()
        for t in $(available); do
            run_one "$t" "$seconds" "$@" || failed+=("$t")
        done
        if [ ${#failed[@]} -ne 0 ]; then
            echo "fuzz: crashes in ${failed[*]}" >&2
            exit 1
        fi
        ;;
    *)
        [ $# -ge 2 ] || usage
        target="$1"
        seconds="$2"
        shift 2
        [ -n "${crate_of[$target]+x}" ] || usage
        case "$seconds" in *[!0-9]* | "") usage ;; esac
        exists "$target" || { echo "fuzz: no target $target yet" >&2; exit 2; }
        ensure_cargo_fuzz
        run_one "$target" "$seconds" "$@"
        ;;
    esac
}

# All of the script is read before it runs: editing it during a long run is safe.
main "$@"
exit
