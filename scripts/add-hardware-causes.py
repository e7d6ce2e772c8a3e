#!/usr/bin/env python3
"""Adds the hardware root causes and the hardware variables that observe them to causal graphs.

    scripts/add-hardware-causes.py pipelines/graphs/priors/*.json pipelines/graphs/*.json

Hardware evidence comes from a recording (`cann-debug collect`), read by the hardware_features extractor
(docs/features-hardware.md). The labelled corpora have no hardware faults, so these rows are hand-set
(`learn: false`), as the graph format allows: the new root states get a prior of 0.02 each (the others
scaled down to keep the sum), their row in every existing variable is a copy of the healthy row (a throttled
device, full memory, a congested port or a starved host does not change the loss curve or the operator mix
by itself), and each hardware variable has an `unmeasured` state observed when the run has no recording, with
near-zero probability under the cause it speaks for: without a recording these causes are ruled out, not
ranked on their prior.

host_input_bound has two pieces of evidence: a starved host in the recording (host_cpu) and DataLoader calls
that left the device idle in a profiler trace (data_loader_wait). Either alone may speak for it (a loader
without worker processes stalls the device on a free host), so neither one's `unmeasured` rules it out: a
third variable, host_input_evidence, observes whether either was measured, and `none` rules the cause out.

Idempotent: a cause already present is left as it is; the variables named here are (re)written as this
script says, keeping their place in the graph.
"""
import sys

from causal_graph_edit import add_root_states, copy_rows, note_hand_set, put_variable, rewrite, root_of

PRIOR = 0.02
# The table of a hardware variable (states + unmeasured) under the cause it speaks for and under every other.
SPEAKS = [0.04995, 0.94905, 0.001]
OTHERS = [0.891, 0.009, 0.1]
# variable -> (feature, states, threshold, soft width, cause it speaks for, description[, cause row, others])
VARIABLES = {
    "device_clock": (
        "hw.device.clock_drop", ["steady", "throttled"], 0.15, 0.02, "device_throttling",
        "Symptom 'throttled device': how far a busy device's clock (Ascend AI Core, NVIDIA SM) fell below its "
        "rated clock (its usual one where no rated clock is sampled) over its longest sustained low stretch "
        "(feature hw.device.clock_drop; from the recording's npu.aicore.frequency / gpu.clock.sm, with "
        "utilisation and temperature). throttled >= 0.15: thermal or power throttling, which a healthy device "
        "under load does not show."),
    "memory_headroom": (
        "hw.memory.peak_utilization", ["ample", "exhausted"], 0.95, 0.005, "memory_pressure",
        "Symptom 'memory pressure': the highest share of device memory (HBM, GPU memory) or host memory held in "
        "use for the sustained-window length (feature hw.memory.peak_utilization). exhausted >= 0.95: the "
        "allocator retries, fragments, or the host swaps and OOM-kills."),
    "host_cpu": (
        "hw.host.cpu_starved_share", ["free", "starved"], 0.2, 0.03, "host_input_bound",
        "Symptom 'starved host': share of the run the host could not feed the workload: a run queue beyond the "
        "cores while other processes took the CPUs, iowait, or hypervisor steal (feature "
        "hw.host.cpu_starved_share). starved >= 0.2 of the run. Under host_input_bound a free host is likely "
        "too (a DataLoader without workers stalls the device on an idle host). unmeasured: the run has no "
        "recording of these series (observed as evidence, absent_state); as likely under any cause: "
        "host_input_evidence rules the cause out when nothing was measured.",
        [0.4, 0.5, 0.1], OTHERS),
    "data_loader_wait": (
        "hw.input.data_loader_exposed_share", ["hidden", "exposed"], 0.1, 0.02, "host_input_bound",
        "Symptom 'DataLoader stalls the device': share of the profiled step time the training loop spent in "
        "DataLoader calls while no kernel, memcpy or memset ran (feature hw.input.data_loader_exposed_share, "
        "from a profiler trace with device rows; the PyTorch profiler's TensorBoard plugin advises more "
        "loader workers from 5%). exposed >= 0.1 of the step. unmeasured: no trace, no DataLoader calls in "
        "it, or no device rows (a CPU-only run computes on the host too); as likely under any cause.",
        [0.1, 0.8, 0.1], OTHERS),
    "host_input_evidence": (
        "hw.host.input_measured", ["none", "measured"], 0.5, 0.0, "host_input_bound",
        "Whether anything measured the host feeding the device: a recording of the host's CPU (host_cpu) or "
        "a profiler trace with device rows and DataLoader calls (data_loader_wait); feature "
        "hw.host.input_measured, absent = none. none rules host_input_bound out rather than ranking it on "
        "its prior.",
        [0.001, 0.999], [0.1, 0.9]),
    "network_pauses": (
        "hw.network.congestion_ratio", ["clean", "congested"], 0.01, 0.002, "network_congestion",
        "Symptom 'congested network': congestion signals (PFC and pause frames, CNPs, ECN marks, retransmissions) "
        "per packet on the worst RoCE port over its longest congested stretch (feature "
        "hw.network.congestion_ratio). congested >= 0.01: a lossless fabric pausing or marking one packet in a "
        "hundred is backed up."),
}
SCENARIOS = {
    "training": ["device_throttling", "memory_pressure", "host_input_bound"],
    "inference": ["device_throttling", "memory_pressure"],
    "distributed": ["device_throttling", "memory_pressure", "host_input_bound", "network_congestion"],
}
CAUSE_NOTES = {
    "device_throttling": "device_throttling (a device clocked below its rated clock under load: thermal or power "
                         "throttling)",
    "memory_pressure": "memory_pressure (device or host memory held near full)",
    "host_input_bound": "host_input_bound (the host could not feed the device: CPU taken by other processes, "
                        "iowait, steal)",
    "network_congestion": "network_congestion (a RoCE port pausing, marking or retransmitting: congestion of "
                          "the fabric)",
}


def add(graph):
    root = root_of(graph)
    causes = SCENARIOS[graph["name"]]
    new = add_root_states(graph, causes, PRIOR)
    if new:
        root["description"] += " Hardware causes from a recording (hand-set, docs/features-hardware.md): " + \
            ", ".join(CAUSE_NOTES[c] for c in new) + "."
        for v in graph["variables"]:
            if v is not root:
                for c in new:
                    copy_rows(graph, v, c, "healthy")
    for name, spec in VARIABLES.items():
        feature, states, threshold, width, speaks_for, description = spec[:6]
        cause_row, other_row = spec[6:] if len(spec) > 6 else (SPEAKS, OTHERS)
        if speaks_for not in causes:
            continue
        flag = len(cause_row) == len(states)  # no unmeasured state: absence is the first state
        cpt = [list(cause_row) if cause == speaks_for else list(other_row) for cause in root["states"]]
        description += " Hand-set (learn: false)."
        if len(spec) == 6:
            description += (" unmeasured: the run has no recording of these series (observed as evidence, "
                            "absent_state): the cause it speaks for is ruled out rather than ranked on its prior.")
        discretization = {"feature": feature, "states": states, "thresholds": [threshold]}
        if width > 0:
            discretization["soft_width"] = width
        discretization["absent_state"] = states[0] if flag else "unmeasured"
        variable = {
            "name": name,
            "description": description,
            "states": states if flag else states + ["unmeasured"],
            "default_state": states[0],
            "parents": ["root_cause"],
            "learn": False,
            "discretization": discretization,
            "cpt": cpt,
        }
        put_variable(graph, variable)
    if new:
        note_hand_set(graph, "Added after this learning run and not learnt (scripts/add-hardware-causes.py): the root "
                      "states " + ", ".join(new) + f" (prior {PRIOR} each, the others scaled), their rows in every "
                      "variable (the healthy rows) and the hardware variables that observe them.")


if __name__ == "__main__":
    rewrite(sys.argv[1:], add)
