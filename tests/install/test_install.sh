#!/usr/bin/env bash
# Installs a build into a temporary prefix and runs the installed rocm-perf on the bundled trace;
# then builds the Debian package and checks what it holds.
#   test_install.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
src=$(cd "$1" && pwd) build=$(cd "$2" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cmake --install "$build" --prefix "$work/prefix" >/dev/null
installed=$work/prefix/bin/rocm-perf
[ -x "$installed" ] || { echo "FAIL: no bin/rocm-perf under the prefix"; exit 1; }
[ "$(readlink "$work/prefix/bin/rocm-perf-lab")" = rocm-perf ] || { echo "FAIL: bin/rocm-perf-lab is not a link to rocm-perf"; exit 1; }
for schema in common profile occupancy inspect; do
  [ -f "$work/prefix/share/rocm-perf/schemas/$schema.schema.json" ] || { echo "FAIL: schema $schema not installed"; exit 1; }
done
[ -f "$work/prefix/share/rocm-perf/skills/rocm-perf/SKILL.md" ] || { echo "FAIL: the agent skill is not installed"; exit 1; }
if [ -f "$build/lib/librpl_cupti_trace.so" ] && [ ! -f "$work/prefix/lib/rocm-perf/librpl_cupti_trace.so" ]; then
  echo "FAIL: the CUPTI tracer was built but not installed"; exit 1
fi

# The installed binary, run from elsewhere, gives the same document as the build's golden file.
(cd "$work" && "$installed" analyze --json "$src/examples/traces/softmax_h100.db") > "$work/analyze.json"
diff -u "$src/tests/golden/analyze_example.json" "$work/analyze.json" || { echo "FAIL: installed analyze differs"; exit 1; }
for exe in rocm-perf rocm-perf-lab; do
  "$work/prefix/bin/$exe" --version | grep -Eq '^rocm-perf [0-9]+\.[0-9]+\.[0-9]+ \(commit ' || { echo "FAIL: $exe --version"; exit 1; }
done

# The Debian package: the same files under /usr, and dependencies found by dpkg-shlibdeps.
(cd "$work" && cpack -G DEB -B "$work/package" --config "$build/CPackConfig.cmake" >/dev/null)
deb=$(ls "$work"/package/rocm-perf_*.deb)
dpkg-deb -c "$deb" > "$work/contents"
for path in ./usr/bin/rocm-perf ./usr/share/rocm-perf/schemas/profile.schema.json; do
  grep -q " $path\$" "$work/contents" || { echo "FAIL: $path not in $(basename "$deb")"; cat "$work/contents"; exit 1; }
done
grep -q ' ./usr/bin/rocm-perf-lab -> rocm-perf$' "$work/contents" || { echo "FAIL: rocm-perf-lab is not a link in $(basename "$deb")"; cat "$work/contents"; exit 1; }
# Stripped, as Debian's packages are.
dpkg-deb -x "$deb" "$work/unpacked"
readelf -S "$work/unpacked/usr/bin/rocm-perf" > "$work/sections"
if grep -q '\.debug_info' "$work/sections"; then
  echo "FAIL: the packaged rocm-perf still has its debug info"; exit 1
fi
depends=$(dpkg-deb -f "$deb" Depends)
case "$depends" in *libsqlite3*) ;; *) echo "FAIL: Depends lacks libsqlite3: $depends"; exit 1 ;; esac
case "$depends" in *libjs-chart.js*) ;; *) echo "FAIL: Depends lacks libjs-chart.js: $depends"; exit 1 ;; esac
if [ -f "$build/lib/librpl_cupti_trace.so" ]; then
  nvidia=$(ls "$work"/package/rocm-perf-nvidia_*.deb)
  dpkg-deb -c "$nvidia" > "$work/nvidia-contents"  # listed whole: grep -q on a pipe would cut dpkg-deb off
  for path in ./usr/lib/rocm-perf/librpl_cupti_trace.so ./usr/lib/rocm-perf/rpl-cuda-replay; do
    grep -q " $path\$" "$work/nvidia-contents" || { echo "FAIL: $path not in $nvidia"; exit 1; }
  done
fi
if [ -f "$build/lib/librpl_hsa_capture.so" ]; then
  amd=$(ls "$work"/package/rocm-perf-amd_*.deb)
  dpkg-deb -c "$amd" > "$work/amd-contents"
  for path in ./usr/lib/rocm-perf/librpl_hsa_capture.so ./usr/lib/rocm-perf/rpl-hsa-replay; do
    grep -q " $path\$" "$work/amd-contents" || { echo "FAIL: $path not in $amd"; exit 1; }
  done
  case "$(dpkg-deb -f "$amd" Depends)" in *libhsa-runtime64*) ;; *) echo "FAIL: $amd does not depend on the HSA runtime"; exit 1 ;; esac
fi
echo "install: prefix and $(cd "$work/package" && ls *.deb | tr '\n' ' ')checked (Depends: $depends)"
