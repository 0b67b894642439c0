#!/usr/bin/env bash
# Installs everything rocm-perf needs to build and test on Debian 12, as root. Safe to run again.
set -euo pipefail

packages=(
  cmake ninja-build g++ pkg-config
  libsqlite3-dev sqlite3 libsqlitecpp-dev
  nlohmann-json3-dev libcli11-dev libfmt-dev libmsgpack-cxx-dev libelf-dev
  libzstd-dev liblz4-dev       # compressed cubins in CUDA fatbins
  libcsv-dev                   # rocprofv3 and legacy rocprof CSV traces
  libeigen3-dev libmuparser-dev libglib2.0-dev  # the tuner: least squares, expressions, template splitting
  libclang-dev                 # the optimizer: Clang's AST of the kernels' source
  libcurl4-openssl-dev         # the optimizer's LLM client (OpenAI-compatible chat completions over HTTPS)
  libboost-dev                 # Boost.Math's Student t (diff's noise), header-only
  libgtest-dev libgmock-dev
  python3 python3-jsonschema   # JSON Schema validation in the tests
  hipcc                        # real AMD code objects for the amd-offline tests (no GPU needed)
  libhsa-runtime-dev           # the AMD capture tool and replayer compile against the HSA headers
  time                         # peak memory in the benchmark
  libjs-chart.js               # the HTML report's charts (Chart.js), inlined into each report
  chromium                     # the report's tests open it headless
  slurm-wlm munge              # a throwaway Slurm on localhost for the Slurm tests (tests/slurm/)
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done

# The NVIDIA occupancy test compiles NVIDIA's header-only cuda_occupancy.h on the CPU. The CUDA
# toolkit in /usr/local/cuda has it; otherwise Debian's non-free nvidia-cuda-dev provides it.
need_cuda_header=1
for d in /usr/local/cuda/include /usr/include; do
  [ -f "$d/cuda_occupancy.h" ] && need_cuda_header=0
done

if [ ${#missing[@]} -eq 0 ] && [ $need_cuda_header -eq 0 ]; then
  echo "setup: all dependencies present"
  exit 0
fi

export DEBIAN_FRONTEND=noninteractive
if [ $need_cuda_header -eq 1 ]; then
  src=/etc/apt/sources.list.d/rocm-perf-nonfree.sources
  if [ ! -f "$src" ]; then
    cat > "$src" <<'SRC'
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: non-free contrib
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
  fi
  missing+=(nvidia-cuda-dev)
fi
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
echo "setup: installed ${missing[*]}"
