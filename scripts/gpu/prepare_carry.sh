#!/usr/bin/env bash
# Builds the device preset here and gathers what the NVIDIA machine needs into .devcarry/ (ignored
# by git): rocm-perf, the tracer, the testbeds, the gpu tests, the three shared libraries of
# Debian's that the machine lacks, Python's jsonschema for the schema checks, and Chart.js for the
# HTML report.
# PRESET=release reuses that build instead of the device preset's (debug info is stripped either way).
# EXAMPLES="softmax_testbed ..." carries only those testbeds. WITH_CLANG=1 adds clang.tar.xz: the
# libclang of Debian's that rocm-perf optimize parses kernels with (and libLLVM and libz3 that it
# needs), which the machine lacks, with clang's own headers beside it; scripts/gpu/run_optimize.sh
# unpacks it. Together they are too large for the carry's 64 MiB unless the testbeds are left out.
# NO_TESTS=1 leaves out the gpu tests, jsonschema and Chart.js, for scripts that run rocm-perf and
# the testbeds alone (run_landscapes.sh): with clang and matmul_tunable_large the carry fits then.
set -euo pipefail
cd "$(dirname "$0")/../.."
preset=${PRESET:-device}
cmake --preset "$preset" > /dev/null
cmake --build --preset "$preset"
# Testbeds left out of the default build (matmul_tunable_large) are built when named.
[ -n "${EXAMPLES:-}" ] && cmake --build --preset "$preset" --target ${EXAMPLES}
rm -rf .devcarry
mkdir -p .devcarry/{bin,lib,examples,tests,syslib,py,js}
cp build/$preset/bin/rocm-perf build/$preset/bin/rpl-cuda-replay .devcarry/bin/
cp build/$preset/lib/librpl_cupti_trace.so build/$preset/lib/librpl_cupti_probe.so build/$preset/lib/librpl_callback_probe.so .devcarry/lib/
for e in ${EXAMPLES:-softmax_testbed matmul_tunable stencil_tunable multistream_dag roofline_calibration launch_patterns cupti_client resource_kernels cubin_registers isolate_targets va_hint_probe stream_kinds_probe legacy_stream graph_probe graph_diamond graph_copies trace_pause}; do
  cp build/$preset/examples/$e .devcarry/examples/
done
cp build/$preset/tests/test_nvidia_gpu .devcarry/tests/
strip --strip-debug .devcarry/bin/* .devcarry/lib/* .devcarry/examples/* .devcarry/tests/*
# The testbeds' fatbins (matmul_tunable's 225 kernels: 16 MiB) shrink tenfold: carry_env.sh unpacks them.
tar -C .devcarry -cf - examples | xz -T0 -6 > .devcarry/examples.tar.xz
rm -rf .devcarry/examples
cp -L /lib/x86_64-linux-gnu/{libfmt.so.9,libsqlite3.so.0,libelf.so.1,libzstd.so.1,liblz4.so.1,libmuparser.so.2,libglib-2.0.so.0,libpcre2-8.so.0,libcsv.so.3} .devcarry/syslib/
cp -r /usr/lib/python3/dist-packages/{jsonschema,pyrsistent,_pyrsistent_version.py} .devcarry/py/
cp /usr/share/javascript/chart.js/chart.min.js .devcarry/js/
[ -n "${NO_TESTS:-}" ] && rm -rf .devcarry/{tests,py,js}
# rocm-perf and the replayer (6.7 to 2.0 MiB) and Debian's libraries (5 MiB) shrink three- to
# fourfold, which keeps every testbed, the gpu tests and clang beside the repository (15 MB) in a
# call's 64 MiB; carry_env.sh unpacks them.
xz -T0 -9 .devcarry/bin/rocm-perf .devcarry/bin/rpl-cuda-replay
tar -C .devcarry -cf - syslib | xz -T0 -9 > .devcarry/syslib.tar.xz
rm -rf .devcarry/syslib
if [ -n "${WITH_CLANG:-}" ]; then
  clang=$(mktemp -d)
  libclang=$(ldd build/$preset/bin/rocm-perf | awk '/libclang/ {print $3}')
  cp -L "$libclang" $(ldd "$libclang" | awk '/libLLVM|libz3/ {print $3}') "$clang/"
  cp -L "$(ldd "$(ldd "$libclang" | awk '/libLLVM/ {print $3}')" | awk '/libz3/ {print $3}')" "$clang/"
  # libclang finds its headers in clang/VERSION beside itself: those of the LLVM it comes from
  # (libclang-14.so.13 -> /usr/lib/llvm-14), not the newest one installed.
  llvm=$(basename "$libclang" | sed -E 's/^libclang-([0-9]+)\.so.*/\1/')
  resource=$(ls -d /usr/lib/llvm-"$llvm"/lib/clang/* | sort -V | tail -1)
  mkdir -p "$clang/clang" && cp -r "$resource" "$clang/clang/"
  # -9e, not -6: 2 MiB less (36 MiB), so that every testbed, the gpu tests and clang fit beside the
  # repository (8 MiB) in the 64 MiB, though it takes four minutes on two cores.
  tar -C "$clang" -cf - . | xz -T0 -9e > .devcarry/clang.tar.xz
  rm -rf "$clang"
fi
du -sh .devcarry
