#!/usr/bin/env bash
# Sets up, builds, and analyzes the bundled example trace (no GPU needed).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake --preset release > /dev/null
cmake --build --preset release --target rocm-perf
build/release/bin/rocm-perf analyze examples/traces/softmax_h100.db
