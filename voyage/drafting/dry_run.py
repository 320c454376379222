"""One simulated day of a drafted world on the offline policy (its own phrasebook, no model), in a
scratch database (voyage/drafting/scratch.py): the world is written, a run of every persona plays
the day with its memory jobs inline, the audits read what it left, and the scratch is thrown away.
The main database is never written nor locked by it: the web and the worker go on meanwhile."""
from __future__ import annotations

from dataclasses import asdict, dataclass

from voyage.drafting.scratch import scratch_database
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


def dry_run(data: dict, paragraph: str) -> tuple[DayFigures, Audits]:
    with scratch_database():
        scenario = write(data)
        run = create_run(scenario, seed=SEED, schedule=Run.SIMULTANEOUS, target_ticks=TICKS_PER_DAY)
        advance(run, TICKS_PER_DAY, gateway=OfflineModel(seed=SEED, phrasebook=scenario.phrasebook),
                memory_inline=True)
        return day_figures(run), audit_run(run, paragraph)


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
