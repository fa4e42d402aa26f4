#!/usr/bin/env bash
# Builds the MobileGL driver fixture with g++ only (no cmake needed):
#   build/pull/libMobileGL.so   the pull build
#   build/push/libMobileGL.so   the same sources and flags plus -DMOBILEGL_PIPE_PUSH=1
#   build/driver_demo           the replay harness (linked against the pull build)
# then runs the demo on both libraries:
#   build/mobilegl.log          pull run: MGPipe stats windows (period 60, 330 frames)
#   build/benchmark.json        pull run: WriteBenchmarkJson layout
#   build/mobilegl.push.log     push run of the same workload (cso[] emit[] wait[] brackets)
#   build/pipestats.push.json   push run: the teardown JSON dump
# Usage: driver/build.sh [--no-run]      (JOBS=N to change parallelism; CXX to pick g++)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"
CXX="${CXX:-g++}"
JOBS="${JOBS:-$(nproc 2>/dev/null || echo 2)}"
RUN_DEMO=1
if [[ "${1:-}" == "--no-run" ]]; then
    RUN_DEMO=0
elif [[ $# -gt 0 ]]; then
    echo "usage: $0 [--no-run]" >&2
    exit 2
fi

# Identical for both libraries; the push build only adds the define. No
# debug info and no build-id keep the objects and the .so deterministic.
CXXFLAGS=(-std=c++17 -O2 -fPIC -Wall -Wextra -Werror -IMobileGL -ffile-prefix-map="$here"/=)
LDFLAGS=(-shared -Wl,--build-id=none -Wl,-soname,libMobileGL.so -pthread)

mapfile -t SOURCES < <(find MobileGL -name '*.cpp' -not -path 'MobileGL/MG_Test/*' | LC_ALL=C sort)

compile_variant() {
    local variant="$1"
    shift
    local out="build/$variant"
    mkdir -p "$out/obj"
    printf '%s\n' "${SOURCES[@]}" | xargs -P "$JOBS" -I{} \
        bash -c 'src="$1"; shift; obj="$1/obj/$(echo "$src" | tr / _ | sed "s/\.cpp$/.o/")"; shift; "$@" -c "$src" -o "$obj"' \
        _ {} "$out" "$CXX" "${CXXFLAGS[@]}" "$@"
    local objects=()
    for src in "${SOURCES[@]}"; do
        objects+=("$out/obj/$(echo "$src" | tr / _ | sed 's/\.cpp$/.o/')")
    done
    "$CXX" "${LDFLAGS[@]}" -o "$out/libMobileGL.so" "${objects[@]}"
    echo "built $out/libMobileGL.so ($(stat -c %s "$out/libMobileGL.so") bytes)"
}

start=$(date +%s)
compile_variant pull
compile_variant push -DMOBILEGL_PIPE_PUSH=1

DEMOFLAGS=()
for flag in "${CXXFLAGS[@]}"; do
    [[ "$flag" == -fPIC ]] || DEMOFLAGS+=("$flag")
done
"$CXX" "${DEMOFLAGS[@]}" -pthread -o build/driver_demo \
    MobileGL/MG_Test/demo/driver_demo.cpp MobileGL/MG_Test/demo/Workload.cpp \
    -Lbuild/pull -lMobileGL -Wl,-rpath,'$ORIGIN/pull'
echo "built build/driver_demo"

if [[ "$RUN_DEMO" == 1 ]]; then
    MOBILEGL_PIPE_STATS_PERIOD=60 build/driver_demo --frames 330 \
        --log build/mobilegl.log --benchmark-json build/benchmark.json
    LD_LIBRARY_PATH="$here/build/push" MOBILEGL_PIPE_STATS_PERIOD=60 \
        MOBILEGL_PIPE_STATS_FILE=build/pipestats.push.json MOBILEGL_PIPE_VERIFY=1 \
        build/driver_demo --frames 330 --log build/mobilegl.push.log
    echo "windows: $(grep -c 'MGPipe stats: frames=' build/mobilegl.log) in build/mobilegl.log," \
        "$(grep -c 'MGPipe stats: frames=' build/mobilegl.push.log) in build/mobilegl.push.log"
fi
echo "build.sh: done in $(( $(date +%s) - start )) s"
