#!/usr/bin/env python3
"""Adds the device-operator root cause aicpu_fallback, and the variable that observes it, to the inference
causal graphs.

    scripts/add-device-operator-causes.py pipelines/graphs/priors/inference.json pipelines/graphs/inference.json

aicpu_fallback: operators the AI Core has no kernel for (an unsupported dtype such as int64 or float64, a
dynamic shape, an operator the installed CANN lacks) run on the device's AI CPU instead, often ten to a
hundred times slower. It is read from an Ascend profiler folder's kernel_details.csv by inference_features
(feature device.aicpu_share, docs/features-inference.md). No labelled corpus has it, so the rows are hand-set
(`learn: false`), as scripts/add-hardware-causes.py does for the hardware causes: the new root state gets a
prior of 0.02 (the others scaled down to keep the sum), its row in every existing variable is a copy of the
healthy row (a fallback makes the model slower at every request alike; it does not queue, cold-start or fuse
differently), and aicpu_share has an `unmeasured` state observed when the run has no kernel_details.csv,
with near-zero probability under aicpu_fallback: without a device profile the cause is ruled out, not
ranked on its prior.

Idempotent: a cause already present is left as it is; the variable is (re)written as this script says.
"""
import json
import sys

PRIOR = 0.02
CAUSE = "aicpu_fallback"
SPEAKS = [0.04995, 0.94905, 0.001]  # low, high, unmeasured under aicpu_fallback
OTHERS = [0.891, 0.009, 0.1]
VARIABLE = {
    "name": "aicpu_share",
    "description": (
        "Symptom 'operators fell back to the AI CPU': the share of the device's task time (communication "
        "tasks left out) spent in tasks whose Accelerator Core is AI_CPU (feature device.aicpu_share, from "
        "kernel_details.csv). high >= 0.1 (soft 0.02): real profiles of healthy LLM and CV jobs keep it under "
        "0.5% (a few AI CPU tasks such as NonZero or a shape computation); a hot operator on the AI CPU takes "
        "tens of percent. Hand-set (learn: false). unmeasured: the run has no Ascend kernel_details.csv "
        "(observed as evidence, absent_state): aicpu_fallback is ruled out rather than ranked on its prior."),
    "states": ["low", "high", "unmeasured"],
    "default_state": "low",
    "parents": ["root_cause"],
    "learn": False,
    "discretization": {"feature": "device.aicpu_share", "states": ["low", "high"], "thresholds": [0.1],
                       "soft_width": 0.02, "absent_state": "unmeasured"},
}
NOTE = (" Device-operator cause from an Ascend profiler folder (hand-set, scripts/add-device-operator-causes.py): "
        "aicpu_fallback (operators the AI Core has no kernel for run on the AI CPU).")


def add(graph):
    variables = graph["variables"]
    root = next(v for v in variables if v["name"] == "root_cause")
    new = CAUSE not in root["states"]
    if new:
        prior = root["cpt"][0] if isinstance(root["cpt"][0], list) else root["cpt"]
        prior[:] = [round(p * (1.0 - PRIOR), 6) for p in prior] + [PRIOR]
        root["states"].append(CAUSE)
        root["description"] += NOTE
        healthy = root["states"].index("healthy")
        for v in variables:
            if v is root:
                continue
            if v.get("parents") != ["root_cause"]:
                raise SystemExit(f"{graph['name']}: variable {v['name']} has parents {v.get('parents')}, "
                                 "only root_cause children are handled")
            rows = v["cpt"]
            if rows and isinstance(rows[0], dict):
                row = next(r for r in rows if r["given"].get("root_cause") == "healthy")
                rows.append({"given": {"root_cause": CAUSE}, "p": list(row["p"])})
            else:
                rows.append(list(rows[healthy]))
    variable = dict(VARIABLE, cpt=[list(SPEAKS) if c == CAUSE else list(OTHERS) for c in root["states"]])
    at = next((i for i, v in enumerate(variables) if v["name"] == variable["name"]), None)
    if at is None:
        variables.append(variable)
    else:
        variables[at] = variable
    learned = graph.get("_learned")
    if learned is not None and new:
        learned["hand_set"] = (learned.get("hand_set", "") + " Added after this learning run and not learnt "
                               f"(scripts/add-device-operator-causes.py): the root state {CAUSE} (prior {PRIOR}, "
                               "the others scaled), its rows in every variable (the healthy row) and aicpu_share.")


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for path in sys.argv[1:]:
        with open(path) as f:
            graph = json.load(f)
        if graph.get("name") != "inference":
            sys.exit(f"{path}: expected the inference graph, got '{graph.get('name')}'")
        add(graph)
        with open(path, "w") as f:
            json.dump(graph, f, indent=1, ensure_ascii=False)
            f.write("\n")
        print(f"{path}: {CAUSE} and aicpu_share")


if __name__ == "__main__":
    main()
