# Sourced by the scripts/gpu/run_*.sh scripts on the NVIDIA machine, from the repository root:
# `source scripts/gpu/carry_env.sh "${1:-.devcarry}"`. It sets carry (the carry of
# scripts/gpu/prepare_carry.sh) and out ($OUT, made), unpacks the carry's libclang where it has one
# (WITH_CLANG=1: rocm-perf links it), Debian's libraries, its testbeds and any program carried xz-compressed
# (bin/NAME.xz, so that two builds fit beside clang), and exports what the carried programs and tests need to find
# their libraries, Python modules, sources and build.
carry="$PWD/$1"
out=${OUT:-/tmp/rpl-gpu}
mkdir -p "$out"
if [ -f "$carry/syslib.tar.xz" ] && [ ! -d "$carry/syslib" ]; then
  xz -dc "$carry/syslib.tar.xz" | tar -C "$carry" -xf -
fi
export LD_LIBRARY_PATH="$carry/syslib:${LD_LIBRARY_PATH:-}"
if [ -f "$carry/examples.tar.xz" ] && [ ! -d "$carry/examples" ]; then
  xz -dc "$carry/examples.tar.xz" | tar -C "$carry" -xf -
fi
for packed in "$carry"/bin/*.xz; do
  if [ -f "$packed" ] && [ ! -f "${packed%.xz}" ]; then xz -dc "$packed" > "${packed%.xz}" && chmod +x "${packed%.xz}"; fi
done
if [ -f "$carry/clang.tar.xz" ]; then
  clang=$(mktemp -d)
  xz -dc "$carry/clang.tar.xz" | tar -C "$clang" -xf -
  export LD_LIBRARY_PATH="$clang:$LD_LIBRARY_PATH"
fi
export PYTHONPATH="$carry/py:${PYTHONPATH:-}"
export RPL_SOURCE_DIR="$PWD" RPL_BUILD_DIR="$carry" RPL_TEST_PYTHON=python3 PYTHONUNBUFFERED=1
