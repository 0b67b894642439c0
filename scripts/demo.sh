#!/usr/bin/env bash
# Sets up, builds, and shows what rocm-perf does on a bundled real trace (no GPU needed): PyTorch's
# two-stream program recorded on an H100 by rocm-perf's tracer with --roofline (examples/traces/):
# the dominant kernel, its occupancy, its place on the roofline, the critical path across the two
# streams and the bottleneck; then the HTML report, and the command that profiles your program.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake --preset release > /dev/null
cmake --build --preset release --target rocm-perf
tool=build/release/bin/rocm-perf
trace=examples/traces/torch_two_streams_h100.db
out=$(mktemp -d /tmp/rocm-perf-demo.XXXXXX)
echo
echo "== rocm-perf analyze $trace"
"$tool" analyze --out "$out" "$trace"
echo
echo "== rocm-perf report $out --trace $trace"
"$tool" report "$out" --trace "$trace"
echo
echo "Open $out/report.html in a browser: the summary, the roofline, the timeline of both streams"
echo "with the critical path in red, and every kernel in a sortable table."
echo
echo "Your own program, on an NVIDIA GPU (CUPTI) or an AMD GPU (rocprofv3):"
echo "  $tool profile --roofline --html --out my-profile -- ./my_app ARGS"
