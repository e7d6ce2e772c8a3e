#!/usr/bin/env python3
"""Adds the mixture-of-experts root cause `expert_imbalance` and the variable that observes it to the
distributed causal graph (priors and shipped tables alike).

    scripts/add-expert-imbalance.py pipelines/graphs/priors/distributed.json pipelines/graphs/distributed.json

The labelled corpora hold no MoE runs, so these rows are hand-set (`learn: false`). The new root state gets a
prior of 0.06 (the others scaled down to keep the sum): more than a hardware cause's 0.02, as it is among the
commonest troubles of MoE training, and runs of dense models rule it out anyway (below). A router that sends most tokens to one rank's experts
makes that rank compute longer and the others wait for it, so under expert_imbalance every existing variable
takes the row of load_imbalance (an uneven split of work), except the batch sizes (equal: the router, not the
data split, is uneven), the forward's length across ranks (the waiting ranks wait inside the forward, in the
MoE's all_to_all: uninformative) and the hardware variables (the healthy row). The new variable
`expert_load` reads `rank.expert_load_skew` (docs/features-distributed.md); its `unmeasured` state (no expert
computation in the traces: not an MoE model, or a trace without expert names) has near-zero probability under
expert_imbalance, so runs of dense models never rank it. Idempotent: the cause is added once, the variable is
(re)written as this script says.
"""
import sys

from causal_graph_edit import add_root_states, copy_rows, note_hand_set, put_variable, rewrite, root_of

CAUSE = "expert_imbalance"
PRIOR = 0.06
LIKE = "load_imbalance"
HEALTHY_ROW_VARIABLES = {"batch_imbalance", "device_clock", "memory_headroom", "host_cpu", "network_pauses",
                         "data_loader_wait", "host_input_evidence"}
UNINFORMATIVE_VARIABLES = {"forward_imbalance"}
VARIABLE = {
    "name": "expert_load",
    "description": "Symptom 'expert load on one rank': how much longer the experts of the rank whose "
                   "experts computed longest took than the other ranks' experts, over the same ratio for the "
                   "rest of their compute (feature rank.expert_load_skew; the least time over the profiled "
                   "steps; a slow rank or a bigger batch slows both alike and reads about 1). skewed >= 1.75. "
                   "unmeasured: no expert computation in the traces (no MoE, or no expert names: GroupedGemm, "
                   "GroupedMatmul, fused_moe, moe.expert<E>); the cause is then ruled out. Hand-set (learn: "
                   "false).",
    "states": ["balanced", "skewed", "unmeasured"],
    "default_state": "balanced",
    "parents": ["root_cause"],
    "learn": False,
    "discretization": {"feature": "rank.expert_load_skew", "states": ["balanced", "skewed"],
                       "thresholds": [1.75], "soft_width": 0.1, "absent_state": "unmeasured"},
}


def add(graph):
    root = root_of(graph)
    if add_root_states(graph, [CAUSE], PRIOR):
        root["description"] += (" Mixture of experts (hand-set, scripts/add-expert-imbalance.py): expert_imbalance "
                                "(the router sends most tokens to the experts of one rank, which computes longest "
                                "while the others wait in the MoE's all_to_all).")
        for v in graph["variables"]:
            if v is root or v["name"] == VARIABLE["name"]:
                continue
            if v["name"] in UNINFORMATIVE_VARIABLES:
                copy_rows(graph, v, CAUSE, "healthy", lambda p: [round(1.0 / len(p), 6)] * len(p))
            else:
                copy_rows(graph, v, CAUSE, "healthy" if v["name"] in HEALTHY_ROW_VARIABLES else LIKE)
        note_hand_set(graph, f"Added after this learning run and not learnt (scripts/add-expert-imbalance.py): the "
                      f"root state {CAUSE} (prior {PRIOR}, the others scaled), its rows and the variable expert_load.")
    put_variable(graph, dict(VARIABLE, cpt=[[0.04995, 0.94905, 0.001] if s == CAUSE else [0.891, 0.009, 0.1]
                                            for s in root["states"]]))


if __name__ == "__main__":
    rewrite(sys.argv[1:], add, name="distributed")
