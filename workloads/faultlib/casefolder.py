"""Writes a case folder in the layout of the case corpus (config.json, metrics.jsonl, expected.json).

Strict JSON: numbers that are not finite are written as the strings "nan", "inf", "-inf".
"""
import json
import math
import os


def finite(v):
    """A number as strict JSON allows it: non-finite floats become strings."""
    if isinstance(v, float) and not math.isfinite(v):
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")
    return v


def jsonable(value):
    """Recursively replaces non-finite floats (configs can hold them after a --set)."""
    if isinstance(value, dict):
        return {k: jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    return finite(value)


def write_json(path, document):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(jsonable(document), f, indent=2, allow_nan=False)
        f.write("\n")
    os.replace(tmp, path)


class JsonLines:
    """One JSON object per line, flushed per line so a killed run keeps what it wrote."""

    def __init__(self, path):
        self.file = open(path, "w")

    def write(self, record):
        self.file.write(json.dumps(jsonable(record), allow_nan=False) + "\n")

    def close(self):
        self.file.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def write_expected(folder, scenario, root_cause, fault_params, variant, notes="", measured=None, hidden=None):
    """The label of a case. `variant` names the value of every matrix axis of this run (optimizer, model,
    dataset, data order, ...): `cann-debug eval --leave-out AXIS` groups cases by it. `hidden` names states of
    the scenario graph's hidden variables the run knows (e.g. its order_kind), which learning keeps rather
    than read them off the label."""
    label = {
        "scenario": scenario,
        "root_cause": root_cause,
        "healthy": root_cause == "healthy",
        "fault_params": fault_params,
        "variant": variant,
        "notes": notes,
        "measured": measured or {},
    }
    if hidden:
        label["hidden"] = hidden
    write_json(os.path.join(folder, "expected.json"), label)
