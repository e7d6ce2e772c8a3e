#!/usr/bin/env bash
# Quick start: install dependencies, build, and run the demo pipeline on the bundled sample data.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build -j"$(nproc)"
mkdir -p out/demo
./build/bin/cann-debug run pipelines/demo.yaml --input samples/training-lr-too-high --output out/demo
echo
echo "Largest robust z-scores per series (out/demo/features.jsonl):"
python3 - <<'PY' 2>/dev/null || head -c 2000 out/demo/features.jsonl
import json
for line in open("out/demo/features.jsonl"):
    msg = json.loads(line)
    for f in msg["payload"]["features"]:
        if f["name"].endswith(".max_abs_robust_z"):
            ev = (f.get("evidence") or [{}])[0]
            step = ev.get("first_step", "?")
            print(f"  {f['name']:<36} {f['value']:>12.2f}  at step {step}")
PY
