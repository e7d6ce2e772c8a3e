"""Edits of a causal graph's JSON (docs/bayes.md) shared by the scripts that add hand-set root causes to the
shipped graphs: scripts/add-hardware-causes.py, add-expert-imbalance.py, add-device-operator-causes.py.

A new root state takes a prior share (the others scaled to keep the sum) and, in every variable under
root_cause, rows copied from an existing state's rows; tables are either keyed (hand-set priors:
{"given": {...}, "p": [...]}) or positional (learnt graphs: one row per parent configuration, the first
parent varying slowest), and root_cause may share a variable with other parents (it must then come first
in a positional table, as in the shipped graphs).
"""
import json


def root_of(graph):
    return next(v for v in graph["variables"] if v["name"] == "root_cause")


def add_root_states(graph, causes, prior):
    """Appends those of `causes` that root_cause lacks, `prior` each (the others scaled by 1 - prior x their
    number); returns them (empty: nothing changed)."""
    root = root_of(graph)
    new = [c for c in causes if c not in root["states"]]
    if new:
        table = root["cpt"][0] if isinstance(root["cpt"][0], list) else root["cpt"]
        scale = 1.0 - prior * len(new)
        table[:] = [round(p * scale, 6) for p in table] + [prior] * len(new)
        root["states"] += new
    return new


def copy_rows(graph, variable, cause, source, transform=None):
    """Gives `variable` rows for the root state `cause` (appended after the states its table covers): copies of the rows of root state
    `source`, under every configuration of its other parents, each passed through `transform` (p -> p)."""
    parents = variable.get("parents", [])
    if "root_cause" not in parents:
        raise SystemExit(f"{graph['name']}: variable {variable['name']} is not under root_cause")
    transform = transform or list
    rows = variable["cpt"]
    if rows and isinstance(rows[0], dict):
        rows += [{"given": dict(r["given"], root_cause=cause), "p": transform(r["p"])}
                 for r in [r for r in rows if r["given"].get("root_cause") == source]]
        return
    if parents[0] != "root_cause":
        raise SystemExit(f"{graph['name']}: variable {variable['name']}: a positional table needs root_cause as "
                         f"its first parent, got {parents}")
    cardinality = {v["name"]: len(v["states"]) for v in graph["variables"]}
    block = 1
    for p in parents[1:]:
        block *= cardinality[p]
    at = root_of(graph)["states"].index(source) * block
    rows += [transform(r) for r in rows[at:at + block]]


def put_variable(graph, variable):
    """Replaces the variable of that name, or appends it."""
    variables = graph["variables"]
    at = next((i for i, v in enumerate(variables) if v["name"] == variable["name"]), None)
    if at is None:
        variables.append(variable)
    else:
        variables[at] = variable


def note_hand_set(graph, text):
    """Appends to the learnt graph's `_learned.hand_set` what was added after its learning run."""
    learned = graph.get("_learned")
    if learned is not None:
        learned["hand_set"] = (learned.get("hand_set", "") + " " + text).strip()


def rewrite(paths, add, name=None, summary=None):
    """Loads each graph, applies `add(graph)`, writes it back as the repository keeps them (indent 1)."""
    for path in paths:
        with open(path) as f:
            graph = json.load(f)
        if name is not None and graph.get("name") != name:
            raise SystemExit(f"{path}: expected the {name} graph, got '{graph.get('name')}'")
        add(graph)
        with open(path, "w") as f:
            json.dump(graph, f, indent=1, ensure_ascii=False)
            f.write("\n")
        print(f"{path}: " + (summary(graph) if summary else
                             f"root states {len(root_of(graph)['states'])}, variables {len(graph['variables'])}"))
