"""django-q2 job functions for the memory work that must not hold up a tick: compaction (with era
folding) and dreaming. Queued on the "memory" cluster after the tick that asked for them commits.
Delivery is at-least-once, so both are idempotent (unique constraints decide who wrote first)."""
from __future__ import annotations

from django.db import transaction
from django_q.tasks import async_task


def queue(job: str, *args) -> str:
    # Inside a transaction: outside one, the ORM broker closes and reopens the connection per task.
    with transaction.atomic():
        return async_task(f"memories.jobs.{job}", *args, cluster="memory", task_name=f"{job}-" + "-".join(map(str, args)))


def compact_agent(run_id: int, agent_id: int, tick: int) -> int:
    from memories.compaction import compact

    return len(compact(agent_id, tick=tick))


def dream(run_id: int, agent_id: int, tick: int) -> int | None:
    from memories.dreams import dream as write_dream

    made = write_dream(agent_id, tick)
    return made.pk if made else None
