"""One simulated day of a drafted world on the offline policy (its own phrasebook, no model), in a
transaction that is rolled back: the world is written, a run of every persona plays the day with
its memory jobs inline, the audits read what it left, and nothing of it stays in the database."""
from __future__ import annotations

from dataclasses import asdict, dataclass

from django.db import transaction

from voyage.engine.runner import advance, create_run
from voyage.gateway.offline import OfflineModel
from voyage.models import Event, LLMCall, Run
from voyage.records.audits import Audits, audit_run
from world.scenarios.files import write
from world.time import TICKS_PER_DAY

SEED = 41


@dataclass(frozen=True)
class DayFigures:
    ticks: int
    actions: int
    action_fails: int
    rungs_reached: dict  # level -> people who reached it during the day
    rooms_visited: int  # rooms someone was in (homes at waking, and every room entered)
    rooms: int
    deaths: int

    def as_dict(self) -> dict:
        return asdict(self)


class _Rollback(Exception):
    pass


def dry_run(data: dict, paragraph: str) -> tuple[DayFigures, Audits]:
    result = {}
    try:
        with transaction.atomic():
            scenario = write({**data, "slug": f"dry-run-{data['slug']}"[:50]})
            run = create_run(scenario, seed=SEED, schedule=Run.SIMULTANEOUS, target_ticks=TICKS_PER_DAY)
            advance(run, TICKS_PER_DAY, gateway=OfflineModel(seed=SEED, phrasebook=scenario.phrasebook),
                    memory_inline=True)
            result["figures"], result["audits"] = day_figures(run), audit_run(run, paragraph)
            raise _Rollback
    except _Rollback:
        pass
    return result["figures"], result["audits"]


def day_figures(run) -> DayFigures:
    events = Event.objects.filter(run=run)
    rungs = {}
    for level in events.filter(kind="rung").values_list("data__rung", flat=True):
        rungs[str(level)] = rungs.get(str(level), 0) + 1
    visited = set(run.agents.values_list("persona__home_node_id", flat=True))
    visited |= set(events.filter(kind="move").values_list("room_id", flat=True))
    return DayFigures(ticks=run.tick, actions=LLMCall.objects.filter(run=run, purpose="action").count(),
                      action_fails=events.filter(kind="action_fail").count(), rungs_reached=rungs,
                      rooms_visited=len(visited), rooms=run.scenario.rooms.count(),
                      deaths=events.filter(kind="death").count())
