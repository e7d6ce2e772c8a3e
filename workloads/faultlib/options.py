"""The command line the three workloads share, and `--set KEY=VALUE` on a nested configuration."""
import argparse
import json
import os

MAGNITUDES = ("weak", "medium", "strong")


def parser(description, faults):
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--fault", default="none", choices=("none",) + tuple(faults),
                    help="root cause to inject (none = a healthy run)")
    ap.add_argument("--magnitude", default="medium", choices=MAGNITUDES,
                    help="how strong the injected fault is: weak is barely visible, strong is obvious")
    ap.add_argument("--seed", type=int, default=0, help="seeds data, initialisation, order and load")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="configuration override (dotted keys as in config.json: lr, batch_size, "
                         "optimizer.name, model.type, ...); applied after the fault, so it wins over it")
    # Under `cann-debug collect --output RUN_DIR -- ...` the run folder is the default.
    run_dir = os.environ.get("CANN_DEBUG_RUN_DIR")
    ap.add_argument("--output", required=run_dir is None, default=run_dir,
                    help="case folder to write (created; default: $CANN_DEBUG_RUN_DIR, which "
                         "`cann-debug collect` sets)")
    return ap


def parse_value(text):
    """JSON when it parses (numbers, true/false/null, lists, objects), else the text itself."""
    try:
        return json.loads(text)
    except ValueError:
        return text


def parse_sets(items):
    """['a.b=1', 'lr=0.1'] -> [('a.b', 1), ('lr', 0.1)], in order; a malformed item is a usage error."""
    out = []
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise SystemExit(f"error: --set {item!r}: expected KEY=VALUE")
        out.append((key.strip(), parse_value(value.strip())))
    return out


def get(config, key, default=None):
    node = config
    for part in key.split("."):
        if not isinstance(node, dict) or part not in node:
            return default
        node = node[part]
    return node


def put(config, key, value):
    parts = key.split(".")
    node = config
    for part in parts[:-1]:
        if not isinstance(node.get(part), dict):
            node[part] = {}
        node = node[part]
    node[parts[-1]] = value


def apply_sets(config, sets):
    """Applies overrides in order. `lr` and `optimizer.lr` name the same thing: setting one sets both."""
    for key, value in sets:
        put(config, key, value)
        if key == "lr" and isinstance(config.get("optimizer"), dict):
            config["optimizer"]["lr"] = value
        elif key == "optimizer.lr":
            config["lr"] = value
    return {key for key, _ in sets}
