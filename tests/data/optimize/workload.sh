#!/bin/sh
# A stand-in for a user's training program in optimize's end-to-end tests.
#   workload.sh MODE LR OUTPUT_DIR SAMPLES_DIR [NOTE]
# MODE auto: a learning rate above 0.5 writes the run as diagnosed (the bundled lr-too-high sample, lr 1.2),
# one at most 0.5 a run without the fault (the healthy sample). The other modes are what a suggestion's
# patch can make of it: fault, fixed, or a misbehaving program (hang, crash, garbage, fork). A note, when
# given, is written as it arrived (one argument, whatever it holds).
mode=$1
lr=$2
out=$3
samples=$4
note=$5
[ -n "$note" ] && printf '%s' "$note" > "$out/note.txt"
if [ "$mode" = auto ]; then
  if awk -v lr="$lr" 'BEGIN { exit !(lr + 0 <= 0.5) }'; then mode=fixed; else mode=fault; fi
fi
case $mode in
  fault) cp "$samples/training-lr-too-high/"* "$out/" ;;
  fixed) cp "$samples/training-healthy/"* "$out/" ;;
  hang) sleep 600 & sleep 600 ;;
  crash) echo "about to crash" >&2; kill -SEGV $$ ;;
  garbage) head -c 4096 /dev/urandom > "$out/metrics.jsonl"; printf '\000\377{{{' > "$out/config.json" ;;
  fork) cp "$samples/training-healthy/"* "$out/"; sleep 300 & ;;
  *) echo "workload.sh: unknown mode '$mode'" >&2; exit 2 ;;
esac
exit 0
