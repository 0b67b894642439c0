#!/usr/bin/env bash
# Sets up, builds, and runs every test that needs no GPU: the release build's unit and
# amd-offline tests; a plain build with no preset and no build type, `cmake -B build && cmake
# --build build` as a user would type it (no warnings-as-errors there), of the programs the
# packages ship (the tests are compiled by the two presets; without warnings-as-errors nothing else
# could fail here); then the unit tests again under AddressSanitizer and UBSan (the asan preset
# builds those alone). Each step's start is printed with the time.
set -euo pipefail
cd "$(dirname "$0")/.."
step() { echo "== $(date -u +%T) $*"; }
step setup
bash scripts/setup.sh
step release build
cmake --preset release
cmake --build --preset release
step release tests
ctest --preset release
step plain build
cmake -S . -B build/plain
cmake --build build/plain -j "$(nproc)" --target rpl-programs
build/plain/bin/rocm-perf analyze examples/traces/softmax_h100.db >/dev/null
echo "plain build (no preset, no build type): built, and its rocm-perf analyzed the bundled trace"
step asan build
cmake --preset asan
cmake --build --preset asan
step asan tests
ctest --preset asan -L unit
step done
