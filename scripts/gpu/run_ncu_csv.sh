#!/usr/bin/env bash
# On the NVIDIA machine, from the repository root, with the carry of
# `PRESET=release EXAMPLES=rowsum_tunable WITH_CLANG=1 NO_TESTS=1 bash scripts/gpu/prepare_carry.sh`: Nsight Compute's own CSV of real
# programs nobody here wrote, read back by `rocm-perf analyze`. For a PyTorch program (cuBLAS bf16
# GEMMs and elementwise kernels: tests/gpu/programs/torch_roofline.py) and a Triton one
# (tests/gpu/programs/triton_add.py), ncu writes
#   - the details page (`ncu --csv`, its default sections), NAME.details.csv;
#   - the raw page of the metrics the counter pass asks for, with occupancy's inputs,
#     NAME.raw.csv;
# and analyze reads each (NAME.PAGE.json, its stderr NAME.PAGE.err), and the report ncu -o writes
# (NAME.ncu-rep: NAME.report.json). Each ncu run profiles the first
# ${LAUNCHES:-12} launches. summary.txt: a line per file (the dominant kernel, its time, occupancy).
set -uo pipefail
source scripts/gpu/carry_env.sh "${1:-.devcarry}"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/machine.txt"
ncu --version | tail -1 | tee -a "$out/machine.txt"
launches=${LAUNCHES:-12}
metrics=gpu__time_duration.sum,launch__grid_size,launch__block_size,launch__registers_per_thread
metrics+=,launch__shared_mem_per_block_static,launch__shared_mem_per_block_dynamic
metrics+=,sm__warps_active.avg.pct_of_peak_sustained_active,dram__bytes.sum
metrics+=,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem
metrics+=,launch__occupancy_limit_warps,launch__occupancy_limit_blocks,sm__maximum_warps_per_active_cycle_pct
for program in torch_roofline triton_add; do
  ncu --csv -c "$launches" python3 "tests/gpu/programs/$program.py" > "$out/$program.details.csv" 2> "$out/$program.details.ncu.err"
  ncu --csv --page raw --metrics "$metrics" -c "$launches" python3 "tests/gpu/programs/$program.py" \
    > "$out/$program.raw.csv" 2> "$out/$program.raw.ncu.err"
  for page in details raw; do
    "$carry/bin/rocm-perf" analyze --json "$out/$program.$page.csv" > "$out/$program.$page.json" 2> "$out/$program.$page.err"
    rc=$?
    python3 scripts/gpu/ncu_csv_summary.py "$program.$page" "$out/$program.$page.json" "$rc" | tee -a "$out/summary.txt"
    sed 's/^/  /' "$out/$program.$page.err" | head -5 | tee -a "$out/summary.txt"
  done
done
# A report file (.ncu-rep) of each program, read by analyze through ncu --import; the Triton one's
# first bytes (how a report is known) and its raw page as ncu exports it for analyze.
for program in torch_roofline triton_add; do
  ncu -f -o "$out/$program" -c "$launches" python3 "tests/gpu/programs/$program.py" > "$out/$program.report.ncu.err" 2>&1
  "$carry/bin/rocm-perf" analyze --json "$out/$program.ncu-rep" > "$out/$program.report.json" 2> "$out/$program.report.err"
  python3 scripts/gpu/ncu_csv_summary.py "$program.ncu-rep" "$out/$program.report.json" "$?" | tee -a "$out/summary.txt"
  sed 's/^/  /' "$out/$program.report.err" | head -5 | tee -a "$out/summary.txt"
done
head -c 16 "$out/triton_add.ncu-rep" | od -A d -t x1z | tee -a "$out/summary.txt"
ncu --import "$out/triton_add.ncu-rep" --csv --page raw --print-units base > "$out/triton_add.imported.raw.csv" 2>&1
