#!/usr/bin/env bash
# Sets up, builds, and runs every test that needs no GPU: the release build's unit and
# amd-offline tests; a plain Release build with no preset, as a user would configure it (no
# warnings-as-errors there); then the unit tests again under AddressSanitizer and UBSan.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake --preset release
cmake --build --preset release
ctest --preset release
cmake -S . -B build/plain -DCMAKE_BUILD_TYPE=Release
cmake --build build/plain -j "$(nproc)"
build/plain/bin/rocm-perf analyze examples/traces/softmax_h100.db >/dev/null
echo "plain Release build (no preset): built, and its rocm-perf analyzed the bundled trace"
cmake --preset asan
cmake --build --preset asan
ctest --preset asan -L unit
