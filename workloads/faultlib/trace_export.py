"""Chrome trace of a torch.profiler run, as the legacy exporter writes it plus the operators' input shapes.

Debian's PyTorch has no Kineto: ``profile.export_chrome_trace`` falls back to the legacy exporter, which
leaves every ``args`` empty even with ``record_shapes=True``. Kineto writes the shapes as ``"Input Dims"``
(a list per input, ``[]`` for a non-tensor); this exporter writes the same events as the legacy one with
that argument added, so a trace of this build carries what a Kineto build's does.
"""
import json


def export_chrome_trace(prof, path):
    events = []
    for evt in prof.events():
        if evt.trace_name is None:
            continue
        args = {}
        shapes = getattr(evt, "input_shapes", None)
        if shapes:
            args["Input Dims"] = [list(s) if isinstance(s, (list, tuple)) else [] for s in shapes]
        events.append({"name": evt.trace_name, "ph": "X", "ts": evt.time_range.start,
                       "dur": evt.time_range.elapsed_us(), "tid": evt.thread, "pid": "CPU functions",
                       "args": args})
    with open(path, "w") as f:
        json.dump(events, f, separators=(",", ":"))
