# Sourced by the benchmark scripts: how they time a command and summarize repeats.
# measure CMD...: prints "SECONDS PEAK_KIB" of one run of CMD (its output discarded); needs $work.
measure() { /usr/bin/time -f "%e %M" -o "$work/time" "$@" > /dev/null 2>&1; cat "$work/time"; }
# median X...: the median of the numbers.
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
