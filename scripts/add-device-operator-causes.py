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
import sys

from causal_graph_edit import add_root_states, copy_rows, note_hand_set, put_variable, rewrite, root_of

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
    root = root_of(graph)
    new = add_root_states(graph, [CAUSE], PRIOR)
    if new:
        root["description"] += NOTE
        for v in graph["variables"]:
            if v is not root:
                copy_rows(graph, v, CAUSE, "healthy")
        note_hand_set(graph, "Added after this learning run and not learnt (scripts/add-device-operator-causes.py): "
                      f"the root state {CAUSE} (prior {PRIOR}, the others scaled), its rows in every variable (the "
                      "healthy row) and aicpu_share.")
    put_variable(graph, dict(VARIABLE, cpt=[list(SPEAKS) if c == CAUSE else list(OTHERS) for c in root["states"]]))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    rewrite(sys.argv[1:], add, name="inference", summary=lambda graph: f"{CAUSE} and aicpu_share")
