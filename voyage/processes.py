"""Which process holds a claim: a run's chunk (voyage.runs.tasks) or a memory job's attempt
(memories.attempts). A claim names its process as host:pid, so a process on the same host can tell
at once that the claimant is gone; from another host only a stale heartbeat or lease tells."""
from __future__ import annotations

import os
import socket


def worker_id() -> str:
    return f"{socket.gethostname()[:60]}:{os.getpid()}"


def claimant_gone(claimed_by: str, host: str) -> bool:
    """True when the claim names a process on this host that no longer runs (a zombie counts as
    gone: its parent was killed with it and nobody has reaped it yet). Called by a worker between
    tasks, so a claim naming its own pid was left by an earlier process that had the same pid."""
    claim_host, _, pid = claimed_by.rpartition(":")
    if claim_host != host[:60] or not pid.isdigit():
        return False
    if int(pid) == os.getpid():
        return True  # a previous process with our pid: we run one task at a time and hold no claim now
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True
    except OSError:
        pass
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False
