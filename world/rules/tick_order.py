"""The steps of a tick, declared once: their order, which fire at a tick, and what each touches. Pure.

Every schedule walks this table. Lock-step (voyage/engine/tick.py) takes each step that fires, for
everyone, in this order. The out-of-order schedule (voyage/engine/ahead.py) takes each agent through
the steps taken one agent at a time (`EACH`), each at its place in lock-step's order, its key
(tick, step number, the agent's place in the tick); whether a step may go is the rule of
world/rules/dependency.py, which reads the numbers from here. The steps taken once for the tick are
the tick increment (the writer's: the steps after it write with the new tick), the digest (log only,
written at the commit), and the steps that touch everyone: a tick where one of those fires is a
barrier (dependency.barrier), taken by everyone together.

What a step touches:
- OWN: its agent's row and memory (reading what others left in the room it stands in);
- ROOMS: what others read in the rooms it touches (a resolution: where people are, what they
  remember, their ledgers, whether they live; a wake: who is awake, which a prompt there shows);
- EVERYONE: every living agent;
- NOTHING: no row (the tick increment, the digest).
"""
from __future__ import annotations

from dataclasses import dataclass, replace

OWN, ROOMS, EVERYONE, NOTHING = "own", "rooms", "everyone", "nothing"


@dataclass(frozen=True)
class Step:
    name: str  # in the seed's words; a barrier says it by this name
    touches: str  # OWN, ROOMS, EVERYONE or NOTHING
    each: bool = True  # taken one agent at a time, in the tick's seeded order; else once for the tick
    fires: str | None = None  # the world.time.TickPlan flag it fires on; None: every tick
    number: int = 0  # its place in the tick (set from its row below): a step's key is (tick, number, place)
    new_tick: bool = False  # after the tick increment: it writes with the tick's new number (set below)

    def fires_at(self, plan) -> bool:
        return self.fires is None or getattr(plan, self.fires)


def _numbered(*steps: Step) -> tuple[Step, ...]:
    names = [s.name for s in steps]
    after = names.index("tick increment")
    return tuple(replace(s, number=n, new_tick=n - 1 > after) for n, s in enumerate(steps, 1))


# The tick, in its one order. Reordering a row reorders every schedule.
TICK = _numbered(
    Step("spouse collision", EVERYONE, each=False, fires="spouse_collision"),  # tick 1: the couples meet
    Step("wake", ROOMS),  # a sleeper whose sleep is over wakes
    Step("compaction check", OWN),  # soft: a job queued; hard: compacted now, from the committed rows
    Step("prompt", OWN),  # its situation, shown as the tick began, and its action call
    Step("resolution", ROOMS),  # its answer (or its walk on, or its collapse), in the tick's order
    Step("attrition", OWN),  # alone too long in a private room (the rumour, EVERYONE's, is a barrier)
    Step("tick increment", NOTHING, each=False),
    Step("reflection", OWN),  # those due reflect, score it, then assess whom they met
    Step("wind-down cue", EVERYONE, each=False, fires="wind_down"),
    Step("nightfall", EVERYONE, each=False, fires="nightfall"),  # and the diary entries of the night
    Step("digest", NOTHING, each=False, fires="digest"),  # log only
    Step("bulletin", EVERYONE, each=False, fires="bulletin"),  # the dawn bulletin
    Step("dreams", OWN),  # those who fell asleep for 30+ minutes dream (a job, done after the commit)
)
EACH = tuple(s for s in TICK if s.each)
BY_NAME = {s.name: s for s in TICK}
BY_NUMBER = {s.number: s for s in TICK}
# The steps' numbers by name, for the keys: a schedule says which step it takes by these.
SPOUSE_COLLISION, WAKE, CHECK, PROMPT, RESOLVE, ATTRITION, INCREMENT, REFLECT, WIND_DOWN, NIGHTFALL, DIGEST, \
    BULLETIN, DREAMS = (BY_NAME[n].number for n in (
        "spouse collision", "wake", "compaction check", "prompt", "resolution", "attrition", "tick increment",
        "reflection", "wind-down cue", "nightfall", "digest", "bulletin", "dreams"))
# Out of order, an agent's next step after each of its own (after the last: the first of the next tick).
NEXT = {s.number: n.number for s, n in zip(EACH, EACH[1:])}


def after_increment(step: int) -> bool:
    """Does the step write with the tick's new number (is it after the tick increment)?"""
    return BY_NUMBER[step].new_tick
