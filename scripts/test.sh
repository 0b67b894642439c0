#!/usr/bin/env bash
# Sets up, builds, and runs every test that needs no GPU: the release build's unit and
# amd-offline tests, then the unit tests again under AddressSanitizer and UBSan.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake --preset release
cmake --build --preset release
ctest --preset release
cmake --preset asan
cmake --build --preset asan
ctest --preset asan -L unit
