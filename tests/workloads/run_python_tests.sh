#!/usr/bin/env bash
# Runs the workloads' Python unit tests; exits 77 (CTest: skipped) when the Python has no torch.
set -euo pipefail
python="$1"
dir="$2"
if ! "$python" -c 'import torch, sklearn' 2>/dev/null; then
  echo "skipped: $python has no torch/sklearn (scripts/install-deps.sh installs python3-torch, python3-sklearn)"
  exit 77
fi
cd "$dir/../.."
exec "$python" -m unittest discover -s tests/workloads -p 'test_*.py' -v
