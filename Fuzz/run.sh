#!/usr/bin/env bash
# Builds the libFuzzer targets and runs one (or all, one after another) for a time budget.
#
#   Fuzz/run.sh [TARGET|all] [SECONDS]      TARGET: json ndjson nasa xml csv model expression
#
# Seeds come from Fuzz/corpus/<target>/ (read only); new inputs go to $FUZZ_WORK/fuzz-corpus-<target>
# (default /tmp/fuzz-corpus-<target>, kept between runs); crashes, timeouts and out-of-memory
# inputs to $FUZZ_WORK/fuzz-artifacts-<target>/ (minimize them with `minimize`, below, and copy them
# to Fuzz/regressions/<target>/). One process, niced: a run uses one core (no -jobs/-workers: with
# -jobs=1 libFuzzer forks a child that logs to ./fuzz-0.log).
#
#   Fuzz/run.sh replay TARGET FILE|DIR...   runs the target once on each input (files taken whole)
#   Fuzz/run.sh regressions                 replays every Fuzz/regressions/<target>/ input
#   Fuzz/run.sh minimize TARGET FILE        minimizes a crashing input (-minimize_crash=1)
#
# Environment: FUZZ_SCRATCH (build directory, default <repo>/.build-fuzz), FUZZ_WORK (default /tmp),
# FUZZ_NO_BUILD=1 (use the binaries as built), FUZZ_DIFF=0 (no differential check: crashes only),
# FUZZ_KNOWN=1 (also fail on the findings already logged in README.md, which fuzzing otherwise steps
# around; the default for replay and minimize),
# FUZZ_PRINT=1 (print both readings of each input, reader targets: for replay), FUZZ_ARGS (more
# libFuzzer flags), FUZZ_SANITIZE (the sanitizer flags of `swift build`), IMPORTER_FUZZ_PACKAGE
# (build against a copy of the package instead of the repository: see Package.swift).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
scratch=${FUZZ_SCRATCH:-$root/.build-fuzz}
work=${FUZZ_WORK:-/tmp}
all_targets=(json ndjson nasa xml csv model expression)
# No leak check: one-time initializations (models loaded into globals, Swift metadata caches) read
# as leaks; memory that grows per input shows up as -rss_limit_mb instead.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:allocator_may_return_null=1}
# Swift's own crash handler (a backtracer thread reading the process's memory) trips ASan and hides
# the real crash: let ASan and libFuzzer report Swift traps.
export SWIFT_BACKTRACE=${SWIFT_BACKTRACE:-enable=no}

max_len() {
    case $1 in
        model) echo 8192 ;;
        expression) echo 4096 ;;
        *) echo 16384 ;;
    esac
}

dict() {
    case $1 in
        json|ndjson|nasa) echo "$here/dict/json.dict" ;;
        *) echo "$here/dict/$1.dict" ;;
    esac
}

build() {
    if [[ ${FUZZ_NO_BUILD:-0} == 1 ]]; then return; fi
    # Not `--sanitize=fuzzer --sanitize=address`: SwiftPM passes them to swiftc as two flags, and the
    # last one wins (Swift code would get ASan but no coverage instrumentation).
    local sanitize=${FUZZ_SANITIZE:-"--sanitize=fuzzer -Xswiftc -sanitize=fuzzer,address -Xcc -fsanitize=address"}
    # shellcheck disable=SC2086
    (cd "$here" && nice -n 10 swift build -c release -j 1 --scratch-path "$scratch" $sanitize)
}

binary() {
    echo "$scratch/release/fuzz-$1"
}

common_flags() {
    # $2: the longest input (fuzzing); replaying files takes them whole (libFuzzer cuts longer ones).
    local target=$1 length=${2:-$(max_len "$1")}
    echo -detect_leaks=0 -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=1024 -max_len="$length" -dict="$(dict "$target")"
}

# Runs a target once on each input (directories expanded: libFuzzer would fuzz a directory).
replay() {
    local target=$1; shift
    local inputs=()
    for input in "$@"; do
        if [[ -d $input ]]; then
            while IFS= read -r file; do inputs+=("$file"); done < <(find "$input" -type f | sort)
        else
            inputs+=("$input")
        fi
    done
    if [[ ${#inputs[@]} -eq 0 ]]; then return; fi
    # shellcheck disable=SC2046
    "$(binary "$target")" $(common_flags "$target" 100000000) "${inputs[@]}"
}

run_target() {
    local target=$1 seconds=$2
    local corpus=$work/fuzz-corpus-$target artifacts=$work/fuzz-artifacts-$target
    mkdir -p "$corpus" "$artifacts"
    echo "== fuzz-$target for ${seconds}s (corpus $corpus, artifacts $artifacts)"
    # shellcheck disable=SC2046,SC2086
    nice -n 10 "$(binary "$target")" $(common_flags "$target") \
        -max_total_time="$seconds" -print_final_stats=1 -artifact_prefix="$artifacts/" ${FUZZ_ARGS:-} \
        "$corpus" "$here/corpus/$target"
}

case ${1:-all} in
    replay)
        target=$2; shift 2
        export FUZZ_KNOWN=${FUZZ_KNOWN:-1}
        build
        replay "$target" "$@"
        ;;
    regressions)
        export FUZZ_KNOWN=${FUZZ_KNOWN:-1}
        build
        for target in "${all_targets[@]}"; do
            if [[ -d $here/regressions/$target ]]; then
                echo "== regressions of fuzz-$target"
                replay "$target" "$here/regressions/$target"
            fi
        done
        ;;
    minimize)
        target=$2 input=$3
        export FUZZ_KNOWN=${FUZZ_KNOWN:-1}
        build
        out=$work/fuzz-artifacts-$target/minimized-$(basename "$input")
        # shellcheck disable=SC2046
        "$(binary "$target")" $(common_flags "$target" 100000000) -minimize_crash=1 -max_total_time=${4:-60} \
            -exact_artifact_path="$out" "$input" || true
        echo "minimized: $out"
        ;;
    all)
        seconds=${2:-600}
        build
        for target in "${all_targets[@]}"; do run_target "$target" "$seconds"; done
        ;;
    *)
        target=$1 seconds=${2:-600}
        if [[ ! " ${all_targets[*]} " == *" $target "* ]]; then
            echo "unknown target '$target' (one of: ${all_targets[*]}, all, replay, regressions, minimize)" >&2
            exit 2
        fi
        build
        run_target "$target" "$seconds"
        ;;
esac
