"""Samples /proc every 100 ms into host_metrics.jsonl (the case corpus' host metric names and labels)."""
import json
import os
import threading
import time


def _proc_stat():
    with open("/proc/stat") as f:
        lines = f.read().splitlines()
    cpu = [int(x) for x in lines[0].split()[1:]]
    fields = {l.split()[0]: l.split()[1:] for l in lines if l}
    per_cpu = {l.split()[0][3:]: [int(x) for x in l.split()[1:]] for l in lines
               if l.startswith("cpu") and l[3:4].isdigit()}
    return cpu, per_cpu, int(fields["procs_running"][0]), int(fields["procs_blocked"][0]), int(fields["ctxt"][0])


def _meminfo():
    out = {}
    with open("/proc/meminfo") as f:
        for line in f:
            k, v = line.split(":", 1)
            out[k] = int(v.split()[0]) * 1024
    return out


def _proc_ticks(pid):
    with open(f"/proc/{pid}/stat") as f:
        parts = f.read().rsplit(")", 1)[1].split()
    return int(parts[11]) + int(parts[12])


def _proc_status(pid):
    threads, rss = 0, 0
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("Threads:"):
                threads = int(line.split()[1])
            elif line.startswith("VmRSS:"):
                rss = int(line.split()[1]) * 1024
    return threads, rss


def _busy(now, before):
    d = [a - b for a, b in zip(now, before)]
    total = sum(d) or 1
    idle, iowait = d[3], d[4]
    steal = d[7] if len(d) > 7 else 0
    return (total - idle - iowait) / total, iowait / total, steal / total


class HostSampler(threading.Thread):
    """Background thread; `processes` maps pid -> labels (e.g. {"role": "trainer"} or {"rank": "1"}).
    More processes can be added while it runs (ranks that start later)."""

    def __init__(self, path, processes=None, interval=0.1):
        super().__init__(daemon=True)
        self.out = open(path, "w")
        self.interval = interval
        self.processes = dict(processes or {os.getpid(): {"role": "trainer"}})
        self.lock = threading.Lock()
        self.stop_flag = threading.Event()

    def add_process(self, pid, labels):
        with self.lock:
            self.processes[pid] = labels

    def run(self):
        hz = os.sysconf("SC_CLK_TCK")
        prev, prev_per, _, _, prev_ctxt = _proc_stat()
        prev_t = time.time()
        prev_ticks = {}
        while not self.stop_flag.wait(self.interval):
            now = time.time()
            dt = max(now - prev_t, 1e-6)
            cpu, per_cpu, running, blocked, ctxt = _proc_stat()
            util, iowait, steal = _busy(cpu, prev)
            mem = _meminfo()
            recs = [("cpu.utilization", util, {"cpu": "all"}), ("cpu.iowait", iowait, {"cpu": "all"}),
                    ("cpu.steal", steal, {"cpu": "all"})]
            for name, vals in per_cpu.items():
                if name in prev_per:
                    recs.append(("cpu.utilization", _busy(vals, prev_per[name])[0], {"cpu": name}))
            recs += [("cpu.context_switches_per_s", (ctxt - prev_ctxt) / dt, {}),
                     ("load.runnable", running, {}), ("load.blocked", blocked, {}),
                     ("mem.used_bytes", mem["MemTotal"] - mem["MemAvailable"], {}),
                     ("mem.total_bytes", mem["MemTotal"], {})]
            with self.lock:
                processes = dict(self.processes)
            for pid, labels in processes.items():
                try:
                    ticks = _proc_ticks(pid)
                    threads, rss = _proc_status(pid)
                except (FileNotFoundError, ProcessLookupError, ValueError):
                    continue
                lab = {"pid": str(pid), **labels}
                if pid in prev_ticks:
                    recs.append(("proc.cpu_utilization", (ticks - prev_ticks[pid]) / hz / dt, lab))
                prev_ticks[pid] = ticks
                recs.append(("proc.threads", threads, lab))
                recs.append(("proc.rss_bytes", rss, lab))
            stamp = round(now, 6)
            for name, value, labels in recs:
                self.out.write(json.dumps({"time": stamp, "metric": name, "value": value, "labels": labels}) + "\n")
            self.out.flush()
            prev, prev_per, prev_t, prev_ctxt = cpu, per_cpu, now, ctxt

    def stop(self):
        self.stop_flag.set()
        if self.is_alive():
            self.join()
        self.out.close()

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()
