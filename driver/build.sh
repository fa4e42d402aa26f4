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
#   build/mobilegl.vulkan.log   pull run on the DirectVulkan backend (mfp/mpm/mdt gates)
#   build/mobilegl.verify-corrupt.log  push run with a corrupted section: Fatal{PipeVerifyDiffer} lines
# Usage: driver/build.sh [--no-run]      (JOBS=N to change parallelism; CXX to pick g++)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"
CXX="${CXX:-g++}"  # a missing compiler is said once, with its package (not once per object):
command -v "$CXX" >/dev/null 2>&1 || { echo "build.sh: the C++ compiler \`$CXX\` is not on PATH (Debian/Ubuntu: apt-get install g++; or set CXX)" >&2; exit 127; }
JOBS="${JOBS:-$(nproc 2>/dev/null || echo 2)}"
RUN_DEMO=1
if [[ "${1:-}" == "--no-run" ]]; then
    RUN_DEMO=0
elif [[ $# -gt 0 ]]; then
    echo "usage: $0 [--no-run]" >&2
    exit 2
fi

# Identical for both libraries; the push build only adds the define. No
# debug info and no build-id keep the objects and the .so deterministic, and
# -fno-tree-switch-conversion keeps GCC from emitting per-unit numbered
# CSWTCH.<n> lookup tables, whose numbers shift whenever a switch is added
# anywhere in the unit and would read as spurious added/removed symbols.
CXXFLAGS=(-std=c++17 -O2 -fPIC -fno-tree-switch-conversion -Wall -Wextra -Werror -IMobileGL
          -ffile-prefix-map="$here"/=)
LDFLAGS=(-shared -Wl,--build-id=none -Wl,-soname,libMobileGL.so -pthread)

mapfile -t SOURCES < <(find MobileGL -name '*.cpp' -not -path 'MobileGL/MG_Test/*' -not -path 'MobileGL/MG_Remote/*' | LC_ALL=C sort)

object_of() {
    echo "$2/obj/$(echo "$1" | tr / _ | sed 's/\.cpp$/.o/')"
}

compile_variant() {
    local variant="$1"
    shift
    local out="build/$variant"
    mkdir -p "$out/obj"
    local todo=()
    for src in "${SOURCES[@]}"; do
        local obj
        obj="$(object_of "$src" "$out")"
        # The push build recompiles only the translation units whose text or
        # headers mention the switch; every other object is the pull object,
        # byte for byte (the same source, the same flags, no define to see).
        if [[ "$variant" == push ]]; then
            local pullobj deps
            pullobj="$(object_of "$src" build/pull)"
            deps="$(sed -e 's/^[^:]*://' -e 's/\\$//' "${pullobj%.o}.d" | tr ' ' '\n' | grep -v '^$' || true)"
            # shellcheck disable=SC2086
            if ! grep -q MOBILEGL_PIPE_PUSH "$src" $deps; then
                cp "$pullobj" "$obj"
                continue
            fi
        fi
        todo+=("$src")
    done
    if [[ ${#todo[@]} -gt 0 ]]; then
        printf '%s\n' "${todo[@]}" | xargs -P "$JOBS" -I{} \
            bash -c 'src="$1"; obj="$2/obj/$(echo "$src" | tr / _ | sed "s/\.cpp$/.o/")"; shift 2; "$@" -MMD -MF "${obj%.o}.d" -c "$src" -o "$obj"' \
            _ {} "$out" "$CXX" "${CXXFLAGS[@]}" "$@"
    fi
    local objects=()
    for src in "${SOURCES[@]}"; do
        objects+=("$(object_of "$src" "$out")")
    done
    "$CXX" "${LDFLAGS[@]}" -o "$out/libMobileGL.so" "${objects[@]}"
    echo "built $out/libMobileGL.so ($(stat -c %s "$out/libMobileGL.so") bytes; ${#todo[@]} of ${#SOURCES[@]} units compiled)"
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
    # The verify lane's negative control: a corrupted Pipeline section must be
    # reported as Fatal{PipeVerifyDiffer, ...} lines (non-fatal here, with a summary).
    LD_LIBRARY_PATH="$here/build/push" MOBILEGL_PIPE_STATS_PERIOD=60 MOBILEGL_PIPE_VERIFY=1 \
        MOBILEGL_PIPE_VERIFY_FATAL=0 MOBILEGL_PIPE_VERIFY_CORRUPT=Pipeline \
        build/driver_demo --frames 120 --log build/mobilegl.verify-corrupt.log
    MOBILEGL_PIPE_STATS_PERIOD=60 build/driver_demo --frames 330 --backend DirectVulkan \
        --log build/mobilegl.vulkan.log
    # build/runs/minecraft-like-330-DirectGLES/{pull,push}/: the A/B runs directory (`mgctl bench
    # ab`), 3 repeats per arm (benchmark-run<i>.json) and the last repeat's mobilegl.log.
    # MobileGL/MG_Test/runs/ holds a committed copy that the budgets and counters gates read.
    for arm in pull push; do
        dir="build/runs/minecraft-like-330-DirectGLES/$arm"
        rm -rf "$dir" && mkdir -p "$dir"
        for run in 1 2 3; do
            LD_LIBRARY_PATH="$here/build/$arm" MOBILEGL_PIPE_STATS_PERIOD=60 \
                build/driver_demo --frames 330 --log "$dir/mobilegl.log" \
                --benchmark-json "$dir/benchmark-run$run.json"
        done
    done
    for log in build/mobilegl.log build/mobilegl.push.log build/mobilegl.vulkan.log; do
        echo "$log: $(grep -c 'MGPipe stats: frames=' "$log") MGPipe stats window lines"
    done
fi
# build/link/: the split build's per-object output, laid out as CMake's `MobileGL` target writes
# it (CMakeFiles/MobileGL.dir/<source>.o), with a CMakeCache.txt of the options it was configured
# with - what upstream scripts/link_ratchet.py and mgctl's link-ratchet gate read. The monolith
# objects are the pull objects (hard links, byte for byte). MG_Remote, the split's client/server
# code, is compiled only here: the monolith library defines no MG_Remote symbol (symbol rules).
mapfile -t REMOTE_SOURCES < <(find MobileGL/MG_Remote -name '*.cpp' -not -path '*/MG_Test/*' | LC_ALL=C sort)
link_dir=build/link/CMakeFiles/MobileGL.dir
rm -rf build/link && mkdir -p "$link_dir"
for src in "${SOURCES[@]}"; do
    mkdir -p "$link_dir/$(dirname "$src")"
    ln "$(object_of "$src" build/pull)" "$link_dir/$src.o"
done
for src in "${REMOTE_SOURCES[@]}"; do
    mkdir -p "$link_dir/$(dirname "$src")"
    "$CXX" "${CXXFLAGS[@]}" -c "$src" -o "$link_dir/$src.o"
done
cat > build/link/CMakeCache.txt <<CACHE
# This is the CMakeCache file (written by driver/build.sh for the split build).
CMAKE_BUILD_TYPE:STRING=Release
MOBILEGL_BUILD_DISAGGREGATED:BOOL=ON
MOBILEGL_BUILD_DISAGGREGATED_INPROC:BOOL=ON
CACHE
echo "built build/link ($(( ${#SOURCES[@]} + ${#REMOTE_SOURCES[@]} )) objects, ${#REMOTE_SOURCES[@]} of MG_Remote)"
echo "build.sh: done in $(( $(date +%s) - start )) s"
