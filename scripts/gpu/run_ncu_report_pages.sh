#!/usr/bin/env bash
# On the NVIDIA machine, from the repository root, with the carry of
# `PRESET=release EXAMPLES=rowsum_tunable WITH_CLANG=1 NO_TESTS=1 bash scripts/gpu/prepare_carry.sh`:
# the pages ncu --import exports of a report (.ncu-rep) of real programs nobody here wrote, and what
# `rocm-perf analyze` makes of each report. For a PyTorch program (tests/gpu/programs/torch_roofline.py)
# and a Triton one (tests/gpu/programs/triton_add.py), ncu -o records the first ${LAUNCHES:-12}
# launches with ncu's basic set, its default (NAME.ncu-rep), and with --set full (NAME.full.ncu-rep); of
# each, ncu --import exports
#   - the raw page in base units (what analyze reads): NAME[.full].raw.csv;
#   - the details page with its rule rows: NAME[.full].details.csv;
#   - of the full set, the raw page with instanced metrics' correlation IDs and values (the
#     instructions by opcode): NAME.full.raw_instances.csv;
#   - the page analyze asks for beside them, the thread instructions by opcode alone with their
#     instances (--metrics sass__thread_inst_executed_true_per_opcode_with_modifier_all
#     --print-metric-instances details): NAME[.full].opcodes.csv, also copied to $OUT, with its exit
#     status and stderr; exports.txt has each export's seconds and bytes;
# and analyze reads the report (NAME[.full].json, its stderr NAME[.full].err; with --out,
# NAME[.full].out/). Everything is packed
# in $OUT/ncu_report_pages.tar.xz (the device tool brings back few files); summary.txt says what
# each analyze found.
# Ran once on an H100 (ncu 2025.3.1, driver 580.159.04) on 2026-12-05, when the basic set was asked
# for as "default", a set ncu does not have (it then collects nothing); its full-set reports gave
# tests/fixtures/ncu_import_raw_full_torch_roofline.csv and the head of
# ncu_import_raw_instances_torch_roofline_head.csv (exported then with "values", not "details").
# Ran again twice on 2026-12-06 (H100, same driver and ncu) for the opcode page and the branch
# efficiency of a kernel without branches (bench/data/ncu_report_opcodes_h100.txt).
set -uo pipefail
source scripts/gpu/carry_env.sh "${1:-.devcarry}"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/machine.txt"
ncu --version | tail -1 | tee -a "$out/machine.txt"
pages=$(mktemp -d)
launches=${LAUNCHES:-12}
export_page() {  # PAGE ARGS...: $name's report exported as $pages/$name.PAGE.csv, timed
  local page=$1
  shift
  local start=$(date +%s.%N)
  ncu --import "$pages/$name.ncu-rep" --csv "$@" > "$pages/$name.$page.csv" 2> "$pages/$name.$page.err"
  local status=$?
  echo "$status" > "$pages/$name.$page.status"
  echo "$name $page: exit $status, $(awk "BEGIN { printf \"%.2f\", $(date +%s.%N) - $start }") s, $(wc -c < "$pages/$name.$page.csv") bytes" | tee -a "$out/exports.txt"
}
for program in torch_roofline triton_add; do
  for set in basic full; do
    name=$program$([ "$set" = full ] && echo .full)
    ncu -f -o "$pages/$name" --set "$set" -c "$launches" python3 "tests/gpu/programs/$program.py" > "$pages/$name.ncu.log" 2>&1
    export_page raw --page raw --print-units base
    export_page details --page details
    # Instanced metrics (a full set's instructions by opcode) print their instances only when asked.
    [ "$set" = full ] && export_page raw_instances --page raw --print-units base --print-metric-instances details
    export_page opcodes --page raw --print-units base --metrics sass__thread_inst_executed_true_per_opcode_with_modifier_all \
      --print-metric-instances details
    cp "$pages/$name.opcodes."* "$out/"
    echo "$name: raw $(wc -l < "$pages/$name.raw.csv") lines, details $(wc -l < "$pages/$name.details.csv") lines," \
      "$(grep -c ',"OPT",\|,"WRN",\|,"INF",' "$pages/$name.details.csv") rule rows" | tee -a "$out/summary.txt"
    "$carry/bin/rocm-perf" analyze --json "$pages/$name.ncu-rep" > "$pages/$name.json" 2> "$pages/$name.err"
    python3 scripts/gpu/ncu_csv_summary.py "$name.ncu-rep" "$pages/$name.json" "$?" | tee -a "$out/summary.txt"
    "$carry/bin/rocm-perf" analyze --out "$pages/$name.out" "$pages/$name.ncu-rep" > "$pages/$name.txt" 2>> "$pages/$name.err"
    python3 scripts/gpu/ncu_report_summary.py "$pages/$name.out/analysis.json" "$pages/$name.raw.csv" | sed 's/^/  /' | tee -a "$out/summary.txt"
    cp "$pages/$name.txt" "$out/$name.analyze.txt"
  done
done
ncu --help > "$pages/ncu_help.txt" 2>&1
rm -f "$pages"/*.ncu-rep
tar -C "$pages" -cf - . | xz -6 > "$out/ncu_report_pages.tar.xz"
