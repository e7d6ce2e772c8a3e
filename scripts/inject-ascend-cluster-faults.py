#!/usr/bin/env python3
"""Labelled Ascend cluster profiles: a fault written into a real msprof-analyze cluster folder, the way the
profiler would have recorded it.

    scripts/inject-ascend-cluster-faults.py --input DIR --fault ID --output OUT [--magnitude medium]
        [--rank N] [--seed S]
    scripts/inject-ascend-cluster-faults.py --input DIR --matrix OUT      # every fault x magnitude x seed
    scripts/inject-ascend-cluster-faults.py --input DIR --ranks 4096 --fault straggler_rank --output OUT
                                                  # the same job scaled to 4096 ranks (DP replicas) first

DIR is a cluster profile folder (cluster_analysis_output/cluster_step_trace_time.csv, optionally
cluster_communication.json, and rank_*/ASCEND_PROFILER_OUTPUT/ step_trace_time.csv and communication.json
beside it). OUT receives a copy with the figures changed and `expected.json` (FORMAT.md of the case corpus:
root_cause, healthy, fault_params, notes), so that `cann-debug eval --cases` and `kb learn --cases` use it.

Every case starts from the same base: the pipeline is filled, i.e. each pipeline stage's receive time
(Bubble) is set to what 1F1B gives with m micro-batches per step, (p-1)/(m+p-1) of the step for p stages
(m = 8, 12 or 16 by seed), and every rank's Computing / Communication / Free get a ~0.5% jitter. Faults:

  none             that base (healthy)
  pipeline_bubble  m = 3 / 2 / 1 micro-batches by magnitude: the later stages wait (p-1)/(m+p-1) of a step
                   in receives
  straggler_rank   one rank (--rank, else by seed) computes (or, for odd seeds, spends on the host, Free)
                   6% / 12% / 25% of a step longer; the ranks of its stage wait that long in their
                   collectives, the other stages in their receives; the peers' Wait Time in the
                   communication files grows by the same amount
  slow_link        the busiest transport of one rank of the communication files runs at 0.45 / 0.3 / 0.15
                   of its bandwidth; its transit takes that much longer and every rank of its stage waits
                   for it in the collectives
  small_packets    every transport's Large Packet Ratio drops to 0.4 / 0.25 / 0.1 and its bandwidth to
                   0.6 / 0.45 / 0.3 of what it was; all ranks' collectives take longer alike

Stage rows of cluster_step_trace_time.csv are recomputed as the column maximum over their ranks, the way
msprof-analyze writes them. The real folder itself stays unmodified; diagnose it directly.
"""

import argparse
import csv
import io
import json
import os
import random
import re
import shutil
import sys

FAULTS = ["none", "pipeline_bubble", "straggler_rank", "slow_link", "small_packets"]
MAGNITUDES = ["weak", "medium", "strong"]
HEALTHY_MICRO_BATCHES = [8, 12, 16]
BUBBLE_MICRO_BATCHES = {"weak": 3, "medium": 2, "strong": 1}
STRAGGLER_SHARE = {"weak": 0.06, "medium": 0.12, "strong": 0.25}
SLOW_LINK_FACTOR = {"weak": 0.45, "medium": 0.3, "strong": 0.15}
SMALL_PACKET = {"weak": (0.4, 0.6), "medium": (0.25, 0.45), "strong": (0.1, 0.3)}
JITTER = 0.005

COMPUTING, COMM, OVERLAPPED, COMM_ALL, FREE = ("Computing", "Communication(Not Overlapped)", "Overlapped",
                                               "Communication", "Free")
STAGE, BUBBLE, EXCLUDE = "Stage", "Bubble", "Communication(Not Overlapped and Exclude Receive)"
TIME_COLUMNS = [COMPUTING, COMM, OVERLAPPED, COMM_ALL, FREE, STAGE, BUBBLE, EXCLUDE, "Preparing"]


class Table:
    """A step_trace_time.csv kept as header + rows of strings, figures parsed on demand."""

    def __init__(self, path):
        self.path = path
        with open(path, newline="") as f:
            rows = list(csv.reader(f))
        self.header, self.rows = rows[0], [r for r in rows[1:] if r]

    def get(self, row, column, default=0.0):
        if column not in self.header:
            return default
        cell = row[self.header.index(column)]
        try:
            return float(cell)
        except ValueError:
            return default

    def set(self, row, column, value):
        if column in self.header:
            row[self.header.index(column)] = repr(round(value, 6))

    def add(self, row, column, delta):
        if column in self.header:
            self.set(row, column, self.get(row, column) + delta)

    def write(self):
        out = io.StringIO()
        w = csv.writer(out, lineterminator="\n")
        w.writerow(self.header)
        w.writerows(self.rows)
        with open(self.path, "w", newline="") as f:
            f.write(out.getvalue())


def step_of(table, row):
    return table.get(row, COMPUTING) + table.get(row, COMM) + table.get(row, FREE)


def ranks_of(text):
    return [int(x) for x in re.findall(r"\d+", text)]


class Cluster:
    """The cluster folder: per-rank rows (cluster file and rank_*/ files), stages, communication files."""

    def __init__(self, root):
        self.root = root
        self.cluster = Table(os.path.join(root, "cluster_analysis_output", "cluster_step_trace_time.csv"))
        if "Type" not in self.cluster.header or "Index" not in self.cluster.header:
            sys.exit(f"{self.cluster.path}: expected the Type and Index columns of a cluster step trace")
        self.rank_tables = {}  # rank -> Table of rank_N/ASCEND_PROFILER_OUTPUT/step_trace_time.csv
        self.comm_files = []   # (path, kind) with kind 'cluster' or 'rank:N'
        for entry in sorted(os.listdir(root)):
            m = re.fullmatch(r"rank_?(\d+)", entry)
            out = os.path.join(root, entry, "ASCEND_PROFILER_OUTPUT")
            if not m or not os.path.isdir(out):
                continue
            if os.path.exists(os.path.join(out, "step_trace_time.csv")):
                self.rank_tables[int(m.group(1))] = Table(os.path.join(out, "step_trace_time.csv"))
            if os.path.exists(os.path.join(out, "communication.json")):
                self.comm_files.append((os.path.join(out, "communication.json"), f"rank:{m.group(1)}"))
        cc = os.path.join(root, "cluster_analysis_output", "cluster_communication.json")
        if os.path.exists(cc):
            self.comm_files.append((cc, "cluster"))
        self.stages = [ranks_of(r[self.cluster.header.index("Index")]) for r in self.cluster.rows
                       if r[self.cluster.header.index("Type")] == "stage"]
        self.ranks = sorted(int(r[self.cluster.header.index("Index")]) for r in self.cluster.rows
                            if r[self.cluster.header.index("Type")] == "rank")
        if not self.stages:
            self.stages = [self.ranks]
        # Indexes: a thousand-rank job (--ranks) would otherwise scan every row for every rank.
        t = self.cluster
        self._rows = {}
        for r in t.rows:
            if r[t.header.index("Type")] == "rank":
                self._rows.setdefault(int(r[t.header.index("Index")]), []).append((t, r))
        for rank, table in self.rank_tables.items():
            self._rows.setdefault(rank, []).extend((table, r) for r in table.rows)
        self._stage = {}
        for i, members in enumerate(self.stages):
            for m in members:
                self._stage.setdefault(m, i)

    def rows_of(self, rank):
        """(table, row) pairs holding this rank's figures."""
        return self._rows.get(rank, [])

    def stage_of(self, rank):
        return self._stage.get(rank, 0)

    def stage_step(self, stage):
        steps = sorted(step_of(t, r) for rank in self.stages[stage] for t, r in self.rows_of(rank)[:1])
        return steps[len(steps) // 2]

    def has_bubble(self, stage):
        return any(self.cluster.get(r, BUBBLE) > 0 for rank in self.stages[stage]
                   for t, r in self.rows_of(rank)[:1])

    def wait(self, rank, delta_us, in_receives):
        """The rank waits delta_us longer, in its receives (Bubble) or in its collectives."""
        for t, r in self.rows_of(rank):
            t.add(r, COMM, delta_us)
            t.add(r, COMM_ALL, delta_us)
            if in_receives:
                t.add(r, BUBBLE, delta_us)
            else:
                t.add(r, EXCLUDE, delta_us)
                t.add(r, STAGE, delta_us)

    def set_bubble_share(self, stage, share):
        """Receive time of the stage's ranks such that Bubble / step == share."""
        for rank in self.stages[stage]:
            for t, r in self.rows_of(rank):
                bubble = t.get(r, BUBBLE)
                rest = step_of(t, r) - bubble
                new = share * rest / (1.0 - share)
                t.add(r, COMM, new - bubble)
                t.add(r, COMM_ALL, new - bubble)
                t.set(r, BUBBLE, new)

    def jitter(self, rng):
        for rank in self.ranks:
            factors = {c: 1.0 + rng.gauss(0.0, JITTER) for c in (COMPUTING, COMM, FREE)}
            rows = self.rows_of(rank)
            for t, r in rows:
                for column, k in factors.items():
                    delta = t.get(r, column) * (k - 1.0)
                    t.add(r, column, delta)
                    if column == COMM:
                        t.add(r, COMM_ALL, delta)
                        t.add(r, EXCLUDE, delta)
                    if column != COMM:
                        t.add(r, STAGE, delta)

    def restage(self):
        t = self.cluster
        rank_rows = {int(r[t.header.index("Index")]): r for r in t.rows if r[t.header.index("Type")] == "rank"}
        for r in t.rows:
            if r[t.header.index("Type")] != "stage":
                continue
            members = [rank_rows[m] for m in ranks_of(r[t.header.index("Index")]) if m in rank_rows]
            for column in TIME_COLUMNS:
                if column in t.header and members:
                    t.set(r, column, max(t.get(m, column) for m in members))

    def write(self):
        self.restage()
        self.cluster.write()
        for t in self.rank_tables.values():
            t.write()


def op_infos(doc, kind):
    """(rank, info) for every op of a communication file: info holds 'Communication Time Info' and
    'Communication Bandwidth Info'. 'Total Op Info' entries are summaries and are rebuilt by the caller."""
    out = []
    if kind == "cluster":
        for group in doc.values():
            for step in group.values():
                for op, per_rank in step.items():
                    for rank, info in per_rank.items():
                        if isinstance(info, dict):
                            out.append((int(rank), op, info))
    else:
        rank = int(kind.split(":")[1])
        for step in doc.values():
            for ops in step.values():
                for op, info in ops.items():
                    if isinstance(info, dict):
                        out.append((rank, op, info))
    return out


def slow_transport(infos, rank, factor):
    """Slows the busiest transport of `rank` by `factor`; returns the extra transit time in ms."""
    busiest, most = None, 0.0
    for r, op, info in infos:
        if r != rank or op == "Total Op Info":
            continue
        for name, t in info.get("Communication Bandwidth Info", {}).items():
            if t.get("Transit Size(MB)", 0) > most:
                busiest, most = name, t.get("Transit Size(MB)", 0)
    extra = 0.0
    for r, op, info in infos:
        if r != rank or busiest is None:
            continue
        t = info.get("Communication Bandwidth Info", {}).get(busiest)
        if not t or not t.get("Transit Time(ms)"):
            continue
        added = t["Transit Time(ms)"] * (1.0 / factor - 1.0)
        t["Transit Time(ms)"] += added
        t["Bandwidth(GB/s)"] = round(t.get("Bandwidth(GB/s)", 0) * factor, 4)
        time = info["Communication Time Info"]
        time["Transit Time(ms)"] = time.get("Transit Time(ms)", 0) + added
        time["Elapse Time(ms)"] = time.get("Elapse Time(ms)", 0) + added
        if op != "Total Op Info":
            extra += added
    return busiest, extra


def by_rank(infos):
    out = {}
    for r, op, info in infos:
        out.setdefault(r, []).append((r, op, info))
    return out


def add_wait(infos, rank, extra_ms):
    """Spreads extra_ms of waiting over the rank's ops, by their elapse time (Total Op Info gets it all).
    `infos`: the rank's own (rank, op, info) triples (by_rank) or all of them."""
    mine = [(r, op, info) for r, op, info in infos if r == rank]
    ops = [(op, info) for _, op, info in mine if op != "Total Op Info"]
    total = sum(info["Communication Time Info"].get("Elapse Time(ms)", 0) for _, info in ops) or 1.0
    for r, op, info in mine:
        time = info["Communication Time Info"]
        share = 1.0 if op == "Total Op Info" else time.get("Elapse Time(ms)", 0) / total
        time["Wait Time(ms)"] = time.get("Wait Time(ms)", 0) + extra_ms * share
        time["Elapse Time(ms)"] = time.get("Elapse Time(ms)", 0) + extra_ms * share
        if time["Elapse Time(ms)"] > 0:
            time["Wait Time Ratio"] = round(time["Wait Time(ms)"] / (time["Wait Time(ms)"] +
                                                                      time.get("Transit Time(ms)", 0) or 1), 4)


def shifted(text, offset):
    return "(" + ", ".join(str(m + offset) for m in ranks_of(text)) + ")"


def replicate(folder, ranks):
    """Scales the cluster folder in place to `ranks` ranks: ranks / R data-parallel replicas of its R ranks,
    rank k of replica j being k + j*R. A stage row names its stage's ranks of every replica (the job keeps its
    pipeline depth); a communication group of the recording becomes one group per replica, the p2p entries
    are merged. The ranks' own folders and the other cluster files are left out: the scaled job is its
    cluster_step_trace_time.csv and cluster_communication.json."""
    out = os.path.join(folder, "cluster_analysis_output")
    table = Table(os.path.join(out, "cluster_step_trace_time.csv"))
    typ, index = table.header.index("Type"), table.header.index("Index")
    recorded = sorted({int(r[index]) for r in table.rows if r[typ] == "rank"})
    width = max(recorded) + 1 if recorded else 0
    if width == 0 or ranks % width:
        sys.exit(f"{folder}: --ranks {ranks} is not a multiple of the {width} ranks recorded")
    replicas = ranks // width
    rows = []
    for r in table.rows:
        if r[typ] == "rank":
            for j in range(replicas):
                copy = list(r)
                copy[index] = str(int(r[index]) + j * width)
                rows.append(copy)
        else:
            copy = list(r)
            copy[index] = "(" + ", ".join(str(m + j * width) for j in range(replicas)
                                          for m in ranks_of(r[index])) + ")"
            rows.append(copy)
    table.rows = rows
    table.write()
    path = os.path.join(out, "cluster_communication.json")
    if os.path.exists(path):
        with open(path) as f:
            doc = json.load(f)
        scaled = {}
        for group, steps in doc.items():
            for j in range(replicas):
                key = group if group == "p2p" else shifted(group, j * width)
                for step, ops in steps.items():
                    for op, per_rank in ops.items():
                        target = scaled.setdefault(key, {}).setdefault(step, {}).setdefault(op, {})
                        for rank, info in per_rank.items():
                            name = str(int(rank) + j * width) if rank.isdigit() else rank
                            target[name] = json.loads(json.dumps(info))
        with open(path, "w") as f:
            json.dump(scaled, f)
    for name in os.listdir(out):
        if name not in ("cluster_step_trace_time.csv", "cluster_communication.json"):
            os.remove(os.path.join(out, name))
    for name in os.listdir(folder):
        if re.fullmatch(r"rank_?\d+", name):
            shutil.rmtree(os.path.join(folder, name))


def inject(src, out, fault, magnitude, seed, rank=None, ranks=None):
    if os.path.exists(out):
        shutil.rmtree(out)
    shutil.copytree(src, out)
    for base, dirs, files in os.walk(out):
        for name in dirs + files:
            os.chmod(os.path.join(base, name), 0o755 if name in dirs else 0o644)
    if ranks:
        replicate(out, ranks)
    rng = random.Random(seed)
    c = Cluster(out)
    docs = []
    for path, kind in c.comm_files:
        with open(path) as f:
            docs.append((path, kind, json.load(f)))
    p = len(c.stages)
    m = rng.choice(HEALTHY_MICRO_BATCHES)
    params = {"magnitude": magnitude if fault != "none" else None, "seed": seed}
    c.jitter(rng)
    bubble_m = BUBBLE_MICRO_BATCHES[magnitude] if fault == "pipeline_bubble" else m
    for s in range(p):
        if c.has_bubble(s):
            c.set_bubble_share(s, (p - 1) / (bubble_m + p - 1))
    params["micro_batches"] = bubble_m
    notes = f"{p} pipeline stages, {bubble_m} micro-batches per step"
    comm_ranks = sorted({r for _, kind, doc in docs for r, _, _ in op_infos(doc, kind)})
    if fault == "straggler_rank":
        slow = rank if rank is not None else rng.choice(c.ranks)
        where = "host" if seed % 2 else "compute"
        stage = c.stage_of(slow)
        delay = STRAGGLER_SHARE[magnitude] * c.stage_step(stage)
        for t, r in c.rows_of(slow):
            t.add(r, FREE if where == "host" else COMPUTING, delay)
            if where == "compute":
                t.add(r, STAGE, delay)
        for other in c.ranks:
            if other == slow:
                continue
            s = c.stage_of(other)
            c.wait(other, delay, in_receives=s != stage and c.has_bubble(s))
        for _, kind, doc in docs:
            infos = by_rank(op_infos(doc, kind))
            for r in comm_ranks:
                if r != slow:
                    add_wait(infos.get(r, []), r, delay / 1000.0)
        params.update({"rank": slow, "where": where, "delay_ms": round(delay / 1000.0, 3)})
        notes += f"; rank {slow} spends {delay / 1000.0:.1f} ms more per step on the {where}"
    elif fault == "slow_link":
        if not comm_ranks:
            sys.exit(f"{src}: slow_link needs a communication file")
        slow = rank if rank is not None and rank in comm_ranks else rng.choice(comm_ranks)
        factor = SLOW_LINK_FACTOR[magnitude]
        extra_ms, link = 0.0, None
        for _, kind, doc in docs:
            link, extra = slow_transport(op_infos(doc, kind), slow, factor)
            extra_ms = max(extra_ms, extra)
        for _, kind, doc in docs:
            infos = by_rank(op_infos(doc, kind))
            for r in comm_ranks:
                if r != slow:
                    add_wait(infos.get(r, []), r, extra_ms)
        for other in c.stages[c.stage_of(slow)]:
            c.wait(other, extra_ms * 1000.0, in_receives=False)
        params.update({"rank": slow, "link": f"{link}:rank{slow}", "bandwidth_factor": factor})
        notes += f"; the {link} link of rank {slow} runs at {factor} of its bandwidth (+{extra_ms:.1f} ms)"
    elif fault == "small_packets":
        ratio, factor = SMALL_PACKET[magnitude]
        extra_by_rank = {}
        for _, kind, doc in docs:
            for r, op, info in op_infos(doc, kind):
                for name, t in info.get("Communication Bandwidth Info", {}).items():
                    if not t.get("Transit Size(MB)"):
                        continue
                    t["Large Packet Ratio"] = ratio
                    added = t.get("Transit Time(ms)", 0) * (1.0 / factor - 1.0)
                    t["Transit Time(ms)"] = t.get("Transit Time(ms)", 0) + added
                    t["Bandwidth(GB/s)"] = round(t.get("Bandwidth(GB/s)", 0) * factor, 4)
                    size = t["Transit Size(MB)"]
                    packets = max(1, int(round(size / 0.5)))
                    t["Size Distribution"] = {"0.5": [packets, t["Transit Time(ms)"]]}
                    time = info["Communication Time Info"]
                    time["Transit Time(ms)"] = time.get("Transit Time(ms)", 0) + added
                    time["Elapse Time(ms)"] = time.get("Elapse Time(ms)", 0) + added
                    if op != "Total Op Info":
                        extra_by_rank[r] = extra_by_rank.get(r, 0.0) + added
        extra_ms = max(extra_by_rank.values(), default=0.0)
        for other in c.ranks:
            c.wait(other, extra_ms * 1000.0, in_receives=False)
        params.update({"large_packet_ratio": ratio, "bandwidth_factor": factor})
        notes += f"; every link carries small packets (large-packet ratio {ratio}), +{extra_ms:.1f} ms"
    elif fault == "pipeline_bubble":
        notes += f" (the later stages wait {100.0 * (p - 1) / (bubble_m + p - 1):.0f}% of a step)"
    c.write()
    for path, _, doc in docs:
        with open(path, "w") as f:
            json.dump(doc, f, indent=1)
    expected = {"scenario": "distributed", "root_cause": "healthy" if fault == "none" else fault,
                "healthy": fault == "none", "fault_params": params,
                "notes": f"Injected into {os.path.basename(os.path.abspath(src))}: {notes}."}
    with open(os.path.join(out, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1)
        f.write("\n")
    return expected


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("--input", required=True, help="a cluster profile folder")
    ap.add_argument("--output", help="the case folder to write")
    ap.add_argument("--fault", choices=FAULTS, default="none")
    ap.add_argument("--magnitude", choices=MAGNITUDES, default="medium")
    ap.add_argument("--rank", type=int, help="the slow rank (straggler_rank, slow_link)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--matrix", help="write every fault x magnitude x 3 seeds (and 6 healthy) under this folder")
    ap.add_argument("--ranks", type=int, help="scale the job to this many ranks first: data-parallel replicas of "
                    "the recorded ranks (a multiple of them), each jittered on its own")
    a = ap.parse_args()
    if not os.path.exists(os.path.join(a.input, "cluster_analysis_output", "cluster_step_trace_time.csv")):
        sys.exit(f"{a.input}: expected cluster_analysis_output/cluster_step_trace_time.csv (an msprof-analyze "
                 "cluster folder)")
    if a.matrix:
        n = 0
        for seed in range(6):
            inject(a.input, os.path.join(a.matrix, f"ascend-none-{seed}"), "none", "medium", seed, ranks=a.ranks)
            n += 1
        for fault in FAULTS[1:]:
            for magnitude in MAGNITUDES:
                for seed in range(3):
                    s = 100 * FAULTS.index(fault) + 10 * MAGNITUDES.index(magnitude) + seed
                    inject(a.input, os.path.join(a.matrix, f"ascend-{fault}-{magnitude}-{seed}"), fault,
                           magnitude, s, ranks=a.ranks)
                    n += 1
        print(f"inject-ascend-cluster-faults: {n} cases in {a.matrix}")
        return
    if not a.output:
        ap.error("--output is required without --matrix")
    e = inject(a.input, a.output, a.fault, a.magnitude, a.seed, a.rank, a.ranks)
    print(json.dumps(e))


if __name__ == "__main__":
    main()
