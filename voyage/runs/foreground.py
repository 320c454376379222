"""A run advanced in this process — `run_voyage`, a study's runs in `study run` — goes through one
life cycle: running while it advances; then failed (an error, said), paused (its user's Ctrl-C,
said; or it paused itself: its budget, with why) or finished. The states are written by
voyage.run_transitions."""
from __future__ import annotations

from contextlib import contextmanager

from voyage import run_transitions as transitions
from voyage.models import Run


@contextmanager
def in_the_foreground(run: Run):
    transitions.start_in_foreground(run)
    try:
        yield run
    except BaseException as exc:
        error = f"{type(exc).__name__}: {exc}"
        if isinstance(exc, KeyboardInterrupt):
            transitions.interrupt(run, error)
        else:
            transitions.fail(run, error)
        raise
    if run.state != Run.PAUSED:
        # A run its user stopped meanwhile is finished already: nothing more to say.
        transitions.attempt(run, transitions.FINISH)
