"""A pickled object whose unpickling runs code: what a loader of untrusted data must never do.

``Payload(tag)`` unpickles by calling :func:`record_payload_run`, which appends
``tag`` to ``PAYLOAD_RUNS``; a test clears the list, loads, and checks it.
"""

PAYLOAD_RUNS: list[str] = []


def record_payload_run(tag: str) -> str:
    PAYLOAD_RUNS.append(tag)
    return tag


class Payload:
    """Unpickling this object calls ``record_payload_run(tag)``: a stand-in for any code."""

    def __init__(self, tag: str):
        self.tag = tag

    def __reduce__(self):
        return record_payload_run, (self.tag,)
