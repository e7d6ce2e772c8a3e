#!/usr/bin/env bash
# Quick start: install dependencies, build, and diagnose the bundled sample run (samples/, made by
# scripts/make-samples.py): the root cause, its evidence and suggestions, with reports in out/diagnosis/.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build -j"$(nproc)"
./build/bin/cann-debug diagnose --input samples/training-lr-too-high --output out/diagnosis
echo
echo "Reports: out/diagnosis/report.html (open in a browser), report.md, report.json"
