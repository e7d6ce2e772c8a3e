#!/usr/bin/env python3
"""Writes cases/: six tiny labelled runs for tests/e2e/kb_cli_test.cpp.
"noisy" runs have a loss that jumps by several units between steps; "healthy" runs decay smoothly."""
import json, math, os

cases = {"a1": "healthy", "a2": "healthy", "a3": "healthy", "b1": "noisy", "b2": "noisy", "b3": "noisy"}
for i, (name, label) in enumerate(sorted(cases.items())):
    os.makedirs(f"cases/{name}", exist_ok=True)
    with open(f"cases/{name}/metrics.jsonl", "w") as f:
        for s in range(8):
            if label == "healthy":
                loss = 2.0 * math.exp(-0.1 * s) + 0.01 * ((s + i) % 3)
            else:
                loss = 2.0 + (3.0 if (s + i) % 2 else -1.5) + 0.2 * i
            f.write(json.dumps({"step": s, "time": 1700000000.0 + s + 10 * i, "loss": loss}) + "\n")
    with open(f"cases/{name}/expected.json", "w") as f:
        json.dump({"scenario": "kbtest", "root_cause": label, "healthy": label == "healthy"}, f)
        f.write("\n")
