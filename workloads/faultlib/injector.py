"""The fault injector the workloads share.

A fault is registered under its root-cause id (the ids of the case corpus' FORMAT.md) for one scenario. Its
`inject(config, magnitude, rng)` changes the run's configuration the way the fault happens in real code: the
workload then builds its optimizer, data order, model, clipping, serving loop or ranks from that configuration
(an optimizer constructed with the wrong lr, a sampler that yields data in a non-random order, a clip
threshold far below the gradient norm, a sleeping rank, ...). Nothing edits a log afterwards. `inject`
returns the fault parameters recorded in expected.json. The workload applies `--set` after it, so a fix can
be tried on the faulted program.
"""
import random

FAULTS = {}


class Fault:
    def __init__(self, id, scenario, description, inject):
        self.id = id
        self.scenario = scenario
        self.description = description
        self._inject = inject

    def inject(self, config, magnitude, rng):
        return self._inject(config, magnitude, rng)


def register(id, scenario, description):
    """Decorator: registers `inject(config, magnitude, rng) -> fault_params` as fault `id`."""

    def wrap(fn):
        if id in FAULTS:
            raise ValueError(f"fault {id} registered twice")
        FAULTS[id] = Fault(id, scenario, description, fn)
        return fn

    return wrap


def faults_of(scenario):
    _load_all()
    return {k: f for k, f in FAULTS.items() if f.scenario == scenario}


def inject(scenario, fault_id, magnitude, config, seed):
    """Applies fault `fault_id` ("none" = healthy) to `config`; returns its fault_params."""
    if fault_id == "none":
        return {}
    faults = faults_of(scenario)
    if fault_id not in faults:
        raise SystemExit(f"error: --fault {fault_id}: not a {scenario} fault (known: {', '.join(sorted(faults))})")
    return faults[fault_id].inject(config, magnitude, random.Random(seed * 7919 + 17))


def pick(magnitude, weak, medium, strong):
    return {"weak": weak, "medium": medium, "strong": strong}[magnitude]


_loaded = False


def _load_all():
    global _loaded
    if _loaded:
        return
    _loaded = True
    from . import training_faults  # noqa: F401  (registers)
    for name in ("inference_faults", "distributed_faults"):
        try:
            __import__(f"{__package__}.{name}")
        except ModuleNotFoundError as e:
            if e.name != f"{__package__}.{name}":
                raise
