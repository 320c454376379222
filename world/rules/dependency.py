"""Who must wait for whom before a tick: the rule an out-of-order schedule would run on. Pure.

Read off the engine's rules (voyage/engine/resolve.py, world/rules/acoustics.py), the rooms an
agent's turn can touch, that is where someone may notice it:
- a move (or a walk on) takes it one exit along its path: the people in the room it leaves and in
  the room it enters see it go and arrive;
- a shout carries into the adjacent rooms whose ambient noise is low; any other words, and interact,
  attack, sleep or a collapse, reach only the people in its own room.
An agent notices only what lands in a room it stands in. So agent A's next prompt can depend on
agent B's turn only if a room B's turn touched is a room A stood in that tick (or the other way
round, which decides who resolves first).

While B's call is still out, B may yet go one exit any way or shout: its turn may touch its own room
and every room one exit from it. Once its answer is in, what it touched is known.

Over several ticks (`reach`, the out-of-order schedule's rule, voyage/engine/ahead.py): a step at key
(tick, step, place) waits for every agent still behind it whose remaining steps before it could touch
the rooms it touches. An agent with k resolutions to go may walk k exits, and be noticed one exit
beyond (`Balls`); with none, only a resolution in its room, or a wake there against a prompt, can tell
which came first: its other steps read and write its own row and memory (world/rules/tick_order.py).

Some steps involve everyone and stay barriers: nightfall, the wind-down cue, the dawn bulletin, the
spouse collision, the overnight ticks, a tick where interventions wait, and any tick at which someone
alone in a private room could reach the attrition threshold (the rumour goes to every living agent).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping, NamedTuple, Sequence

from world.rules.actions import ActionFail
from world.rules.tick_order import EVERYONE, PROMPT, RESOLVE, TICK, WAKE


@dataclass(frozen=True)
class Turn:
    """Where an agent stands during one tick: every room it may stand in, and whether that is final
    (its answer is in, or it makes no call) or only what is possible while its call is out."""
    start: int  # where it stood when the tick began
    rooms: frozenset[int]  # where it stood during the tick
    touches: frozenset[int]  # where someone may notice what it did
    known: bool


def turn_of(start: int, neighbours: Mapping[int, Sequence[int]], *, pending: bool,
            walk: Sequence[int] = (), shout_into: Sequence[int] = ()) -> Turn:
    """An agent's turn as far as it is known. `pending`: its call for this tick is still out (it may
    stay, go one exit any way, or shout). `walk`: the rooms it walked into, once known; `shout_into`:
    the rooms its shout carried into (the adjacent rooms of low ambient noise), if it shouted."""
    if pending:
        near = frozenset((start, *neighbours.get(start, ())))
        return Turn(start, near, near, known=False)
    rooms = frozenset((start, *walk))
    return Turn(start, rooms, rooms | frozenset(shout_into), known=True)


def answered(start: int, neighbours: Mapping[int, Sequence[int]], action) -> Turn:
    """The turn of an agent whose answer is in, before it resolves (`action`: the answer parsed,
    world.rules.actions; ActionFail if the model did not answer): a move may take it one exit (which
    one, and whether at all, its resolution decides), a shout may be heard through every door; any
    other answer, or a failed one, stays in its room."""
    if isinstance(action, ActionFail):
        return turn_of(start, neighbours, pending=False)
    if action.action_type == "move":
        return turn_of(start, neighbours, pending=False, walk=neighbours.get(start, ()))
    if action.action_type == "communicate" and action.volume == "shout":
        return turn_of(start, neighbours, pending=False, shout_into=neighbours.get(start, ()))
    return turn_of(start, neighbours, pending=False)


def walking_on(start: int, nxt: int | None) -> Turn:
    """The turn of an agent that makes no call and walks on toward its destination (to `nxt`, the
    next room of its path, or nowhere)."""
    return turn_of(start, {}, pending=False, walk=() if nxt is None else (nxt,))


def still(start: int) -> Turn:
    """The turn of an agent that makes no call and does not walk (asleep, busy, collapsing where it
    stands)."""
    return turn_of(start, {}, pending=False)


NOWHERE = Turn(-1, frozenset(), frozenset(), known=True)  # the dead: their resolution touches nothing


def within_reach(a: Turn, b: Turn, neighbours: Mapping[int, Sequence[int]] | None = None) -> bool:
    """Can either turn change what the other agent perceives, or how its turn resolves?"""
    return bool(a.rooms & b.touches or b.rooms & a.touches)


SHELLS_KEPT = 20_000  # Balls.shells kept at most (a few for each room a step looks from, and its radii)


class Balls:
    """The rooms within `radius` exits of a room (on the ship's graph), each computed once."""

    def __init__(self, neighbours: Mapping[int, Sequence[int]]):
        self.neighbours = neighbours
        self._balls: dict[tuple[int, int], frozenset[int]] = {}
        self._shells: dict[tuple[frozenset[int], int], tuple[frozenset[int], ...]] = {}
        self._around: dict[tuple[int, int], tuple[frozenset[int], ...]] = {}

    def of(self, room: int, radius: int) -> frozenset[int]:
        ball = self._balls.get((room, radius))
        if ball is None:
            ball, edge = {room}, {room}
            for _ in range(radius):
                edge = {n for r in edge for n in self.neighbours[r]} - ball
                ball |= edge
            ball = self._balls[(room, radius)] = frozenset(ball)
        return ball

    def around(self, room: int, radius: int) -> tuple[frozenset[int], ...]:
        """`shells` of one room (kept by room: no set to make and hash for each ask)."""
        found = self._around.get((room, radius))
        if found is None:
            if len(self._around) >= SHELLS_KEPT:
                self._around.clear()
            found = self._around[(room, radius)] = self.shells(frozenset((room,)), radius)
        return found

    def shells(self, rooms: frozenset[int], radius: int) -> tuple[frozenset[int], ...]:
        """The rooms within `radius` exits of `rooms`, by their distance from the nearest of them: the
        rooms themselves, then those one exit away, and so on to `radius`; each computed once."""
        found = self._shells.get((rooms, radius))
        if found is None:
            seen, edge, found = set(rooms), set(rooms), [rooms]
            for _ in range(radius):
                edge = {n for r in edge for n in self.neighbours[r]} - seen
                seen |= edge
                found.append(frozenset(edge))
            if len(self._shells) >= SHELLS_KEPT:  # a world of thousands of rooms: keep the memory bounded
                self._shells.clear()
            found = self._shells[(rooms, radius)] = tuple(found)
        return found


def exits_to(shells: tuple[frozenset[int], ...], room: int) -> int | None:
    """How many exits `room` is from the nearest of the rooms `shells` grew from (Balls.shells); None
    if it is beyond them."""
    for exits, shell in enumerate(shells):
        if room in shell:
            return exits
    return None


class Behind(NamedTuple):
    """Another agent, as the rule needs it: where it is in the tick's steps (its next step, `step`, of
    `tick`), its place in the tick of the step asked about, where it stands, whether it lives and
    sleeps (and until when), and `turn`: what its resolution touches, once its answer is in (asked
    for only when the rule needs it: parsing the answer costs)."""
    tick: int
    step: int
    place: tuple
    room: int
    alive: bool = True
    asleep: bool = False
    busy_until: int = 0
    turn: Callable[[], Turn] | None = None


def reach(o: Behind, key: tuple, balls: Balls, wakes: bool = False) -> frozenset[int]:
    """The rooms where the agent's steps from where it is up to `key` (tick, step, place) may touch
    what the step at `key` reads or writes (`wakes`: that step is a wake that wakes its agent). k
    resolutions take it at most k exits away, each touching one exit beyond where it stands; once its
    answer is in and it stays, its first touches only what its answer touches. With none, it stays
    where it is, and only a resolution there, or a prompt there and someone waking, can tell which
    came first: its other steps read and write its own row and memory, which only a resolution of
    someone else's changes."""
    first, last = _resolutions(o, key)
    if first > last:  # no resolution of its own before `key`
        return frozenset((o.room,)) if _noticed_where_it_stands(o, key, wakes) else frozenset()
    if (known := _stays(o, first)) is not None:
        return known.touches | balls.of(o.room, last - first)
    return balls.of(o.room, last - first + 1)


def reaches(o: Behind, key: tuple, rooms, exits: int, wakes: bool = False) -> bool:
    """Does `reach` meet `rooms`, for an agent standing `exits` exits from the nearest of them? The
    same answer, without the rooms: a ball of k exits around where it stands meets them if and only
    if they are at most k exits away (the ship's doors go both ways)."""
    first, last = _resolutions(o, key)
    if first > last:
        return exits == 0 and _noticed_where_it_stands(o, key, wakes)
    if (known := _stays(o, first)) is not None:
        return exits <= last - first or not known.touches.isdisjoint(rooms)
    return exits <= last - first + 1


def _resolutions(o: Behind, key: tuple) -> tuple[int, int]:
    """The ticks of the agent's first and last resolutions before `key` (none if first > last)."""
    tick, step, place = key
    first = o.tick if o.step <= RESOLVE else o.tick + 1
    last = tick if step > RESOLVE or (step == RESOLVE and o.place < place) else tick - 1
    if not o.alive:
        first = last + 1
    elif o.asleep:
        first = max(first, o.busy_until)
    return first, last


def _noticed_where_it_stands(o: Behind, key: tuple, wakes: bool) -> bool:
    """With no resolution of its own before `key`: can its steps still tell in its room which came
    first (the step at `key` is a resolution; or a prompt, and it wakes before; or a wake, and it
    prompts before)?"""
    step = key[1]
    return step == RESOLVE or (step == PROMPT and o.asleep and _has(o, key, WAKE)) \
        or (wakes and _has(o, key, PROMPT))


def _stays(o: Behind, first: int) -> Turn | None:
    """Its answer for its first resolution, when that answer is in and keeps it where it stands."""
    if first == o.tick and o.step == RESOLVE and o.turn is not None:
        known = o.turn()  # its answer is in: what its resolution touches is known
        if known.rooms <= {o.room}:
            return known
    return None


def latest_within(tick: int, exits: int) -> int:
    """The latest tick an agent standing `exits` exits from a room may be in and still reach it by a
    step of `tick`: `reach` touches at most one exit beyond the resolutions it may make, one a tick
    from the start of its own (so an agent in `tick` reaches one exit, in the tick before two)."""
    return tick + 1 - exits


def _has(o: Behind, key: tuple, step: int) -> bool:
    """Is one of the agent's steps from where it is up to `key` a `step`?"""
    until = key[0]
    for tick in range(o.tick, until + 1):
        if (tick > o.tick or o.step <= step) and (tick, step, o.place if tick == until else ()) < key:
            return True
    return False


def barrier(plan, *, overnight: bool, interventions_due: bool, attrition_due: bool) -> str | None:
    """Why a tick must be taken by everyone together (lock-step), or None: a step that touches
    everyone fires at it (world/rules/tick_order.py), or interventions wait, or someone's attrition
    rumour may go round. `plan` is world.time.TickPlan."""
    if overnight:
        return "overnight"
    for step in TICK:
        if step.touches == EVERYONE and step.fires_at(plan):
            return step.name
    if interventions_due:
        return "interventions"
    if attrition_due:
        return "attrition rumour"
    return None


def attrition_possible(attrition: int, ticks_ahead: int, threshold: int) -> bool:
    """Could an agent whose attrition counter stands at `attrition` reach `threshold` within the next
    `ticks_ahead` ticks (one a tick while it stays alone)?"""
    return attrition + ticks_ahead >= threshold
