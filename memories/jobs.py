"""django-q2 job functions for the memory work that must not hold up a tick: compaction (with era
folding) and dreaming. Queued on the "memory" cluster after the tick that asked for them commits.
Delivery is at-least-once, so both are idempotent (unique constraints decide who wrote first)."""
from __future__ import annotations

import logging

from django.db import transaction
from django_q.tasks import async_task


class _QuietEnqueue(logging.Filter):
    """A dream per sleeper and a compaction per agent every few hours: django-q2's INFO line for
    each enqueue would bury a batch run's progress bar."""

    def filter(self, record):
        return not record.getMessage().startswith("Enqueued [memory]")


logging.getLogger("django-q").addFilter(_QuietEnqueue())
log = logging.getLogger("voyage.memory")


def queue(job: str, *args, name: str = "") -> str | None:
    """Called after a tick has committed: a broker that cannot take the job must not fail a run
    whose tick is already safe. A lost compaction is queued again as rows grow; a lost dream is
    only a night without one."""
    try:
        # Inside a transaction: outside one, the ORM broker closes and reopens the connection per task.
        with transaction.atomic():
            return async_task(f"memories.jobs.{job}", *args, cluster="memory",
                              task_name=(name or f"{job}-" + "-".join(map(str, args)))[:100])
    except Exception:
        log.exception("could not queue memories.jobs.%s%s", job, args)
        return None


def compact_agent(run_id: int, agent_id: int, tick: int) -> int:
    from memories.compaction import compact

    return len(compact(agent_id, tick=tick))


def dreams(run_id: int, sleepers: list) -> int:
    """The dreams of everyone who fell asleep at one tick: [[agent_id, tick], ...]."""
    return sum(dream(run_id, agent_id, tick) is not None for agent_id, tick in sleepers)


def dream(run_id: int, agent_id: int, tick: int) -> int | None:
    from memories.dreams import dream as write_dream

    made = write_dream(agent_id, tick)
    return made.pk if made else None
