#!/usr/bin/env bash
# Builds MG_Test/consistency/SetterConsistency.cpp out of tree (in $TMPDIR, so the
# workspace is left as it was) and runs it. The `controls` gate's patch control
# runs this in a throw-away copy: see ../../../mgctl.toml, [[control]].
set -euo pipefail
ws="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
"${CXX:-g++}" -std=c++17 -O0 -Wall -Wextra -Werror -I"$ws/MobileGL" -o "$out/setter_consistency" \
    "$ws/MobileGL/MG_Test/consistency/SetterConsistency.cpp"
"$out/setter_consistency"
