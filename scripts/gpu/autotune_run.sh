# Sourced, after scripts/gpu/carry_env.sh, by the scripts/gpu/run_*.sh scripts that time autotune
# runs live on the NVIDIA machine.
#
# autotune_run NAME BINARY OPTIONS...: one `BINARY autotune --backend cuda OPTIONS...`, its output
# in $out/NAME, with a Triton cache of its own (as the exhaustive tables were measured: every
# configuration built anew). Leaves its JSON as NAME.json, its stderr as NAME.err, its measurements
# as NAME.csv and its autotune.json (the curve, with the seconds into the run of each point) as
# NAME.autotune.json; appends its wall time and a line of scripts/gpu/autotune_run_summary.py (its
# best and every configuration in the order measured) to summary.txt.
autotune_run() {
  local name=$1 binary=$2; shift 2
  local t0 cache rc
  t0=$(date +%s%N)
  cache=$(mktemp -d)
  TRITON_CACHE_DIR=$cache "$binary" autotune --backend cuda "$@" --out "$out/$name" --json > "$out/$name.json" 2> "$out/$name.err"
  rc=$?
  rm -rf "$cache"
  echo -n "$(( ($(date +%s%N) - t0) / 1000000 )) ms wall; " >> "$out/summary.txt"
  python3 scripts/gpu/autotune_run_summary.py "$name" "$rc" "$out/$name.json" "$out/$name/measurements.csv" | tee -a "$out/summary.txt"
  cp "$out/$name/measurements.csv" "$out/$name.csv" 2>/dev/null
  cp "$out/$name/autotune.json" "$out/$name.autotune.json" 2>/dev/null
  rm -rf "${out:?}/$name"
}

# autotune_pack ARCHIVE: every run's files into $out/ARCHIVE (a call brings back few files), beside
# summary.txt and machine.txt.
autotune_pack() {
  (cd "$out" && tar czf "$1" --exclude summary.txt --exclude machine.txt --exclude "$1" -- * && \
    find . -maxdepth 1 -type f ! -name summary.txt ! -name machine.txt ! -name "$1" -delete)
}
