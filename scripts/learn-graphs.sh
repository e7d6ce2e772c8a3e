#!/usr/bin/env bash
# Relearns the shipped causal-graph tables (pipelines/graphs/<scenario>.json) from labelled case folders:
# the structure, thresholds and prior tables of pipelines/graphs/priors/<scenario>.json, the counts of every
# case found 3 levels below each DIR (docs/bayes.md, "Learning the tables").
#   scripts/learn-graphs.sh [--bin build/bin/cann-debug] DIR [DIR ...]
#   scripts/learn-graphs.sh corpus/ ../shared/cases        # the workload corpus and the shared cases
set -euo pipefail
cd "$(dirname "$0")/.."
bin=build/bin/cann-debug
if [ "${1:-}" = "--bin" ]; then bin="$2"; shift 2; fi
[ $# -ge 1 ] || { echo "usage: $0 [--bin BIN] DIR [DIR ...]" >&2; exit 2; }
# kb learn reads one folder: link every case folder (a folder with an expected.json) into one.
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
n=0
for dir in "$@"; do
  while IFS= read -r label; do
    n=$((n + 1))
    ln -s "$(cd "$(dirname "$label")" && pwd)" "$stage/case-$n"
  done < <(find "$dir" -maxdepth 4 -name expected.json | sort)
done
echo "learn-graphs: $n labelled cases from $*"
for scenario in training inference distributed; do
  "$bin" kb learn --cases "$stage" --scenario "$scenario" --graph "pipelines/graphs/priors/$scenario.json" \
    -o "pipelines/graphs/$scenario.json" | sed -n '1,2p;/top-1/p'
  # The note names the temporary staging folder: name the folders it links instead, so relearning from the
  # same cases leaves the file unchanged.
  sed -i "s|--cases $stage |--cases <case folders under: $*> |" "pipelines/graphs/$scenario.json"
done
