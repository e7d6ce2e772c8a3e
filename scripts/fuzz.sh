#!/usr/bin/env bash
# Fuzzes the readers, the pipeline loader and the graph loaders with libFuzzer (clang, ASan + UBSan).
#   scripts/fuzz.sh [--seconds N] [--seed S] [--build DIR] [TARGET...]   (default: 60 s per target, every
#                                                                          target, a random seed)
# CI (.ci/run) runs every target for a short fixed budget with a fixed seed: scripts/fuzz.sh --seconds 10 --seed 1
# Each target starts from its seeds (tests/data files of its format, listed in tests/fuzz/CMakeLists.txt),
# its regression inputs (tests/fuzz/regressions/<target>/) and, when ../shared exists, real files of the
# same kind under 1 MB; the corpus it grows is kept in <build>/fuzz-corpus/<target>/. Prints executions per
# target. A crash, leak, UB report or timeout is written to <build>/fuzz-artifacts/<target>/ and makes the
# script exit 1: fix it, then copy the input into tests/fuzz/regressions/<target>/ so CTest replays it.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=60
random_seed=0  # libFuzzer: 0 = a random seed
build=build-fuzz
targets=()
while [ $# -gt 0 ]; do
  case $1 in
    --seconds) seconds=$2; shift 2 ;;
    --seed) random_seed=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    -h|--help) sed -n 2,11p "$0"; exit 0 ;;
    *) targets+=("$1"); shift ;;
  esac
done
command -v clang++ > /dev/null || { echo "fuzz.sh: clang++ not found (apt-get install clang)" >&2; exit 2; }

cmake -S . -B "$build" -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1" -DCANN_DEBUG_FUZZ=ON -DCANN_DEBUG_BUILD_BENCH=OFF \
  -DCMAKE_UNITY_BUILD=ON > /dev/null  # unity batches: scripts/test.sh
start=$(date +%s)
cmake --build "$build" --target fuzz_targets -j"$(nproc)"
echo "build of the fuzz targets: $(( $(date +%s) - start )) s"
bin=$build/tests/fuzz
if [ ${#targets[@]} -eq 0 ]; then
  for f in "$bin"/fuzz_*.seeds; do n=$(basename "$f" .seeds); targets+=("${n#fuzz_}"); done
fi

# Real files of each target's kind in ../shared (when present), by file-name pattern.
shared_pattern() {
  case $1 in
    chrome_trace) echo '*.json' ;; jsonl|host_metrics) echo '*.jsonl' ;; csv_log) echo 'metrics*.csv' ;;
    hf_trainer_state) echo 'trainer_state*.json' ;; prometheus_text) echo '*.prom' ;;
    ascend_kernel_details) echo 'kernel_details*.csv' ;; ascend_op_statistic) echo 'op_statistic*.csv' ;;
    ascend_step_trace) echo '*step_trace_time*.csv' ;; ascend_communication) echo 'communication.json' ;;
    ascend_communication_matrix) echo '*communication_matrix*.json' ;; console_capture) echo 'npu-smi*.txt' ;;
    bif) echo '*.bif' ;; train_log) echo '*.out' ;; metric_series_json) echo 'golden_values*.json' ;;
    tensorboard_events) echo 'events.out.tfevents.*' ;; kernel_log) echo 'dmesg*.log' ;; nvidia_smi) echo '*.xml' ;;
    ascend_memory) echo 'memory_record*.csv' ;; run_config) echo 'config.json' ;; *) echo '' ;;
  esac
}

status=0
printf '%-28s %12s %10s %8s  %s\n' TARGET EXECUTIONS EXEC/S CORPUS RESULT
for t in "${targets[@]}"; do
  exe=$bin/fuzz_$t
  [ -x "$exe" ] || { echo "fuzz.sh: no target $t" >&2; exit 2; }
  corpus=$build/fuzz-corpus/$t
  artifacts=$build/fuzz-artifacts/$t
  mkdir -p "$corpus" "$artifacts"
  while read -r seed; do
    [ -n "$seed" ] || continue
    if [ -d "$seed" ]; then find "$seed" -type f -size -1024k -exec cp -n {} "$corpus/" \; ; elif [ -f "$seed" ]; then cp -n "$seed" "$corpus/"; fi
  done < "$exe.seeds"
  find tests/fuzz/regressions/"$t" -type f -exec cp -n {} "$corpus/" \; 2>/dev/null || true
  pattern=$(shared_pattern "$t")
  if [ -n "$pattern" ] && [ -d ../shared ]; then
    # (head closes the pipe early: find's SIGPIPE is no failure)
    { find ../shared -type f -name "$pattern" -size -1024k 2>/dev/null || true; } | head -50 | while read -r f; do
      cp -n "$f" "$corpus/$(echo "$f" | tr '/' '_')"; done
  fi
  log=$artifacts/fuzz.log
  if "$exe" -max_total_time="$seconds" -seed="$random_seed" -print_final_stats=1 -timeout=10 -rss_limit_mb=2048 -max_len=262144 \
       -artifact_prefix="$artifacts/" "$corpus" > "$log" 2>&1; then
    result=ok
  else
    result="FOUND: see $log and $artifacts"
    status=1
  fi
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo 0)
  rate=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo 0)
  printf '%-28s %12s %10s %8s  %s\n' "$t" "${execs:-0}" "${rate:-0}" "$(find "$corpus" -type f | wc -l)" "$result"
done
exit $status
